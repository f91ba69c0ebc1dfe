#include <gpucost/breakeven/config.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/report/trace_price.hpp>
#include <gpucost/report/trace_regions.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace gpucost::report {

namespace {

struct Shown {
  const TraceEventCopy* region = nullptr;
  int indent = 0;
};

/// The trace's regions as a tree: each after its parent, siblings by CPU time (the events' order).
std::vector<Shown> region_tree(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to) {
  std::vector<const TraceEventCopy*> regions;
  std::set<std::string> names;
  for (std::size_t i = from; i < to; ++i)
    if (events[i].kind == "trace_region") {
      regions.push_back(&events[i]);
      names.insert(events[i].text("name"));
    }
  std::multimap<std::string, const TraceEventCopy*> children;  // by parent, in CPU-time order
  std::vector<const TraceEventCopy*> roots;
  for (const TraceEventCopy* r : regions) {
    const std::string parent = r->text("parent");
    if (parent.empty() || names.count(parent) == 0)
      roots.push_back(r);
    else
      children.emplace(parent, r);
  }
  std::vector<Shown> out;
  std::set<const TraceEventCopy*> shown;
  const auto visit = [&](const auto& self, const TraceEventCopy* r, int indent) -> void {
    if (!shown.insert(r).second) return;
    out.push_back(Shown{r, indent});
    const auto [a, b] = children.equal_range(r->text("name"));
    for (auto it = a; it != b; ++it) self(self, it->second, indent + 1);
  };
  for (const TraceEventCopy* r : roots) visit(visit, r, 0);
  for (const TraceEventCopy* r : regions) visit(visit, r, 0);  // parents that form a cycle
  return out;
}

/// The figures of one region per step (per trace without step marks).
struct PerStep {
  double divisor = 1;  ///< the steps, 1 without step marks
  double calls = 0, cpu_ns = 0, gpu_ns = 0, annotated_ns = 0, launched_ns = 0;
  bool has_gpu = false, annotated = false;
};

PerStep per_step(const TraceEventCopy& r) {
  PerStep p;
  p.divisor = std::max(1.0, r.number("steps"));
  p.calls = r.number("calls") / p.divisor;
  p.cpu_ns = r.number("cpu_ns") / p.divisor;
  p.has_gpu = r.has("gpu_ns");
  p.gpu_ns = r.number("gpu_ns") / p.divisor;
  p.annotated = r.has("gpu_annotated_ns");
  p.annotated_ns = r.number("gpu_annotated_ns") / p.divisor;
  p.launched_ns = r.number("gpu_launched_ns") / p.divisor;
  return p;
}

/// The region's CPU time per step priced as a span of the step.
breakeven::StepCost region_cost(const TraceEventCopy& r, const TracePrice& price) {
  return breakeven::step_cost(*price.config, per_step(r).cpu_ns / 1e9, price.busy_share);
}

std::string header(const TraceEventCopy& first) {
  const auto steps = static_cast<std::int64_t>(first.number("steps"));
  const std::string over = steps > 0 ? fmt::format("per step, over {} step{} of {}", steps, steps == 1 ? "" : "s",
                                                   human_ns(first.number("step_ns")))
                                     : std::string("over the whole trace (no ProfilerStep marks: no per-step figures)");
  return fmt::format("regions (user annotations) {}; times inclusive: a nested region's is also its parent's\n", over);
}

}  // namespace

std::string trace_regions_text(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to, bool wide,
                               const TracePrice* price) {
  const std::vector<Shown> tree = region_tree(events, from, to);
  if (tree.empty()) return {};
  const bool priced = price != nullptr && price->config != nullptr;
  const bool epoch = priced && price->steps_per_epoch && tree.front().region->number("steps") > 0;
  const char* per = tree.front().region->number("steps") > 0 ? "step" : "trace";
  std::vector<std::string> names;
  for (const Shown& s : tree)
    names.push_back(std::string(static_cast<std::size_t>(2 * std::min(s.indent, 4)), ' ') + s.region->text("name"));
  names = fit_kernel_names(names, wide ? 0 : 44);
  std::string b = header(*tree.front().region);
  b += fmt::format("  {:<44} {:>7} {:>11} {:>11} {:>11} {:>7}", "region", "calls", "CPU time", "GPU annot.",
                   "GPU launch.", "share");
  if (priced) b += fmt::format(" {:>11} {:>11}", fmt::format("local/{}", per), fmt::format("cloud/{}", per));
  if (epoch) b += fmt::format(" {:>11} {:>11}", "local/epoch", "cloud/epoch");
  b += "\n";
  for (std::size_t i = 0; i < tree.size() && i < kRegionRows; ++i) {
    const TraceEventCopy& r = *tree[i].region;
    const PerStep p = per_step(r);
    b += fmt::format("  {:<44} {:>7.2f} {:>11} {:>11} {:>11} {:>7}", names[i], p.calls, human_ns(p.cpu_ns),
                     p.annotated ? human_ns(p.annotated_ns) : "-", human_ns(p.launched_ns),
                     r.has("step_share") ? fmt::format("{:.1f} %", 100 * r.number("step_share")) : "-");
    if (priced) {
      const breakeven::StepCost c = region_cost(r, *price);
      b += fmt::format(" {:>11.4g} {:>11.4g}", c.local, c.cloud);
      if (epoch) {
        const auto n = static_cast<double>(*price->steps_per_epoch);
        b += fmt::format(" {:>11.4g} {:>11.4g}", c.local * n, c.cloud * n);
      }
    }
    b += "\n";
  }
  if (tree.size() > kRegionRows) b += fmt::format("  ... {} more regions in --json\n", tree.size() - kRegionRows);
  b += "  GPU annot.: the union of its gpu_user_annotation ranges (Kineto's projection of the ops its own thread\n"
       "  launched, gaps included); GPU launch.: the union of the ops launched while it was open, on any thread\n";
  if (priced)
    b += fmt::format("  priced by CPU time (the step's wall time inside the region), in {}\n", price->config->currency);
  if (priced && !price->steps_per_epoch)
    b += "  per epoch: give --steps-per-epoch N (the steps in one epoch) to price the regions per epoch\n";
  else if (priced && !epoch)
    b += "  per epoch: no step marks, so no per-step figure to multiply by --steps-per-epoch\n";
  return b;
}

void trace_regions_json(io::JsonWriter& w, const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to,
                        const TracePrice* price) {
  w.key("regions").array();
  const bool priced = price != nullptr && price->config != nullptr;
  for (std::size_t i = from; i < to; ++i) {
    const TraceEventCopy& r = events[i];
    if (r.kind != "trace_region") continue;
    w.item().object();
    for (const auto& [key, value] : r.fields) {
      w.key(key);
      const auto n = r.numeric.find(key);
      if (n != r.numeric.end() && n->second)
        w.number_text(value);
      else
        w.str(value);
    }
    if (r.number("steps") > 0) {
      const PerStep p = per_step(r);
      w.key("calls_per_step").num(p.calls).key("cpu_ns_per_step").num(p.cpu_ns);
      w.key("gpu_ns_per_step").num(p.has_gpu ? std::optional<double>(p.gpu_ns) : std::nullopt);
    }
    w.key("cost");
    if (!priced) {
      w.null().close();
      continue;
    }
    const breakeven::StepCost c = region_cost(r, *price);
    const bool steps = r.number("steps") > 0;
    w.object().key("per").str(steps ? "step" : "trace").key("currency").str(price->config->currency);
    w.key("local").num(c.local).key("cloud").num(c.cloud);
    w.key("steps_per_epoch").integer(steps ? price->steps_per_epoch : std::nullopt);
    if (steps && price->steps_per_epoch) {
      const auto n = static_cast<double>(*price->steps_per_epoch);
      w.key("local_per_epoch").num(c.local * n).key("cloud_per_epoch").num(c.cloud * n);
    } else {
      w.key("local_per_epoch").null().key("cloud_per_epoch").null();
    }
    w.close().close();
  }
  w.close();
}

}  // namespace gpucost::report

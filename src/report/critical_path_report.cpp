#include <gpucost/report/critical_path_report.hpp>

#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

namespace gpucost::report {

namespace {

std::string share(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f} %", 100.0 * part / whole) : std::string("-");
}

std::string_view short_bound(const std::string& bound) {
  if (bound == "cpu_bound") return "cpu";
  if (bound == "gpu_compute_bound") return "gpu";
  if (bound == "gpu_communication_bound") return "comm";
  return bound;
}

/// The top operators on one window's path, on one line each.
void op_rows(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to, const TraceEventCopy& path,
             bool wide, std::string& b) {
  std::vector<const TraceEventCopy*> ops;
  std::vector<std::string> names;
  for (std::size_t i = from; i < to; ++i)
    if (events[i].kind == "trace_critical_op" && events[i].text("step") == path.text("step")) {
      ops.push_back(&events[i]);
      names.push_back(events[i].text("name"));
    }
  names = fit_kernel_names(names, wide ? 0 : kKernelNameWidth);
  for (std::size_t i = 0; i < ops.size(); ++i)
    b +=
        fmt::format("      {:<{}} {:>4} {:>12} {:>7}\n", names[i], kKernelNameWidth, short_bound(ops[i]->text("bound")),
                    human_ns(ops[i]->number("path_ns")), share(ops[i]->number("path_ns"), path.number("path_ns")));
}

/// The window and its launch overhead on the path, priced as a step of their length.
std::pair<breakeven::StepCost, breakeven::StepCost> window_costs(const TraceEventCopy& path, const TracePrice& price) {
  const double window_s = path.number("window_ns") / 1e9, launch_s = launch_overhead_ns(path) / 1e9;
  return {breakeven::step_cost(*price.config, window_s, price.busy_share),
          breakeven::step_cost(*price.config, launch_s, price.busy_share)};
}

void cost_line(const TraceEventCopy& path, const TracePrice& price, std::string& b) {
  const auto [step, launch] = window_costs(path, price);
  const std::string& cur = price.config->currency;
  b += fmt::format("      cost: the step costs {:.4g} {} in the cloud ({:.4g} {} local); {:.4g} {} of it ({}) is\n",
                   step.cloud, cur, step.local, cur, launch.cloud, cur,
                   share(launch_overhead_ns(path), path.number("window_ns")));
  b += fmt::format("            CPU-bound launch overhead on the critical path: launch calls {} + launch delays {}\n",
                   human_ns(path.number("launch_calls_ns")), human_ns(path.number("launch_overhead_ns")));
}

}  // namespace

double launch_overhead_ns(const TraceEventCopy& path) {
  return path.number("launch_calls_ns") + path.number("launch_overhead_ns");
}

void critical_path_cost_json(io::JsonWriter& w, const TraceEventCopy& path, const TracePrice& price) {
  const auto [step, launch] = window_costs(path, price);
  w.key("cost").object().key("currency").str(price.config->currency).key("busy_share").num(price.busy_share);
  w.key("window_local").num(step.local).key("window_cloud").num(step.cloud);
  w.key("launch_cost_ns").num(launch_overhead_ns(path));
  w.key("launch_local").num(launch.local).key("launch_cloud").num(launch.cloud);
  w.close();
}

void critical_path_rows(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to, bool wide,
                        const TracePrice* price, std::string& b) {
  bool header = false;
  for (std::size_t i = from; i < to; ++i) {
    const TraceEventCopy& p = events[i];
    if (p.kind != "trace_critical_path") continue;
    if (!header) {
      b +=
          "critical path (HTA's longest chain of CPU ops, launches, kernels and syncs); shares of the path: cpu\n"
          "  bound, gpu compute, gpu communication, launch delay, gaps between kernels; calls: launch calls (of cpu)\n";
      b += fmt::format("  {:>6} {:>12} {:>12} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n", "step", "window", "path",
                       "of win", "cpu", "gpu", "comm", "launch", "gaps", "calls");
      header = true;
    }
    const std::string step = p.has("step") ? p.text("step") : std::string("all");
    if (p.has("error")) {
      b += fmt::format("  {:>6} {:>12}  no path: {}\n", step, human_ns(p.number("window_ns")), p.text("error"));
      continue;
    }
    const double path = p.number("path_ns");
    b += fmt::format("  {:>6} {:>12} {:>12} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}\n", step,
                     human_ns(p.number("window_ns")), human_ns(path), share(path, p.number("window_ns")),
                     share(p.number("cpu_bound_ns"), path), share(p.number("gpu_compute_ns"), path),
                     share(p.number("gpu_comm_ns"), path), share(p.number("launch_overhead_ns"), path),
                     share(p.number("kernel_kernel_ns"), path), share(p.number("launch_calls_ns"), path));
    op_rows(events, from, to, p, wide, b);
    if (price != nullptr && price->config != nullptr) cost_line(p, *price, b);
  }
}

}  // namespace gpucost::report

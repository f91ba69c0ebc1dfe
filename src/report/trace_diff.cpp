#include <gpucost/report/trace_diff.hpp>

#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

namespace gpucost::report {

namespace {

std::optional<double> median(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The figures the events give, gathered in one pass.
struct Tally {
  double span = 0, busy = 0, comm_span = 0, exposed = 0;
  bool comm_seen = false, trace_without_steps = false;
  std::vector<double> p50, p95;
  std::map<std::int64_t, double> step_longest;  // step -> the longest rank's duration
  std::map<std::string, KernelTime> kernels;
  std::map<std::pair<std::string, std::string>, OperatorTime> operators;  // by (kind, name)
  std::set<int> ranks;
};

void tally_info(const TraceEventCopy& e, RunFigures& f, Tally& t) {
  ++f.traces;
  if (e.has("rank")) t.ranks.insert(static_cast<int>(e.number("rank")));
  if (e.has("world_size")) f.world_size = std::max(f.world_size, static_cast<int>(e.number("world_size")));
  const double steps = e.has("steps_analysed") ? e.number("steps_analysed") : e.number("steps");
  if (steps <= 0) t.trace_without_steps = true;
  f.step_units += steps;
}

void tally_device(const TraceEventCopy& e, RunFigures& f, Tally& t) {
  t.span += e.number("span_ns");
  t.busy += e.number("busy_ns");
  f.compute_ns += e.number("compute_kernel_ns");
  f.communication_ns += e.number("communication_kernel_ns");
  f.memory_ns += e.number("memory_op_ns");
}

void tally_kernel(const TraceEventCopy& e, Tally& t) {
  KernelTime& k = t.kernels[e.text("name")];
  k.name = e.text("name");
  k.cls = e.text("class");
  k.total_ns += e.number("total_ns");
  k.count += e.number("count");
}

void tally_operator(const TraceEventCopy& e, Tally& t) {
  OperatorTime& op = t.operators[{e.text("op_kind"), e.text("name")}];
  op.name = e.text("name");
  op.kind = e.text("op_kind");
  op.total_ns += e.number("total_ns");
  op.calls += e.number("calls");
}

void tally_event(const TraceEventCopy& e, RunFigures& f, Tally& t,
                 const std::optional<std::pair<std::int64_t, std::int64_t>>& steps) {
  if (e.kind == "trace_info") {
    tally_info(e, f, t);
  } else if (e.kind == "trace_device") {
    tally_device(e, f, t);
  } else if (e.kind == "trace_launch" && e.has("launch_delay_p50_ns")) {
    t.p50.push_back(e.number("launch_delay_p50_ns"));
    t.p95.push_back(e.number("launch_delay_p95_ns"));
  } else if (e.kind == "trace_kernel") {
    tally_kernel(e, t);
  } else if (e.kind == "trace_op") {
    tally_operator(e, t);
  } else if (e.kind == "trace_comm") {
    t.comm_seen = true;
    t.comm_span += e.number("span_ns");
    t.exposed += e.number("exposed_comm_ns");
  } else if (e.kind == "trace_step") {
    const auto step = static_cast<std::int64_t>(e.number("step", -1));
    if (steps && (step < steps->first || step > steps->second)) return;
    double& longest = t.step_longest[step];
    longest = std::max(longest, e.number("dur_ns"));
  }
}

void wait_of_jobs(const std::vector<extract::TraceJob>& jobs, RunFigures& f) {
  double wait = 0, span = 0;
  for (const extract::TraceJob& j : jobs) {
    if (j.ranks.size() < 2) continue;
    wait += static_cast<double>(j.wait_ns);
    span += static_cast<double>(j.span_ns);
  }
  if (span > 0) f.wait_fraction = wait / span;
}

}  // namespace

RunFigures run_figures(const TraceRun& run, std::optional<std::pair<std::int64_t, std::int64_t>> steps) {
  RunFigures f;
  f.label = run.label;
  f.fingerprint = run.fingerprint;
  Tally t;
  for (const TraceEventCopy& e : run.events) tally_event(e, f, t, steps);
  if (t.trace_without_steps) f.step_units = 0;
  f.ranks.assign(t.ranks.begin(), t.ranks.end());
  if (t.span > 0) f.busy_share = t.busy / t.span;
  f.launch_p50_ns = median(t.p50);
  f.launch_p95_ns = median(t.p95);
  if (t.p50.size() > 1)
    f.notes.push_back(fmt::format("launch delays: the median of the {} traces' own percentiles", t.p50.size()));
  if (t.comm_span > 0) f.exposed_comm_fraction = t.exposed / t.comm_span;
  if (!t.comm_seen && f.traces > 0) f.exposed_comm_fraction = 0.0;  // no communication kernel at all
  if (!t.step_longest.empty()) {
    double sum = 0;
    for (const auto& [step, ns] : t.step_longest) sum += ns;
    f.steps = static_cast<std::int64_t>(t.step_longest.size());
    f.step_ns = sum / static_cast<double>(f.steps);
  }
  for (auto& [name, k] : t.kernels) f.kernels.push_back(std::move(k));
  for (auto& [key, op] : t.operators) f.operators.push_back(std::move(op));
  wait_of_jobs(run.jobs, f);
  return f;
}

bool compare_per_step(const RunFigures& a, const RunFigures& b) { return a.step_units > 0 && b.step_units > 0; }

std::vector<KernelChange> top_changed_kernels(const RunFigures& a, const RunFigures& b, std::size_t top) {
  const bool per_step = compare_per_step(a, b);
  const double ua = a.units(per_step), ub = b.units(per_step);
  std::map<std::string, KernelChange> by_name;
  for (const KernelTime& k : a.kernels) {
    KernelChange& c = by_name[k.name];
    c.name = k.name;
    c.cls = k.cls;
    c.a_ns = ua > 0 ? k.total_ns / ua : 0;
  }
  for (const KernelTime& k : b.kernels) {
    KernelChange& c = by_name[k.name];
    c.name = k.name;
    c.cls = k.cls;
    c.b_ns = ub > 0 ? k.total_ns / ub : 0;
  }
  std::vector<KernelChange> out;
  for (auto& [name, c] : by_name)
    if (c.change_ns() != 0) out.push_back(std::move(c));
  std::sort(out.begin(), out.end(), [](const KernelChange& x, const KernelChange& y) {
    const double dx = std::fabs(x.change_ns()), dy = std::fabs(y.change_ns());
    return dx != dy ? dx > dy : x.name < y.name;
  });
  if (out.size() > top) out.resize(top);
  return out;
}

std::string_view OperatorChange::verdict() const {
  if (a_calls == 0) return "new";
  if (b_calls == 0) return "gone";
  // Per call first: an operator called more often is not slower.
  const double a_call = a_ns / a_calls, b_call = b_ns / b_calls;
  if (b_call > a_call * (1 + kOperatorChangeShare)) return "slower";
  if (b_call < a_call * (1 - kOperatorChangeShare)) return "faster";
  if (b_calls > a_calls * (1 + 1e-9)) return "more calls";
  if (b_calls < a_calls * (1 - 1e-9)) return "fewer calls";
  return "same";
}

std::vector<OperatorChange> operator_changes(const RunFigures& a, const RunFigures& b) {
  const bool per_step = compare_per_step(a, b);
  const double ua = a.units(per_step), ub = b.units(per_step);
  std::map<std::pair<std::string, std::string>, OperatorChange> by_name;
  const auto side = [&by_name](const RunFigures& f, double units, bool is_a) {
    for (const OperatorTime& op : f.operators) {
      OperatorChange& c = by_name[{op.kind, op.name}];
      c.name = op.name;
      c.kind = op.kind;
      (is_a ? c.a_calls : c.b_calls) = units > 0 ? op.calls / units : 0;
      (is_a ? c.a_ns : c.b_ns) = units > 0 ? op.total_ns / units : 0;
    }
  };
  side(a, ua, true);
  side(b, ub, false);
  std::vector<OperatorChange> out;
  for (auto& [key, c] : by_name) out.push_back(std::move(c));
  std::stable_sort(out.begin(), out.end(), [](const OperatorChange& x, const OperatorChange& y) {
    return std::fabs(x.change_ns()) > std::fabs(y.change_ns());  // ties keep (kind, name) order
  });
  return out;
}

namespace {

constexpr std::string_view kMissing = "-";

/// B relative to A: "+4.6 %"; "-" when either is unknown or A is 0.
std::string relative(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *a == 0) return std::string(kMissing);
  return fmt::format("{:+.1f} %", (*b / *a - 1) * 100);
}

/// B − A of two shares in percentage points: "+2.0 pt".
std::string points(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return std::string(kMissing);
  return fmt::format("{:+.1f} pt", (*b - *a) * 100);
}

std::string ns_text(const std::optional<double>& ns) { return ns ? human_ns(*ns) : std::string(kMissing); }
std::string share_text(const std::optional<double>& s) {
  return s ? fmt::format("{:.1f} %", *s * 100) : std::string(kMissing);
}

std::string row(std::string_view label, std::string_view a, std::string_view b, std::string_view change) {
  return fmt::format("  {:<30} {:>18} {:>18} {:>10}\n", label, a, b, change);
}

/// "ranks 0-1 of 2", "rank 3 of 8", "no rank".
std::string ranks_text(const RunFigures& f) {
  std::string r;
  if (f.ranks.empty()) {
    r = "no rank";
  } else if (f.ranks.size() == 1) {
    r = fmt::format("rank {}", f.ranks.front());
  } else {
    const bool contiguous = f.ranks.back() - f.ranks.front() + 1 == static_cast<int>(f.ranks.size());
    r = contiguous ? fmt::format("ranks {}-{}", f.ranks.front(), f.ranks.back())
                   : fmt::format("{} ranks", f.ranks.size());
  }
  if (f.world_size > 0) r += fmt::format(" of {}", f.world_size);
  return r;
}

std::optional<double> per_unit(double total, const RunFigures& f, bool per_step) {
  const double u = f.units(per_step);
  if (u <= 0) return std::nullopt;
  return total / u;
}

std::string figures_block(const RunFigures& a, const RunFigures& b) {
  const bool ps = compare_per_step(a, b);
  std::string t;
  t += row("traces", std::to_string(a.traces), std::to_string(b.traces), "");
  t += row("ranks", ranks_text(a), ranks_text(b), "");
  t += row(fmt::format("step time ({} | {} steps)", a.steps, b.steps), ns_text(a.step_ns), ns_text(b.step_ns),
           relative(a.step_ns, b.step_ns));
  t += row("GPU busy", share_text(a.busy_share), share_text(b.busy_share), points(a.busy_share, b.busy_share));
  t += row("launch delay p50", ns_text(a.launch_p50_ns), ns_text(b.launch_p50_ns),
           relative(a.launch_p50_ns, b.launch_p50_ns));
  t += row("launch delay p95", ns_text(a.launch_p95_ns), ns_text(b.launch_p95_ns),
           relative(a.launch_p95_ns, b.launch_p95_ns));
  t += fmt::format("  kernel time per {}\n", ps ? "step and rank" : "trace");
  const auto cls = [&](std::string_view name, double RunFigures::*m) {
    const auto va = per_unit(a.*m, a, ps), vb = per_unit(b.*m, b, ps);
    t += row(fmt::format("  {}", name), ns_text(va), ns_text(vb), relative(va, vb));
  };
  cls("compute", &RunFigures::compute_ns);
  cls("communication", &RunFigures::communication_ns);
  cls("memory (copies, sets)", &RunFigures::memory_ns);
  t += row("exposed communication", share_text(a.exposed_comm_fraction), share_text(b.exposed_comm_fraction),
           points(a.exposed_comm_fraction, b.exposed_comm_fraction));
  t += row("waiting for the last rank", share_text(a.wait_fraction), share_text(b.wait_fraction),
           points(a.wait_fraction, b.wait_fraction));
  return t;
}

std::string money(double v, const std::string& currency) { return fmt::format("{:.4g} {}", v, currency); }

std::optional<breakeven::StepCost> side_cost(const RunFigures& f, const breakeven::CostConfig& c) {
  if (!f.step_ns) return std::nullopt;
  return breakeven::step_cost(c, *f.step_ns / 1e9, f.busy_share.value_or(1.0));
}

std::string cost_block(const RunFigures& a, const RunFigures& b, const breakeven::CostConfig& c) {
  const auto ca = side_cost(a, c), cb = side_cost(b, c);
  if (!ca || !cb) return "  cost per step: no step marks on one side (ProfilerStep#N): nothing to price\n";
  std::string t =
      fmt::format("  cost per step (cloud: {})\n", c.cloud_name.empty() ? "the config's offer" : c.cloud_name);
  t += row("  local, without GPU energy", money(ca->local, c.currency), money(cb->local, c.currency),
           relative(ca->local, cb->local));
  t += row("  cloud", money(ca->cloud, c.currency), money(cb->cloud, c.currency), relative(ca->cloud, cb->cloud));
  return t;
}

// ---- the software stack ----------------------------------------------------------------------

/// A layer's name and version from a stack entry: "CUDA runtime 12.9" -> ("CUDA runtime", "12.9").
std::pair<std::string, std::string> split_layer(const std::string& entry) {
  const std::size_t sp = entry.rfind(' ');
  if (sp == std::string::npos) return {entry, ""};
  return {entry.substr(0, sp), entry.substr(sp + 1)};
}

/// Rows of the stack comparison: (layer, A's versions, B's versions), layers in first-seen order.
std::vector<std::array<std::string, 3>> stack_rows(const Fingerprint& a, const Fingerprint& b) {
  std::vector<std::array<std::string, 3>> rows;
  const auto add = [&rows](const std::string& layer, const std::vector<std::string>& va,
                           const std::vector<std::string>& vb) {
    if (va.empty() && vb.empty()) return;
    rows.push_back({layer, text::join(va, ", "), text::join(vb, ", ")});
  };
  add("driver", a.drivers, b.drivers);
  add("CUDA (driver)", a.cuda, b.cuda);
  add("GPU", a.gpus, b.gpus);
  std::vector<std::string> layers;
  for (const Fingerprint* fp : {&a, &b})
    for (const std::string& e : fp->stack) Fingerprint::add(layers, split_layer(e).first);
  for (const std::string& layer : layers) {
    std::vector<std::string> va, vb;
    for (const std::string& e : a.stack)
      if (split_layer(e).first == layer) va.push_back(split_layer(e).second);
    for (const std::string& e : b.stack)
      if (split_layer(e).first == layer) vb.push_back(split_layer(e).second);
    add(layer, va, vb);
  }
  return rows;
}

std::string stack_verdict(const std::array<std::string, 3>& r) {
  if (r[1].empty() || r[2].empty()) return "one side";
  return r[1] == r[2] ? "same" : "changed";
}

std::string stack_block(const RunFigures& a, const RunFigures& b) {
  const auto rows = stack_rows(a.fingerprint, b.fingerprint);
  if (rows.empty())
    return "stack: neither side's inputs name a driver, CUDA or library version (a trace from PyTorch 2.1 on names "
           "CUDA; add the run's nvidia-smi -q output or a log with python -m torch.utils.collect_env)\n";
  std::string t = "stack\n";
  for (const auto& r : rows)
    t += row(r[0], r[1].empty() ? std::string(kMissing) : r[1], r[2].empty() ? std::string(kMissing) : r[2],
             stack_verdict(r));
  return t;
}

std::string kernels_block(const RunFigures& a, const RunFigures& b, std::size_t top, bool wide) {
  const auto changes = top_changed_kernels(a, b, top);
  if (changes.empty()) return "top changed kernels: none (the same kernels, the same time)\n";
  std::string t =
      fmt::format("top changed kernels (time per {})\n", compare_per_step(a, b) ? "step and rank" : "trace");
  std::vector<std::string> names;
  for (const KernelChange& k : changes) names.push_back(k.name);
  names = fit_kernel_names(names, wide ? 0 : kKernelNameWidth);
  std::size_t width = kKernelNameWidth;
  for (const std::string& n : names) width = std::max(width, n.size());
  t += fmt::format("  {:<{}} {:>13} {:>12} {:>12} {:>12}\n", "kernel", width, "class", "A", "B", "change");
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const KernelChange& k = changes[i];
    const std::string change = k.a_ns == 0   ? "new"
                               : k.b_ns == 0 ? "gone"
                                             : fmt::format("{:+.1f} %", (k.b_ns / k.a_ns - 1) * 100);
    t += fmt::format("  {:<{}} {:>13} {:>12} {:>12} {:>12}\n", names[i], width, k.cls, human_ns(k.a_ns),
                     human_ns(k.b_ns), change);
  }
  return t;
}

/// "3 new, 1 gone, 12 slower per call, 5 faster, 2 more calls, 0 fewer, 30 the same"
std::string operator_summary(const std::vector<OperatorChange>& changes) {
  std::map<std::string_view, std::size_t> n;
  for (const OperatorChange& c : changes) ++n[c.verdict()];
  return fmt::format("{} new, {} gone, {} slower per call, {} faster, {} called more often, {} less often, {} the same",
                     n["new"], n["gone"], n["slower"], n["faster"], n["more calls"], n["fewer calls"], n["same"]);
}

/// What changed, in the verdict's terms: "new", "+12.0 % per call", "+50.0 % calls", "+1.0 %".
std::string operator_change_text(const OperatorChange& c) {
  const std::string_view v = c.verdict();
  if (v == "new" || v == "gone") return std::string(v);
  if (v == "slower" || v == "faster")
    return fmt::format("{:+.1f} % per call", ((c.b_ns / c.b_calls) / (c.a_ns / c.a_calls) - 1) * 100);
  if (v == "more calls" || v == "fewer calls") return fmt::format("{:+.1f} % calls", (c.b_calls / c.a_calls - 1) * 100);
  return c.a_ns > 0 ? fmt::format("{:+.1f} %", (c.b_ns / c.a_ns - 1) * 100) : std::string(kMissing);
}

std::string operators_block(const RunFigures& a, const RunFigures& b, std::size_t top, bool wide) {
  if (!a.has_operators() && !b.has_operators())
    return "operators: none on either side (no cpu_op, runtime or user_annotation records)\n";
  std::vector<OperatorChange> changes = operator_changes(a, b);
  const std::string unit = compare_per_step(a, b) ? "step and rank" : "trace";
  std::string t = fmt::format("operators on the CPU (inclusive time per {}): {}\n", unit, operator_summary(changes));
  std::erase_if(changes, [](const OperatorChange& c) { return c.change_ns() == 0 && c.a_calls == c.b_calls; });
  if (changes.size() > top) changes.resize(top);
  if (changes.empty()) return t;
  std::vector<std::string> names;
  for (const OperatorChange& c : changes) names.push_back(c.name);
  names = fit_kernel_names(names, wide ? 0 : kKernelNameWidth);
  std::size_t width = 40;
  for (const std::string& n : names) width = std::max(width, n.size());
  t += fmt::format("  {:<{}} {:>10} {:>7} {:>7} {:>11} {:>11} {:>11} {:>11} {:>16}\n", "operator", width, "kind",
                   "calls A", "calls B", "A per call", "B per call", "A", "B", "change");
  const auto per_call = [](double ns, double calls) {
    return calls > 0 ? human_ns(ns / calls) : std::string(kMissing);
  };
  const auto calls = [](double c) { return c > 0 ? fmt::format("{:.4g}", c) : std::string(kMissing); };
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const OperatorChange& c = changes[i];
    t += fmt::format("  {:<{}} {:>10} {:>7} {:>7} {:>11} {:>11} {:>11} {:>11} {:>16}\n", names[i], width, c.kind,
                     calls(c.a_calls), calls(c.b_calls), per_call(c.a_ns, c.a_calls), per_call(c.b_ns, c.b_calls),
                     human_ns(c.a_ns), human_ns(c.b_ns), operator_change_text(c));
  }
  return t;
}

std::string notes_block(const RunFigures& a, const RunFigures& b) {
  std::string t;
  for (const RunFigures* f : {&a, &b})
    for (const std::string& n : f->notes) t += fmt::format("note: {}: {}\n", f == &a ? "A" : "B", n);
  if (!compare_per_step(a, b)) t += "note: kernel times are per trace: a side has a trace without ProfilerStep marks\n";
  return t;
}

}  // namespace

std::string trace_diff_table(const RunFigures& a, const RunFigures& b, std::size_t top,
                             const breakeven::CostConfig* config, bool wide) {
  std::string t = fmt::format("trace diff\n  A = {}\n  B = {}\n\n", a.label, b.label);
  t += row("", "A", "B", "change");
  t += figures_block(a, b);
  if (config != nullptr) t += cost_block(a, b, *config);
  t += "\n" + stack_block(a, b) + "\n" + kernels_block(a, b, top, wide) + "\n" + operators_block(a, b, top, wide) +
       notes_block(a, b);
  return t;
}

// ---- JSON ------------------------------------------------------------------------------------

namespace {

using io::JsonWriter;

void json_list(JsonWriter& w, std::string_view key, const std::vector<std::string>& v) {
  w.key(key).array();
  for (const std::string& s : v) w.item().str(s);
  w.close();
}

void json_side(JsonWriter& w, const RunFigures& f, bool ps) {
  w.object().key("label").str(f.label).key("traces").count(f.traces).key("ranks").array();
  for (const int r : f.ranks) w.item().integer(r);
  w.close().key("world_size").integer(f.world_size).key("steps").integer(f.steps);
  w.key("step_ns").num(f.step_ns).key("busy_share").num(f.busy_share);
  w.key("launch_delay_p50_ns").num(f.launch_p50_ns).key("launch_delay_p95_ns").num(f.launch_p95_ns);
  w.key("compute_kernel_ns").num(per_unit(f.compute_ns, f, ps));
  w.key("communication_kernel_ns").num(per_unit(f.communication_ns, f, ps));
  w.key("memory_op_ns").num(per_unit(f.memory_ns, f, ps));
  w.key("exposed_comm_fraction").num(f.exposed_comm_fraction).key("wait_fraction").num(f.wait_fraction);
  w.key("stack").object();
  json_list(w, "drivers", f.fingerprint.drivers);
  json_list(w, "cuda", f.fingerprint.cuda);
  json_list(w, "gpus", f.fingerprint.gpus);
  json_list(w, "libraries", f.fingerprint.stack);
  w.close();
  json_list(w, "notes", f.notes);
  w.close();
}

void json_cost(JsonWriter& w, const RunFigures& a, const RunFigures& c_b, const breakeven::CostConfig& c) {
  const auto ca = side_cost(a, c), cb = side_cost(c_b, c);
  w.key("cost_per_step");
  if (!ca || !cb) {
    w.null();
    return;
  }
  w.object().key("currency").str(c.currency);
  w.key("gpu_energy").str("not included: the traces have no power samples");
  for (const auto& [key, s] : {std::pair{"a", *ca}, std::pair{"b", *cb}})
    w.key(key).object().key("local").num(s.local).key("cloud").num(s.cloud).key("q").num(s.q).close();
  w.close();
}

void json_kernels(JsonWriter& w, const RunFigures& a, const RunFigures& c_b, std::size_t top) {
  w.key("top_changed_kernels").array();
  for (const KernelChange& k : top_changed_kernels(a, c_b, top)) {
    w.item().object().key("name").str(k.name).key("class").str(k.cls);
    w.key("a_ns").num(k.a_ns).key("b_ns").num(k.b_ns).key("change_ns").num(k.change_ns()).close();
  }
  w.close();
}

void json_operators(JsonWriter& w, const RunFigures& a, const RunFigures& c_b, std::size_t top) {
  std::vector<OperatorChange> changes = operator_changes(a, c_b);
  w.key("operators").object();
  std::map<std::string_view, std::size_t> n;
  for (const OperatorChange& c : changes) ++n[c.verdict()];
  for (const auto& [key, v] : {std::pair{"new", "new"},
                               {"gone", "gone"},
                               {"slower", "slower"},
                               {"faster", "faster"},
                               {"more_calls", "more calls"},
                               {"fewer_calls", "fewer calls"},
                               {"same", "same"}})
    w.key(key).integer(static_cast<std::int64_t>(n[v]));
  std::erase_if(changes, [](const OperatorChange& c) { return c.change_ns() == 0 && c.a_calls == c.b_calls; });
  if (changes.size() > top) changes.resize(top);
  w.key("top_changed").array();
  for (const OperatorChange& c : changes) {
    w.item().object().key("name").str(c.name).key("kind").str(c.kind).key("change").str(c.verdict());
    w.key("a_calls").num(c.a_calls).key("b_calls").num(c.b_calls).key("a_ns").num(c.a_ns).key("b_ns").num(c.b_ns);
    w.key("change_ns").num(c.change_ns()).close();
  }
  w.close().close();
}

void json_stack_changes(JsonWriter& w, const RunFigures& a, const RunFigures& c_b) {
  std::vector<std::string> changed;
  for (const auto& r : stack_rows(a.fingerprint, c_b.fingerprint))
    if (stack_verdict(r) != "same") changed.push_back(r[0]);
  json_list(w, "stack_changed", changed);
}

}  // namespace

std::string trace_diff_json(const RunFigures& a, const RunFigures& b, std::size_t top,
                            const breakeven::CostConfig* config) {
  const bool ps = compare_per_step(a, b);
  std::string j;
  JsonWriter w(j, JsonWriter::Layout::compact);
  w.object().key("unit").str(ps ? "step" : "trace").key("a");
  json_side(w, a, ps);
  w.key("b");
  json_side(w, b, ps);
  if (config != nullptr) json_cost(w, a, b, *config);
  json_kernels(w, a, b, top);
  json_operators(w, a, b, top);
  json_stack_changes(w, a, b);
  w.close();
  j.push_back('\n');
  return j;
}

}  // namespace gpucost::report

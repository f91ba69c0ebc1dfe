#include <gpucost/report/critical_path_report.hpp>

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
    b += fmt::format("      {:<{}} {:>4} {:>12} {:>7}\n", names[i], kKernelNameWidth, short_bound(ops[i]->text("bound")),
                     human_ns(ops[i]->number("path_ns")), share(ops[i]->number("path_ns"), path.number("path_ns")));
}

}  // namespace

void critical_path_rows(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to, bool wide,
                        std::string& b) {
  bool header = false;
  for (std::size_t i = from; i < to; ++i) {
    const TraceEventCopy& p = events[i];
    if (p.kind != "trace_critical_path") continue;
    if (!header) {
      b += "critical path (HTA's longest chain of CPU ops, launches, kernels and syncs); shares of the path: cpu\n"
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
  }
}

}  // namespace gpucost::report

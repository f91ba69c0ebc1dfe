#include "critical_path_events.hpp"

#include "critical_path.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpucost::prep {

namespace {

using namespace trace;

constexpr std::size_t kTopOps = 5;

struct Window {
  std::int64_t start_ns = 0, end_ns = 0;
  std::optional<std::int64_t> step;
};

/// Each ProfilerStep within --steps, by start; a trace without steps is one window.
std::vector<Window> windows(const TraceData& data, const PrepOptions& options) {
  std::vector<Window> out;
  for (const StepMark& s : data.steps) {
    if (options.step_first &&
        (s.number < *options.step_first || s.number > options.step_last.value_or(*options.step_first)))
      continue;
    out.push_back(Window{s.start_ns, s.start_ns + s.dur_ns, s.number});
  }
  std::sort(out.begin(), out.end(), [](const Window& a, const Window& b) { return a.start_ns < b.start_ns; });
  if (data.steps.empty()) {
    const auto [lo, hi] = whole_trace_window(data);
    out.push_back(Window{lo, hi, std::nullopt});
  }
  return out;
}

void add_share(Event& e, std::string_view key, std::int64_t part, std::int64_t whole) {
  if (whole > 0)
    e.fields.push_back(
        Field{key, e.own(fmt::format("{}", static_cast<double>(part) / static_cast<double>(whole))), true, false});
}

/// A trace_critical_* event of window `w` at `ts`, with the trace's rank and the window's step.
Event& begin_window_event(ParseContext& ctx, std::string_view kind, std::int64_t ts, const TraceData& data,
                          const Window& w) {
  ctx.event.reset();
  ctx.event.source = "kineto-trace";
  ctx.event.kind = kind;
  ctx.event.ts_ns = ts;
  ctx.event.gpu = -1;
  Event& e = ctx.event;
  if (data.rank >= 0) e.add_number("rank", data.rank);
  if (w.step) e.add_number("step", *w.step);
  return e;
}

void emit_path(const TraceData& data, const Window& w, const CriticalPath& p, std::int64_t ts, ParseContext& ctx) {
  Event& e = begin_window_event(ctx, "trace_critical_path", ts, data, w);
  e.add_number("window_ns", w.end_ns - w.start_ns);
  if (!p.error.empty()) {
    e.add_text("error", e.own(p.error));
    ctx.emit();
    return;
  }
  e.add_number("path_ns", p.length_ns);
  add_share(e, "path_share", p.length_ns, w.end_ns - w.start_ns);
  static constexpr std::string_view kKeys[kCpBounds] = {"cpu_bound_ns",       "gpu_compute_ns",   "gpu_comm_ns",
                                                        "launch_overhead_ns", "kernel_kernel_ns", ""};
  for (int b = 0; b + 1 < kCpBounds; ++b) e.add_number(kKeys[b], p.bound_ns[b]);
  e.add_number("launch_calls_ns", p.launch_calls_ns);
  e.add_number("path_nodes", static_cast<std::int64_t>(p.path_nodes));
  e.add_number("graph_nodes", static_cast<std::int64_t>(p.graph_nodes));
  e.add_number("graph_edges", static_cast<std::int64_t>(p.graph_edges));
  e.add_number("sync_edges", static_cast<std::int64_t>(p.sync_edges));
  e.add_number("sync_events", p.has_sync_events ? 1 : 0);
  ctx.emit();
  std::int64_t place = 0;
  for (const CpOpRow& op : p.top_ops) {
    Event& o = begin_window_event(ctx, "trace_critical_op", ts, data, w);
    o.add_number("place", ++place);
    o.add_text("name", o.own(op.name));
    o.add_text("bound", to_string(op.bound));
    o.add_number("path_ns", op.ns);
    add_share(o, "path_share", op.ns, p.length_ns);
    ctx.emit();
  }
}

}  // namespace

void emit_critical_paths(const TraceData& data, const std::function<std::int64_t(std::int64_t)>& at,
                         ParseContext& ctx) {
  const std::vector<Window> ws = windows(data, ctx.options);
  std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  for (const Window& w : ws) spans.emplace_back(w.start_ns, w.end_ns);
  const std::vector<CriticalPath> paths = critical_paths(data, spans, kTopOps);
  for (std::size_t i = 0; i < ws.size(); ++i) emit_path(data, ws[i], paths[i], at(ws[i].start_ns), ctx);
  if (!paths.empty() && !paths.front().has_sync_events)
    add_note(ctx.stats,
             "--critical-path: the trace has no cuda_sync events (torch.profiler records them from PyTorch 2.2 with "
             "experimental_config enable_cuda_sync_events): CPU waits on the GPU are not modelled, the path may "
             "run through them");
}

}  // namespace gpucost::prep

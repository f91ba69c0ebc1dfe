// The job window (window.hpp).
#include "window.hpp"

#include <gpucost/core/time.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace gpucost::extract::detail {

namespace {

/// ts + span_ns, saturating: an events stream may carry any number (NaN or negative is 0).
std::int64_t span_end(std::int64_t ts_ns, double span_ns) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (!(span_ns > 0)) return ts_ns;
  if (span_ns >= static_cast<double>(kMax) || ts_ns > kMax - static_cast<std::int64_t>(span_ns)) return kMax;
  return ts_ns + static_cast<std::int64_t>(span_ns);
}

/// Without telemetry, the GPU spans of profiler traces give the window (and the GPUs).
void trace_span(const SampleCollector& samples, Window& w) {
  for (const TraceRecord& r : samples.trace_records()) {
    if (r.kind != EventKind::trace_device) continue;
    w.lo = std::min(w.lo, r.ts_ns);
    w.hi = std::max(w.hi, span_end(r.ts_ns, r.get("span_ns")));
    if (std::find(w.trace_gpus.begin(), w.trace_gpus.end(), r.gpu) == w.trace_gpus.end()) w.trace_gpus.push_back(r.gpu);
  }
  std::sort(w.trace_gpus.begin(), w.trace_gpus.end());
}

/// A training log's first start and last end phase bound the job (a flag still wins for its end).
void trainlog_span(const SampleCollector& samples, const ExtractOptions& options, Window& w, Features& f) {
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  std::int64_t train_from = kNone, train_to = kNone;
  for (const auto& [ts, phase] : samples.train_marks()) {
    if (phase == "start" && (train_from == kNone || ts < train_from)) train_from = ts;
    if (phase == "end" && (train_to == kNone || ts > train_to)) train_to = ts;
  }
  if ((train_from != kNone || train_to != kNone) && !(options.from_ns && options.to_ns)) {
    const std::int64_t a = train_from != kNone ? train_from : w.lo, b = train_to != kNone ? train_to : w.hi;
    if (b > a) {
      w.lo = a;
      w.hi = b;
      f.chosen_by = options.from_ns || options.to_ns ? "flags and trainlog" : "trainlog";
    }
  }
}

}  // namespace

Expected<Window> choose_window(const SampleCollector& samples, const ExtractOptions& options, Features& f) {
  Window w;
  w.lo = samples.store().min_ts();
  w.hi = samples.store().max_ts();
  const bool from_trace = w.lo > w.hi;
  if (from_trace) trace_span(samples, w);
  // Without either, the kernel and system logs alone: the host's event indicators, over the
  // flags' window or from the first to the last incident; no GPU.
  w.host_only = w.lo > w.hi && (samples.has_host_logs() || !samples.incidents().empty()) &&
                ((options.from_ns && options.to_ns) || !samples.incidents().empty());
  if (w.host_only) {
    w.lo = samples.incidents().empty() ? *options.from_ns : samples.incidents().min_ts();
    w.hi = samples.incidents().empty() ? *options.to_ns : samples.incidents().max_ts();
  }
  if (w.lo > w.hi)
    return make_error(ErrorKind::format, "no telemetry samples and no profiler trace with GPU ops in the input",
                      samples.has_host_logs()
                          ? "the kernel or system logs have no incident to set a window: give --from and --to, or "
                            "nvidia-smi dmon or --query-gpu output beside them"
                          : "give nvidia-smi dmon or --query-gpu output, a Kineto trace (or a gpucost.events stream "
                            "with their events)");
  f.host = samples.host().empty() && w.host_only ? samples.incident_host() : samples.host();
  f.logs_tz = samples.logs_tz();
  // host_only implies from_trace (no samples), so it is asked first.
  f.chosen_by = options.from_ns || options.to_ns ? "flags" : w.host_only ? "events" : from_trace ? "trace" : "samples";
  trainlog_span(samples, options, w, f);
  f.from_ns = options.from_ns.value_or(w.lo);
  f.to_ns = options.to_ns.value_or(w.hi);
  f.to_exclusive = options.to_ns.has_value();
  if (f.last_ns() < f.from_ns) {
    if (options.from_ns && options.to_ns)
      return make_error(ErrorKind::usage, "--from/--to: the window ends before it starts",
                        "give --from earlier than --to (ISO 8601, e.g. 2024-06-12T14:22:18Z)");
    // Only one end was given and it lies beyond the samples.
    return make_error(ErrorKind::usage, "--from/--to: no sample falls inside the window",
                      fmt::format("the samples run from {} to {}", format_utc(w.lo), format_utc(w.hi)));
  }
  return w;
}

}  // namespace gpucost::extract::detail

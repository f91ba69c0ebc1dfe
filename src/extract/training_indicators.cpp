// Steps, throughput and --pattern lines: host indicators from the records of traces and
// training logs.
#include "training_indicators.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpucost::extract::detail {

namespace {

/// numpy's default ("linear") percentile of sorted values, q in [0, 1].
double linear_percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

/// Profiler steps (F132-F134) and the training log's throughput (F135, F136),
/// on the host. Steps belong to their trace and are not cut by the window (like every trace
/// indicator); throughput lines are the window's.
void training_indicators(const SampleCollector& c, const Features& f, IndicatorSet& out) {
  std::vector<double> steps;
  double traces = 0;
  for (const TraceRecord& r : c.trace_records()) {
    if (r.kind == EventKind::trace_info) ++traces;
    if (r.kind == EventKind::trace_step && !std::isnan(r.get("dur_ns"))) steps.push_back(r.get("dur_ns") / 1e9);
  }
  if (traces == 0)
    set_absent(out, "trace_steps", "no Kineto trace among the inputs");
  else
    set_value(out, "trace_steps", static_cast<double>(steps.size()));
  if (steps.empty()) {
    const std::string why = traces == 0 ? "no Kineto trace among the inputs" : "the traces mark no ProfilerStep#N";
    set_absent(out, "step_time_mean_s", why);
    set_absent(out, "step_time_p95_s", why);
  } else {
    std::sort(steps.begin(), steps.end());
    double sum = 0;
    for (double v : steps) sum += v;
    set_value(out, "step_time_mean_s", sum / static_cast<double>(steps.size()));
    set_value(out, "step_time_p95_s", linear_percentile(steps, 0.95));
  }
  std::vector<double> samples, iterations;
  for (const TrainRate& r : c.train_rates())
    if (f.contains(r.ts_ns)) (r.samples ? samples : iterations).push_back(r.value);
  if (samples.empty()) {
    set_absent(out, "samples_per_s",
               "no training summary with samples per second (HF Trainer train_samples_per_second) in the window");
  } else {
    double sum = 0;
    for (double v : samples) sum += v;
    set_value(out, "samples_per_s", sum / static_cast<double>(samples.size()));
  }
  if (iterations.empty()) {
    set_absent(out, "iterations_per_s", "no training progress bar with a rate (tqdm it/s or s/it) in the window");
  } else {
    std::sort(iterations.begin(), iterations.end());
    set_value(out, "iterations_per_s", linear_percentile(iterations, 0.5));
  }
}

/// --pattern lines in the window: how many, and their summed durations.
void pattern_indicators(const SampleCollector& c, const Features& f, IndicatorSet& out) {
  if (c.pattern_events().empty()) {
    set_absent(out, "pattern_events", "no --pattern matched a line of the inputs");
    set_absent(out, "pattern_duration_s", "no --pattern matched a line of the inputs");
    return;
  }
  double n = 0, with_duration = 0;
  long double ns = 0;
  for (const auto& [ts, dur] : c.pattern_events()) {
    if (!f.contains(ts)) continue;
    ++n;
    if (dur >= 0) {
      ns += static_cast<long double>(dur);
      ++with_duration;
    }
  }
  set_value(out, "pattern_events", n);
  const IndicatorKey key = "pattern_duration_s";
  if (with_duration > 0)
    set_value(out, key, static_cast<double>(ns / 1e9L));
  else
    set_absent(out, key, "no matching line in the window has a duration group (dur_ms, dur_us, ...)");
}

void checkpoint_summary(const SampleCollector& c, Features& f) {
  std::vector<std::int64_t> times;
  for (const std::int64_t ts : c.checkpoint_times())
    if (f.contains(ts)) times.push_back(ts);
  if (times.empty()) return;
  std::sort(times.begin(), times.end());
  Features::Checkpoints s;
  s.count = static_cast<std::int64_t>(times.size());
  std::vector<double> intervals;
  for (std::size_t i = 1; i < times.size(); ++i)
    if (times[i] > times[i - 1])  // in double: two stamps of any window never overflow
      intervals.push_back((static_cast<double>(times[i]) - static_cast<double>(times[i - 1])) / 1e9);
  if (!intervals.empty()) {
    std::sort(intervals.begin(), intervals.end());
    s.interval_median_s = linear_percentile(intervals, 0.5);
  }
  f.checkpoints = s;
}

}  // namespace gpucost::extract::detail

// Work from the training logs: a step, token or epoch count is the largest the log shows in the
// window less the largest it showed before it, so that a window cut from a long run counts only
// its own work; an HF Trainer summary gives the whole run's, so it counts only when the run
// started in the window.
#include "work_indicators.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace gpucost::extract::detail {

namespace {

constexpr double kNaN = TrainWork::kNone;

/// The largest value of `field` in the window less the largest before it (0 without one);
/// NaN when no record in the window has it. A count smaller than the one before is a new run
/// (a restart from 0): its own largest value is its work.
template <typename Field>
double counted_in_window(const std::vector<TrainWork>& work, const Features& f, Field field) {
  double in = kNaN, before = 0;
  for (const TrainWork& w : work) {
    const double v = field(w);
    if (std::isnan(v)) continue;
    if (w.ts_ns < f.from_ns)
      before = std::max(before, v);
    else if (f.contains(w.ts_ns))
      in = std::isnan(in) ? v : std::max(in, v);
  }
  if (std::isnan(in)) return kNaN;
  return in >= before ? in - before : in;
}

/// The summaries' rate x runtime, summed over the HF summaries in the window; NaN when there
/// is none, or when the run began before the window (a record before it, and no start mark in
/// the window before the summary).
template <typename Rate>
double from_summaries(const std::vector<TrainWork>& work, const Features& f, Rate rate) {
  bool began_before = false, started = false;
  double sum = kNaN;
  for (const TrainWork& w : work) {
    if (w.ts_ns < f.from_ns) {
      began_before = true;
      continue;
    }
    if (!f.contains(w.ts_ns)) continue;
    started = started || w.start;
    const double r = rate(w);
    if (std::isnan(r) || std::isnan(w.runtime_s) || (began_before && !started)) continue;
    sum = (std::isnan(sum) ? 0 : sum) + r * w.runtime_s;
  }
  return sum;
}

void set_or_absent(IndicatorSet& out, const IndicatorKey& key, double v, const std::string& reason) {
  if (std::isnan(v))
    set_absent(out, key, reason);
  else
    set_value(out, key, v);
}

/// The host's value of `key`, or why it has none.
IndicatorValue host_value(const IndicatorSet& out, const IndicatorKey& key) {
  const auto it = out.find(std::string(key.name()));
  if (it == out.end()) return {std::nullopt, std::string(key.name()) + " was not computed"};
  return it->second;
}

/// energy x energy_scale per `unit` units of work, or absent naming what is missing.
void per_unit(IndicatorSet& out, const IndicatorKey& key, const IndicatorKey& energy_key, double energy_scale,
              const IndicatorKey& work_key, double unit) {
  const IndicatorValue energy = host_value(out, energy_key);
  const IndicatorValue work = host_value(out, work_key);
  if (!energy.value)
    set_absent(out, key, energy.reason);
  else if (!work.value)
    set_absent(out, key, work.reason);
  else if (*work.value > 0)
    set_value(out, key, *energy.value * energy_scale / (*work.value / unit));
  else
    set_absent(out, key, std::string(work_key.name()) + " is 0");
}

}  // namespace

void work_indicators(const SampleCollector& c, const WorkOptions& options, Features& f) {
  IndicatorSet& out = f.host_indicators;
  const auto& work = c.train_work();
  const std::string no_log = "no training log with steps among the inputs";
  // Without any training record the flags alone cannot count: there are no steps to multiply.
  double steps = counted_in_window(work, f, [](const TrainWork& w) { return w.step; });
  if (std::isnan(steps)) steps = from_summaries(work, f, [](const TrainWork& w) { return w.steps_per_s; });
  set_or_absent(out, "work_steps", steps,
                work.empty() ? no_log
                             : "no training step in the window (a step, bar or checkpoint-N line, or an HF "
                               "summary of a run that began in it)");

  double samples = from_summaries(work, f, [](const TrainWork& w) { return w.samples_per_s; });
  if (std::isnan(samples) && options.samples_per_step && !std::isnan(steps))
    samples = steps * *options.samples_per_step;
  set_or_absent(out, "work_samples", samples,
                work.empty() ? no_log
                             : "no HF summary (train_samples_per_second, train_runtime) of a run that began in the "
                               "window; give --samples-per-step");

  double tokens = counted_in_window(work, f, [](const TrainWork& w) { return w.tokens_seen; });
  if (std::isnan(tokens)) tokens = from_summaries(work, f, [](const TrainWork& w) { return w.tokens_per_s; });
  if (std::isnan(tokens) && options.tokens_per_step && !std::isnan(steps)) tokens = steps * *options.tokens_per_step;
  set_or_absent(out, "work_tokens", tokens,
                work.empty() ? no_log
                             : "the training log counts no tokens (HF num_input_tokens_seen, "
                               "train_tokens_per_second); give --tokens-per-step");

  const double epochs = counted_in_window(work, f, [](const TrainWork& w) { return w.progress; });
  set_or_absent(out, "work_epochs", epochs,
                work.empty() ? no_log : "no epoch in the window (an HF dict's epoch, a Lightning Epoch N bar)");
  work_ratios(f);
}

void work_ratios(Features& f) {
  IndicatorSet& out = f.host_indicators;
  const IndicatorValue tokens = host_value(out, "work_tokens");
  if (!tokens.value)
    set_absent(out, "tokens_per_s", tokens.reason);
  else if (f.wall_s() > 0)
    set_value(out, "tokens_per_s", *tokens.value / f.wall_s());
  else
    set_absent(out, "tokens_per_s", "the window is empty (wall time 0 s)");
  per_unit(out, "energy_per_step_wh", "energy_kwh", 1000, "work_steps", 1);
  per_unit(out, "energy_per_1k_samples_wh", "energy_kwh", 1000, "work_samples", 1000);
  per_unit(out, "energy_per_1k_tokens_wh", "energy_kwh", 1000, "work_tokens", 1000);
  per_unit(out, "energy_per_epoch_kwh", "energy_kwh", 1, "work_epochs", 1);
}

}  // namespace gpucost::extract::detail

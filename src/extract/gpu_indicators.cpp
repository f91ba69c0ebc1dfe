// Each GPU's indicators over the window (gpu_stats.hpp's walks over its samples) and the host
// values from the GPUs'. Every formula is in docs/indicators.md; the unit tests recompute them
// by hand.
#include "gpu_indicators.hpp"

#include <gpucost/core/time.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/extract.hpp>

#include "gpu_stats.hpp"
#include "series_passes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucost::extract {

double gap_limit_s(double median_interval_s) { return std::max(10.0, 5.0 * median_interval_s); }

namespace detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// Why a host figure of the GPUs is absent when no GPU is: the inputs hold logs only.
std::string no_gpu_telemetry(const Features& f) {
  return f.chosen_by == "trainlog"
             ? "no GPU telemetry in the input (a training log only: breakeven estimates the energy from the GPU model)"
             : "no GPU telemetry in the input (kernel or system logs only)";
}

/// How the host value of a per-GPU indicator comes from the GPUs' values: its catalogue row says.
HostCombine host_rule(std::string_view key) {
  const IndicatorDef* def = find_indicator(key);
  return def != nullptr ? def->host_combine : HostCombine::mean;
}

/// The host's power integral against its counter energy, over the summed energies: when every
/// GPU's energy came from its counter and has power samples to compare.
void power_vs_counter(const Features& f, IndicatorSet& out) {
  double power_kwh = 0, counter_kwh = 0;
  for (const GpuFeatures& g : f.gpus) {
    const IndicatorValue* entry = entry_of(g.indicators, "energy_power_vs_counter_pct");
    if (entry == nullptr || !entry->value) {
      set_absent(out, "energy_power_vs_counter_pct",
                 fmt::format("GPU {}: {}", g.gpu, entry == nullptr ? "not computed" : entry->reason));
      return;
    }
    power_kwh += value_of(g.indicators, "energy_kwh_from_power").value_or(kNaN);
    counter_kwh += value_of(g.indicators, "energy_kwh").value_or(kNaN);
  }
  if (f.gpus.empty())
    set_absent(out, "energy_power_vs_counter_pct", no_gpu_telemetry(f));
  else if (counter_kwh > 0)
    set_value(out, "energy_power_vs_counter_pct", (power_kwh - counter_kwh) / counter_kwh * 100);
  else
    set_absent(out, "energy_power_vs_counter_pct", "energy is 0");
}

/// The host's energy method: the GPUs' when they agree, else mixed; empty when none has energy.
std::string host_energy_method(const Features& f) {
  std::string method;
  for (const GpuFeatures& g : f.gpus) {
    if (g.energy_method.empty()) continue;
    if (method.empty())
      method = g.energy_method;
    else if (method != g.energy_method)
      return std::string(kEnergyMixed);
  }
  return method;
}

/// The host's ratios of summed GPU quantities (not means of the GPUs' ratios).
void host_ratios(const Features& f, double filled_j, double energy_j, IndicatorSet& out) {
  const IndicatorValue* energy_entry = entry_of(out, "energy_kwh");
  const IndicatorValue energy = energy_entry != nullptr ? *energy_entry : IndicatorValue{};
  if (!energy.value)
    set_absent(out, "energy_filled_fraction", energy.reason);
  else if (energy_j > 0)
    set_value(out, "energy_filled_fraction", filled_j / energy_j);
  else
    set_absent(out, "energy_filled_fraction", "energy is 0");
  // Busy time (covered utilisation time above 0 %) and the energy with a utilisation reading,
  // summed from the GPUs' partials: the host's ratios of sums.
  double busy_s = 0, idle_j = 0, util_known_j = 0;
  bool utilisation = false;
  for (const GpuFeatures& g : f.gpus) {
    const auto sum = [&](const char* name) {
      const double v = partial(g.partials, name);
      return std::isnan(v) ? 0.0 : v;
    };
    utilisation = utilisation || sum("util.n") > 0;
    busy_s += sum("util.cov_s") - sum("util.zero_s");
    idle_j += sum("idle.energy_j");
    util_known_j += sum("util_known.energy_j");
  }
  if (!energy.value)
    set_absent(out, "energy_per_busy_hour_kwh", energy.reason);
  else if (!utilisation)
    set_absent(out, "energy_per_busy_hour_kwh", "no utilisation samples (MIG mode prints none)");
  else if (busy_s > 0)
    set_value(out, "energy_per_busy_hour_kwh", *energy.value / (busy_s / 3600));
  else
    set_absent(out, "energy_per_busy_hour_kwh", "no busy time (utilisation > 0 %)");
  if (!utilisation)
    set_absent(out, "idle_energy_share",
               f.gpus.empty() ? no_gpu_telemetry(f) : std::string("no utilisation samples (MIG mode prints none)"));
  else if (util_known_j > 0)
    set_value(out, "idle_energy_share", idle_j / util_known_j);
  else
    set_absent(out, "idle_energy_share", "no covered power interval with a utilisation reading, or its energy is 0");
  power_vs_counter(f, out);
}

/// Adds a GPU's profile to the walk's (moved whole into an empty one, the usual case).
void add_profile(EnergyProfile& into, EnergyProfile&& from) {
  if (into.empty()) {
    into = std::move(from);
    return;
  }
  for (const auto& [minute, kwh] : from.kwh_by_minute) into.add_minute(minute, kwh);
}

}  // namespace

bool gpu_indicators(const SampleStore& store, int gpu, const Features& window, double threshold, GpuFeatures& g,
                    HostWalks& host, std::size_t readers_at_once) {
  const std::int64_t from_ns = window.from_ns, to_ns = window.to_ns, last_ns = window.last_ns();
  IntervalWalker intervals;
  bool any = false;
  store.for_each(
      gpu, from_ns, last_ns,
      [&](const Sample& x) {
        if (!any) g.first = x;
        any = true;
        intervals.add(x);
      },
      readers_at_once);
  if (!any) return false;
  GpuSketches sketches;
  sketches.intervals = intervals.take();
  const double limit = gap_limit_s(sketches.intervals.empty() ? 0 : sketches.intervals.median());

  // Both integrals are built; the finished energy's method decides which the profile keeps.
  EnergyProfile power_profile, counter_profile;
  EnergyProfileBuilder power_energy(power_profile), counter_energy(counter_profile);
  GpuWalker walker(limit, threshold, &power_energy, &counter_energy);
  ThermalShapeWalker thermal(threshold);
  bool utilisation = false;
  store.for_each(
      gpu, from_ns, last_ns,
      [&](const Sample& x) {
        walker.add(x);
        thermal.add(x);
        utilisation = utilisation || !std::isnan(x.util_pct);
      },
      readers_at_once);
  host.summary.utilisation = host.summary.utilisation || utilisation;
  g.last = walker.last();

  IndicatorSet& out = g.indicators;
  g.partials = walker.partials();
  GpuSketches walked = walker.take_sketches();
  walked.intervals = std::move(sketches.intervals);
  finish_quantiles(walked, out);
  g.sketches = std::make_shared<const GpuSketches>(std::move(walked));
  const GpuEnergy e = finish_gpu(g.partials, seconds_of(to_ns - from_ns), out);
  host.filled_j += e.filled_j;
  host.energy_j += e.energy_j;
  g.energy_method = std::string(e.method);
  if (!e.method.empty()) {
    const bool by_counter = e.method == kEnergyByCounter;
    (by_counter ? counter_energy : power_energy).finish(from_ns, to_ns, e.fill_w);
    add_profile(host.profile, std::move(by_counter ? counter_profile : power_profile));
  }
  host.summary.temperature = host.summary.temperature || thermal.any();
  thermal.finish(out, host.summary.crossings);
  return true;
}

// Host values: extensive quantities are sums, maxima maxima, minima minima, the rest means over
// the GPUs that have the indicator. A sum is absent when any GPU lacks its term: a host energy
// that silently left a GPU out would look like a measurement.
void host_from_gpus(Features& f, double filled_j, double energy_j) {
  IndicatorSet& out = f.host_indicators;
  set_value(out, "wall_s", f.wall_s());
  set_value(out, "gpu_count", static_cast<double>(f.gpus.size()));
  for (const IndicatorDef& def : catalogue()) {
    const std::string key(def.key);
    // Set on their own: the traces' (trace_indicators.cpp) and the processes' (process_indicators.cpp).
    if (key == "wall_s" || def.scope == Scope::host_only || def.category == "trace" || def.category == "processes")
      continue;
    const HostCombine rule = host_rule(key);
    double acc = rule == HostCombine::max   ? -std::numeric_limits<double>::infinity()
                 : rule == HostCombine::min ? std::numeric_limits<double>::infinity()
                                            : 0;
    std::size_t n = 0;
    std::string reason, gpu_reason;  // the first missing GPU's reason, bare and naming the GPU
    for (const GpuFeatures& g : f.gpus) {
      const auto it = g.indicators.find(key);
      if (it == g.indicators.end() || !it->second.value) {
        if (reason.empty()) {
          reason = it == g.indicators.end() ? "not computed" : it->second.reason;
          gpu_reason = fmt::format("GPU {}: {}", g.gpu, reason);
        }
        continue;
      }
      const double v = *it->second.value;
      acc = rule == HostCombine::max ? std::max(acc, v) : rule == HostCombine::min ? std::min(acc, v) : acc + v;
      ++n;
    }
    if (rule == HostCombine::sum && n < f.gpus.size()) {
      set_absent(out, IndicatorKey::of(key), gpu_reason);
      continue;
    }
    if (n == 0) {
      set_absent(out, IndicatorKey::of(key),
                 !reason.empty()  ? reason
                 : f.gpus.empty() ? no_gpu_telemetry(f)
                                  : std::string("no GPU has this indicator"));
      continue;
    }
    set_value(out, IndicatorKey::of(key), rule == HostCombine::mean ? acc / static_cast<double>(n) : acc);
  }
  host_ratios(f, filled_j, energy_j, out);
  f.energy_method = host_energy_method(f);
}

void no_telemetry(IndicatorSet& out) {
  for (const IndicatorDef& d : catalogue())
    if (d.category != "trace" && d.category != "processes" && d.scope != Scope::host_only && d.key != "wall_s")
      set_absent(out, IndicatorKey::of(d.key), "no telemetry samples for this GPU (only a profiler trace)");
}

}  // namespace detail

}  // namespace gpucost::extract

// The GPU energy estimated from the GPU model (energy_estimate.hpp; docs/cost-model.md,
// "Estimated energy").
#include <gpucost/breakeven/energy_estimate.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace gpucost::breakeven {

namespace {

/// A name and where it came from.
struct Named {
  std::string name, source;
};

/// The GPU the job ran on: --gpu, else the traces', the telemetry's, the training log's names.
Expected<Named> which_gpu(const EstimateRequest& r, const std::vector<std::string>& telemetry,
                          const std::vector<std::string>& traces) {
  if (!r.gpu.empty()) return Named{r.gpu, "--gpu"};
  const std::pair<const std::vector<std::string>*, const char*> sources[] = {
      {&traces, "the profiler trace (deviceProperties)"},
      {&telemetry, "the nvidia-smi output among the inputs"},
      {&r.log_names, "the training log"}};
  for (const auto& [names, source] : sources) {
    if (names->empty()) continue;
    if (names->size() > 1)
      return make_error(
          ErrorKind::usage,
          fmt::format("{} names several GPU models ({}): which one ran the job?", source, fmt::join(*names, ", ")),
          "give --gpu NAME (gpucost gpus lists the models the estimate knows)");
    return Named{names->front(), source};
  }
  return make_error(ErrorKind::usage,
                    "no telemetry, and the inputs do not say which GPU ran the job: its energy cannot be estimated",
                    "give --gpu NAME and --gpus N (gpucost gpus lists the models), or log telemetry: nvidia-smi "
                    "--query-gpu=timestamp,index,name,power.draw,utilization.gpu --format=csv -l 5 > gpu.csv");
}

int gpu_count(const extract::Features& f, const EstimateRequest& r, EnergyEstimate& e) {
  if (r.gpus) {
    e.count_source = "--gpus";
    return *r.gpus;
  }
  if (!f.gpus.empty()) {
    e.count_source = "the profiler traces' devices";
    return static_cast<int>(f.gpus.size());
  }
  if (r.log_gpus) {
    e.count_source = "the training log";
    return *r.log_gpus;
  }
  e.count_source = "assumed";
  e.notes.push_back("the inputs do not say how many GPUs the job used: 1 assumed; give --gpus N");
  return 1;
}

double busy_share(const extract::Features& f, const EstimateRequest& r, EnergyEstimate& e) {
  if (r.util) {
    e.busy_source = "--util";
    return *r.util;
  }
  if (const auto idle = extract::value_of(f.host_indicators, "gpu_idle_fraction_trace")) {
    e.busy_source = "the profiler trace";
    if (f.chosen_by != "trace")  // the window is longer than the traced span
      e.notes.push_back(
          fmt::format("the profiler trace's busy share ({:.1f} %) is extrapolated over the whole window ({})",
                      (1.0 - *idle) * 100, text::duration_hours(f.wall_s() / 3600.0)));
    return std::clamp(1.0 - *idle, 0.0, 1.0);
  }
  if (f.chosen_by.find("trainlog") != std::string::npos) {
    e.busy_source = "the training log (busy from its start to its end)";
    return 1.0;
  }
  e.busy_source = "assumed";
  e.notes.push_back("nothing says how busy the GPUs were: busy throughout assumed; give --util");
  return 1.0;
}

/// E_g spread over the window's minutes in proportion to their overlap with it, for
/// time-of-use tariffs; none for a window too long to list by minute.
extract::EnergyProfile uniform_profile(std::int64_t from_ns, std::int64_t to_ns, double kwh) {
  extract::EnergyProfile p;
  constexpr std::int64_t kMaxMinutes = 4'000'000;  // 7.6 years
  const std::int64_t span = to_ns - from_ns;
  if (span <= 0 || span / extract::EnergyProfile::kBucketNs > kMaxMinutes) return p;
  for (std::int64_t m = extract::EnergyProfile::minute_of(from_ns); m * extract::EnergyProfile::kBucketNs < to_ns;
       ++m) {
    const std::int64_t lo = std::max(from_ns, m * extract::EnergyProfile::kBucketNs);
    const std::int64_t hi = std::min(to_ns, (m + 1) * extract::EnergyProfile::kBucketNs);
    if (hi > lo) p.add_minute(m, kwh * static_cast<double>(hi - lo) / static_cast<double>(span));
  }
  return p;
}

/// Fills the estimate's energies from its GPUs, busy share, hours and power model.
void size_estimate(EnergyEstimate& e) {
  const double gpu_h = e.gpus * e.hours / 1000.0;
  e.estimated_kwh = e.power.central_w(e.busy) * gpu_h;
  e.low_kwh = e.power.low_w(e.busy) * gpu_h;
  e.high_kwh = e.power.high_w() * gpu_h;
}

Expected<EnergyEstimate> model_of(const Named& gpu) {
  EnergyEstimate e;
  e.gpu_name = gpu.name;
  e.gpu_source = gpu.source;
  std::string why = fmt::format("'{}' is not in the GPU table", gpu.name);
  const GpuSpeed* entry = find_gpu_speed(gpu.name);
  std::optional<PowerModel> power = entry != nullptr ? power_model(*entry, &why) : std::nullopt;
  if (!power)
    return make_error(ErrorKind::usage, fmt::format("the GPU of the job ({}, from {}): {}", gpu.name, gpu.source, why),
                      "give --gpu with a model the table holds with its board power (gpucost gpus lists them), or "
                      "log telemetry");
  e.model = entry->model;
  e.power = *power;
  return e;
}

}  // namespace

std::optional<PowerModel> power_model(const GpuSpeed& gpu, std::string* why) {
  if (!gpu.tdp_w) {
    if (why != nullptr)
      *why = fmt::format(
          "the table has no board power for '{}' (its variants differ: name the variant; or no vendor figure was "
          "found)",
          gpu.model);
    return std::nullopt;
  }
  PowerModel m;
  m.tdp_w = *gpu.tdp_w;
  if (gpu.idle_w) {
    m.idle_w = *gpu.idle_w;
    m.idle_measured = true;
    m.idle_low_w = kIdleMeasuredLow * *gpu.idle_w;
    // The table's idle_source names its measurement, usually as "measured: ...": not said twice.
    m.idle_basis = gpu.idle_source.starts_with("measured") ? gpu.idle_source : "measured: " + gpu.idle_source;
  } else {
    m.idle_w = kIdleShareTypical * m.tdp_w;
    m.idle_low_w = kIdleShareLow * m.tdp_w;
    m.idle_basis =
        fmt::format("assumed: {:.0f} % of the board power ({:.3g} % for the lower bound); no measurement of this model",
                    kIdleShareTypical * 100, kIdleShareLow * 100);
  }
  return m;
}

bool lacks_gpu_energy(const extract::Features& f) {
  return std::none_of(f.gpus.begin(), f.gpus.end(), [](const extract::GpuFeatures& g) {
    return extract::value_of(g.indicators, "energy_kwh").has_value();
  });
}

Expected<EnergyEstimate> estimate_energy(const extract::Features& f, const EstimateRequest& r,
                                         const std::vector<std::string>& telemetry_names,
                                         const std::vector<std::string>& trace_names) {
  auto gpu = which_gpu(r, telemetry_names, trace_names);
  if (!gpu) return gpu.error();
  auto e = model_of(*gpu);
  if (!e) return e.error();
  e->gpus = gpu_count(f, r, *e);
  e->busy = busy_share(f, r, *e);
  e->hours = f.wall_s() / 3600.0;
  if (!e->power.idle_measured)
    e->notes.push_back(fmt::format("{}'s idle power is not measured: {}", e->model, e->power.idle_basis));
  size_estimate(*e);
  return e;
}

Expected<JobInputs> estimated_job_inputs(const extract::Features& f, const EnergyEstimate& e) {
  JobInputs in;
  in.wall_h = e.hours;
  if (!(in.wall_h > 0))
    return make_error(ErrorKind::usage, "the job window is 0 s long: there is nothing to price",
                      "give a training log with its start and end, or --from and --to");
  const double per_gpu = e.estimated_kwh / e.gpus;
  for (int g = 0; g < e.gpus; ++g) {
    in.energy_kwh.push_back(per_gpu);
    in.util.push_back(e.busy);
    in.gpu_energy_method.emplace_back(g, std::string(extract::kEnergyByModel));
  }
  in.util_source = e.busy_source == "assumed" ? "assumed" : "estimate";
  in.util_assumed = e.busy_source == "assumed";
  if (const auto idle = extract::value_of(f.host_indicators, "gpu_idle_fraction_trace"))
    in.trace_busy_fraction = 1.0 - *idle;
  window_inputs(f, in);
  in.profile = uniform_profile(f.from_ns, f.to_ns, e.estimated_kwh);
  in.energy_low_kwh = e.low_kwh;
  in.energy_high_kwh = e.high_kwh;
  in.energy_method = std::string(extract::kEnergyByModel);
  EnergyBasis& b = in.energy_basis;
  b.known = true;
  b.measured_kwh = 0;
  b.estimated_kwh = e.estimated_kwh;
  b.coverage = 0;
  b.uncovered_h = b.window_h = in.wall_h;
  b.fill_power_w = e.estimated_kwh / in.wall_h * 1000.0;
  return in;
}

Expected<EstimateBeside> estimate_beside(const extract::Features& f, const JobInputs& measured,
                                         const EstimateRequest& r, const std::vector<std::string>& telemetry_names,
                                         const std::vector<std::string>& trace_names) {
  auto gpu = which_gpu(r, telemetry_names, trace_names);
  if (!gpu) return gpu.error();
  auto e = model_of(*gpu);
  if (!e) return e.error();
  EstimateBeside out;
  e->gpus = static_cast<int>(measured.energy_kwh.size());
  e->count_source = "the telemetry";
  e->hours = measured.wall_h;
  double busy_sum = 0;
  for (std::size_t i = 0; i < measured.energy_kwh.size(); ++i) {
    EstimateCheck c;
    c.gpu = i < f.gpus.size() ? f.gpus[i].gpu : static_cast<int>(i);
    c.busy = std::clamp(measured.util[i], 0.0, 1.0);
    c.measured_kwh = measured.energy_kwh[i];
    const double h = measured.wall_h / 1000.0;
    c.estimated_kwh = e->power.central_w(c.busy) * h;
    c.low_kwh = e->power.low_w(c.busy) * h;
    c.high_kwh = e->power.high_w() * h;
    busy_sum += c.busy;
    out.gpus.push_back(c);
  }
  e->busy = out.gpus.empty() ? 0.0 : busy_sum / static_cast<double>(out.gpus.size());
  e->busy_source = "the telemetry's utilisation";
  e->estimated_kwh = e->low_kwh = e->high_kwh = 0;
  for (const EstimateCheck& c : out.gpus) {
    e->estimated_kwh += c.estimated_kwh;
    e->low_kwh += c.low_kwh;
    e->high_kwh += c.high_kwh;
  }
  out.estimate = std::move(*e);
  return out;
}

}  // namespace gpucost::breakeven

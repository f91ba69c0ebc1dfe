// The GPU energy of a job without telemetry, estimated from the GPU model (data/gpu-speed.toml),
// the number of GPUs, the job's length and how busy the GPUs were, with a lower and an upper
// bound; and the same estimate beside a measurement (--estimate) to check it. The model, its
// bounds and their validation on real telemetry: docs/cost-model.md, "Estimated energy".
#pragma once

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/extract/features.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpucost::breakeven {

/// The power of training below the power limit: the lower bound takes this share of the
/// (TDP - idle) x busy the central estimate assumes (docs/cost-model.md, "Estimated energy").
inline constexpr double kBusyDrawLow = 0.6;
/// Without a measured idle power, the central estimate assumes this share of TDP (the median of
/// the P0 idle shares measured in the corpus) and the lower bound this one (below the lowest
/// measured, a GeForce card at P8).
inline constexpr double kIdleShareTypical = 0.15;
inline constexpr double kIdleShareLow = 0.015;  // RTX 4090 at P8: 8.8 W of 450, 0.0196
/// A measured idle is one board's (or a median's): the lower bound takes this share of it, since
/// boards of one model differ (8 H100 idle at 67.7-72.3 W, 4 % below their median).
inline constexpr double kIdleMeasuredLow = 0.9;

/// What the user said (--gpu, --gpus, --util) and what the inputs say of the GPUs.
struct EstimateRequest {
  std::string gpu;                     ///< --gpu NAME; empty: from the inputs
  std::optional<int> gpus;             ///< --gpus N
  std::optional<double> util;          ///< --util, 0-1
  bool beside = false;                 ///< --estimate: also beside a measurement
  std::vector<std::string> log_names;  ///< GPU names the training logs print
  std::optional<int> log_gpus;         ///< the GPU count the training logs print
};

/// One GPU model's power, W: idle (central and low) and the board's limit.
struct PowerModel {
  double idle_w = 0, idle_low_w = 0, tdp_w = 0;
  bool idle_measured = false;  ///< the table's idle_w; else a share of TDP
  std::string idle_basis;      ///< "measured: ..." or "assumed: 15 % of TDP ..."
  /// Per GPU at busy share b (0-1): the central estimate, its lower and its upper bound.
  [[nodiscard]] double central_w(double busy) const { return idle_w + (tdp_w - idle_w) * busy; }
  [[nodiscard]] double low_w(double busy) const { return idle_low_w + (tdp_w - idle_low_w) * busy * kBusyDrawLow; }
  [[nodiscard]] double high_w() const { return tdp_w; }
};

/// The power model of a table entry; none (with `why`) when the entry has no board power.
std::optional<PowerModel> power_model(const GpuSpeed& gpu, std::string* why = nullptr);

struct EnergyEstimate {
  std::string gpu_name;    ///< as given or logged
  std::string model;       ///< the table's entry
  std::string gpu_source;  ///< "--gpu", "the profiler trace (deviceProperties)", ...
  int gpus = 1;
  std::string count_source;
  double busy = 1;  ///< 0-1
  std::string busy_source;
  PowerModel power;
  double hours = 0;                                     ///< the window
  double estimated_kwh = 0, low_kwh = 0, high_kwh = 0;  ///< all GPUs
  std::vector<std::string> notes;                       ///< assumptions the output must say
};

/// The estimate for a job of `features` (its window, traces and training log) and `request`,
/// given the names the telemetry and the traces carry. Fails, with a hint to give --gpu, when
/// the GPU is unknown or not in the table with a board power.
Expected<EnergyEstimate> estimate_energy(const extract::Features& features, const EstimateRequest& request,
                                         const std::vector<std::string>& telemetry_names,
                                         const std::vector<std::string>& trace_names);

/// Whether the features hold no GPU energy at all (no telemetry: a training log, a trace alone).
bool lacks_gpu_energy(const extract::Features& features);

/// The job the model prices from an estimate: E_g, u_g and the energy bounds from it, the rest
/// (incidents, faults, downtime) from the features as job_inputs takes them.
Expected<JobInputs> estimated_job_inputs(const extract::Features& features, const EnergyEstimate& estimate);

/// The model beside a measurement (--estimate): per GPU the measured energy and mean power and
/// the model's bounds at the GPU's measured utilisation.
struct EstimateCheck {
  int gpu = 0;
  double busy = 0;
  double measured_kwh = 0, estimated_kwh = 0, low_kwh = 0, high_kwh = 0;
  [[nodiscard]] bool inside() const { return measured_kwh >= low_kwh && measured_kwh <= high_kwh; }
};
struct EstimateBeside {
  EnergyEstimate estimate;  ///< for the whole job, at the mean utilisation
  std::vector<EstimateCheck> gpus;
};
Expected<EstimateBeside> estimate_beside(const extract::Features& features, const JobInputs& measured,
                                         const EstimateRequest& request,
                                         const std::vector<std::string>& telemetry_names,
                                         const std::vector<std::string>& trace_names);

}  // namespace gpucost::breakeven

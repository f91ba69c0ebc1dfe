// Stage 3, breakeven: the local cost of a job against a cloud offer, the premium, and the
// break-even job length and use per year. Formulas: docs/cost-model.md.
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/extract/extract.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpucost::breakeven {

/// What the model needs from a job.
struct JobInputs {
  double wall_h = 0;               ///< W, hours
  std::vector<double> energy_kwh;  ///< E_g per GPU
  std::vector<double> util;        ///< u_g per GPU, 0-1
  bool util_assumed = false;       ///< true when no utilisation was measured (then ū = 1)
  /// Where u_g came from: "telemetry" (util_mean), "trace" (1 - gpu_idle_fraction_trace of a
  /// profiler trace, used only without telemetry utilisation) or "assumed" (1).
  std::string util_source = "telemetry";
  std::optional<double> trace_busy_fraction;  ///< host 1 - gpu_idle_fraction_trace, when a trace was given
};

/// Takes W, E_g and u_g from extract's features. Fails when the window is empty or a GPU
/// has no energy (no power samples): the cost would be a silent guess.
Expected<JobInputs> job_inputs(const extract::Features& features);

/// A solution that may not exist.
struct Solution {
  std::optional<double> value;
  std::string reason;  ///< why there is none
};

struct Result {
  JobInputs job;
  double util_mean = 0;  ///< ū
  double energy_kwh = 0; ///< Σ E_g
  // local
  double electricity = 0, amortisation = 0, maintenance = 0, local_total = 0;
  // cloud
  double q = 0;          ///< billed share of W: (1 - ū) + ū / speed_ratio
  double billed_s = 0, cloud_total = 0;
  // comparison
  double premium = 0, line = 0;
  bool above_line = false;
  Solution job_hours;          ///< T*
  Solution line_job_hours;     ///< T_λ
  Solution use_hours_per_year; ///< H*
};

Result compute(const CostConfig& config, const JobInputs& job);

}  // namespace gpucost::breakeven

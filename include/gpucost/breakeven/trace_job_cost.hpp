// What waiting and exposed communication cost: the shares of the GPU time a distributed job's
// ranks spent waiting in collectives for the last rank, and communicating without computing
// (docs/formats.md, "A job of ranks"), priced as those shares of the job's local and cloud cost
// (docs/cost-model.md, "Waiting and exposed communication").
#pragma once

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/features.hpp>

#include <vector>

namespace gpucost::breakeven {

struct TraceJobCost {
  extract::TraceJob job;
  double wait_local = 0, wait_cloud = 0;        ///< wait_fraction x C_L, x C_C
  double exposed_local = 0, exposed_cloud = 0;  ///< exposed_comm_fraction x C_L, x C_C
};

/// The priced shares of each trace job of the features (none without traces of ranks).
std::vector<TraceJobCost> trace_job_costs(const Result& r, const extract::Features& f);

/// One training step priced by its length alone (`gpucost trace --diff --config`; docs/cost-model.md,
/// "Cost per step"): a trace has no power samples, so the GPUs' energy is left out.
struct StepCost {
  double local = 0;  ///< step_h x (amortisation + routine maintenance per use hour + cooling x price x system power)
  double cloud = 0;  ///< rate x step_h x q, q = (1 - busy) + busy / speed_ratio
  double q = 1;      ///< the billed share of the step's time in the cloud
};
StepCost step_cost(const CostConfig& c, double step_s, double busy_share);

}  // namespace gpucost::breakeven

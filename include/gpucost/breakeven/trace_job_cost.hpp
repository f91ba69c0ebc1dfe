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
  prep::TraceJob job;
  double wait_local = 0, wait_cloud = 0;        ///< wait_fraction x C_L, x C_C
  double exposed_local = 0, exposed_cloud = 0;  ///< exposed_comm_fraction x C_L, x C_C
};

/// The priced shares of each trace job of the features (none without traces of ranks).
std::vector<TraceJobCost> trace_job_costs(const Result& r, const extract::Features& f);

}  // namespace gpucost::breakeven

// The indicators of the jobs that profiler traces of several ranks form (F043, F089, F091, F096;
// docs/indicators.md, "Ranks"): waiting in collectives, exposed communication, the overlap of
// communication with computation, and the straggler's share of the steps. Host only: a job is
// the host's (or the fleet's), not one GPU's.
#pragma once

#include <gpucost/extract/indicator_set.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::extract::detail {

inline constexpr std::array<std::string_view, 4> kRankKeys = {"collective_wait_fraction", "exposed_comm_fraction",
                                                              "comm_overlap_fraction", "straggler_step_share"};

/// The rank indicators of `jobs`. A non-empty `split_reason` says the jobs' ranks may be split
/// over merged documents: the cross-rank figures (wait, straggler) are then null with it.
void rank_indicators(const std::vector<extract::TraceJob>& jobs, IndicatorSet& out,
                     const std::string& split_reason = {});

}  // namespace gpucost::extract::detail

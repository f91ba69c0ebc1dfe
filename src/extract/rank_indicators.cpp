// Rank indicators from the features' trace jobs (the same list extract writes and merge joins).
#include "rank_indicators.hpp"

#include <cstdint>

namespace gpucost::extract::detail {

namespace {

/// Sums over the jobs: the cross-rank ones over jobs of two or more ranks only.
struct RankSums {
  std::int64_t span_ns = 0, comm_ns = 0, exposed_ns = 0;  // every job
  std::int64_t multi_span_ns = 0, wait_ns = 0, steps = 0, straggler_steps = 0;
  std::size_t multi = 0;
};

RankSums sum_jobs(const std::vector<extract::TraceJob>& jobs) {
  RankSums s;
  for (const extract::TraceJob& job : jobs) {
    s.span_ns += job.span_ns;
    s.comm_ns += job.comm_ns;
    s.exposed_ns += job.exposed_comm_ns;
    if (job.ranks.size() < 2) continue;
    ++s.multi;
    s.multi_span_ns += job.span_ns;
    s.wait_ns += job.wait_ns;
    s.steps += job.steps;
    for (const extract::RankRow& r : job.ranks)
      if (r.rank == job.straggler_rank) s.straggler_steps += r.straggler_steps;
  }
  return s;
}

double ratio(std::int64_t part, std::int64_t whole) { return static_cast<double>(part) / static_cast<double>(whole); }

}  // namespace

void rank_indicators(const std::vector<extract::TraceJob>& jobs, IndicatorSet& out, const std::string& split_reason) {
  const RankSums s = sum_jobs(jobs);
  if (s.comm_ns > 0 && s.span_ns > 0) {
    set_value(out, "exposed_comm_fraction", ratio(s.exposed_ns, s.span_ns));
    set_value(out, "comm_overlap_fraction", ratio(s.comm_ns - s.exposed_ns, s.comm_ns));
  } else {
    const std::string why = jobs.empty() ? "no Kineto trace of several ranks or with communication kernels"
                                         : "no communication kernel (NCCL, RCCL) in the traces";
    set_absent(out, "exposed_comm_fraction", why);
    set_absent(out, "comm_overlap_fraction", why);
  }
  if (!split_reason.empty()) {
    set_absent(out, "collective_wait_fraction", split_reason);
    set_absent(out, "straggler_step_share", split_reason);
    return;
  }
  if (s.multi == 0 || s.multi_span_ns <= 0) {
    const std::string why = s.multi == 0 ? "no job of two or more ranks among the traces" : "the jobs' GPU span is 0 s";
    set_absent(out, "collective_wait_fraction", why);
    set_absent(out, "straggler_step_share", why);
    return;
  }
  set_value(out, "collective_wait_fraction", ratio(s.wait_ns, s.multi_span_ns));
  if (s.steps > 0)
    set_value(out, "straggler_step_share", ratio(s.straggler_steps, s.steps));
  else
    set_absent(out, "straggler_step_share", "no collective that every rank ran");
}

}  // namespace gpucost::extract::detail

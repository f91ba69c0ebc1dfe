// A distributed job's ranks (docs/cost-model.md, "Waiting and exposed communication"): what their
// waiting and exposed communication cost on each side.
#include "report/sections/sections.hpp"

#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/breakeven/work_units.hpp>

#include <fmt/format.h>

namespace gpucost::report::sections {

void trace_jobs_json(io::JsonWriter& w, const Answer& a) {
  const auto costs = breakeven::trace_job_costs(a.result, a.features);
  if (costs.empty()) return;
  w.line("  ").key("trace_jobs").array();
  for (const breakeven::TraceJobCost& c : costs) {
    w.line("    ").item().object().key("ranks").count(c.job.ranks.size()).key("world_size").integer(c.job.world_size);
    w.key("backend").str(c.job.backend).key("straggler_rank");
    if (c.job.straggler_rank >= 0)
      w.integer(c.job.straggler_rank);
    else
      w.null();
    w.key("straggler_step_share").num(c.job.straggler_step_share).key("wait_fraction").num(c.job.wait_fraction());
    w.key("wait_local").num(c.wait_local).key("wait_cloud").num(c.wait_cloud);
    w.key("exposed_comm_fraction").num(c.job.exposed_comm_fraction());
    w.key("exposed_comm_local").num(c.exposed_local).key("exposed_comm_cloud").num(c.exposed_cloud);
    w.key("overlap_fraction").num(c.job.overlap_fraction()).close();
  }
  w.close("\n  ");
}

/// "distributed job": what the ranks' waiting and exposed communication cost.
std::string trace_jobs_full(const Answer& a) {
  const std::string& cur = a.config.currency;
  std::string b;
  for (const breakeven::TraceJobCost& c : breakeven::trace_job_costs(a.result, a.features)) {
    const extract::TraceJob& j = c.job;
    b += fmt::format("\ndistributed job  {} of {} ranks ({}), shares of the GPU time in the traces' steps\n",
                     j.ranks.size(), j.world_size, j.backend.empty() ? "backend unknown" : j.backend);
    if (j.ranks.size() >= 2) {
      b += fmt::format("  waiting        {:>5.1f} %  {} {} locally, {} {} in the cloud", j.wait_fraction() * 100,
                       breakeven::unit_money(c.wait_local), cur, breakeven::unit_money(c.wait_cloud), cur);
      b += j.straggler_rank >= 0 ? fmt::format(": for rank {} in {:.0f} % of {} steps\n", j.straggler_rank,
                                               j.straggler_step_share * 100, j.steps)
                                 : std::string(": no single straggler\n");
    }
    b += fmt::format(
        "  exposed comm   {:>5.1f} %  {} {} locally, {} {} in the cloud ({:.1f} % of the communication "
        "overlapped by compute; it includes the waiting: do not add the two)\n",
        j.exposed_comm_fraction() * 100, breakeven::unit_money(c.exposed_local), cur,
        breakeven::unit_money(c.exposed_cloud), cur, j.overlap_fraction() * 100);
    for (const std::string& n : j.notes) b += fmt::format("  note: {}\n", n);
  }
  return b;
}

}  // namespace gpucost::report::sections

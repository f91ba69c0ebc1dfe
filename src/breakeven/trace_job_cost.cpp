// The traces cover a few steps of the job: their shares stand for the whole priced window, as
// the profiler's sample of it (docs/cost-model.md says so next to the figures).
#include <gpucost/breakeven/trace_job_cost.hpp>

namespace gpucost::breakeven {

std::vector<TraceJobCost> trace_job_costs(const Result& r, const extract::Features& f) {
  std::vector<TraceJobCost> out;
  for (const prep::TraceJob& job : f.trace_jobs) {
    TraceJobCost c;
    c.job = job;
    c.wait_local = job.wait_fraction() * r.local_total;
    c.wait_cloud = job.wait_fraction() * r.cloud_total;
    c.exposed_local = job.exposed_comm_fraction() * r.local_total;
    c.exposed_cloud = job.exposed_comm_fraction() * r.cloud_total;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpucost::breakeven

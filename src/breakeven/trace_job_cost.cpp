// The traces cover a few steps of the job: their shares stand for the whole priced window, as
// the profiler's sample of it (docs/cost-model.md says so next to the figures).
#include <gpucost/breakeven/trace_job_cost.hpp>

namespace gpucost::breakeven {

std::vector<TraceJobCost> trace_job_costs(const Result& r, const extract::Features& f) {
  std::vector<TraceJobCost> out;
  for (const extract::TraceJob& job : f.trace_jobs) {
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

StepCost step_cost(const CostConfig& c, double step_s, double busy_share) {
  const double h = step_s / 3600.0;
  const double capital_per_year = c.hardware_price * (1.0 - c.residual_fraction) / c.lifetime_years;
  const double per_use_hour = (capital_per_year + c.hourly_wage * c.maintenance_hours_per_year) / c.use_hours_per_year +
                              c.cooling_factor * c.price_per_kwh * c.system_power_w / 1000.0;
  StepCost s;
  s.local = per_use_hour * h;
  s.q = (1.0 - busy_share) + busy_share / c.speed_ratio;
  s.cloud = c.rate_per_hour * h * s.q;
  return s;
}

}  // namespace gpucost::breakeven

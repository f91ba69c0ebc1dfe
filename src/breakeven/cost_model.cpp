#include <gpucost/breakeven/cost_model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpucost::breakeven {

namespace {

// ceil() of a count of billing increments. W arrives in hours (wall_s / 3600), so q x W x 3600
// may land a rounding error above a whole count: a 57 s job gives 57.000000000000007 s, which
// a bare ceil() would bill as 58 s. Counts within 1e-9 (relative) of an integer are that integer.
double billed_increments(double n) {
  const double nearest = std::round(n);
  if (std::fabs(n - nearest) <= 1e-9 * std::max(1.0, std::fabs(nearest))) return nearest;
  return std::ceil(n);
}

}  // namespace

Expected<JobInputs> job_inputs(const extract::Features& f) {
  JobInputs in;
  in.wall_h = f.wall_s() / 3600.0;
  if (!(in.wall_h > 0))
    return make_error(ErrorKind::usage, "the job window is 0 s long: there is nothing to price",
                      "give a log with at least two samples at different times, or widen --from/--to");
  for (const auto& g : f.gpus) {
    const auto e = g.indicators.find("energy_kwh");
    if (e == g.indicators.end() || !e->second.value)
      return make_error(ErrorKind::format,
                        fmt::format("GPU {}: energy unknown ({})", g.gpu,
                                    e == g.indicators.end() ? "no indicator" : e->second.reason),
                        "the telemetry must include power (dmon -s p, or power.draw in --query-gpu)");
    in.energy_kwh.push_back(*e->second.value);
    const auto u = g.indicators.find("util_mean");
    const auto idle = g.indicators.find("gpu_idle_fraction_trace");
    if (u != g.indicators.end() && u->second.value) {
      in.util.push_back(*u->second.value);
    } else if (idle != g.indicators.end() && idle->second.value) {
      // A profiler trace covers a few steps; without telemetry its busy share stands for u_g.
      in.util.push_back(1.0 - *idle->second.value);
      in.util_source = "trace";
    } else {
      in.util.push_back(1.0);  // unknown: assume the GPU was busy throughout
      in.util_assumed = true;
    }
  }
  if (in.util_assumed) in.util_source = "assumed";
  if (const auto t = f.host_indicators.find("gpu_idle_fraction_trace"); t != f.host_indicators.end() && t->second.value)
    in.trace_busy_fraction = 1.0 - *t->second.value;
  if (in.energy_kwh.empty()) return make_error(ErrorKind::format, "no GPU in the features");
  return in;
}

Result compute(const CostConfig& c, const JobInputs& job) {
  Result r;
  r.job = job;
  const double W = job.wall_h;
  for (double e : job.energy_kwh) r.energy_kwh += e;
  // ū: mean over GPUs; with no utilisation at all the GPUs count as busy throughout (ū = 1),
  // which bills the whole job at the cloud's speed-up rather than inventing idle time.
  for (double u : job.util) r.util_mean += u;
  r.util_mean = job.util.empty() ? 1.0 : r.util_mean / static_cast<double>(job.util.size());

  // Local: electricity, amortisation, maintenance.
  r.electricity = c.cooling_factor * c.price_per_kwh * (r.energy_kwh + c.system_power_w * W / 1000.0);
  const double capital_per_year = c.hardware_price * (1.0 - c.residual_fraction) / c.lifetime_years;
  r.amortisation = capital_per_year / c.use_hours_per_year * W;
  r.maintenance = c.hourly_wage * c.maintenance_hours_per_year / c.use_hours_per_year * W;
  r.local_total = r.electricity + r.amortisation + r.maintenance;

  // Cloud: the busy share of the job runs speed_ratio times faster; billing rounds up.
  r.q = (1.0 - r.util_mean) + r.util_mean / c.speed_ratio;
  const double raw_s = r.q * W * 3600.0 + c.cold_start_s;
  r.billed_s = std::max(c.billing_minimum_s, billed_increments(raw_s / c.billing_increment_s) * c.billing_increment_s);
  r.cloud_total = c.rate_per_hour * r.billed_s / 3600.0 + c.fixed_per_job;

  r.line = c.line;
  r.premium = r.local_total / r.cloud_total - 1.0;
  r.above_line = r.premium > c.line;

  // Break-even job length: local c_L·T against cloud rate·q·T + k.
  const double c_L = r.local_total / W;
  const double k = c.rate_per_hour * c.cold_start_s / 3600.0 + c.fixed_per_job;
  const double denom = c_L - c.rate_per_hour * r.q;
  if (denom > 0) r.job_hours.value = k / denom;
  else r.job_hours.reason = "local costs no more per hour than cloud: local is cheaper at every job length";
  const double denom_line = c_L - (1.0 + c.line) * c.rate_per_hour * r.q;
  if (denom_line > 0) r.line_job_hours.value = (1.0 + c.line) * k / denom_line;
  else r.line_job_hours.reason = "the premium stays below the line at every job length";

  // Break-even use per year: fixed yearly cost F against the hourly margin r - v.
  const double F = capital_per_year + c.hourly_wage * c.maintenance_hours_per_year;
  const double v = r.electricity / W;
  const double rr = r.cloud_total / W;
  if (rr > v) r.use_hours_per_year.value = F / (rr - v);
  else
    r.use_hours_per_year.reason =
        "electricity alone costs at least as much per hour as the cloud: no use per year breaks even";
  return r;
}

}  // namespace gpucost::breakeven

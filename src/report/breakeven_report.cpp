#include <gpucost/report/breakeven_report.hpp>

#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>

namespace gpucost::report {

namespace {

void num(std::string& b, double v) { io::append_json_number(b, v); }

void solution(std::string& b, std::string_view key, const breakeven::Solution& s, bool last = false) {
  b.append(fmt::format("    \"{}\": ", key));
  if (s.value) num(b, *s.value);
  else b.append("null");
  if (!s.value) {
    b.append(fmt::format(", \"{}_reason\": ", key));
    io::append_json_string(b, s.reason);
  }
  b.append(last ? "\n" : ",\n");
}

std::string money(double v, const std::string& cur) { return fmt::format("{:.2f} {}", v, cur); }

std::string hours(const breakeven::Solution& s) {
  if (!s.value) return "none";
  const double h = *s.value;
  if (h < 1.0) return fmt::format("{:.1f} min", h * 60);
  return fmt::format("{:.2f} h", h);
}

}  // namespace

std::string breakeven_json(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f) {
  std::string b = "{\n  \"schema\": \"gpucost.breakeven\",\n  \"version\": 1,\n  \"currency\": ";
  io::append_json_string(b, c.currency);
  b.append(",\n  \"job\": {\"from\": ");
  io::append_json_string(b, format_utc(f.from_ns));
  b.append(", \"to\": ");
  io::append_json_string(b, format_utc(f.to_ns));
  b.append(", \"wall_h\": ");
  num(b, r.job.wall_h);
  b.append(fmt::format(", \"gpus\": {}, \"energy_kwh\": ", r.job.energy_kwh.size()));
  num(b, r.energy_kwh);
  b.append(", \"util_mean\": ");
  num(b, r.util_mean);
  b.append(fmt::format(", \"util_assumed\": {}, \"util_source\": \"{}\"", r.job.util_assumed ? "true" : "false",
                       r.job.util_source));
  b.append(", \"trace_busy_fraction\": ");
  if (r.job.trace_busy_fraction) num(b, *r.job.trace_busy_fraction);
  else b.append("null");
  b.append("},\n");
  b.append("  \"local\": {\"electricity\": ");
  num(b, r.electricity);
  b.append(", \"amortisation\": ");
  num(b, r.amortisation);
  b.append(", \"maintenance\": ");
  num(b, r.maintenance);
  b.append(", \"total\": ");
  num(b, r.local_total);
  b.append("},\n  \"cloud\": {\"name\": ");
  io::append_json_string(b, c.cloud_name);
  b.append(", \"rate_per_hour\": ");
  num(b, c.rate_per_hour);
  b.append(", \"speed_ratio\": ");
  num(b, c.speed_ratio);
  b.append(", \"q\": ");
  num(b, r.q);
  b.append(", \"billed_s\": ");
  num(b, r.billed_s);
  b.append(", \"total\": ");
  num(b, r.cloud_total);
  b.append("},\n  \"premium\": ");
  num(b, r.premium);
  b.append(",\n  \"line\": ");
  num(b, r.line);
  b.append(fmt::format(",\n  \"above_line\": {},\n  \"breakeven\": {{\n", r.above_line ? "true" : "false"));
  solution(b, "job_hours", r.job_hours);
  solution(b, "line_job_hours", r.line_job_hours);
  solution(b, "use_hours_per_year", r.use_hours_per_year, true);
  b.append("  }\n}\n");
  return b;
}

std::string breakeven_table(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f) {
  const std::string& cur = c.currency;
  std::string b;
  b += fmt::format("job       {} .. {}  ({:.3f} h, {} GPU{}{})\n", format_utc(f.from_ns), format_utc(f.to_ns),
                   r.job.wall_h, r.job.energy_kwh.size(), r.job.energy_kwh.size() == 1 ? "" : "s",
                   f.host.empty() ? "" : ", host " + f.host);
  b += fmt::format("measured  energy {:.4f} kWh, mean utilisation {:.1f} %{}\n\n", r.energy_kwh, r.util_mean * 100,
                   r.job.util_assumed           ? " (utilisation not measured: 100 % assumed)"
                   : r.job.util_source == "trace" ? " (from the profiler trace's busy share: no telemetry utilisation)"
                   : r.job.trace_busy_fraction
                       ? fmt::format(" (telemetry; the profiler trace's busy share is {:.1f} %)", *r.job.trace_busy_fraction * 100)
                       : std::string());
  b += "local\n";
  b += fmt::format("  {:<12}{:>14}  {:.4f} kWh GPU + {:.0f} W system, x{:.2f} cooling, {} {}/kWh\n", "electricity",
                   money(r.electricity, cur), r.energy_kwh, c.system_power_w, c.cooling_factor, c.price_per_kwh, cur);
  b += fmt::format("  {:<12}{:>14}  {} {}{} over {} y x {} h/y\n", "amortisation", money(r.amortisation, cur),
                   c.hardware_price, cur,
                   c.residual_fraction > 0 ? fmt::format(" less {:g} % resale", c.residual_fraction * 100) : "",
                   c.lifetime_years, c.use_hours_per_year);
  b += fmt::format("  {:<12}{:>14}  {} h/y at {} {}/h\n", "maintenance", money(r.maintenance, cur),
                   c.maintenance_hours_per_year, c.hourly_wage, cur);
  b += fmt::format("  {:<12}{:>14}\n", "total", money(r.local_total, cur));
  b += fmt::format("{}{}\n", "cloud", c.cloud_name.empty() ? "" : "  " + c.cloud_name);
  b += fmt::format("  {:<12}{:>14}  {:.0f} s at {} {}/h (speed x{}, billed share {:.3f}, cold start {} s)\n",
                   "total", money(r.cloud_total, cur), r.billed_s, c.rate_per_hour, cur, c.speed_ratio, r.q,
                   c.cold_start_s);
  b += "\n";
  b += fmt::format("premium   {:+.1f} % local over cloud (line {:.1f} %): {}\n", r.premium * 100, r.line * 100,
                   r.above_line ? "ABOVE the line, renting is cheaper for this job"
                                : "below the line, the local GPU holds its own");
  if (r.job_hours.value)
    b += fmt::format("break-even job length  {}: local is cheaper for jobs shorter than this\n", hours(r.job_hours));
  else
    b += fmt::format("break-even job length  none: {}\n", r.job_hours.reason);
  if (r.line_job_hours.value)
    b += fmt::format("line crossed at        {}: beyond it the premium exceeds {:.1f} %\n", hours(r.line_job_hours),
                     r.line * 100);
  else
    b += fmt::format("line crossed at        none: {}\n", r.line_job_hours.reason);
  if (r.use_hours_per_year.value) {
    const double h = *r.use_hours_per_year.value;
    b += fmt::format("break-even use         {:.0f} h/year{}\n", h,
                     h > 8760 ? " (more than a year has: renting wins at any use)"
                              : fmt::format(" ({:.1f} % of the year): owning pays above it", h / 87.60));
  } else {
    b += fmt::format("break-even use         none: {}\n", r.use_hours_per_year.reason);
  }
  return b;
}

}  // namespace gpucost::report

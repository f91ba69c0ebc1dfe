// The break-evens (docs/cost-model.md): the job length T* below which owning is cheaper, the
// length T_lambda where the premium crosses the line, and the use per year H* above which owning pays.
#include "report/sections/sections.hpp"

#include <cstdint>
#include <gpucost/core/text.hpp>
#include <optional>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// One break-even on a line of its own, and why there is none.
void solution(io::JsonWriter& w, const std::string& key, const breakeven::Solution& s) {
  w.line("    ").key(key).num(s.value);
  if (!s.value) w.key(key + "_reason").str(s.reason);
}

// Every crossing of one break-even, in order: "hours" and on which side of it the local machine
// fares better (`side_key`: "local_cheaper" for T*, "below_line" for T_λ).
void crossings_json(io::JsonWriter& w, const std::string& key, std::string_view side_key,
                    const breakeven::Crossings& c) {
  w.line("    ").key(key).array();
  for (const auto& point : c.points)
    w.item()
        .object()
        .key("hours")
        .num(point.hours)
        .key(side_key)
        .str(point.local_cheaper_below ? "below" : "above")
        .close();
  w.close();
  if (c.omitted > 0) w.line("    ").key(key + "_omitted").integer(static_cast<std::int64_t>(c.omitted));
}

// The stretches on the local side after the first crossing, in words ("between 1.00 h and
// 1.50 h and beyond 3.00 h"; a long run of rounding flips as a count), then where the other side
// holds for good ("; <settled> beyond 3.00 h"). Empty with a single crossing.
std::string later_stretches(const breakeven::Crossings& c, std::string_view settled) {
  auto stretches = breakeven::local_side_stretches(c);
  if (!stretches.empty() && stretches.front().from == 0) stretches.erase(stretches.begin());
  if (stretches.empty()) return {};
  const std::size_t count = stretches.size() + c.omitted / 2;
  std::string out;
  if (count <= 3) {
    for (std::size_t i = 0; i < stretches.size(); ++i) {
      const auto& s = stretches[i];
      out += i == 0 ? "" : i + 1 == stretches.size() ? " and " : ", ";
      out += s.to < 0 ? "beyond " + hours(s.from) : fmt::format("between {} and {}", hours(s.from), hours(s.to));
    }
  } else {
    out = fmt::format("in {} stretches between {} and {} (just after each billing step)", count,
                      hours(stretches.front().from), hours(stretches.back().to));
  }
  if (stretches.back().to >= 0) out += fmt::format("; {} beyond {}", settled, hours(stretches.back().to));
  return out;
}

/// " (74.3 min at the lower energy bound, 9.8 min at the upper)" for job lengths, or
/// " (range 12.1 min .. 19.0 min)" for job lengths, " (range 2889 .. 3948 h/year)" for uses per
/// year: the least and the most over the premium range's combinations; empty when they are one
/// value or neither has one.
std::string bound_range(const std::optional<double>& low, const std::optional<double>& high, bool per_year) {
  if (!low && !high) return {};
  const auto v = [per_year](const std::optional<double>& x) {
    return !x ? std::string("none") : per_year ? fmt::format("{:.0f}", *x) : hours(*x);
  };
  if (v(low) == v(high)) return {};
  return fmt::format(" (range {} .. {}{})", v(low), v(high), per_year ? " h/year" : "");
}

}  // namespace

void breakevens_json(io::JsonWriter& w, const Answer& a) {
  const breakeven::Result& r = a.result;
  w.line("  ").key("breakeven").object();
  solution(w, "job_hours", r.job_hours);
  crossings_json(w, "job_hours_crossings", "local_cheaper", r.job_crossings);
  solution(w, "line_job_hours", r.line_job_hours);
  crossings_json(w, "line_job_hours_crossings", "below_line", r.line_crossings);
  solution(w, "use_hours_per_year", r.use_hours_per_year);
  w.close("\n  ");
}

namespace {

std::string job_length_line(const breakeven::Result& r, const breakeven::PremiumRange& range) {
  if (!r.job_hours.value) return fmt::format("break-even job length  none: {}\n", r.job_hours.reason);
  const std::string later = later_stretches(r.job_crossings, "the cloud is cheaper");
  // A T* that prints as 0.0 min: "cheaper for jobs shorter than 0.0 min" would say nothing.
  const bool from_start = hours(*r.job_hours.value) == hours(0.0);
  return fmt::format(
      "break-even job length  {}{}{}\n",
      from_start ? fmt::format("{:.1f} s: the cloud is cheaper from the shortest job on", *r.job_hours.value * 3600)
                 : hours(r.job_hours) + ": local is cheaper for jobs shorter than this",
      later.empty() ? "" : ", again " + later, bound_range(range.job_hours_low, range.job_hours_high, false));
}

std::string line_crossed_line(const breakeven::Result& r) {
  if (!r.line_job_hours.value) return fmt::format("line crossed at        none: {}\n", r.line_job_hours.reason);
  const std::string later = later_stretches(r.line_crossings, "above the line for good");
  return fmt::format("line crossed at        {}: beyond it the premium exceeds {:.1f} %{}\n", hours(r.line_job_hours),
                     r.line * 100, later.empty() ? "" : ", but not " + later);
}

std::string use_line(const breakeven::Result& r, const breakeven::PremiumRange& range) {
  if (!r.use_hours_per_year.value) return fmt::format("break-even use         none: {}\n", r.use_hours_per_year.reason);
  const double h = *r.use_hours_per_year.value;
  return fmt::format("break-even use         {:.0f} h/year{}{}\n", h,
                     h > 8760 ? " (more than a year has: renting wins at any use)"
                              : fmt::format(" ({:.1f} % of the year): owning pays above it", h / 87.60),
                     bound_range(range.use_hours_low, range.use_hours_high, true));
}

}  // namespace

std::string breakevens_full(const Answer& a) {
  const breakeven::Result& r = a.result;
  const breakeven::CostConfig& c = a.config;
  std::string b = "\n" + job_length_line(r, a.extras.range) + line_crossed_line(r) + use_line(r, a.extras.range);
  if (c.always_on)
    b += fmt::format("always on              idle {:.0f} W costs {} per idle hour, {} a year at {} h/y of use\n",
                     c.idle_power_w, money(r.idle_cost_per_hour, c.currency), money(r.idle_cost_per_year, c.currency),
                     c.use_hours_per_year);
  return b;
}

std::string breakevens_summary(const Answer& a) {
  const breakeven::Result& r = a.result;
  const breakeven::CostConfig& c = a.config;
  std::string b;
  const bool from_start = r.job_hours.value && text::duration_hours(*r.job_hours.value) == text::duration_hours(0);
  if (from_start)
    b += "break-even   the cloud is cheaper from the shortest job on\n";
  else if (r.job_hours.value)
    b += fmt::format("break-even   jobs shorter than {} cost less here; longer ones less in the cloud\n",
                     text::duration_hours(*r.job_hours.value));
  else
    b += wrapped(fmt::format("break-even   job length: none, {}", r.job_hours.reason), 13);
  if (r.use_hours_per_year.value) {
    const double h = *r.use_hours_per_year.value;
    b += h > 8760 ? std::string("             owning never pays: it would need more hours than a year has\n")
                  : fmt::format("             owning pays above {:.0f} h of use a year ({:.1f} %); you plan {:g} h\n",
                                h, h / 87.60, c.use_hours_per_year);
  } else {
    b += wrapped(fmt::format("             use: none, {}", r.use_hours_per_year.reason), 13);
  }
  return b;
}

}  // namespace gpucost::report::sections

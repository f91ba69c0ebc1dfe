#include <gpucost/prep/clock_check.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gpucost::prep {

std::optional<int> fit_base_year(int inferred, int lowest, int highest, const std::function<std::size_t(int)>& inside) {
  if (inside(inferred) > 0) return inferred;
  std::optional<int> best;
  std::size_t best_count = 0;
  for (int year = lowest; year <= highest; ++year) {
    if (year == inferred) continue;
    const std::size_t count = inside(year);
    if (count == 0) continue;
    const bool nearer = best && count == best_count && std::abs(year - inferred) < std::abs(*best - inferred);
    if (count > best_count || nearer) {
      best = year;
      best_count = count;
    }
  }
  return best;
}

std::pair<int, int> candidate_base_years(const TelemetrySpan& span, int rollovers) {
  constexpr int kMostYears = 64;  // telemetry of decades is no job: bounded work
  const int highest = utc_year(span.last_ns) + 1;
  const int lowest = std::max(utc_year(span.first_ns) - rollovers - 1, highest - kMostYears);
  return {lowest, highest};
}

std::string describe_shift(std::int64_t first_ns, std::int64_t last_ns, const TelemetrySpan& span) {
  if (last_ns < span.first_ns) return rough_duration(span.first_ns - last_ns) + " before the telemetry starts";
  if (first_ns > span.last_ns) return rough_duration(first_ns - span.last_ns) + " after the telemetry ends";
  return {};
}

std::string rough_duration(std::int64_t ns) {
  const double s = static_cast<double>(ns) / 1e9;
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 90 * 60) return fmt::format("{:.0f} min", s / 60);
  if (s < 48 * 3600) return fmt::format("{:.0f} h", s / 3600);
  const double days = s / 86400;
  if (days < 300) return fmt::format("{:.0f} days", days);
  const double years = std::round(days / 365.2425 * 10) / 10;
  return years == 1.0 ? std::string("1 year") : fmt::format("{:g} years", years);
}

int utc_year(std::int64_t ts_ns) {
  std::int64_t secs = ts_ns / kNsPerSecond;
  if (ts_ns % kNsPerSecond < 0) --secs;  // floor, also before the epoch
  std::int64_t days = secs / 86400;
  if (secs % 86400 < 0) --days;
  return year_from_days(days);
}

}  // namespace gpucost::prep

// Clocks checked against each other: the year of a year-less host log (syslog, journalctl
// short) against the telemetry of the same run, and the words for how far apart they are.
// The rule is in docs/formats.md, "Year inference".
#pragma once

#include <gpucost/prep/prep.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace gpucost::prep {

/// The base year (the year of a year-less log's first line) that puts the log's events inside
/// the telemetry: `inferred` when it puts at least one inside; else the year of [lowest,
/// highest] that puts the most inside (ties: the nearest to `inferred`, then the earlier);
/// nullopt when no year does. `inside(year)` counts the events inside for a base year.
std::optional<int> fit_base_year(int inferred, int lowest, int highest, const std::function<std::size_t(int)>& inside);

/// The base years worth trying for a span: from the UTC year of its start, less the log's
/// Dec->Jan rollovers, less one (zones), to the UTC year of its end plus one; at most 64 years.
std::pair<int, int> candidate_base_years(const TelemetrySpan& span, int rollovers);

/// How events from `first_ns` to `last_ns` lie against the span: "3 days after the telemetry
/// ends", "20 min before the telemetry starts"; empty when they overlap it.
std::string describe_shift(std::int64_t first_ns, std::int64_t last_ns, const TelemetrySpan& span);

/// A duration in rough words: "45 s", "12 min", "5 h", "3 days", "1 year", "8.7 years".
std::string rough_duration(std::int64_t ns);

/// The UTC calendar year of an instant (ns since the epoch).
int utc_year(std::int64_t ts_ns);

}  // namespace gpucost::prep

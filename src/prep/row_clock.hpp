// Places rows on the UTC clock: from their own local date/time columns, from a time column
// plus --date, or (no time at all) from --start + cycle × --interval. Internal to prep.
#pragma once

#include <gpucost/prep/prep.hpp>

namespace gpucost::prep {

class RowClock {
 public:
  RowClock(const PrepOptions& options, LocalClock& clock, InputStats& stats)
      : m_options(options), m_clock(clock), m_stats(stats) {}

  /// The --start instant (else the relative clock's epoch): the one time of an input that is a
  /// single snapshot without any time (profiler summary tables).
  std::int64_t start_ts();
  /// Time of sampling cycle `cycle` (0-based) for inputs that print no time.
  std::int64_t cycle_ts(std::uint64_t cycle);
  /// A local wall-clock date and time printed by the tool.
  std::int64_t local_ts(const CivilTime& civil);
  /// A local time of day without a date (dmon -o T): the date comes from --date; without it
  /// day 0 of the relative clock. Crossing midnight (time going back > 12 h) moves to the next day.
  bool time_of_day_ts(std::string_view hhmmss, std::int64_t& out);
  /// A date without a time (dmon -o D): midnight of that date + cycle × interval.
  std::int64_t date_cycle_ts(const CivilTime& date, std::uint64_t cycle);

 private:
  double interval_s();
  void set_basis(TimeBasis b);

  const PrepOptions& m_options;
  LocalClock& m_clock;
  InputStats& m_stats;
  bool m_start_resolved = false;
  bool m_interval_noted = false;
  std::int64_t m_start_ns = 0;
  std::int64_t m_day_offset = 0;    // days added by midnight crossings (time-of-day input)
  std::int64_t m_prev_tod_ns = -1;  // previous time of day, ns since local midnight
};

}  // namespace gpucost::prep

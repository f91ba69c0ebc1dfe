// Places rows on the UTC clock: from their own local date/time columns, from a time column
// plus --date, or (no time at all) from --start + cycle × --interval. Internal to prep.
#pragma once

#include <gpucost/prep/prep.hpp>

namespace gpucost::prep {

class RowClock {
 public:
  RowClock(const PrepOptions& options, LocalClock& clock, InputStats& stats)
      : m_options(options), m_clock(clock), m_stats(stats) {}
  /// A copy of `state` for a chunk's parser (prep -j), bound to the chunk's clock and accounting.
  RowClock(const RowClock& state, const PrepOptions& options, LocalClock& clock, InputStats& stats)
      : m_options(options),
        m_clock(clock),
        m_stats(stats),
        m_start_resolved(state.m_start_resolved),
        m_interval_noted(state.m_interval_noted),
        m_start_ns(state.m_start_ns),
        m_day(state.m_day),
        m_day_at_start(state.m_day) {}
  RowClock(const RowClock&) = delete;
  RowClock& operator=(const RowClock&) = delete;

  /// prep -j: whether a chunk's clock, copied from an earlier state, placed its rows as this one,
  /// at the true end of the chunk before, would have (only the day of a time-of-day input carries over).
  [[nodiscard]] bool can_continue_with(const RowClock& chunk) const {
    return !chunk.m_day_read || chunk.m_day_at_start == m_day;
  }
  /// Takes the state of a chunk's clock at the chunk's end (can_continue_with() holds).
  void continue_with(const RowClock& chunk);

  /// The --start instant (else the relative clock's epoch): the one time of an input that is a
  /// single snapshot without any time (profiler summary tables).
  std::int64_t start_ts();
  /// Time of sampling cycle `cycle` (0-based) for inputs that print no time.
  std::int64_t cycle_ts(std::uint64_t cycle);
  /// A local wall-clock date and time printed by the tool.
  std::int64_t local_ts(const CivilTime& civil);
  /// The same for a wall clock already in ns (CivilTime::as_utc_ns()).
  std::int64_t local_ts(std::int64_t wall_ns);
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
  struct Day {
    std::int64_t offset = 0;        // days added by midnight crossings (time-of-day input)
    std::int64_t prev_tod_ns = -1;  // previous time of day, ns since local midnight
    bool operator==(const Day&) const = default;
  };
  Day m_day;
  Day m_day_at_start;       // a chunk's clock: m_day when it was copied
  bool m_day_read = false;  // a chunk's clock: some row's time depended on m_day
  // cycle_ts()'s last answer: the rows of one cycle (dmon's GPUs) share it.
  bool m_cycle_cached = false;
  std::uint64_t m_cached_cycle = 0;
  std::int64_t m_cached_cycle_ts = 0;
};

}  // namespace gpucost::prep

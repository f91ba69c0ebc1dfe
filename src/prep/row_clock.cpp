#include "row_clock.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gpucost::prep {

void RowClock::set_basis(TimeBasis b) {
  // The weakest basis seen wins: relative < local < absolute.
  if (m_stats.time_basis == TimeBasis::none || static_cast<int>(b) > static_cast<int>(m_stats.time_basis))
    m_stats.time_basis = b;
}

void RowClock::continue_with(const RowClock& chunk) {
  if (chunk.m_day_read) m_day = chunk.m_day;
  if (chunk.m_start_resolved && !m_start_resolved) m_start_ns = chunk.m_start_ns;
  m_start_resolved = m_start_resolved || chunk.m_start_resolved;  // its notes came with the chunk's
  m_interval_noted = m_interval_noted || chunk.m_interval_noted;
}

double RowClock::interval_s() {
  if (m_options.interval_s) return *m_options.interval_s;
  if (!m_interval_noted) {
    m_interval_noted = true;
    add_note(m_stats, "no --interval given: 1 s between cycles assumed (the default of dmon -d and query -l)");
  }
  return 1.0;
}

std::int64_t RowClock::start_ts() {
  if (!m_start_resolved) {
    m_start_resolved = true;
    if (m_options.start) {
      const IsoInstant& s = *m_options.start;
      if (s.offset_s) {
        m_start_ns = s.civil.as_utc_ns() - *s.offset_s * kNsPerSecond;
        set_basis(TimeBasis::absolute);
      } else {
        m_start_ns = m_clock.to_utc_ns(s.civil.as_utc_ns());
        set_basis(TimeBasis::local);
      }
    } else {
      m_start_ns = 0;
      set_basis(TimeBasis::relative);
      m_stats.notes.push_back(
          "no time in the input and no --start: times are relative to the first row "
          "(1970-01-01T00:00:00Z = start); give --start to place them");
    }
  }
  return m_start_ns;
}

std::int64_t RowClock::cycle_ts(std::uint64_t cycle) {
  if (m_cycle_cached && cycle == m_cached_cycle) return m_cached_cycle_ts;  // start and interval are settled
  const std::int64_t start_ns = start_ts();
  const double step_ns = interval_s() * 1e9;
  m_cycle_cached = true;
  m_cached_cycle = cycle;
  m_cached_cycle_ts = start_ns + static_cast<std::int64_t>(std::llround(static_cast<double>(cycle) * step_ns));
  return m_cached_cycle_ts;
}

std::int64_t RowClock::local_ts(const CivilTime& civil) { return local_ts(civil.as_utc_ns()); }

std::int64_t RowClock::local_ts(std::int64_t wall_ns) {
  set_basis(TimeBasis::local);
  return m_clock.to_utc_ns(wall_ns);
}

bool RowClock::time_of_day_ts(std::string_view hhmmss, std::int64_t& out) {
  CivilTime t;
  if (m_options.date) t = *m_options.date;
  if (!parse_clock_time(hhmmss, t)) return false;
  const std::int64_t tod =
      (static_cast<std::int64_t>(t.hour) * 3600 + t.minute * 60 + t.second) * kNsPerSecond + t.nanos;
  m_day_read = true;
  if (m_day.prev_tod_ns >= 0 && tod + 12 * 3600 * kNsPerSecond < m_day.prev_tod_ns) ++m_day.offset;
  m_day.prev_tod_ns = tod;
  const std::int64_t day_ns = m_day.offset * 86400 * kNsPerSecond;
  if (m_options.date) {
    set_basis(TimeBasis::local);
    out = m_clock.to_utc_ns(t.as_utc_ns() + day_ns);  // the zone offset of the rolled-over day
  } else {
    if (m_stats.time_basis != TimeBasis::relative) {
      m_stats.notes.push_back(
          "times of day without a date and no --date: placed on 1970-01-01 (relative clock); "
          "give --date YYYY-MM-DD");
    }
    set_basis(TimeBasis::relative);
    out = t.as_utc_ns() + day_ns;
  }
  return true;
}

std::int64_t RowClock::date_cycle_ts(const CivilTime& date, std::uint64_t cycle) {
  CivilTime midnight = date;
  midnight.hour = midnight.minute = midnight.second = 0;
  midnight.nanos = 0;
  const double step_ns = interval_s() * 1e9;
  return local_ts(midnight) + static_cast<std::int64_t>(std::llround(static_cast<double>(cycle) * step_ns));
}

}  // namespace gpucost::prep

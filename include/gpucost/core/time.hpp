// Time on one clock: int64 nanoseconds since the Unix epoch, UTC. Local wall-clock stamps
// (nvidia-smi prints no zone) are converted with an IANA zone from the OS tz database.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time_zone.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost {

/// A duration in ns as seconds.
[[nodiscard]] constexpr double seconds_of(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

inline constexpr std::int64_t kNsPerSecond = 1'000'000'000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d);
/// The year of a day counted since 1970-01-01 (Howard Hinnant's civil_from_days, the year only).
int year_from_days(std::int64_t days);
/// 28 to 31 (`month` 1-12).
unsigned days_in_month(int year, unsigned month);

/// Wall-clock fields as printed by a tool, before any zone is applied.
struct CivilTime {
  int year = 1970;
  unsigned month = 1, day = 1, hour = 0, minute = 0, second = 0;
  std::int64_t nanos = 0;
  /// Seconds since the epoch, as if this wall-clock time were UTC.
  [[nodiscard]] std::int64_t as_utc_ns() const;
};

/// Validates ranges (month 1-12, day in month, hour < 24, ...).
bool valid_civil(const CivilTime& t);

/// "YYYY/MM/DD HH:MM:SS[.fff]" (query-csv timestamp) or "YYYY-MM-DD..." variants.
std::optional<CivilTime> parse_civil_datetime(std::string_view s);
/// "YYYYMMDD" (dmon -o D) or "YYYY-MM-DD".
std::optional<CivilTime> parse_civil_date(std::string_view s);
/// "HH:MM:SS[.fff]": fills hour/minute/second/nanos of `into`.
bool parse_clock_time(std::string_view s, CivilTime& into);

/// An ISO 8601 instant: "2024-06-12T14:22:18[.123][Z|+02:00|+0200]" (also with a space for T).
struct IsoInstant {
  CivilTime civil;
  std::optional<std::int64_t> offset_s;  ///< set when the text carries Z or an offset
};
std::optional<IsoInstant> parse_iso8601(std::string_view s);

/// Formats ns since epoch as "2024-06-12T14:22:18.123Z" (fraction only when non-zero).
std::string format_utc(std::int64_t ts_ns);

/// The system clock now, in ns since the epoch (run folders, ledger rows, batch state).
std::int64_t wall_clock_ns();

/// A change of a zone's offset that sets the clocks back (the end of DST): the local times of
/// [at + after offset, at + before offset) happen twice.
struct FallBack {
  std::int64_t at_ns = 0;             ///< the instant of the change, UTC
  std::int64_t repeat_ns = 0;         ///< how far the clocks went back (3600 s for a DST hour)
  std::int64_t before_offset_ns = 0;  ///< UTC offset before the change (CEST: +2 h)
  std::string before, after;          ///< the zone database's abbreviations: "CEST", "CET"
  /// True when `ts_ns` (UTC) is where a local time of the repeated interval is placed by
  /// LocalClock::to_utc_ns: its first occurrence, the last `repeat_ns` before the change.
  [[nodiscard]] bool holds(std::int64_t ts_ns) const { return ts_ns >= at_ns - repeat_ns && ts_ns < at_ns; }
};

/// "clocks went back at 03:00 CEST→CET on 2024-10-27 (Europe/Berlin)", and the repeated interval
/// in local time: "02:00–03:00".
std::string describe_fall_back(const FallBack& f, std::string_view zone);
std::string repeated_interval(const FallBack& f);

/// Converts local wall-clock times of one IANA zone to UTC, caching the offset of the
/// current DST period so the per-line cost is a compare and an add.
class LocalClock {
 public:
  /// `name` empty = the machine's zone (TZ, /etc/localtime), UTC when none can be found.
  static Expected<LocalClock> make(std::string_view name);
  static LocalClock utc();

  [[nodiscard]] const std::string& name() const { return m_name; }
  [[nodiscard]] bool fell_back_to_utc() const { return m_fallback; }
  /// Local wall-clock ns (as_utc_ns of the civil fields) -> UTC ns. In a DST gap the time is
  /// moved forward by the gap; in a repeated hour the earlier instant is chosen, and the
  /// fall-back is remembered (fall_backs()).
  std::int64_t to_utc_ns(std::int64_t local_ns);
  /// The fall-backs whose repeated interval a time given to to_utc_ns() fell in, in the order met
  /// (conversions are not told apart: prep checks each event's time against them).
  [[nodiscard]] const std::vector<FallBack>& fall_backs() const { return m_fall_backs; }
  /// Adds the fall-backs `other` met that this clock has not, in the order met: `other` is a copy
  /// of this clock that converted the times of a chunk of the input on another thread (prep -j).
  void add_fall_backs(const LocalClock& other);

 private:
  void note_fall_back(const TimeZone::Local& info);

  std::shared_ptr<const TimeZone> m_zone;  // null = UTC
  std::string m_name = "UTC";
  bool m_fallback = false;
  std::int64_t m_cache_begin = 1, m_cache_end = 0;  // local ns range with a fixed offset
  std::int64_t m_cache_offset_ns = 0;
  std::vector<FallBack> m_fall_backs;
};

}  // namespace gpucost

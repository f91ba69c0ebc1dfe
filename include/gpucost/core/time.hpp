// Time on one clock: int64 nanoseconds since the Unix epoch, UTC. Local wall-clock stamps
// (nvidia-smi prints no zone) are converted with an IANA zone from the OS tz database.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace date {
class time_zone;
}

namespace gpucost {

inline constexpr std::int64_t kNsPerSecond = 1'000'000'000;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d);

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
  /// moved forward by the gap; in a repeated hour the earlier instant is chosen.
  std::int64_t to_utc_ns(std::int64_t local_ns);

 private:
  const date::time_zone* m_zone = nullptr;  // null = UTC
  std::string m_name = "UTC";
  bool m_fallback = false;
  std::int64_t m_cache_begin = 1, m_cache_end = 0;  // local ns range with a fixed offset
  std::int64_t m_cache_offset_ns = 0;
};

}  // namespace gpucost

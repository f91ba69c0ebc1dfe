// An IANA time zone read from the OS tz database's compiled files (TZif, RFC 8536), by gpucost
// itself. The date/tz library did this before, but it lists the whole database (a walk of
// /usr/share/zoneinfo: 664 stat calls, 3.5 ms, half of a small prep's run) before it opens one
// zone. The answers are date/tz's (tests/unit/test_time_zone.cpp compares them for every zone of
// the database); past the last transition a file lists, the POSIX rule of its footer goes on
// (date/tz kept the last offset), so that zone files without the transitions to 2037 written out
// ("slim", the default of zic since 2020) still give each year's DST.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost {

class TimeZone {
 public:
  /// A stretch of UTC seconds [begin, end) with one offset; the first and the last reach as far
  /// as an int64 does.
  struct Period {
    std::int64_t begin = 0, end = 0;
    std::int32_t offset_s = 0;  ///< local = UTC + offset
    bool is_dst = false;
    std::string_view abbrev;  ///< "CEST"; owned by the zone
  };
  /// What a local wall-clock time is in the zone (date/tz's local_info).
  struct Local {
    enum class Kind { unique, gap, repeated };
    Kind kind = Kind::unique;
    /// unique: its period. gap (the clocks jumped over it): `first` the period before the jump,
    /// `second` the one after. repeated (the clocks went back over it): `first` the earlier
    /// period, `second` the later.
    Period first, second;
  };

  /// The zone `name` ("Europe/Berlin") from $TZDIR, else /usr/share/zoneinfo. Names date/tz did
  /// not list are refused as it refused them: posix/..., right/..., Factory, the database's
  /// tables, anything with a component starting with '.', an absolute path.
  static Expected<std::shared_ptr<const TimeZone>> load(std::string_view name);
  /// This machine's zone, named as date/tz named it: the target of the /etc/localtime link (from
  /// "zoneinfo/" on), else /etc/TZ's, else /etc/timezone's first line, else ZONE= in
  /// /etc/sysconfig/clock; else /etc/localtime itself when it is a file (named by its path); an
  /// error when there is none.
  static Expected<std::shared_ptr<const TimeZone>> machine();
  /// The zone the TZ environment variable names, read as the C library reads it (tzset(3)): ':'
  /// and a file (an absolute path, or a name under the zone directory); else a zone's name; else
  /// a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3", a zone of that rule alone). A file under
  /// a "zoneinfo/" directory, or /etc/localtime linking to one, is named as its zone.
  static Expected<std::shared_ptr<const TimeZone>> from_tz_variable(std::string_view value);
  /// A zone from the bytes of a TZif file (tests; load() reads the file).
  static Expected<std::shared_ptr<const TimeZone>> from_tzif(std::string_view bytes, std::string name);

  [[nodiscard]] const std::string& name() const { return m_name; }
  /// The period of the UTC instant `utc_s` (seconds since the epoch).
  [[nodiscard]] Period at_utc(std::int64_t utc_s) const;
  /// What the local time `local_s` (seconds since the epoch, as if it were UTC) is in the zone.
  [[nodiscard]] Local at_local(std::int64_t local_s) const;

 private:
  struct Type {
    std::int32_t offset_s = 0;
    bool is_dst = false;
    std::string abbrev;
    bool operator==(const Type&) const = default;
  };
  struct Transition {
    std::int64_t at = 0;  ///< UTC seconds; the first is the lowest int64
    std::uint32_t type = 0;
  };
  [[nodiscard]] Period period(std::size_t i) const;  // of m_transitions[i] up to the next

  std::string m_name;
  std::vector<Type> m_types;
  std::vector<Transition> m_transitions;

  friend class TzifReader;
};

}  // namespace gpucost

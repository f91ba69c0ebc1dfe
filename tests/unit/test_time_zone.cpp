// core/time_zone: gpucost's own reading of the OS tz database against date/tz's, the library it
// replaces, for every zone date/tz lists: the same periods (begin, end, offset, DST, abbreviation)
// at each transition and between them, and the same answer for local times in, before and after
// each gap and each repeated hour. Past the files' last transition (2037 in Debian's "fat" files)
// the footer's POSIX rule goes on, checked against transitions a file lists and by hand.
#include <catch2/catch.hpp>

#include <gpucost/core/time.hpp>
#include <gpucost/core/time_zone.hpp>

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using gpucost::TimeZone;

namespace {

std::int64_t secs(const date::sys_seconds& t) { return t.time_since_epoch().count(); }

// date/tz's first and last periods reach from year::min to year::max; ours from the lowest to the
// highest int64. Both mean "no bound".
std::int64_t bound(const date::sys_seconds& t) {
  const std::int64_t s = secs(t);
  if (s <= secs(date::sys_days{date::year::min() / 1 / 1})) return std::numeric_limits<std::int64_t>::min();
  if (s >= secs(date::sys_days{date::year::max() / 12 / 31})) return std::numeric_limits<std::int64_t>::max();
  return s;
}

// date/tz's last period never ends; ours ends where the footer's rule changes the offset again
// (after the file's last transition, in 2037 or later).
bool same_end(std::int64_t ours, std::int64_t theirs) {
  constexpr std::int64_t kYear2037 = 2114380800;
  return ours == theirs || (theirs == std::numeric_limits<std::int64_t>::max() && ours > kYear2037);
}

bool same(const TimeZone::Period& ours, const date::sys_info& theirs) {
  return ours.begin == bound(theirs.begin) && same_end(ours.end, bound(theirs.end)) &&
         ours.offset_s == theirs.offset.count() && ours.is_dst == (theirs.save != std::chrono::minutes{0}) &&
         ours.abbrev == theirs.abbrev;
}

std::string describe(const TimeZone::Period& p) {
  std::ostringstream o;
  o << "[" << p.begin << ", " << p.end << ") " << p.offset_s << " s " << (p.is_dst ? "DST " : "") << p.abbrev;
  return o.str();
}

std::string describe(const date::sys_info& i) {
  std::ostringstream o;
  o << "[" << bound(i.begin) << ", " << bound(i.end) << ") " << i.offset.count() << " s "
    << (i.save != std::chrono::minutes{0} ? "DST " : "") << i.abbrev;
  return o.str();
}

TimeZone::Local::Kind kind_of(const date::local_info& i) {
  switch (i.result) {
    case date::local_info::nonexistent: return TimeZone::Local::Kind::gap;
    case date::local_info::ambiguous: return TimeZone::Local::Kind::repeated;
    default: return TimeZone::Local::Kind::unique;
  }
}

// Instants worth asking about: each transition date/tz knows, a second either side, the middle
// of each period, and local times around each change (in both offsets).
std::vector<std::int64_t> probes(const date::time_zone& z, std::int64_t until) {
  std::vector<std::int64_t> out;
  date::sys_seconds t{date::sys_days{date::year{1800} / 1 / 1}};
  const date::sys_seconds end{std::chrono::seconds{until}};
  while (t < end) {
    const date::sys_info i = z.get_info(t);
    const std::int64_t b = secs(t);
    for (const std::int64_t d : {-1, 0, 1}) out.push_back(b + d);
    if (bound(i.end) == std::numeric_limits<std::int64_t>::max() || i.end >= end) break;
    out.push_back(b + (secs(i.end) - b) / 2);
    t = i.end;
  }
  return out;
}

std::uint32_t be32(const std::string& b, std::size_t at) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) << 24 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
}

// The TZif (version 2+) file `fat` with only the transitions before `cut` listed, as zic -b slim
// writes them: later times come from the footer's rule alone. An empty 32-bit block.
std::string slim(const std::string& fat, std::int64_t cut) {
  const auto counts = [&](std::size_t at) {
    std::array<std::size_t, 6> n{};
    for (std::size_t i = 0; i < 6; ++i) n[i] = be32(fat, at + 20 + 4 * i);
    return n;  // isut, isstd, leap, time, type, char
  };
  const auto v1 = counts(0);
  const std::size_t v2_at = 44 + v1[3] * 5 + v1[4] * 6 + v1[5] + v1[2] * 8 + v1[1] + v1[0];
  const auto v2 = counts(v2_at);
  const std::size_t times = v2_at + 44, indices = times + v2[3] * 8, rest = indices + v2[3];
  std::size_t kept = 0;
  while (kept < v2[3]) {
    std::uint64_t t = 0;
    for (std::size_t i = 0; i < 8; ++i) t = t << 8 | static_cast<unsigned char>(fat[times + 8 * kept + i]);
    if (static_cast<std::int64_t>(t) >= cut) break;
    ++kept;
  }
  std::string out = fat.substr(0, 5) + std::string(39, '\0');  // a 32-bit block with nothing in it
  out += fat.substr(v2_at, 20);
  for (std::size_t i = 0; i < 6; ++i) put32(out, static_cast<std::uint32_t>(i == 3 ? kept : v2[i]));
  out += fat.substr(times, kept * 8);
  out += fat.substr(indices, kept);
  out += fat.substr(rest);  // types, abbreviations, leap seconds (none), flags, the footer
  return out;
}

}  // namespace

TEST_CASE("time zone: every zone of the database as date/tz reads it, 1800-2037", "[core][time][zone]") {
  const date::tzdb& db = date::get_tzdb();
  REQUIRE(db.zones.size() > 300);
  const std::int64_t until = secs(date::sys_days{date::year{2037} / 12 / 31});
  std::size_t zones = 0, checks = 0;
  for (const date::time_zone& z : db.zones) {
    INFO("zone " << z.name());
    auto ours = TimeZone::load(z.name());
    REQUIRE(ours);
    REQUIRE((*ours)->name() == z.name());
    ++zones;
    std::string mismatch;  // the first difference, described (one assertion per zone: Catch's cost)
    for (const std::int64_t s : probes(z, until)) {
      const date::sys_info theirs = z.get_info(date::sys_seconds{std::chrono::seconds{s}});
      const TimeZone::Period p = (*ours)->at_utc(s);
      if (!same(p, theirs)) {
        mismatch = "UTC " + std::to_string(s) + ": ours " + describe(p) + ", date/tz " + describe(theirs);
        break;
      }
      // Local times around the instant, in the offsets either side of it.
      for (const std::int64_t off : {std::int64_t{theirs.offset.count()}, std::int64_t{p.offset_s} - 3600,
                                     std::int64_t{p.offset_s} + 3600, std::int64_t{p.offset_s} - 1800}) {
        const std::int64_t local = s + off;
        const date::local_info li = z.get_info(date::local_seconds{std::chrono::seconds{local}});
        const TimeZone::Local ol = (*ours)->at_local(local);
        ++checks;
        if (ol.kind == kind_of(li) && same(ol.first, li.first) &&
            (ol.kind == TimeZone::Local::Kind::unique || same(ol.second, li.second)))
          continue;
        std::ostringstream o;
        o << "local " << local << ": ours " << static_cast<int>(ol.kind) << " " << describe(ol.first) << " / "
          << describe(ol.second) << ", date/tz " << li.result << " " << describe(li.first) << " / "
          << describe(li.second);
        mismatch = o.str();
        break;
      }
      if (!mismatch.empty()) break;
    }
    CHECK(mismatch.empty());
    if (!mismatch.empty()) WARN(mismatch);
  }
  CHECK(zones == db.zones.size());
  CHECK(checks > 100000);
}

TEST_CASE("time zone: names date/tz did not list are refused, with the name in the message", "[core][time][zone]") {
  for (const char* name : {"", "Europe/Nowhere", "posix/Europe/Berlin", "posixrules", "right/UTC", "Factory",
                           "zone.tab", "tzdata.zi", "leap-seconds.list", "../../etc/passwd", "Europe/../Etc/UTC",
                           "/usr/share/zoneinfo/Europe/Berlin", "Europe", "Europe/", ".hidden"}) {
    INFO("name '" << name << "'");
    const auto z = TimeZone::load(name);
    REQUIRE_FALSE(z);
    CHECK(z.error().message == std::string("unknown time zone '") + name + "'");
  }
}

TEST_CASE("time zone: the machine's zone is named as date/tz named it", "[core][time][zone]") {
  const date::time_zone* theirs = nullptr;
  try {
    theirs = date::current_zone();
  } catch (const std::exception&) {
  }
  const auto ours = TimeZone::machine();
  if (theirs == nullptr) {  // none named; a copied /etc/localtime is still read, under its path
    if (ours) CHECK((*ours)->name() == "/etc/localtime");
    return;
  }
  REQUIRE(ours);
  CHECK((*ours)->name() == theirs->name());
}

TEST_CASE("time zone: a damaged zone file is refused with the reason, not read", "[core][time][zone]") {
  std::ifstream in("/usr/share/zoneinfo/Europe/Berlin", std::ios::binary);
  REQUIRE(in);  // tzdata is a dependency (README)
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string berlin = buf.str();
  REQUIRE(TimeZone::from_tzif(berlin, "Europe/Berlin"));
  CHECK(TimeZone::from_tzif("", "x").error().message == "time zone 'x': not a TZif zone file");
  CHECK(TimeZone::from_tzif("TZif2", "x").error().message == "time zone 'x': not a TZif zone file");
  for (std::size_t cut : {std::size_t{44}, std::size_t{100}, berlin.size() / 2}) {
    INFO("cut at " << cut);
    CHECK_FALSE(TimeZone::from_tzif(berlin.substr(0, cut), "x"));
  }
  // Every single-byte change of the first 400 bytes (both headers, the counts, the first transitions
  // and types) is refused or read: never a crash or a read past the bytes (ASan).
  for (std::size_t i = 0; i < std::min<std::size_t>(400, berlin.size()); ++i) {
    std::string b = berlin;
    b[i] = static_cast<char>(b[i] ^ 0x5a);
    (void)TimeZone::from_tzif(b, "x");
  }
}

// Debian's files list the transitions to 2037 ("fat"); past them the footer's rule goes on. Its
// transitions are checked against those the files list for 2030-2037, by cutting the list there.
TEST_CASE("time zone: a file that lists its transitions only to 2029 gives every zone's 2030-2037 from its rule",
          "[core][time][zone]") {
  const date::tzdb& db = date::get_tzdb();
  // 2030: the database's announced exceptions (Havana's DST through 2027) are over by then.
  const std::int64_t cut = 1893456000;    // 2030-01-01T00:00:00Z
  const std::int64_t until = 2145916800;  // 2038-01-01T00:00:00Z
  std::size_t zones = 0, unruled = 0;
  for (const date::time_zone& z : db.zones) {
    INFO("zone " << z.name());
    std::ifstream in("/usr/share/zoneinfo/" + z.name(), std::ios::binary);
    REQUIRE(in);
    std::ostringstream buf;
    buf << in.rdbuf();
    const std::string bytes = buf.str();
    const auto fat = TimeZone::from_tzif(bytes, z.name());
    REQUIRE(fat);
    // Morocco's DST and Palestine's pauses follow Ramadan, which a POSIX rule cannot say: zic
    // lists them to 2037 even in slim files, with a footer of the rest of the rule.
    if (z.name().find("Casablanca") != std::string::npos || z.name().find("El_Aaiun") != std::string::npos ||
        z.name().find("Gaza") != std::string::npos || z.name().find("Hebron") != std::string::npos) {
      ++unruled;
      continue;
    }
    const auto thin = TimeZone::from_tzif(slim(bytes, cut), z.name());
    REQUIRE(thin);
    std::string mismatch;
    for (std::int64_t s = cut; s < until && mismatch.empty(); s += 3 * 3600) {
      const TimeZone::Period a = (*fat)->at_utc(s), b = (*thin)->at_utc(s);
      if (a.offset_s != b.offset_s || a.abbrev != b.abbrev || a.is_dst != b.is_dst)
        mismatch = "UTC " + std::to_string(s) + ": listed " + describe(a) + ", from the rule " + describe(b);
    }
    CHECK(mismatch.empty());
    if (!mismatch.empty()) WARN(mismatch);
    ++zones;
  }
  CHECK(zones + unruled == db.zones.size());
  CHECK(unruled == 4);  // Africa/Casablanca, Africa/El_Aaiun, Asia/Gaza, Asia/Hebron
}

// Instants from Python's zoneinfo (which follows the footer too), 2040 and 2050.
TEST_CASE("time zone: past the last listed transition the footer's POSIX rule goes on", "[core][time][zone]") {
  const auto berlin = TimeZone::load("Europe/Berlin");
  REQUIRE(berlin);
  // 2040: DST from the last Sunday of March 01:00 UTC to the last Sunday of October 01:00 UTC.
  const std::int64_t mar25_2040 = 2216250000;  // 2040-03-25T01:00:00Z
  CHECK((*berlin)->at_utc(mar25_2040 - 1).offset_s == 3600);
  CHECK((*berlin)->at_utc(mar25_2040).offset_s == 7200);
  CHECK((*berlin)->at_utc(mar25_2040).abbrev == "CEST");
  const std::int64_t oct28_2040 = 2234998800;  // 2040-10-28T01:00:00Z
  CHECK((*berlin)->at_utc(oct28_2040 - 1).offset_s == 7200);
  CHECK((*berlin)->at_utc(oct28_2040).offset_s == 3600);
  CHECK((*berlin)->at_utc(oct28_2040).abbrev == "CET");
  // New York 2050: second Sunday of March 2:00 EST (07:00Z), first Sunday of November 2:00 EDT (06:00Z).
  const auto ny = TimeZone::load("America/New_York");
  REQUIRE(ny);
  const std::int64_t mar13_2050 = 2530767600;  // 2050-03-13T07:00:00Z
  CHECK((*ny)->at_utc(mar13_2050 - 1).offset_s == -18000);
  CHECK((*ny)->at_utc(mar13_2050).offset_s == -14400);
  const std::int64_t nov6_2050 = 2551327200;  // 2050-11-06T06:00:00Z
  CHECK((*ny)->at_utc(nov6_2050 - 1).abbrev == "EDT");
  CHECK((*ny)->at_utc(nov6_2050).abbrev == "EST");
  // The repeated hour of 2040 in Berlin: 02:00-03:00 local on October 28.
  const TimeZone::Local r = (*berlin)->at_local(oct28_2040 + 7200 - 1800);  // 02:30 local
  CHECK(r.kind == TimeZone::Local::Kind::repeated);
  CHECK(r.first.abbrev == "CEST");
  CHECK(r.second.abbrev == "CET");
  CHECK(r.second.begin == oct28_2040);
  // Lord Howe: half-hour DST, southern summer; Dublin: "negative DST" (IST in summer is standard time).
  const auto lh = TimeZone::load("Australia/Lord_Howe");
  REQUIRE(lh);
  CHECK((*lh)->at_utc(2240000000).offset_s == 39600);  // 2040-12-24: +11, DST (30 minutes)
  CHECK((*lh)->at_utc(2240000000).abbrev == "+11");
  CHECK((*lh)->at_utc(2233150200 - 1).offset_s == 37800);  // DST from 2040-10-06T15:30:00Z
  CHECK((*lh)->at_utc(2233150200).offset_s == 39600);
  CHECK((*lh)->at_utc(2226000000).offset_s == 37800);  // 2040-07-15: +10:30
  const auto dublin = TimeZone::load("Europe/Dublin");
  REQUIRE(dublin);
  CHECK((*dublin)->at_utc(2226000000).abbrev == "IST");      // July 2040
  CHECK((*dublin)->at_utc(2234998800 - 1).abbrev == "IST");  // GMT from 2040-10-28T01:00:00Z
  CHECK((*dublin)->at_utc(2234998800).abbrev == "GMT");
  CHECK((*dublin)->at_utc(2240000000).abbrev == "GMT");  // December 2040
  CHECK((*dublin)->at_utc(2240000000).offset_s == 0);
}

TEST_CASE("time zone: the TZ variable as the C library reads it: a file, a zone's name, a POSIX rule",
          "[core][time][zone]") {
  const auto berlin = TimeZone::load("Europe/Berlin");
  REQUIRE(berlin);
  const auto same_offsets = [](const TimeZone& a, const TimeZone& b, std::int64_t from, std::int64_t to) {
    for (std::int64_t s = from; s < to; s += 3 * 3600) {
      const TimeZone::Period x = a.at_utc(s), y = b.at_utc(s);
      if (x.offset_s != y.offset_s || x.abbrev != y.abbrev || x.is_dst != y.is_dst) return false;
    }
    return true;
  };
  const std::int64_t y2000 = 946684800, y2038 = 2145916800;
  for (const char* file :
       {":/usr/share/zoneinfo/Europe/Berlin", "/usr/share/zoneinfo/Europe/Berlin", ":Europe/Berlin", "Europe/Berlin"}) {
    INFO("TZ=" << file);
    const auto z = TimeZone::from_tz_variable(file);
    REQUIRE(z);
    CHECK((*z)->name() == "Europe/Berlin");
    CHECK(same_offsets(**z, **berlin, y2000, y2038));
  }
  // A rule alone: Berlin's since 1996, New York's since 2007.
  const auto cet = TimeZone::from_tz_variable("CET-1CEST,M3.5.0,M10.5.0/3");
  REQUIRE(cet);
  CHECK((*cet)->name() == "CET-1CEST,M3.5.0,M10.5.0/3");
  CHECK(same_offsets(**cet, **berlin, y2000, y2038));
  const auto ny = TimeZone::load("America/New_York");
  REQUIRE(ny);
  const auto est = TimeZone::from_tz_variable("EST5EDT,M3.2.0,M11.1.0");
  REQUIRE(est);
  CHECK(same_offsets(**est, **ny, 1199145600 /* 2008 */, y2038));
  const auto tehran = TimeZone::from_tz_variable("<+0330>-3:30");
  REQUIRE(tehran);
  CHECK((*tehran)->at_utc(y2000).offset_s == 12600);
  CHECK((*tehran)->at_utc(y2000).abbrev == "+0330");
  CHECK((*tehran)->at_utc(y2038).offset_s == 12600);
  // A zone file's name comes first, as in the C library (EST5EDT is a file of the database).
  const auto est5edt = TimeZone::from_tz_variable("EST5EDT");
  REQUIRE(est5edt);
  CHECK((*est5edt)->name() == "EST5EDT");
  // What the C library would not read either.
  CHECK(TimeZone::from_tz_variable(":/nonexistent").error().message == "cannot read the zone file '/nonexistent'");
  CHECK(TimeZone::from_tz_variable(":Nowhere/Zone").error().message == "unknown time zone 'Nowhere/Zone'");
  for (const char* bad : {"Nowhere/Zone", "AB5", "CET-1CEST", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-25",
                          "<+03", "EST5EDT,M3.2.0,M11.1.0x"}) {
    INFO("TZ=" << bad);
    CHECK_FALSE(TimeZone::from_tz_variable(bad));
  }
}

namespace {

// Sets TZ for the scope of one test, then puts back what it was.
class TzVariable {
 public:
  explicit TzVariable(const char* value) {
    if (const char* old = std::getenv("TZ"); old != nullptr) m_old = old;
    ::setenv("TZ", value, 1);
  }
  ~TzVariable() {
    if (m_old)
      ::setenv("TZ", m_old->c_str(), 1);
    else
      ::unsetenv("TZ");
  }
  TzVariable(const TzVariable&) = delete;
  TzVariable& operator=(const TzVariable&) = delete;

 private:
  std::optional<std::string> m_old;
};

}  // namespace

TEST_CASE("time zone: LocalClock takes TZ as the C library does, and names TZ in its error", "[core][time][zone]") {
  {
    const TzVariable tz(":/usr/share/zoneinfo/Europe/Berlin");
    auto clock = gpucost::LocalClock::make("");
    REQUIRE(clock);
    CHECK(clock->name() == "Europe/Berlin");
    // 2024-07-01 12:00 local is 10:00 UTC in summer time.
    CHECK(clock->to_utc_ns(std::int64_t{1719835200} * 1'000'000'000) == std::int64_t{1719828000} * 1'000'000'000);
  }
  {
    const TzVariable tz("CET-1CEST,M3.5.0,M10.5.0/3");
    auto clock = gpucost::LocalClock::make("");
    REQUIRE(clock);
    CHECK(clock->to_utc_ns(std::int64_t{1719835200} * 1'000'000'000) == std::int64_t{1719828000} * 1'000'000'000);
  }
  {
    const TzVariable tz("Nowhere/Zone");
    auto clock = gpucost::LocalClock::make("");
    REQUIRE_FALSE(clock);
    CHECK(clock.error().message == "TZ: unknown time zone 'Nowhere/Zone'");
    // --tz wins over TZ, as before.
    auto given = gpucost::LocalClock::make("Asia/Tokyo");
    REQUIRE(given);
    CHECK(given->name() == "Asia/Tokyo");
  }
}

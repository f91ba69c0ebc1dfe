// core/time: civil dates, the timestamp shapes of nvidia-smi, ISO 8601 offsets, and local->UTC
// conversion around DST changes.
#include <catch2/catch.hpp>

#include <gpucost/core/time.hpp>

using namespace gpucost;

namespace {

std::int64_t civil_ns(int y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned s, std::int64_t nanos = 0) {
  CivilTime t;
  t.year = y;
  t.month = mo;
  t.day = d;
  t.hour = h;
  t.minute = mi;
  t.second = s;
  t.nanos = nanos;
  return t.as_utc_ns();
}

LocalClock zone(const char* name) {
  auto c = LocalClock::make(name);
  REQUIRE(c);
  return *c;
}

}  // namespace

TEST_CASE("core::time: days_from_civil", "[core][time]") {
  CHECK(days_from_civil(1970, 1, 1) == 0);
  CHECK(days_from_civil(1969, 12, 31) == -1);
  CHECK(days_from_civil(2000, 3, 1) == 11017);
  CHECK(days_from_civil(2024, 2, 29) == 19782);
  CHECK(days_from_civil(1600, 1, 1) == -135140);
  CHECK(days_from_civil(2400, 12, 31) == 157419);
  CHECK(civil_ns(2024, 6, 12, 14, 22, 18, 123'000'000) == 1718202138123000000);
}

TEST_CASE("core::time: parse_civil_datetime variants", "[core][time]") {
  auto t = parse_civil_datetime("2024/06/12 14:22:18.123");  // --query-gpu timestamp
  REQUIRE(t);
  CHECK(t->year == 2024);
  CHECK(t->month == 6u);
  CHECK(t->day == 12u);
  CHECK(t->hour == 14u);
  CHECK(t->minute == 22u);
  CHECK(t->second == 18u);
  CHECK(t->nanos == 123'000'000);

  t = parse_civil_datetime("2024-06-12T14:22:18");
  REQUIRE(t);
  CHECK(t->as_utc_ns() == civil_ns(2024, 6, 12, 14, 22, 18));
  t = parse_civil_datetime("2024-06-12 14:22");
  REQUIRE(t);
  CHECK(t->as_utc_ns() == civil_ns(2024, 6, 12, 14, 22, 0));
  t = parse_civil_datetime("20240612 14:22:18");
  REQUIRE(t);
  CHECK(t->as_utc_ns() == civil_ns(2024, 6, 12, 14, 22, 18));
  t = parse_civil_datetime("2024/06/12 14:22:18.123456789");
  REQUIRE(t);
  CHECK(t->nanos == 123456789);
  t = parse_civil_datetime("2024/06/12 14:22:18,5");
  REQUIRE(t);
  CHECK(t->nanos == 500'000'000);

  CHECK_FALSE(parse_civil_datetime("2024/02/30 00:00:00"));  // no such day
  CHECK(parse_civil_datetime("2024/02/29 00:00:00"));        // leap year
  CHECK_FALSE(parse_civil_datetime("2023/02/29 00:00:00"));
  CHECK_FALSE(parse_civil_datetime("2024/06/12"));
  CHECK_FALSE(parse_civil_datetime("2024/06/12 25:00:00"));
  CHECK_FALSE(parse_civil_datetime("2024/06/12 14:60:00"));
  CHECK_FALSE(parse_civil_datetime("2024/06-12 14:22:18"));
  CHECK_FALSE(parse_civil_datetime("2024/06/12 14:22:18 x"));
  CHECK_FALSE(parse_civil_datetime("2024/06/12 14:22:18."));
  CHECK_FALSE(parse_civil_datetime(""));

  auto d = parse_civil_date("20240612");
  REQUIRE(d);
  CHECK(d->as_utc_ns() == civil_ns(2024, 6, 12, 0, 0, 0));
  CHECK(parse_civil_date("2024-06-12"));
  CHECK_FALSE(parse_civil_date("2024-13-01"));
  CHECK_FALSE(parse_civil_date("2024061"));

  CivilTime c = *d;
  REQUIRE(parse_clock_time("23:59:59", c));
  CHECK(c.as_utc_ns() == civil_ns(2024, 6, 12, 23, 59, 59));
  CHECK_FALSE(parse_clock_time("24:00:00", c));
  CHECK_FALSE(parse_clock_time("1:02:03", c));
  CHECK(c.hour == 23u);  // unchanged by a failed parse
}

TEST_CASE("core::time: parse_iso8601 with Z, +02:00, +0200 and none", "[core][time]") {
  auto z = parse_iso8601("2024-06-12T14:22:18Z");
  REQUIRE(z);
  REQUIRE(z->offset_s);
  CHECK(*z->offset_s == 0);
  CHECK(z->civil.as_utc_ns() == civil_ns(2024, 6, 12, 14, 22, 18));

  auto p = parse_iso8601("2024-06-12T14:22:18+02:00");
  REQUIRE(p);
  CHECK(p->offset_s == std::optional<std::int64_t>(7200));
  p = parse_iso8601("2024-06-12T14:22:18+0200");
  REQUIRE(p);
  CHECK(p->offset_s == std::optional<std::int64_t>(7200));
  p = parse_iso8601("2024-06-12 14:22:18.5-05:30");
  REQUIRE(p);
  CHECK(p->offset_s == std::optional<std::int64_t>(-(5 * 3600 + 30 * 60)));
  CHECK(p->civil.nanos == 500'000'000);

  auto local = parse_iso8601("2024-06-12T14:22:18");
  REQUIRE(local);
  CHECK_FALSE(local->offset_s);
  auto date_only = parse_iso8601("2024-06-12");
  REQUIRE(date_only);
  CHECK(date_only->civil.as_utc_ns() == civil_ns(2024, 6, 12, 0, 0, 0));

  CHECK_FALSE(parse_iso8601("2024-06-12T14:22:18+2"));
  CHECK_FALSE(parse_iso8601("2024-06-12T14:22:18+02:"));
  CHECK_FALSE(parse_iso8601("2024-06-12T14:22:18+02:0"));
  CHECK_FALSE(parse_iso8601("2024-06-12T14:22:18+25:00"));
  CHECK_FALSE(parse_iso8601("2024-06-12T14:22:18Zjunk"));
  CHECK_FALSE(parse_iso8601("12/06/2024"));
}

TEST_CASE("core::time: format_utc", "[core][time]") {
  CHECK(format_utc(0) == "1970-01-01T00:00:00Z");
  CHECK(format_utc(1718202138123000000) == "2024-06-12T14:22:18.123Z");
  CHECK(format_utc(civil_ns(2024, 2, 29, 23, 59, 59, 1)) == "2024-02-29T23:59:59.000000001Z");
  CHECK(format_utc(-1) == "1969-12-31T23:59:59.999999999Z");
  CHECK(format_utc(-kNsPerSecond) == "1969-12-31T23:59:59Z");
}

TEST_CASE("core::time: LocalClock converts local wall-clock time with the zone's offset", "[core][time]") {
  LocalClock utc = LocalClock::utc();
  CHECK(utc.name() == "UTC");
  CHECK(utc.to_utc_ns(civil_ns(2024, 6, 12, 14, 0, 0)) == civil_ns(2024, 6, 12, 14, 0, 0));

  LocalClock ny = zone("America/New_York");
  CHECK(ny.name() == "America/New_York");
  CHECK(ny.to_utc_ns(civil_ns(2024, 6, 12, 14, 22, 18, 123'000'000)) ==
        civil_ns(2024, 6, 12, 18, 22, 18, 123'000'000));                                        // EDT
  CHECK(ny.to_utc_ns(civil_ns(2024, 1, 15, 9, 0, 0)) == civil_ns(2024, 1, 15, 14, 0, 0));       // EST
  CHECK(ny.to_utc_ns(civil_ns(2024, 6, 12, 14, 22, 19)) == civil_ns(2024, 6, 12, 18, 22, 19));  // cached

  auto bad = LocalClock::make("Mars/Olympus_Mons");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().kind == ErrorKind::usage);
  CHECK(bad.error().hint.find("IANA") != std::string::npos);
}

TEST_CASE("core::time: LocalClock in a DST gap moves forward, a repeated hour takes the earlier instant",
          "[core][time]") {
  LocalClock berlin = zone("Europe/Berlin");
  // 2024-03-31: 02:00 CET -> 03:00 CEST. 02:30 does not exist: read with the offset before the
  // gap (+01:00), i.e. moved forward by the gap to 03:30 CEST.
  CHECK(berlin.to_utc_ns(civil_ns(2024, 3, 31, 1, 59, 59)) == civil_ns(2024, 3, 31, 0, 59, 59));
  CHECK(berlin.to_utc_ns(civil_ns(2024, 3, 31, 2, 30, 0)) == civil_ns(2024, 3, 31, 1, 30, 0));
  CHECK(berlin.to_utc_ns(civil_ns(2024, 3, 31, 3, 30, 0)) == civil_ns(2024, 3, 31, 1, 30, 0));
  CHECK(berlin.to_utc_ns(civil_ns(2024, 3, 31, 3, 0, 0)) == civil_ns(2024, 3, 31, 1, 0, 0));
  CHECK(berlin.to_utc_ns(civil_ns(2024, 3, 31, 1, 59, 59)) == civil_ns(2024, 3, 31, 0, 59, 59));  // back again
  // 2024-10-27: 03:00 CEST -> 02:00 CET. 02:30 happens twice: the earlier (CEST, +02:00) is chosen.
  CHECK(berlin.to_utc_ns(civil_ns(2024, 10, 27, 2, 30, 0)) == civil_ns(2024, 10, 27, 0, 30, 0));
  CHECK(berlin.to_utc_ns(civil_ns(2024, 10, 27, 3, 0, 0)) == civil_ns(2024, 10, 27, 2, 0, 0));
  CHECK(berlin.to_utc_ns(civil_ns(2024, 10, 27, 1, 59, 59)) == civil_ns(2024, 10, 26, 23, 59, 59));

  LocalClock ny = zone("America/New_York");
  CHECK(ny.to_utc_ns(civil_ns(2024, 3, 10, 2, 30, 0)) == civil_ns(2024, 3, 10, 7, 30, 0));  // gap -> 03:30 EDT
  CHECK(ny.to_utc_ns(civil_ns(2024, 11, 3, 1, 30, 0)) == civil_ns(2024, 11, 3, 5, 30, 0));  // EDT, the earlier
  CHECK(ny.to_utc_ns(civil_ns(2024, 11, 3, 2, 0, 0)) == civil_ns(2024, 11, 3, 7, 0, 0));    // EST

  // A zone with a half-hour offset.
  LocalClock kolkata = zone("Asia/Kolkata");
  CHECK(kolkata.to_utc_ns(civil_ns(2023, 11, 5, 14, 7, 21)) == civil_ns(2023, 11, 5, 8, 37, 21));
}

TEST_CASE("core::time: LocalClock remembers the fall-backs whose repeated hour it placed, named from the zone database",
          "[core][time][dst]") {
  LocalClock berlin = zone("Europe/Berlin");
  // Unique times and a spring-forward gap are no fall-back.
  berlin.to_utc_ns(civil_ns(2024, 10, 27, 1, 59, 59));
  berlin.to_utc_ns(civil_ns(2024, 10, 27, 3, 0, 0));
  berlin.to_utc_ns(civil_ns(2024, 3, 31, 2, 30, 0));
  CHECK(berlin.fall_backs().empty());
  // 2024-10-27 02:30 happens twice: placed at its first occurrence, the change remembered once.
  CHECK(berlin.to_utc_ns(civil_ns(2024, 10, 27, 2, 30, 0)) == civil_ns(2024, 10, 27, 0, 30, 0));
  CHECK(berlin.to_utc_ns(civil_ns(2024, 10, 27, 2, 0, 0)) == civil_ns(2024, 10, 27, 0, 0, 0));
  REQUIRE(berlin.fall_backs().size() == 1);
  const FallBack& f = berlin.fall_backs()[0];
  CHECK(f.at_ns == civil_ns(2024, 10, 27, 1, 0, 0));
  CHECK(f.repeat_ns == 3600 * kNsPerSecond);
  CHECK(f.before == "CEST");
  CHECK(f.after == "CET");
  CHECK(describe_fall_back(f, "Europe/Berlin") ==
        "clocks went back at 03:00 CEST\u2192CET on 2024-10-27 (Europe/Berlin)");
  CHECK(repeated_interval(f) == "02:00\u201303:00");
  CHECK(f.holds(civil_ns(2024, 10, 27, 0, 0, 0)));
  CHECK(f.holds(civil_ns(2024, 10, 27, 0, 59, 59)));
  CHECK_FALSE(f.holds(civil_ns(2024, 10, 27, 1, 0, 0)));     // 02:00 CET, after the change
  CHECK_FALSE(f.holds(civil_ns(2024, 10, 26, 23, 59, 59)));  // 01:59:59 CEST, before the hour
  // A year later: a second fall-back.
  berlin.to_utc_ns(civil_ns(2025, 10, 26, 2, 15, 0));
  REQUIRE(berlin.fall_backs().size() == 2);
  CHECK(berlin.fall_backs()[1].at_ns == civil_ns(2025, 10, 26, 1, 0, 0));

  LocalClock ny = zone("America/New_York");
  ny.to_utc_ns(civil_ns(2024, 11, 3, 1, 30, 0));
  REQUIRE(ny.fall_backs().size() == 1);
  CHECK(describe_fall_back(ny.fall_backs()[0], "America/New_York") ==
        "clocks went back at 02:00 EDT\u2192EST on 2024-11-03 (America/New_York)");
  CHECK(repeated_interval(ny.fall_backs()[0]) == "01:00\u201302:00");

  // Lord Howe Island goes back half an hour.
  LocalClock lord_howe = zone("Australia/Lord_Howe");
  lord_howe.to_utc_ns(civil_ns(2024, 4, 7, 1, 45, 0));
  REQUIRE(lord_howe.fall_backs().size() == 1);
  CHECK(lord_howe.fall_backs()[0].repeat_ns == 1800 * kNsPerSecond);
  CHECK(repeated_interval(lord_howe.fall_backs()[0]) == "01:30\u201302:00");

  LocalClock utc = LocalClock::utc();
  utc.to_utc_ns(civil_ns(2024, 10, 27, 2, 30, 0));
  CHECK(utc.fall_backs().empty());
}

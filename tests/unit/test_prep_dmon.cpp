// prep: nvidia-smi dmon (docs/formats.md, "nvidia-smi dmon"). Fixtures in testdata/dmon are hand-written in the byte
// shape of the driver named in their file name; expectations below are computed by hand from them.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <fmt/format.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using gpucost::test::check_accounting;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

prep::PrepOptions with_start(const char* iso, double interval_s) {
  prep::PrepOptions o;
  o.start = gpucost::parse_iso8601(iso);
  REQUIRE(o.start.has_value());
  o.interval_s = interval_s;
  return o;
}

}  // namespace

TEST_CASE("prep::dmon: default columns of driver 590+ (6-wide fields, trailing space)", "[prep][dmon]") {
  const PrepRun r = run_prep_text(fixture("dmon/rtx6000ada_x2_595_default.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmon);
  CHECK(r.stats.lines == 8);
  CHECK(r.stats.events == 6);
  CHECK(r.stats.ignored == 2);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 6);

  const auto& e0 = r.events[0];
  CHECK(e0.source == "dmon");
  CHECK(e0.kind == "sample");
  CHECK(e0.host == "localhost");
  CHECK(e0.gpu == 0);
  CHECK(e0.metric("power_w") == 287.0);
  CHECK(e0.metric("temp_c") == 66.0);
  CHECK_FALSE(e0.metric("mem_temp_c"));  // "-" on this board: omitted, not 0
  CHECK(e0.metric("sm_pct") == 91.0);
  CHECK(e0.metric("mem_pct") == 38.0);
  CHECK(e0.metric("enc_pct") == 0.0);
  CHECK(e0.metric("dec_pct") == 0.0);
  CHECK(e0.metric("jpg_pct") == 0.0);
  CHECK(e0.metric("ofa_pct") == 0.0);
  CHECK(e0.metric("mclk_mhz") == 10001.0);
  CHECK(e0.metric("pclk_mhz") == 2505.0);
  CHECK(e0.metrics.size() == 10);
  CHECK(e0.fields.empty());

  const auto& e5 = r.events[5];
  CHECK(e5.gpu == 1);
  CHECK(e5.metric("power_w") == 89.0);
  CHECK(e5.metric("sm_pct") == 12.0);
  CHECK(e5.metric("pclk_mhz") == 1200.0);

  // No time in the file and no --start: cycles 0,0,1,1,2,2 on the relative clock, 1 s apart.
  const std::int64_t want_ts[] = {0, 0, kSec, kSec, 2 * kSec, 2 * kSec};
  const int want_gpu[] = {0, 1, 0, 1, 0, 1};
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(r.events[i].ts_ns == want_ts[i]);
    CHECK(r.events[i].gpu == want_gpu[i]);
  }
  CHECK(r.stats.time_basis == gpucost::TimeBasis::relative);
  CHECK_FALSE(r.stats.notes.empty());
}

TEST_CASE("prep::dmon: CRLF lines and a missing final newline give the same events", "[prep][dmon]") {
  const std::string text = fixture("dmon/rtx6000ada_x2_595_default.txt");
  const PrepRun plain = run_prep_text(text);
  const PrepRun crlf = run_prep_text(replace_all(text, "\n", "\r\n"));
  REQUIRE(text.back() == '\n');
  const PrepRun no_nl = run_prep_text(text.substr(0, text.size() - 1));
  const PrepRun crlf_no_nl = run_prep_text(replace_all(text.substr(0, text.size() - 1), "\n", "\r\n"));
  for (const PrepRun* r : {&crlf, &no_nl, &crlf_no_nl}) {
    check_accounting(*r);
    CHECK(r->stats.lines == 8);
    CHECK(r->stats.malformed == 0);
    REQUIRE(r->events.size() == plain.events.size());
    for (std::size_t i = 0; i < plain.events.size(); ++i) {
      CHECK(r->events[i].ts_ns == plain.events[i].ts_ns);
      CHECK(r->events[i].gpu == plain.events[i].gpu);
      CHECK(r->events[i].metrics == plain.events[i].metrics);
      CHECK(r->events[i].fields == plain.events[i].fields);
    }
  }
}

TEST_CASE("prep::dmon: old driver with 5-wide fields and a single temp column", "[prep][dmon]") {
  const PrepRun r = run_prep_text(fixture("dmon/gtx1070_384_old.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmon);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[0].metric("power_w") == 38.0);
  CHECK(r.events[0].metric("temp_c") == 41.0);
  CHECK_FALSE(r.events[0].metric("mem_temp_c"));
  CHECK(r.events[1].metric("temp_c") == 63.0);
  CHECK(r.events[2].metric("temp_c") == 65.0);
  CHECK(r.events[1].metric("sm_pct") == 99.0);
  CHECK(r.events[1].metric("mem_pct") == 47.0);
  CHECK(r.events[2].metric("pclk_mhz") == 1885.0);
  CHECK(r.events[2].metric("mclk_mhz") == 4006.0);
  CHECK_FALSE(r.events[0].metric("jpg_pct"));
  // One GPU: every row is a new cycle.
  CHECK(r.events[0].ts_ns == 0);
  CHECK(r.events[1].ts_ns == kSec);
  CHECK(r.events[2].ts_ns == 2 * kSec);
}

TEST_CASE("prep::dmon: -o DT local times converted with --tz across a DST change", "[prep][dmon]") {
  const std::string text = fixture("dmon/rtx3090_470_DT.txt");
  // Europe/Berlin springs forward on 2024-03-31 at 02:00 CET -> 03:00 CEST.
  const PrepRun r = run_prep_text(text, {}, "Europe/Berlin");
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 3, 31, 0, 59, 58));  // 01:59:58 CET (+01:00)
  CHECK(r.events[1].ts_ns == utc_ns(2024, 3, 31, 0, 59, 59));
  CHECK(r.events[2].ts_ns == utc_ns(2024, 3, 31, 1, 0, 0));  // 03:00:00 CEST (+02:00)
  CHECK(r.events[3].ts_ns == utc_ns(2024, 3, 31, 1, 0, 1));
  CHECK(r.events[0].gpu == 0);
  CHECK(r.events[0].metric("power_w") == 312.0);
  CHECK(r.events[0].metric("temp_c") == 71.0);
  CHECK_FALSE(r.events[0].metric("mem_temp_c"));
  CHECK(r.events[3].metric("pclk_mhz") == 1890.0);

  // The same file read as UTC: the wall-clock times unchanged.
  const PrepRun u = run_prep_text(text);
  REQUIRE(u.events.size() == 4);
  CHECK(u.events[0].ts_ns == utc_ns(2024, 3, 31, 1, 59, 58));
  CHECK(u.events[2].ts_ns == utc_ns(2024, 3, 31, 3, 0, 0));
}

TEST_CASE("prep::dmon: -o TD is read like -o DT, blank lines in the middle are skipped", "[prep][dmon]") {
  const PrepRun r = run_prep_text(fixture("dmon/a10_535_TD_mutc.txt"), {}, "Asia/Kolkata");
  check_accounting(r);
  CHECK(r.stats.lines == 6);
  CHECK(r.stats.events == 3);
  CHECK(r.stats.ignored == 3);  // two header lines and the blank line
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 3);
  // 14:07:21 IST (+05:30) = 08:37:21Z
  CHECK(r.events[0].ts_ns == utc_ns(2023, 11, 5, 8, 37, 21));
  CHECK(r.events[1].ts_ns == utc_ns(2023, 11, 5, 8, 37, 22));
  CHECK(r.events[2].ts_ns == utc_ns(2023, 11, 5, 8, 37, 23));
  const auto& e = r.events[0];
  CHECK(e.metric("fb_mib") == 18342.0);
  CHECK(e.metric("bar1_mib") == 5.0);
  CHECK(e.metric("ccpm_mib") == 0.0);
  CHECK(e.metric("sm_pct") == 100.0);
  CHECK(e.metric("mem_pct") == 71.0);
  CHECK(e.metric("rxpci_mb_s") == 212.0);
  CHECK(e.metric("txpci_mb_s") == 54.0);
  CHECK(e.metric("mclk_mhz") == 6250.0);
  CHECK(e.metric("pclk_mhz") == 1695.0);
  CHECK_FALSE(e.metric("power_w"));
  CHECK(r.events[2].metric("pclk_mhz") == 1710.0);
}

TEST_CASE("prep::dmon: -o T takes the date from --date and crosses midnight", "[prep][dmon]") {
  const std::string text = fixture("dmon/l4_550_T.txt");
  prep::PrepOptions o;
  o.date = gpucost::parse_civil_date("2024-12-31");
  REQUIRE(o.date.has_value());
  const PrepRun r = run_prep_text(text, o);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 12, 31, 23, 59, 58));
  CHECK(r.events[1].ts_ns == utc_ns(2024, 12, 31, 23, 59, 59));
  CHECK(r.events[2].ts_ns == utc_ns(2025, 1, 1, 0, 0, 0));  // next day, next year
  CHECK(r.events[3].ts_ns == utc_ns(2025, 1, 1, 0, 0, 1));
  CHECK(r.events[0].metric("power_w") == 71.0);
  CHECK(r.events[2].metric("pclk_mhz") == 2025.0);

  // Without --date: day 0 of the relative clock, still rolling over at midnight, and a note.
  const PrepRun rel = run_prep_text(text);
  check_accounting(rel);
  REQUIRE(rel.events.size() == 4);
  CHECK(rel.stats.time_basis == gpucost::TimeBasis::relative);
  CHECK(rel.events[0].ts_ns == (23 * 3600 + 59 * 60 + 58) * kSec);
  CHECK(rel.events[2].ts_ns == 86400 * kSec);
  CHECK(rel.events[3].ts_ns == 86401 * kSec);
  bool noted = false;
  for (const auto& n : rel.stats.notes) noted = noted || n.find("--date") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("prep::dmon: -o T over a night with a DST change uses the offset of the rolled-over day", "[prep][dmon]") {
  // Europe/Berlin, --date 2024-03-30: the capture runs past midnight into 2024-03-31, when the
  // clocks go from 02:00 CET to 03:00 CEST.
  const std::string text =
      "#Time        gpu    pwr  gtemp \n"
      "#HH:MM:SS    Idx      W      C \n"
      " 23:59:59      0     70     58 \n"
      " 00:00:00      0     71     58 \n"
      " 01:59:59      0     71     59 \n"
      " 03:00:00      0     72     59 \n";
  prep::PrepOptions o;
  o.date = gpucost::parse_civil_date("2024-03-30");
  const PrepRun r = run_prep_text(text, o, "Europe/Berlin");
  check_accounting(r);
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 3, 30, 22, 59, 59));
  CHECK(r.events[1].ts_ns == utc_ns(2024, 3, 30, 23, 0, 0));
  CHECK(r.events[2].ts_ns == utc_ns(2024, 3, 31, 0, 59, 59));
  CHECK(r.events[3].ts_ns == utc_ns(2024, 3, 31, 1, 0, 0));  // 03:00 CEST, one second later
}

TEST_CASE("prep::dmon: no time column: --start + cycle x --interval, cycles split on the GPU index", "[prep][dmon]") {
  const std::string text = fixture("dmon/a100x8_535_s_pc.txt");
  const PrepRun r = run_prep_text(text, with_start("2024-06-12T10:00:00Z", 2.0));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(r.events.size() == 16);
  const std::int64_t t0 = utc_ns(2024, 6, 12, 10, 0, 0);
  for (std::size_t i = 0; i < 16; ++i) {
    INFO("row " << i);
    CHECK(r.events[i].gpu == static_cast<int>(i % 8));
    CHECK(r.events[i].ts_ns == t0 + static_cast<std::int64_t>(i / 8) * 2 * kSec);
  }
  // cycle 1, GPU 1: pwr 88+7+150, gtemp 33+1+9, mtemp 31+1+8
  CHECK(r.events[9].metric("power_w") == 245.0);
  CHECK(r.events[9].metric("temp_c") == 43.0);
  CHECK(r.events[9].metric("mem_temp_c") == 40.0);
  CHECK(r.events[9].metric("mclk_mhz") == 1593.0);
  CHECK(r.events[9].metric("pclk_mhz") == 1410.0);
  CHECK_FALSE(r.events[9].metric("sm_pct"));

  // A --start without an offset is local wall-clock time of --tz.
  const PrepRun l = run_prep_text(text, with_start("2024-06-12T10:00:00", 2.0), "Europe/Berlin");
  REQUIRE(l.events.size() == 16);
  CHECK(l.stats.time_basis == gpucost::TimeBasis::local);
  CHECK(l.events[0].ts_ns == utc_ns(2024, 6, 12, 8, 0, 0));
  CHECK(l.events[15].ts_ns == utc_ns(2024, 6, 12, 8, 0, 2));
}

TEST_CASE("prep::dmon: a repeated header pair with another -s order remaps the columns", "[prep][dmon]") {
  const PrepRun r = run_prep_text(fixture("dmon/a10_535_header_change.txt"));
  check_accounting(r);
  CHECK(r.stats.lines == 8);
  CHECK(r.stats.ignored == 4);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 4);
  // -s mutc rows
  CHECK(r.events[0].metric("fb_mib") == 1203.0);
  CHECK(r.events[0].metric("bar1_mib") == 3.0);
  CHECK(r.events[0].metric("mclk_mhz") == 405.0);
  CHECK(r.events[1].metric("rxpci_mb_s") == 1.0);
  CHECK_FALSE(r.events[0].metric("power_w"));
  // -s puc rows
  CHECK(r.events[2].metric("power_w") == 58.0);
  CHECK(r.events[2].metric("temp_c") == 36.0);
  CHECK_FALSE(r.events[2].metric("fb_mib"));
  CHECK_FALSE(r.events[2].metric("mem_temp_c"));
  CHECK(r.events[3].metric("power_w") == 149.0);
  CHECK(r.events[3].metric("sm_pct") == 98.0);
  CHECK(r.events[3].metric("pclk_mhz") == 1695.0);
  for (std::size_t i = 0; i < 4; ++i) CHECK(r.events[i].ts_ns == static_cast<std::int64_t>(i) * kSec);
}

TEST_CASE("prep::dmon: MIG mode rows have '-' utilisation and numeric power, temperature, clocks", "[prep][dmon]") {
  const PrepRun r = run_prep_text(fixture("dmon/h100mig_590.txt"));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  for (const auto& e : r.events) {
    CHECK(e.metric("power_w").has_value());
    CHECK(e.metric("temp_c") == 38.0);
    CHECK(e.metric("mem_temp_c") == 45.0);
    CHECK(e.metric("mclk_mhz") == 2619.0);
    CHECK(e.metric("pclk_mhz") == 1980.0);
    for (const char* k : {"sm_pct", "mem_pct", "enc_pct", "dec_pct", "jpg_pct", "ofa_pct"}) CHECK_FALSE(e.metric(k));
    CHECK(e.metrics.size() == 5);
  }
  CHECK(r.events[0].metric("power_w") == 96.0);
  CHECK(r.events[1].metric("power_w") == 97.0);
}

TEST_CASE("prep::dmon: an unknown column is kept as an extra field under its name", "[prep][dmon]") {
  // Synthetic: a column name no driver gpucost knows prints, in the 590 layout.
  const std::string text =
      "# gpu    pwr  gtemp  nvlbw   pclk \n"
      "# Idx      W      C   MB/s    MHz \n"
      "    0    301     70     17   1980 \n"
      "    0    305     71      -   1980 \n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].fields.at("nvlbw") == "17");
  CHECK(r.events[0].metric("power_w") == 301.0);
  CHECK(r.events[0].metric("pclk_mhz") == 1980.0);
  CHECK(r.events[1].fields.count("nvlbw") == 0);  // "-": nothing to keep
}

TEST_CASE("prep::dmon: a row with the wrong token count is malformed with a reason", "[prep][dmon]") {
  std::string text = fixture("dmon/rtx6000ada_x2_595_default.txt");
  text += "    0    290     67      -     95     40      0      0      0   10001   2490 \n";  // 11 of 12
  text += "    x    290     67      -     95     40      0      0      0      0   10001   2490 \n";
  text += "    1    290     67      -     95     40      0      0      0      0   10001   fast \n";
  text += "    1    nan     67      -     95     40      0      0      0      0   10001   2490 \n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.lines == 12);
  CHECK(r.stats.events == 6);
  CHECK(r.stats.malformed == 4);
  REQUIRE(r.stats.examples.size() == 4);
  CHECK(r.stats.examples[0].line == 9);
  CHECK(r.stats.examples[0].reason == "expected 12 columns as in the header, found 11");
  CHECK(r.stats.examples[0].excerpt.find("10001   2490") != std::string::npos);
  CHECK(r.stats.examples[1].line == 10);
  CHECK(r.stats.examples[1].reason.find("gpu") != std::string::npos);
  CHECK(r.stats.examples[2].line == 11);
  CHECK(r.stats.examples[2].reason.find("pclk") != std::string::npos);
  CHECK(r.stats.examples[3].reason.find("pwr") != std::string::npos);  // not a finite number
}

TEST_CASE("prep::dmon: a data row before any header is malformed", "[prep][dmon]") {
  prep::PrepOptions o;
  o.forced = gpucost::Format::dmon;  // the first line is data, so detection alone would not say dmon
  const std::string text = "    0    287     66      -     91     38      0      0      0      0  10001   2505 \n" +
                           fixture("dmon/rtx6000ada_x2_595_default.txt");
  const PrepRun r = run_prep_text(text, o);
  check_accounting(r);
  CHECK(r.stats.lines == 9);
  CHECK(r.stats.malformed == 1);
  CHECK(r.stats.events == 6);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 1);
  CHECK(r.stats.examples[0].reason.find("before any") != std::string::npos);
}

TEST_CASE("prep::dmon: a unit line without its name line and other comments are ignored", "[prep][dmon]") {
  const std::string text =
      "# gpu    pwr  gtemp \n"
      "# Idx      W      C \n"
      "# dmon restarted by cron \n"
      "# Idx      C      W \n"  // a stray unit line: must not change anything
      "    0    120     40 \n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.ignored == 4);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].metric("power_w") == 120.0);
  CHECK(r.events[0].metric("temp_c") == 40.0);
}

TEST_CASE("prep::dmon: a DST fall-back is named, not counted as the clock going back", "[prep][dmon][dst]") {
  // Europe/Berlin goes back on 2024-10-27 at 03:00 CEST -> 02:00 CET; dmon -o DT -d 300 logs
  // 02:45-02:55 CEST, then 02:00-02:55 again (CET), then 03:00 and 03:05 CET.
  const std::string text = fixture("dmon/rtx3090_470_DT_fallback.txt");
  const PrepRun r = run_prep_text(text, {}, "Europe/Berlin");
  check_accounting(r);
  REQUIRE(r.events.size() == 17);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 10, 27, 0, 45, 0));  // 02:45 CEST
  CHECK(r.events[3].ts_ns == utc_ns(2024, 10, 27, 0, 0, 0));   // 02:00 CET, placed at 02:00 CEST
  CHECK(r.events[15].ts_ns == utc_ns(2024, 10, 27, 2, 0, 0));  // 03:00 CET
  REQUIRE(r.stats.repeated_hours.size() == 1);
  CHECK(r.stats.repeated_hours[0].events == 15);
  CHECK(r.stats.repeated_hours[0].step_line == 6);
  CHECK(r.stats.clock_anomalies.steps_back == 0);  // the step back at line 6 is the DST change
  CHECK(r.stats.clock_anomalies.gaps == 0);        // and 02:55 -> 03:00 CET is 5 min, not 65
  REQUIRE(r.stats.notes.size() == 1);
  CHECK(r.stats.notes[0] ==
        "clocks went back at 03:00 CEST\u2192CET on 2024-10-27 (Europe/Berlin): 15 events in the repeated hour "
        "02:00\u201303:00 are placed at its first occurrence (CEST); the times step back 55 min 0 s at line 6, where "
        "the hour repeats: the events logged from there until 03:00 CET are placed 1 h early");

  // Read as UTC the same lines step back for no reason the zone gives: the clock goes back.
  const PrepRun u = run_prep_text(text);
  CHECK(u.stats.repeated_hours.empty());
  CHECK(u.stats.clock_anomalies.steps_back == 1);
  REQUIRE_FALSE(u.stats.notes.empty());
  CHECK(u.stats.notes[0].rfind("the clock goes back 1 time (the largest step 55 min 0 s at line 6)", 0) == 0);
}

namespace {

/// Every event as one line of text, with each metric's value and the verbatim digits it keeps
/// (what the event stream writes), so two runs can be compared whole.
class TextSink final : public gpucost::EventSink {
 public:
  std::vector<std::string> events;
  void on_event(const gpucost::Event& ev) override {
    std::string s = fmt::format("{} gpu {}", ev.ts_ns, ev.gpu);
    for (std::size_t i = 0; i < gpucost::kMetricCount; ++i) {
      if (ev.has(static_cast<gpucost::Metric>(i)))
        s += fmt::format(" {}={}'{}'", gpucost::kMetricInfo[i].key, ev.values[i], ev.texts[i]);
    }
    for (const gpucost::Field& f : ev.fields) s += fmt::format(" {}:{}", f.key, f.value);
    events.push_back(std::move(s));
  }
};

struct TextRun {
  std::vector<std::string> events;
  std::vector<std::string> reasons;  // of the malformed rows, with their line numbers
};

TextRun run_text(const std::string& text) {
  auto reader = gpucost::io::LineReader::from_string(text);
  auto clock = gpucost::LocalClock::make("UTC");
  TextSink sink;
  gpucost::InputStats stats;
  stats.path = "test";
  prep::PrepOptions o = with_start("2024-06-12T10:00:00Z", 1.0);
  o.date = gpucost::parse_civil_date("2024-06-12");
  REQUIRE(static_cast<bool>(prep::run_prep_input(*reader, o, *clock, sink, stats)));
  TextRun run{std::move(sink.events), {}};
  for (const auto& e : stats.examples) run.reasons.push_back(fmt::format("{}: {}", e.line, e.reason));
  return run;
}

}  // namespace

TEST_CASE("prep::dmon: the one-pass row and the general path read every row alike", "[prep][dmon]") {
  // Rows of at most 127 bytes take the one-pass read (parse_dmon.cpp, read_plain_row); the same
  // row with its blanks widened past 127 bytes takes the general path. Cells of every kind: plain
  // numbers, leading zeros, fractions, signs, exponents, markers, junk; rows with a cell too few or
  // too many; tabs and runs of blanks.
  const std::vector<std::string> headers = {
      "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n"
      "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n",
      "#Date       Time        gpu    pwr  gtemp     sm    mem   mclk   pclk \n"
      "#YYYYMMDD   HH:MM:SS    Idx      W      C      %      %    MHz    MHz \n",
      "#Time        gpu    pwr     sm \n#HH:MM:SS    Idx      W      % \n",
  };
  const std::vector<std::string> metric_cells = {
      "0", "515", "2619", "007", "00", "-", "N/A", "1.5", "-3", "+5", "1e3", "nan", "x", "0.25", "1234567890123456"};
  const std::vector<std::string> gpu_cells = {"0", "1", "7", "+2", "007", "x", "1000001", "12345678"};
  std::mt19937 rng(11);
  const auto pick = [&](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
  };
  const auto blanks = [&](bool wide) {
    std::string s(std::uniform_int_distribution<std::size_t>(1, 4)(rng), ' ');
    if (rng() % 5 == 0) s[0] = '\t';
    if (wide) s += std::string(40, ' ');
    return s;
  };
  for (const std::string& header : headers) {
    std::string narrow = header, wide = header;
    const bool has_date = header.find("Date") != std::string::npos;
    const bool has_time = header.find("Time") != std::string::npos;
    const std::size_t metrics = has_date ? 6 : has_time ? 2 : 11;
    for (int row = 0; row < 400; ++row) {
      std::vector<std::string> cells;
      if (has_date) cells.push_back(rng() % 20 == 0 ? "2024061x" : "20240612");
      if (has_time) cells.push_back(fmt::format("10:{:02}:{:02}", row / 60 % 60, row % 60));
      cells.push_back(rng() % 4 == 0 ? pick(gpu_cells) : std::to_string(row % 8));
      for (std::size_t m = 0; m < metrics; ++m)
        cells.push_back(rng() % 3 == 0 ? pick(metric_cells) : pick({"0", "98", "301"}));
      if (rng() % 10 == 0) cells.pop_back();
      if (rng() % 10 == 0) cells.push_back("0");
      std::string n = rng() % 2 == 0 ? "" : blanks(false), w = blanks(true);
      for (std::size_t c = 0; c < cells.size(); ++c) {
        n += (c > 0 ? blanks(false) : "") + cells[c];
        w += (c > 0 ? blanks(true) : "") + cells[c];
      }
      n += rng() % 2 == 0 ? " \n" : "\n";
      w += " \n";
      REQUIRE(w.size() > 128);
      narrow += n;
      wide += w;
    }
    INFO(header);
    const TextRun a = run_text(narrow), b = run_text(wide);
    CHECK(a.events.size() > 100);
    CHECK(a.events == b.events);
    CHECK(a.reasons == b.reasons);
  }
}

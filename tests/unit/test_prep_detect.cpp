// prep: format detection from the head of an input, forced formats, and the errors a user sees
// when nothing fits.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <fstream>
#include <sstream>

using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
namespace prep = gpucost::prep;

namespace {

gpucost::Format detect(const std::string& head, const std::string& fields = {}) {
  prep::PrepOptions o;
  o.fields = fields;
  return prep::detect_format(head, o);
}

}  // namespace

TEST_CASE("prep::detect: each fixture is detected from its head", "[prep][detect]") {
  const std::pair<const char*, gpucost::Format> cases[] = {
      {"dmon/rtx6000ada_x2_595_default.txt", gpucost::Format::dmon},
      {"dmon/gtx1070_384_old.txt", gpucost::Format::dmon},
      {"dmon/rtx3090_470_DT.txt", gpucost::Format::dmon},
      {"dmon/a10_535_TD_mutc.txt", gpucost::Format::dmon},
      {"dmon/l4_550_T.txt", gpucost::Format::dmon},
      {"dmon/a100x8_535_s_pc.txt", gpucost::Format::dmon},
      {"dmon/h100mig_590.txt", gpucost::Format::dmon},
      {"pmon/rtx4090_595_default.txt", gpucost::Format::pmon},
      {"pmon/v100x4_460_s_mu_doubleheader.txt", gpucost::Format::pmon},
      {"pmon/rtx2080s_win_591.txt", gpucost::Format::pmon},
      {"query-csv/rtx3080_gtx1660_units.csv", gpucost::Format::query_csv},
      {"query-csv/v100x2_470_nounits.csv", gpucost::Format::query_csv},
      {"query-csv/a10x2_535_lms.csv", gpucost::Format::query_csv},
      {"query-csv/rtx2080ti_460_throttle.csv", gpucost::Format::query_csv},
  };
  for (const auto& [rel, want] : cases) {
    INFO(rel);
    const std::string text = fixture(rel);
    CHECK(detect(text) == want);
    CHECK(detect(text.substr(0, text.find('\n'))) == want);  // the first line alone is enough
    CHECK(detect("\n\r\n  \n" + text) == want);              // leading blank lines are skipped
    const PrepRun r = run_prep_text(text);
    CHECK(r.status);
    CHECK(r.stats.format == want);
  }
  // A header-less CSV is query-csv only when --fields is given.
  const std::string noheader = fixture("query-csv/t4x2_440_noheader_nounits.csv");
  CHECK(detect(noheader) == gpucost::Format::unknown);
  CHECK(detect(noheader, "name,index,temperature.gpu") == gpucost::Format::query_csv);
}

TEST_CASE("prep::detect: text of no known format is Format::unknown and an error", "[prep][detect]") {
  CHECK(detect("") == gpucost::Format::unknown);
  CHECK(detect("hello world\nthis is not a GPU log\n") == gpucost::Format::unknown);
  CHECK(detect("# some comment\n# gpu pwr\n") == gpucost::Format::unknown);
  CHECK(detect("==============NVSMI LOG==============\n") == gpucost::Format::smi_q);  // nvidia-smi -q

  const PrepRun r = run_prep_text("hello world\nthis is not a GPU log\n");
  REQUIRE_FALSE(r.status);
  CHECK(r.status.error().kind == gpucost::ErrorKind::format);
  CHECK(r.status.error().message.find("cannot recognise") != std::string::npos);
  CHECK(r.status.error().hint.find("--input-format") != std::string::npos);
  CHECK(r.events.empty());
}

TEST_CASE("prep::detect: CSV without a header and without --fields: the hint names --fields", "[prep][detect]") {
  const std::string text = fixture("query-csv/t4x2_440_noheader_nounits.csv");
  const PrepRun r = run_prep_text(text);
  REQUIRE_FALSE(r.status);
  CHECK(r.status.error().kind == gpucost::ErrorKind::format);
  CHECK(r.status.error().hint.find("--fields") != std::string::npos);

  // Forcing query-csv does not help without a field list: same advice.
  prep::PrepOptions forced;
  forced.forced = gpucost::Format::query_csv;
  const PrepRun f = run_prep_text(text, forced);
  REQUIRE_FALSE(f.status);
  CHECK(f.status.error().hint.find("--fields") != std::string::npos);

  // check_format (run on every input before any output) says the same.
  const gpucost::Status up_front = prep::check_format(text, forced, "t4.csv");
  REQUIRE_FALSE(up_front);
  CHECK(up_front.error().message.find("t4.csv") != std::string::npos);
  CHECK(up_front.error().hint.find("--fields") != std::string::npos);
  CHECK_FALSE(prep::check_format(text, prep::PrepOptions{}, "t4.csv"));
  forced.fields = "name,index,temperature.gpu,utilization.gpu,memory.used,power.draw,clocks.gr,clocks.mem";
  CHECK(prep::check_format(text, forced, "t4.csv"));
  const PrepRun ok = run_prep_text(text, forced);
  REQUIRE(ok.status);
  CHECK(ok.stats.events == 4);
  CHECK(prep::check_format(fixture("query-csv/a10x2_535_lms.csv"), prep::PrepOptions{}, "a10.csv"));
}

TEST_CASE("prep::detect: a forced format is used even when detection would fail", "[prep][detect]") {
  // A dmon capture that starts with a comment line of its own: not detected, parsed when forced.
  const std::string text = "# captured by run_job.sh\n" + fixture("dmon/rtx6000ada_x2_595_default.txt");
  CHECK(detect(text) == gpucost::Format::unknown);
  REQUIRE_FALSE(run_prep_text(text).status);
  prep::PrepOptions o;
  o.forced = gpucost::Format::dmon;
  const PrepRun r = run_prep_text(text, o);
  REQUIRE(r.status);
  CHECK(r.stats.format == gpucost::Format::dmon);
  CHECK(r.stats.events == 6);
  CHECK(r.stats.ignored == 3);
  CHECK(r.stats.malformed == 0);

  // Forcing the wrong format: nothing is an event, every line is accounted for.
  o.forced = gpucost::Format::pmon;
  const PrepRun wrong = run_prep_text(fixture("query-csv/a10x2_535_lms.csv"), o);
  REQUIRE(wrong.status);
  CHECK(wrong.stats.format == gpucost::Format::pmon);
  CHECK(wrong.stats.events == 0);
  CHECK(wrong.stats.lines == 5);
  CHECK(wrong.stats.lines == wrong.stats.ignored + wrong.stats.malformed);
}

TEST_CASE("prep::detect: an empty input is no error and no event", "[prep][detect]") {
  const PrepRun r = run_prep_text("\n\n");
  REQUIRE(r.status);
  CHECK(r.stats.format == gpucost::Format::unknown);
  CHECK(r.stats.lines == 2);
  CHECK(r.stats.ignored == 2);
  CHECK(r.events.empty());
}

TEST_CASE("prep::detect: format names round-trip", "[prep][detect]") {
  for (gpucost::Format f : {gpucost::Format::dmon, gpucost::Format::pmon, gpucost::Format::query_csv}) {
    gpucost::Format back = gpucost::Format::unknown;
    REQUIRE(format_from_name(format_name(f), back));
    CHECK(back == f);
  }
  gpucost::Format f = gpucost::Format::unknown;
  CHECK(format_from_name("csv", f));
  CHECK(f == gpucost::Format::query_csv);
  CHECK(format_from_name("query_csv", f));
  CHECK(format_from_name("smi-q", f));
  CHECK(f == gpucost::Format::smi_q);
  CHECK_FALSE(format_from_name("no-such-format", f));
  CHECK(format_name(gpucost::Format::unknown) == "unknown");
}

// prep: dcgmi dmon (docs/formats.md, "dcgmi dmon"). Fixtures in testdata/dcgmi are hand-made with the padding
// rules of DCGM's DeviceMonitor for the version named in their file name; expectations below are
// read off the fixtures by hand.
#include <catch2/catch.hpp>

#include "support.hpp"

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

prep::PrepOptions with_start(const char* iso, double interval_s) {
  prep::PrepOptions o;
  o.start = gpucost::parse_iso8601(iso);
  REQUIRE(o.start.has_value());
  o.interval_s = interval_s;
  return o;
}

}  // namespace

TEST_CASE("prep::dcgmi: DCGM 4.x, 8 GPUs, profiling ratios, N/A, trailing spaces", "[prep][dcgmi]") {
  const PrepRun r = run_prep_text(fixture("dcgmi/a100x8_dcgm42_prof.txt"), with_start("2025-02-10T09:30:00Z", 1.0));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dcgmi);
  CHECK(r.stats.lines == 21);
  CHECK(r.stats.events == 16);
  CHECK(r.stats.event_lines == 16);
  CHECK(r.stats.ignored == 5);  // header pair, 2 blank lines, "dmon was stopped due to receiving a signal"
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(r.events.size() == 16);

  const auto& a = r.events[0];  // GPU 0, first cycle: profiling not active yet
  CHECK(a.source == "dcgmi");
  CHECK(a.kind == "sample");
  CHECK(a.gpu == 0);
  CHECK(a.ts_ns == utc_ns(2025, 2, 10, 9, 30, 0));
  CHECK(a.metric("power_w") == 61.5);
  CHECK(a.metric("temp_c") == 33.0);
  CHECK(a.metric("sm_pct") == 0.0);  // GPUTL = utilization.gpu
  CHECK(field(a, "smact") == "<absent>");
  CHECK(a.metrics.size() == 3);

  const auto& b = r.events[10];  // GPU 2, second cycle
  CHECK(b.gpu == 2);
  CHECK(b.ts_ns == utc_ns(2025, 2, 10, 9, 30, 1));
  CHECK(b.metric("power_w") == 305.771);
  CHECK(b.metric("temp_c") == 60.0);
  CHECK(b.metric("sm_pct") == 98.0);
  CHECK(field(b, "gract") == "0.984");
  CHECK(field(b, "smact") == "0.917");
  CHECK(field(b, "tenso") == "0.440");
  CHECK(field(b, "drama") == "0.523");
  CHECK_FALSE(b.metric("mem_pct"));

  const auto& c = r.events[14];  // GPU 6, second cycle: every value N/A
  CHECK(c.gpu == 6);
  CHECK(c.metrics.empty());
  CHECK(c.fields.empty());
  CHECK(r.events[15].gpu == 7);
  CHECK(r.events[15].ts_ns == r.events[7].ts_ns + kSec);
}

TEST_CASE("prep::dcgmi: profiling ratios are top-level numeric fields", "[prep][dcgmi]") {
  // The event as it is written: known DCGM fields outside "extra", numbers unquoted.
  const std::string text =
      "#Entity   SMACT        NEWFL        \n"
      "ID                                  \n"
      "GPU 3     0.500        12           \n";
  auto reader = gpucost::io::LineReader::from_string(text);
  auto clock = gpucost::LocalClock::utc();
  struct Seen {
    std::string key;
    bool numeric, extra;
  };
  struct Sink final : gpucost::EventSink {
    std::vector<Seen> fields;  // copies: the event's views die with the parser
    void on_event(const gpucost::Event& ev) override {
      for (const auto& f : ev.fields) fields.push_back(Seen{std::string(f.key), f.numeric, f.extra});
    }
  } sink;
  gpucost::InputStats stats;
  REQUIRE(prep::run_prep_input(*reader, prep::PrepOptions{}, clock, sink, stats));
  REQUIRE(sink.fields.size() == 2);
  CHECK(sink.fields[0].key == "smact");
  CHECK(sink.fields[0].numeric);
  CHECK_FALSE(sink.fields[0].extra);
  CHECK(sink.fields[1].key == "newfl");  // a short name gpucost does not know: kept, under extra
  CHECK(sink.fields[1].numeric);
  CHECK(sink.fields[1].extra);
}

TEST_CASE("prep::dcgmi: DCGM 2.x '# Entity' header and right-aligned 'Id' line", "[prep][dcgmi]") {
  const PrepRun r = run_prep_text(fixture("dcgmi/v100x4_dcgm2_old_header.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dcgmi);
  CHECK(r.stats.events == 8);
  CHECK(r.stats.ignored == 2);
  CHECK(r.stats.malformed == 0);
  // No --start: relative clock, 1 s per cycle (dcgmi -d defaults to 1000 ms).
  CHECK(r.stats.time_basis == gpucost::TimeBasis::relative);
  REQUIRE(r.events.size() == 8);
  CHECK(r.events[3].gpu == 3);
  CHECK(r.events[3].ts_ns == 0);
  CHECK(r.events[4].gpu == 0);
  CHECK(r.events[4].ts_ns == kSec);
  CHECK(r.events[4].metric("power_w") == 215.0);
  CHECK(r.events[4].metric("temp_c") == 62.0);
  CHECK(field(r.events[4], "tenso") == "0.420");
}

TEST_CASE("prep::dcgmi: MIG instances follow their GPU, cycles by repeated entity", "[prep][dcgmi]") {
  const PrepRun r = run_prep_text(fixture("dcgmi/h100x2_mig_dcgm35.txt"), with_start("2025-05-01T12:00:00Z", 0.5));
  check_accounting(r);
  CHECK(r.stats.events == 12);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 12);
  const auto& gpu0 = r.events[0];
  CHECK(gpu0.kind == "sample");
  CHECK(gpu0.gpu == 0);
  CHECK(gpu0.metric("power_w") == 402.117);
  const auto& gi = r.events[1];  // GPU-I 1 of GPU 0
  CHECK(gi.kind == "entity_sample");
  CHECK(gi.gpu == 0);
  CHECK(field(gi, "entity") == "GPU-I");
  CHECK(field(gi, "entity_id") == "1");
  CHECK_FALSE(gi.metric("power_w"));
  CHECK(field(gi, "smact") == "0.882");
  const auto& ci = r.events[4];  // GPU-CI 1 of GPU 0 (ids of instances are not GPU indices)
  CHECK(ci.kind == "entity_sample");
  CHECK(ci.gpu == 0);
  CHECK(field(ci, "entity") == "GPU-CI");
  CHECK(field(ci, "entity_id") == "1");
  CHECK(r.events[5].gpu == 1);
  CHECK(r.events[5].kind == "sample");
  // All six rows of a cycle share its time; the second cycle starts at GPU 0 again.
  CHECK(r.events[5].ts_ns == utc_ns(2025, 5, 1, 12, 0, 0));
  CHECK(r.events[6].ts_ns == utc_ns(2025, 5, 1, 12, 0, 0, 500));
  CHECK(r.events[6].metric("power_w") == 398.604);
  CHECK(r.events[11].ts_ns == utc_ns(2025, 5, 1, 12, 0, 0, 500));
}

TEST_CASE("prep::dcgmi: a string field with spaces is cut at the header's columns", "[prep][dcgmi]") {
  const PrepRun r =
      run_prep_text(fixture("dcgmi/l40sx2_dcgm33_dvnam.txt"), with_start("2025-01-20T08:00:00+01:00", 2.0));
  check_accounting(r);
  CHECK(r.stats.events == 4);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 4);
  const auto& e = r.events[1];
  CHECK(e.gpu == 1);
  CHECK(e.ts_ns == utc_ns(2025, 1, 20, 7, 0, 0));
  CHECK(field(e, "dvnam") == "NVIDIA L40S");
  CHECK(e.metric("power_w") == 301.562);
  CHECK(e.metric("temp_c") == 74.0);
  CHECK(e.metric("power_limit_w") == 350.0);  // EPLMT, the enforced limit
  CHECK(field(e, "totec") == "948812306");    // energy counter, mJ
  CHECK(r.events[3].ts_ns == utc_ns(2025, 1, 20, 7, 0, 2));
}

TEST_CASE("prep::dcgmi: an error instead of data is malformed and noted", "[prep][dcgmi]") {
  const PrepRun r = run_prep_text(fixture("dcgmi/rtx4090_dcgm33_watch_error.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dcgmi);
  CHECK(r.stats.lines == 3);
  CHECK(r.stats.events == 0);
  CHECK(r.stats.ignored == 2);
  CHECK(r.stats.malformed == 1);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 3);
  CHECK(r.stats.examples[0].reason == "dcgmi error message instead of data");
  bool noted = false;
  for (const auto& n : r.stats.notes)
    noted = noted || n.find("Error setting watches. Result: -29") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("prep::dcgmi: rows that do not fit the header", "[prep][dcgmi]") {
  const std::string text =
      "GPU 0     250.000\n"  // before any header
      "#Entity   POWER             TMPTR        \n"
      "ID         W                 C            \n"
      "GPU 0     250.000           61           \n"
      "GPU 1     abc               60           \n"  // not a number
      "GPU 2     249.000\n"                          // a value missing
      "Unable to get GPU topology information. The entities in the output may be unsorted. Error: -1\n"
      "bogus line\n";
  // Detection needs the header first: the input is read as dcgmi only when forced.
  CHECK(prep::detect_format(text, prep::PrepOptions{}) == gpucost::Format::unknown);
  const PrepRun forced = [&] {
    prep::PrepOptions o;
    o.forced = gpucost::Format::dcgmi;
    return run_prep_text(text, o);
  }();
  check_accounting(forced);
  CHECK(forced.stats.events == 1);
  CHECK(forced.stats.ignored == 3);  // header pair, the topology warning
  CHECK(forced.stats.malformed == 4);
  REQUIRE(forced.stats.examples.size() == 4);
  CHECK(forced.stats.examples[0].reason == "data row before any '#Entity ...' header line");
  CHECK(forced.stats.examples[1].reason == "column 'POWER' is not a number");
  CHECK(forced.stats.examples[2].reason == "expected 2 values as in the header, found 1");
  CHECK(forced.stats.examples[3].line == 8);
}

TEST_CASE("prep::dcgmi: detection of both header shapes", "[prep][dcgmi][detect]") {
  const prep::PrepOptions o;
  CHECK(prep::detect_format("#Entity   POWER\nID\n", o) == gpucost::Format::dcgmi);
  CHECK(prep::detect_format("# Entity  TENSO\n      Id\n", o) == gpucost::Format::dcgmi);
  CHECK(prep::detect_format(fixture("dcgmi/h100x2_mig_dcgm35.txt"), o) == gpucost::Format::dcgmi);
  gpucost::Format f{};
  REQUIRE(format_from_name("dcgmi", f));
  CHECK(f == gpucost::Format::dcgmi);
}

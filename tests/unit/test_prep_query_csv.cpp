// prep: nvidia-smi --query-gpu=... --format=csv (docs/formats.md, "nvidia-smi --query-gpu").
// Fixtures in testdata/query-csv are hand-written in the byte shape of the driver named in their
// file name; expectations below are computed by hand from them.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("file " << path);
  REQUIRE(in.good());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("prep::query-csv: plain csv repeats the unit after every value", "[prep][query-csv]") {
  const PrepRun r = run_prep_text(fixture("query-csv/rtx3080_gtx1660_units.csv"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::query_csv);
  CHECK(r.stats.lines == 5);
  CHECK(r.stats.ignored == 1);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 4);
  const auto& e = r.events[0];
  CHECK(e.source == "query-csv");
  CHECK(e.kind == "sample");
  CHECK(field(e, "name") == "NVIDIA GeForce RTX 3080");
  CHECK(e.metric("fan_pct") == 41.0);
  CHECK(e.metric("fb_total_mib") == 10240.0);
  CHECK(e.metric("fb_mib") == 7321.0);
  CHECK(e.metric("sm_pct") == 93.0);
  CHECK(e.metric("temp_c") == 71.0);
  CHECK(e.metric("power_w") == 301.45);
  CHECK(e.metric("pclk_mhz") == 1905.0);  // clocks.current.graphics: the only SM clock here
  CHECK(e.metric("mclk_mhz") == 9501.0);
  CHECK(e.metrics.size() == 8);
  CHECK(r.events[1].metric("power_w") == 9.87);
  CHECK(r.events[1].metric("fb_mib") == 5.0);
  CHECK(field(r.events[1], "name") == "NVIDIA GeForce GTX 1660 SUPER");
  CHECK(r.events[3].metric("power_w") == 10.12);
}

TEST_CASE("prep::query-csv: without index or bus id, rows are keyed by position within the sample",
          "[prep][query-csv]") {
  const PrepRun r = run_prep_text(fixture("query-csv/rtx3080_gtx1660_units.csv"));
  check_accounting(r);
  REQUIRE(r.events.size() == 4);
  const int want_gpu[] = {0, 1, 0, 1};
  const std::int64_t want_ts[] = {0, 0, kSec, kSec};  // no timestamp, no --start: relative, 1 s
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("row " << i);
    CHECK(r.events[i].gpu == want_gpu[i]);
    CHECK(r.events[i].ts_ns == want_ts[i]);
  }
  CHECK(r.stats.time_basis == gpucost::TimeBasis::relative);
}

TEST_CASE("prep::query-csv: nounits keeps [unit] in the header, [N/A] is null", "[prep][query-csv]") {
  const std::string text = fixture("query-csv/v100x2_470_nounits.csv");
  REQUIRE(text.back() != '\n');  // this capture has no final newline
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.lines == 3);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  const auto& e = r.events[0];
  CHECK(e.gpu == 0);
  CHECK(r.events[1].gpu == 1);
  CHECK(field(e, "uuid") == "GPU-3f9a6c1e-7d52-4b0a-9e81-2c4d5f6a7b8c");
  CHECK(field(e, "name") == "Tesla V100-SXM2-32GB");
  CHECK_FALSE(e.metric("fan_pct"));
  CHECK(e.fields.count("fan.speed") == 0);
  CHECK(e.metric("pstate") == 0.0);
  CHECK(e.metric("fb_mib") == 24511.0);
  CHECK(e.metric("fb_total_mib") == 32768.0);
  CHECK(e.metric("sm_pct") == 87.0);
  CHECK(e.metric("mem_pct") == 45.0);
  CHECK(e.metric("temp_c") == 58.0);
  CHECK(e.metric("power_w") == 243.87);
  CHECK(e.metric("pclk_mhz") == 1530.0);
  CHECK(e.metric("mclk_mhz") == 877.0);
  CHECK(r.events[1].metric("power_w") == 236.10);
  // index 0 and 1 belong to one sample
  CHECK(r.events[0].ts_ns == r.events[1].ts_ns);
}

TEST_CASE("prep::query-csv: noheader,nounits with --fields aliases, bare N/A is null", "[prep][query-csv]") {
  prep::PrepOptions o;
  o.fields = "gpu_name,index,temperature.gpu,utilization.gpu,memory.used,power.draw,clocks.gr,clocks.mem";
  o.start = gpucost::parse_iso8601("2024-02-29T23:59:58Z");
  REQUIRE(o.start.has_value());
  o.interval_s = 5.0;
  const PrepRun r = run_prep_text(fixture("query-csv/t4x2_440_noheader_nounits.csv"), o);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::query_csv);
  CHECK(r.stats.lines == 4);
  CHECK(r.stats.ignored == 0);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 4);
  const auto& e = r.events[0];
  CHECK(field(e, "name") == "Tesla T4");  // gpu_name -> name
  CHECK(e.gpu == 0);
  CHECK(e.metric("temp_c") == 52.0);
  CHECK(e.metric("sm_pct") == 37.0);
  CHECK(e.metric("fb_mib") == 2143.0);
  CHECK(e.metric("power_w") == 35.12);
  CHECK(e.metric("pclk_mhz") == 1590.0);  // clocks.gr -> clocks.current.graphics
  CHECK(e.metric("mclk_mhz") == 5000.0);  // clocks.mem -> clocks.current.memory
  CHECK(r.events[1].gpu == 1);
  CHECK_FALSE(r.events[1].metric("power_w"));  // bare N/A (driver 440 nounits)
  CHECK(r.events[1].metric("pclk_mhz") == 300.0);
  const std::int64_t t0 = utc_ns(2024, 2, 29, 23, 59, 58);
  CHECK(r.events[0].ts_ns == t0);
  CHECK(r.events[1].ts_ns == t0);
  CHECK(r.events[2].ts_ns == utc_ns(2024, 3, 1, 0, 0, 3));
  CHECK(r.events[3].ts_ns == utc_ns(2024, 3, 1, 0, 0, 3));
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
}

TEST_CASE("prep::query-csv: noheader with units: --fields supplies the units to strip", "[prep][query-csv]") {
  prep::PrepOptions o;
  o.fields = "index, utilization.gpu, memory.used, power.draw, clocks.sm, temperature.gpu";
  const PrepRun r = run_prep_text("0, 37 %, 2143 MiB, 35.12 W, 1590 MHz, 52\n1, 0 %, 0 MiB, [N/A], 300 MHz, 41\n", o);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].metric("sm_pct") == 37.0);
  CHECK(r.events[0].metric("fb_mib") == 2143.0);
  CHECK(r.events[0].metric("power_w") == 35.12);
  CHECK(r.events[0].metric("pclk_mhz") == 1590.0);
  CHECK(r.events[0].metric("temp_c") == 52.0);
  CHECK(r.events[1].gpu == 1);
  CHECK_FALSE(r.events[1].metric("power_w"));
}

TEST_CASE("prep::query-csv: noheader with --fields whose first row is all words is still data", "[prep][query-csv]") {
  prep::PrepOptions o;
  o.fields = "persistence_mode,display_mode,pstate";
  const PrepRun r = run_prep_text("Enabled, Disabled, P0\nEnabled, Disabled, P8\n", o);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].metric("pstate") == 0.0);
  CHECK(r.events[1].metric("pstate") == 8.0);
  CHECK(field(r.events[0], "persistence_mode") == "Enabled");
}

TEST_CASE("prep::query-csv: timestamp is local time of --tz (America/New_York, EDT and EST)", "[prep][query-csv]") {
  // June: EDT = UTC-4; -lms rows of one sample carry different milliseconds.
  const PrepRun r = run_prep_text(fixture("query-csv/a10x2_535_lms.csv"), {}, "America/New_York");
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 12, 18, 22, 18, 123));
  CHECK(r.events[1].ts_ns == utc_ns(2024, 6, 12, 18, 22, 18, 127));
  CHECK(r.events[2].ts_ns == utc_ns(2024, 6, 12, 18, 22, 18, 374));
  CHECK(r.events[3].ts_ns == utc_ns(2024, 6, 12, 18, 22, 18, 378));
  const int want_gpu[] = {0, 1, 0, 1};
  for (std::size_t i = 0; i < 4; ++i) CHECK(r.events[i].gpu == want_gpu[i]);
  CHECK(field(r.events[1], "pci_bus_id") == "00000000:65:00.0");
  CHECK(r.events[0].metric("power_w") == 148.33);
  CHECK(r.events[0].metric("sm_pct") == 99.0);
  CHECK(r.events[0].metric("temp_c") == 67.0);
  CHECK(r.events[0].metric("pclk_mhz") == 1695.0);
  CHECK(r.events[3].metric("power_w") == 60.97);

  // January: EST = UTC-5. Keyed by pci.bus_id only: GPUs numbered in order of first appearance.
  const PrepRun j = run_prep_text(fixture("query-csv/l40sx2_550_busid.csv"), {}, "America/New_York");
  check_accounting(j);
  CHECK(j.stats.malformed == 0);
  REQUIRE(j.events.size() == 4);
  CHECK(j.events[0].ts_ns == utc_ns(2024, 1, 15, 14, 0, 0, 512));
  CHECK(j.events[3].ts_ns == utc_ns(2024, 1, 15, 14, 0, 1, 517));
  const char* want_bus[] = {"00000000:41:00.0", "00000000:A1:00.0", "00000000:41:00.0", "00000000:A1:00.0"};
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("row " << i);
    CHECK(j.events[i].gpu == want_gpu[i]);
    CHECK(field(j.events[i], "pci_bus_id") == want_bus[i]);
    CHECK(field(j.events[i], "name") == "NVIDIA L40S");
  }
  CHECK(j.events[2].metric("power_w") == 291.20);
}

TEST_CASE("prep::query-csv: power.draw beats power.draw.average, clocks.current.sm beats graphics",
          "[prep][query-csv]") {
  const PrepRun r = run_prep_text(fixture("query-csv/rtx4090_590_power.csv"));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 1);
  const auto& e = r.events[0];
  CHECK(e.metric("power_w") == 398.64);
  CHECK(e.metric("pclk_mhz") == 2760.0);
  // the others are kept as plain fields
  CHECK(field(e, "power.draw.average") == "402.17");
  CHECK(field(e, "power.draw.instant") == "411.90");
  CHECK(field(e, "clocks.current.graphics") == "2745");
  CHECK(e.metric("pstate") == 2.0);
  CHECK(e.metric("throttle_mask") == 4.0);
}

TEST_CASE("prep::query-csv: a preferred property that is [N/A] falls back to the next one", "[prep][query-csv]") {
  const std::string text =
      "index, power.draw [W], power.draw.average [W], power.draw.instant [W], clocks.current.sm [MHz], "
      "clocks.current.graphics [MHz]\n"
      "0, [N/A], [N/A], 97.31 W, [N/A], 1905 MHz\n"
      "0, 101.20 W, [N/A], 97.31 W, 1920 MHz, 1905 MHz\n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].metric("power_w") == 97.31);
  CHECK(r.events[0].metric("pclk_mhz") == 1905.0);
  CHECK(r.events[1].metric("power_w") == 101.20);
  CHECK(r.events[1].metric("pclk_mhz") == 1920.0);
}

TEST_CASE("prep::query-csv: clocks_throttle_reasons.active (old name) hex mask, P-state number", "[prep][query-csv]") {
  const PrepRun r = run_prep_text(fixture("query-csv/rtx2080ti_460_throttle.csv"));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].metric("throttle_mask") == 1.0);
  CHECK(r.events[1].metric("throttle_mask") == 511.0);  // 0x1FF
  CHECK(r.events[0].metric("pstate") == 2.0);
  CHECK(r.events[1].metric("pstate") == 8.0);
  CHECK(r.events[0].metric("power_w") == 243.5);
  CHECK(r.events[1].metric("pclk_mhz") == 300.0);
  CHECK(r.events[0].ts_ns == utc_ns(2021, 9, 27, 22, 3, 41, 6));
  CHECK(r.events[1].ts_ns == utc_ns(2021, 9, 27, 22, 3, 42, 9));
}

TEST_CASE("prep::query-csv: [N/A], [Not Supported], deprecated markers are null", "[prep][query-csv]") {
  const PrepRun r = run_prep_text(fixture("query-csv/h100_590_markers.csv"));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 1);
  const auto& e = r.events[0];
  CHECK(e.metric("power_w") == 688.41);
  CHECK(e.metric("mem_temp_c") == 61.0);
  CHECK_FALSE(e.metric("jpg_pct"));  // [Not Supported]
  CHECK_FALSE(e.metric("fan_pct"));  // [N/A]
  CHECK(e.fields.count("display_mode") == 0);
  CHECK(e.fields.count("power.management") == 0);
  CHECK(e.fields.count("clocks.applications.graphics") == 0);
  CHECK(field(e, "name") == "NVIDIA H100 80GB HBM3");
  CHECK(e.ts_ns == utc_ns(2025, 7, 1, 6, 30, 12, 404));
}

TEST_CASE("prep::query-csv: header repeated mid-file, no timestamp, trailing empty line", "[prep][query-csv]") {
  prep::PrepOptions o;
  o.start = gpucost::parse_iso8601("2023-08-01T12:00:00Z");
  o.interval_s = 5.0;
  const PrepRun r = run_prep_text(fixture("query-csv/rtx2070_520_loop_restart.csv"), o);
  check_accounting(r);
  CHECK(r.stats.lines == 6);
  CHECK(r.stats.events == 3);
  CHECK(r.stats.ignored == 3);  // two header lines, the empty last line
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 3);
  const std::int64_t t0 = utc_ns(2023, 8, 1, 12, 0, 0);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(r.events[i].gpu == 0);
    CHECK(r.events[i].ts_ns == t0 + static_cast<std::int64_t>(i) * 5 * kSec);
  }
  CHECK(r.events[0].metric("power_w") == 171.34);
  CHECK(r.events[2].metric("power_w") == 12.55);
  CHECK(r.events[2].metric("pstate") == 8.0);
  CHECK(r.events[2].metric("temp_c") == 45.0);
}

TEST_CASE("prep::query-csv: a very wide row (200+ fields) of every known property", "[prep][query-csv]") {
  // Header and row built from the property table gpucost compiles in (data/...tsv).
  const std::string tsv = read_file(std::string(GPUCOST_SOURCE_DIR) + "/data/nvidia-smi-query-gpu-fields.tsv");
  std::string header, row;
  std::size_t n = 0;
  std::istringstream lines(tsv);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, '\t');) cols.push_back(c);
    REQUIRE(cols.size() >= 3);
    const std::string& name = cols[0];
    const std::string& unit = cols[2];
    std::string value;
    if (name == "timestamp")
      value = "2024/06/12 14:22:18.123";
    else if (name == "index")
      value = "3";
    else if (name == "name")
      value = "NVIDIA H200";
    else if (name == "pstate")
      value = "P0";
    else if (name == "power.draw")
      value = "700.25 W";
    else if (name.rfind("clocks_event_reasons.", 0) == 0)
      value = "0x0000000000000000";
    else if (!unit.empty())
      value = fmt::format("{} {}", n, unit);
    else
      value = std::to_string(n);
    header += (n == 0 ? "" : ", ") + name + (unit.empty() ? "" : " [" + unit + "]");
    row += (n == 0 ? "" : ", ") + value;
    ++n;
  }
  REQUIRE(n >= 200);
  const PrepRun r = run_prep_text(header + "\n" + row + "\n");
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::query_csv);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 1);
  const auto& e = r.events[0];
  CHECK(e.gpu == 3);
  CHECK(e.metric("power_w") == 700.25);
  CHECK(e.metric("pstate") == 0.0);
  CHECK(e.metric("throttle_mask") == 0.0);
  CHECK(e.ts_ns == utc_ns(2024, 6, 12, 14, 22, 18, 123));
  CHECK(e.fields.size() + e.metrics.size() >= 190);
}

TEST_CASE("prep::query-csv: wrong field count and a non-numeric metric are malformed", "[prep][query-csv]") {
  const std::string text =
      "index, power.draw [W], temperature.gpu\n"
      "0, 251.30 W, 66\n"
      "0, 251.30 W, 66, 12\n"
      "0, abc W, 66\n"
      "0, 249.90 W, 65\n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.events == 2);
  CHECK(r.stats.malformed == 2);
  REQUIRE(r.stats.examples.size() == 2);
  CHECK(r.stats.examples[0].line == 3);
  CHECK(r.stats.examples[0].reason == "expected 3 fields as in the header, found 4");
  CHECK(r.stats.examples[1].line == 4);
  CHECK(r.stats.examples[1].reason == "'power.draw' is not a number");
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[1].metric("power_w") == 249.90);
}

TEST_CASE("prep::query-csv: Windows PowerShell's UTF-16 output reads as the UTF-8 one", "[prep][query_csv]") {
  const std::string utf16 = fixture("query-csv/win_rtx4070ti_591_powershell_utf16.csv");
  const PrepRun r = run_prep_text(utf16);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::query_csv);
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[1].metric("power_w") == 244.9);
  CHECK(r.events[1].metric("sm_pct") == 98);
  CHECK(r.events[1].metric("pstate") == 2);  // "P2"
  CHECK(r.events[0].ts_ns == utc_ns(2025, 2, 14, 9, 30, 1, 507));
}

TEST_CASE("prep::query-csv: a one-field header is counted in the singular", "[prep][query-csv]") {
  prep::PrepOptions o;
  o.forced = gpucost::Format::query_csv;
  const PrepRun r = run_prep_text("power.draw [W]\n251.30 W\n249.90 W, 66\n", o);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].reason == "expected 1 field as in the header, found 2");
}

// prep: the format table (src/prep/formats.cpp), row by row: every name and alias leads back to
// its format, and every format is detected from a fixture in the shape of its tool and read by
// its row's parser. A format added to the table without a fixture here fails the test.
#include <catch2/catch.hpp>

#include "prep/formats.hpp"
#include "support.hpp"

#include <map>
#include <set>
#include <string>

using gpucost::test::check_accounting;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
namespace prep = gpucost::prep;

namespace {

// One ordinary input of each format, as its tool writes it (testdata/).
const std::map<std::string, std::string>& fixture_of_format() {
  static const std::map<std::string, std::string> kFixtures = {
      {"dmon", "dmon/gtx1070_384_old.txt"},
      {"pmon", "pmon/rtx4090_595_default.txt"},
      {"query-csv", "query-csv/rtx2080ti_460_throttle.csv"},
      {"journal-json", "journal-json/mw_a3000_pretty_sd252.json"},
      {"dcgmi", "dcgmi/l40sx2_dcgm33_dvnam.txt"},
      {"smi-q", "smi-q/gtx660_331_dPERF_TEMP.txt"},
      {"smi-xml", "smi-xml/t4_515_v11.xml"},
      {"syslog", "kernlog/rsyslog_rfc3339_l40s_550.log"},
      {"dmesg", "dmesg/iso_a100_535_xid94_tokyo.txt"},
      {"journal-text", "journal-text/short_unix_gpu01_xid.txt"},
      {"bug-report", "bug-report/nvidia-bug-report_a100_535.log"},
      {"kineto-trace", "trace/h100_rank3_modern.pt.trace.json"},
      {"torch-table", "torch-table/modern_cuda_memcpy_two_tables.txt"},
      {"nsys", "nsys/nsys2023_stats_csv.txt"},
      {"trainlog", "trainlog/asctime_default.log"},
      {"prometheus-json", "prometheus-json/dcgm_h100x2_10min.json"},
      {"sacct", "sacct/cluster_gpu_jobs.txt"},
      {"exposition", "exposition/dcgm_a100x2_loop.txt"},
  };
  return kFixtures;
}

}  // namespace

TEST_CASE("prep::formats: every Format value has one row, and prep one parser for it", "[prep][formats]") {
  const auto table = gpucost::format_infos();
  std::set<gpucost::Format> formats;
  for (const auto& row : table) {
    CHECK(row.format != gpucost::Format::unknown);
    CHECK(formats.insert(row.format).second);
    CHECK(prep::format_row(row.format) != nullptr);
  }
  CHECK(prep::format_table().size() == table.size());
  // The enum's values after `unknown` are 1..N: each has its row.
  for (std::size_t i = 1; i <= table.size(); ++i)
    CHECK(gpucost::format_info(static_cast<gpucost::Format>(i)) != nullptr);
  CHECK(gpucost::format_info(gpucost::Format::unknown) == nullptr);
  CHECK(prep::format_row(gpucost::Format::unknown) == nullptr);
  CHECK(format_name(gpucost::Format::unknown) == "unknown");
}

TEST_CASE("prep::formats: names and aliases lead back to their format, each name to one", "[prep][formats]") {
  std::set<std::string_view> names;
  for (const auto& row : gpucost::format_infos()) {
    INFO(row.name);
    CHECK(format_name(row.format) == row.name);
    gpucost::Format back = gpucost::Format::unknown;
    REQUIRE(format_from_name(row.name, back));
    CHECK(back == row.format);
    CHECK(names.insert(row.name).second);
    CHECK(gpucost::format_names().find(row.name) != std::string::npos);
    for (const std::string_view alias : row.aliases) {
      if (alias.empty()) continue;
      INFO(alias);
      back = gpucost::Format::unknown;
      REQUIRE(format_from_name(alias, back));
      CHECK(back == row.format);
      CHECK(names.insert(alias).second);
    }
  }
  gpucost::Format f = gpucost::Format::dmon;
  CHECK_FALSE(format_from_name("", f));
  CHECK_FALSE(format_from_name("unknown", f));
  CHECK(f == gpucost::Format::dmon);
}

TEST_CASE("prep::formats: traits are the row's, and a format is at most one of telemetry, host log, profiler",
          "[prep][formats]") {
  for (const auto& row : gpucost::format_infos()) {
    INFO(row.name);
    const gpucost::FormatTraits t = format_traits(row.format);
    CHECK(t.telemetry == row.traits.telemetry);
    CHECK(t.host_log == row.traits.host_log);
    CHECK(t.host_log_inside == row.traits.host_log_inside);
    CHECK(t.year_less == row.traits.year_less);
    CHECK(t.profiler == row.traits.profiler);
    CHECK(t.whole_document == row.traits.whole_document);
    CHECK(int{t.telemetry} + int{t.host_log} + int{t.profiler} <= 1);
    if (t.year_less) CHECK(t.host_log);
    if (t.host_log) CHECK(t.host_log_inside);  // extract counts the host's logs by this trait
  }
  CHECK(format_traits(gpucost::Format::bug_report).host_log_inside);  // its kernel log section
  const gpucost::FormatTraits none = format_traits(gpucost::Format::unknown);
  CHECK_FALSE((none.telemetry || none.host_log || none.year_less || none.profiler || none.whole_document ||
               none.host_log_inside));
}

TEST_CASE("prep::formats: each format is detected from its fixture and read by its row's parser", "[prep][formats]") {
  for (const auto& row : gpucost::format_infos()) {
    INFO(row.name);
    const auto found = fixture_of_format().find(std::string(row.name));
    REQUIRE(found != fixture_of_format().end());  // a new format needs a fixture here
    INFO(found->second);
    const std::string text = fixture(found->second);
    CHECK(prep::detect_format(text.substr(0, 64 * 1024), prep::PrepOptions{}) == row.format);
    const PrepRun detected = run_prep_text(text);
    REQUIRE(detected.status);
    CHECK(detected.stats.format == row.format);
    CHECK(detected.stats.events > 0);
    check_accounting(detected);
    prep::PrepOptions forced;
    forced.forced = row.format;
    const PrepRun read = run_prep_text(text, forced);
    REQUIRE(read.status);
    CHECK(read.stats.format == row.format);
    CHECK(read.stats.events == detected.stats.events);
  }
  CHECK(fixture_of_format().size() == gpucost::format_infos().size());
}

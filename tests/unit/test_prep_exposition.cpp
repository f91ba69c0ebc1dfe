// prep: an exporter's /metrics text (docs/formats.md, "Exporter /metrics text"). Fixtures in
// testdata/exposition are written by make_fixtures.py there; the expected values below follow
// from its formulas, worked out by hand in the comments.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/io/line_reader.hpp>

#include <sys/stat.h>
#include <utime.h>
#include <filesystem>
#include <fstream>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::has_note;
using gpucost::test::OwnedEvent;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::sample_at;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;
const std::int64_t kStart = utc_ns(2024, 6, 12, 13, 2, 0);  // make_fixtures.py's START, 1718197320

std::size_t count_kind(const PrepRun& r, const std::string& kind) {
  std::size_t n = 0;
  for (const auto& e : r.events) n += e.kind == kind ? 1u : 0u;
  return n;
}

// dcgm-exporter's label set, as in the fixtures.
std::string dcgm(const std::string& name, int gpu, const std::string& value, const std::string& extra = {}) {
  return name + "{gpu=\"" + std::to_string(gpu) + "\",UUID=\"GPU-" + std::to_string(gpu) +
         "\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"node01\"" + extra + "} " + value + "\n";
}

}  // namespace

TEST_CASE("prep::exposition: dcgm-exporter scrapes saved by the date +%s loop", "[prep][exposition]") {
  const PrepRun r = run_prep_text(fixture("exposition/dcgm_a100x2_loop.txt"));
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::exposition);
  // 8 scrapes of 61 lines: a date line, 15 families of HELP, TYPE and 2 GPUs' lines.
  CHECK(r.stats.lines == 488);
  CHECK(r.stats.event_lines == 208);  // 13 mapped metrics x 2 GPUs x 8 scrapes
  CHECK(r.stats.ignored == 280);      // 8 date lines, 240 HELP/TYPE, PCIe replays and vGPU licence (32)
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.hosts == std::vector<std::string>{"node01"});
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"NVIDIA A100-SXM4-80GB"});
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"535.104.05"});
  CHECK(count_kind(r, "sample") == 16);
  // GPU 0 at scrape 3: util 90 + 0 - 3 % 3 = 90; power 61.25 + 3 x 90 = 331.25 W; temperature
  // 33 + 90 / 5 = 51; FB used 40000 + 30 = 40030, free 81920 - 613 - 40030 = 41277, so the total
  // offered is 81307 MiB.
  const OwnedEvent& s = sample_at(r, 0, kStart + 3 * 15 * kSec);
  CHECK(s.source == "exposition");
  CHECK(s.metric("sm_pct") == 90);
  CHECK(s.metric("mem_pct") == 45);
  CHECK(s.metric("power_w") == 331.25);
  CHECK(s.metric("temp_c") == 51);
  CHECK(s.metric("mem_temp_c") == 49);
  CHECK(s.metric("pclk_mhz") == 1410);
  CHECK(s.metric("fb_mib") == 40030);
  CHECK(s.metric("fb_total_mib") == 81307);
  CHECK(field(s, "uuid") == "GPU-5a1c2e3f-0b4d-4c6e-8f7a-1b2c3d4e5f60");
  CHECK(field(s, "pci_bus_id") == "00000000:07:00.0");
  // The energy counter at scrape 2: 4e9 mJ + 61.25 W x 15 s + (61.25 + 325.25) / 2 x 15 s.
  CHECK(field(sample_at(r, 0, kStart + 2 * 15 * kSec), "totec") == "4003817500");
  // GPU 1's last-Xid gauge goes 0 -> 79 at scrape 5: one xid event there, after its sample.
  REQUIRE(count_kind(r, "xid") == 1);
  for (const auto& e : r.events) {
    if (e.kind != "xid") continue;
    CHECK(e.gpu == 1);
    CHECK(e.ts_ns == kStart + 5 * 15 * kSec);
    CHECK(field(e, "code") == "79");
  }
  // In time order, GPU 0 before GPU 1 at each time.
  for (std::size_t i = 1; i < r.events.size(); ++i) CHECK(r.events[i - 1].ts_ns <= r.events[i].ts_ns);
}

TEST_CASE("prep::exposition: nvidia_gpu_exporter, # scraped at lines, identity from nvidia_smi_gpu_info",
          "[prep][exposition]") {
  const PrepRun r = run_prep_text(fixture("exposition/nvidia_gpu_exporter_rtx4090_scrapes.txt"));
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.lines == 124);
  CHECK(r.stats.event_lines == 28);  // 6 mapped series and gpu_info, 4 scrapes
  CHECK(r.stats.ignored == 96);      // per scrape: its time, 20 HELP/TYPE, go_* and promhttp (3)
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"NVIDIA GeForce RTX 4090"});
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"550.78"});
  CHECK(has_note(r, "go_goroutines x4"));
  REQUIRE(count_kind(r, "sample") == 4);
  // Scrape 1, 30 s in: utilization 0.97 -> 97 %, power 30.5 + 400 x 0.97 = 418.5 W, temperature
  // 38 + round(29.1) = 67, SM clock 2.52e9 Hz = 2520 MHz, memory 20780679168 B = 19818 MiB of
  // 25757220864 B = 24564 MiB.
  const OwnedEvent& s = sample_at(r, 0, kStart + 30 * kSec);
  CHECK(s.metric("sm_pct") == 97);
  CHECK(s.metric("power_w") == 418.5);
  CHECK(s.metric("temp_c") == 67);
  CHECK(s.metric("pclk_mhz") == 2520);
  CHECK(s.metric("fb_mib") == 19818);
  CHECK(s.metric("fb_total_mib") == 24564);
  CHECK(field(s, "name") == "NVIDIA GeForce RTX 4090");
  CHECK(field(s, "pci_bus_id") == "00000000:01:00.0");
}

TEST_CASE("prep::exposition: the line grammar: escapes, NaN, exponents, own timestamps", "[prep][exposition]") {
  // A label value with \" \\ and \n escapes, a trailing comma, blanks around '=': read as values.
  const std::string own_ms = dcgm("DCGM_FI_DEV_GPU_UTIL", 0, "7 1718197335250", ",pod = \"a\\\"b\\\\c\\nd\",");
  // OpenMetrics writes seconds (with # EOF): 1718197350 is read as seconds, not ms.
  const std::string own_s = dcgm("DCGM_FI_DEV_GPU_UTIL", 0, "8 1718197350");
  const std::string text = "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n" + own_ms + own_s +
                           dcgm("DCGM_FI_DEV_POWER_USAGE", 0, "NaN 1718197350") +
                           dcgm("DCGM_FI_DEV_POWER_USAGE", 1, "1.2505e+02 1718197350") + "# EOF\n";
  const PrepRun r = run_prep_text(text);
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(has_note(r, "1 NaN/Inf values skipped"));
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[0].ts_ns == kStart + 15 * kSec + kSec / 4);
  CHECK(r.events[0].metric("sm_pct") == 7);
  CHECK(field(r.events[0], "pod") == "a\"b\\c\nd");
  CHECK(r.events[1].ts_ns == kStart + 30 * kSec);
  CHECK(r.events[1].metric("sm_pct") == 8);
  CHECK_FALSE(r.events[1].metric("power_w").has_value());
  CHECK(r.events[2].gpu == 1);
  CHECK(r.events[2].metric("power_w") == 125.05);
}

TEST_CASE("prep::exposition: malformed lines keep their number and reason", "[prep][exposition]") {
  const std::string text = "1718197320\n" + dcgm("DCGM_FI_DEV_GPU_UTIL", 0, "5") +
                           "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"x} 5\n"         // 3: an unclosed value
                           "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} five\n"               // 4: no number
                           "DCGM_FI_DEV_GPU_UTIL{Hostname=\"node01\"} 5\n"        // 5: no GPU
                           "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 1718197320000 9\n"  // 6: a word too many
                           "123\n"                                                // 7: no Unix time
                           "{gpu=\"0\"} 5\n";                                     // 8: no name
  const PrepRun r = run_prep_text(text);
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.lines == 8);
  CHECK(r.stats.malformed == 6);
  REQUIRE(r.stats.examples.size() == 5);
  CHECK(r.stats.examples[0].line == 3);
  CHECK(r.stats.examples[0].reason == "a label value without its closing quote");
  CHECK(r.stats.examples[1].reason == "a point's value is not a number");
  CHECK(r.stats.examples[2].reason == "no gpu, UUID or uuid label: which GPU is it?");
  CHECK(r.stats.examples[3].reason == "more than a value and a timestamp after the labels");
  CHECK(r.stats.examples[4].line == 7);
  CHECK(r.events.size() == 1);
}

TEST_CASE("prep::exposition: a scrape without any time", "[prep][exposition]") {
  const std::string one_scrape =
      "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n" + dcgm("DCGM_FI_DEV_GPU_UTIL", 0, "55");
  SECTION("from a pipe: no modification time, every sample malformed with the reason") {
    const PrepRun r = run_prep_text(one_scrape);
    REQUIRE(r.status);
    check_accounting(r);
    CHECK(r.stats.malformed == 1);
    CHECK(r.events.empty());
    CHECK(has_note(r, "save the scrapes with a time line"));
  }
  SECTION("from a file: one scrape at its modification time, said to be a snapshot") {
    const auto path = std::filesystem::temp_directory_path() / "gpucost_test_exposition_mtime.txt";
    std::ofstream(path) << one_scrape;
    const utimbuf times{1718197335, 1718197335};
    REQUIRE(::utime(path.c_str(), &times) == 0);
    auto reader = gpucost::io::LineReader::open(path.string());
    REQUIRE(reader);
    auto clock = gpucost::LocalClock::make("UTC");
    gpucost::test::CollectingSink sink;
    gpucost::InputStats stats;
    REQUIRE(prep::run_prep_input(**reader, prep::PrepOptions{}, *clock, sink, stats));
    std::filesystem::remove(path);
    REQUIRE(sink.events.size() == 1);
    CHECK(sink.events[0].ts_ns == kStart + 15 * kSec);
    CHECK(stats.event_lines == 1);
    bool snapshot = false;
    for (const auto& n : stats.notes) snapshot = snapshot || n.find("a snapshot") != std::string::npos;
    CHECK(snapshot);
  }
  SECTION("samples before the first scrape time line are malformed") {
    const PrepRun r = run_prep_text(one_scrape + "1718197320\n" + dcgm("DCGM_FI_DEV_GPU_UTIL", 0, "56"));
    REQUIRE(r.status);
    check_accounting(r);
    CHECK(r.stats.malformed == 1);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].metric("sm_pct") == 56);
  }
}

TEST_CASE("prep::exposition: detection, and what it does not claim", "[prep][exposition]") {
  const prep::PrepOptions none;
  CHECK(prep::detect_format("# HELP go_gc_duration_seconds A summary.\n# TYPE go_gc_duration_seconds summary\n",
                            none) == gpucost::Format::exposition);
  CHECK(prep::detect_format("1718197320\n# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n", none) ==
        gpucost::Format::exposition);
  CHECK(prep::detect_format(dcgm("DCGM_FI_DEV_SM_CLOCK", 0, "1410"), none) == gpucost::Format::exposition);
  CHECK(prep::detect_format("# gpu   pwr gtemp mtemp    sm   mem\n# Idx     W     C     C     %     %\n", none) ==
        gpucost::Format::dmon);
  CHECK(prep::detect_format("#Entity   POWER\nID\n", none) == gpucost::Format::dcgmi);
  CHECK(prep::detect_format("some_metric{a=\"b\"} 1\n", none) != gpucost::Format::exposition);
  gpucost::Format f = gpucost::Format::unknown;
  REQUIRE(format_from_name("exposition", f));
  CHECK(f == gpucost::Format::exposition);
}

TEST_CASE("prep::exposition and prometheus-json: --match keeps the series whose labels match", "[prep][exposition]") {
  const std::string text = "1718197320\n" + dcgm("DCGM_FI_DEV_GPU_UTIL", 0, "10", ",pod=\"llm-train-1\"") +
                           dcgm("DCGM_FI_DEV_GPU_UTIL", 1, "20", ",pod=\"other\"") +
                           dcgm("DCGM_FI_DEV_GPU_UTIL", 2, "30");
  prep::PrepOptions o;
  o.label_matchers = {"pod=~\"llm-.*\""};
  const PrepRun r = run_prep_text(text, o);
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.ignored == 3);  // the time line and two series left out
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].gpu == 0);
  CHECK(has_note(r, "2 series left out by --match pod=~\"llm-.*\""));
  // Anchored at both ends, as Prometheus does: "llm" alone matches no pod; != keeps the absent label.
  o.label_matchers = {"pod=~\"llm\""};
  CHECK(run_prep_text(text, o).events.empty());
  o.label_matchers = {"pod!=\"other\"", "Hostname=\"node01\""};
  CHECK(run_prep_text(text, o).events.size() == 2);
  o.label_matchers = {"pod=~\"(\""};
  const PrepRun bad = run_prep_text(text, o);
  REQUIRE_FALSE(bad.status);
  CHECK_THAT(bad.status.error().message, Catch::Contains("invalid regular expression"));
  CHECK_FALSE(prep::check_label_matchers({"Hostname=node01"}));
  CHECK(prep::check_label_matchers({"Hostname='node01'"}));
}

// prep: nvidia-smi -q text (docs/formats.md, "nvidia-smi -q"). Fixtures in testdata/smi-q are written in the shape of
// the driver named in their file name (see testdata/README.md); expectations are read off them by hand.
#include <catch2/catch.hpp>

#include "prep/telemetry/smi_common.hpp"
#include "support.hpp"

#include <gpucost/io/event_stream.hpp>

#include <cstdio>
#include <cstdlib>

using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::OwnedEvent;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

std::uint64_t count_lines(const std::string& s, bool blank_only) {
  std::uint64_t n = 0;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t nl = s.find('\n', pos);
    if (nl == std::string::npos) nl = s.size();
    std::string_view line(s.data() + pos, nl - pos);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (!blank_only || line.empty()) ++n;
    pos = nl + 1;
  }
  return n;
}

std::vector<const OwnedEvent*> of_kind(const PrepRun& r, const std::string& kind) {
  std::vector<const OwnedEvent*> out;
  for (const auto& e : r.events)
    if (e.kind == kind) out.push_back(&e);
  return out;
}

}  // namespace

TEST_CASE("prep::smi-q: 270.x full -q of two GPUs (column 32, 'GPU 0:2:0', blank lines in the header)",
          "[prep][smi-q]") {
  const std::string text = fixture("smi-q/m2090x2_270_full.txt");
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::smi_q);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.lines == count_lines(text, false));
  CHECK(r.stats.ignored == count_lines(text, true));  // blank lines only
  REQUIRE(r.events.size() == 4);
  const std::int64_t ts = utc_ns(2011, 11, 8, 21, 14, 7);

  const OwnedEvent& i0 = r.events[0];
  CHECK(i0.source == "smi-q");
  CHECK(i0.kind == "gpu_info");
  CHECK(i0.gpu == 0);
  CHECK(i0.ts_ns == ts);
  CHECK(field(i0, "name") == "Tesla M2090");
  CHECK(field(i0, "pci_bus_id") == "00000000:02:00.0");
  CHECK(field(i0, "uuid") == "GPU-5a1c0d33e6f2a7b4-90e81c2f-6d3b47a1-0e5c9b72-11f4d8a6c3e0b927");
  CHECK(field(i0, "driver_version") == "270.41.19");
  CHECK(field(i0, "cuda_version") == "<absent>");
  CHECK(field(i0, "persistence_mode") == "Enabled");
  CHECK(field(i0, "ecc_mode") == "Enabled");  // "Ecc Mode" in 270.x
  CHECK(field(i0, "throttle_reasons") == "<absent>");
  CHECK(i0.metric("power_limit_w") == 225.0);  // "Power Limit": no enforced limit printed
  CHECK_FALSE(i0.metric("power_default_limit_w"));
  CHECK(i0.metric("pclk_max_mhz") == 1301.0);
  CHECK(i0.metric("mclk_max_mhz") == 1848.0);
  CHECK(i0.metrics.size() == 3);

  const OwnedEvent& s0 = r.events[1];
  CHECK(s0.kind == "sample");
  CHECK(s0.gpu == 0);
  CHECK(s0.ts_ns == ts);
  CHECK(s0.metric("power_w") == 109.83);
  CHECK(s0.metric("temp_c") == 49.0);  // "Temperature / Gpu : 49 C"
  CHECK(s0.metric("sm_pct") == 67.0);
  CHECK(s0.metric("mem_pct") == 42.0);
  CHECK(s0.metric("pclk_mhz") == 1301.0);
  CHECK(s0.metric("mclk_mhz") == 1848.0);
  CHECK(s0.metric("fb_mib") == 1904.0);  // "Memory Usage" in Mb
  CHECK(s0.metric("fb_total_mib") == 5375.0);
  CHECK(s0.metric("pstate") == 0.0);  // "Power State : P0" inside "Power Readings"
  CHECK(s0.metrics.size() == 9);
  CHECK(field(s0, "pci_bus_id") == "00000000:02:00.0");

  const OwnedEvent& s1 = r.events[3];
  CHECK(s1.gpu == 1);
  CHECK(s1.metric("pstate") == 12.0);
  CHECK(s1.metric("power_w") == 31.57);
  CHECK_FALSE(s1.metric("temp_c"));  // N/A
  CHECK(field(r.events[2], "pci_bus_id") == "00000000:03:00.0");

  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"270.41.19"});
  CHECK(r.stats.fingerprint.cuda.empty());
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"Tesla M2090"});
  CHECK(r.stats.fingerprint.gpu_count == 2);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);

  // The Timestamp is local time: in America/Chicago (CST in November) it is 6 h behind UTC.
  const PrepRun chicago = run_prep_text(text, {}, "America/Chicago");
  REQUIRE(chicago.events.size() == 4);
  CHECK(chicago.events[0].ts_ns == ts + 6 * 3600 * kSec);
}

TEST_CASE("prep::smi-q: 410 -q -l, two log blocks of two GPUs (column 36, Clocks Throttle Reasons)", "[prep][smi-q]") {
  const std::string text = fixture("smi-q/v100x2_410_loop.txt");
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.ignored == count_lines(text, true));
  REQUIRE(r.events.size() == 8);
  const auto infos = of_kind(r, "gpu_info");
  const auto samples = of_kind(r, "sample");
  REQUIRE(infos.size() == 4);
  REQUIRE(samples.size() == 4);
  const std::int64_t t0 = utc_ns(2018, 10, 11, 15, 30, 2);
  const std::int64_t want_ts[] = {t0, t0, t0 + 5 * kSec, t0 + 5 * kSec};
  const int want_gpu[] = {0, 1, 0, 1};
  const char* want_reasons[] = {"", "sw_power_cap", "sw_power_cap", "sw_power_cap,hw_slowdown,hw_thermal_slowdown"};
  const double want_mask[] = {0, 4, 4, 4 + 8 + 64};
  const double want_power[] = {212.40, 249.61, 248.95, 250.37};
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("snapshot/gpu " << i);
    CHECK(infos[i]->ts_ns == want_ts[i]);
    CHECK(samples[i]->ts_ns == want_ts[i]);
    CHECK(infos[i]->gpu == want_gpu[i]);
    CHECK(samples[i]->gpu == want_gpu[i]);
    CHECK(field(*infos[i], "throttle_reasons") == want_reasons[i]);
    CHECK(samples[i]->metric("throttle_mask") == want_mask[i]);
    CHECK(samples[i]->metric("power_w") == want_power[i]);
  }
  const OwnedEvent& i1 = *infos[1];
  CHECK(field(i1, "name") == "Tesla V100-PCIE-32GB");
  CHECK(field(i1, "pci_bus_id") == "00000000:3B:00.0");
  CHECK(field(i1, "driver_version") == "410.48");
  CHECK(field(i1, "cuda_version") == "10.0");
  CHECK(field(i1, "vbios_version") == "88.00.48.00.02");
  CHECK(field(i1, "retired_pages_sbe") == "2");
  CHECK(field(i1, "retired_pages_dbe") == "1");
  CHECK(field(i1, "retired_pages_pending") == "No");
  CHECK(i1.metric("power_limit_w") == 250.0);  // Enforced Power Limit
  CHECK(i1.metric("power_default_limit_w") == 250.0);
  CHECK(i1.metric("power_max_limit_w") == 250.0);
  CHECK(i1.metric("pclk_max_mhz") == 1380.0);  // Max Clocks / SM
  CHECK(i1.metric("mclk_max_mhz") == 877.0);
  CHECK(i1.metric("pcie_gen") == 3.0);
  CHECK(i1.metric("pcie_gen_max") == 3.0);
  CHECK(i1.metric("pcie_width") == 16.0);
  CHECK(i1.metric("pcie_width_max") == 16.0);
  const OwnedEvent& s0 = *samples[0];
  CHECK(s0.metric("temp_c") == 71.0);
  CHECK(s0.metric("mem_temp_c") == 74.0);
  CHECK(s0.metric("sm_pct") == 99.0);
  CHECK(s0.metric("fb_mib") == 30120.0);  // FB Memory Usage, not BAR1 or the process's memory
  CHECK(s0.metric("bar1_mib") == 2.0);
  CHECK(s0.metric("pclk_mhz") == 1380.0);  // Clocks / SM
  CHECK_FALSE(s0.metric("pid"));
  CHECK(r.stats.fingerprint.gpu_count == 2);
  CHECK(r.stats.fingerprint.cuda == std::vector<std::string>{"10.0"});
  CHECK(r.stats.first_ts_ns == t0);
  CHECK(r.stats.last_ts_ns == t0 + 5 * kSec);
}

TEST_CASE("prep::smi-q: 535 with MIG instances, Clocks Event Reasons, remapped rows, processes", "[prep][smi-q]") {
  const PrepRun r = run_prep_text(fixture("smi-q/a100x2_535_mig.txt"));
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 4);
  const OwnedEvent& i0 = r.events[0];
  CHECK(i0.kind == "gpu_info");
  CHECK(field(i0, "mig_mode") == "Enabled");
  CHECK(field(i0, "mig_devices") == "2");
  CHECK(field(i0, "architecture") == "Ampere");
  CHECK(field(i0, "throttle_reasons") == "");
  CHECK(field(i0, "remapped_rows_correctable") == "0");
  CHECK(field(i0, "retired_pages_sbe") == "<absent>");  // N/A on Ampere
  CHECK(i0.metric("pcie_gen") == 3.0);
  CHECK(i0.metric("pcie_width") == 8.0);
  CHECK(i0.metric("power_limit_w") == 400.0);  // Current Power Limit (535)
  const OwnedEvent& s0 = r.events[1];
  CHECK(s0.metric("fb_mib") == 20160.0);  // the GPU's, not a MIG instance's 20011 or 13
  CHECK(s0.metric("fb_total_mib") == 81920.0);
  CHECK_FALSE(s0.metric("sm_pct"));  // N/A in MIG mode
  CHECK(s0.metric("power_w") == 118.26);
  CHECK(s0.metric("temp_c") == 38.0);
  CHECK(s0.metric("mem_temp_c") == 45.0);

  const OwnedEvent& i1 = r.events[2];
  CHECK(i1.gpu == 1);
  CHECK(field(i1, "mig_mode") == "Disabled");
  CHECK(field(i1, "mig_devices") == "<absent>");
  CHECK(field(i1, "throttle_reasons") == "sw_power_cap");
  CHECK(field(i1, "remapped_rows_correctable") == "3");
  CHECK(field(i1, "remapped_rows_uncorrectable") == "0");
  CHECK(field(i1, "remapped_rows_pending") == "No");
  CHECK(field(i1, "remapped_rows_failure") == "No");
  const OwnedEvent& s1 = r.events[3];
  CHECK(s1.metric("sm_pct") == 100.0);
  CHECK(s1.metric("mem_pct") == 62.0);
  CHECK(s1.metric("pclk_mhz") == 1305.0);
  CHECK(s1.metric("throttle_mask") == 4.0);
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"535.104.12"});
}

TEST_CASE("prep::smi-q: -i 3 of 8 attached GPUs takes the index from Minor Number", "[prep][smi-q]") {
  const PrepRun r = run_prep_text(fixture("smi-q/a100x8_535_i3.txt"));
  gpucost::test::check_accounting(r);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].gpu == 3);
  CHECK(r.events[1].gpu == 3);
  CHECK(field(r.events[0], "throttle_reasons") == "idle");
  CHECK(r.events[1].metric("throttle_mask") == 1.0);
  REQUIRE(r.stats.notes.size() == 1);
  CHECK(r.stats.notes[0].find("Minor Number") != std::string::npos);
}

TEST_CASE("prep::smi-q: 590 (column 55): average power first, counters, deprecated values", "[prep][smi-q]") {
  const PrepRun r = run_prep_text(fixture("smi-q/h100_590_load.txt"));
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  const OwnedEvent& i = r.events[0];
  CHECK(field(i, "driver_version") == "590.48.01");
  CHECK(field(i, "cuda_version") == "13.1");
  CHECK(field(i, "name") == "NVIDIA H100 80GB HBM3");
  CHECK(field(i, "pci_bus_id") == "00000000:9A:00.0");
  CHECK(field(i, "throttle_reasons") == "hw_slowdown,hw_power_brake_slowdown");
  CHECK(field(i, "clocks_event_us_sw_power_cap") == "118204");
  CHECK(field(i, "clocks_event_us_sync_boost") == "0");
  CHECK(field(i, "clocks_event_us_hw_power_brake_slowdown") == "2750391");
  CHECK(i.metric("power_limit_w") == 700.0);
  CHECK(i.metric("power_max_limit_w") == 700.0);
  CHECK(i.metric("pclk_max_mhz") == 1980.0);
  CHECK(i.metric("pcie_gen_max") == 5.0);
  const OwnedEvent& s = r.events[1];
  CHECK(s.metric("power_w") == 688.12);  // Average Power Draw, not Instantaneous (701.40) nor memory (91.07)
  CHECK(s.metric("throttle_mask") == 0x88);
  CHECK(s.metric("sm_pct") == 97.0);  // "GPU" in 590, "Gpu" before
  CHECK(s.metric("mem_temp_c") == 79.0);
  CHECK(s.metric("pclk_mhz") == 1755.0);
  CHECK(s.metric("fb_mib") == 74102.0);
  CHECK_FALSE(s.metric("fan_pct"));  // N/A
}

TEST_CASE("prep::smi-q: 610 on Windows: CRLF, deprecated driver line, KMD version, nested power limits",
          "[prep][smi-q]") {
  const std::string text = fixture("smi-q/rtx4090_610_win.txt");
  REQUIRE(text.find("\r\n") != std::string::npos);
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  const OwnedEvent& i = r.events[0];
  CHECK(field(i, "driver_version") == "610.62");
  CHECK(field(i, "cuda_version") == "13.3");
  CHECK(field(i, "driver_model") == "WDDM");
  CHECK(field(i, "persistence_mode") == "<absent>");  // N/A
  CHECK(field(i, "ecc_mode") == "Disabled");
  CHECK(field(i, "throttle_reasons") == "idle");
  CHECK(i.metric("power_limit_w") == 450.0);  // under "GPU Ceiling Power Limit"
  CHECK(i.metric("power_default_limit_w") == 450.0);
  CHECK(i.metric("power_max_limit_w") == 600.0);
  CHECK(i.metric("pcie_gen") == 1.0);
  CHECK(i.metric("pcie_gen_max") == 4.0);
  const OwnedEvent& s = r.events[1];
  CHECK(s.metric("power_w") == 27.13);  // Average N/A: Instantaneous
  CHECK(s.metric("fan_pct") == 30.0);
  CHECK(s.metric("pstate") == 8.0);
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"610.62"});
  CHECK(r.stats.fingerprint.cuda == std::vector<std::string>{"13.3"});
}

TEST_CASE("prep::smi-q: -d filtered output: throttle one-liner N/A, 4-hex domain", "[prep][smi-q]") {
  const PrepRun r = run_prep_text(fixture("smi-q/gtx660_331_dPERF_TEMP.txt"));
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(field(r.events[0], "pci_bus_id") == "00000000:01:00.0");
  CHECK(field(r.events[0], "driver_version") == "331.38");
  CHECK(field(r.events[0], "throttle_reasons") == "<absent>");  // "Clocks Throttle Reasons : N/A"
  CHECK(r.events[1].metric("temp_c") == 41.0);
  CHECK(r.events[1].metric("pstate") == 8.0);
  CHECK_FALSE(r.events[1].metric("throttle_mask"));
  CHECK(r.events[1].metrics.size() == 2);
}

TEST_CASE("prep::smi-q: a copy starting at the GPU line: --start places it, else the relative clock", "[prep][smi-q]") {
  const std::string text = fixture("smi-q/v100_410_dPERF_nobanner.txt");
  CHECK(prep::detect_format(text, {}) == gpucost::Format::smi_q);
  const PrepRun rel = run_prep_text(text);
  gpucost::test::check_accounting(rel);
  REQUIRE(rel.events.size() == 2);
  CHECK(rel.events[0].ts_ns == 0);
  CHECK(rel.stats.time_basis == gpucost::TimeBasis::relative);
  CHECK(field(rel.events[0], "throttle_reasons") == "sw_power_cap");
  CHECK(field(rel.events[0], "driver_version") == "<absent>");
  CHECK(rel.events[1].metric("throttle_mask") == 4.0);

  prep::PrepOptions o;
  o.start = gpucost::parse_iso8601("2024-06-12T14:00:00Z");
  const PrepRun abs = run_prep_text(text, o);
  REQUIRE(abs.events.size() == 2);
  CHECK(abs.events[0].ts_ns == utc_ns(2024, 6, 12, 14, 0, 0));
  CHECK(abs.stats.time_basis == gpucost::TimeBasis::absolute);
}

TEST_CASE("prep::smi-q: malformed lines, empty snapshots and banner-less repeats", "[prep][smi-q]") {
  const std::string text =
      "==============NVSMI LOG==============\n"
      "\n"
      "Timestamp                           : Mon Jan  1 00:00:10 2024\n"
      "Driver Version                      : 470.82.01\n"
      "\n"
      "Attached GPUs                       : 0\n"
      "\n"
      "==============NVSMI LOG==============\n"
      "Timestamp                           : Mon Jan  1 00:00:20 2024\n"
      "Driver Version                      : 470.82.01\n"
      "Attached GPUs                       : 1\n"
      "GPU 00000000:65:00.0\n"
      "    Product Name                    : NVIDIA GeForce RTX 3090\n"
      "garbage here\n"
      "    Power Readings\n"
      "        Power Draw                  : 351.20 W\n"
      "GPU 00000000:65:00.0\n"
      "    Power Readings\n"
      "        Power Draw                  : 120.00 W\n";
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.lines == 19);
  CHECK(r.stats.malformed == 1);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 14);
  // The first block has no GPU: its 4 non-blank lines are ignored, like the 3 blank lines.
  CHECK(r.stats.ignored == 7);
  CHECK(r.stats.event_lines == 11);
  REQUIRE(r.events.size() == 4);
  // The same bus id again without a banner: a new snapshot, placed by --start/cycle (here the
  // relative clock, since it has no Timestamp of its own).
  CHECK(r.events[0].ts_ns == utc_ns(2024, 1, 1, 0, 0, 20));
  CHECK(r.events[1].metric("power_w") == 351.20);
  CHECK(r.events[3].metric("power_w") == 120.0);
  CHECK(r.events[2].gpu == 0);
  CHECK(r.stats.fingerprint.gpu_count == 1);
}

TEST_CASE("prep::smi-q: detection", "[prep][smi-q]") {
  CHECK(prep::detect_format("\n==============NVSMI LOG==============\n\nTimestamp : x\n", {}) ==
        gpucost::Format::smi_q);
  CHECK(prep::detect_format("GPU 00000000:18:00.0\n    Performance State : P0\n", {}) == gpucost::Format::smi_q);
  CHECK(prep::detect_format("Timestamp                           : Thu Oct 10 08:12:21 2013\nDriver Version : 325.15\n",
                            {}) == gpucost::Format::smi_q);
  CHECK(prep::detect_format("GPU 00000000:18:00.0\nnot indented\n", {}) == gpucost::Format::unknown);
  CHECK(prep::detect_format("GPU 0: NVIDIA A100 (UUID: GPU-1)\n", {}) == gpucost::Format::unknown);
}

TEST_CASE("prep::smi-q: helpers: ctime, bus ids, values", "[prep][smi-q]") {
  const auto t = prep::parse_ctime("Thu Jan  4 14:41:13 2024");
  REQUIRE(t);
  CHECK(t->as_utc_ns() == utc_ns(2024, 1, 4, 14, 41, 13));
  CHECK(prep::parse_ctime("Sun Mar 2 15:02:02 2025"));
  CHECK_FALSE(prep::parse_ctime("2024-01-04 14:41:13"));
  CHECK_FALSE(prep::parse_ctime("Thu Foo  4 14:41:13 2024"));
  CHECK_FALSE(prep::parse_ctime("Thu Feb 30 14:41:13 2024"));

  CHECK(prep::normalize_bus_id("0:2:0") == "00000000:02:00.0");
  CHECK(prep::normalize_bus_id("0000:01:05.0") == "00000000:01:05.0");
  CHECK(prep::normalize_bus_id("00000000:3b:00.0") == "00000000:3B:00.0");
  CHECK(prep::normalize_bus_id("N/A") == "N/A");

  double v = 0;
  std::string_view json;
  CHECK(prep::smi_number("43.89 W", v, json));
  CHECK(v == 43.89);
  CHECK(json == "43.89");
  CHECK(prep::smi_number("16x", v, json));
  CHECK(v == 16.0);
  CHECK(prep::smi_number("P12", v, json));
  CHECK(v == 12.0);
  CHECK(prep::smi_number("-8 C", v, json));
  CHECK(v == -8.0);
  CHECK_FALSE(prep::smi_number("N/A", v, json));
  CHECK_FALSE(prep::smi_number("[N/A]", v, json));
  CHECK_FALSE(prep::smi_number("Not Active", v, json));
  CHECK_FALSE(prep::smi_number("Requested functionality has been deprecated", v, json));
  CHECK_FALSE(prep::smi_number("Unknown Error", v, json));
}

TEST_CASE("prep::smi-q: the summary carries the fingerprint", "[prep][smi-q][io]") {
  const PrepRun r = run_prep_text(fixture("smi-q/v100x2_410_loop.txt"));
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  {
    gpucost::io::EventWriter w(f, gpucost::io::StreamFormat::jsonl);
    w.write_summary({r.stats});
    w.flush();
  }
  std::fclose(f);
  const std::string out(data, size);
  std::free(data);
  CHECK(out.find("\"fingerprint\":{\"drivers\":[\"410.48\"],\"cuda\":[\"10.0\"],\"gpus\":[\"Tesla V100-PCIE-32GB\"],"
                 "\"gpu_count\":2}") != std::string::npos);
  // An input without gpu_info (dmon) has no fingerprint key.
  gpucost::InputStats plain;
  plain.path = "dmon.log";
  data = nullptr;
  size = 0;
  f = open_memstream(&data, &size);
  {
    gpucost::io::EventWriter w(f, gpucost::io::StreamFormat::jsonl);
    w.write_summary({plain});
    w.flush();
  }
  std::fclose(f);
  const std::string out2(data, size);
  std::free(data);
  CHECK(out2.find("fingerprint") == std::string::npos);
}

TEST_CASE("prep::smi-q: a GPU nvidia-smi cannot reach is noted, the others keep their index", "[prep][smi-q]") {
  const std::string text =
      "==============NVSMI LOG==============\n"
      "\n"
      "Timestamp                                 : Fri Mar  1 12:00:00 2024\n"
      "Driver Version                            : 535.129.03\n"
      "CUDA Version                              : 12.2\n"
      "\n"
      "Attached GPUs                             : 2\n"
      "Unable to determine the device handle for GPU 0000:3B:00.0: Unknown Error\n"
      "GPU 00000000:86:00.0\n"
      "    Product Name                          : NVIDIA A100-PCIE-40GB\n"
      "    Minor Number                          : 1\n";
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 1);  // no readings: gpu_info only
  CHECK(r.events[0].gpu == 1);
  bool noted = false;
  for (const auto& n : r.stats.notes) noted = noted || n.find("could not reach a GPU") != std::string::npos;
  CHECK(noted);
}

// prep: nvidia-smi -q -x XML (docs/formats.md, "nvidia-smi -q -x"). Fixtures in testdata/smi-xml
// are written in the shape of the driver and DTD version named in their file name; expectations are
// read off them by hand.
#include <catch2/catch.hpp>

#include "support.hpp"

using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::OwnedEvent;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

std::uint64_t count_lines(const std::string& s) {
  std::uint64_t n = 0;
  for (char c : s) n += c == '\n' ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("prep::smi-xml: 515, DTD v11, clocks_throttle_reasons, power_readings", "[prep][smi-xml]") {
  const std::string text = fixture("smi-xml/t4_515_v11.xml");
  CHECK(prep::detect_format(text, {}) == gpucost::Format::smi_xml);
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::smi_xml);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.lines == count_lines(text));
  CHECK(r.stats.event_lines == r.stats.lines);  // one document: all its lines made the events
  REQUIRE(r.events.size() == 2);
  const std::int64_t ts = utc_ns(2023, 5, 16, 3, 5, 22);

  const OwnedEvent& i = r.events[0];
  CHECK(i.source == "smi-xml");
  CHECK(i.kind == "gpu_info");
  CHECK(i.gpu == 0);
  CHECK(i.ts_ns == ts);
  CHECK(field(i, "name") == "Tesla T4");
  CHECK(field(i, "pci_bus_id") == "00000000:3B:00.0");
  CHECK(field(i, "uuid") == "GPU-5e1b7c02-44d9-4a3e-b0f1-8d6c2a9e7f35");
  CHECK(field(i, "driver_version") == "515.105.01");
  CHECK(field(i, "cuda_version") == "11.7");
  CHECK(field(i, "vbios_version") == "90.04.96.00.02");
  CHECK(field(i, "architecture") == "Turing");
  CHECK(field(i, "persistence_mode") == "Disabled");
  CHECK(field(i, "ecc_mode") == "Enabled");
  CHECK(field(i, "mig_mode") == "<absent>");     // N/A
  CHECK(field(i, "mig_devices") == "<absent>");  // "None"
  CHECK(field(i, "retired_pages_sbe") == "0");
  CHECK(field(i, "retired_pages_dbe") == "0");
  CHECK(field(i, "retired_pages_pending") == "No");
  CHECK(field(i, "remapped_rows_correctable") == "<absent>");  // <remapped_rows>N/A</remapped_rows>
  CHECK(field(i, "throttle_reasons") == "sw_power_cap");
  CHECK(i.metric("power_limit_w") == 70.0);  // enforced_power_limit
  CHECK(i.metric("power_default_limit_w") == 70.0);
  CHECK(i.metric("power_max_limit_w") == 70.0);
  CHECK(i.metric("pclk_max_mhz") == 1590.0);
  CHECK(i.metric("mclk_max_mhz") == 5001.0);
  CHECK(i.metric("pcie_gen") == 3.0);
  CHECK(i.metric("pcie_gen_max") == 3.0);
  CHECK(i.metric("pcie_width") == 16.0);
  CHECK(i.metric("pcie_width_max") == 16.0);
  CHECK(i.metrics.size() == 9);

  const OwnedEvent& s = r.events[1];
  CHECK(s.kind == "sample");
  CHECK(s.ts_ns == ts);
  CHECK(s.metric("power_w") == 69.87);
  CHECK(s.metric("temp_c") == 76.0);
  CHECK_FALSE(s.metric("mem_temp_c"));
  CHECK(s.metric("sm_pct") == 100.0);
  CHECK(s.metric("mem_pct") == 47.0);
  CHECK(s.metric("enc_pct") == 0.0);
  CHECK(s.metric("dec_pct") == 0.0);
  CHECK(s.metric("pclk_mhz") == 1275.0);  // clocks/sm_clock, not applications clocks
  CHECK(s.metric("mclk_mhz") == 5000.0);
  CHECK(s.metric("fb_mib") == 11287.0);
  CHECK(s.metric("fb_total_mib") == 15360.0);
  CHECK(s.metric("bar1_mib") == 5.0);
  CHECK(s.metric("pstate") == 0.0);
  CHECK(s.metric("throttle_mask") == 4.0);
  CHECK_FALSE(s.metric("fan_pct"));
  CHECK(s.metrics.size() == 13);
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"Tesla T4"});
}

TEST_CASE("prep::smi-xml: 535, DTD v12, two GPUs, MIG instances, clocks_event_reasons, remapped rows",
          "[prep][smi-xml]") {
  const PrepRun r = run_prep_text(fixture("smi-xml/a100x2_535_v12_mig.xml"));
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 4);
  const OwnedEvent& i0 = r.events[0];
  CHECK(i0.gpu == 0);
  CHECK(field(i0, "pci_bus_id") == "00000000:07:00.0");
  CHECK(field(i0, "mig_mode") == "Enabled");
  CHECK(field(i0, "mig_devices") == "2");
  CHECK(field(i0, "throttle_reasons") == "");
  CHECK(field(i0, "retired_pages_sbe") == "<absent>");  // N/A
  CHECK(i0.metric("power_limit_w") == 400.0);           // current_power_limit
  const OwnedEvent& s0 = r.events[1];
  CHECK(s0.metric("fb_mib") == 4907.0);  // the GPU's, not a MIG instance's 4872 or 11
  CHECK_FALSE(s0.metric("sm_pct"));
  CHECK(s0.metric("power_w") == 91.55);
  CHECK(s0.metric("mem_temp_c") == 41.0);

  const OwnedEvent& i1 = r.events[2];
  CHECK(i1.gpu == 1);
  CHECK(field(i1, "name") == "NVIDIA A100-SXM4-40GB");
  CHECK(field(i1, "driver_version") == "535.183.01");
  CHECK(field(i1, "cuda_version") == "12.2");
  CHECK(field(i1, "throttle_reasons") == "sw_power_cap,sw_thermal_slowdown");
  CHECK(field(i1, "remapped_rows_correctable") == "2");
  CHECK(field(i1, "remapped_rows_uncorrectable") == "0");
  CHECK(field(i1, "remapped_rows_pending") == "Yes");
  CHECK(field(i1, "remapped_rows_failure") == "No");
  const OwnedEvent& s1 = r.events[3];
  CHECK(s1.metric("throttle_mask") == 4 + 32);
  CHECK(s1.metric("power_w") == 398.20);
  CHECK(s1.metric("sm_pct") == 100.0);
  CHECK(s1.metric("pclk_mhz") == 1140.0);
  CHECK(s1.metric("temp_c") == 83.0);
  CHECK(r.stats.fingerprint.gpu_count == 2);
}

TEST_CASE("prep::smi-xml: 590, DTD v13, tabs, two documents back to back (-l)", "[prep][smi-xml]") {
  const std::string text = fixture("smi-xml/a5000x2_590_v13_loop.xml");
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.event_lines == count_lines(text));
  REQUIRE(r.events.size() == 8);
  const std::int64_t t0 = utc_ns(2026, 1, 13, 16, 20, 0);
  for (std::size_t k = 0; k < 8; ++k) {
    INFO(k);
    CHECK(r.events[k].ts_ns == (k < 4 ? t0 : t0 + 10 * kSec));
    CHECK(r.events[k].gpu == static_cast<int>((k / 2) % 2));
    CHECK(r.events[k].kind == (k % 2 == 0 ? "gpu_info" : "sample"));
  }
  const OwnedEvent& i0 = r.events[0];
  CHECK(field(i0, "throttle_reasons") == "idle");
  CHECK(field(i0, "clocks_event_us_sw_power_cap") == "1720451");
  CHECK(field(i0, "clocks_event_us_hw_power_brake_slowdown") == "0");
  CHECK(field(i0, "ecc_mode") == "Disabled");
  CHECK(i0.metric("pcie_gen") == 1.0);
  CHECK(i0.metric("pcie_gen_max") == 4.0);
  CHECK(i0.metric("power_limit_w") == 230.0);
  CHECK(i0.metric("pclk_max_mhz") == 2100.0);
  CHECK(r.events[1].metric("power_w") == 17.94);  // average_power_draw before instant_power_draw
  CHECK(r.events[1].metric("pstate") == 8.0);
  CHECK(r.events[1].metric("fan_pct") == 30.0);
  const OwnedEvent& i1 = r.events[2];
  CHECK(field(i1, "throttle_reasons") == "sw_power_cap");
  CHECK(field(i1, "clocks_event_us_sw_power_cap") == "904418233");
  CHECK(r.events[3].metric("power_w") == 229.31);
  CHECK(r.events[3].metric("fan_pct") == 74.0);
  CHECK(r.events[3].metric("pstate") == 2.0);
  CHECK(r.events[3].metric("fb_mib") == 21870.0);
  CHECK(r.events[7].metric("power_w") == 228.70);
  CHECK(field(r.events[6], "clocks_event_us_sw_power_cap") == "914418271");
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"590.44.01"});
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"NVIDIA RTX A5000"});
  CHECK(r.stats.fingerprint.gpu_count == 2);
}

TEST_CASE("prep::smi-xml: 418 without DOCTYPE, power N/A on a Quadro", "[prep][smi-xml]") {
  const PrepRun r = run_prep_text(fixture("smi-xml/p400_418_nodoctype.xml"));
  gpucost::test::check_accounting(r);
  REQUIRE(r.events.size() == 2);
  const OwnedEvent& i = r.events[0];
  CHECK(i.ts_ns == utc_ns(2019, 4, 17, 11, 52, 8));
  CHECK(field(i, "name") == "Quadro P400");
  CHECK(field(i, "cuda_version") == "10.1");
  CHECK(field(i, "throttle_reasons") == "idle");
  CHECK(field(i, "ecc_mode") == "<absent>");
  CHECK_FALSE(i.metric("power_limit_w"));
  CHECK(i.metric("pclk_max_mhz") == 1733.0);
  const OwnedEvent& s = r.events[1];
  CHECK_FALSE(s.metric("power_w"));
  CHECK(s.metric("pstate") == 8.0);
  CHECK(s.metric("fan_pct") == 46.0);
  CHECK(s.metric("temp_c") == 37.0);
  CHECK(s.metric("throttle_mask") == 1.0);
}

TEST_CASE("prep::smi-xml: a document cut short, then a whole one", "[prep][smi-xml]") {
  const std::string text = fixture("smi-xml/p400_418_cut_then_whole.xml");
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].ts_ns == utc_ns(2019, 4, 17, 11, 52, 13));
  // The cut document: from its <?xml line to the line before the next <?xml.
  const std::size_t second = text.find("<?xml", 1);
  REQUIRE(second != std::string::npos);
  const std::uint64_t cut_lines = count_lines(text.substr(0, second));
  CHECK(r.stats.malformed == cut_lines);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 1);
  CHECK(r.stats.examples[0].reason.find("not closed") != std::string::npos);
  CHECK(r.stats.event_lines == count_lines(text) - cut_lines);
}

TEST_CASE("prep::smi-xml: bad XML, text outside documents, an unterminated end, no DTD fetch", "[prep][smi-xml]") {
  const std::string good_gpu =
      "  <gpu id=\"00000000:01:00.0\">\n"
      "    <product_name>NVIDIA L4</product_name>\n"
      "    <fan_speed>N/A</fan_speed>\n"
      "    <temperature><gpu_temp>45 C</gpu_temp></temperature>\n"
      "  </gpu>\n";
  // A DOCTYPE naming a URL and an external entity: pugixml skips the declaration, so nothing is
  // fetched and the reference stays unexpanded text.
  const std::string doc1 =
      "<?xml version=\"1.0\" ?>\n"
      "<!DOCTYPE nvidia_smi_log SYSTEM \"http://127.0.0.1:9/nvsmi_device_v12.dtd\">\n"
      "<nvidia_smi_log>\n"
      "  <timestamp>Mon Jan  1 00:00:00 2024</timestamp>\n"
      "  <driver_version>550.54.14</driver_version>\n" +
      good_gpu + "</nvidia_smi_log>\n";
  const std::string bad =
      "<?xml version=\"1.0\" ?>\n"
      "<nvidia_smi_log>\n"
      "  <timestamp>Mon Jan  1 00:00:05 2024</timestamp>\n"
      "  <gpu id=\"00000000:01:00.0\"><product_name>x</gpu>\n"
      "</nvidia_smi_log>\n";
  const std::string text = doc1 + "stray text\n" + bad + doc1 + "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n";
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.stats.lines == 11 + 1 + 5 + 11 + 2);
  CHECK(r.stats.event_lines == 22);
  CHECK(r.stats.malformed == 1 + 5 + 2);
  REQUIRE(r.stats.examples.size() == 3);
  CHECK(r.stats.examples[0].line == 12);
  CHECK(r.stats.examples[0].reason.find("outside") != std::string::npos);
  CHECK(r.stats.examples[1].reason.find("XML parse error") != std::string::npos);
  CHECK(r.stats.examples[1].line == 16);  // the line of the mismatched end tag
  CHECK(r.stats.examples[2].line == 29);
  CHECK(r.stats.examples[2].reason.find("input ends") != std::string::npos);
  REQUIRE(r.events.size() == 4);
  CHECK(field(r.events[0], "name") == "NVIDIA L4");
  CHECK(field(r.events[0], "driver_version") == "550.54.14");
  CHECK(r.events[1].metric("temp_c") == 45.0);
  CHECK(r.events[1].metrics.size() == 1);
}

TEST_CASE("prep::smi-xml: a document over 16 MiB is malformed, memory stays bounded", "[prep][smi-xml]") {
  std::string text = "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n";
  const std::string filler = "  <!-- " + std::string(1000, 'x') + " -->\n";
  while (text.size() < (17u << 20)) text += filler;
  text += "</nvidia_smi_log>\n";
  const PrepRun r = run_prep_text(text);
  gpucost::test::check_accounting(r);
  CHECK(r.events.empty());
  CHECK(r.stats.malformed == r.stats.lines);
  REQUIRE_FALSE(r.stats.examples.empty());
  CHECK(r.stats.examples[0].reason.find("larger than 16 MiB") != std::string::npos);
}

TEST_CASE("prep::smi-xml: detection", "[prep][smi-xml]") {
  CHECK(prep::detect_format("<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n", {}) == gpucost::Format::smi_xml);
  CHECK(prep::detect_format("<nvidia_smi_log>\n<timestamp>x</timestamp>\n", {}) == gpucost::Format::smi_xml);
  CHECK(prep::detect_format("<?xml version=\"1.0\" ?>\n<rss>\n", {}) == gpucost::Format::unknown);
}

TEST_CASE("prep::smi-xml: the text and XML forms of one snapshot give the same events", "[prep][smi-xml][smi-q]") {
  const std::string q =
      "==============NVSMI LOG==============\n"
      "Timestamp                                 : Wed Sep 25 10:40:24 2024\n"
      "Driver Version                            : 535.129.03\n"
      "CUDA Version                              : 12.2\n"
      "Attached GPUs                             : 1\n"
      "GPU 00000000:07:00.0\n"
      "    Product Name                          : NVIDIA A10\n"
      "    Persistence Mode                      : Enabled\n"
      "    PCI\n"
      "        Bus Id                            : 00000000:07:00.0\n"
      "    Performance State                     : P0\n"
      "    Clocks Event Reasons\n"
      "        Idle                              : Not Active\n"
      "        SW Power Cap                      : Active\n"
      "    GPU Power Readings\n"
      "        Power Draw                        : 149.20 W\n"
      "        Current Power Limit               : 150.00 W\n"
      "    Clocks\n"
      "        SM                                : 1695 MHz\n";
  const std::string x =
      "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n"
      "<timestamp>Wed Sep 25 10:40:24 2024</timestamp>\n<driver_version>535.129.03</driver_version>\n"
      "<cuda_version>12.2</cuda_version>\n<attached_gpus>1</attached_gpus>\n"
      "<gpu id=\"00000000:07:00.0\">\n<product_name>NVIDIA A10</product_name>\n"
      "<persistence_mode>Enabled</persistence_mode>\n<pci><pci_bus_id>00000000:07:00.0</pci_bus_id></pci>\n"
      "<performance_state>P0</performance_state>\n<clocks_event_reasons>\n"
      "<clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>\n"
      "<clocks_event_reason_sw_power_cap>Active</clocks_event_reason_sw_power_cap>\n</clocks_event_reasons>\n"
      "<gpu_power_readings><power_draw>149.20 W</power_draw><current_power_limit>150.00 W</current_power_limit>"
      "</gpu_power_readings>\n<clocks><sm_clock>1695 MHz</sm_clock></clocks>\n</gpu>\n</nvidia_smi_log>\n";
  const PrepRun a = run_prep_text(q);
  const PrepRun b = run_prep_text(x);
  REQUIRE(a.events.size() == 2);
  REQUIRE(b.events.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(a.events[k].ts_ns == b.events[k].ts_ns);
    CHECK(a.events[k].kind == b.events[k].kind);
    CHECK(a.events[k].metrics == b.events[k].metrics);
    CHECK(a.events[k].fields == b.events[k].fields);
  }
  CHECK(a.events[0].fields.at("throttle_reasons") == "sw_power_cap");
}

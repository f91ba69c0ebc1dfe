// prep: dmesg output and /dev/kmsg records (docs/formats.md, "Kernel logs"): raw uptime stamps with and without
// a boot time, priority prefixes, -T, --time-format=iso, --decode, kmsg dictionary lines,
// continuation lines joined to their record. Fixtures in testdata/dmesg are hand-written in the
// shape of util-linux dmesg; times are computed by hand.
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
constexpr std::int64_t kUs = 1000;

std::vector<std::string> kinds(const PrepRun& r) {
  std::vector<std::string> out;
  for (const auto& e : r.events) out.push_back(e.kind);
  return out;
}

}  // namespace

TEST_CASE("prep::dmesg: raw stamps, boot time from the rtc_cmos line, a 3-line record", "[prep][dmesg]") {
  const std::string text = fixture("dmesg/raw_a6000_535_fallen_multiline.txt");
  // rtc_cmos set the clock to 1716190872 at 1.906020 s after boot.
  const std::int64_t boot = 1716190872 * kSec - 1'906'020 * kUs;
  SECTION("no --boot-time: derived from the log") {
    const PrepRun r = run_prep_text(text);
    check_accounting(r);
    CHECK(r.stats.format == gpucost::Format::dmesg);
    CHECK(r.stats.malformed == 0);
    REQUIRE(kinds(r) == std::vector<std::string>{"boot", "driver", "xid", "gpu_lost"});
    CHECK(r.events[0].ts_ns == boot);  // Linux version at [0.000000], held until the boot time was known
    CHECK(r.events[2].ts_ns == boot + 5521 * kSec + 118'209 * kUs);
    CHECK(field(r.events[2], "uptime_s") == "5521.118209");
    CHECK(r.events[2].source == "dmesg");
    // The notice and its two prefix-less lines are one record: the PCI ID from the second line.
    CHECK(field(r.events[3], "pci") == "0000:61:00.0");
    CHECK(field(r.events[3], "pci_id") == "10de:2230");
    CHECK(r.stats.event_lines == 1 + 1 + 1 + 3);
    CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
    CHECK(r.stats.clock ==
          "uptime + boot time 2024-05-20T07:41:10.09398Z derived from line 8 (rtc_cmos set the system clock)");
    CHECK(r.stats.notes.empty());
  }
  SECTION("--boot-time wins") {
    prep::PrepOptions o;
    o.boot_time_ns = utc_ns(2024, 5, 20, 7, 41, 0);
    const PrepRun r = run_prep_text(text, o);
    check_accounting(r);
    REQUIRE(r.events.size() == 4);
    CHECK(r.events[2].ts_ns == utc_ns(2024, 5, 20, 7, 41, 0) + 5521 * kSec + 118'209 * kUs);
    CHECK(r.stats.clock == "uptime + boot time 2024-05-20T07:41:00Z from --boot-time");
  }
}

TEST_CASE("prep::dmesg: <prio> prefixes, empty messages, no boot time", "[prep][dmesg]") {
  const PrepRun r = run_prep_text(fixture("dmesg/pstore_l4_550_raw_prio.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmesg);
  CHECK(r.stats.malformed == 0);
  REQUIRE(kinds(r) == std::vector<std::string>{"driver", "xid", "xid"});
  CHECK(field(r.events[0], "version") == "550.127.08");
  // Seconds since boot, on a clock that starts at the epoch.
  CHECK(r.events[1].ts_ns == 2210 * kSec + 775'012 * kUs);
  CHECK(field(r.events[2], "code") == "63");
  CHECK(r.stats.time_basis == gpucost::TimeBasis::uptime);
  CHECK(r.stats.clock.rfind("uptime: seconds since boot", 0) == 0);
  REQUIRE(r.stats.notes.size() == 1);
  CHECK(r.stats.notes[0].find("give --boot-time") != std::string::npos);
  CHECK(r.stats.ignored == 14 - 3);
}

TEST_CASE("prep::dmesg: dmesg -T is local time, GSP dumps continue the Xid", "[prep][dmesg]") {
  const PrepRun r = run_prep_text(fixture("dmesg/ctime_h100x8_550_xid119.txt"), {}, "America/Chicago");
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmesg);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);
  REQUIRE(kinds(r) == std::vector<std::string>{"xid", "xid"});
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 11, 19, 22, 18));  // Tue Jun 11 14:22:18 CDT
  CHECK(r.events[1].ts_ns == utc_ns(2024, 6, 11, 19, 22, 24));
  CHECK(field(r.events[0], "pid") == "2024380");
  CHECK(r.stats.event_lines == 1 + 4 + 1);  // RPC history header and its three table rows
  CHECK(r.stats.clock == "local time in America/Chicago (dmesg -T: boot time + uptime, late after a suspend)");
}

TEST_CASE("prep::dmesg: --time-format=iso carries its offset", "[prep][dmesg]") {
  const PrepRun r = run_prep_text(fixture("dmesg/iso_a100_535_xid94_tokyo.txt"), {}, "Europe/Berlin");
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmesg);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(kinds(r) == std::vector<std::string>{"xid", "xid", "xid"});
  CHECK(r.events[0].ts_ns == utc_ns(2025, 2, 3, 12, 7, 10) + 4'519 * kUs);
  CHECK(field(r.events[1], "process") == "python3.11");
  CHECK(field(r.events[0], "uptime_s") == "<absent>");
  CHECK(r.stats.clock == "absolute (ISO 8601 offsets)");
}

TEST_CASE("prep::dmesg: --decode grouped by level: times out of order stay in file order", "[prep][dmesg]") {
  const PrepRun r = run_prep_text(fixture("dmesg/decode_iso_h100_550_grouped.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmesg);
  CHECK(r.stats.malformed == 0);
  REQUIRE(kinds(r) == std::vector<std::string>{"xid", "xid", "xid", "boot"});
  CHECK(r.events[0].ts_ns == utc_ns(2025, 3, 10, 8, 15, 2) + 991'204 * kUs);
  CHECK(r.events[1].ts_ns == utc_ns(2025, 3, 10, 7, 59, 41) + 220'145 * kUs);
  CHECK(r.events[3].ts_ns < r.events[1].ts_ns);
  CHECK(r.stats.first_ts_ns == r.events[3].ts_ns);
  CHECK(r.stats.last_ts_ns == r.events[0].ts_ns);
  CHECK(r.stats.ignored == 11 - 4);  // incl. a blank line and the daemon/user lines
}

TEST_CASE("prep::dmesg: --decode with raw stamps", "[prep][dmesg]") {
  prep::PrepOptions o;
  o.boot_time_ns = 1'723'000'000 * kSec;
  const PrepRun r = run_prep_text(fixture("dmesg/decode_raw_rtx4070_560.txt"), o);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmesg);
  REQUIRE(kinds(r) == std::vector<std::string>{"driver", "gpu_lost"});
  CHECK(field(r.events[0], "module") == "open");
  CHECK(field(r.events[1], "cause") == "init_failed");
  CHECK(r.events[1].ts_ns == 1'723'000'000 * kSec + 4188 * kSec + 204'117 * kUs);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
}

TEST_CASE("prep::dmesg: /dev/kmsg records and their dictionary lines", "[prep][dmesg]") {
  const PrepRun r = run_prep_text(fixture("dmesg/kmsg_h200_570_nvlink.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::dmesg);
  CHECK(r.stats.malformed == 0);
  REQUIRE(kinds(r) == std::vector<std::string>{"xid", "aer"});
  CHECK(field(r.events[0], "code") == "74");
  CHECK(r.events[0].ts_ns == 812'345'678 * kUs);  // µs since boot
  CHECK(field(r.events[0], "uptime_s") == "812.345678");
  CHECK(field(r.events[1], "severity") == "uncorrected_nonfatal");
  // Xid + 2 dictionary lines; AER + 2 dictionary lines + device + error name.
  CHECK(r.stats.event_lines == 3 + 5);
  CHECK(r.stats.ignored == 3);
}

TEST_CASE("prep::dmesg: continuation lines, blank lines, bad stamps", "[prep][dmesg]") {
  const std::string text =
      "    a continuation before any record\n"
      "[  100.000001] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
      "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
      "\n"
      "               NVRM: fallen off the bus and is not responding to commands.\n"
      "[  100.000002] \n"
      "[  100.100000] nvidia 0000:b3:00.0: something else\n"
      "               and its second line\n"
      "kern  :info  : [Tue Foo 99 12:00:00 2024] a -T stamp that does not parse\n"
      "[  101.000000] last record, no final newline";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.lines == 10);
  REQUIRE(kinds(r) == std::vector<std::string>{"gpu_lost"});
  CHECK(field(r.events[0], "pci_id") == "10de:26b5");
  CHECK(r.events[0].ts_ns == 100 * kSec + 1 * kUs);
  CHECK(r.stats.event_lines == 3);
  CHECK(r.stats.malformed == 1);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 9);
  CHECK(r.stats.examples[0].reason == "bad timestamp");
  CHECK(r.stats.ignored == 10 - 3 - 1);
}

TEST_CASE("prep::dmesg: detection", "[prep][dmesg][detect]") {
  const prep::PrepOptions o;
  for (const char* rel : {"dmesg/raw_a6000_535_fallen_multiline.txt", "dmesg/pstore_l4_550_raw_prio.txt",
                          "dmesg/ctime_h100x8_550_xid119.txt", "dmesg/iso_a100_535_xid94_tokyo.txt",
                          "dmesg/decode_iso_h100_550_grouped.txt", "dmesg/decode_raw_rtx4070_560.txt",
                          "dmesg/kmsg_h200_570_nvlink.txt"}) {
    INFO(rel);
    const std::string text = fixture(rel);
    CHECK(prep::detect_format(text, o) == gpucost::Format::dmesg);
    CHECK(prep::detect_format(text.substr(0, text.find('\n')), o) == gpucost::Format::dmesg);
  }
  CHECK(prep::detect_format("user:admin: hello\nkern:x: y\n", o) == gpucost::Format::unknown);
  CHECK(prep::detect_format("<html>\n<body>\n", o) == gpucost::Format::unknown);
  CHECK(prep::detect_format("1,2,3\n4,5,6\n", o) == gpucost::Format::unknown);
}

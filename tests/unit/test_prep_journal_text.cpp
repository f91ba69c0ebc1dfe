// prep: journalctl text output (docs/formats.md, "Kernel logs"): short, short-precise, short-iso,
// short-iso-precise, short-unix, short-monotonic, with and without the host field, separators
// (-- Logs begin at --, -- Reboot --, -- Boot <id> --), localized month names. Fixtures in
// testdata/journal-text are hand-written in journalctl's shape; times are computed by hand.
#include <catch2/catch.hpp>

#include "support.hpp"

using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

void check_lines(const PrepRun& r) {
  gpucost::test::check_accounting(r);
  CHECK(r.stats.malformed == 0);
}

prep::PrepOptions with_year(int year) {
  prep::PrepOptions o;
  o.year = year;
  return o;
}

std::vector<std::string> kinds(const PrepRun& r) {
  std::vector<std::string> out;
  for (const auto& e : r.events) out.push_back(e.kind);
  return out;
}

}  // namespace

TEST_CASE("prep::journal-text: short, zero-padded days, lid, AC, suspend, a boot separator", "[prep][journal]") {
  const PrepRun r =
      run_prep_text(fixture("journal-text/short_thinkpad_p16_lid_ac.txt"), with_year(2024), "Europe/Berlin");
  check_lines(r);
  CHECK(r.stats.format == gpucost::Format::journal_text);
  CHECK(r.stats.lines == 25);
  // logind, NVIDIA's suspend unit ("Finished NVIDIA system suspend actions."), systemd-sleep and
  // the kernel each report the one suspend.
  REQUIRE(kinds(r) == std::vector<std::string>{"power_source", "lid", "suspend", "suspend", "suspend", "suspend",
                                               "resume", "power_source", "resume", "lid", "shutdown", "shutdown",
                                               "boot", "driver"});
  CHECK(r.stats.ignored == 25 - 14);  // two separators, watching buttons, upowerd, ModemManager, units, ...
  const auto& lid = r.events[1];
  CHECK(lid.source == "journal");
  CHECK(field(lid, "state") == "closed");
  CHECK(lid.ts_ns == utc_ns(2024, 9, 2, 17, 5, 11));  // Sep 02 19:05:11 CEST
  CHECK(field(r.events[0], "state") == "offline");
  CHECK(r.events[7].ts_ns == utc_ns(2024, 9, 3, 5, 58, 40));
  CHECK(r.events.back().ts_ns == utc_ns(2024, 9, 3, 6, 30, 52));
  CHECK(r.stats.clock == "local time in Europe/Berlin, year 2024 from --year");
}

TEST_CASE("prep::journal-text: short-iso with +hhmm offsets and -- Reboot --", "[prep][journal]") {
  const PrepRun r = run_prep_text(fixture("journal-text/short_iso_dgx_a100_reboot.txt"), {}, "Asia/Tokyo");
  check_lines(r);
  CHECK(r.stats.format == gpucost::Format::journal_text);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(kinds(r) == std::vector<std::string>{"xid", "shutdown", "shutdown", "shutdown", "boot", "driver", "driver"});
  CHECK(field(r.events[0], "code") == "64");
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 12, 12, 22, 18));
  CHECK(r.events[4].ts_ns == utc_ns(2024, 6, 12, 12, 28, 55));
  CHECK(r.stats.clock == "absolute (RFC 3339 offsets)");
  CHECK(r.stats.notes.empty());
}

TEST_CASE("prep::journal-text: short-iso-precise", "[prep][journal]") {
  const PrepRun r = run_prep_text(fixture("journal-text/short_iso_precise_h100_xid.txt"));
  check_lines(r);
  // RFC 3339 with microseconds and a colon offset: the same shape rsyslog writes.
  CHECK(r.stats.format == gpucost::Format::syslog);
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[0].ts_ns == utc_ns(2025, 1, 21, 2, 21, 33) + 498'559'000);
  CHECK(r.events[1].ts_ns == utc_ns(2025, 1, 21, 2, 21, 33) + 498'648'000);
  CHECK(field(r.events[2], "code") == "43");
}

TEST_CASE("prep::journal-text: short-precise, a failed suspend", "[prep][journal]") {
  const PrepRun r =
      run_prep_text(fixture("journal-text/short_precise_xps15_sleep_fail.txt"), with_year(2025), "America/Los_Angeles");
  check_lines(r);
  CHECK(r.stats.format == gpucost::Format::journal_text);
  REQUIRE(kinds(r) == std::vector<std::string>{"suspend", "suspend", "suspend", "resume", "resume"});
  // Feb 07 22:14:09.112874 PST (UTC-8)
  CHECK(r.events[0].ts_ns == utc_ns(2025, 2, 8, 6, 14, 9) + 112'874'000);
  CHECK(field(r.events[4], "failed") == "true");
  CHECK(r.events[4].ts_ns == utc_ns(2025, 2, 8, 6, 14, 12) + 402'713'000);
}

TEST_CASE("prep::journal-text: short-unix", "[prep][journal]") {
  const PrepRun r = run_prep_text(fixture("journal-text/short_unix_gpu01_xid.txt"), {}, "Europe/Berlin");
  check_lines(r);
  CHECK(r.stats.format == gpucost::Format::journal_text);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(kinds(r) == std::vector<std::string>{"xid", "gpu_lost"});
  CHECK(r.events[0].ts_ns == 1718194938 * kSec + 123'456'000);
  CHECK(r.events[1].ts_ns == 1718194938 * kSec + 123'502'000);
  CHECK(r.stats.event_lines == 3);  // the crash-dump line belongs to the gpu_lost incident
  CHECK(r.stats.clock == "absolute (seconds since the epoch)");
}

TEST_CASE("prep::journal-text: short-monotonic with and without --boot-time", "[prep][journal]") {
  const std::string text = fixture("journal-text/short_monotonic_gpu01_boots.txt");
  SECTION("without: seconds since boot, flagged") {
    const PrepRun r = run_prep_text(text);
    check_lines(r);
    CHECK(r.stats.format == gpucost::Format::journal_text);
    CHECK(r.stats.time_basis == gpucost::TimeBasis::uptime);
    REQUIRE(kinds(r) == std::vector<std::string>{"boot", "driver", "xid", "shutdown", "boot", "driver"});
    CHECK(r.events[0].ts_ns == 0);
    CHECK(r.events[2].ts_ns == 3600 * kSec + 4'411'000);
    CHECK(field(r.events[2], "uptime_s") == "3600.004411");
    CHECK(r.stats.clock == "uptime: seconds since boot (no --boot-time)");
    REQUIRE(r.stats.notes.size() == 2);
    CHECK(r.stats.notes[0].find("give --boot-time") != std::string::npos);
    CHECK(r.stats.notes[1].find("more than one boot") != std::string::npos);
  }
  SECTION("with: boot time + uptime, absolute") {
    prep::PrepOptions o;
    o.boot_time_ns = utc_ns(2024, 9, 30, 6, 0, 0);
    const PrepRun r = run_prep_text(text, o);
    check_lines(r);
    CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
    REQUIRE(r.events.size() == 6);
    CHECK(r.events[2].ts_ns == utc_ns(2024, 9, 30, 7, 0, 0) + 4'411'000);
    CHECK(r.stats.clock == "uptime + boot time 2024-09-30T06:00:00Z from --boot-time");
  }
}

TEST_CASE("prep::journal-text: French locale, no host field, abbreviations with a dot", "[prep][journal]") {
  const PrepRun r =
      run_prep_text(fixture("journal-text/fr_locale_nohost_suspend.txt"), with_year(2024), "Europe/Paris");
  check_lines(r);
  CHECK(r.stats.format == gpucost::Format::journal_text);
  REQUIRE(kinds(r) == std::vector<std::string>{"suspend", "suspend", "resume", "resume", "lid"});
  CHECK(r.events[0].ts_ns == utc_ns(2024, 9, 30, 21, 41, 20));  // sept. 30 23:41:20 CEST
  CHECK(r.events[4].ts_ns == utc_ns(2024, 10, 1, 6, 20, 5));    // oct. 01 08:20:05 CEST
}

TEST_CASE("prep::journal-text: Russian locale, no host field, AER records", "[prep][journal]") {
  const PrepRun r = run_prep_text(fixture("journal-text/ru_locale_nohost_aer.txt"), with_year(2024), "Europe/Moscow");
  check_lines(r);
  REQUIRE(kinds(r) == std::vector<std::string>{"aer", "lid"});
  CHECK(field(r.events[0], "severity") == "corrected");
  CHECK(field(r.events[0], "device") == "0000:01:00.0");
  CHECK(r.events[0].ts_ns == utc_ns(2024, 5, 28, 16, 2, 11));  // мая 28 19:02:11 MSK (UTC+3)
  CHECK(r.events[1].ts_ns == utc_ns(2024, 6, 2, 4, 45, 30));
  CHECK(r.stats.event_lines == 2 + 2);  // the device and error-name lines of the AER record
  CHECK(r.stats.ignored == 1);          // "AER: Corrected error message received from ..."
}

TEST_CASE("prep::journal-text: continuation lines of multi-line messages", "[prep][journal]") {
  const std::string text =
      "-- No entries --\n"
      "Jun 03 13:30:13 e2 kernel: nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
      "(Receiver ID)\n"
      "                           second line of the same message\n"
      "Jun 03 13:30:14 e2 systemd[1]: Started something.\n"
      "                              its second line\n"
      "\n";
  const PrepRun r = run_prep_text(text, with_year(2024));
  check_lines(r);
  CHECK(r.stats.format == gpucost::Format::journal_text);
  CHECK(r.events.size() == 1);
  CHECK(r.stats.event_lines == 2);
  CHECK(r.stats.ignored == 4);
}

TEST_CASE("prep::journal-text: detection", "[prep][journal][detect]") {
  const prep::PrepOptions o;
  for (const char* rel : {"journal-text/short_thinkpad_p16_lid_ac.txt", "journal-text/short_iso_dgx_a100_reboot.txt",
                          "journal-text/short_precise_xps15_sleep_fail.txt", "journal-text/short_unix_gpu01_xid.txt",
                          "journal-text/short_monotonic_gpu01_boots.txt", "journal-text/fr_locale_nohost_suspend.txt",
                          "journal-text/ru_locale_nohost_aer.txt"}) {
    INFO(rel);
    CHECK(prep::detect_format(fixture(rel), o) == gpucost::Format::journal_text);
  }
  // A dmesg-like stamp followed by "host ident[pid]:" is journalctl -o short-monotonic.
  CHECK(prep::detect_format("[   12.000001] gpu01 kernel: x\n", o) == gpucost::Format::journal_text);
  CHECK(prep::detect_format("[   12.000001] usb 1-2: New USB device found\n", o) == gpucost::Format::dmesg);
  CHECK(prep::detect_format("-- Reboot --\n", o) == gpucost::Format::journal_text);
}

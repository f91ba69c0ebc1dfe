// prep: kernel and system logs in syslog files (docs/formats.md, "Kernel logs"): RFC 3164 with and without the
// printk stamp, rsyslog RFC 3339, year inference from the file time with the Dec->Jan rollover,
// localized month names, host field present or absent. Fixtures in testdata/kernlog are
// hand-written in the shape of rsyslog's files; expected times are computed by hand.
#include <catch2/catch.hpp>

#include "support.hpp"

#include "prep/kernel/klog_common.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

prep::PrepOptions with_year(int year) {
  prep::PrepOptions o;
  o.year = year;
  return o;
}

/// prep over `text` written to a file whose modification time is `mtime_ns`.
PrepRun run_file(const std::string& text, std::int64_t mtime_ns, prep::PrepOptions options = {},
                 const std::string& tz = "UTC") {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("gpucost_syslog_test_" + std::to_string(::getpid()) + ".log");
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(mtime_ns / kSec);
  times[0].tv_nsec = times[1].tv_nsec = static_cast<long>(mtime_ns % kSec);
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
  auto reader = gpucost::io::LineReader::open(path.string());
  REQUIRE(reader);
  auto clock = gpucost::LocalClock::make(tz);
  REQUIRE(clock);
  gpucost::test::CollectingSink sink;
  PrepRun run;
  run.stats.path = path.string();
  run.status = prep::run_prep_input(**reader, options, *clock, sink, run.stats);
  run.events = std::move(sink.events);
  std::filesystem::remove(path);
  return run;
}

std::vector<std::string> kinds(const PrepRun& r) {
  std::vector<std::string> out;
  for (const auto& e : r.events) out.push_back(e.kind);
  return out;
}

const char* const kXidLine =
    "NVRM: Xid (PCI:0000:01:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.";

}  // namespace

TEST_CASE("prep::syslog: Ubuntu kern.log with the printk stamp in the message", "[prep][syslog]") {
  const PrepRun r =
      run_prep_text(fixture("kernlog/ubuntu2204_rtx3090_535_xid79_printk.log"), with_year(2024), "Europe/Berlin");
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::syslog);
  CHECK(r.stats.lines == 20);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);
  // Xid 79, fallen off the bus (+ 3 crash-dump lines of the same incident), AER (+ device and
  // error-name lines), driver load, two Xid 13.
  REQUIRE(kinds(r) == std::vector<std::string>{"xid", "gpu_lost", "aer", "driver", "xid", "xid"});
  CHECK(r.stats.event_lines == 1 + 4 + 3 + 1 + 2);
  CHECK(r.stats.ignored == 9);  // systemd, CRON, UFW, the GPU UUID line, the empty message, ...
  const auto& xid = r.events[0];
  CHECK(xid.source == "syslog");
  CHECK(xid.gpu == -1);
  CHECK(field(xid, "code") == "79");
  CHECK(field(xid, "uptime_s") == "8123.456802");
  // Mar  3 09:14:02 in Berlin (CET, UTC+1).
  CHECK(xid.ts_ns == utc_ns(2024, 3, 3, 8, 14, 2));
  CHECK(r.events[2].ts_ns == utc_ns(2024, 3, 3, 8, 15, 8));
  CHECK(r.events[5].ts_ns == utc_ns(2024, 3, 3, 8, 19, 33));
  CHECK(r.stats.first_ts_ns == utc_ns(2024, 3, 3, 8, 14, 2));
  CHECK(r.stats.last_ts_ns == utc_ns(2024, 3, 3, 8, 19, 33));
  // Wall time and printk uptime on one line give the boot time: 08:14:02Z - 8123.456802 s.
  CHECK(r.stats.clock ==
        "local time in Europe/Berlin, year 2024 from --year; kernel uptime stamps in the messages put the boot at "
        "2024-03-03T05:58:38.543198Z (line 6)");
}

TEST_CASE("prep::syslog: /var/log/messages without printk stamps, rsyslog repeats, multi-line records",
          "[prep][syslog]") {
  const PrepRun r = run_prep_text(fixture("kernlog/rhel9_h100_550_messages.log"), with_year(2024), "America/Chicago");
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(kinds(r) == std::vector<std::string>{"modeset", "modeset", "xid", "oom", "segfault", "driver", "driver",
                                               "thermal", "thermal", "thermal"});
  CHECK(field(r.events[1], "repeat") == "3");  // "message repeated 3 times: [ ... ]"
  CHECK(field(r.events[2], "code") == "119");
  CHECK(field(r.events[2], "uptime_s") == "<absent>");
  // Nov  8 02:31:09 in Chicago (CST, UTC-6).
  CHECK(r.events[2].ts_ns == utc_ns(2024, 11, 8, 8, 31, 9));
  // Lines that continue an event: GSP RPC dump (3), oom_reaper (1), segfault Code: (1).
  CHECK(r.stats.event_lines == r.stats.events + 3 + 1 + 1);
  CHECK(r.stats.clock == "local time in America/Chicago, year 2024 from --year");
}

TEST_CASE("prep::syslog: rsyslog RFC 3339 high-precision stamps are absolute", "[prep][syslog]") {
  const PrepRun r = run_prep_text(fixture("kernlog/rsyslog_rfc3339_l40s_550.log"), {}, "America/New_York");
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::syslog);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(kinds(r) == std::vector<std::string>{"driver", "xid", "xid"});
  // 2024-06-12T14:47:51.873140+02:00: the zone of --tz plays no part.
  CHECK(r.events[1].ts_ns == utc_ns(2024, 6, 12, 12, 47, 51) + 873'140'000);
  CHECK(r.events[2].ts_ns == utc_ns(2024, 6, 12, 12, 50, 3) + 551'200'000);
  CHECK(r.stats.clock ==
        "absolute (RFC 3339 offsets); kernel uptime stamps in the messages put the boot at "
        "2024-06-12T12:07:06.115944Z (line 2)");
  CHECK(r.stats.notes.empty());  // no year to infer
}

TEST_CASE("prep::syslog: other RFC 3339 zone forms", "[prep][syslog]") {
  const std::string text = std::string("2024-06-12T12:47:51.5Z h kernel: ") + kXidLine + "\n" +
                           "2024-06-12T08:47:51-0400 h kernel: " + kXidLine + "\n" +
                           "2024-06-12T14:47:51 h kernel: " + kXidLine + "\n";
  const PrepRun r = run_prep_text(text, {}, "Europe/Berlin");
  check_accounting(r);
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 12, 12, 47, 51) + kSec / 2);
  CHECK(r.events[1].ts_ns == utc_ns(2024, 6, 12, 12, 47, 51));
  CHECK(r.events[2].ts_ns == utc_ns(2024, 6, 12, 12, 47, 51));  // no offset: local (CEST)
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);       // the weakest basis seen
}

TEST_CASE("prep::syslog: the year comes from the file time, walking back over Dec->Jan", "[prep][syslog]") {
  const std::string text = fixture("kernlog/ws4090_newyear_rollover.log");
  SECTION("file written on Jan 3: the last line is in that year, the December lines in the year before") {
    const PrepRun r = run_file(text, utc_ns(2024, 1, 3, 12, 0, 0), {}, "Europe/Berlin");
    check_accounting(r);
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[0].ts_ns == utc_ns(2023, 12, 31, 17, 20, 44));  // Dec 31 18:20:44 CET
    CHECK(r.events[1].ts_ns == utc_ns(2023, 12, 31, 23, 0, 1));    // Jan  1 00:00:01 CET
    CHECK(r.events[2].ts_ns == utc_ns(2024, 1, 1, 8, 13, 12));
    CHECK(r.stats.clock ==
          "local time in Europe/Berlin, years 2023-2024 inferred from the file's modification time (Dec->Jan "
          "rollover); kernel uptime stamps in the messages put the boot at 2023-12-30T22:37:57.695789Z (line 2)");
    // The year on stderr too, with the file time it came from.
    REQUIRE(r.stats.notes.size() == 1);
    CHECK(r.stats.notes[0] ==
          "stamps without a year: years 2023-2024 inferred from the file's modification time (Dec->Jan rollover); the "
          "file's time is 2024-01-03T12:00:00Z: give --year if it was copied without keeping it");
  }
  SECTION("file written 18 months later: the last line is the latest Jan 1 not after it") {
    const PrepRun r = run_file(text, utc_ns(2025, 6, 1, 0, 0, 0), {}, "Europe/Berlin");
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[0].ts_ns == utc_ns(2024, 12, 31, 17, 20, 44));
    CHECK(r.events[2].ts_ns == utc_ns(2025, 1, 1, 8, 13, 12));
  }
  SECTION("a reference a few hours before the last line (zone slack) keeps the same year") {
    const PrepRun r = run_file(text, utc_ns(2024, 1, 1, 2, 0, 0), {}, "Europe/Berlin");
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[2].ts_ns == utc_ns(2024, 1, 1, 8, 13, 12));
  }
  SECTION("--year names the year of the first line and wins over the file time") {
    const PrepRun r = run_file(text, utc_ns(2024, 1, 3, 12, 0, 0), with_year(2019), "Europe/Berlin");
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[0].ts_ns == utc_ns(2019, 12, 31, 17, 20, 44));
    CHECK(r.events[2].ts_ns == utc_ns(2020, 1, 1, 8, 13, 12));
    CHECK(r.stats.clock.rfind("local time in Europe/Berlin, years 2019-2020 from --year (Dec->Jan rollover)", 0) == 0);
  }
  SECTION("no file time (stdin): the current time, with a note") {
    const PrepRun r = run_prep_text(text, {}, "Europe/Berlin");
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[2].ts_ns - r.events[0].ts_ns == utc_ns(2024, 1, 1, 8, 13, 12) - utc_ns(2023, 12, 31, 17, 20, 44));
    const auto now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    CHECK(r.events[2].ts_ns <= now + 26 * 3600 * kSec);
    CHECK(r.events[2].ts_ns > now - 366 * 86400 * kSec);
    REQUIRE(r.stats.notes.size() == 2);
    CHECK(r.stats.notes[0].find("give --year") != std::string::npos);
    CHECK(r.stats.notes[1].rfind("stamps without a year: years ", 0) == 0);
    CHECK(r.stats.notes[1].find("inferred from the current time (no file time)") != std::string::npos);
  }
}

TEST_CASE("prep::syslog: a month going down by less than six is not a new year", "[prep][syslog]") {
  const std::string text = std::string("Mar 10 10:00:00 h kernel: ") + kXidLine + "\n" +  //
                           "Jan 10 10:00:00 h kernel: " + kXidLine + "\n" +               // clock set back
                           "Aug 10 10:00:00 h kernel: " + kXidLine + "\n" +               // a long gap
                           "Feb 10 10:00:00 h kernel: " + kXidLine + "\n";                // down by 6: next year
  const PrepRun r = run_prep_text(text, with_year(2022));
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[0].ts_ns == utc_ns(2022, 3, 10, 10, 0, 0));
  CHECK(r.events[1].ts_ns == utc_ns(2022, 1, 10, 10, 0, 0));
  CHECK(r.events[2].ts_ns == utc_ns(2022, 8, 10, 10, 0, 0));
  CHECK(r.events[3].ts_ns == utc_ns(2023, 2, 10, 10, 0, 0));
}

TEST_CASE("prep::syslog: month names of other locales", "[prep][syslog]") {
  using gpucost::prep::klog::month_number;
  const std::pair<const char*, int> names[] = {
      {"Jan", 1},     {"jun", 6},   {"DEC", 12},  {"Sept", 9},  {"avril", 4}, {"AVRIL", 4}, {"févr.", 2},
      {"FÉVR.", 2},   {"juil.", 7}, {"août", 8},  {"déc.", 12}, {"Mär", 3},   {"MÄR", 3},   {"Okt", 10},
      {"Dez", 12},    {"ene", 1},   {"abr.", 4},  {"dic", 12},  {"авг", 8},   {"АВГ", 8},   {"фев", 2},
      {"Фев.", 2},    {"мая", 5},   {"сент.", 9}, {"Ноя", 11},  {"6月", 6},   {"12月", 12}, {"六月", 6},
      {"十二月", 12}, {"6월", 6},   {"gen", 1},   {"mrt", 3},   {"paź", 10},  {"лют", 2},   {"out", 10},
  };
  for (const auto& [name, month] : names) {
    INFO(name);
    CHECK(month_number(name) == month);
  }
  for (const char* bad : {"", ".", "Foo", "13月", "0月", "janvierx", "Jun5"}) {
    INFO(bad);
    CHECK(month_number(bad) == 0);
  }
  // Whole lines: the fast C-locale path and the general path place the same time.
  const std::pair<const char*, std::int64_t> lines[] = {
      {"avril 28 10:02:11 h kernel: ", utc_ns(2024, 4, 28, 10, 2, 11)},
      {"févr. 03 10:02:11 h kernel: ", utc_ns(2024, 2, 3, 10, 2, 11)},
      {"Mär 14 10:02:11 h kernel: ", utc_ns(2024, 3, 14, 10, 2, 11)},
      {"dic  1 10:02:11 h kernel: ", utc_ns(2024, 12, 1, 10, 2, 11)},
      {"фев 12 00:48:02 kernel: ", utc_ns(2024, 2, 12, 0, 48, 2)},
      {"авг 14 12:11:34 kernel: ", utc_ns(2024, 8, 14, 12, 11, 34)},
      {"6月 12 14:22:18 h kernel: ", utc_ns(2024, 6, 12, 14, 22, 18)},
      {" 6월 12 14:22:18 h kernel: ", utc_ns(2024, 6, 12, 14, 22, 18)},
  };
  for (const auto& [prefix, ts] : lines) {
    INFO(prefix);
    const PrepRun r = run_prep_text(std::string(prefix) + kXidLine + "\n", with_year(2024));
    check_accounting(r);
    REQUIRE(r.events.size() == 1);
    CHECK(r.events[0].ts_ns == ts);
  }
}

TEST_CASE("prep::syslog: an unknown month name borrows the month of the line before", "[prep][syslog]") {
  const std::string text =
      std::string("Jun 11 23:59:00 h kernel: x\n") + "Xyz 12 00:00:01 h kernel: " + kXidLine + "\n";
  const PrepRun r = run_prep_text(text, with_year(2024));
  check_accounting(r);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 12, 0, 0, 1));
  REQUIRE(r.stats.notes.size() == 2);
  CHECK(r.stats.notes[0] == "unknown month name 'Xyz' (line 2): the month of the line before is used");
  CHECK(r.stats.notes[1] == "stamps without a year: year 2024 from --year");
  // Without a line before it, an event cannot be placed: malformed.
  prep::PrepOptions forced = with_year(2024);
  forced.forced = gpucost::Format::syslog;  // not detected: no known month
  const PrepRun alone = run_prep_text(std::string("Xyz 12 00:00:01 h kernel: ") + kXidLine + "\n", forced);
  check_accounting(alone);
  CHECK(alone.stats.malformed == 1);
  REQUIRE(alone.stats.examples.size() == 1);
  CHECK(alone.stats.examples[0].reason == "unknown month name 'Xyz'");
}

TEST_CASE("prep::syslog: host field present or absent, identifiers of every shape", "[prep][syslog]") {
  const std::string text =
      "Sep  3 08:30:02 p16 kernel: reboot: Restarting system\n"
      "Sep  3 08:30:03 kernel: reboot: Restarting system\n"
      "Sep  3 08:30:04 p16 systemd-logind[1104]: Lid closed.\n"
      "Sep  3 08:30:05 systemd-logind[1104]: Lid opened.\n"
      "Sep  3 08:30:06 p16 /usr/bin/nvidia-persistenced[1402]: Started (1402)\n"
      "Sep  3 08:30:07 p16 (sd-pam)[2210]: pam_unix(systemd-user:session): session opened\n"
      "Sep  3 08:30:08 p16 systemd-sleep[41055]:   System returned from sleep state.\n"
      "Sep  3 08:30:09 p16 kernel:\n"
      "Sep  3 08:30:10 p16\n"
      "Sep  3 08:30:11 p16 some text without a tag\n";
  const PrepRun r = run_prep_text(text, with_year(2024));
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(kinds(r) == std::vector<std::string>{"shutdown", "shutdown", "lid", "lid", "driver", "resume"});
  CHECK(r.events[1].ts_ns == utc_ns(2024, 9, 3, 8, 30, 3));
  CHECK(field(r.events[3], "state") == "open");
  CHECK(field(r.events[4], "action") == "persistenced_start");
  CHECK(r.stats.ignored == 4);
}

TEST_CASE("prep::syslog: blank, CRLF, empty kernel messages, lines without a stamp", "[prep][syslog]") {
  const std::string text = std::string("Jun  5 22:36:51 h kernel: [ 4564.303884] \r\n") +     //
                           "\r\n" +                                                           //
                           "Jun  5 22:36:51 h kernel: [ 4564.303886] " + kXidLine + "\r\n" +  //
                           "this line has no stamp\n" +                                       //
                           "Jun  5 22:36:52 h kernel: [ 4564.903886] " + kXidLine;            // no final newline
  const PrepRun r = run_prep_text(text, with_year(2017));
  check_accounting(r);
  CHECK(r.stats.lines == 5);
  CHECK(r.events.size() == 2);
  CHECK(r.stats.ignored == 2);
  CHECK(r.stats.malformed == 1);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 4);
  CHECK(r.stats.examples[0].reason == "not a syslog line: no timestamp at the start");
  CHECK(field(r.events[1], "uptime_s") == "4564.903886");
}

TEST_CASE("prep::syslog: detection from the head of the input", "[prep][syslog][detect]") {
  const prep::PrepOptions o;
  for (const char* rel : {"kernlog/ubuntu2204_rtx3090_535_xid79_printk.log", "kernlog/rhel9_h100_550_messages.log",
                          "kernlog/rsyslog_rfc3339_l40s_550.log", "kernlog/ws4090_newyear_rollover.log"}) {
    INFO(rel);
    const std::string text = fixture(rel);
    CHECK(prep::detect_format(text, o) == gpucost::Format::syslog);
    CHECK(prep::detect_format(text.substr(0, text.find('\n')), o) == gpucost::Format::syslog);
    CHECK(prep::detect_format("\n\n" + text, o) == gpucost::Format::syslog);
  }
  CHECK(prep::detect_format("hello world\nthis is not a GPU log\n", o) == gpucost::Format::unknown);
  CHECK(prep::detect_format("Jun 12 14:22:18 is when it happened\n", o) == gpucost::Format::unknown);
  // One stamped line among many that are not: not a kernel log.
  CHECK(prep::detect_format("a\nb\nc\nJun 12 14:22:18 h kernel: x\n", o) == gpucost::Format::unknown);
}

TEST_CASE("prep::syslog: the format can be forced", "[prep][syslog]") {
  prep::PrepOptions o = with_year(2024);
  o.forced = gpucost::Format::syslog;
  const PrepRun r = run_prep_text(std::string("Jun 12 14:22:18 h kernel: ") + kXidLine + "\n", o);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::syslog);
  CHECK(r.events.size() == 1);
  gpucost::Format f = gpucost::Format::unknown;
  CHECK(format_from_name("syslog", f));
  CHECK(f == gpucost::Format::syslog);
  CHECK(format_name(gpucost::Format::journal_text) == "journal-text");
  CHECK(format_name(gpucost::Format::dmesg) == "dmesg");
}

TEST_CASE("prep::syslog: many events: the year buffer is released early and nothing is lost", "[prep][syslog]") {
  std::string text;
  constexpr int kEvents = 60'000;  // more than the buffer holds
  for (int i = 0; i < kEvents; ++i)
    text += std::string(i < kEvents / 2 ? "Dec 31" : "Jan  1") + " 10:00:00 h kernel: " + kXidLine + "\n";
  const PrepRun r = run_file(text, utc_ns(2024, 1, 2, 0, 0, 0));
  check_accounting(r);
  REQUIRE(r.events.size() == static_cast<std::size_t>(kEvents));
  CHECK(r.events.front().ts_ns == utc_ns(2023, 12, 31, 10, 0, 0));
  CHECK(r.events.back().ts_ns == utc_ns(2024, 1, 1, 10, 0, 0));
}

TEST_CASE("prep::syslog: times in the repeated hour of a DST fall-back name the change", "[prep][syslog][dst]") {
  // Oct 27 2024, Europe/Berlin: 03:00 CEST -> 02:00 CET. Lines 2-5 are CEST, 6-8 CET (the printk
  // uptimes run on), line 9 at 03:12 CET is after the repeated hour.
  const PrepRun r =
      run_prep_text(fixture("kernlog/ubuntu2204_a100_535_dst_fallback.log"), with_year(2024), "Europe/Berlin");
  check_accounting(r);
  REQUIRE(r.events.size() == 6);
  CHECK(r.events[0].ts_ns == utc_ns(2024, 10, 27, 0, 14, 5));  // 02:14:05 CEST
  CHECK(r.events[3].ts_ns == utc_ns(2024, 10, 27, 0, 3, 17));  // 02:03:17 CET, placed at its first occurrence
  CHECK(r.events[5].ts_ns == utc_ns(2024, 10, 27, 2, 12, 9));  // 03:12:09 CET
  REQUIRE(r.stats.repeated_hours.size() == 1);
  CHECK(r.stats.repeated_hours[0].events == 5);
  CHECK(r.stats.repeated_hours[0].step_line == 6);
  const std::string want =
      "clocks went back at 03:00 CEST\u2192CET on 2024-10-27 (Europe/Berlin): 5 events in the repeated hour "
      "02:00\u201303:00 are placed at its first occurrence (CEST); the times step back 37 min 14 s at line 6, where "
      "the hour repeats: the events logged from there until 03:00 CET are placed 1 h early";
  CHECK(std::find(r.stats.notes.begin(), r.stats.notes.end(), want) != r.stats.notes.end());

  // The same lines in another year (Oct 27 2023 is no change day: Berlin went back on Oct 29).
  const PrepRun other =
      run_prep_text(fixture("kernlog/ubuntu2204_a100_535_dst_fallback.log"), with_year(2023), "Europe/Berlin");
  CHECK(other.stats.repeated_hours.empty());
  for (const auto& n : other.stats.notes) CHECK(n.find("clocks went back") == std::string::npos);
}

// Clocks checked against each other (formats.md, "Year inference"): the year of a year-less
// kern.log against the telemetry of the same run, the warning when no year fits, the host names
// the lines give and the warning when one run's logs name several hosts. Expected times are
// computed by hand; the files get their modification time from the test (utimensat).
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/prep/clock_check.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

using gpucost::test::PrepRun;
using gpucost::test::utc_ns;
namespace fs = std::filesystem;
namespace prep = gpucost::prep;
namespace pipeline = gpucost::pipeline;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("gpucost-clock-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Writes `text` to `path` and sets its modification time.
void write_with_mtime(const fs::path& path, const std::string& text, std::int64_t mtime_ns) {
  std::ofstream(path, std::ios::binary) << text;
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(mtime_ns / kSec);
  times[0].tv_nsec = times[1].tv_nsec = static_cast<long>(mtime_ns % kSec);
  REQUIRE(::utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

/// prep of one year-less log with this mtime, dated against `span` when given.
PrepRun run_dated(const std::string& text, std::int64_t mtime_ns, std::optional<prep::TelemetrySpan> span,
                  std::optional<int> year = std::nullopt) {
  const fs::path dir = scratch("run");
  write_with_mtime(dir / "kern.log", text, mtime_ns);
  prep::PrepOptions options;
  options.telemetry_span = span;
  options.year = year;
  auto reader = gpucost::io::LineReader::open((dir / "kern.log").string());
  REQUIRE(reader);
  gpucost::LocalClock clock = gpucost::LocalClock::utc();
  gpucost::test::CollectingSink sink;
  PrepRun run;
  run.stats.path = "kern.log";
  run.status = prep::run_prep_input(**reader, options, clock, sink, run.stats);
  run.events = std::move(sink.events);
  fs::remove_all(dir);
  return run;
}

bool has_note_with(const gpucost::InputStats& st, const std::string& part) {
  for (const auto& n : st.notes)
    if (n.find(part) != std::string::npos) return true;
  return false;
}

const char* const kXid =
    "gpu07 kernel: NVRM: Xid (PCI:0000:01:00): 13, pid=4242, name=python, Graphics SM Warp Exception\n";

/// The telemetry of 2026-11-28, 14:00 to 14:30 UTC.
const prep::TelemetrySpan kNov28{utc_ns(2026, 11, 28, 14, 0, 0), utc_ns(2026, 11, 28, 14, 30, 0)};

}  // namespace

TEST_CASE("prep::fit_base_year: the inferred year unless it puts nothing inside", "[prep][clock]") {
  // Events inside for a base year, by hand: 2017 -> 3, 2018 -> 1, everything else 0.
  const auto inside = [](int y) -> std::size_t { return y == 2017 ? 3 : y == 2018 ? 1 : 0; };
  CHECK(prep::fit_base_year(2017, 2016, 2019, inside) == 2017);  // fits in the inferred year
  CHECK(prep::fit_base_year(2026, 2016, 2019, inside) == 2017);  // only years back: the most inside
  CHECK_FALSE(prep::fit_base_year(2026, 2020, 2025, inside));    // no candidate fits
  // Ties: the nearer to the inferred year, then the earlier.
  const auto two = [](int y) -> std::size_t { return y == 2020 || y == 2024 ? 2 : 0; };
  CHECK(prep::fit_base_year(2025, 2019, 2026, two) == 2024);
  CHECK(prep::fit_base_year(2022, 2019, 2026, two) == 2020);
}

TEST_CASE("prep::candidate_base_years: the span's years, widened by the rollovers and one year", "[prep][clock]") {
  CHECK(prep::candidate_base_years(kNov28, 0) == std::pair<int, int>{2025, 2027});
  CHECK(prep::candidate_base_years(kNov28, 2) == std::pair<int, int>{2023, 2027});
  const prep::TelemetrySpan decades{utc_ns(1950, 1, 1, 0, 0, 0), utc_ns(2026, 1, 1, 0, 0, 0)};
  CHECK(prep::candidate_base_years(decades, 0) == std::pair<int, int>{1963, 2027});  // at most 64 years
  CHECK(prep::utc_year(utc_ns(2024, 12, 31, 23, 59, 59)) == 2024);
  CHECK(prep::utc_year(utc_ns(2025, 1, 1, 0, 0, 0)) == 2025);
  CHECK(prep::utc_year(-1) == 1969);
}

TEST_CASE("prep::describe_shift and rough_duration: how far the events lie from the telemetry", "[prep][clock]") {
  // Events of Dec 1, 14:30 to 15:00: 3 days (72 h) after the telemetry ends at Nov 28 14:30.
  CHECK(prep::describe_shift(utc_ns(2026, 12, 1, 14, 30, 0), utc_ns(2026, 12, 1, 15, 0, 0), kNov28) ==
        "3 days after the telemetry ends");
  // An event at 13:40: 20 min before 14:00.
  CHECK(prep::describe_shift(utc_ns(2026, 11, 28, 13, 40, 0), utc_ns(2026, 11, 28, 13, 40, 0), kNov28) ==
        "20 min before the telemetry starts");
  CHECK(prep::describe_shift(utc_ns(2026, 11, 28, 13, 0, 0), utc_ns(2026, 11, 28, 14, 0, 0), kNov28).empty());
  CHECK(prep::describe_shift(utc_ns(2026, 11, 28, 14, 30, 0), utc_ns(2026, 11, 29, 0, 0, 0), kNov28).empty());
  CHECK(prep::rough_duration(45 * kSec) == "45 s");
  CHECK(prep::rough_duration(5 * 3600 * kSec) == "5 h");
  CHECK(prep::rough_duration(365 * 86400 * kSec) == "1 year");
  // 2017-03-02 to 2026-03-02: 3287 days = 8.9995 years -> 9.
  CHECK(prep::rough_duration(utc_ns(2026, 3, 2, 0, 0, 0) - utc_ns(2017, 3, 2, 0, 0, 0)) == "9 years");
}

TEST_CASE("prep::syslog: the inferred year is kept when it puts events inside the telemetry", "[prep][clock]") {
  // mtime 2026-12-01: Nov 28 is not after it, so 2026.
  const PrepRun r = run_dated(std::string("Nov 28 14:05:00 ") + kXid, utc_ns(2026, 12, 1, 9, 0, 0), kNov28);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == utc_ns(2026, 11, 28, 14, 5, 0));
  CHECK(r.stats.clock == "local time in UTC, year 2026 inferred from the file's modification time");
  CHECK(has_note_with(r.stats,
                      "stamps without a year: year 2026 inferred from the file's modification time; the "
                      "file's time is 2026-12-01T09:00:00Z: give --year if it was copied without keeping it"));
}

TEST_CASE("prep::syslog: a file time a year late is corrected by the telemetry (year - 1)", "[prep][clock]") {
  // Copied without -p in 2027-12: the mtime gives 2027, the telemetry says 2026.
  const PrepRun r = run_dated(std::string("Nov 28 14:05:00 ") + kXid, utc_ns(2027, 12, 1, 9, 0, 0), kNov28);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == utc_ns(2026, 11, 28, 14, 5, 0));
  CHECK(r.stats.clock == "local time in UTC, year 2026 inferred from the telemetry of the same run");
  CHECK(has_note_with(r.stats,
                      "stamps without a year: 2027 (from the file's modification time 2027-12-01T09:00:00Z) "
                      "puts all its events outside the telemetry (2026-11-28T14:00:00Z to "
                      "2026-11-28T14:30:00Z); 2026 puts them inside: 2026 used"));
}

TEST_CASE("prep::syslog: a 2017 kern.log copied in 2026 goes back N years to its telemetry", "[prep][clock]") {
  const prep::TelemetrySpan march2017{utc_ns(2017, 3, 2, 9, 0, 0), utc_ns(2017, 3, 2, 12, 0, 0)};
  const std::string log = std::string("Mar  2 09:30:00 ") + kXid + "Mar  2 11:59:59 " + kXid;
  const PrepRun r = run_dated(log, utc_ns(2026, 11, 30, 0, 0, 0), march2017);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].ts_ns == utc_ns(2017, 3, 2, 9, 30, 0));
  CHECK(r.events[1].ts_ns == utc_ns(2017, 3, 2, 11, 59, 59));
  CHECK(has_note_with(r.stats, "2026 (from the file's modification time"));
}

TEST_CASE("prep::syslog: no year fits: the inferred year stays (the run warns)", "[prep][clock]") {
  // Telemetry of Dec 1 2026; the log's only event is Nov 28: no year puts it inside.
  const prep::TelemetrySpan dec1{utc_ns(2026, 12, 1, 14, 5, 0), utc_ns(2026, 12, 1, 15, 0, 0)};
  const PrepRun r = run_dated(std::string("Nov 28 14:05:00 ") + kXid, utc_ns(2026, 12, 2, 0, 0, 0), dec1);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == utc_ns(2026, 11, 28, 14, 5, 0));
  CHECK(r.stats.clock == "local time in UTC, year 2026 inferred from the file's modification time");
}

TEST_CASE("prep::syslog: --year wins over the telemetry", "[prep][clock]") {
  const PrepRun r = run_dated(std::string("Nov 28 14:05:00 ") + kXid, utc_ns(2027, 12, 1, 9, 0, 0), kNov28, 2027);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == utc_ns(2027, 11, 28, 14, 5, 0));
  CHECK(has_note_with(r.stats, "stamps without a year: year 2027 from --year"));
}

TEST_CASE("prep::syslog: Feb 29 only fits a leap year", "[prep][clock]") {
  // The mtime (2026-06-01) gives 2024, the last Feb 29 not after it; the telemetry is of 2020.
  const prep::TelemetrySpan leap{utc_ns(2020, 2, 29, 9, 0, 0), utc_ns(2020, 2, 29, 11, 0, 0)};
  const PrepRun r = run_dated(std::string("Feb 29 10:00:00 ") + kXid, utc_ns(2026, 6, 1, 0, 0, 0), leap);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == utc_ns(2020, 2, 29, 10, 0, 0));
}

TEST_CASE("prep::syslog: a log across New Year keeps its rollover when re-dated", "[prep][clock]") {
  // mtime 2026-06-01: the last line (Jan 1) is 2026, so the first is 2025; the telemetry
  // spans the New Year of 2017: base year 2016, the second line in 2017.
  const prep::TelemetrySpan new_year{utc_ns(2016, 12, 31, 23, 0, 0), utc_ns(2017, 1, 1, 1, 0, 0)};
  const std::string log = std::string("Dec 31 23:59:00 ") + kXid + "Jan  1 00:01:00 " + kXid;
  const PrepRun r = run_dated(log, utc_ns(2026, 6, 1, 0, 0, 0), new_year);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].ts_ns == utc_ns(2016, 12, 31, 23, 59, 0));
  CHECK(r.events[1].ts_ns == utc_ns(2017, 1, 1, 0, 1, 0));
  CHECK(r.stats.clock ==
        "local time in UTC, years 2016-2017 inferred from the telemetry of the same run (Dec->Jan "
        "rollover)");
}

TEST_CASE("prep::syslog and journal: events carry the host their line names, --host wins", "[prep][clock]") {
  const std::string log = std::string("Nov 28 14:05:00 ") + kXid +
                          "Nov 28 14:06:00 gpu08 kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n";
  prep::PrepOptions options;
  options.year = 2026;
  options.host = "laptop";
  const PrepRun named = gpucost::test::run_prep_text(log, options);
  REQUIRE(named.events.size() == 2);
  CHECK(named.events[0].host == "gpu07");
  CHECK(named.events[1].host == "gpu08");
  CHECK(named.stats.hosts == std::vector<std::string>{"gpu07", "gpu08"});
  options.host_given = true;
  const PrepRun forced = gpucost::test::run_prep_text(log, options);
  REQUIRE(forced.events.size() == 2);
  CHECK(forced.events[0].host == "laptop");
  CHECK(forced.events[1].host == "laptop");
  CHECK(forced.stats.hosts.empty());
  // journalctl --no-hostname: no host on the line, the option's fills in.
  options.host_given = false;
  const PrepRun bare = gpucost::test::run_prep_text(
      "Nov 28 14:05:00 kernel: NVRM: Xid (PCI:0000:01:00): 13, pid=1, name=python, Graphics SM Warp Exception\n",
      options);
  REQUIRE(bare.events.size() == 1);
  CHECK(bare.events[0].host == "laptop");
  // journalctl -o json: _HOSTNAME.
  const PrepRun json = gpucost::test::run_prep_text(
      R"({"__REALTIME_TIMESTAMP":"1764338700000000","_HOSTNAME":"ws-kestrel","_TRANSPORT":"kernel",)"
      R"("SYSLOG_IDENTIFIER":"kernel","MESSAGE":"NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus."})"
      "\n",
      options);
  REQUIRE(json.events.size() == 1);
  CHECK(json.events[0].host == "ws-kestrel");
}

namespace {

const char* const kCsvHeader =
    "timestamp, index, pci.bus_id, name, power.draw [W], temperature.gpu, utilization.gpu [%], "
    "utilization.memory [%], memory.used [MiB], clocks.current.sm [MHz], clocks.max.sm [MHz]\n";

std::string csv_row(const char* stamp) {
  return std::string(stamp) +
         ", 0, 00000000:18:00.0, NVIDIA H100 80GB HBM3, 612.50 W, 71, 97 %, 40 %, 60000 MiB, 1980 MHz, 1980 MHz\n";
}

struct Collected {
  std::vector<gpucost::InputStats> stats;
  std::vector<gpucost::test::OwnedEvent> events;
};

Collected collect(const std::vector<std::string>& paths, prep::PrepOptions options = {}) {
  gpucost::LocalClock clock = gpucost::LocalClock::utc();
  gpucost::test::CollectingSink sink;
  Collected c;
  auto probed = pipeline::probe_inputs(paths, options);
  REQUIRE(probed);
  REQUIRE(pipeline::collect_inputs(*probed, options, clock, sink, c.stats));
  c.events = std::move(sink.events);
  return c;
}

}  // namespace

TEST_CASE("pipeline::collect_inputs: a kern.log given before its telemetry is still dated by it", "[pipeline][clock]") {
  const fs::path dir = scratch("collect");
  write_with_mtime(dir / "query.csv",
                   std::string(kCsvHeader) + csv_row("2026/11/28 14:00:00.000") + csv_row("2026/11/28 14:30:00.000"),
                   utc_ns(2026, 11, 28, 14, 30, 0));
  write_with_mtime(dir / "kern.log", std::string("Nov 28 14:05:00 ") + kXid, utc_ns(2028, 1, 10, 0, 0, 0));
  const Collected c = collect({(dir / "kern.log").string(), (dir / "query.csv").string()});
  REQUIRE(c.stats.size() == 2);
  CHECK(c.stats[0].format == gpucost::Format::syslog);  // command-line order kept
  CHECK(c.stats[0].first_ts_ns == utc_ns(2026, 11, 28, 14, 5, 0));
  CHECK(c.stats[0].warnings.empty());
  CHECK(has_note_with(c.stats[0], "2027 (from the file's modification time"));
  fs::remove_all(dir);
}

TEST_CASE("pipeline::collect_inputs: no year fits: a warning names the shift", "[pipeline][clock]") {
  const fs::path dir = scratch("shift");
  write_with_mtime(dir / "query.csv",
                   std::string(kCsvHeader) + csv_row("2026/11/25 14:00:00.000") + csv_row("2026/11/25 14:05:00.000"),
                   utc_ns(2026, 11, 25, 14, 30, 0));
  // Two events on Nov 28 at 14:05 and 14:06: 3 days after the telemetry ends (Nov 25 14:05).
  write_with_mtime(dir / "kern.log", std::string("Nov 28 14:05:00 ") + kXid + "Nov 28 14:06:00 " + kXid,
                   utc_ns(2026, 12, 1, 0, 0, 0));
  const Collected c = collect({(dir / "query.csv").string(), (dir / "kern.log").string()});
  REQUIRE(c.stats.size() == 2);
  REQUIRE(c.stats[1].warnings.size() == 1);
  CHECK(c.stats[1].warnings[0] ==
        "its 2 events fall 3 days after the telemetry ends (telemetry 2026-11-25T14:00:00Z to 2026-11-25T14:05:00Z): "
        "not priced; check --year, --boot-time, --tz or the machine's clock");
  // --year: no re-dating, the same warning.
  prep::PrepOptions o;
  o.year = 2026;
  const Collected y = collect({(dir / "query.csv").string(), (dir / "kern.log").string()}, o);
  REQUIRE(y.stats[1].warnings.size() == 1);
  CHECK(y.stats[1].warnings[0].rfind("its 2 events fall 3 days after", 0) == 0);
  fs::remove_all(dir);
}

TEST_CASE("pipeline::collect_inputs: host logs of several hosts warn, naming them", "[pipeline][clock]") {
  const fs::path dir = scratch("hosts");
  write_with_mtime(dir / "a.log", std::string("Nov 28 14:05:00 ") + kXid, utc_ns(2026, 12, 1, 0, 0, 0));
  write_with_mtime(dir / "b.log",
                   "Nov 28 14:06:00 gpu08 kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n",
                   utc_ns(2026, 12, 1, 0, 0, 0));
  const Collected c = collect({(dir / "a.log").string(), (dir / "b.log").string()});
  REQUIRE(c.stats.size() == 2);
  CHECK(c.stats[0].warnings.empty());
  REQUIRE(c.stats[1].warnings.size() == 1);
  CHECK(c.stats[1].warnings[0] ==
        "the host logs of this run name 2 hosts (gpu07, gpu08): their incidents are priced as one machine's; give "
        "each host's telemetry beside its logs (each host is then priced apart), or --host if they are one machine");
  // --host says they are one machine: no names kept, no warning.
  prep::PrepOptions o;
  o.host = "gpu07";
  o.host_given = true;
  const Collected one = collect({(dir / "a.log").string(), (dir / "b.log").string()}, o);
  CHECK(one.stats[1].warnings.empty());
  for (const auto& e : one.events) CHECK(e.host == "gpu07");
  fs::remove_all(dir);
}

// prep -j N on one input (src/prep/chunked_parse.cpp): at the real chunk sizes (64 KiB parsed
// first, then 128 KiB chunks), the events stream and the accounting are those of one thread.
// tests/cli/jobs_identical.sh and the golden cases run the same comparison with chunks of a few lines.
#include <catch2/catch.hpp>

#include "prep/telemetry/smi_table.hpp"
#include "support.hpp"

#include <gpucost/core/event_buffer.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>
#include <gpucost/io/event_stream.hpp>

#include <cstdio>
#include <string>

namespace prep = gpucost::prep;
namespace io = gpucost::io;

namespace {

struct StreamRun {
  std::string stream;  // the events as `gpucost prep` writes them
  gpucost::InputStats stats;
};

StreamRun prep_stream(const std::string& text, unsigned jobs, prep::PrepOptions options = {},
                      const std::string& tz = "UTC") {
  options.jobs = jobs;
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  StreamRun run;
  {
    io::EventWriter writer(f, io::StreamFormat::jsonl);
    auto reader = io::LineReader::from_string(text);
    auto clock = gpucost::LocalClock::make(tz);
    REQUIRE(clock.has_value());
    run.stats.path = "test";
    REQUIRE(static_cast<bool>(prep::run_prep_input(*reader, options, *clock, writer, run.stats)));
    writer.write_summary({run.stats});
    writer.flush();
  }
  std::rewind(f);
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) run.stream.append(buf, n);
  std::fclose(f);
  return run;
}

void check_same(const StreamRun& one, const StreamRun& many) {
  CHECK(one.stream.size() == many.stream.size());
  CHECK(one.stream == many.stream);  // the summary line holds the accounting, notes and clock anomalies
  CHECK(one.stats.lines == many.stats.lines);
  CHECK(one.stats.events == many.stats.events);
  CHECK(one.stats.malformed == many.stats.malformed);
  CHECK(one.stats.examples.size() == many.stats.examples.size());
}

// dmon without times, 8 GPUs, about 1.2 MB: rows placed by their sampling cycle, with a few cut
// rows (malformed: the cycle count must not take them) and the header repeated every 20 cycles.
std::string dmon_without_times() {
  std::string out;
  char row[160];
  for (int c = 0; c < 1500; ++c) {
    if (c % 20 == 0) {
      out += "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n";
      out += "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n";
    }
    if (c % 377 == 5) out += "    0    301     40\n";
    for (int g = 0; g < 8; ++g) {
      std::snprintf(row, sizeof row, "%5d %6d %6d %6d %6d %6d      0      0      0      0   2619   1980 \n", g,
                    300 + (c * 7 + g) % 400, 40 + g, 35 + g, (c + g) % 101, (c * 3 + g) % 101);
      out += row;
    }
  }
  return out;
}

// A query CSV of 4 GPUs in Europe/Berlin over the DST change of 2024-10-27, about 1 MB: the hour
// repeats, the clock steps back, and a run of rows has a bad number.
std::string query_over_fall_back() {
  std::string out = "timestamp, index, power.draw [W], utilization.gpu [%]\n";
  char row[160];
  for (int s = 0; s < 3 * 3600; s += 1) {
    const int local = s < 7200 ? 3600 + s : 3600 + s - 3600;  // 01:00..03:00, then 02:00..03:59 again
    for (int g = 0; g < 4; ++g) {
      const bool bad = s > 5000 && s < 5003;
      std::snprintf(row, sizeof row, "2024/10/27 %02d:%02d:%02d.%03d, %d, %s W, %d %%\n", local / 3600, local / 60 % 60,
                    local % 60, 100 + g, g, bad ? "12x" : "250.25", (s + g) % 101);
      out += row;
    }
  }
  return out;
}

// journalctl -o json-pretty over two boots and three host names, about 1.3 MB, with an object
// cut short by the next one (malformed: its 8 lines) and a kernel Xid now and then.
std::string journal_pretty() {
  std::string out;
  char entry[1024];
  for (int i = 0; i < 4000; ++i) {
    const bool second_boot = i >= 1700;
    const char* boot = second_boot ? "7e1c9a8b6d42b8f4d6a0c1e43a9b7d5f" : "2b8f4d6a0c1e43a9b7d5f3e1c9a8b6d4";
    const long long mono = 2004551LL + i * 1000000LL;
    const long long real = (second_boot ? 1751300000000000LL : 1751266701035801LL) + i * 1000000LL;
    const char* message = i % 97 == 13 ? "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus."
                                       : "ACPI: AC: AC Adapter [AC] (off-line)";
    std::snprintf(entry, sizeof entry,
                  "{\n"
                  "        \"__REALTIME_TIMESTAMP\" : \"%lld\",\n"
                  "        \"__MONOTONIC_TIMESTAMP\" : \"%lld\",\n"
                  "        \"_BOOT_ID\" : \"%s\",\n"
                  "        \"_TRANSPORT\" : \"kernel\",\n"
                  "        \"SYSLOG_IDENTIFIER\" : \"kernel\",\n"
                  "        \"MESSAGE\" : \"%s\",\n"
                  "        \"_HOSTNAME\" : \"node%d\"\n",
                  real, mono, boot, message, i / 1500);
    out += entry;
    if (i != 1234) out += "}\n";  // 1234: cut short, the next object starts
  }
  return out;
}

// A kern.log (RFC 3164 stamps, no year) of `lines` lines, one a second from `start_s` seconds
// into December 31 (local time), over New Year when long enough: mostly noise; an Xid every
// `xid_every` lines; a 4-line AER record (its detail lines continue the event, in the same
// second) every 97; an indented continuation line, a line without a stamp (malformed) and a bad
// day now and then. The `uptime` printk stamps give the boot time.
std::string kern_log(int lines, int start_s, int xid_every) {
  static constexpr const char* kAer[] = {
      "pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0",
      "nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
      "nvidia 0000:01:00.0:   device [10de:2684] error status/mask=00000001/0000e000",
      "nvidia 0000:01:00.0:    [ 0] RxErr                  (First)"};
  std::string out;
  char row[256];
  for (int i = 0; i < lines; ++i) {
    const int t = start_s + i;  // seconds since Dec 31 00:00
    const bool january = t >= 86400;
    const int day = january ? 1 + (t - 86400) / 86400 : 31;
    const int sod = t % 86400;
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%s %2d %02d:%02d:%02d", january ? "Jan" : "Dec", day, sod / 3600, sod / 60 % 60,
                  sod % 60);
    const int uptime = 1000 + i;
    if (i % 97 == 50) {
      for (const char* line : kAer) {
        std::snprintf(row, sizeof row, "%s node7 kernel: [%5d.%06d] %s\n", stamp, uptime, 1000 + i % 1000, line);
        out += row;
      }
      continue;
    }
    if (i % 1201 == 600) out += "    an indented continuation line\n";
    if (i % 3001 == 1500) out += "garbage without a stamp\n";
    if (i % 4999 == 2500)
      out +=
          std::string(january ? "Jan" : "Dec") + " 32 10:00:00 node7 kernel: NVRM: Xid (PCI:0000:01:00): 31, bad day\n";
    const bool xid = i % xid_every == 0;
    std::snprintf(row, sizeof row, "%s node7 kernel: [%5d.%06d] %s\n", stamp, uptime, i % 1000000,
                  xid ? "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python3, Ch 00000008"
                      : "audit: type=1400 audit(1718194938.123:42): apparmor=\"DENIED\" operation=\"open\" "
                        "profile=\"snap.firefox.firefox\" name=\"/proc/1/cgroup\"");
    out += row;
  }
  return out;
}

// A syslog in Europe/Berlin over the DST fall-back of 2024-10-27 (02:00-03:00 twice), a line a
// second from 01:00, an Xid every 7 lines, about 1.3 MB.
std::string syslog_over_fall_back() {
  std::string out;
  char row[256];
  for (int s = 0; s < 3 * 3600; ++s) {
    const int local = s < 7200 ? 3600 + s : s;  // 01:00..03:00, then 02:00..03:59 again
    std::snprintf(row, sizeof row, "Oct 27 %02d:%02d:%02d node7 kernel: [%5d.000000] %s\n", local / 3600,
                  local / 60 % 60, local % 60, 100 + s,
                  s % 7 == 0 ? "NVRM: Xid (PCI:0000:01:00): 13, pid=4242, name=python3, Graphics SM Warp Exception"
                             : "usb 1-3: new high-speed USB device number 7 using xhci_hcd");
    out += row;
  }
  return out;
}

}  // namespace

TEST_CASE("prep -j: a kern.log over New Year in chunks is the log on one thread", "[prep][jobs][kern]") {
  // No --year: the events are held until the year is inferred (here from the current time).
  const std::string text = kern_log(16000, 86400 - 3 * 3600, 41);
  REQUIRE(text.size() > 1'000'000);
  const StreamRun one = prep_stream(text, 1);
  CHECK(one.stats.malformed >= 5);
  CHECK(one.stats.events > 16000 / 41);
  CHECK(one.stream.find("Dec->Jan rollover") != std::string::npos);
  CHECK(one.stream.find("put the boot at") != std::string::npos);
  for (const unsigned jobs : {2u, 3u, 4u}) check_same(one, prep_stream(text, jobs));
  // With --year the events go out as they come, in every chunk.
  prep::PrepOptions options;
  options.year = 2024;
  const StreamRun year = prep_stream(text, 1, options);
  CHECK(year.stream.find("\"ts_ns\":173568") != std::string::npos);  // 2025-01-01T00:0x: the rollover
  for (const unsigned jobs : {3u, 4u}) check_same(year, prep_stream(text, jobs, options));
}

TEST_CASE("prep -j: a kern.log holding more events than the buffer keeps settles its year in a join",
          "[prep][jobs][kern]") {
  // An Xid every other line: the buffer of held events (50 000) fills in the middle of the input,
  // where a chunk is joined, and the year inferred there dates the rest as it comes.
  const std::string text = kern_log(110000, 86400 - 20 * 3600, 2);
  REQUIRE(text.size() > 10'000'000);
  const StreamRun one = prep_stream(text, 1);
  CHECK(one.stats.events > 55000);
  check_same(one, prep_stream(text, 3));  // chunks from -j 3 (SyslogParser::chunks_from_jobs)
}

TEST_CASE("prep -j: a syslog over a DST fall-back in chunks is the log on one thread", "[prep][jobs][kern]") {
  const std::string text = syslog_over_fall_back();
  REQUIRE(text.size() > 1'000'000);
  prep::PrepOptions options;
  options.year = 2024;
  const StreamRun one = prep_stream(text, 1, options, "Europe/Berlin");
  REQUIRE(one.stats.repeated_hours.size() == 1);
  for (const unsigned jobs : {2u, 3u}) {
    const StreamRun many = prep_stream(text, jobs, options, "Europe/Berlin");
    check_same(one, many);
    REQUIRE(many.stats.repeated_hours.size() == 1);
    CHECK(many.stats.repeated_hours[0].events == one.stats.repeated_hours[0].events);
  }
  // Without --year the same events wait for the year, then the hour repeats the same way.
  check_same(prep_stream(text, 1, {}, "Europe/Berlin"), prep_stream(text, 3, {}, "Europe/Berlin"));
}

TEST_CASE("prep -j: journal json-pretty in chunks is the journal on one thread", "[prep][jobs]") {
  const std::string text = journal_pretty();
  REQUIRE(text.size() > 1'000'000);
  prep::PrepOptions options;
  options.host = "gpu-box";
  options.host_given = true;  // the notes then name the journal's host names
  const StreamRun one = prep_stream(text, 1, options);
  CHECK(one.stats.malformed == 8);
  CHECK(one.stats.events == 3999);  // the AC adapter lines are power events too
  for (const unsigned jobs : {2u, 3u}) check_same(one, prep_stream(text, jobs, options));
}

TEST_CASE("prep -j: dmon without times in chunks is dmon on one thread", "[prep][jobs]") {
  const std::string text = dmon_without_times();
  REQUIRE(text.size() > 1'000'000);
  const StreamRun one = prep_stream(text, 1);
  CHECK(one.stats.malformed == 4);
  for (const unsigned jobs : {2u, 3u, 8u}) check_same(one, prep_stream(text, jobs));
}

TEST_CASE("prep -j: a query CSV over a DST fall-back in chunks is the CSV on one thread", "[prep][jobs]") {
  const std::string text = query_over_fall_back();
  REQUIRE(text.size() > 1'000'000);
  const StreamRun one = prep_stream(text, 1, {}, "Europe/Berlin");
  CHECK(one.stats.malformed == 8);
  REQUIRE(one.stats.repeated_hours.size() == 1);
  CHECK(one.stats.repeated_hours[0].step_line > 0);
  const StreamRun three = prep_stream(text, 3, {}, "Europe/Berlin");
  check_same(one, three);
  REQUIRE(three.stats.repeated_hours.size() == 1);
  CHECK(three.stats.repeated_hours[0].events == one.stats.repeated_hours[0].events);
  CHECK(three.stats.repeated_hours[0].step_line == one.stats.repeated_hours[0].step_line);
}

TEST_CASE("prep::token_at finds the token split_tokens finds", "[prep][dmon]") {
  const char* lines[] = {"    0    631     63  -  ", "0,  631 , 63,,", "a", "", "2024, 1,", " , x"};
  std::vector<std::string_view> tokens;
  for (const char* line : lines) {
    for (const bool csv : {false, true}) {
      prep::split_tokens(line, csv, tokens);
      for (std::size_t i = 0; i < tokens.size() + 2; ++i) {
        INFO(line << " csv=" << csv << " i=" << i);
        CHECK(prep::token_at(line, csv, i) == (i < tokens.size() ? tokens[i] : std::string_view{}));
      }
    }
  }
}

TEST_CASE("LocalClock::add_fall_backs adds the ones met elsewhere, once, in the order met", "[core][time]") {
  auto clock = gpucost::LocalClock::make("Europe/Berlin");
  REQUIRE(clock.has_value());
  gpucost::LocalClock chunk = *clock;
  const auto local = [](int year, unsigned month, unsigned day) {
    return gpucost::CivilTime{year, month, day, 2, 30, 0, 0}.as_utc_ns();
  };
  chunk.to_utc_ns(local(2024, 10, 27));  // in the repeated hour: met
  clock->to_utc_ns(local(2023, 10, 29));
  clock->add_fall_backs(chunk);
  clock->add_fall_backs(chunk);
  REQUIRE(clock->fall_backs().size() == 2);
  CHECK(clock->fall_backs()[0].at_ns < clock->fall_backs()[1].at_ns);
}

TEST_CASE("extract -j: a log's chunks collected side by side give -j 1's document", "[extract][jobs]") {
  // The samples of the dmon log, a spilling store, and the Xids of a journal after it.
  const std::string dmon = dmon_without_times(), journal = journal_pretty();
  prep::PrepOptions start;
  start.start = gpucost::parse_iso8601("2025-06-30T06:58:00Z");
  std::string first;
  for (const unsigned jobs : {1U, 3U}) {
    INFO("jobs " << jobs);
    gpucost::extract::SampleCollector collector(4096);
    for (const std::string* text : {&dmon, &journal}) {
      prep::PrepOptions options = start;
      options.jobs = jobs;
      auto reader = io::LineReader::from_string(*text);
      auto clock = gpucost::LocalClock::make("UTC");
      gpucost::InputStats stats;
      REQUIRE(static_cast<bool>(prep::run_prep_input(*reader, options, *clock, collector, stats)));
    }
    REQUIRE(collector.store().runs() > 0);
    REQUIRE(!collector.incidents().empty());
    gpucost::extract::ExtractOptions o;
    o.jobs = jobs;
    auto f = gpucost::extract::compute_features(collector, o);
    REQUIRE(f.has_value());
    const std::string json = gpucost::extract::features_to_json(*f);
    if (jobs == 1)
      first = json;
    else
      CHECK(json == first);
  }
}

TEST_CASE("EventBuffer hands on the events it kept, strings and metrics as they were", "[core][jobs]") {
  gpucost::EventBuffer buffer;
  std::string source = "journal", kind = "xid", key = "code", value = "79", text = "250.50";
  gpucost::Event ev;
  ev.ts_ns = 42;
  ev.gpu = 3;
  ev.source = source;
  ev.kind = kind;
  ev.host = "node7";
  ev.set(gpucost::Metric::power_w, 250.5, text);
  ev.add_text(key, value);
  buffer.add(ev);
  ev.reset();
  ev.kind = "sample";
  ev.set(gpucost::Metric::sm_pct, 97);
  buffer.add(ev);
  source = kind = key = value = text = "overwritten";  // what the buffer kept is its own
  gpucost::test::CollectingSink sink;
  buffer.replay(sink);
  REQUIRE(sink.events.size() == 2);
  CHECK(sink.events[0].ts_ns == 42);
  CHECK(sink.events[0].gpu == 3);
  CHECK(sink.events[0].source == "journal");
  CHECK(sink.events[0].kind == "xid");
  CHECK(sink.events[0].host == "node7");
  CHECK(sink.events[0].metric("power_w") == 250.5);
  CHECK(sink.events[0].fields.at("code") == "79");
  CHECK(sink.events[1].kind == "sample");
  CHECK(sink.events[1].metric("sm_pct") == 97);
  CHECK(!sink.events[1].metric("power_w").has_value());
  CHECK(sink.events[1].fields.empty());
}

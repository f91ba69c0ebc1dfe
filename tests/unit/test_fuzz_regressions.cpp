// Inputs found by the libFuzzer targets (tools/fuzz, docs/reliability.md), reduced by hand to
// the line that mattered. Each runs through the entry point its target fuzzes and must neither
// crash (the ASan+UBSan CI build runs these too) nor break the line accounting.
#include "support.hpp"

#include <gpucost/extract/extract.hpp>
#include <gpucost/io/event_stream.hpp>

#include <limits>
#include <string>

using gpucost::test::check_accounting;
using gpucost::test::run_prep_text;
namespace prep = gpucost::prep;

namespace {

prep::PrepOptions forced(gpucost::Format f) {
  prep::PrepOptions o;
  o.forced = f;
  return o;
}

void check_no_events_from_junk_time(const gpucost::test::PrepRun& r) {
  check_accounting(r);
  for (const auto& e : r.events) {
    // Whatever was kept has a time on the ns clock, not a wrapped-around value.
    CHECK(e.ts_ns > gpucost::test::utc_ns(1900, 1, 1, 0, 0, 0));
    CHECK(e.ts_ns < gpucost::test::utc_ns(2200, 12, 31, 0, 0, 0));
  }
}

}  // namespace

TEST_CASE("fuzz: event stream records are counted as event lines", "[fuzz]") {
  // lines == event_lines + ignored + malformed failed: read_event_stream never counted event_lines.
  const std::string text =
      "{\"type\":\"header\",\"schema\":\"gpucost.events\",\"version\":1,\"generator\":\"gpucost 0.1.0\",\"tz\":\"UTC\","
      "\"time_unit\":\"ns\"}\n"
      "{\"type\":\"event\",\"ts_ns\":1711846798101000000,\"source\":\"query-csv\",\"host\":\"h\",\"gpu\":0,"
      "\"kind\":\"sample\",\"power_w\":301.17,\"temp_c\":71}\n"
      "{\"type\":\"summary\",\"inputs\":[],\"lines\":3,\"events\":1,\"ignored\":1,\"malformed\":1}\n";
  auto reader = gpucost::io::LineReader::from_string(text);
  gpucost::test::CollectingSink sink;
  gpucost::InputStats stats;
  REQUIRE(gpucost::io::read_event_stream(*reader, sink, stats));
  CHECK(stats.lines == 3);
  CHECK(stats.events == 1);
  CHECK(stats.event_lines == 1);
  CHECK(stats.lines == stats.event_lines + stats.ignored + stats.malformed);
}

TEST_CASE("fuzz: a date far outside 1900-2200 is no valid time (ns overflow)", "[fuzz]") {
  // CivilTime::as_utc_ns() overflowed int64 ns for years like 9999 or 0332 (UBSan: signed
  // integer overflow in core/time.cpp); valid_civil() now rejects years outside 1900-2200.
  CHECK_FALSE(gpucost::parse_iso8601("9999-06-12T14:22:18Z"));
  CHECK_FALSE(gpucost::parse_iso8601("0332-06-12T14:22:18+02:00"));
  CHECK(gpucost::parse_iso8601("2024-06-12T14:22:18Z"));
  check_no_events_from_junk_time(run_prep_text(
      "9999-06-12T14:22:18.120456+02:00 l40s-rack3 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\n"
      "0332-06-12T14:22:19.000000+02:00 l40s-rack3 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\n"
      "2024-06-12T14:22:20.000000+02:00 l40s-rack3 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\n",
      forced(gpucost::Format::syslog), "Europe/Berlin"));
  check_no_events_from_junk_time(
      run_prep_text("timestamp, name, index, utilization.gpu [%]\n"
                    "9999/06/12 14:22:18.123, NVIDIA A100, 0, 50 %\n"
                    "2024/06/12 14:22:19.123, NVIDIA A100, 0, 51 %\n",
                    forced(gpucost::Format::query_csv), "Europe/Berlin"));
  check_no_events_from_junk_time(run_prep_text(
      "2024-06-12T14:22:18.120456+02:00 l40s-rack3 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\n"
      "9999-06-12T14:22:18.120456+02:00 l40s-rack3 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\n",
      prep::PrepOptions{}, "Europe/Berlin"));
}

TEST_CASE("fuzz: a 12-digit kernel uptime overflows no more", "[fuzz]") {
  // parse_uptime() read up to 12 digits of seconds and multiplied them into ns (UBSan: signed
  // integer overflow in parse_syslog.cpp), reached from dmesg, kern.log, journal text and
  // detection; uptimes of 95 years or more are now no uptime.
  const std::string xid = "NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\n";
  prep::PrepOptions dmesg = forced(gpucost::Format::dmesg);
  dmesg.boot_time_ns = gpucost::test::utc_ns(2024, 6, 12, 0, 0, 0);
  check_no_events_from_junk_time(
      run_prep_text("[    3.441802] " + xid + "[123456789012.000000] " + xid + "[41886204130.5] " + xid, dmesg));
  check_no_events_from_junk_time(run_prep_text("[123456789012.000000] " + xid, forced(gpucost::Format::dmesg)));
  prep::PrepOptions syslog = forced(gpucost::Format::syslog);
  syslog.year = 2024;
  check_no_events_from_junk_time(run_prep_text(
      "Jun 12 14:22:18 gpu01 kernel: [81901004431.000000] " + xid + "Jun 12 14:22:19 gpu01 kernel: [   12.5] " + xid,
      syslog));
  check_no_events_from_junk_time(
      run_prep_text("[17118194939.123456] gpu01 kernel: " + xid + "[    5.000001] gpu01 kernel: " + xid,
                    forced(gpucost::Format::journal_text)));
  check_no_events_from_junk_time(run_prep_text("[55216118209.000000] " + xid + "[    1.000000] " + xid));
}

TEST_CASE("fuzz: a journal JSON timestamp beyond the ns range is malformed", "[fuzz]") {
  // __REALTIME_TIMESTAMP of 18 digits (us) overflowed when converted to ns (UBSan in
  // parse_journal_json.cpp); such a value is now no timestamp.
  const auto r = run_prep_text(
      "{\"__REALTIME_TIMESTAMP\":\"999999999999999999\",\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"NVRM: Xid "
      "(PCI:0000:01:00): 79, pid=1, name=x\"}\n"
      "{\"__REALTIME_TIMESTAMP\":\"17319857812936051\",\"_SOURCE_REALTIME_TIMESTAMP\":\"17319857812936051\","
      "\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\"}\n"
      "{\"__REALTIME_TIMESTAMP\":\"1718194938123456\",\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"NVRM: Xid "
      "(PCI:0000:01:00): 79, pid=1, name=x\"}\n",
      forced(gpucost::Format::journal_json));
  check_no_events_from_junk_time(r);
  CHECK(r.stats.malformed == 2);
  CHECK(r.events.size() == 1);
}

TEST_CASE("fuzz: a /dev/kmsg record with a 17-digit usec stamp overflows no more", "[fuzz]") {
  // scan_kmsg() multiplied up to 20 digits of microseconds into ns (UBSan in parse_dmesg.cpp);
  // 95 years of uptime or more is now no /dev/kmsg stamp.
  prep::PrepOptions o = forced(gpucost::Format::dmesg);
  o.boot_time_ns = gpucost::test::utc_ns(2024, 6, 12, 0, 0, 0);
  check_no_events_from_junk_time(
      run_prep_text("6,5518,811204331,-;nvidia-nvswitch3: open (major=508)\n"
                    "3,5521,81500007815000102,-;NVRM: Xid (PCI:0000:1b:00): 74, pid=1, name=x\n"
                    "3,5522,99999999999999999999,-;NVRM: Xid (PCI:0000:1b:00): 74, pid=1, name=x\n",
                    o));
}

TEST_CASE("fuzz: an rtc line with an 11-digit epoch gives no boot time (ns overflow)", "[fuzz]") {
  // rtc_epoch() took up to 12 digits of seconds; 17161908722 s x 1e9 overflowed int64 (UBSan in
  // parse_dmesg.cpp, found by CI's fuzz run). Epochs after 2100 are no clock any more.
  const auto r = run_prep_text(
      "[    1.000000] rtc_cmos 00:00: setting system clock to 2514-01-01T00:00:00 UTC (17161908722)\n"
      "[    2.000000] NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x\n",
      forced(gpucost::Format::dmesg));
  gpucost::test::check_accounting(r);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].ts_ns == 2'000'000'000);  // still seconds since boot: no boot time found
}

TEST_CASE("fuzz: a trace_device span beyond the ns range saturates the window", "[fuzz]") {
  // extract's window added span_ns (a double from the events stream) to ts_ns as int64: 2.9e21
  // was outside the range (UBSan in window.cpp, found by the extract target). The end saturates.
  const std::string stream =
      "{\"type\":\"header\",\"schema\":\"gpucost.events\",\"version\":1,\"tz\":\"UTC\",\"time_unit\":\"ns\"}\n"
      "{\"type\":\"event\",\"ts_ns\":20000,\"source\":\"kineto-trace\",\"host\":\"h\",\"gpu\":0,"
      "\"kind\":\"trace_device\",\"span_ns\":2.90001e21,\"busy_ns\":55000}\n"
      "{\"type\":\"event\",\"ts_ns\":30000,\"source\":\"kineto-trace\",\"host\":\"h\",\"gpu\":0,"
      "\"kind\":\"trace_device\",\"span_ns\":-5,\"busy_ns\":55000}\n";
  gpucost::extract::SampleCollector samples;
  gpucost::InputStats stats;
  auto reader = gpucost::io::LineReader::from_string(stream);
  REQUIRE(gpucost::io::read_event_stream(*reader, samples, stats));
  samples.note_inputs({stats});
  const auto f = gpucost::extract::compute_features(samples, {});
  REQUIRE(f);
  CHECK(f->from_ns == 20000);
  CHECK(f->to_ns == std::numeric_limits<std::int64_t>::max());
}

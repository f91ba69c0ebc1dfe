// prep: journalctl -o json / json-pretty (docs/formats.md). Fixtures in testdata/journal-json are
// hand-made in the byte shape of the systemd version named in their file name; the expected
// times below are the fixtures' own µs stamps. Kinds and fields come from the shared classifier
// (kernel_events.cpp); the lines asserted are those docs/formats.md gives a kind.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::OwnedEvent;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
namespace prep = gpucost::prep;

namespace {

constexpr std::int64_t kUs = 1000;  // ns per µs

/// `host`: the entry's _HOSTNAME (no --host in these tests), else the option's default.
void check_event(const OwnedEvent& e, std::int64_t ts_us, const std::string& kind,
                 const std::string& host = "localhost") {
  INFO("event at " << ts_us << " µs, kind " << e.kind);
  CHECK(e.ts_ns == ts_us * kUs);
  CHECK(e.kind == kind);
  CHECK(e.source == "journal");
  CHECK(e.host == host);
}

}  // namespace

TEST_CASE("prep::journal-json: compact -o json of systemd 255", "[prep][journal-json]") {
  const PrepRun r = run_prep_text(fixture("journal-json/ws_rtx4090_compact_sd255.json"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::journal_json);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  CHECK(r.stats.lines == 15);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.ignored == 6);  // cron, NetworkManager, sshd, byte-array python3, coredump, systemd
  CHECK(r.stats.event_lines == 9);
  REQUIRE(r.events.size() == 9);
  check_event(r.events[0], 1741076103454117, "power_source", "ws-kestrel");  // ACPI: AC: AC Adapter [ACAD] (on-line)
  check_event(r.events[1], 1741076107060552, "driver", "ws-kestrel");        // NVRM: loading ... 550.127.05
  // "Lid closed." written twice (an array of two strings): the first one; the entry carries
  // _SOURCE_REALTIME_TIMESTAMP, 2871 µs before journald received it.
  check_event(r.events[2], 1741079827652511 - 2871, "lid", "ws-kestrel");
  check_event(r.events[3], 1741079829161874 - 957, "suspend",
              "ws-kestrel");                                               // systemd-sleep: Performing sleep operation
  check_event(r.events[4], 1741079829254660, "suspend", "ws-kestrel");     // kernel: PM: suspend entry (deep)
  check_event(r.events[5], 1741109590231233, "resume", "ws-kestrel");      // kernel: PM: suspend exit
  check_event(r.events[6], 1741109590656117 - 3012, "lid", "ws-kestrel");  // Lid opened.
  check_event(r.events[7], 1741109593802090, "xid", "ws-kestrel");         // Xid 79 (kernel, __REALTIME_TIMESTAMP)
  check_event(r.events[8], 1741117213062905, "power_source", "ws-kestrel");  // second boot: (off-line)
  for (const auto& e : r.events) CHECK(e.gpu == -1);
  // Fields are the classifier's (kernel_events.cpp); a few, to see the text got there whole.
  CHECK(field(r.events[0], "state") == "online");
  CHECK(field(r.events[1], "version") == "550.127.05");
  CHECK(field(r.events[2], "state") == "closed");
  CHECK(field(r.events[6], "state") == "open");
  CHECK(field(r.events[7], "code") == "79");
  CHECK(field(r.events[7], "pci") == "0000:01:00");
  CHECK(field(r.events[8], "state") == "offline");
  CHECK(r.stats.first_ts_ns == 1741076103454117 * kUs);
  CHECK(r.stats.last_ts_ns == 1741117213062905 * kUs);

  // Boot times: realtime - monotonic of every entry, per _BOOT_ID; the suspend of boot 1 shows
  // as a later value after resume (CLOCK_MONOTONIC stops while suspended).
  CHECK(has_note(r, "boot 7f3e9c2a51d84b6e9a0c4d2b8e1f6a35: boot time 2025-03-04T08:15:02.25Z"));
  CHECK(has_note(r, "up to 29760 s later (time spent suspended)"));
  CHECK(has_note(r, "boot c21b7e94d03f4a6b8e5d1f0a9c7b3e28: boot time 2025-03-04T19:40:11.875Z"));
  // The events carry _HOSTNAME (no --host): nothing to note, the input lists the host.
  CHECK_FALSE(has_note(r, "journal _HOSTNAME"));
  CHECK(r.stats.hosts == std::vector<std::string>{"ws-kestrel"});
  prep::PrepOptions given;
  given.host = "gpu01";
  given.host_given = true;
  const PrepRun forced = run_prep_text(fixture("journal-json/ws_rtx4090_compact_sd255.json"), given);
  CHECK(has_note(forced, "journal _HOSTNAME is 'ws-kestrel'; events carry the host 'gpu01' (--host)"));
  for (const auto& e : forced.events) CHECK(e.host == "gpu01");
  CHECK(r.stats.clock.find("absolute") == 0);
}

TEST_CASE("prep::journal-json: spaced separators of systemd 239, a 4-entry AER record", "[prep][journal-json]") {
  const PrepRun r = run_prep_text(fixture("journal-json/gpunode_a100_spaced_sd239.json"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::journal_json);
  CHECK(r.stats.lines == 11);
  CHECK(r.stats.malformed == 0);
  std::vector<std::string> kinds;
  for (const auto& e : r.events) kinds.push_back(e.kind);
  CHECK(std::count(kinds.begin(), kinds.end(), "driver") == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), "aer") == 1);  // one record of 4 kernel entries
  CHECK(std::count(kinds.begin(), kinds.end(), "xid") == 2);
  REQUIRE(r.events.size() == 4);
  check_event(r.events[0], 1731895671112880, "driver", "gpu-node-03");
  check_event(r.events[2], 1731985781934508, "xid", "gpu-node-03");  // Xid 48
  check_event(r.events[3], 1731985781936051, "xid", "gpu-node-03");  // Xid 63
  // The "PCIe Bus Error" entry makes the AER event; the record's header and detail entries are
  // ignored, as the same lines are in kern.log.
  check_event(r.events[1], 1731982066717402, "aer", "gpu-node-03");
  CHECK(field(r.events[1], "severity") == "corrected");
  CHECK(field(r.events[1], "device") == "0000:c1:00.0");
  CHECK(field(r.events[2], "code") == "48");
  CHECK(field(r.events[3], "code") == "63");
  CHECK(r.stats.event_lines == 4);
  CHECK(r.stats.ignored == 7);  // 3 AER lines, sshd, dnf, slurmstepd (latin-1 bytes), systemd (a null field)
  CHECK(has_note(r, "boot e4a7c19b2f6d40d8a1b3c5e7f9d2b406: boot time 2024-11-18T02:07:44.6Z"));
  CHECK_FALSE(has_note(r, "time spent suspended"));
}

TEST_CASE("prep::journal-json: json-pretty objects over many lines", "[prep][journal-json]") {
  const PrepRun r = run_prep_text(fixture("journal-json/mw_a3000_pretty_sd252.json"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::journal_json);
  CHECK(r.stats.lines == 122);
  CHECK(r.stats.malformed == 0);
  // Objects of 14, 23, 14, 57 (a MESSAGE of byte values, one per line) and 14 lines.
  CHECK(r.stats.event_lines == 14 + 14 + 14);
  CHECK(r.stats.ignored == 23 + 57);
  REQUIRE(r.events.size() == 3);
  check_event(r.events[0], 1751266701035801, "power_source", "mw-sparrow");
  check_event(r.events[1], 1751272117734150, "xid", "mw-sparrow");  // Xid 119, GSP RPC timeout
  check_event(r.events[2], 1751272119149254, "suspend", "mw-sparrow");
  CHECK(has_note(r, "boot 2b8f4d6a0c1e43a9b7d5f3e1c9a8b6d4: boot time 2025-06-30T06:58:19.03125Z"));
}

TEST_CASE("prep::journal-json: MESSAGE as bytes, nulls, repeated fields, identifier fallback", "[prep][journal-json]") {
  // A kernel entry whose MESSAGE is an array of byte values ("NVRM: Xid (PCI:0000:01:00): 13, "
  // and a non-UTF-8 byte), without SYSLOG_IDENTIFIER: _TRANSPORT kernel names the kernel.
  std::string bytes;
  for (char c : std::string("NVRM: Xid (PCI:0000:01:00): 13, Graphics Exception \xff")) {
    if (!bytes.empty()) bytes += ',';
    bytes += std::to_string(static_cast<unsigned>(static_cast<unsigned char>(c)));
  }
  const std::string text =
      R"({"__CURSOR":"s=1;i=1","__REALTIME_TIMESTAMP":"1700000000000001","__MONOTONIC_TIMESTAMP":"5000001",)"
      R"("_BOOT_ID":"0123456789abcdef0123456789abcdef","_TRANSPORT":"kernel","SYSLOG_IDENTIFIER":null,"MESSAGE":[)" +
      bytes +
      "]}\n"
      // Escapes in strings, a second identifier and two messages: the first of each.
      R"({"__REALTIME_TIMESTAMP":"1700000000000002","SYSLOG_IDENTIFIER":["systemd-logind","x"],)"
      R"("MESSAGE":["Lid\u0020closed.","ignored"],"_SOURCE_REALTIME_TIMESTAMP":"1700000000000000"})"
      "\r\n"
      // No MESSAGE at all, and a MESSAGE that is null: nothing to classify.
      R"({"__REALTIME_TIMESTAMP":"1700000000000003","SYSLOG_IDENTIFIER":"kernel"})"
      "\n"
      R"({"__REALTIME_TIMESTAMP":"1700000000000004","SYSLOG_IDENTIFIER":"kernel","MESSAGE":null})"
      "\n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::journal_json);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.ignored == 2);
  REQUIRE(r.events.size() == 2);
  check_event(r.events[0], 1700000000000001, "xid");
  CHECK(field(r.events[0], "code") == "13");
  CHECK(field(r.events[0], "message") == "Graphics Exception \xff");  // the bytes, as they were
  check_event(r.events[1], 1700000000000000, "lid");                  // _SOURCE_REALTIME_TIMESTAMP wins
  CHECK(field(r.events[1], "state") == "closed");
  CHECK(has_note(r, "boot 0123456789abcdef0123456789abcdef: boot time 2023-11-14T22:13:15Z"));
}

TEST_CASE("prep::journal-json: malformed entries are reported, the rest still parsed", "[prep][journal-json]") {
  const std::string text =
      R"({"__CURSOR":"s=1","__REALTIME_TIMESTAMP":"1700000000000001","SYSLOG_IDENTIFIER":"systemd-logind","MESSAGE":"Lid opened."})"
      "\n"
      R"({"__CURSOR":"s=2","SYSLOG_IDENTIFIER":"systemd-logind","MESSAGE":"Lid closed."})"  // no time
      "\n"
      R"({"__CURSOR":"s=3","__REALTIME_TIMESTAMP":"17000000000x","MESSAGE":"Lid closed."})"  // bad time
      "\n"
      R"({"__CURSOR":"s=4","__REALTIME_TIMESTAMP": })"  // not JSON
      "\n"
      "-- No entries --\n"
      "\n"
      // A json-pretty object cut short by the next one, then a complete one, then one cut by EOF.
      "{\n"
      "        \"__REALTIME_TIMESTAMP\" : \"1700000000000005\",\n"
      "{\n"
      "        \"__REALTIME_TIMESTAMP\" : \"1700000000000006\",\n"
      "        \"SYSLOG_IDENTIFIER\" : \"systemd-logind\",\n"
      "        \"CODE_FUNC\" : \"a {brace} and \\\" a quote in a string\",\n"
      "        \"MESSAGE\" : \"Lid closed.\"\n"
      "}\n"
      "{\n"
      "        \"__REALTIME_TIMESTAMP\" : \"1700000000000007\",\n";
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::journal_json);
  CHECK(r.stats.lines == 16);
  CHECK(r.stats.ignored == 1);      // the blank line
  CHECK(r.stats.event_lines == 7);  // one line + a 6-line object
  CHECK(r.stats.malformed == 8);    // 4 single lines, "-- No entries --", 2 + 2 lines of cut objects
  REQUIRE(r.events.size() == 2);
  check_event(r.events[0], 1700000000000001, "lid");
  check_event(r.events[1], 1700000000000006, "lid");
  REQUIRE(r.stats.examples.size() >= 5);
  CHECK(r.stats.examples[0].line == 2);
  CHECK(r.stats.examples[0].reason == "journal entry without __REALTIME_TIMESTAMP");
  CHECK(r.stats.examples[1].line == 3);
  CHECK(r.stats.examples[2].line == 4);
  CHECK(r.stats.examples[2].reason.find("not a valid journal JSON object") == 0);
  CHECK(r.stats.examples[3].line == 5);
  CHECK(r.stats.examples[4].line == 7);
  CHECK(r.stats.examples[4].reason == "JSON object not closed before the next one starts");
}

TEST_CASE("prep::journal-json: detection from the first object", "[prep][journal-json][detect]") {
  const prep::PrepOptions o;
  CHECK(prep::detect_format(fixture("journal-json/ws_rtx4090_compact_sd255.json"), o) == gpucost::Format::journal_json);
  CHECK(prep::detect_format(fixture("journal-json/gpunode_a100_spaced_sd239.json"), o) ==
        gpucost::Format::journal_json);
  CHECK(prep::detect_format(fixture("journal-json/mw_a3000_pretty_sd252.json"), o) == gpucost::Format::journal_json);
  CHECK(prep::detect_format("{\"type\":\"header\",\"schema\":\"gpucost.events\"}\n", o) !=
        gpucost::Format::journal_json);
  gpucost::Format f{};
  REQUIRE(format_from_name("journal-json", f));
  CHECK(f == gpucost::Format::journal_json);
}

TEST_CASE("prep::journal-json: one boot past the listed ones is counted in the singular", "[prep][journal-json]") {
  // 21 boots: 20 listed, then "1 more boot not listed".
  std::string text;
  for (int i = 0; i < 21; ++i)
    text += fmt::format(R"({{"__REALTIME_TIMESTAMP":"{}","__MONOTONIC_TIMESTAMP":"5000000","_BOOT_ID":"{:032x}",)"
                        R"("SYSLOG_IDENTIFIER":"kernel","MESSAGE":"hello"}})"
                        "\n",
                        1700000000000000LL + i * 1000000000LL, i);
  const PrepRun r = run_prep_text(text);
  CHECK(has_note(r, "1 more boot not listed"));
  CHECK_FALSE(has_note(r, "1 more boots"));
}

// The prefilter of the syslog parser (LineParser::skip_ignored): a line it skips is one that
// parse() counts as ignored, and skipping it changes nothing a later line reads (the year, the
// incident an AER detail line continues, indented continuation lines).
#include <catch2/catch.hpp>

#include "prep/line_parser.hpp"
#include "prep/parsers.hpp"

#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

namespace prep = gpucost::prep;

namespace {

// Keeps each event as a line of text: time, host, kind, fields.
class TextSink final : public gpucost::EventSink {
 public:
  void on_event(const gpucost::Event& event) override {
    std::string line = fmt::format("{} {} {} {}", event.ts_ns, event.host, event.kind, event.gpu);
    for (const gpucost::Field& f : event.fields) line += fmt::format(" {}={}", f.key, f.value);
    events.push_back(std::move(line));
  }
  std::vector<std::string> events;
};

// One parse of a log: its context, parser and what came out.
struct Parse {
  explicit Parse(const prep::PrepOptions& options, std::int64_t reference_ns)
      : clock(*gpucost::LocalClock::make("UTC")),
        ctx{options, clock, sink, stats, gpucost::Event{}, {}, {}, reference_ns, 0},
        parser(std::move(*prep::make_syslog_parser(ctx, {}))) {}
  gpucost::LocalClock clock;
  TextSink sink;
  gpucost::InputStats stats;
  prep::ParseContext ctx;
  std::unique_ptr<prep::LineParser> parser;
};

// kern.log lines, `blocks` times over, a second apart within a block: noise, an Xid, an AER
// record (detail lines continuing it in the same second, one more in the next second), rsyslog's
// "message repeated", indented continuation lines after an event and after noise, a line with a
// '\r', a non-kernel tag, a line without host, a fraction of a second, a line without a stamp.
// Months go Nov -> Dec -> Jan (a rollover) -> Feb.
std::string kern_excerpt(int blocks) {
  static constexpr const char* kMonths[] = {"Nov", "Dec", "Jan", "Feb"};
  std::string out;
  for (int b = 0; b < blocks; ++b) {
    const char* month = kMonths[b * 4 / blocks];
    const auto stamp = [&](int s) { return fmt::format("{} {:2} 10:{:02}:{:02}", month, 1 + b % 28, b % 60, s); };
    const std::string k = " node7 kernel: [ 4564.303884] ";
    out += stamp(0) + k + "audit: type=1400 audit(1718194938.123:42): apparmor=\"DENIED\" operation=\"open\"\n";
    out += stamp(0) + k + "usb 1-3: new high-speed USB device number 7 using xhci_hcd\n";
    out += stamp(1) + k + "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.\n";
    out += stamp(1) + k + "NVRM: GPU at PCI:0000:01:00: GPU-1a2b3c4d\n";  // continues the Xid
    out += "    an indented line after an event\n";
    out += stamp(2) + k + "pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0\n";
    out +=
        stamp(2) + k + "nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n";
    out += stamp(2) + k + "nvidia 0000:01:00.0:   device [10de:2684] error status/mask=00000001/0000e000\n";
    out += stamp(2) + k + "nvidia 0000:01:00.0:    [ 0] RxErr                  (First)\n";
    out += stamp(3) + k + "nvidia 0000:01:00.0:    [ 0] RxErr                  (First)\n";  // a new second
    out += stamp(3) + k + "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode.\n";
    out += "    an indented line after noise\n";
    out += stamp(4) + " node7 kernel: message repeated 2 times: [ NVRM: Xid (PCI:0000:01:00): 13, pid=1, x]\n";
    out += stamp(4) + k + "IPv6: ADDRCONF(NETDEV_CHANGE): veth1a2b3c: link becomes ready\r\n";
    out += stamp(5) + " node7 systemd-logind[960]: Lid closed.\n";
    out += stamp(5) + " kernel: [ 4564.303884] usb 1-3: new high-speed USB device number 8 using xhci_hcd\n";
    out += stamp(5) + ".123456 node7 kernel: usb 1-3: USB disconnect, device number 8\n";
    out += stamp(6) + k + "segfault-free line with ]: inside\n";
    out += "garbage without a stamp\n";
    for (int i = 0; i < 5; ++i) out += stamp(7) + k + "br-0a1b2c: port 1(veth1a2b3c) entered forwarding state\n";
  }
  return out;
}

// Parses `text` twice in lockstep, one parse asking the prefilter first: every line it skips
// must be ignored by the other's parse(). Returns how many lines were skipped.
std::size_t check_prefilter(const std::string& text, const prep::PrepOptions& options) {
  const std::int64_t reference = 1'800'000'000LL * gpucost::kNsPerSecond;  // 2027-01-15
  Parse every(options, reference), skipping(options, reference);
  std::size_t skipped = 0;
  std::uint64_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    const std::string_view raw = std::string_view(text).substr(at, nl + 1 - at);  // with its '\n'
    at = nl + 1;
    std::string_view own = raw.substr(0, raw.size() - 1);
    if (!own.empty() && own.back() == '\r') own.remove_suffix(1);  // as LineReader hands it out
    const gpucost::io::Line line{own, ++number, 0, false};
    const auto ignored_before = every.stats.ignored;
    prep::parse_line(*every.parser, every.ctx, line);
    std::uint64_t count = 0;
    const std::size_t bytes = skipping.parser->skip_ignored(raw, count);
    if (count > 0) {
      INFO("line " << number << ": " << own);
      CHECK(count == 1);
      CHECK(bytes == raw.size());
      CHECK(every.stats.ignored == ignored_before + 1);
      ++skipping.stats.lines;
      ++skipping.stats.ignored;
      ++skipped;
    } else {
      prep::parse_line(*skipping.parser, skipping.ctx, line);
    }
  }
  every.parser->finish(every.ctx);
  skipping.parser->finish(skipping.ctx);
  CHECK(skipping.sink.events == every.sink.events);
  CHECK(skipping.stats.lines == every.stats.lines);
  CHECK(skipping.stats.ignored == every.stats.ignored);
  CHECK(skipping.stats.event_lines == every.stats.event_lines);
  CHECK(skipping.stats.malformed == every.stats.malformed);
  CHECK(skipping.stats.notes == every.stats.notes);
  CHECK(skipping.stats.clock == every.stats.clock);
  return skipped;
}

}  // namespace

TEST_CASE("syslog prefilter: a line it skips is one parse() ignores, and the rest is parsed the same",
          "[prep][kern][syslog]") {
  const std::string text = kern_excerpt(200);
  const std::size_t skipped = check_prefilter(text, {});  // the year inferred, over a rollover
  CHECK(skipped >= 200 * 8);                              // the noise, but for a month's first lines
  prep::PrepOptions options;
  options.year = 2024;
  CHECK(check_prefilter(text, options) == skipped);
}

TEST_CASE("syslog prefilter: a skipped line that would be parsed differently is not skipped", "[prep][kern][syslog]") {
  prep::PrepOptions options;
  Parse p(options, 1'800'000'000LL * gpucost::kNsPerSecond);
  std::uint64_t count = 0;
  // Nothing is skipped before a stamp has set the month.
  CHECK(p.parser->skip_ignored("Jun 12 10:00:00 node7 kernel: usb 1-3: new device\n", count) == 0);
  gpucost::io::Line first{"Jun 12 10:00:00 node7 kernel: usb 1-3: new device", 1, 0, false};
  prep::parse_line(*p.parser, p.ctx, first);
  const std::string noise = "Jun 12 10:00:01 node7 kernel: usb 1-3: new device\n";
  CHECK(p.parser->skip_ignored(noise + noise, count) == 2 * noise.size());
  CHECK(count == 2);
  // Another month (a rollover may follow), an Xid, a '\r': parsed.
  CHECK(p.parser->skip_ignored("Jul 12 10:00:01 node7 kernel: usb 1-3: new device\n", count) == 0);
  CHECK(p.parser->skip_ignored("Jun 12 10:00:01 node7 kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, x\n", count) == 0);
  CHECK(p.parser->skip_ignored("Jun 12 10:00:01 node7 kernel: usb 1-3: new device\r\n", count) == 0);
  // Stops at the first line it does not skip.
  CHECK(p.parser->skip_ignored(noise + "garbage\n" + noise, count) == noise.size());
  CHECK(count == 1);
}

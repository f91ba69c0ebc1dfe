// nvidia-bug-report.log(.gz): the output of nvidia-bug-report.sh, sections separated by a line
// of 44 underscores, each opened by a title line:
//   ____________________________________________
//
//   dmesg:                                  <- the kernel ring buffer (raw uptime stamps)
//   /usr/bin/nvidia-smi --query             <- nvidia-smi -q text
//   Scanning kernel log files for NVIDIA kernel messages:
//     /var/log/kern.log:                    <- syslog lines follow
//     journalctl -b -0:                     <- journalctl short lines follow
//   journalctl -b -0 _COMM=Xorg             <- journalctl short lines
//   *** /proc/cpuinfo                       <- a file: ignored
// Each section is handed, line by line, to the parser of its format; every other section's
// lines are ignored. The prologue's "Date:" line is the reference time for yearless stamps;
// kernel lines that carry both the wall time and the uptime ("... kernel: [ 1432.119804] ...")
// give the boot time for the dmesg section. The same kernel message is often in the report
// twice or three times (kern.log excerpt, journal excerpt, dmesg): copies of one event (same
// kind and message within a second) are written once and counted as duplicates.
#include "prep/parsers.hpp"

#include <gpucost/core/text.hpp>

#include <cmath>
#include <deque>
#include <functional>
#include <memory>

namespace gpucost::prep {

namespace {

constexpr std::string_view kSeparator = "____________________________________________";

std::string_view field_of(const Event& ev, std::string_view key) {
  for (const Field& f : ev.fields)
    if (f.key == key) return f.value;
  return {};
}

/// Passes events on, dropping the copies of one event that several sections carry, and learns
/// the boot time from events that have both clocks.
class ReportSink final : public EventSink {
 public:
  ReportSink(EventSink& out, InputStats& stats) : m_out(out), m_stats(stats) {}

  void on_event(const Event& ev) override {
    if (const std::string_view up = field_of(ev, "uptime_s"); !up.empty() && ev.source != "dmesg") {
      if (const auto secs = text::parse_double(up); secs && !m_boot_ns)
        m_boot_ns = ev.ts_ns - static_cast<std::int64_t>(std::llround(*secs * 1e9));
    }
    const std::string_view message = field_of(ev, "message");
    const std::size_t h = std::hash<std::string_view>{}(message) ^ (std::hash<std::string_view>{}(ev.kind) << 1);
    constexpr std::int64_t kWindow = 1'000'000'000;  // syslog stamps have whole seconds
    for (const auto& [hash, ts] : m_recent) {
      if (hash == h && !message.empty() && std::llabs(ts - ev.ts_ns) <= kWindow) {
        ++m_stats.duplicates;
        return;
      }
    }
    m_recent.emplace_back(h, ev.ts_ns);
    if (m_recent.size() > 4096) m_recent.pop_front();
    m_out.on_event(ev);
  }

  [[nodiscard]] std::optional<std::int64_t> boot_ns() const { return m_boot_ns; }

 private:
  EventSink& m_out;
  InputStats& m_stats;
  std::deque<std::pair<std::size_t, std::int64_t>> m_recent;
  std::optional<std::int64_t> m_boot_ns;
};

class BugReportParser final : public LineParser {
 public:
  explicit BugReportParser(ParseContext& ctx)
      : m_options(ctx.options), m_sink(ctx.sink, ctx.stats), m_sub_ctx{m_options, ctx.clock,        m_sink,
                                                                       ctx.stats, Event{},          {},
                                                                       {},        ctx.reference_ns, 0} {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    m_sub_ctx.line_no = ctx.line_no;
    const std::string_view body = text::trim(line);
    if (body == kSeparator) {
      close_section();
      m_expect_title = true;
      return LineResult::ignored;
    }
    if (m_expect_title) {
      if (body.empty()) return LineResult::ignored;  // the blank line after the separator
      m_expect_title = false;
      open_section(body);
      return LineResult::ignored;
    }
    // A command title inside a section: append_command() prints several commands in one
    // section ("/usr/bin/nvidia-smi --query", then "/usr/bin/nvidia-smi --query --unit").
    if (!line.empty() && line.front() == '/' && body.find("nvidia-smi ") != std::string_view::npos) {
      close_section();
      open_section(body);
      return LineResult::ignored;
    }
    // Inside "Scanning kernel log files": "  /var/log/kern.log:" or "  journalctl -b -0:" opens
    // an excerpt of syslog or journal lines; both go to the syslog parser.
    if (m_scanning && !line.empty() && line.front() == ' ' && !body.empty() && body.back() == ':' &&
        (body.starts_with("/") || body.starts_with("journalctl"))) {
      close_section();
      m_scanning = true;
      m_sub = section_parser(make_syslog_parser);
      return LineResult::ignored;
    }
    if (!m_sub) {
      if (body.starts_with("Date: ")) note_report_date(body.substr(6), ctx);
      return LineResult::ignored;
    }
    const LineResult r = m_sub->parse(line, m_sub_ctx);
    ctx.reason = m_sub_ctx.reason;
    return r;
  }

  void finish(ParseContext& ctx) override {
    (void)ctx;
    close_section();
  }

  // The section open where the replay stops keeps its parser, told like any other that the
  // lines so far were replayed (a record it holds was emitted by the run that read it).
  void end_replay(ParseContext& ctx) override {
    (void)ctx;
    if (m_sub) m_sub->end_replay(m_sub_ctx);
  }

 private:
  void open_section(std::string_view title) {
    m_scanning = false;
    if (title == "dmesg:" || title.starts_with("dmesg ")) {
      // Raw uptime stamps: place them with the boot time seen in the kernel-log excerpts.
      if (!m_options.boot_time_ns && m_sink.boot_ns()) {
        m_options.boot_time_ns = m_sink.boot_ns();
        add_note(m_sub_ctx.stats,
                 "dmesg section placed with the boot time implied by the kernel-log excerpt "
                 "(wall time minus uptime of the same line)");
      }
      m_sub = section_parser(make_dmesg_parser);
    } else if (title.find("nvidia-smi --query") != std::string_view::npos ||
               title.find("nvidia-smi -q") != std::string_view::npos) {
      if (title.find("--unit") == std::string_view::npos && title.find(" -u") == std::string_view::npos)
        m_sub = section_parser(make_smi_q_parser);
    } else if (title.starts_with("journalctl")) {
      m_sub = section_parser(make_syslog_parser);
    } else if (title.starts_with("Scanning kernel log files")) {
      m_scanning = true;
    }
  }

  // The sections' parsers check no head and compile no pattern: they are made without fail.
  std::unique_ptr<LineParser> section_parser(ParserFactory make) { return std::move(*make(m_sub_ctx, {})); }

  void close_section() {
    if (m_sub) m_sub->finish(m_sub_ctx);  // flushes records held back at the end of the section
    m_sub.reset();
  }

  // "Date: Tue Jun 11 14:22:18 CEST 2024" (date(1), local time): the reference time for stamps
  // without a year in the sections that follow. The zone abbreviation is not trusted
  // (ambiguous); --tz decides.
  void note_report_date(std::string_view text, ParseContext& ctx) {
    std::size_t pos = 0;
    text::next_token(text, pos);  // weekday
    const std::string_view mon = text::next_token(text, pos);
    const std::string_view day = text::next_token(text, pos);
    const std::string_view hms = text::next_token(text, pos);
    std::string_view year = text::next_token(text, pos);
    if (const std::string_view more = text::next_token(text, pos); !more.empty()) year = more;  // skip the zone
    CivilTime t;
    const unsigned month = text::month_abbreviation(mon);
    const auto d = text::parse_int(day);
    const auto y = text::parse_int(year);
    if (month == 0 || !d || !y || *y < 1970 || *y > 9999) return;
    t.year = static_cast<int>(*y);
    t.month = month;
    t.day = static_cast<unsigned>(*d);
    if (!valid_civil(t) || !parse_clock_time(hms, t)) return;
    m_sub_ctx.reference_ns = ctx.clock.to_utc_ns(t.as_utc_ns());
    add_note(ctx.stats, "bug report dated " + std::string(text) + ": reference time for stamps without a year");
  }

  PrepOptions m_options;  // a copy: the dmesg section may get a boot time found in the report
  ReportSink m_sink;
  ParseContext m_sub_ctx;
  std::unique_ptr<LineParser> m_sub;
  bool m_expect_title = false, m_scanning = false;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_bug_report_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<BugReportParser>(ctx));
}

bool looks_like_bug_report(std::string_view head) {
  return head.find("Start of NVIDIA bug report log file") != std::string_view::npos &&
         head.find(kSeparator) != std::string_view::npos;
}

}  // namespace gpucost::prep

// The prep stage driver: detect the format, run its parser over every line, account for
// every line. Parsers live in parse_<format>.cpp.
#include <gpucost/prep/prep.hpp>

#include "parsers.hpp"
#include "query_fields.hpp"
#include "trace/trace.hpp"

#include <gpucost/core/log.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace gpucost::prep {

namespace {

// Every format: its name for --input-format and the summary, and its parser factory. Detection
// is in detect_format() (the order of the checks matters).
struct FormatEntry {
  Format format;
  std::string_view name;
  std::unique_ptr<LineParser> (*make)(ParseContext& ctx);
};

constexpr FormatEntry kFormats[] = {
    {Format::dmon, "dmon", make_dmon_parser},
    {Format::pmon, "pmon", make_pmon_parser},
    {Format::query_csv, "query-csv", nullptr},  // needs the first line: see run_prep_input
    {Format::journal_json, "journal-json", make_journal_json_parser},
    {Format::dcgmi, "dcgmi", make_dcgmi_parser},
    {Format::smi_q, "smi-q", make_smi_q_parser},
    {Format::smi_xml, "smi-xml", make_smi_xml_parser},
    {Format::syslog, "syslog", make_syslog_parser},
    {Format::dmesg, "dmesg", make_dmesg_parser},
    {Format::journal_text, "journal-text", make_journal_text_parser},
    {Format::bug_report, "bug-report", make_bug_report_parser},
    {Format::kineto, "kineto-trace", nullptr},  // a whole document: see parse_trace_input
    {Format::torch_table, "torch-table", make_torch_table_parser},
    {Format::nsys, "nsys", make_nsys_parser},
    {Format::trainlog, "trainlog", nullptr},  // may fail (a bad --pattern): see InputParse::start
};

const FormatEntry* entry(Format f) {
  for (const auto& e : kFormats)
    if (e.format == f) return &e;
  return nullptr;
}

}  // namespace

std::string_view format_name(Format f) {
  const FormatEntry* e = entry(f);
  return e != nullptr ? e->name : "unknown";
}

bool format_from_name(std::string_view name, Format& out) {
  if (name == "query_csv" || name == "csv") name = "query-csv";
  if (name == "trace" || name == "kineto" || name == "chrome-trace") name = "kineto-trace";
  if (name == "torch_table") name = "torch-table";
  for (const auto& e : kFormats) {
    if (e.name == name) {
      out = e.format;
      return true;
    }
  }
  return false;
}

std::string format_names() {
  std::string out;
  for (const auto& e : kFormats) {
    if (!out.empty()) out += ", ";
    out += e.name;
  }
  return out;
}

std::string_view to_string(TimeBasis b) {
  switch (b) {
    case TimeBasis::absolute: return "absolute";
    case TimeBasis::local: return "local";
    case TimeBasis::uptime: return "uptime";
    case TimeBasis::relative: return "relative";
    case TimeBasis::none: break;
  }
  return "none";
}

void ParseContext::settle(LineResult result, std::uint64_t lines, std::uint64_t first_line, std::string_view why,
                          std::string_view excerpt) {
  switch (result) {
    case LineResult::event: stats.event_lines += lines; break;
    case LineResult::ignored: stats.ignored += lines; break;
    case LineResult::malformed:
      stats.malformed += lines;
      if (stats.examples.size() < options.max_examples)
        stats.examples.push_back(MalformedExample{first_line, std::string(why), std::string(excerpt.substr(0, 120))});
      break;
    case LineResult::deferred: break;
  }
}

int ParseContext::note_repeated_hour() {
  for (const FallBack& f : clock.fall_backs()) {
    if (!f.holds(event.ts_ns)) continue;
    auto& list = stats.repeated_hours;
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i].fall_back.at_ns == f.at_ns) {
        ++list[i].events;
        return static_cast<int>(i);
      }
    }
    list.push_back(InputStats::RepeatedHour{f, 1, 0, 0});
    return static_cast<int>(list.size() - 1);
  }
  return -1;
}

void ParseContext::note_driver(const Event& event, InputStats& stats) {
  for (const Field& f : event.fields)
    if (f.key == "version") Fingerprint::add(stats.fingerprint.drivers, f.value);
}

void add_note(InputStats& stats, std::string text) {
  if (std::find(stats.notes.begin(), stats.notes.end(), text) == stats.notes.end()) stats.notes.push_back(std::move(text));
}

namespace {

std::string_view first_nonblank_line(std::string_view head) {
  std::size_t pos = 0;
  while (pos < head.size()) {
    const std::size_t nl = head.find('\n', pos);
    const std::string_view line = text::trim(head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos));
    if (!line.empty()) return line;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return {};
}

// "name, power.draw [W], ..." -> true when every cell is a property name and one is known.
bool looks_like_query_header(std::string_view line) {
  std::size_t known = 0, cells = 0, start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    std::string_view cell = text::trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    if (const std::size_t lb = cell.rfind(" ["); lb != std::string_view::npos && !cell.empty() && cell.back() == ']')
      cell = cell.substr(0, lb);
    ++cells;
    if (find_query_field(cell) != nullptr) ++known;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return known > 0 && known * 2 >= cells;
}

}  // namespace

namespace {

// The formats with a fixed shape; training logs are tried after them (detect_format).
Format detect_tool_format(std::string_view head, const PrepOptions& options) {
  const std::string_view line = first_nonblank_line(head);
  if (line.empty()) return Format::unknown;
  if (looks_like_bug_report(head)) return Format::bug_report;  // before its sections' formats
  if (const Format smi = detect_smi(head); smi != Format::unknown) return smi;  // nvidia-smi -q, -q -x
  if (line.front() == '#') {
    // dmon/pmon name line: "# gpu ...", "#Date Time gpu ..."; pmon has a pid column.
    std::string_view body = line.substr(1);
    std::size_t pos = 0;
    const std::string_view first = text::next_token(body, pos);
    const auto key = [](std::string_view t) {
      while (!t.empty() && t.back() == ',') t.remove_suffix(1);
      return t;
    };
    if (text::iequals(key(first), "gpu") || text::iequals(key(first), "date") || text::iequals(key(first), "time")) {
      for (std::string_view tok = first; !tok.empty(); tok = text::next_token(body, pos))
        if (text::iequals(key(tok), "pid")) return Format::pmon;
      return Format::dmon;
    }
    if (text::iequals(first, "entity")) return Format::dcgmi;  // dcgmi dmon: "#Entity ...", "# Entity ..."
    return Format::unknown;
  }
  if (trace::looks_like_trace(head)) return Format::kineto;  // before journal JSON: both start with '{'
  if (line.front() == '{') {
    // journalctl -o json / json-pretty: journald's own fields in the first object.
    const std::string_view start = head.substr(0, 16 * 1024);
    if (start.find("\"__REALTIME_TIMESTAMP\"") != std::string_view::npos ||
        start.find("\"__CURSOR\"") != std::string_view::npos)
      return Format::journal_json;
  }
  // Profiler summaries: a dash-rule table with a "Name ..." header; nsys report banners or headers
  // (program output may come first). Before the kernel-log shapes, which they never have.
  if (looks_like_torch_table(head)) return Format::torch_table;
  if (looks_like_nsys(head)) return Format::nsys;
  if (looks_like_query_header(line)) return Format::query_csv;
  if (looks_like_python_logging(head)) return Format::trainlog;  // dmesg would take its asctime stamps
  if (const Format klog = detect_kernel_log(head); klog != Format::unknown) return klog;  // kern.log, dmesg, journal
  if (!options.fields.empty() && line.find(',') != std::string_view::npos) return Format::query_csv;
  return Format::unknown;
}

}  // namespace

Format detect_format(std::string_view head, const PrepOptions& options) {
  const Format tool = detect_tool_format(head, options);
  if (tool != Format::unknown) return tool;
  // Last: a training log is mostly free text, so it must not claim what a tool's parser reads.
  return looks_like_trainlog(head, options) ? Format::trainlog : Format::unknown;
}

Status check_format(std::string_view head, const PrepOptions& options, const std::string& path) {
  const std::string_view first = first_nonblank_line(head);
  if (options.forced == Format::query_csv) return check_query_csv_head(first, options, path);
  const Format detected = options.forced != Format::unknown ? options.forced : detect_format(head, options);
  if (detected == Format::kineto) {
    if (const std::string why = not_kineto_reason(head); !why.empty())
      return make_error(ErrorKind::format, fmt::format("{}: {}", path, why),
                        "gpucost reads the Chrome trace JSON that torch.profiler writes (export_chrome_trace, "
                        "tensorboard_trace_handler: *.pt.trace.json[.gz])");
  }
  if (detected != Format::unknown) return {};
  if (first.empty()) return {};
  if (text::looks_binary(head))
    return make_error(ErrorKind::format, fmt::format("{}: binary data, not a log", path),
                      "gpucost reads text logs (plain, .gz or .zst) and trace JSON; force a format with "
                      "--input-format NAME to read it anyway (its lines are then reported as malformed)");
  if (first.find(',') != std::string_view::npos)
    return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                      "this looks like CSV: for `nvidia-smi --query-gpu=... --format=csv,noheader` pass "
                      "--fields with the --query-gpu list; or force one with --input-format " + format_names());
  return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                    "supported: " + format_names() + "; force one with --input-format NAME, or describe the "
                    "lines with --pattern REGEX");
}

namespace {

std::string duration_text(std::int64_t ns) {
  const std::int64_t s = ns / kNsPerSecond;
  if (s < 60) return fmt::format("{:.1f} s", static_cast<double>(ns) / 1e9);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}

// "1 h", "30 min": the length of a repeated interval.
std::string repeat_text(std::int64_t ns) {
  const std::int64_t min = ns / kNsPerSecond / 60;
  return min % 60 == 0 ? fmt::format("{} h", min / 60) : fmt::format("{} min", min);
}

// One note per DST fall-back whose repeated hour the input's local times fell in: named with the
// zone database's abbreviations, so that it is not taken for a clock that steps back.
void note_repeated_hours(InputStats& stats, const std::string& zone) {
  for (const auto& r : stats.repeated_hours) {
    const FallBack& f = r.fall_back;
    const std::string what = f.repeat_ns == 3600 * kNsPerSecond ? "hour" : "interval";
    std::string text = fmt::format("{}: {} event{} in the repeated {} {} {} placed at its first occurrence ({})",
                                   describe_fall_back(f, zone), r.events, r.events == 1 ? "" : "s", what,
                                   repeated_interval(f), r.events == 1 ? "is" : "are", f.before);
    if (r.step_line > 0) {
      const std::string interval = repeated_interval(f);
      text += fmt::format("; the times step back {} at line {}, where the {} repeats: the events logged from there "
                          "until {} {} are placed {} early",
                          duration_text(r.step_ns), r.step_line, what, interval.substr(interval.rfind("\u2013") + 3),
                          f.after, repeat_text(f.repeat_ns));
    }
    add_note(stats, std::move(text));
  }
}

void note_clock_anomalies(InputStats& stats) {
  const auto& a = stats.clock_anomalies;
  if (a.steps_back > 0)
    add_note(stats, fmt::format("the clock goes back {} time{} (the largest step {} at line {}): events are kept in "
                                "input order; extract orders samples by their time",
                                a.steps_back, a.steps_back == 1 ? "" : "s", duration_text(a.largest_back_ns),
                                a.largest_back_line));
  if (a.gaps > 0)
    add_note(stats, fmt::format("{} gap{} of more than an hour (the largest {} before line {}): a clock jump or a "
                                "stopped logger; extract counts it as uncovered time",
                                a.gaps, a.gaps == 1 ? "" : "s", duration_text(a.largest_gap_ns), a.largest_gap_line));
}

}  // namespace

struct InputParse::Impl {
  io::LineReader& reader;
  LocalClock& clock;
  InputStats& stats;
  ParseContext ctx;
  std::unique_ptr<LineParser> parser;  // null: an empty input, all lines ignored
  bool whole_document = false;         // a trace: read in one step by parse_trace_input
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  bool done = false;

  Impl(io::LineReader& r, const PrepOptions& options, LocalClock& c, EventSink& sink, InputStats& st)
      : reader(r), clock(c), stats(st), ctx{options, c, sink, st, Event{}, {}, {}, r.mtime_ns(), 0} {}

  void end() {
    done = true;
    if (parser) parser->finish(ctx);
    note_repeated_hours(stats, clock.name());
    note_clock_anomalies(stats);
    if (stats.truncated.empty()) stats.truncated = reader.error();  // a trace reports its own
    if (stats.clock.empty()) {  // parsers with a special clock (uptime, inferred year) set their own
      if (stats.time_basis == TimeBasis::local) stats.clock = "local time in " + clock.name();
      if (stats.time_basis == TimeBasis::absolute) stats.clock = "absolute (UTC or an explicit offset)";
      if (stats.time_basis == TimeBasis::relative) stats.clock = "relative: no anchor in the input or the options";
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    log().info("{}: {} lines ({} events, {} ignored, {} malformed), {:.1f} MB in {:.3f} s", stats.path, stats.lines,
               stats.events, stats.ignored, stats.malformed, static_cast<double>(reader.bytes_read()) / 1e6, secs);
  }
};

InputParse::InputParse(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink,
                       InputStats& stats)
    : m_impl(std::make_unique<Impl>(reader, options, clock, sink, stats)) {}

InputParse::~InputParse() = default;

Status InputParse::start() {
  Impl& m = *m_impl;
  InputStats& stats = m.stats;
  const PrepOptions& options = m.ctx.options;
  stats.compression = std::string(io::to_string(m.reader.compression()));
  const std::string_view head = m.reader.peek(64 * 1024);
  Format format = options.forced;
  if (format == Format::unknown) format = detect_format(head, options);
  if (format == Format::unknown) {
    if (auto st = check_format(head, options, stats.path); !st) return st;
    stats.format = Format::unknown;  // an empty input: nothing to parse, nothing lost
    add_note(stats, "empty input");
    return {};
  }
  stats.format = format;
  if (format != Format::kineto) stats.logs_tz = m.clock.name();
  // Telemetry samples at a fixed interval: a step back or an hour of silence is an anomaly.
  // Kernel and training logs are quiet for hours and interleave writers, so they are not checked.
  m.ctx.check_clock = format == Format::dmon || format == Format::pmon || format == Format::query_csv ||
                      format == Format::dcgmi || format == Format::smi_q || format == Format::smi_xml;
  if (format == Format::kineto) {
    if (auto st = check_format(head, options, stats.path); !st) return st;
    m.whole_document = true;
    m.ctx.check_clock = false;  // its events are analyses, not in time order
  } else if (format == Format::query_csv) {
    auto p = make_query_csv_parser(m.ctx, first_nonblank_line(head));
    if (!p) return p.error();
    m.parser = std::move(*p);
  } else if (format == Format::trainlog) {
    auto p = make_trainlog_parser(m.ctx);
    if (!p) return p.error();
    m.parser = std::move(*p);
  } else if (const FormatEntry* e = entry(format); e != nullptr && e->make != nullptr) {
    m.parser = e->make(m.ctx);
  } else {
    return make_error(ErrorKind::internal, fmt::format("{}: no parser for format {}", stats.path, format_name(format)));
  }
  log().debug("{}: format {} ({}), compression {}", stats.path, format_name(format),
              options.forced != Format::unknown ? "forced" : "detected", stats.compression);
  return {};
}

bool InputParse::step() {
  Impl& m = *m_impl;
  if (m.done) return false;
  if (m.whole_document) {
    parse_trace_input(m.reader, m.ctx);
    m.end();
    return false;
  }
  io::Line line;
  if (!m.reader.next(line)) {
    m.end();
    return false;
  }
  ++m.stats.lines;
  if (!m.parser) {
    ++m.stats.ignored;
    return true;
  }
  ParseContext& ctx = m.ctx;
  ctx.line_no = line.number;
  LineResult result = LineResult::malformed;
  if (line.overlong) {
    ctx.reason_buf = fmt::format("line too long ({} bytes)", line.full_length);
    ctx.reason = ctx.reason_buf;
  } else {
    result = m.parser->parse(line.text, ctx);
  }
  if (result != LineResult::deferred) ctx.settle(result, 1, line.number, ctx.reason, line.text);
  return true;
}

void InputParse::end_replay() {
  Impl& m = *m_impl;
  if (m.parser && !m.done) m.parser->end_replay(m.ctx);
}

Status run_prep_input(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink,
                      InputStats& stats) {
  InputParse parse(reader, options, clock, sink, stats);
  if (auto st = parse.start(); !st) return st;
  while (parse.step()) {
  }
  return {};
}

}  // namespace gpucost::prep

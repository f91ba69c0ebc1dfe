// The prep stage driver: detect the format (detect.cpp), run its parser (formats.cpp: the
// table of formats and their parsers) over every line, account for every line.
#include <gpucost/prep/prep.hpp>

#include "chunked_parse.hpp"
#include "formats.hpp"

#include <gpucost/core/log.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace gpucost::prep {

void ParseContext::settle(LineResult result, std::uint64_t lines, std::uint64_t first_line, std::string_view why,
                          std::string_view excerpt) {
  switch (result) {
    case LineResult::event: stats.event_lines += lines; break;
    case LineResult::ignored: stats.ignored += lines; break;
    case LineResult::malformed:
      stats.malformed += lines;
      if (stats.examples.size() < InputStats::kMaxExamples)
        stats.examples.push_back(MalformedExample{first_line, std::string(why), std::string(excerpt.substr(0, 120))});
      break;
    case LineResult::deferred: break;
  }
}

int ParseContext::note_repeated_hour(std::int64_t ts_ns) {
  for (const FallBack& f : clock.fall_backs()) {
    if (!f.holds(ts_ns)) continue;
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

void parse_line(LineParser& parser, ParseContext& ctx, const io::Line& line) {
  ++ctx.stats.lines;
  ctx.line_no = line.number;
  LineResult result = LineResult::malformed;
  if (line.overlong) {
    ctx.reason_buf = fmt::format("line too long ({} bytes)", line.full_length);
    ctx.reason = ctx.reason_buf;
  } else {
    result = parser.parse(line.text, ctx);
  }
  if (result != LineResult::deferred) ctx.settle(result, 1, line.number, ctx.reason, line.text);
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
      text += fmt::format(
          "; the times step back {} at line {}, where the {} repeats: the events logged from there "
          "until {} {} are placed {} early",
          duration_text(r.step_ns), r.step_line, what, interval.substr(interval.rfind("\u2013") + 3), f.after,
          repeat_text(f.repeat_ns));
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
  bool whole_document = false;         // a trace: read in one step by the parser's parse_whole
  bool live = false;                   // --follow: the input's end is only the end so far
  bool prefilter = false;              // the parser skips lines it would only ignore
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  bool done = false;

  Impl(io::LineReader& r, const PrepOptions& options, LocalClock& c, EventSink& sink, InputStats& st)
      : reader(r), clock(c), stats(st), ctx{options, c, sink, st, Event{}, {}, {}, r.mtime_ns(), 0} {}

  // The prefilter: the buffered lines the parser says it would only ignore are counted, not parsed.
  void skip_ignored() {
    if (!prefilter || done) return;
    const std::string_view lines = reader.buffered();
    if (lines.empty()) return;
    std::uint64_t count = 0;
    const std::size_t bytes = parser->skip_ignored(lines, count);
    if (count == 0) return;
    reader.skip_buffered(bytes, count);
    stats.lines += count;
    stats.ignored += count;
  }

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
    const double mb = static_cast<double>(reader.bytes_read()) / 1e6;
    if (ctx.options.look_ahead)
      log().debug("{} (its start, read ahead for the host names): {} lines, {:.1f} MB in {:.3f} s", stats.path,
                  stats.lines, mb, secs);
    else
      log().info("{}: {} lines ({} events, {} ignored, {} malformed), {:.1f} MB in {:.3f} s", stats.path, stats.lines,
                 stats.events, stats.ignored, stats.malformed, mb, secs);
  }
};

InputParse::InputParse(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink,
                       InputStats& stats)
    : m_impl(std::make_unique<Impl>(reader, options, clock, sink, stats)) {}

InputParse::~InputParse() = default;

Status InputParse::start(std::optional<Format> known) {
  Impl& m = *m_impl;
  InputStats& stats = m.stats;
  const PrepOptions& options = m.ctx.options;
  stats.compression = std::string(io::to_string(m.reader.compression()));
  const std::string_view head = m.reader.peek(64 * 1024);
  Format format = options.forced;
  if (format == Format::unknown) format = known ? *known : detect_format(head, options);
  if (format == Format::unknown) {
    GPUCOST_TRY(check_format(head, format, options, stats.path));
    stats.format = Format::unknown;  // an empty input: nothing to parse, nothing lost
    add_note(stats, "empty input");
    return {};
  }
  stats.format = format;
  if (format != Format::kineto && format != Format::prometheus_json) stats.logs_tz = m.clock.name();  // UTC times
  stats.host_basis = options.host_basis;
  const FormatRow* row = format_row(format);
  if (row == nullptr)
    return make_error(ErrorKind::internal, fmt::format("{}: no parser for format {}", stats.path, format_name(format)));
  // Telemetry samples at a fixed interval: a step back or an hour of silence is an anomaly.
  // Kernel and training logs are quiet for hours and interleave writers, so they are not checked.
  m.ctx.check_clock = format_traits(format).telemetry;
  m.whole_document = format_traits(format).whole_document;
  auto parser = row->make(m.ctx, head);
  if (!parser) return parser.error();
  m.parser = std::move(*parser);
  m.prefilter = !m.whole_document && m.parser->has_prefilter();
  log().debug("{}: format {} ({}), compression {}", stats.path, format_name(format),
              options.forced != Format::unknown ? "forced" : "detected", stats.compression);
  return {};
}

bool InputParse::step() {
  Impl& m = *m_impl;
  if (m.done) return false;
  if (m.whole_document) {
    m.parser->parse_whole(m.reader, m.ctx);
    m.end();
    return false;
  }
  io::Line line;
  if (!m.reader.next(line)) {
    if (!m.live)
      m.end();
    else if (m.parser)
      m.parser->settle_live(m.ctx);
    return false;
  }
  if (!m.parser) {
    ++m.stats.lines;
    ++m.stats.ignored;
    return true;
  }
  parse_line(*m.parser, m.ctx, line);
  return true;
}

void InputParse::run_to_end() {
  Impl& m = *m_impl;
  if (!m.done && !m.whole_document && m.parser && m.ctx.options.jobs >= 2) {
    ForkableSink* sink = m.ctx.sink.forkable();
    if (sink != nullptr && parse_in_chunks(m.reader, *m.parser, m.ctx, *sink, m.ctx.options.jobs)) {
      m.end();
      return;
    }
  }
  while (m.skip_ignored(), step()) {
  }
}

void InputParse::set_live() { m_impl->live = true; }

void InputParse::finish() {
  if (!m_impl->done) m_impl->end();
}

void InputParse::end_replay() {
  Impl& m = *m_impl;
  if (m.parser && !m.done) m.parser->end_replay(m.ctx);
}

Status run_prep_input(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink,
                      InputStats& stats, std::optional<Format> known) {
  InputParse parse(reader, options, clock, sink, stats);
  GPUCOST_TRY(parse.start(known));
  parse.run_to_end();
  return {};
}

}  // namespace gpucost::prep

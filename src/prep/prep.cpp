// The prep stage driver: detect the format, run its parser over every line, account for
// every line. Parsers live in parse_<format>.cpp.
#include <gpucost/prep/prep.hpp>

#include "parsers.hpp"
#include "query_fields.hpp"

#include <gpucost/core/log.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace gpucost::prep {

std::string_view format_name(Format f) {
  switch (f) {
    case Format::dmon: return "dmon";
    case Format::pmon: return "pmon";
    case Format::query_csv: return "query-csv";
    case Format::unknown: break;
  }
  return "unknown";
}

bool format_from_name(std::string_view name, Format& out) {
  if (name == "dmon") out = Format::dmon;
  else if (name == "pmon") out = Format::pmon;
  else if (name == "query-csv" || name == "query_csv" || name == "csv") out = Format::query_csv;
  else return false;
  return true;
}

std::string format_names() { return "dmon, pmon, query-csv"; }

std::string_view to_string(TimeBasis b) {
  switch (b) {
    case TimeBasis::absolute: return "absolute";
    case TimeBasis::local: return "local";
    case TimeBasis::relative: return "relative";
    case TimeBasis::none: break;
  }
  return "none";
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

Format detect_format(std::string_view head, const PrepOptions& options) {
  const std::string_view line = first_nonblank_line(head);
  if (line.empty()) return Format::unknown;
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
    return Format::unknown;
  }
  if (looks_like_query_header(line)) return Format::query_csv;
  if (!options.fields.empty() && line.find(',') != std::string_view::npos) return Format::query_csv;
  return Format::unknown;
}

Status check_format(std::string_view head, const PrepOptions& options, const std::string& path) {
  const std::string_view first = first_nonblank_line(head);
  if (options.forced == Format::query_csv) return check_query_csv_head(first, options, path);
  if (options.forced != Format::unknown || detect_format(head, options) != Format::unknown) return {};
  if (first.empty()) return {};
  if (first.find(',') != std::string_view::npos)
    return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                      "this looks like CSV: for `nvidia-smi --query-gpu=... --format=csv,noheader` pass "
                      "--fields with the --query-gpu list; or force one with --input-format " + format_names());
  return make_error(ErrorKind::format, fmt::format("{}: cannot recognise the format", path),
                    "supported: " + format_names() + "; force one with --input-format NAME");
}

Status run_prep_input(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink,
                      InputStats& stats) {
  stats.compression = std::string(io::to_string(reader.compression()));
  const std::string_view head = reader.peek(64 * 1024);
  Format format = options.forced;
  if (format == Format::unknown) format = detect_format(head, options);
  if (format == Format::unknown) {
    if (auto st = check_format(head, options, stats.path); !st) return st;
    stats.format = Format::unknown;  // an empty input: nothing to parse, nothing lost
    io::Line line;
    while (reader.next(line)) {
      ++stats.lines;
      ++stats.ignored;
    }
    add_note(stats, "empty input");
    return {};
  }
  stats.format = format;

  ParseContext ctx{options, clock, sink, stats, Event{}, {}, {}};
  std::unique_ptr<LineParser> parser;
  switch (format) {
    case Format::dmon: parser = make_dmon_parser(ctx); break;
    case Format::pmon: parser = make_pmon_parser(ctx); break;
    case Format::query_csv: {
      auto p = make_query_csv_parser(ctx, first_nonblank_line(head));
      if (!p) return p.error();
      parser = std::move(*p);
      break;
    }
    case Format::unknown: break;
  }

  log().debug("{}: format {} ({}), compression {}", stats.path, format_name(format),
              options.forced != Format::unknown ? "forced" : "detected", stats.compression);
  const auto started = std::chrono::steady_clock::now();
  io::Line line;
  while (reader.next(line)) {
    ++stats.lines;
    LineResult result = LineResult::malformed;
    if (line.overlong) {
      ctx.reason_buf = fmt::format("line too long ({} bytes)", line.full_length);
      ctx.reason = ctx.reason_buf;
    } else {
      result = parser->parse(line.text, ctx);
    }
    if (result == LineResult::ignored) ++stats.ignored;
    if (result == LineResult::malformed) {
      ++stats.malformed;
      if (stats.examples.size() < options.max_examples) {
        const std::string_view excerpt = line.text.substr(0, 120);
        stats.examples.push_back(MalformedExample{line.number, std::string(ctx.reason), std::string(excerpt)});
      }
    }
  }
  stats.truncated = reader.error();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  log().info("{}: {} lines ({} events, {} ignored, {} malformed), {:.1f} MB in {:.3f} s", stats.path, stats.lines,
             stats.events, stats.ignored, stats.malformed, static_cast<double>(reader.bytes_read()) / 1e6, secs);
  return {};
}

}  // namespace gpucost::prep

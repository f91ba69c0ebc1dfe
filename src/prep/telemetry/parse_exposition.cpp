// An exporter's /metrics text (docs/formats.md, "Exporter /metrics text"): the Prometheus text
// exposition format 0.0.4 that `curl -s http://node:9400/metrics` saves from dcgm-exporter or
// nvidia_gpu_exporter, one scrape or many appended by a loop:
//   while sleep 15; do date +%s; curl -s http://node:9400/metrics; done >> scrapes.txt
//   # HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
//   # TYPE DCGM_FI_DEV_SM_CLOCK gauge
//   DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-...",Hostname="node01",...} 1410
// A line is one metric of one GPU at one scrape; the series table, labels and the join into one
// sample per GPU and time are the Prometheus JSON reader's (prometheus_series.hpp). A sample's
// time is its own timestamp (ms; seconds in OpenMetrics' `# EOF` files), else the scrape time
// line before it (`date +%s`, or `# scraped at TIME`), else the file's modification time. With
// scrape time lines the samples are emitted at each scrape's end, so one scrape is held at a time.
#include "prep/parsers.hpp"
#include "prep/telemetry/prometheus_series.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::prep {

namespace {

/// Where a sample without a time of its own and before any scrape time line is filed until its
/// time is known.
constexpr std::int64_t kUnplaced = std::numeric_limits<std::int64_t>::min();

/// A timestamp at or above this is in ms (the text format's unit: 1e11 ms is March 1973); below,
/// in seconds (OpenMetrics' unit: 1e11 s is the year 5138).
constexpr double kMsThreshold = 1e11;
/// Unix seconds gpucost takes for a scrape time: 2001-09-09 to 2096.
constexpr double kMinUnixS = 1e9, kMaxUnixS = 4e9;

bool is_name_start(char c) { return text::is_alpha(c) || c == '_' || c == ':'; }
bool is_name_char(char c) { return is_name_start(c) || text::is_digit(c); }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

std::size_t skip_blanks(std::string_view s, std::size_t i) {
  while (i < s.size() && is_blank(s[i])) ++i;
  return i;
}

/// Digits with an optional fraction and nothing else: `date +%s` (or `+%s.%N`).
bool is_unix_seconds_line(std::string_view s) {
  if (s.empty() || !text::is_digit(s.front())) return false;
  bool dot = false;
  for (const char c : s) {
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (!text::is_digit(c)) return false;
  }
  return true;
}

/// One sample line cut into its parts; the label values unescaped in place in the parser's copy
/// of the line, so that the views stay valid until the next line.
struct SampleLine {
  std::string_view name, value, timestamp;
};

class ExpositionParser final : public LineParser {
 public:
  explicit ExpositionParser(prom::LabelFilter filter) : m_filter(std::move(filter)) {}

  LineResult parse(std::string_view raw, ParseContext& ctx) override {
    if (ctx.stats.clock.empty()) {
      ctx.stats.time_basis = TimeBasis::absolute;
      ctx.stats.clock = "absolute: the scrapes' times (Unix seconds, UTC)";
    }
    const std::string_view line = text::trim(raw);
    if (line.empty()) return LineResult::ignored;
    if (line.front() == '#') return comment(line, ctx);
    if (is_unix_seconds_line(line)) return scrape_time_line(line, ctx);
    return sample(line, ctx);
  }

  void finish(ParseContext& ctx) override {
    const bool placed_at_mtime = m_unplaced_lines > 0 && ctx.reference_ns.has_value();
    if (m_unplaced_lines > 0) place_without_scrape_time(ctx);
    m_join.emit(ctx);
    m_join.summarise(ctx);
    if (!placed_at_mtime && ctx.stats.events > 0 && ctx.stats.first_ts_ns == ctx.stats.last_ts_ns)
      add_note(ctx.stats, fmt::format("one scrape, at {}: a snapshot: one instant, no duration to price",
                                      format_utc(ctx.stats.first_ts_ns)));
    if (m_own_timestamps > 0 && m_scrape_times > 0)
      add_note(ctx.stats, fmt::format("{} lines carry their own timestamp: it wins over the scrape time line before "
                                      "them",
                                      m_own_timestamps));
  }

 private:
  // ---- scrape times -----------------------------------------------------------------------

  // `# HELP`, `# TYPE`, `# UNIT`, `# EOF` and other comments say nothing of the samples;
  // `# scraped at TIME` starts a scrape.
  LineResult comment(std::string_view line, ParseContext& ctx) {
    const std::string_view body = text::trim(line.substr(1));
    constexpr std::string_view kScrapedAt = "scraped at ";
    if (!body.starts_with(kScrapedAt)) return LineResult::ignored;
    const std::string_view when = text::trim(body.substr(kScrapedAt.size()));
    if (is_unix_seconds_line(when)) return scrape_time_line(when, ctx);
    const auto iso = parse_iso8601(when);
    if (!iso) return ctx.malformed("a scrape time line whose time is neither Unix seconds nor RFC 3339");
    const std::int64_t local_ns = iso->civil.as_utc_ns();
    start_scrape(iso->offset_s ? local_ns - *iso->offset_s * kNsPerSecond : ctx.clock.to_utc_ns(local_ns), ctx);
    return LineResult::ignored;
  }

  LineResult scrape_time_line(std::string_view digits, ParseContext& ctx) {
    const auto seconds = text::parse_double(digits);
    if (!seconds || *seconds < kMinUnixS || *seconds > kMaxUnixS)
      return ctx.malformed("a line of digits that is no Unix time (date +%s) of a scrape");
    start_scrape(std::llround(*seconds * 1e3) * 1'000'000, ctx);
    return LineResult::ignored;
  }

  // The scrape before is complete: its samples are emitted (with every earlier one), and the
  // lines that came before the first scrape time had none.
  void start_scrape(std::int64_t ts_ns, ParseContext& ctx) {
    if (m_unplaced_lines > 0) {
      m_join.drop(kUnplaced);
      ctx.settle(LineResult::malformed, m_unplaced_lines, m_first_unplaced_line,
                 "a sample before the first scrape time line (date +%s, # scraped at): no time");
      m_unplaced_lines = 0;
    }
    m_join.emit(ctx, ts_ns);
    m_scrape_ns = ts_ns;
    ++m_scrape_times;
  }

  // No scrape time anywhere: the file is one scrape, taken when it was last written.
  void place_without_scrape_time(ParseContext& ctx) {
    if (!ctx.reference_ns) {
      m_join.drop(kUnplaced);
      ctx.settle(LineResult::malformed, m_unplaced_lines, m_first_unplaced_line,
                 "no scrape time: the input has no timestamps, scrape time lines or modification time");
      add_note(ctx.stats,
               "no scrape time (a pipe has no modification time): save the scrapes with a time line "
               "before each, e.g. while sleep 15; do date +%s; curl -s http://node:9400/metrics; done");
      return;
    }
    m_join.move(kUnplaced, *ctx.reference_ns);
    ctx.settle(LineResult::event, m_unplaced_lines);
    add_note(ctx.stats, fmt::format("no timestamps or scrape time lines: one scrape, placed at the file's "
                                    "modification time {} (a snapshot: one instant, no duration to price)",
                                    format_utc(*ctx.reference_ns)));
  }

  // ---- sample lines -----------------------------------------------------------------------

  LineResult sample(std::string_view line, ParseContext& ctx) {
    m_line.assign(line);
    SampleLine s;
    std::string_view why;
    if (!split(s, why)) return ctx.malformed(why);
    prom::SeriesJoin::Series series;
    switch (m_join.classify(s.name, m_labels, m_filter, series)) {
      case prom::SeriesJoin::Outcome::ignored:
      case prom::SeriesJoin::Outcome::filtered: return LineResult::ignored;
      case prom::SeriesJoin::Outcome::info: return LineResult::event;
      case prom::SeriesJoin::Outcome::no_gpu: return ctx.malformed("no gpu, UUID or uuid label: which GPU is it?");
      case prom::SeriesJoin::Outcome::series: break;
    }
    std::int64_t ts_ns = m_scrape_ns.value_or(kUnplaced);
    if (!s.timestamp.empty()) {
      const auto t = text::parse_double(s.timestamp);
      const double seconds = t && *t >= kMsThreshold ? *t / 1e3 : t.value_or(-1);
      if (!(seconds >= kMinUnixS && seconds <= kMaxUnixS)) return ctx.malformed("a timestamp that is no Unix time");
      ts_ns = std::llround(seconds * 1e3) * 1'000'000;
      ++m_own_timestamps;
    }
    if (!m_join.add_point(series, ts_ns, s.value, why)) return ctx.malformed(why);
    if (ts_ns != kUnplaced) return LineResult::event;
    if (m_unplaced_lines++ == 0) m_first_unplaced_line = ctx.line_no;
    return LineResult::deferred;  // settled once the scrape's time is known
  }

  // name{label="value",...} value [timestamp], in m_line; false with `why` when it is not.
  bool split(SampleLine& s, std::string_view& why) {
    std::string_view l = m_line;
    std::size_t i = 0;
    if (l.empty() || !is_name_start(l[0])) {
      why = "not a sample line: name{labels} value [timestamp]";
      return false;
    }
    while (i < l.size() && is_name_char(l[i])) ++i;
    s.name = l.substr(0, i);
    m_labels.clear();
    i = skip_blanks(l, i);
    if (i < l.size() && l[i] == '{' && !labels(i, why)) return false;
    l = m_line;
    const std::size_t value_start = skip_blanks(l, i);
    std::size_t value_end = value_start;
    while (value_end < l.size() && !is_blank(l[value_end])) ++value_end;
    s.value = l.substr(value_start, value_end - value_start);
    const std::size_t ts_start = skip_blanks(l, value_end);
    std::size_t ts_end = ts_start;
    while (ts_end < l.size() && !is_blank(l[ts_end])) ++ts_end;
    s.timestamp = l.substr(ts_start, ts_end - ts_start);
    if (s.value.empty()) {
      why = "no value after the name and labels";
      return false;
    }
    if (skip_blanks(l, ts_end) != l.size()) {
      why = "more than a value and a timestamp after the labels";
      return false;
    }
    return true;
  }

  // The label set from the '{' at `i`: name="value" pairs, commas between (one after the last is
  // allowed), values with \\, \" and \n escapes. Leaves `i` after the '}'.
  bool labels(std::size_t& i, std::string_view& why) {
    ++i;
    for (;;) {
      i = skip_blanks(m_line, i);
      if (i < m_line.size() && m_line[i] == '}') {
        ++i;
        return true;
      }
      const std::size_t name_start = i;
      while (i < m_line.size() && is_name_char(m_line[i])) ++i;
      const std::size_t name_end = i;
      i = skip_blanks(m_line, i);
      if (name_end == name_start || i + 1 >= m_line.size() || m_line[i] != '=' ||
          m_line[skip_blanks(m_line, i + 1)] != '"') {
        why = "a label that is not name=\"value\"";
        return false;
      }
      i = skip_blanks(m_line, i + 1) + 1;
      std::size_t value_end = 0, close = 0;
      if (!unescape(i, value_end, close)) {
        why = "a label value without its closing quote";
        return false;
      }
      m_labels.push_back(prom::Label{std::string_view(m_line).substr(name_start, name_end - name_start),
                                     std::string_view(m_line).substr(i, value_end - i)});
      i = skip_blanks(m_line, close + 1);
      if (i < m_line.size() && m_line[i] == ',') ++i;
    }
  }

  // Unescapes the quoted value starting at `start` in place (it only gets shorter): `end` is
  // where the value ends now, `close` where its closing quote is.
  bool unescape(std::size_t start, std::size_t& end, std::size_t& close) {
    std::size_t out = start;
    for (std::size_t in = start; in < m_line.size(); ++in) {
      char c = m_line[in];
      if (c == '"') {
        end = out;
        close = in;
        return true;
      }
      if (c == '\\' && in + 1 < m_line.size()) {
        c = m_line[++in];
        if (c == 'n') c = '\n';
      }
      m_line[out++] = c;
    }
    return false;
  }

  prom::LabelFilter m_filter;
  prom::SeriesJoin m_join{"exposition"};
  std::string m_line;                 ///< the line being read, its label values unescaped in place
  std::vector<prom::Label> m_labels;  ///< views into m_line
  std::optional<std::int64_t> m_scrape_ns;
  std::uint64_t m_unplaced_lines = 0, m_first_unplaced_line = 0, m_own_timestamps = 0, m_scrape_times = 0;
};

}  // namespace

bool looks_like_exposition(std::string_view head) {
  // Among the first lines: `# HELP name ...` or `# TYPE name gauge|counter|...`, or a sample line
  // of a series gpucost reads (`DCGM_FI_DEV_SM_CLOCK{gpu="0",...} 1410`). A scrape time line
  // (digits) may come first.
  HeadLines lines(head);
  std::string_view line;
  for (int n = 0; n < 40 && lines.next(line); ++n) {
    const std::string_view t = text::trim(line);
    if (is_unix_seconds_line(t)) continue;
    if (t.starts_with("# HELP ") || t.starts_with("# TYPE ")) {
      std::size_t pos = 7;
      const std::string_view name = text::next_token(t, pos);
      if (!name.empty() && is_name_start(name.front())) return true;
      return false;
    }
    if (t.starts_with("# scraped at ")) continue;
    std::size_t i = 0;
    while (i < t.size() && is_name_char(t[i])) ++i;
    if (i == 0 || !is_name_start(t[0]) || prom::find_metric(t.substr(0, i)) == nullptr) return false;
    return i < t.size() && (t[i] == '{' || is_blank(t[i]));
  }
  return false;
}

bool looks_like_exposition_lines(std::string_view head) {
  // The first line that is not a comment: `name{label="v",...} value` or `name value`, the value a
  // number as Go prints it.
  HeadLines lines(head);
  std::string_view line;
  while (lines.next(line)) {
    const std::string_view t = text::trim(line);
    if (t.front() == '#') continue;
    std::size_t i = 0;
    while (i < t.size() && is_name_char(t[i])) ++i;
    if (i == 0 || !is_name_start(t[0])) return false;
    if (i < t.size() && t[i] == '{') {
      const std::size_t close = t.rfind('}');
      if (close == std::string_view::npos || t.find('=') > close) return false;
      i = close + 1;
    }
    std::size_t pos = skip_blanks(t, i);
    if (pos == i) return false;
    std::size_t end = pos;
    while (end < t.size() && !is_blank(t[end])) ++end;
    double v = 0;
    bool json = false;
    const std::string_view value = t.substr(pos, end - pos);
    return text::parse_number(value, v, json) || prom::is_non_finite_text(value);
  }
  return false;
}

Expected<std::unique_ptr<LineParser>> make_exposition_parser(ParseContext& ctx, std::string_view /*head*/) {
  auto filter = prom::LabelFilter::compile(ctx.options.label_matchers);
  if (!filter) return filter.error();
  return std::unique_ptr<LineParser>(std::make_unique<ExpositionParser>(std::move(*filter)));
}

}  // namespace gpucost::prep

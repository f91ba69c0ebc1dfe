#include <gpucost/io/event_stream.hpp>

#include <gpucost/core/formats.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpucost::io {

namespace {

// Text fields that have their own TSV column (in this order).
constexpr std::string_view kTsvTextColumns[] = {"name", "uuid", "pci_bus_id", "process_type", "command"};

}  // namespace

struct EventWriter::Impl {
  OutBuffer out;
  StreamFormat format;
  std::string tz_name;         // repeated in the summary
  std::string selection;       // prep --kinds/--from/--to, as given
  std::uint64_t left_out = 0;  // events the selection left out
  std::uint64_t derived = 0;   // events computed from several inputs (trace_job, trace_rank)
  Impl(std::FILE* f, StreamFormat fmt_) : out(f), format(fmt_) {}

  // The hot path: one event line, written with raw pointers into a scratch buffer sized for the
  // worst case, then appended once.
  std::unique_ptr<char[]> line;
  std::size_t line_cap = 0;

  [[gnu::always_inline]] static char* put(char* p, std::string_view s) {
    // Most pieces are a few bytes: two overlapping fixed-size moves cost less than a call.
    const std::size_t n = s.size();
    const char* from = s.data();
    if (n >= 8 && n <= 16) {
      std::memcpy(p, from, 8);
      std::memcpy(p + n - 8, from + n - 8, 8);
    } else if (n >= 4 && n < 8) {
      std::memcpy(p, from, 4);
      std::memcpy(p + n - 4, from + n - 4, 4);
    } else if (n < 4) {
      for (std::size_t i = 0; i < n; ++i) p[i] = from[i];
    } else {
      std::memcpy(p, from, n);
    }
    return p + n;
  }
  /// Whether one of the 8 bytes of `x` needs care (below): SWAR tests, exact for "any byte".
  static bool word_needs_care(std::uint64_t x) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    const auto has_zero = [](std::uint64_t v) { return ((v - ones) & ~v & highs) != 0; };
    const bool control = ((x - ones * 0x20) & ~x & highs) != 0;  // a byte below 0x20
    return (x & highs) != 0 || control || has_zero(x ^ (ones * '"')) || has_zero(x ^ (ones * '\\'));
  }
  static std::uint64_t load8(const char* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, 8);
    return v;
  }
  /// True when `s` holds a byte JSON must escape (a control character, '"', '\\') or one of
  /// UTF-8 (>= 0x80, left to the escaping writer). Every byte is read once or twice, by
  /// overlapping words: 16 at a time with SSE2, 8 at a time below that.
  static bool needs_care(std::string_view s) {
    const std::size_t n = s.size();
    const char* d = s.data();
    if (n < 8) {
      for (std::size_t i = 0; i < n; ++i)
        if (static_cast<signed char>(d[i]) < 0x20 || d[i] == '"' || d[i] == '\\') return true;
      return false;
    }
    if (n <= 16) return word_needs_care(load8(d)) || word_needs_care(load8(d + n - 8));
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const auto block = [&](std::size_t i) {
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + i));
      // Signed: bytes >= 0x80 are negative, so one compare catches them with the control characters.
      const __m128i care =
          _mm_or_si128(_mm_cmplt_epi8(b, space), _mm_or_si128(_mm_cmpeq_epi8(b, quote), _mm_cmpeq_epi8(b, backslash)));
      return _mm_movemask_epi8(care) != 0;
    };
    for (std::size_t i = 0; i + 16 <= n; i += 16)
      if (block(i)) return true;
    return block(n - 16);
#else
    for (std::size_t i = 0; i + 8 <= n; i += 8)
      if (word_needs_care(load8(d + i))) return true;
    return word_needs_care(load8(d + n - 8));
#endif
  }
  static char* put_string(char* p, std::string_view s) {
    // Plain printable ASCII is copied as is; anything else goes through the escaping writer.
    if (needs_care(s)) {
      std::string tmp;
      append_json_string(tmp, s);
      return put(p, tmp);
    }
    *p++ = '"';
    p = put(p, s);
    *p++ = '"';
    return p;
  }
  /// `,"key":` of each metric in a fixed 32-byte slot, copied whole (two 16-byte moves, no
  /// branch on its length; the line buffer has room) and then counted by its size.
  struct MetricPrefix {
    char text[32];
    std::size_t size;
  };
  static const std::array<MetricPrefix, kMetricCount>& metric_prefixes() {
    static const std::array<MetricPrefix, kMetricCount> prefixes = [] {
      std::array<MetricPrefix, kMetricCount> out{};
      for (std::size_t i = 0; i < kMetricCount; ++i) {
        const std::string piece = fmt::format(",\"{}\":", kMetricInfo[i].key);
        if (piece.size() > sizeof out[i].text) throw std::logic_error("metric key longer than its prefix slot");
        std::memcpy(out[i].text, piece.data(), piece.size());
        out[i].size = piece.size();
      }
      return out;
    }();
    return prefixes;
  }
  /// The last event's time, source, host and kind as written: telemetry repeats them row after
  /// row (dmon's rows of one cycle share their time), so each is formatted once per change.
  struct Repeated {
    std::int64_t ts_ns = 0;
    char ts_digits[24] = {'0'};
    std::size_t ts_size = 1;
    std::string source, source_json = "\"\"";
    std::string host, host_json = "\"\"";
    std::string kind, kind_json = "\"\"";
  } last;
  /// a == b for the short names compared at every event, without a library call for 4 to 16 bytes.
  static bool same_text(std::string_view a, std::string_view b) {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    if (n >= 8 && n <= 16) return load8(x) == load8(y) && load8(x + n - 8) == load8(y + n - 8);
    if (n >= 4 && n < 8) {
      std::uint32_t x0 = 0, x1 = 0, y0 = 0, y1 = 0;
      std::memcpy(&x0, x, 4);
      std::memcpy(&x1, x + n - 4, 4);
      std::memcpy(&y0, y, 4);
      std::memcpy(&y1, y + n - 4, 4);
      return x0 == y0 && x1 == y1;
    }
    return a == b;
  }
  static void remember(std::string_view text, std::string& key, std::string& json) {
    if (same_text(text, key)) return;
    key.assign(text);
    json.clear();
    append_json_string(json, text);
  }
  static char* put_int(char* p, std::int64_t v) { return std::to_chars(p, p + 24, v).ptr; }
  static char* put_value(char* p, const Field& f) { return f.numeric ? put(p, f.value) : put_string(p, f.value); }

  void json_event(const Event& ev, std::string& dst) {
    std::size_t bound = 160 + last.host_json.size() + 6 * (ev.source.size() + ev.kind.size() + ev.host.size());
    bound += kMetricCount * 64;
    for (const Field& f : ev.fields) bound += 6 * (f.key.size() + f.value.size()) + 16;
    if (bound > line_cap) {
      line_cap = bound * 2;
      line.reset(new char[line_cap]);
    }
    if (ev.ts_ns != last.ts_ns) {
      last.ts_ns = ev.ts_ns;
      last.ts_size = static_cast<std::size_t>(put_int(last.ts_digits, ev.ts_ns) - last.ts_digits);
    }
    remember(ev.source, last.source, last.source_json);
    remember(ev.host, last.host, last.host_json);
    remember(ev.kind, last.kind, last.kind_json);
    char* p = line.get();
    p = put(p, "{\"type\":\"event\",\"ts_ns\":");
    p = put(p, std::string_view(last.ts_digits, last.ts_size));
    p = put(p, ",\"source\":");
    p = put(p, last.source_json);
    p = put(p, ",\"host\":");
    p = put(p, last.host_json);
    p = put(p, ",\"gpu\":");
    p = ev.gpu >= 0 ? put_int(p, ev.gpu) : put(p, "null");
    p = put(p, ",\"kind\":");
    p = put(p, last.kind_json);
    const auto& prefixes = metric_prefixes();
    for (std::uint64_t bits = ev.present; bits != 0; bits &= bits - 1) {
      const auto i = static_cast<std::size_t>(__builtin_ctzll(bits));
      std::memcpy(p, prefixes[i].text, sizeof prefixes[i].text);
      p += prefixes[i].size;
      if (!ev.texts[i].empty() && ev.texts[i].size() < 32) {
        p = put(p, ev.texts[i]);
      } else {
        std::string tmp;
        append_json_number(tmp, ev.values[i]);
        p = put(p, tmp);
      }
    }
    bool any_extra = false;
    for (const Field& f : ev.fields) {
      if (f.extra) {
        any_extra = true;
        continue;
      }
      *p++ = ',';
      p = put_string(p, f.key);
      *p++ = ':';
      p = put_value(p, f);
    }
    if (any_extra) {
      p = put(p, ",\"extra\":{");
      bool first = true;
      for (const Field& f : ev.fields) {
        if (!f.extra) continue;
        if (!first) *p++ = ',';
        first = false;
        p = put_string(p, f.key);
        *p++ = ':';
        p = put_value(p, f);
      }
      *p++ = '}';
    }
    *p++ = '}';
    *p++ = '\n';
    dst.append(line.get(), static_cast<std::size_t>(p - line.get()));
  }

  static void field(std::string& b, const Field& f) {
    b.push_back(',');
    append_json_string(b, f.key);
    b.push_back(':');
    value(b, f);
  }
  static void value(std::string& b, const Field& f) {
    if (f.numeric)
      b.append(f.value);
    else
      append_json_string(b, f.value);
  }

  // TSV cells must not contain tabs or newlines.
  static void tsv_cell(std::string& b, std::string_view s) {
    for (char c : s) b.push_back(c == '\t' || c == '\n' || c == '\r' ? ' ' : c);
  }

  // One key or value of the `extra` cell: '%', ';', tab, LF and CR (and '=' in a key) as %XX,
  // so that the cell splits on ';' and each pair at its first '='.
  static void tsv_extra_text(std::string& b, std::string_view s, bool key) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    for (const char c : s) {
      if (c == '%' || c == ';' || c == '\t' || c == '\n' || c == '\r' || (key && c == '=')) {
        const auto u = static_cast<unsigned char>(c);
        b.push_back('%');
        b.push_back(kHex[u >> 4]);
        b.push_back(kHex[u & 15]);
      } else {
        b.push_back(c);
      }
    }
  }

  static bool has_tsv_column(const Field& f) {
    if (f.extra) return false;
    for (std::string_view t : kTsvTextColumns)
      if (f.key == t) return true;
    return false;
  }

  // The fields without a column of their own, in the event's order, as key=value pairs joined
  // by ';'; a column gpucost does not model (JSON's "extra" object) as extra.NAME=value.
  static void tsv_extra(std::string& b, const Event& ev) {
    bool first = true;
    for (const Field& f : ev.fields) {
      if (has_tsv_column(f)) continue;
      if (!first) b.push_back(';');
      first = false;
      if (f.extra) b.append("extra.");
      tsv_extra_text(b, f.key, true);
      b.push_back('=');
      tsv_extra_text(b, f.value, false);
    }
  }

  void tsv_header() {
    std::string& b = out.buffer();
    b.append("ts_ns\tsource\thost\tgpu\tkind");
    for (const auto& m : kMetricInfo) {
      b.push_back('\t');
      b.append(m.key);
    }
    for (std::string_view t : kTsvTextColumns) {
      b.push_back('\t');
      b.append(t);
    }
    b.append("\textra\n");
  }

  static void append_int(std::string& b, std::int64_t v) {
    char tmp[24];
    b.append(tmp, std::to_chars(tmp, tmp + sizeof tmp, v).ptr);
  }

  void tsv_event(const Event& ev, std::string& b) {
    append_int(b, ev.ts_ns);
    b.push_back('\t');
    tsv_cell(b, ev.source);
    b.push_back('\t');
    tsv_cell(b, ev.host);
    b.push_back('\t');
    if (ev.gpu >= 0) append_int(b, ev.gpu);
    b.push_back('\t');
    tsv_cell(b, ev.kind);
    for (std::size_t i = 0; i < kMetricCount; ++i) {
      b.push_back('\t');
      if (!ev.has(static_cast<Metric>(i))) continue;
      if (!ev.texts[i].empty())
        b.append(ev.texts[i]);
      else
        append_json_number(b, ev.values[i]);
    }
    for (std::string_view t : kTsvTextColumns) {
      b.push_back('\t');
      for (const Field& f : ev.fields)
        if (!f.extra && f.key == t) tsv_cell(b, f.value);
    }
    b.push_back('\t');
    tsv_extra(b, ev);
    b.push_back('\n');
  }
};

EventWriter::EventWriter(std::FILE* out, StreamFormat format) : m_impl(new Impl(out, format)) {}
EventWriter::~EventWriter() { delete m_impl; }

void EventWriter::write_header(const std::string& tz_name, const std::string& version, const std::string& host_basis) {
  m_impl->tz_name = tz_name;
  if (m_impl->format == StreamFormat::tsv) {
    m_impl->tsv_header();
    return;
  }
  std::string& b = m_impl->out.buffer();
  b.append(fmt::format("{{\"type\":\"header\",\"schema\":\"{}\",\"version\":{},\"generator\":", kEventsSchema,
                       kEventsVersion));
  append_json_string(b, "gpucost " + version);
  b.append(",\"tz\":");
  append_json_string(b, tz_name);
  if (!host_basis.empty()) {
    b.append(",\"host_basis\":");
    append_json_string(b, host_basis);
  }
  b.append(",\"time_unit\":\"ns\"}\n");
}

void EventWriter::on_event(const Event& event) {
  format(event, m_impl->out.buffer());
  m_impl->out.maybe_flush();
}

void EventWriter::format(const Event& event, std::string& out) {
  if (m_impl->format == StreamFormat::tsv)
    m_impl->tsv_event(event, out);
  else
    m_impl->json_event(event, out);
}

namespace {

/// A chunk's events, formatted as the writer that forked it would write them.
class FormattedEvents final : public EventSink {
 public:
  explicit FormattedEvents(StreamFormat format) : m_formatter(nullptr, format) {}
  void on_event(const Event& event) override { m_formatter.format(event, m_text); }
  std::string& text() { return m_text; }

 private:
  EventWriter m_formatter;  // writes nowhere: its format() only
  std::string m_text;
};

}  // namespace

std::unique_ptr<EventSink> EventWriter::fork() { return std::make_unique<FormattedEvents>(m_impl->format); }

void EventWriter::join(EventSink& forked) {
  std::string& text = static_cast<FormattedEvents&>(forked).text();
  m_impl->out.write_through(text);
  text.clear();
}

void EventWriter::discard(EventSink& forked) { static_cast<FormattedEvents&>(forked).text().clear(); }

void EventWriter::write_line(std::string_view line) {
  m_impl->out.raw(line);
  m_impl->out.maybe_flush();
}

void EventWriter::write_summary(const std::vector<InputStats>& inputs) {
  if (m_impl->format == StreamFormat::tsv) return;
  std::string& b = m_impl->out.buffer();
  b.append("{\"type\":\"summary\",\"inputs\":[");
  std::uint64_t lines = 0, events = 0, ignored = 0, malformed = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& s = inputs[i];
    if (i > 0) b.push_back(',');
    b.append("{\"path\":");
    append_json_string(b, s.path);
    b.append(",\"format\":");
    append_json_string(b, format_name(s.format));
    b.append(",\"compression\":");
    append_json_string(b, s.compression);
    b.append(fmt::format(
        ",\"lines\":{},\"events\":{},\"event_lines\":{},\"ignored\":{},\"malformed\":{},\"time_basis\":", s.lines,
        s.events, s.event_lines, s.ignored, s.malformed));
    append_json_string(b, to_string(s.time_basis));
    if (!s.clock.empty()) {
      b.append(",\"clock\":");
      append_json_string(b, s.clock);
    }
    if (s.events > 0) {
      b.append(fmt::format(",\"first_ts_ns\":{},\"last_ts_ns\":{}", s.first_ts_ns, s.last_ts_ns));
    }
    if (s.duplicates > 0) b.append(fmt::format(",\"duplicates\":{}", s.duplicates));
    if (!s.fingerprint.empty()) {  // the software stack seen: driver, CUDA, GPU names and count
      const auto list = [&b](std::string_view key, const std::vector<std::string>& values) {
        b.append(key);
        for (std::size_t k = 0; k < values.size(); ++k) {
          if (k > 0) b.push_back(',');
          append_json_string(b, values[k]);
        }
        b.push_back(']');
      };
      list(",\"fingerprint\":{\"drivers\":[", s.fingerprint.drivers);
      list(",\"cuda\":[", s.fingerprint.cuda);
      list(",\"gpus\":[", s.fingerprint.gpus);
      if (!s.fingerprint.stack.empty()) list(",\"stack\":[", s.fingerprint.stack);
      b.append(fmt::format(",\"gpu_count\":{}}}", s.fingerprint.gpu_count));
    }
    b.append(",\"truncated\":");
    if (s.truncated.empty())
      b.append("null");
    else
      append_json_string(b, s.truncated);
    b.append(",\"malformed_examples\":[");
    for (std::size_t k = 0; k < s.examples.size(); ++k) {
      if (k > 0) b.push_back(',');
      b.append(fmt::format("{{\"line\":{},\"reason\":", s.examples[k].line));
      append_json_string(b, s.examples[k].reason);
      b.append(",\"excerpt\":");
      append_json_string(b, s.examples[k].excerpt);
      b.push_back('}');
    }
    b.append("],\"notes\":[");
    for (std::size_t k = 0; k < s.notes.size(); ++k) {
      if (k > 0) b.push_back(',');
      append_json_string(b, s.notes[k]);
    }
    b.append("]}");
    lines += s.lines;
    events += s.events;
    ignored += s.ignored;
    malformed += s.malformed;
  }
  std::uint64_t duplicates = 0;
  for (const auto& in : inputs) duplicates += in.duplicates;
  b.append(fmt::format("],\"lines\":{},\"events\":{},\"ignored\":{},\"malformed\":{},\"duplicates\":{},\"tz\":", lines,
                       events, ignored, malformed, duplicates));
  append_json_string(b, m_impl->tz_name);
  if (m_impl->derived > 0) b.append(fmt::format(",\"derived\":{}", m_impl->derived));
  if (!m_impl->selection.empty()) {
    b.append(",\"selection\":");
    append_json_string(b, m_impl->selection);
    b.append(fmt::format(",\"left_out\":{}", m_impl->left_out));
  }
  b.append("}\n");
}

void EventWriter::set_selection(std::string description, std::uint64_t left_out) {
  m_impl->selection = std::move(description);
  m_impl->left_out = left_out;
}

void EventWriter::set_derived(std::uint64_t derived) { m_impl->derived = derived; }

void EventWriter::flush() { m_impl->out.flush(); }
bool EventWriter::failed() const { return m_impl->out.failed(); }

bool is_event_stream(std::string_view head) {
  const std::size_t nl = head.find('\n');
  const std::string_view first = head.substr(0, nl);
  return first.find("\"type\":\"header\"") != std::string_view::npos &&
         first.find(kEventsSchema) != std::string_view::npos;
}

namespace {

std::string_view trim_token(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
    t.remove_suffix(1);
  return t;
}

// A field that is not a metric: text stays text, a number keeps its digits (written unquoted
// again), a boolean its word; null and arrays carry nothing gpucost reads.
bool add_field(std::string_view key, simdjson::ondemand::value& v, bool extra, Event& ev) {
  simdjson::ondemand::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return false;
  switch (type) {
    case simdjson::ondemand::json_type::string: {
      std::string_view raw;
      if (v.get_string().get(raw) != simdjson::SUCCESS) return false;
      ev.fields.push_back(Field{key, raw, false, extra});
      return true;
    }
    case simdjson::ondemand::json_type::number:
      ev.fields.push_back(Field{key, trim_token(v.raw_json_token()), true, extra});
      return true;
    case simdjson::ondemand::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b) != simdjson::SUCCESS) return false;
      ev.fields.push_back(Field{key, b ? "true" : "false", true, extra});
      return true;
    }
    default: return true;
  }
}

// Fills `ev` from one parsed event object. Returns an error reason, or empty on success.
std::string_view fill_event(simdjson::ondemand::object obj, Event& ev) {
  ev.reset();
  // Nothing of the previous record may survive: its views point into the parser's last buffer.
  ev.gpu = -1;
  ev.ts_ns = 0;
  ev.source = {};
  ev.host = {};
  ev.kind = {};
  bool has_ts = false;
  for (auto member : obj) {
    std::string_view key;
    if (member.unescaped_key().get(key) != simdjson::SUCCESS) return "bad key";
    simdjson::ondemand::value v;
    if (member.value().get(v) != simdjson::SUCCESS) return "bad value";
    if (key == "type") continue;
    if (key == "ts_ns") {
      std::int64_t ts = 0;
      if (v.get_int64().get(ts) != simdjson::SUCCESS) return "ts_ns is not an integer";
      ev.ts_ns = ts;
      has_ts = true;
    } else if (key == "source") {
      if (v.get_string().get(ev.source) != simdjson::SUCCESS) return "source is not a string";
    } else if (key == "host") {
      if (v.get_string().get(ev.host) != simdjson::SUCCESS) return "host is not a string";
    } else if (key == "kind") {
      if (v.get_string().get(ev.kind) != simdjson::SUCCESS) return "kind is not a string";
    } else if (key == "gpu") {
      bool is_null = false;
      if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null) continue;
      std::int64_t g = 0;
      if (v.get_int64().get(g) != simdjson::SUCCESS || g < 0 || g > 1'000'000) return "gpu is not an index";
      ev.gpu = static_cast<std::int32_t>(g);
    } else if (Metric m{}; metric_from_key(key, m)) {
      double d = 0;
      if (v.get_double().get(d) != simdjson::SUCCESS) return "metric is not a number";
      ev.set(m, d);
    } else if (key == "extra") {  // columns gpucost does not model, kept by name
      simdjson::ondemand::object extra;
      if (v.get_object().get(extra) != simdjson::SUCCESS) return "extra is not an object";
      for (auto x : extra) {
        std::string_view xkey;
        simdjson::ondemand::value xv;
        if (x.unescaped_key().get(xkey) != simdjson::SUCCESS || x.value().get(xv) != simdjson::SUCCESS)
          return "bad extra field";
        if (!add_field(xkey, xv, true, ev)) return "bad extra value";
      }
    } else if (!add_field(key, v, false, ev)) {
      return "bad field value";
    }
  }
  if (!has_ts) return "an event without ts_ns";
  if (ev.kind.empty()) return "an event without kind";
  return {};
}

/// Whether an ondemand document can still be read after `error`: a wrong type or a missing field
/// leaves the iterator in place; anything else (a broken document) abandons it.
bool usable_after(simdjson::error_code error) {
  return error == simdjson::SUCCESS || error == simdjson::INCORRECT_TYPE || error == simdjson::NO_SUCH_FIELD;
}

/// An input's fingerprint in the summary, added to `out`: a stream read again keeps the software
/// stack its raw logs showed (the ledger's runs, `trace --diff`). Returns false when the JSON broke
/// off inside it: simdjson then abandons its iterator, so the caller must stop reading the line.
bool read_fingerprint(simdjson::ondemand::object& input, Fingerprint& out) {
  simdjson::ondemand::object fp;
  const auto found = input["fingerprint"].get_object().get(fp);
  if (found != simdjson::SUCCESS) return usable_after(found);
  for (auto field : fp) {
    std::string_view key;
    if (field.error() != simdjson::SUCCESS || field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    std::vector<std::string>* list = key == "drivers" ? &out.drivers
                                     : key == "cuda"  ? &out.cuda
                                     : key == "gpus"  ? &out.gpus
                                     : key == "stack" ? &out.stack
                                                      : nullptr;
    if (key == "gpu_count") {
      std::uint64_t n = 0;
      const auto got = field.value().get_uint64().get(n);
      if (got == simdjson::SUCCESS)
        out.gpu_count = std::max(out.gpu_count, n);
      else if (!usable_after(got))
        return false;
      continue;
    }
    simdjson::ondemand::array values;
    if (list == nullptr) continue;
    const auto got = field.value().get_array().get(values);
    if (got != simdjson::SUCCESS) {
      if (!usable_after(got)) return false;
      continue;
    }
    for (auto v : values) {
      std::string_view text;
      if (v.error() != simdjson::SUCCESS) return false;
      const auto str = v.get_string().get(text);
      if (str == simdjson::SUCCESS)
        Fingerprint::add(*list, text);
      else if (!usable_after(str))
        return false;
    }
  }
  return true;
}

/// The header's optional keys (the logs' zone, how the host was found). A header broken after
/// its version is still a header: simdjson then abandons its iterator, so reading stops there.
void read_header_extras(simdjson::ondemand::object& header, InputStats& stats) {
  std::string_view text;
  header.reset();
  const auto tz = header["tz"].get_string().get(text);
  if (tz == simdjson::SUCCESS) stats.logs_tz = std::string(text);
  if (!usable_after(tz)) return;
  header.reset();
  if (header["host_basis"].get_string().get(text) == simdjson::SUCCESS) stats.host_basis = std::string(text);
}

}  // namespace

Status read_event_stream(LineReader& reader, EventSink& sink, InputStats& stats) {
  simdjson::ondemand::parser parser;
  std::string padded;
  padded.reserve(1 << 16);
  Event ev;
  Line line;
  bool header_seen = false;
  stats.format = Format::unknown;
  while (reader.next(line)) {
    ++stats.lines;
    const auto bad = [&](std::string_view why) {
      ++stats.malformed;
      if (stats.examples.size() < InputStats::kMaxExamples)
        stats.examples.push_back(
            MalformedExample{line.number, std::string(why), std::string(line.text.substr(0, 120))});
    };
    if (line.overlong) {
      bad("line too long");
      continue;
    }
    if (text::trim(line.text).empty()) {
      ++stats.ignored;
      continue;
    }
    padded.assign(line.text);
    padded.append(simdjson::SIMDJSON_PADDING, ' ');
    simdjson::ondemand::document doc;
    if (parser.iterate(padded.data(), line.text.size(), padded.size()).get(doc) != simdjson::SUCCESS) {
      bad("not JSON");
      continue;
    }
    simdjson::ondemand::object obj;
    std::string_view type;
    if (doc.get_object().get(obj) != simdjson::SUCCESS || obj["type"].get_string().get(type) != simdjson::SUCCESS) {
      bad("not a gpucost.events record");
      continue;
    }
    if (type == "header") {
      std::string_view schema;
      std::int64_t version = 0;
      obj.reset();
      if (obj["schema"].get_string().get(schema) != simdjson::SUCCESS || schema != kEventsSchema)
        return make_error(ErrorKind::schema, fmt::format("{}: not a gpucost.events stream", stats.path));
      if (obj["version"].get_int64().get(version) != simdjson::SUCCESS || version != kEventsVersion)
        return make_error(ErrorKind::schema,
                          fmt::format("{}: gpucost.events version {} is not supported (this gpucost reads {})",
                                      stats.path, version, kEventsVersion),
                          "re-run `gpucost prep` with this version of gpucost");
      header_seen = true;
      read_header_extras(obj, stats);
      ++stats.ignored;
      continue;
    }
    if (type == "summary") {
      // Keep the formats prep read: extract needs to know whether kernel logs were among them.
      simdjson::ondemand::array inputs;
      obj.reset();
      if (obj["inputs"].get_array().get(inputs) == simdjson::SUCCESS) {
        for (auto input : inputs) {
          simdjson::ondemand::object in;
          if (input.error() != simdjson::SUCCESS) break;
          const auto got = input.get_object().get(in);
          if (got != simdjson::SUCCESS) {
            if (!usable_after(got)) break;
            continue;
          }
          std::string_view format;
          const auto fmt = in["format"].get_string().get(format);
          if (fmt == simdjson::SUCCESS)
            stats.upstream_formats.emplace_back(format);
          else if (!usable_after(fmt))
            break;
          Fingerprint own;
          const bool whole = read_fingerprint(in, own);
          stats.fingerprint.merge(own);
          if (fmt == simdjson::SUCCESS) stats.upstream_fingerprints.push_back(std::move(own));
          if (!whole) break;
        }
      }
      ++stats.ignored;
      continue;
    }
    if (type != "event" || !header_seen) {
      bad(header_seen ? "unknown record type" : "record before the header line");
      continue;
    }
    obj.reset();
    const std::string_view err = fill_event(obj, ev);
    if (!err.empty()) {
      bad(err);
      continue;
    }
    sink.on_event(ev);
    ++stats.events;
    ++stats.event_lines;  // one record per line: lines == event_lines + ignored + malformed
  }
  stats.truncated = reader.error();
  return {};
}

}  // namespace gpucost::io

// journalctl -o json / -o json-pretty (docs/formats.md, "journalctl -o json").
//   -o json:        one object per line, compact ({"__CURSOR":"s=...",...}) or, on older systemd,
//                   with spaced separators ({ "__CURSOR" : "s=...", ... }).
//   -o json-pretty: one object over many lines (8-space indent), objects concatenated without
//                   commas; the lines of one object are held back (LineResult::deferred) until
//                   its closing brace, found by counting braces outside strings.
// Every value is a string ("__REALTIME_TIMESTAMP" : "1724080855230058", µs since the epoch,
// UTC), except that MESSAGE is an array of byte values when it is not UTF-8, any field can be
// null (too large), and a field written twice is an array of strings (the first one is used).
// Each entry is read with simdjson On-Demand in one pass over its fields, skipping the values
// of fields it does not need; the few it needs are string_views into the parser's buffers, so
// there is no allocation per entry. SYSLOG_IDENTIFIER (or _COMM) and MESSAGE go to the shared
// classifier; entries it does not recognise are `ignored`.
// Every entry carries __REALTIME_TIMESTAMP and __MONOTONIC_TIMESTAMP read at the same instant
// and its _BOOT_ID: realtime - monotonic is that boot's start, reported per boot in the notes
// (the clock dmesg's uptime stamps need).
#include "kernel_events.hpp"
#include "prep/parsers.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::prep {

namespace {

namespace sj = simdjson;
namespace od = simdjson::ondemand;

constexpr std::int64_t kNsPerUs = 1000;
constexpr std::size_t kMaxObjectBytes = 64u << 20;  // a json-pretty object longer than this is cut
constexpr std::size_t kMaxBootNotes = 20;
constexpr std::size_t kMaxHostNotes = 4;

/// µs since the epoch (or since boot) written as a decimal string.
bool parse_us(std::string_view s, std::int64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > std::numeric_limits<std::int64_t>::max() / 1000) return false;  // beyond ns since the epoch
  out = v;
  return true;
}

enum class Key : std::uint8_t {
  other,
  message,
  syslog_identifier,
  comm,
  transport,
  boot_id,
  hostname,
  realtime,
  monotonic,
  source_realtime,
};

// Journal field names are [A-Z0-9_]; the ones read here are told apart by length and a compare.
Key classify_key(std::string_view k) {
  switch (k.size()) {
    case 5: return k == "_COMM" ? Key::comm : Key::other;
    case 7: return k == "MESSAGE" ? Key::message : Key::other;
    case 8: return k == "_BOOT_ID" ? Key::boot_id : Key::other;
    case 9: return k == "_HOSTNAME" ? Key::hostname : Key::other;
    case 10: return k == "_TRANSPORT" ? Key::transport : Key::other;
    case 17: return k == "SYSLOG_IDENTIFIER" ? Key::syslog_identifier : Key::other;
    case 20: return k == "__REALTIME_TIMESTAMP" ? Key::realtime : Key::other;
    case 21: return k == "__MONOTONIC_TIMESTAMP" ? Key::monotonic : Key::other;
    case 26: return k == "_SOURCE_REALTIME_TIMESTAMP" ? Key::source_realtime : Key::other;
    default: return Key::other;
  }
}

/// What one journal entry says, as views into the parser's buffers.
struct Entry {
  std::string_view message, ident, comm, transport, boot_id, hostname;
  std::string_view realtime, monotonic, source_realtime;
  bool has_message = false;
  void clear() { *this = Entry{}; }
};

struct BootInfo {
  std::string id;
  std::int64_t min_us = std::numeric_limits<std::int64_t>::max();  // realtime - monotonic
  std::int64_t max_us = std::numeric_limits<std::int64_t>::min();
};

class JournalJsonParser final : public LineParser {
 public:
  explicit JournalJsonParser(ParseContext& /*ctx*/) {}

  // prep -j: the entries are independent; what carries over is an object still open and what
  // the notes sum up (entries, boots, host names). A chunk starts with none of these, and is
  // cut only after a line that closes an object. Most entries are dropped by a look at their
  // fields, so the parse costs about what copying the lines into chunks costs: with one worker
  // beside the cutting thread (-j 2) chunks do not pay.
  [[nodiscard]] std::unique_ptr<LineParser> clone(ParseContext& ctx) const override {
    return std::make_unique<JournalJsonParser>(ctx);
  }
  [[nodiscard]] unsigned chunks_from_jobs() const override { return 3; }
  [[nodiscard]] bool cuts_anywhere() const override { return false; }
  [[nodiscard]] bool may_cut_after(std::string_view line) const override {
    const std::string_view t = text::rtrim(line);
    return !t.empty() && t.back() == '}' && (t.front() == '}' || t.front() == '{');
  }
  bool continue_with(LineParser& other) override {
    if (m_pending_lines > 0) return false;  // the chunk began inside this object
    auto& chunk = static_cast<JournalJsonParser&>(other);
    m_entries += chunk.m_entries;
    for (const BootInfo& b : chunk.m_boots) {
      note_boot(b.id, b.min_us);
      note_boot(b.id, b.max_us);
    }
    for (const std::string& h : chunk.m_hosts) note_host(h, {});
    std::swap(m_buf, chunk.m_buf);
    m_pending_lines = chunk.m_pending_lines;
    m_first_line = chunk.m_first_line;
    m_depth = chunk.m_depth;
    m_in_string = chunk.m_in_string;
    m_escape = chunk.m_escape;
    return true;
  }

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    if (m_pending_lines > 0) {
      if (!line.empty() && line.front() == '{') {
        // A new object starts at column 0 while the previous one is still open: that one was cut.
        abandon_pending(ctx, "JSON object not closed before the next one starts");
      } else {
        return continue_object(line, ctx);
      }
    }
    const std::string_view t = text::trim(line);
    if (t.empty()) return LineResult::ignored;
    if (t.front() != '{') return ctx.malformed("not a JSON object (journalctl -o json prints one per line)");
    if (t.size() > 1 && t.back() == '}') return parse_object(t, ctx);
    // The first line of a json-pretty object ("{"): hold it until the object closes.
    m_buf.clear();
    m_pending_lines = 0;
    m_first_line = ctx.line_no;
    m_depth = 0;
    m_in_string = m_escape = false;
    return continue_object(line, ctx);
  }

  // An object open here was reported by the run that read it (or its rest is skipped).
  void end_replay(ParseContext& /*ctx*/) override { m_pending_lines = 0; }

  void finish(ParseContext& ctx) override {
    if (m_pending_lines > 0) abandon_pending(ctx, "JSON object not closed at the end of the input");
    if (m_entries == 0) return;
    ctx.stats.clock = "absolute: journald _SOURCE_REALTIME_TIMESTAMP / __REALTIME_TIMESTAMP (µs since the epoch, UTC)";
    std::size_t shown = 0;
    for (const BootInfo& b : m_boots) {
      if (shown++ == kMaxBootNotes) {
        const auto more = static_cast<long long>(m_boots.size() - kMaxBootNotes);
        add_note(ctx.stats, fmt::format("{} not listed", text::counted(more, "more boot")));
        break;
      }
      std::string note = fmt::format("boot {}: boot time {} (__REALTIME_TIMESTAMP - __MONOTONIC_TIMESTAMP)", b.id,
                                     format_utc(b.min_us * kNsPerUs));
      if (b.max_us - b.min_us >= 1'000'000)
        note += fmt::format("; later entries put it up to {:.0f} s later (time spent suspended)",
                            static_cast<double>(b.max_us - b.min_us) / 1e6);
      add_note(ctx.stats, std::move(note));
    }
    for (const std::string& h : m_hosts)
      add_note(ctx.stats,
               fmt::format("journal _HOSTNAME is '{}'; events carry the host '{}' (--host)", h, ctx.options.host));
  }

 private:
  // Appends a line of a json-pretty object; parses the object when its last brace closes.
  LineResult continue_object(std::string_view line, ParseContext& ctx) {
    m_buf.append(line);
    m_buf.push_back('\n');
    ++m_pending_lines;
    for (char c : line) {
      if (m_in_string) {
        if (m_escape)
          m_escape = false;
        else if (c == '\\')
          m_escape = true;
        else if (c == '"')
          m_in_string = false;
      } else if (c == '"') {
        m_in_string = true;
      } else if (c == '{') {
        ++m_depth;
      } else if (c == '}') {
        --m_depth;
      }
    }
    if (m_depth <= 0) {
      const std::uint64_t lines = m_pending_lines;
      m_pending_lines = 0;
      const LineResult r = parse_object(m_buf, ctx);
      ctx.settle(r, lines, m_first_line, ctx.reason, m_buf);
      return LineResult::deferred;
    }
    if (m_buf.size() > kMaxObjectBytes) abandon_pending(ctx, "JSON object too long");
    return LineResult::deferred;
  }

  void abandon_pending(ParseContext& ctx, std::string_view why) {
    const std::uint64_t lines = m_pending_lines;
    m_pending_lines = 0;
    if (lines > 0) ctx.settle(LineResult::malformed, lines, m_first_line, why, m_buf);
  }

  // First string of a value: the string itself, the first element of an array of strings (a
  // field written twice), or the bytes of an array of numbers (a MESSAGE that is not UTF-8).
  // False for null and anything else; `err` is set on a JSON error.
  bool first_string(od::value v, std::string_view& out, bool bytes_ok, sj::error_code& err) {
    od::json_type type{};
    if ((err = v.type().get(type))) return false;
    switch (type) {
      case od::json_type::string: return !(err = v.get_string().get(out));
      case od::json_type::array: {
        od::array arr;
        if ((err = v.get_array().get(arr))) return false;
        bool numbers = false, first = true;
        for (auto element : arr) {
          od::value el;
          if ((err = std::move(element).get(el))) return false;
          if (first) {
            first = false;
            od::json_type et{};
            if ((err = el.type().get(et))) return false;
            if (et != od::json_type::number) return first_string(el, out, bytes_ok, err);
            if (!bytes_ok) return false;
            numbers = true;
            m_bytes.clear();
          }
          std::uint64_t b = 0;
          if ((err = el.get_uint64().get(b))) return false;
          if (b > 255) {
            err = sj::NUMBER_OUT_OF_RANGE;
            return false;
          }
          m_bytes.push_back(static_cast<char>(b));
        }
        if (!numbers) return false;
        out = m_bytes;
        return true;
      }
      default: return false;  // null (data too large), or a shape journalctl never writes
    }
  }

  LineResult parse_object(std::string_view json, ParseContext& ctx) {
    m_padded.assign(json);
    m_padded.append(sj::SIMDJSON_PADDING, ' ');
    Entry e;
    const sj::error_code err = read_entry(json.size(), e);
    if (err) {
      ctx.reason_buf = fmt::format("not a valid journal JSON object: {}", sj::error_message(err));
      ctx.reason = ctx.reason_buf;
      return LineResult::malformed;
    }
    // The time the event was produced (_SOURCE_REALTIME_TIMESTAMP) when the entry has it,
    // else the time journald received it.
    std::int64_t realtime = 0, monotonic = 0, ts_us = 0;
    const bool has_rt = parse_us(e.realtime, realtime);
    if (!parse_us(e.source_realtime, ts_us)) {
      if (!has_rt) {
        return ctx.malformed("journal entry without __REALTIME_TIMESTAMP");
      }
      ts_us = realtime;
    }
    ++m_entries;
    ctx.stats.time_basis = TimeBasis::absolute;
    if (has_rt && !e.boot_id.empty() && parse_us(e.monotonic, monotonic)) note_boot(e.boot_id, realtime - monotonic);
    if (!e.hostname.empty() && ctx.options.host_given) note_host(e.hostname, ctx.options.host);
    if (!e.has_message) return LineResult::ignored;

    std::string_view ident = e.ident;
    if (ident.empty()) ident = e.comm;
    if (ident.empty() && e.transport == "kernel") ident = "kernel";
    Event& ev = ctx.event;
    ev.reset();
    ev.kind = {};
    ev.gpu = -1;
    // Each line of a multi-line kernel record (PCIe AER) is an entry of its own: the classifier
    // makes the event from one of them, the others are ignored, as in kern.log and dmesg.
    if (!classify_message(ident, e.message, ev)) return LineResult::ignored;
    ev.ts_ns = ts_us * kNsPerUs;
    ev.source = "journal";
    ev.host = e.hostname;
    ctx.emit();
    return LineResult::event;
  }

  sj::error_code read_entry(std::size_t len, Entry& e) {
    od::document doc;
    sj::error_code err = m_parser.iterate(m_padded.data(), len, m_padded.size()).get(doc);
    if (err) return err;
    od::object obj;
    if ((err = doc.get_object().get(obj))) return err;
    for (auto member : obj) {
      std::string_view key;
      if ((err = member.unescaped_key().get(key))) return err;
      const Key k = classify_key(key);
      if (k == Key::other) continue;  // its value is skipped unread
      od::value v;
      if ((err = member.value().get(v))) return err;
      std::string_view value;
      const bool got = first_string(v, value, k == Key::message, err);
      if (err) return err;
      if (!got) continue;  // null: as if absent
      switch (k) {
        case Key::message:
          e.message = value;
          e.has_message = true;
          break;
        case Key::syslog_identifier: e.ident = value; break;
        case Key::comm: e.comm = value; break;
        case Key::transport: e.transport = value; break;
        case Key::boot_id: e.boot_id = value; break;
        case Key::hostname: e.hostname = value; break;
        case Key::realtime: e.realtime = value; break;
        case Key::monotonic: e.monotonic = value; break;
        case Key::source_realtime: e.source_realtime = value; break;
        case Key::other: break;
      }
    }
    // MESSAGE as bytes lives in m_bytes, which a later byte-array field could overwrite: only
    // MESSAGE may be decoded as bytes (bytes_ok), so the view stays valid.
    return sj::SUCCESS;
  }

  void note_boot(std::string_view id, std::int64_t boot_us) {
    if (m_last_boot >= m_boots.size() || m_boots[m_last_boot].id != id) {
      m_last_boot = m_boots.size();
      for (std::size_t i = 0; i < m_boots.size(); ++i)
        if (m_boots[i].id == id) m_last_boot = i;
      if (m_last_boot == m_boots.size()) m_boots.push_back(BootInfo{std::string(id)});
    }
    BootInfo& b = m_boots[m_last_boot];
    b.min_us = std::min(b.min_us, boot_us);
    b.max_us = std::max(b.max_us, boot_us);
  }

  void note_host(std::string_view host, std::string_view option_host) {
    if (!m_hosts.empty() && m_hosts.back() == host) return;
    if (host == option_host) return;
    if (std::find(m_hosts.begin(), m_hosts.end(), host) != m_hosts.end()) return;
    if (m_hosts.size() < kMaxHostNotes) m_hosts.emplace_back(host);
  }

  od::parser m_parser;
  std::string m_padded;  // the object being parsed, followed by SIMDJSON_PADDING bytes
  std::string m_bytes;   // MESSAGE decoded from an array of byte values
  // json-pretty: the lines of the object being collected
  std::string m_buf;
  std::uint64_t m_pending_lines = 0, m_first_line = 0;
  int m_depth = 0;
  bool m_in_string = false, m_escape = false;

  std::uint64_t m_entries = 0;
  std::vector<BootInfo> m_boots;
  std::size_t m_last_boot = 0;
  std::vector<std::string> m_hosts;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_journal_json_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<JournalJsonParser>(ctx));
}

}  // namespace gpucost::prep

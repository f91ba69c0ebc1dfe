// Streaming reader of Kineto / Chrome trace JSON.
//
// A trace is one JSON object whose "traceEvents" array holds every record; metadata keys
// (deviceProperties, distributedInfo, baseTimeNanoseconds, traceName) come before or after it.
// Parsing the whole document with simdjson would need the text plus ~0.7x its size of
// structural indexes, so the array is read a chunk at a time instead:
//   head   the text before "traceEvents" is parsed as an object of its own;
//   events each chunk is cut after its last newline (a raw newline is never inside a JSON
//          string), wrapped in '[' ... ']' in place, and iterated with simdjson On-Demand; the
//          element left incomplete at the cut is carried over to the next chunk;
//   tail   the text after the array's ']' is parsed as an object of its own.
// A file without newlines is simply read as one chunk. Each record is decoded into a small
// struct first and committed only when it parsed completely, so a record cut by the chunk
// boundary is never half-counted.
#include "json_scan.hpp"
#include "trace.hpp"

#include <gpucost/core/input_stats.hpp>
#include <gpucost/core/large_buffer.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <unordered_map>

namespace gpucost::prep::trace {

namespace {

namespace sj = simdjson;
namespace od = simdjson::ondemand;

constexpr std::size_t kHeadLimit = 64u << 20;                    // "traceEvents" must start within this
constexpr std::size_t kMaxRecordBytes = 64u << 20;               // one trace record larger than this is broken JSON
constexpr std::int64_t kEpochUsFloor = 946684800LL * 1'000'000;  // 2000-01-01 in µs

/// `s == lit` with the literal's length known here, so that the compare is inlined (a library
/// call per key and category compare was a tenth of the reader's time).
template <std::size_t N>
bool is(std::string_view s, const char (&lit)[N]) {
  return s.size() == N - 1 && std::memcmp(s.data(), lit, N - 1) == 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// Integer JSON token (possibly quoted) -> int64; false for text, fractions or overflow.
bool parse_int_token(std::string_view tok, std::int64_t& out) {
  tok = trim(tok);
  if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"') tok = tok.substr(1, tok.size() - 2);
  if (tok.empty()) return false;
  bool neg = false;
  if (tok.front() == '-') {
    neg = true;
    tok.remove_prefix(1);
  }
  if (tok.empty() || tok.size() > 19) return false;  // beyond int64 (ids such as "Comms Id"): not a number we use
  std::uint64_t v = 0;
  for (char c : tok) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  out = neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  return true;
}

/// Keys this long or longer read as empty (none gpucost uses is near it).
constexpr std::size_t kMaxKeyBytes = 256;

/// The key of a field as written (Kineto keys carry no escapes).
std::string_view key_of(od::field& f) {
  const char* k = f.key().raw();
  // A byte loop, not memchr: keys are a few bytes, and a call per key cost more than the search.
  for (std::size_t n = 0; n < kMaxKeyBytes; ++n)
    if (k[n] == '"') return {k, n};
  return {};
}

/// Calls on_field(key, value) for each field of `o`; false, at once, on a JSON error.
template <class OnField>
bool for_each_field(od::object& o, OnField&& on_field) {
  for (auto field : o) {
    od::field f;
    if (std::move(field).get(f) != sj::SUCCESS) return false;
    const std::string_view key = key_of(f);
    od::value v = f.value();
    on_field(key, v);
  }
  return true;
}

/// Decodes JSON string escapes of `raw` (the text between the quotes) into `out`.
void unescape(std::string_view raw, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c != '\\' || i + 1 >= raw.size()) {
      out += c;
      continue;
    }
    const char e = raw[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        unsigned cp = 0;
        if (i + 4 < raw.size() + 0 && i + 4 <= raw.size() - 1 + 1) {
          for (int k = 1; k <= 4 && i + static_cast<std::size_t>(k) < raw.size(); ++k) {
            const char h = raw[i + static_cast<std::size_t>(k)];
            cp = cp * 16 + static_cast<unsigned>(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
          }
          i += 4;
        }
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        break;
      }
      default: out += e;  // \" \\ \/
    }
  }
}

// ---- values ------------------------------------------------------------------------------
// A record's fields are decoded by the same code (read_field and what it calls) whether simdjson
// or json_scan read them: each gives it a value with this interface.
//   string(raw)   true when the value is a string: raw is the text between its quotes, escapes kept
//   token(tok)    the value's text as simdjson's raw_json_token() gives it, trimmed: a number or
//                 literal whole, a string with its quotes, an object or array as its '{' or '[';
//                 false on a JSON error
//   fields(f)     calls f(key, value) for each field of an object (Fields::not_object when the
//                 value is none: the caller then skips it)
//   skip()        a value not used; false on a JSON error
//   plain_integer(out, has)  true when it read the value as a plain integer in one pass (out and
//                 has as parse_int_token() sets them); false leaves it to token()

enum class Fields : std::uint8_t { ok, not_object, error };

/// A value as simdjson's On-Demand reads it; its JSON errors go to `error`.
class OdValue {
 public:
  OdValue(od::value v, sj::error_code& error) : m_v(v), m_error(error) {}

  bool string(std::string_view& raw) {
    // The token of a string runs from its opening quote to the next structural character, so
    // once trailing blanks are trimmed it ends with the closing quote.
    const std::string_view tok = trim(m_v.raw_json_token());
    if (tok.size() < 2 || tok.front() != '"' || tok.back() != '"') return false;
    raw = tok.substr(1, tok.size() - 2);
    return true;
  }

  bool token(std::string_view& tok) {
    tok = trim(m_v.raw_json_token());
    return true;
  }

  template <class OnField>
  Fields fields(OnField&& on_field) {
    od::object o;
    if (auto e = m_v.get_object().get(o); e) {
      if (e == sj::INCORRECT_TYPE) return Fields::not_object;
      m_error = e;
      return Fields::error;
    }
    for (auto field : o) {
      od::field f;
      if (auto e = std::move(field).get(f); e) {
        m_error = e;
        return Fields::error;
      }
      const std::string_view key = key_of(f);
      OdValue value(f.value(), m_error);
      if (!on_field(key, value)) return Fields::error;
    }
    return Fields::ok;
  }

  /// Left untouched: On-Demand steps over it when the next field is read.
  static bool skip() { return true; }

  /// Integers go through token(): On-Demand has found the token's end already.
  static bool plain_integer(std::int64_t& /*out*/, bool& /*has*/) { return false; }

 private:
  od::value m_v;
  sj::error_code& m_error;
};

/// A value as json_scan reads it, from `at` (its first byte) to at most `end`. A false from it
/// means "not taken": the record is left to simdjson.
class ScanValue {
 public:
  ScanValue(const char* at, const char* end) : m_at(at), m_end(end) {}

  bool string(std::string_view& raw) {
    if (*m_at != '"') return false;
    const char* p = m_at;
    bool escaped = false;
    if (!json_scan::string(p, m_end, raw, escaped)) return fail();
    m_next = p;
    return true;
  }

  bool token(std::string_view& tok) {
    if (*m_at == '{' || *m_at == '[') {  // as raw_json_token(): the bracket; skip() steps over the rest
      tok = std::string_view(m_at, 1);
      return true;
    }
    if (std::string_view raw; string(raw)) {  // with its quotes
      tok = std::string_view(m_at, static_cast<std::size_t>(m_next - m_at));
      return true;
    }
    const char* p = m_at;
    if (m_failed || !json_scan::scalar(p, m_end, tok)) return fail();
    m_next = p;
    return true;
  }

  /// An integer as JSON writes one (no fraction or exponent) read in the same pass that checks
  /// it: `out` and has as parse_int_token() would set them from its token; false (nothing read)
  /// for any other value.
  bool plain_integer(std::int64_t& out, bool& has) {
    const char* q = m_at;
    const bool neg = *q == '-';
    q += neg ? 1 : 0;
    const char* const digits = q;
    if (!json_scan::is_digit(*q) || (*q == '0' && json_scan::is_digit(q[1]))) return false;
    std::uint64_t v = 0;  // wraps past 19 digits, which are not taken below
    for (; json_scan::is_digit(*q); ++q) v = v * 10 + static_cast<std::uint64_t>(*q - '0');
    if (q >= m_end || !json_scan::ends_scalar(*q)) return false;  // a fraction, an exponent, or no end
    has = q - digits <= 19 && v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (has) out = neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    m_next = q;
    return true;
  }

  template <class OnField>
  Fields fields(OnField&& on_field) {
    if (*m_at != '{') return Fields::not_object;
    const char* p = m_at + 1;
    if (!json_scan::skip_space(p, m_end)) return error();
    if (*p == '}') {
      m_next = p + 1;
      return Fields::ok;
    }
    for (;;) {
      std::string_view key;
      bool escaped = false;
      // A key with escapes is left to simdjson (key_of() reads keys as written, up to a quote).
      if (*p != '"' || !json_scan::string(p, m_end, key, escaped) || escaped) return error();
      if (key.size() >= kMaxKeyBytes) key = {};  // as key_of()
      if (!json_scan::skip_space_to(p, m_end, ':') || !json_scan::skip_space_before(p, m_end)) return error();
      ScanValue value(p, m_end);
      if (!on_field(key, value) || !value.skip()) return error();
      p = value.m_next;
      if (!json_scan::skip_space_to(p, m_end, ',')) {
        if (*p != '}') return error();  // skip_space_to() stopped at the first other byte
        m_next = p + 1;
        return Fields::ok;
      }
      if (!json_scan::skip_space_before(p, m_end)) return error();
    }
  }

  /// Steps over the value unless something read it already.
  bool skip() {
    if (m_failed) return false;
    if (m_next != nullptr) return true;
    const char* p = m_at;
    if (!json_scan::skip_value(p, m_end)) return fail();
    m_next = p;
    return true;
  }

  /// Just after the value (once read or skipped).
  [[nodiscard]] const char* next() const { return m_next; }

 private:
  bool fail() {
    m_failed = true;
    return false;
  }
  Fields error() {
    m_failed = true;
    return Fields::error;
  }

  const char* m_at;
  const char* m_end;
  const char* m_next = nullptr;
  bool m_failed = false;
};

enum class Cat : std::uint8_t {
  other,
  kernel,
  memcpy,
  memset,
  runtime,
  annotation,
  gpu_annotation,
  sync,
  cpu_op,
  mtia_op,  ///< MTIA's device events: read as GPU ops on their streams (mtia_ops())
  device_other
};

Cat classify_category(std::string_view cat) {
  if (is(cat, "kernel") || is(cat, "Kernel")) return Cat::kernel;
  if (is(cat, "gpu_memcpy") || is(cat, "Memcpy")) return Cat::memcpy;
  if (is(cat, "gpu_memset") || is(cat, "Memset")) return Cat::memset;
  if (is(cat, "cuda_runtime") || is(cat, "Runtime") || is(cat, "cuda_driver") || is(cat, "Driver")) return Cat::runtime;
  if (is(cat, "user_annotation") || is(cat, "User annotation")) return Cat::annotation;
  if (is(cat, "gpu_user_annotation")) return Cat::gpu_annotation;
  if (is(cat, "cuda_sync")) return Cat::sync;
  if (is(cat, "cpu_op") || is(cat, "Operator")) return Cat::cpu_op;
  // MTIA (Meta's accelerator): its device events and runtime calls, as CUDA's.
  if (is(cat, "mtia_ccp_events")) return Cat::mtia_op;
  if (is(cat, "mtia_runtime")) return Cat::runtime;
  // Accelerator work gpucost does not model: named so a GPU-less result can say why.
  if (cat.starts_with("mtia_") || is(cat, "cuda_profiler_range") || is(cat, "xpu_runtime") ||
      is(cat, "privateuse1_runtime"))
    return Cat::device_other;
  return Cat::other;
}

MemDir memcpy_direction(std::string_view name) {
  if (name.find("HtoD") != std::string_view::npos) return MemDir::h2d;
  if (name.find("DtoH") != std::string_view::npos) return MemDir::d2h;
  if (name.find("DtoD") != std::string_view::npos) return MemDir::d2d;
  if (name.find("HtoH") != std::string_view::npos) return MemDir::h2h;
  if (name.find("PtoP") != std::string_view::npos) return MemDir::p2p;
  return MemDir::other;
}

/// An MTIA dma_request's args.direction.
MemDir mtia_direction(std::string_view direction) {
  if (is(direction, "HOST_TO_DEVICE")) return MemDir::h2d;
  if (is(direction, "DEVICE_TO_HOST")) return MemDir::d2h;
  if (is(direction, "DEVICE_TO_DEVICE")) return MemDir::d2d;
  if (is(direction, "HOST_TO_HOST")) return MemDir::h2h;
  return MemDir::other;
}

bool starts_with_icase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const char a = static_cast<char>(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    if (a != prefix[i]) return false;
  }
  return true;
}

bool wants_args(Cat c) {
  return c == Cat::kernel || c == Cat::memcpy || c == Cat::memset || c == Cat::runtime || c == Cat::mtia_op;
}

/// One record as decoded, before it is committed.
struct Record {
  std::string_view ph, cat, name, ts, dur;
  Cat cat_class = Cat::other;  ///< classify_category(cat), once per record
  std::int64_t device = -1, stream = 0, correlation = kNoCorrelation, pid = 0, tid = 0;
  std::uint64_t bytes = 0;
  bool has_device = false, has_stream = false, has_bytes = false, has_pid = false, has_tid = false;
  // A collective kernel's identity (CommArgs), raw: its strings keep their escapes.
  std::string_view pg, pg_desc, pg_ranks, coll;
  std::int64_t seq = -1, in_nelems = -1, out_nelems = -1;
  bool has_comm_args = false;
  std::int64_t wait_on_stream = -1, wait_on_record = -1;  // cuda_sync args, read only when kept
  MemoryArgs mem;                                         ///< a `[memory]` instant's args (memory_events.hpp)
  std::string_view direction;  ///< an MTIA dma_request's args.direction (HOST_TO_DEVICE, ...)
  void clear() { *this = Record{}; }
};

/// Reads one of the collective args Kineto writes on an NCCL kernel (CommArgs) into `r`;
/// false when `key` is none of them.
template <class Value>
bool read_comm_arg(std::string_view key, Value& v, Record& r) {
  std::string_view* text = is(key, "Process Group Name")          ? &r.pg
                           : is(key, "Process Group Description") ? &r.pg_desc
                           : is(key, "Process Group Ranks")       ? &r.pg_ranks
                           : is(key, "Collective name")           ? &r.coll
                                                                  : nullptr;
  std::int64_t* number = is(key, "Seq")              ? &r.seq
                         : is(key, "In msg nelems")  ? &r.in_nelems
                         : is(key, "Out msg nelems") ? &r.out_nelems
                                                     : nullptr;
  if (text != nullptr) {
    r.has_comm_args = v.string(*text) || r.has_comm_args;
    return true;
  }
  if (number == nullptr) return false;
  std::string_view tok;
  if (std::int64_t n = 0; v.token(tok) && parse_int_token(tok, n) && n >= 0) {  // Seq may be quoted
    *number = n;
    r.has_comm_args = true;
  }
  return true;
}

/// Pull input: reads up to n bytes into dst, 0 at the end.
using ByteFn = std::function<std::size_t(char*, std::size_t)>;

class Reader {
 public:
  Reader(ByteFn read, TraceData& out, std::size_t chunk_bytes, const ReadOptions& options = {})
      : m_read(std::move(read)),
        m_out(out),
        m_chunk(std::max<std::size_t>(chunk_bytes, 64)),
        m_keep(options.keep_cpu_ops),
        m_keep_host_ops(options.keep_host_ops),
        m_scan(options.scan_records) {}

  void run() {
    const std::size_t events_at = find_events();
    if (events_at == std::string_view::npos) return;
    advance_to(events_at);
    read_events();
    if (m_tail_at != std::string_view::npos) read_tail();
  }

 private:
  // ---- buffer ------------------------------------------------------------------------------

  /// Reads until at least `want` unread bytes are buffered or the input ends. Index 0 is kept
  /// free so the byte before m_begin can always be overwritten with '['.
  void fill(std::size_t want) {
    if (m_begin > 1 && m_begin > m_buf.size() / 2) {  // compact: drop consumed bytes
      std::memmove(m_buf.data() + 1, m_buf.data() + m_begin, m_len - m_begin);
      m_offset += m_begin - 1;
      m_len -= m_begin - 1;
      if (m_tail_at != std::string_view::npos) m_tail_at -= m_begin - 1;
      m_begin = 1;
    }
    while (!m_eof && m_len - m_begin < want) {
      // Room for at least one more block; the buffer grows geometrically, never to `want`
      // at once (read_tail asks for "everything"). Blocks start at 64 KiB and grow with the
      // buffer to 1 MiB, so a small trace never pays for a megabyte it does not use.
      const std::size_t block = std::clamp<std::size_t>(m_buf.size(), 64u << 10, 1u << 20);
      const std::size_t need = m_len + block + sj::SIMDJSON_PADDING + 1;
      if (m_buf.size() < need) m_buf.resize(std::max(need, m_buf.size() + m_buf.size() / 2));
      const std::size_t room = std::min(m_buf.size() - m_len - sj::SIMDJSON_PADDING - 1, want - (m_len - m_begin));
      const std::size_t got = m_read(m_buf.data() + m_len, room);
      if (got == 0) m_eof = true;
      m_len += got;
    }
    if (m_buf.size() < m_len + sj::SIMDJSON_PADDING + 1) m_buf.resize(m_len + sj::SIMDJSON_PADDING + 1);
  }

  std::string_view text(std::size_t from, std::size_t to) const { return {m_buf.data() + from, to - from}; }

  // ---- head --------------------------------------------------------------------------------

  /// Offset just after the '[' of the events array; npos when the document is something else
  /// (then m_out.not_kineto or truncated says what).
  std::size_t find_events() {
    m_buf.resize((64u << 10) + sj::SIMDJSON_PADDING + 1);  // grows with the input, up to a chunk
    m_len = 1;                                             // index 0 stays free
    m_begin = 1;
    fill(64 * 1024);
    std::size_t first = m_begin;
    while (first < m_len && std::strchr(" \t\r\n", m_buf[first]) != nullptr && m_buf[first] != '\0') ++first;
    if (first + 3 <= m_len && std::memcmp(m_buf.data() + first, "\xEF\xBB\xBF", 3) == 0) first += 3;  // BOM
    if (first >= m_len) {
      m_out.not_kineto = "empty document";
      return std::string_view::npos;
    }
    if (m_buf[first] == '[') return classify_array(first);
    if (m_buf[first] != '{') {
      m_out.not_kineto = "not JSON (does not start with '{' or '[')";
      return std::string_view::npos;
    }
    std::size_t searched = first;
    for (;;) {
      const std::string_view hay = text(searched, m_len);
      const std::size_t hit = hay.find("\"traceEvents\"");
      if (hit != std::string_view::npos) {
        const std::size_t key_at = searched + hit;
        std::size_t p = key_at + 13;
        fill(4096);
        while (p < m_len && std::strchr(" \t\r\n", m_buf[p]) != nullptr) ++p;
        if (p < m_len && m_buf[p] == ':') ++p;
        while (p < m_len && std::strchr(" \t\r\n", m_buf[p]) != nullptr) ++p;
        if (p >= m_len || m_buf[p] != '[') {
          m_out.not_kineto = "JSON whose \"traceEvents\" is not an array";
          return std::string_view::npos;
        }
        read_head(first, key_at);
        return p + 1;
      }
      searched = m_len > 16 ? m_len - 16 : first;
      if (m_eof) break;
      if (m_len - first > kHeadLimit) {
        m_out.not_kineto = "JSON without \"traceEvents\" in its first 64 MiB";
        return std::string_view::npos;
      }
      fill(m_len - m_begin + m_chunk);
    }
    classify_other_object(first);
    return std::string_view::npos;
  }

  /// A top-level array: Chrome's "JSON Array Format" of trace events, or the memory timeline
  /// that profile.export_memory_timeline() writes ([[ts, action, bytes, category], ...]).
  std::size_t classify_array(std::size_t first) {
    std::size_t p = first + 1;
    while (p < m_len && std::strchr(" \t\r\n", m_buf[p]) != nullptr) ++p;
    if (p < m_len && m_buf[p] == '[') {
      m_out.not_kineto = "a PyTorch memory timeline (export_memory_timeline), not a Kineto trace";
      return std::string_view::npos;
    }
    if (p < m_len && (m_buf[p] == '{' || m_buf[p] == ']')) return first + 1;  // array of trace events
    m_out.not_kineto = "a JSON array that is not a list of trace events";
    return std::string_view::npos;
  }

  /// The whole document is in the buffer and has no traceEvents: say what it is.
  void classify_other_object(std::size_t first) {
    const std::string_view doc = text(first, m_len);
    const std::string_view head = doc.substr(0, 64 * 1024);
    if (head.find("\"nodes\"") != std::string_view::npos &&
        (head.find("\"schema\"") != std::string_view::npos || head.find("\"pid\"") != std::string_view::npos))
      m_out.not_kineto = "a PyTorch execution trace (Chakra ET: nodes/schema), not a Kineto trace";
    else if (head.find("\"__CURSOR\"") != std::string_view::npos)
      m_out.not_kineto = "journalctl JSON, not a trace";
    else
      m_out.not_kineto = "JSON without a \"traceEvents\" array";
  }

  /// Parses the metadata before "traceEvents": `{ ... ,` becomes `{ ... }`.
  void read_head(std::size_t first, std::size_t key_at) {
    std::string obj(text(first, key_at));
    while (!obj.empty() && std::strchr(" \t\r\n", obj.back()) != nullptr) obj.pop_back();
    if (!obj.empty() && obj.back() == ',') obj.pop_back();
    obj += '}';
    parse_metadata(obj);
  }

  void read_tail() {
    fill(std::numeric_limits<std::size_t>::max() / 4);  // the rest: metadata, usually small
    std::string obj(trim(text(m_tail_at, m_len)));
    if (obj.empty() || obj.front() != ',') return;  // "}" closes the document: no more keys
    obj.front() = '{';
    parse_metadata(obj);
  }

  void parse_metadata(const std::string& obj) {
    sj::padded_string padded(obj);
    od::parser parser;
    od::document doc;
    if (parser.iterate(padded).get(doc) != sj::SUCCESS) return;
    od::object top;
    if (doc.get_object().get(top) != sj::SUCCESS) return;
    for_each_field(top, [&](std::string_view key, od::value& v) {
      if (is(key, "baseTimeNanoseconds")) {
        std::int64_t base = 0;
        if (parse_int_token(v.raw_json_token(), base)) m_out.base_time_ns = base;
      } else if (is(key, "schemaVersion")) {
        parse_int_token(v.raw_json_token(), m_out.schema_version);
      } else if (is(key, "cuda_runtime_version")) {
        parse_int_token(v.raw_json_token(), m_out.cuda_runtime_version);
      } else if (is(key, "cuda_driver_version")) {
        parse_int_token(v.raw_json_token(), m_out.cuda_driver_version);
      } else if (is(key, "cupti_version")) {
        parse_int_token(v.raw_json_token(), m_out.cupti_version);
      } else if (is(key, "traceName")) {
        std::string_view s;
        if (v.get_string().get(s) == sj::SUCCESS) m_out.trace_name = std::string(s);
      } else if (is(key, "distributedInfo")) {
        read_distributed_info(v);
      } else if (is(key, "deviceProperties") || is(key, "computeProperties")) {
        read_device_properties(v);
      }
    });
  }

  void read_distributed_info(od::value& v) {
    od::object o;
    if (v.get_object().get(o) != sj::SUCCESS) return;
    for_each_field(o, [&](std::string_view key, od::value& fv) {
      std::int64_t n = 0;
      if (is(key, "rank") && parse_int_token(fv.raw_json_token(), n)) m_out.rank = static_cast<int>(n);
      if (is(key, "world_size") && parse_int_token(fv.raw_json_token(), n)) m_out.world_size = static_cast<int>(n);
      std::string_view s;
      if (is(key, "backend") && fv.get_string().get(s) == sj::SUCCESS) m_out.backend = std::string(s);
      if (is(key, "nccl_version") && fv.get_string().get(s) == sj::SUCCESS) m_out.nccl_version = std::string(s);
    });
  }

  void read_device_properties(od::value& v) {
    od::array arr;
    if (v.get_array().get(arr) != sj::SUCCESS) return;
    for (auto item : arr) {
      od::object o;
      if (item.get_object().get(o) != sj::SUCCESS) return;
      std::int64_t id = -1;
      std::string name;
      const bool read = for_each_field(o, [&](std::string_view key, od::value& fv) {
        if (is(key, "id")) parse_int_token(fv.raw_json_token(), id);
        if (is(key, "name")) {
          std::string_view s;
          if (fv.get_string().get(s) == sj::SUCCESS) name = std::string(s);
        }
      });
      if (!read) return;
      if (id >= 0) m_out.device_names[static_cast<int>(id)] = name;
    }
  }

  // ---- events ------------------------------------------------------------------------------

  void read_events() {
    std::size_t want = m_chunk;
    bool to_end = false;  // at the end of the input, after a failure: parse the rest whole
    for (;;) {
      fill(want);
      skip_separators();
      if (m_begin >= m_len) {
        if (m_eof) m_out.truncated = "the trace ends inside \"traceEvents\" (file cut short?)";
        return;
      }
      // Cut after the last newline: everything before it is whole lines, so no open string.
      // At the end of the input too: a file cut inside a string must not spoil the lines before.
      std::size_t cut = m_len;
      const void* nl = memrchr(m_buf.data() + m_begin, '\n', m_len - m_begin);
      if (nl != nullptr && !to_end) {
        cut = static_cast<std::size_t>(static_cast<const char*>(nl) - m_buf.data()) + 1;
      } else if (!m_eof) {  // one long line: read more
        want = (m_len - m_begin) * 2;
        continue;
      }
      // json_scan first; simdjson reads what it leaves, from there to the cut, as it read the
      // whole chunk before (the same cut, so that the same records and faults meet there).
      if (!to_end && m_scan) {
        read_plain_records(cut);
        if (m_begin >= cut) {
          want = m_chunk;
          continue;
        }
      }
      const Outcome r = parse_chunk(cut);
      advance_to(r.resume_at);
      if (r.array_closed) {
        m_tail_at = r.resume_at;
        return;
      }
      if (!r.error) {
        want = m_chunk;
        continue;
      }
      // A record failed: normally the one the cut split, so read on and try it again with
      // more text. At the end of the input, or once the record would exceed kMaxRecordBytes,
      // the JSON is broken (or cut short) from here on.
      if (m_eof && cut < m_len) {  // the failed record may end on the last, unterminated line
        to_end = true;
        continue;
      }
      if (m_eof || cut - m_begin >= kMaxRecordBytes) {
        m_out.truncated = fmt::format("invalid or incomplete JSON in \"traceEvents\" at byte {}{}: {}",
                                      m_offset + m_begin - 1, m_eof ? " (file cut short?)" : "", r.message);
        return;
      }
      // More text than is buffered, so that the next cut moves: when a long line follows the
      // cut, the buffer may already hold twice the text before it, and asking for that read
      // nothing and parsed the same text again, for ever (a record that starts before a line of
      // more than a chunk).
      want = std::max(m_chunk, (m_len - m_begin) * 2);
    }
  }

  /// Reads the records of [m_begin, cut) with json_scan, committing each one read whole, up to
  /// the first it does not take (one with text json_scan leaves to simdjson, the record the cut
  /// splits, the array's end), and moves m_begin there. A record is taken only with what may
  /// follow it in the array: a comma and the next record's '{', the array's ']', or the cut (as
  /// simdjson, which would otherwise find the missing comma or the trailing one there).
  void read_plain_records(std::size_t cut) {
    const char* const end = m_buf.data() + cut;
    const char* p = m_buf.data() + m_begin;
    static_assert(sj::SIMDJSON_PADDING >= 64, "json_scan reads blocks of 64 bytes");
    const char saved = m_buf[cut];
    m_buf[cut] = '\0';  // json_scan's stop: its runs of blanks and digits need no bound
    while (p < end && *p == '{') {
      m_record_at = p;
      ScanValue record(p, end);
      m_rec.clear();
      if (record.fields([this](std::string_view key, ScanValue& v) { return read_field(key, v, m_rec); }) != Fields::ok)
        break;
      const char* next = record.next();
      json_scan::skip_space(next, end);
      const bool more = next < end && *next == ',';
      if (more) {
        ++next;
        json_scan::skip_space(next, end);
        if (next < end && *next != '{') break;
      } else if (next < end && *next != ']') {
        break;
      }
      commit(m_rec);
      p = next;
      if (!more) break;
    }
    m_buf[cut] = saved;
    advance_to(static_cast<std::size_t>(p - m_buf.data()));
  }

  /// Whitespace and the comma between two records (a chunk resumes after a record).
  void skip_separators() {
    std::size_t p = m_begin;
    while (p < m_len && std::strchr(" \t\r\n,", m_buf[p]) != nullptr && m_buf[p] != '\0') ++p;
    advance_to(p);
  }

  /// Moves the read position, counting the lines passed (for the line of a malformed record).
  void advance_to(std::size_t pos) {
    if (pos > m_begin)
      m_lines +=
          io::count_newlines(std::string_view(m_buf.data() + m_begin, pos - m_begin));  // SIMD: every byte passes here
    m_begin = pos;
  }

  struct Outcome {
    bool error = false, array_closed = false;
    std::size_t resume_at = 0;  ///< just after the last record read whole; closed: just after ']'
    std::string message;
  };

  /// Parses the records in [m_begin, cut), wrapped as '[' ... ']' in place.
  Outcome parse_chunk(std::size_t cut) {
    Outcome out;
    out.resume_at = m_begin;
    const char saved_open = m_buf[m_begin - 1];
    const char saved_close = m_buf[cut];
    // A cut right after "}," would leave "[..., {...},]": blank that comma out while parsing.
    std::size_t comma_at = cut;
    while (comma_at > m_begin && std::strchr(" \t\r\n", m_buf[comma_at - 1]) != nullptr) --comma_at;
    const bool trailing_comma = comma_at > m_begin && m_buf[comma_at - 1] == ',';
    if (trailing_comma) m_buf[comma_at - 1] = ' ';
    m_buf[m_begin - 1] = '[';
    m_buf[cut] = ']';
    const char* const start = m_buf.data() + m_begin - 1;
    const std::size_t len = cut - m_begin + 2;
    const std::size_t open_at = m_begin - 1;
    const auto restore = [&] {
      m_buf[open_at] = saved_open;
      m_buf[cut] = saved_close;
      if (trailing_comma) m_buf[comma_at - 1] = ',';
    };
    const auto fail = [&](sj::error_code e) {
      restore();
      out.error = true;
      out.message = sj::error_message(e);
      return out;
    };
    od::document doc;
    od::array arr;
    auto err = m_parser.iterate(start, len, m_buf.size() - open_at).get(doc);
    if (!err) err = doc.get_array().get(arr);
    if (err) return fail(err);
    for (auto item : arr) {
      od::value v;
      if (auto e = std::move(item).get(v); e) return fail(e);
      if (v.current_location().get(m_record_at) != sj::SUCCESS) m_record_at = nullptr;
      if (!read_record(v)) return fail(m_last_error);
      const char* after = nullptr;  // the ',' or ']' after the record
      if (doc.current_location().get(after) != sj::SUCCESS) return fail(sj::INCOMPLETE_ARRAY_OR_OBJECT);
      out.resume_at = static_cast<std::size_t>(after - m_buf.data());
    }
    // The array ended: at our ']' when the whole chunk was read, else at the real one, and
    // the document's remaining keys follow it.
    const char* after = nullptr;
    const bool more = doc.current_location().get(after) == sj::SUCCESS;
    restore();
    if (more || out.resume_at < cut) {
      // Find the real ']' after the last record: only whitespace lies between them.
      std::size_t p = out.resume_at;
      while (p < cut && std::strchr(" \t\r\n", m_buf[p]) != nullptr && m_buf[p] != '\0') ++p;
      if (p < cut && m_buf[p] == ']') {
        out.array_closed = true;
        out.resume_at = p + 1;
        return out;
      }
    }
    out.resume_at = cut;
    return out;
  }

  /// Decodes one record (simdjson's) and commits it; false on a JSON error (the record is then
  /// read again with more text, or reported).
  bool read_record(od::value& v) {
    OdValue value(v, m_last_error);
    m_rec.clear();
    switch (value.fields([this](std::string_view key, OdValue& fv) { return read_field(key, fv, m_rec); })) {
      case Fields::ok: commit(m_rec); return true;
      case Fields::error: return false;
      case Fields::not_object: break;
    }
    ++m_out.counts.records;
    malformed("not a JSON object");  // a record that is not an object: count it, go on
    return true;
  }

  template <class Value>
  bool read_field(std::string_view key, Value& v, Record& r) {
    switch (key.empty() ? '\0' : key.front()) {
      case 'p':
        if (is(key, "ph")) return v.string(r.ph) || v.skip();
        if (is(key, "pid")) return number_or_skip(v, r.pid, r.has_pid);
        break;
      case 'c':
        if (is(key, "cat")) {
          if (!v.string(r.cat)) return v.skip();
          r.cat_class = classify_category(r.cat);
          return true;
        }
        break;
      case 'n':
        if (is(key, "name")) return v.string(r.name) || v.skip();
        break;
      case 't':
        if (is(key, "ts")) return v.token(r.ts);
        if (is(key, "tid")) return number_or_skip(v, r.tid, r.has_tid);
        break;
      case 'd':
        if (is(key, "dur")) return v.token(r.dur);
        break;
      case 'a':
        // Only GPU ops and runtime calls need their args; Kineto writes "cat" first, so the
        // args of cpu_op records (shapes, concrete inputs: most of a trace's bytes) are stepped over.
        if (is(key, "args") && is(r.name, "[memory]")) return read_memory_args(v, r);
        if (is(key, "args"))
          return r.cat.empty() || wants_args(r.cat_class) || (m_keep && r.cat_class == Cat::sync) ? read_args(v, r)
                                                                                                  : v.skip();
        break;
      default: break;
    }
    return v.skip();
  }

  template <class Value>
  bool read_args(Value& v, Record& r) {
    const Fields read = v.fields([&](std::string_view key, Value& fv) {
      if (is(key, "device")) return number_or_skip(fv, r.device, r.has_device);
      if (is(key, "stream")) return number_or_skip(fv, r.stream, r.has_stream);
      if (is(key, "correlation")) {
        bool has = false;
        const bool ok = number_or_skip(fv, r.correlation, has);
        if (!has) r.correlation = kNoCorrelation;
        return ok;
      }
      if (is(key, "bytes") || is(key, "size")) {  // size: an MTIA dma_request's
        std::int64_t b = 0;
        const bool ok = number_or_skip(fv, b, r.has_bytes);
        if (r.has_bytes && b >= 0)
          r.bytes = static_cast<std::uint64_t>(b);
        else
          r.has_bytes = false;
        return ok;
      }
      if (m_keep && (is(key, "wait_on_stream") || is(key, "wait_on_cuda_event_record_corr_id"))) {
        bool has = false;
        return number_or_skip(fv, is(key, "wait_on_stream") ? r.wait_on_stream : r.wait_on_record, has);
      }
      if (is(key, "direction")) return fv.string(r.direction) || fv.skip();
      // Kineto's own kernel args are lower case but "External id": the test stays cheap.
      if (!key.empty() && key.front() >= 'A' && key.front() <= 'Z' && read_comm_arg(key, fv, r)) return true;
      return fv.skip();
    });
    return read == Fields::not_object ? v.skip() : read == Fields::ok;
  }

  /// The args of a `[memory]` instant (profile_memory=True): device, Bytes and the allocator's totals.
  template <class Value>
  bool read_memory_args(Value& v, Record& r) {
    const Fields read = v.fields([&](std::string_view key, Value& fv) {
      std::int64_t* value = nullptr;
      bool* has = nullptr;
      return memory_arg_slot(key, r.mem, value, has) ? number_or_skip(fv, *value, *has) : fv.skip();
    });
    return read == Fields::not_object ? v.skip() : read == Fields::ok;
  }

  /// An integer (has: parse_int_token() took it), any other value stepped over.
  template <class Value>
  static bool number_or_skip(Value& v, std::int64_t& out, bool& has) {
    if (v.plain_integer(out, has)) return true;
    std::string_view tok;
    if (!v.token(tok)) return false;
    if (tok.empty() || tok.front() == '{' || tok.front() == '[') return v.skip();
    has = parse_int_token(tok, out);
    return true;
  }

  // ---- committing records ------------------------------------------------------------------

  void malformed(std::string_view why) {
    ++m_out.counts.malformed;
    if (m_out.counts.examples.size() >= InputStats::kMaxExamples || m_record_at == nullptr) return;
    const char* begin = m_buf.data() + m_begin;
    MalformedRecord m;
    m.record = m_out.counts.records;
    m.line = m_lines + 1 + static_cast<std::uint64_t>(std::count(begin, std::max(begin, m_record_at), '\n'));
    m.reason = std::string(why);
    const char* end = m_buf.data() + m_len;
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char* p = m_record_at; p < end && m.excerpt.size() < 120; ++p) {
      const bool space = !in_string && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t');
      if (space && (m.excerpt.empty() || m.excerpt.back() == ' ')) continue;
      m.excerpt += space ? ' ' : *p;
      if (in_string) {
        if (escaped)
          escaped = false;
        else if (*p == '\\')
          escaped = true;
        else if (*p == '"')
          in_string = false;
      } else if (*p == '"') {
        in_string = true;
      } else if (*p == '{' || *p == '[') {
        ++depth;
      } else if ((*p == '}' || *p == ']') && --depth <= 0) {
        break;  // the end of the record
      }
    }
    m_out.counts.examples.push_back(std::move(m));
  }

  void commit(const Record& r) {
    ++m_out.counts.records;
    std::int64_t ts = 0;
    const bool has_ts = !r.ts.empty() && parse_us_to_ns(r.ts, ts);
    if (has_ts && (!m_out.has_min_ts || ts < m_out.min_ts_ns) && !is(r.ph, "M")) {
      m_out.min_ts_ns = ts;
      m_out.has_min_ts = true;
    }
    const Cat cat = r.cat_class;
    if (is(r.ph, "i") && is(r.name, "[memory]")) {
      ++(add_memory_event(m_out.memory, r.mem, has_ts, ts) ? m_out.counts.used : m_out.counts.ignored);
      return;
    }
    if (!is(r.ph, "X")) {  // flows, instants, counters, metadata: not durations gpucost uses
      ++m_out.counts.ignored;
      return;
    }
    std::int64_t dur = 0;
    const bool needs_time = cat == Cat::kernel || cat == Cat::memcpy || cat == Cat::memset || cat == Cat::runtime ||
                            cat == Cat::annotation || cat == Cat::gpu_annotation || cat == Cat::mtia_op;
    if (needs_time && (!has_ts || r.dur.empty() || !parse_us_to_ns(r.dur, dur) || dur < 0)) {
      malformed(!has_ts ? "complete event without a valid \"ts\"" : "complete event without a valid \"dur\"");
      return;
    }
    if (m_keep && has_ts) keep_host(r, cat, ts);
    switch (cat) {
      case Cat::kernel:
      case Cat::memcpy:
      case Cat::memset: commit_op(r, cat, ts, dur); return;
      case Cat::mtia_op: commit_mtia_op(r, ts, dur); return;
      case Cat::runtime:
        ++m_out.runtime_calls;
        if (m_keep_host_ops) keep_host_op(r, HostOpKind::runtime, ts, has_ts);
        if (r.correlation != kNoCorrelation && is_launch_api(r.name)) {
          m_out.launches.push_back(LaunchCall{ts, dur, r.correlation});
          ++m_out.counts.used;
        } else {
          ++m_out.counts.ignored;
        }
        return;
      case Cat::annotation:
        if (r.name.starts_with("ProfilerStep#")) {
          std::int64_t n = 0;
          if (parse_int_token(r.name.substr(13), n)) {
            m_out.steps.push_back(StepMark{n, ts, dur});
            ++m_out.counts.used;
            return;
          }
        }
        if (m_keep_host_ops) m_out.host_ops.push_back(HostOp{ts, dur, intern(r.name), HostOpKind::annotation});
        m_out.cpu_regions.push_back(RegionMark{ts, dur, r.tid, intern_region(r.name), -1});
        ++m_out.counts.used;
        return;
      case Cat::gpu_annotation:
        ++m_out.gpu_annotations;
        if (r.name.starts_with("ProfilerStep#")) break;  // the step on the GPU: not a region
        m_out.gpu_regions.push_back(RegionMark{ts, dur, r.has_stream ? r.stream : r.tid, intern_region(r.name),
                                               static_cast<std::int32_t>(r.pid)});
        ++m_out.counts.used;
        return;
      case Cat::sync: ++m_out.sync_events; break;
      case Cat::cpu_op:
        ++m_out.cpu_ops;
        if (m_keep_host_ops) keep_host_op(r, HostOpKind::cpu_op, ts, has_ts);
        break;
      case Cat::device_other: ++m_out.other_device_categories[std::string(r.cat)]; break;
      case Cat::other: break;
    }
    ++m_out.counts.ignored;
  }

  /// A CPU operator or runtime call for the operator comparison; one without a valid time is left
  /// out (it is counted as ignored, as every cpu_op record is).
  void keep_host_op(const Record& r, HostOpKind kind, std::int64_t ts, bool has_ts) {
    std::int64_t dur = 0;
    if (!has_ts || r.dur.empty() || !parse_us_to_ns(r.dur, dur) || dur < 0) return;
    m_out.host_ops.push_back(HostOp{ts, dur, intern(r.name), kind});
  }

  /// An MTIA device event: event_record / event_wait synchronise streams (counted as sync
  /// events, not ops), a dma_request is a copy (its direction and size in args), every other
  /// (pe_exe, remote, merge, ...) a kernel.
  void commit_mtia_op(const Record& r, std::int64_t ts, std::int64_t dur) {
    ++m_out.mtia_ops;
    if (is(r.name, "event_record") || is(r.name, "event_wait")) {
      ++m_out.sync_events;
      ++m_out.counts.ignored;
      return;
    }
    commit_op(r, is(r.name, "dma_request") ? Cat::memcpy : Cat::kernel, ts, dur);
  }

  void commit_op(const Record& r, Cat cat, std::int64_t ts, std::int64_t dur) {
    if (!r.has_stream && !r.has_tid) {
      malformed("GPU event without a stream (args.stream or tid)");
      return;
    }
    GpuOp op;
    op.start_ns = ts;
    op.dur_ns = dur;
    op.stream = r.has_stream ? r.stream : r.tid;
    op.device = static_cast<std::int32_t>(r.has_device ? r.device : (r.has_pid ? r.pid : 0));
    op.correlation = r.correlation;
    op.bytes = r.bytes;
    op.type = cat == Cat::kernel ? OpType::kernel : cat == Cat::memcpy ? OpType::memcpy : OpType::memset;
    op.name = intern(r.name);
    if (op.type == OpType::kernel) {
      op.cls = starts_with_icase(r.name, "nccl") || starts_with_icase(r.name, "rccl") ? OpClass::communication
                                                                                      : OpClass::compute;
    } else {
      op.cls = OpClass::memory;
      op.dir = op.type != OpType::memcpy ? MemDir::none
               : r.direction.empty()     ? memcpy_direction(r.name)
                                         : mtia_direction(r.direction);
    }
    if (op.cls == OpClass::communication && r.has_comm_args) op.comm_args = add_comm_args(r);
    if (m_keep) {
      HostRecord h{.ts_ns = ts,
                   .dur_ns = dur,
                   .pid = op.device,
                   .tid = op.stream,
                   .correlation = op.correlation,
                   .stream = op.stream,
                   .name = op.name,
                   .op = static_cast<std::uint32_t>(m_out.ops.size()),
                   .kind = HostKind::gpu_op};
      m_out.cpu_records.push_back(h);
    }
    m_out.ops.push_back(op);
    ++m_out.counts.used;
  }

  /// With keep_cpu_ops: a CPU-side record (operator, annotation, runtime call, CUDA sync event).
  void keep_host(const Record& r, Cat cat, std::int64_t ts) {
    const HostKind kind = cat == Cat::cpu_op       ? HostKind::cpu_op
                          : cat == Cat::annotation ? HostKind::annotation
                          : cat == Cat::runtime    ? HostKind::runtime
                          : cat == Cat::sync       ? HostKind::sync
                                                   : HostKind::gpu_op;
    std::int64_t dur = 0;
    if (kind == HostKind::gpu_op || r.dur.empty() || !parse_us_to_ns(r.dur, dur) || dur < 0) return;
    HostRecord h{.ts_ns = ts,
                 .dur_ns = dur,
                 .pid = r.pid,
                 .tid = r.tid,
                 .correlation = r.correlation,
                 .stream = r.has_stream ? r.stream : -1,
                 .wait_on_stream = r.wait_on_stream,
                 .wait_on_record = r.wait_on_record,
                 .name = intern(r.name),
                 .op = 0,
                 .kind = kind};
    m_out.cpu_records.push_back(h);
  }

  std::int32_t add_comm_args(const Record& r) {
    CommArgs a;
    unescape(r.pg, a.pg);
    unescape(r.pg_desc, a.pg_desc);
    unescape(r.pg_ranks, a.pg_ranks);
    unescape(r.coll, a.op);
    a.seq = r.seq;
    a.in_nelems = r.in_nelems;
    a.out_nelems = r.out_nelems;
    m_out.comm_args.push_back(std::move(a));
    return static_cast<std::int32_t>(m_out.comm_args.size() - 1);
  }

  std::uint32_t intern(std::string_view raw_name) { return intern_in(raw_name, m_names, m_name_keys, m_out.names); }
  std::uint32_t intern_region(std::string_view raw_name) {
    return intern_in(raw_name, m_region_ids, m_region_keys, m_out.region_names);
  }

  using NameIds = std::unordered_map<std::string_view, std::uint32_t>;
  static std::uint32_t intern_in(std::string_view raw_name, NameIds& ids, std::deque<std::string>& keys,
                                 std::vector<std::string>& names) {
    if (auto it = ids.find(raw_name); it != ids.end()) return it->second;
    std::string name;
    if (raw_name.find('\\') != std::string_view::npos)
      unescape(raw_name, name);
    else
      name.assign(raw_name);
    const auto id = static_cast<std::uint32_t>(names.size());
    names.push_back(std::move(name));
    keys.emplace_back(raw_name);
    ids.emplace(keys.back(), id);
    return id;
  }

  ByteFn m_read;
  TraceData& m_out;
  std::size_t m_chunk;                                  // text parsed per simdjson pass
  std::vector<char, LargeBufferAllocator<char>> m_buf;  // grows to a chunk: on huge pages
  std::size_t m_begin = 1, m_len = 1;
  std::size_t m_tail_at = std::string_view::npos;
  std::size_t m_offset = 0;           // stream offset of buffer index 0 (for messages)
  std::uint64_t m_lines = 0;          // newlines before m_begin
  const char* m_record_at = nullptr;  // start of the record being read
  bool m_eof = false;
  od::parser m_parser;
  Record m_rec;
  sj::error_code m_last_error = sj::SUCCESS;
  std::unordered_map<std::string_view, std::uint32_t> m_names;
  std::deque<std::string> m_name_keys;  // owns the raw names the map's keys view
  NameIds m_region_ids;                 // user annotation names, as m_names
  std::deque<std::string> m_region_keys;
  bool m_keep = false;           // ReadOptions::keep_cpu_ops
  bool m_keep_host_ops = false;  // ReadOptions::keep_host_ops
  bool m_scan = true;            // ReadOptions::scan_records
};

}  // namespace

std::string_view to_string(OpClass c) {
  switch (c) {
    case OpClass::compute: return "compute";
    case OpClass::communication: return "communication";
    case OpClass::memory: return "memory";
  }
  return "compute";
}

std::string_view to_string(MemDir d) {
  switch (d) {
    case MemDir::h2d: return "h2d";
    case MemDir::d2h: return "d2h";
    case MemDir::d2d: return "d2d";
    case MemDir::h2h: return "h2h";
    case MemDir::p2p: return "p2p";
    case MemDir::other: return "other";
    case MemDir::none: break;
  }
  return "none";
}

bool TraceData::absolute() const {
  if (base_time_ns) return true;
  return has_min_ts && min_ts_ns / 1000 >= kEpochUsFloor;
}

std::int64_t TraceData::to_epoch_ns(std::int64_t ts_ns) const {
  if (base_time_ns) return *base_time_ns + ts_ns;
  return ts_ns;
}

namespace {

/// The fraction of a time in µs as far as ns keep it: its first three digits, the fourth rounding
/// (half away from zero).
struct UsFraction {
  std::int64_t kept = 0;  ///< the first three digits, as read
  int digits = 0;         ///< digits read, counted up to 4
  bool round_up = false;

  /// The digits at `p` (just after the '.'), up to `end` or the first other byte.
  void read(const char*& p, const char* end) {
    for (; p != end && *p >= '0' && *p <= '9'; ++p) {
      if (digits < 3) kept = kept * 10 + (*p - '0');
      if (digits == 3) round_up = *p >= '5';
      digits += digits < 4 ? 1 : 0;
    }
  }

  /// The fraction in ns, rounded.
  [[nodiscard]] std::int64_t ns() const {
    std::int64_t v = kept;
    for (int d = digits; d < 3; ++d) v *= 10;
    return v + (round_up ? 1 : 0);
  }
};

/// parse_us_to_ns() for what profilers write, [-]D[.D...] with 1 to 15 integer digits and nothing
/// around it, in one pass; false (out untouched) for anything else, which the general reader takes.
bool parse_plain_us_to_ns(std::string_view text, std::int64_t& out) {
  const char* p = text.data();
  const char* const end = p + text.size();
  const bool neg = p != end && *p == '-';
  p += neg ? 1 : 0;
  const char* const digits = p;
  std::uint64_t digits_value = 0;  // wraps past 19 digits, which are not taken below
  for (; p != end && *p >= '0' && *p <= '9'; ++p)
    digits_value = digits_value * 10 + static_cast<std::uint64_t>(*p - '0');
  if (p == digits || p - digits > 15) return false;
  UsFraction fraction;
  if (p != end && *p == '.') fraction.read(++p, end);
  if (p != end) return false;
  const std::int64_t ns = static_cast<std::int64_t>(digits_value) * 1000 + fraction.ns();
  out = neg ? -ns : ns;
  return true;
}

}  // namespace

bool parse_us_to_ns(std::string_view text, std::int64_t& out) {
  if (parse_plain_us_to_ns(text, out)) return true;
  text = trim(text);
  if (text.empty()) return false;
  bool neg = false;
  if (text.front() == '-') {
    neg = true;
    text.remove_prefix(1);
  }
  const char* p = text.data();
  const char* const end = p + text.size();
  std::int64_t whole = 0;
  const char* const int_start = p;
  for (; p != end && *p >= '0' && *p <= '9'; ++p) {
    if (whole > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return false;
    whole = whole * 10 + (*p - '0');
  }
  const bool int_digits = p != int_start;
  UsFraction fraction;
  if (p != end && *p == '.') fraction.read(++p, end);
  int exp10 = 0;
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    bool eneg = false;
    if (p != end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
    int e = 0;
    const char* const exp_start = p;
    for (; p != end && *p >= '0' && *p <= '9'; ++p) e = std::min(e * 10 + (*p - '0'), 400);
    if (p == exp_start) return false;
    exp10 = eneg ? -e : e;
  }
  if (p != end || (!int_digits && fraction.digits == 0)) return false;
  if (exp10 != 0) {  // rare (1e3): go through long double, still exact for realistic values
    long double v = static_cast<long double>(whole) + static_cast<long double>(fraction.kept) / [&] {
      long double d = 1;
      for (int k = 0; k < std::min(fraction.digits, 3); ++k) d *= 10;
      return d;
    }();
    for (int k = 0; k < std::abs(exp10); ++k) v = exp10 > 0 ? v * 10 : v / 10;
    v *= 1000;
    if (v > 9.2e18L) return false;
    const auto ns = static_cast<std::int64_t>(v + 0.5L);
    out = neg ? -ns : ns;
    return true;
  }
  if (whole > (std::numeric_limits<std::int64_t>::max() - 1000) / 1000) return false;
  const std::int64_t ns = whole * 1000 + fraction.ns();
  out = neg ? -ns : ns;
  return true;
}

bool is_launch_api(std::string_view name) {
  // Per-thread-default-stream and versioned entry points launch the same way.
  for (std::string_view suffix : {"_ptsz", "_ptds", "_spt", "_v2"})
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  static constexpr std::string_view kApis[] = {"cudaLaunchKernel",
                                               "cudaLaunchKernelExC",
                                               "cuLaunchKernel",
                                               "cuLaunchKernelEx",
                                               "cudaGraphLaunch",
                                               "cuGraphLaunch",
                                               "cudaMemcpyAsync",
                                               "cudaMemsetAsync",
                                               "cudaLaunchCooperativeKernel",
                                               "cuLaunchCooperativeKernel",
                                               "cuMemcpyAsync",
                                               "cuMemsetD8Async",
                                               "cuMemsetD32Async",
                                               "cuMemcpyHtoDAsync",
                                               "cuMemcpyDtoHAsync",
                                               "cuMemcpyDtoDAsync",
                                               "hipLaunchKernel",
                                               "hipLaunchKernelExC",
                                               "hipExtLaunchKernel",
                                               "hipModuleLaunchKernel",
                                               "hipExtModuleLaunchKernel",
                                               "hipGraphLaunch",
                                               "hipMemcpyAsync",
                                               "hipMemsetAsync",
                                               "hipMemcpyWithStream",
                                               "hipLaunchCooperativeKernel",
                                               "hipExtLaunchMultiKernelMultiDevice"};
  if (std::find(std::begin(kApis), std::end(kApis), name) != std::end(kApis)) return true;
  // MTIA's runtime: "runFunction - job_prep_and_submit_for_execution" runs a kernel (HTA's launch
  // pattern is ^runFunction), "enqueueCommand memcpyHtoDAsync" / "...DtoHAsync" a copy.
  return name.starts_with("runFunction") || name.starts_with("enqueueCommand memcpy");
}

bool looks_like_trace(std::string_view head) {
  std::size_t p = 0;
  while (p < head.size() && std::strchr(" \t\r\n", head[p]) != nullptr && head[p] != '\0') ++p;
  if (head.substr(p).starts_with("\xEF\xBB\xBF")) p += 3;
  if (p >= head.size()) return false;
  const std::string_view rest = head.substr(p, 64 * 1024);
  if (rest.front() == '{') {
    for (std::string_view key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\"",
                                 "\"displayTimeUnit\"", "\"computeProperties\""})
      if (rest.find(key) != std::string_view::npos) return true;
    // Chakra execution traces (another profiler JSON): recognised so they are reported, not guessed.
    return rest.find("\"nodes\"") != std::string_view::npos && rest.find("\"schema\"") != std::string_view::npos;
  }
  if (rest.front() == '[') {
    std::size_t q = 1;
    while (q < rest.size() && std::strchr(" \t\r\n", rest[q]) != nullptr && rest[q] != '\0') ++q;
    const std::string_view el = rest.substr(q);
    if (el.starts_with("[")) {  // memory timeline: [[ts, action, bytes, category], ...]
      return el.find(']') != std::string_view::npos && el.substr(0, 256).find('"') == std::string_view::npos &&
             el.substr(0, 64).find(',') != std::string_view::npos;
    }
    return el.starts_with("{") && el.substr(0, 4096).find("\"ph\"") != std::string_view::npos;
  }
  return false;
}

Status read_trace(io::LineReader& reader, TraceData& out, const ReadOptions& options) {
  Reader r([&reader](char* dst, std::size_t n) { return reader.read_bytes(dst, n); }, out, kTraceChunkBytes, options);
  r.run();
  if (out.truncated.empty() && !reader.error().empty())
    out.truncated = reader.error();
  else if (!reader.error().empty())
    out.truncated = reader.error() + "; " + out.truncated;
  return {};
}

TraceData read_trace_text(std::string_view text, std::size_t chunk_bytes, const ReadOptions& options) {
  TraceData out;
  std::size_t pos = 0;
  Reader r(
      [&](char* dst, std::size_t n) {
        const std::size_t take = std::min(n, text.size() - pos);
        std::memcpy(dst, text.data() + pos, take);
        pos += take;
        return take;
      },
      out, chunk_bytes, options);
  r.run();
  return out;
}

}  // namespace gpucost::prep::trace

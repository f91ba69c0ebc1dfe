// A growing output buffer with JSON helpers, flushed to a FILE* in large writes.
// Doubles use the shortest round-trip form (std::to_chars), so output is deterministic.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::io {

class OutBuffer {
 public:
  explicit OutBuffer(std::FILE* out) : m_out(out) {
    if (out != nullptr) m_buf.reserve(kFlushBytes + 64 * 1024);
  }
  ~OutBuffer() { flush(); }
  OutBuffer(const OutBuffer&) = delete;
  OutBuffer& operator=(const OutBuffer&) = delete;

  void raw(std::string_view s) { m_buf.append(s); }
  void ch(char c) { m_buf.push_back(c); }
  void integer(std::int64_t v);
  /// Writes through when the buffer is large; call flush() at the end.
  void maybe_flush() {
    if (m_buf.size() >= kFlushBytes) flush();
  }
  void flush();
  /// Writes what is buffered, then `s`, without copying `s` into the buffer.
  void write_through(std::string_view s);
  /// True when a write failed (disk full, closed pipe).
  [[nodiscard]] bool failed() const { return m_failed; }
  std::string& buffer() { return m_buf; }

 private:
  static constexpr std::size_t kFlushBytes = 256 * 1024;
  std::FILE* m_out;
  std::string m_buf;
  bool m_failed = false;
};

/// Appends `s` as a JSON string literal (with quotes) to `out`.
void append_json_string(std::string& out, std::string_view s);
/// Appends the shortest round-trip form of v; null for NaN/inf.
void append_json_number(std::string& out, double v);

/// JSON written into a string: values in the project's forms (strings escaped, numbers in
/// append_json_number's shortest round-trip form, a value not known as null), the separators
/// those of its Layout, and the lines the caller's: line(indent) puts the next member on a line
/// of its own. Objects and arrays nest; close() writes what goes before the closing bracket.
///
///   JsonWriter w(b);
///   w.object().key("rank").integer(0).key("trace").str("a.json").close();   // {"rank": 0, "trace": "a.json"}
///   JsonWriter c(b, JsonWriter::Layout::compact);
///   c.object().key("rank").integer(0).key("trace").str("a.json").close();   // {"rank":0,"trace":"a.json"}
class JsonWriter {
 public:
  /// The separators after a member or element and after a key. spaced: `, ` and `: `, the
  /// documents people read (features, breakeven --json); compact: `,` and `:`, the one-line
  /// outputs (trace --json, trace --diff --json). Before a member on a line of its own: `,` in both.
  enum class Layout { spaced, compact };

  explicit JsonWriter(std::string& out, Layout chosen = Layout::spaced) : m_out(out), m_layout(chosen) {}

  /// The separators from the next member or element on: a part of a document in the other layout.
  JsonWriter& layout(Layout chosen) {
    m_layout = chosen;
    return *this;
  }

  JsonWriter& object() { return open('{', '}'); }
  JsonWriter& array() { return open('[', ']'); }
  /// Closes the innermost object or array; `before` (a line break and indent) precedes the bracket.
  JsonWriter& close(std::string_view before = {});
  /// The member's key, after its separator: `"key": `.
  JsonWriter& key(std::string_view k);
  /// The separator of an array's next element.
  JsonWriter& item();
  /// The next member or element starts a line of its own, after `indent`.
  JsonWriter& line(std::string_view indent);

  JsonWriter& str(std::string_view s);
  JsonWriter& num(double v);  ///< NaN and infinities: null
  JsonWriter& integer(std::int64_t v);
  JsonWriter& count(std::uint64_t v);  ///< an unsigned integer: a count, a size, a seed
  JsonWriter& boolean(bool v);
  JsonWriter& null();
  /// `text` as it is: a number already in JSON's form (an event's field, kept to its own digits).
  JsonWriter& number_text(std::string_view text);
  JsonWriter& num(const std::optional<double>& v) { return v ? num(*v) : null(); }
  JsonWriter& integer(const std::optional<std::int64_t>& v) { return v ? integer(*v) : null(); }
  /// An empty string is a value not known: null.
  JsonWriter& str_or_null(std::string_view s) { return s.empty() ? null() : str(s); }

  /// `"key": "value"`, left out when `value` is empty.
  JsonWriter& text_if(std::string_view k, std::string_view value) { return value.empty() ? *this : key(k).str(value); }

 private:
  struct Level {
    char closer;
    bool first = true;
  };
  JsonWriter& open(char opener, char closer);
  void separate();

  std::string& m_out;
  Layout m_layout;
  std::vector<Level> m_levels;
  bool m_newline = false;  ///< the next member starts a line, after m_indent
  std::string m_indent;
};

}  // namespace gpucost::io

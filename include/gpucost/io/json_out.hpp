// A growing output buffer with JSON helpers, flushed to a FILE* in large writes.
// Doubles use the shortest round-trip form (std::to_chars), so output is deterministic.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

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
/// Appends `, "key": "value"` (without the comma when `first`).
void append_json_text_field(std::string& out, std::string_view key, std::string_view value, bool first = false);
/// Appends `, "key": number` (append_json_number's form).
void append_json_number_field(std::string& out, std::string_view key, double value);

}  // namespace gpucost::io

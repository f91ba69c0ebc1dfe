#include <gpucost/io/json_out.hpp>

#include <gpucost/core/text.hpp>

#include <array>
#include <charconv>
#include <cmath>

namespace gpucost::io {

void append_json_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out.append("null");
    return;
  }
  char tmp[32];
  // Integral values in the exactly representable range print as integers: "250", not "250.0".
  if (v == std::trunc(v) && std::fabs(v) < 9.0e15) {
    auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, static_cast<std::int64_t>(v));
    out.append(tmp, p);
    return;
  }
  // Beyond that, the shortest form of a value can come out as plain digits (fixed and
  // scientific tie at 22 characters for 1362420080179214811136); past the 64-bit range readers
  // such as simdjson refuse such an integer, so there it is written scientific.
  auto [p, ec] = std::fabs(v) >= 9.0e18 ? std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::scientific)
                                        : std::to_chars(tmp, tmp + sizeof tmp, v);
  out.append(tmp, p);
}

// 1 for bytes that cannot be copied into a JSON string as they are.
constexpr auto kNeedsCare = [] {
  std::array<unsigned char, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) ? 1 : 0;
  return t;
}();

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    // Fast path: a run of plain printable ASCII.
    std::size_t j = i;
    while (j < s.size() && kNeedsCare[static_cast<unsigned char>(s[j])] == 0) ++j;
    out.append(s.data() + i, j - i);
    i = j;
    if (i >= s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
      ++i;
    } else if (c < 0x20) {
      switch (c) {
        case '\n': out.append("\\n"); break;
        case '\t': out.append("\\t"); break;
        case '\r': out.append("\\r"); break;
        default:
          out.append("\\u00");
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
      }
      ++i;
    } else {
      const std::size_t n = text::utf8_sequence_length(s, i);
      if (n == 0) {
        out.append("\xEF\xBF\xBD");  // U+FFFD for a byte that is not valid UTF-8
        ++i;
      } else {
        out.append(s.data() + i, n);
        i += n;
      }
    }
  }
  out.push_back('"');
}

void OutBuffer::integer(std::int64_t v) {
  char tmp[24];
  auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
  m_buf.append(tmp, p);
}

void OutBuffer::flush() {
  if (m_buf.empty() || m_out == nullptr) return;
  if (!m_failed && std::fwrite(m_buf.data(), 1, m_buf.size(), m_out) != m_buf.size()) m_failed = true;
  m_buf.clear();
}

void OutBuffer::write_through(std::string_view s) {
  flush();
  if (s.empty() || m_out == nullptr) return;
  if (!m_failed && std::fwrite(s.data(), 1, s.size(), m_out) != s.size()) m_failed = true;
}

JsonWriter& JsonWriter::open(char opener, char closer) {
  m_out.push_back(opener);
  m_levels.push_back(Level{closer});
  return *this;
}

JsonWriter& JsonWriter::close(std::string_view before) {
  m_out.append(before);
  if (!m_levels.empty()) {
    m_out.push_back(m_levels.back().closer);
    m_levels.pop_back();
  }
  m_newline = false;
  return *this;
}

void JsonWriter::separate() {
  if (!m_levels.empty()) {
    const bool spaced = m_layout == Layout::spaced && !m_newline;  // a line break follows the comma itself
    if (!m_levels.back().first) m_out.append(spaced ? ", " : ",");
    m_levels.back().first = false;
  }
  if (m_newline) {
    m_out.push_back('\n');
    m_out.append(m_indent);
    m_newline = false;
  }
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  append_json_string(m_out, k);
  m_out.append(m_layout == Layout::spaced ? ": " : ":");
  return *this;
}

JsonWriter& JsonWriter::item() {
  separate();
  return *this;
}

JsonWriter& JsonWriter::line(std::string_view indent) {
  m_newline = true;
  m_indent.assign(indent);
  return *this;
}

JsonWriter& JsonWriter::str(std::string_view s) {
  append_json_string(m_out, s);
  return *this;
}

JsonWriter& JsonWriter::num(double v) {
  append_json_number(m_out, v);
  return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t v) {
  char tmp[24];
  auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
  m_out.append(tmp, p);
  return *this;
}

JsonWriter& JsonWriter::count(std::uint64_t v) {
  char tmp[24];
  auto [p, ec] = std::to_chars(tmp, tmp + sizeof tmp, v);
  m_out.append(tmp, p);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool v) {
  m_out.append(v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  m_out.append("null");
  return *this;
}

JsonWriter& JsonWriter::number_text(std::string_view text) {
  m_out.append(text);
  return *this;
}

}  // namespace gpucost::io

#include <gpucost/report/html.hpp>

#include <gpucost/core/text.hpp>

namespace gpucost::report {

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool forbidden_control(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F; }
}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t len = text::utf8_sequence_length(s, i);
      if (len == 0) {
        out += kReplacement;
        ++i;
      } else {
        out.append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (forbidden_control(c))
          out += kReplacement;
        else
          out.push_back(static_cast<char>(c));
    }
    ++i;
  }
  return out;
}

}  // namespace gpucost::report

// Python logging lines: the stamps and the headers of the logging formats in use (dialects.hpp).
#include "dialects.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep::trainlog {

using std::string_view;

namespace {

bool is_level(string_view t) {
  static constexpr string_view kLevels[] = {"INFO", "WARNING", "DEBUG",  "ERROR", "CRITICAL",
                                            "WARN", "FATAL",   "NOTSET", "TRACE", "SUCCESS"};
  for (const string_view l : kLevels)
    if (t == l) return true;
  return false;
}

bool read_fixed(string_view s, std::size_t pos, std::size_t n, unsigned& out) {
  if (pos + n > s.size()) return false;
  unsigned v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!text::is_digit(s[i])) return false;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
  }
  out = v;
  return true;
}

// ",123" / ".123456" after the seconds: nanos; advances pos.
void read_fraction(string_view s, std::size_t& pos, CivilTime& c) {
  if (pos + 1 >= s.size() || (s[pos] != ',' && s[pos] != '.') || !text::is_digit(s[pos + 1])) return;
  ++pos;
  std::int64_t scale = 100'000'000;
  while (pos < s.size() && text::is_digit(s[pos])) {
    c.nanos += (s[pos] - '0') * scale;
    scale /= 10;
    ++pos;
  }
}

// "Z", "+02:00", "+0200" after an ISO time; advances pos.
void read_offset(string_view s, std::size_t& pos, Stamp& st) {
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    st.has_offset = true;
    ++pos;
    return;
  }
  if (pos + 5 > s.size() || (s[pos] != '+' && s[pos] != '-')) return;
  unsigned hh = 0, mm = 0;
  std::size_t p = pos + 1;
  if (!read_fixed(s, p, 2, hh)) return;
  p += 2;
  if (p < s.size() && s[p] == ':') ++p;
  if (!read_fixed(s, p, 2, mm)) return;
  st.has_offset = true;
  st.offset_s = (s[pos] == '-' ? -1 : 1) * static_cast<std::int64_t>(hh * 3600 + mm * 60);
  pos = p + 2;
}

// "HH:MM:SS" at pos.
bool read_clock(string_view s, std::size_t pos, CivilTime& c) {
  return pos + 8 <= s.size() && s[pos + 2] == ':' && s[pos + 5] == ':' && read_fixed(s, pos, 2, c.hour) &&
         read_fixed(s, pos + 3, 2, c.minute) && read_fixed(s, pos + 6, 2, c.second);
}

// Length of the stamp at the start of s, 0 when there is none:
//   MM/DD/YYYY HH:MM:SS                    HF examples (datefmt "%m/%d/%Y %H:%M:%S")
//   YYYY-MM-DD[ T]HH:MM:SS[,.fff][offset]  asctime, loguru, ISO 8601
//   YY-MM-DD HH:MM:SS[.fff]                traiNNer / BasicSR (datefmt "%y-%m-%d %H:%M:%S")
std::size_t scan_stamp(string_view s, Stamp& st) {
  st = Stamp{};
  CivilTime& c = st.civil;
  unsigned year = 0;
  std::size_t pos = 0;
  if (s.size() >= 19 && s[2] == '/' && s[5] == '/' && s[10] == ' ') {
    if (!read_fixed(s, 0, 2, c.month) || !read_fixed(s, 3, 2, c.day) || !read_fixed(s, 6, 4, year) ||
        !read_clock(s, 11, c))
      return 0;
    pos = 19;
  } else if (s.size() >= 19 && s[4] == '-' && s[7] == '-' && (s[10] == ' ' || s[10] == 'T')) {
    if (!read_fixed(s, 0, 4, year) || !read_fixed(s, 5, 2, c.month) || !read_fixed(s, 8, 2, c.day) ||
        !read_clock(s, 11, c))
      return 0;
    pos = 19;
  } else if (s.size() >= 17 && s[2] == '-' && s[5] == '-' && s[8] == ' ') {
    if (!read_fixed(s, 0, 2, year) || !read_fixed(s, 3, 2, c.month) || !read_fixed(s, 6, 2, c.day) ||
        !read_clock(s, 9, c))
      return 0;
    year += 2000;  // %y: 2-digit year of this century
    pos = 17;
  } else {
    return 0;
  }
  c.year = static_cast<int>(year);
  read_fraction(s, pos, c);
  if (s[10] == 'T' || (pos < s.size() && (s[pos] == 'Z' || s[pos] == '+'))) read_offset(s, pos, st);
  if (pos < s.size() && !text::is_space(s[pos]) && s[pos] != ']' && s[pos] != ':' && s[pos] != '|') return 0;
  st.valid = valid_civil(c);
  return pos;
}

// "A - B - msg" with A or B a level (HF: LEVEL - logger; cookbook: logger - LEVEL).
bool dash_header(string_view body, LogHeader& h) {
  const std::size_t d1 = body.find(" - ");
  if (d1 == string_view::npos) return false;
  const string_view a = body.substr(0, d1), rest = body.substr(d1 + 3);
  const std::size_t d2 = rest.find(" - ");
  const string_view b = d2 == string_view::npos ? string_view() : rest.substr(0, d2);
  if (is_level(a)) {
    h.level = a;
    if (d2 != string_view::npos && b.find(' ') == string_view::npos) {
      h.logger = b;
      h.message = rest.substr(d2 + 3);
    } else {
      h.message = rest;
    }
    return true;
  }
  if (d2 != string_view::npos && is_level(b) && a.find(' ') == string_view::npos) {
    h.logger = a;
    h.level = b;
    h.message = rest.substr(d2 + 3);
    return true;
  }
  return false;
}

// "LEVEL: msg" (traiNNer after " - ", BasicSR after " ").
bool level_colon_header(string_view body, LogHeader& h) {
  const std::size_t colon = body.find(':');
  if (colon > 8 || !is_level(body.substr(0, colon))) return false;  // npos is > 8 too: no colon
  h.level = body.substr(0, colon);
  h.message = ltrim(body.substr(colon + 1));
  return true;
}

// "[LEVEL][name] - msg", "] [INFO] [file.py:96:fn] msg": bracket groups, one of them a level.
bool bracket_groups_header(string_view body, LogHeader& h) {
  while (true) {
    body = ltrim(body);
    if (body.empty() || body[0] != '[') break;
    const std::size_t close = body.find(']');
    if (close == string_view::npos) break;
    const string_view group = body.substr(1, close - 1);
    if (h.level.empty() && is_level(group))
      h.level = group;
    else if (h.logger.empty())
      h.logger = group;
    body = body.substr(close + 1);
  }
  if (body.starts_with(" - "))
    body = body.substr(3);
  else if (body.starts_with("- "))
    body = body.substr(2);
  h.message = ltrim(body);
  return !h.level.empty();
}

}  // namespace

// The header after a stamp (`rest` starts right after it); false when no level is found.
bool parse_header(string_view rest, LogHeader& h) {
  h = LogHeader{};
  if (rest.starts_with(" - ")) {
    const string_view body = rest.substr(3);
    return level_colon_header(body, h) || dash_header(body, h);
  }
  if (rest.starts_with(" | ")) {  // loguru: " | INFO     | mod:fn:42 - msg"
    const string_view body = rest.substr(3);
    const std::size_t bar = body.find(" | ");
    if (bar == string_view::npos || !is_level(text::trim(body.substr(0, bar)))) return false;
    h.level = text::trim(body.substr(0, bar));
    const string_view after = body.substr(bar + 3);
    const std::size_t dash = after.find(" - ");
    h.logger = dash == string_view::npos ? string_view() : after.substr(0, dash);
    h.message = dash == string_view::npos ? after : after.substr(dash + 3);
    return true;
  }
  if (rest.starts_with(": ")) {  // bracketed custom, trailing ']' already cut: ": LEVEL: module: msg"
    LogHeader inner;
    if (!level_colon_header(rest.substr(2), inner)) return false;
    h.level = inner.level;
    const std::size_t colon = inner.message.find(": ");
    if (colon != string_view::npos && inner.message.substr(0, colon).find(' ') == string_view::npos) {
      h.logger = inner.message.substr(0, colon);
      h.message = inner.message.substr(colon + 2);
    } else {
      h.message = inner.message;
    }
    return true;
  }
  if (rest.starts_with("]")) return bracket_groups_header(rest.substr(1), h);
  if (rest.starts_with(" [")) return bracket_groups_header(rest.substr(1), h);
  if (rest.starts_with(" ") || rest.starts_with("\t")) {  // "INFO: msg", "INFO msg", Ray's "\tINFO file.py:1 -- msg"
    const string_view body = rest.substr(1);
    if (level_colon_header(body, h)) return true;
    const std::size_t sp = body.find(' ');
    if (sp != string_view::npos && is_level(body.substr(0, sp))) {
      h.level = body.substr(0, sp);
      h.message = ltrim(body.substr(sp + 1));
      return true;
    }
  }
  return false;
}

// A stamped log line: the stamp directly or after '[' (bracketed formats); `rest` is what
// follows the stamp, without a bracketed custom line's closing ']'. 0 when there is no stamp.
std::size_t scan_stamped(string_view s, Stamp& st, string_view& rest) {
  const bool bracketed = !s.empty() && s[0] == '[';
  const std::size_t len = scan_stamp(bracketed ? s.substr(1) : s, st);
  if (len == 0) return 0;
  const std::size_t end = len + (bracketed ? 1 : 0);
  rest = s.substr(end);
  if (bracketed && rest.starts_with(":") && !rest.empty() && rest.back() == ']') rest.remove_suffix(1);
  if (bracketed && !rest.starts_with(":") && !rest.starts_with("]")) return 0;
  return end;
}

// logging.basicConfig's default "INFO:__main__:msg" (no time).
bool default_format(string_view s, LogHeader& h) {
  const std::size_t c1 = s.find(':');
  if (c1 > 8 || !is_level(s.substr(0, c1))) return false;  // npos is > 8 too: no colon
  const std::size_t c2 = s.find(':', c1 + 1);
  if (c2 == string_view::npos) return false;
  const string_view logger = s.substr(c1 + 1, c2 - c1 - 1);
  if (logger.empty() || logger.find(' ') != string_view::npos) return false;
  h.level = s.substr(0, c1);
  h.logger = logger;
  h.message = s.substr(c2 + 1);
  return true;
}

}  // namespace gpucost::prep::trainlog

#include <gpucost/core/text.hpp>

#include <gpucost/core/plain_decimal.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace gpucost::text {

std::optional<double> parse_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double fast = 0;
  bool json = false;
  if (parse_plain_decimal(s, fast, json)) return fast;
  double v = 0;
  const auto* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc{} || p != end || !std::isfinite(v)) return std::nullopt;  // no "inf", "nan"
  return v;
}

bool parse_number(std::string_view s, double& out, bool& json) {
  if (parse_plain_decimal(s, out, json)) return true;
  const auto v = parse_double(s);
  if (!v) return false;
  out = *v;
  json = is_json_number(s);
  return true;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  const auto* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc{} || p != end) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
  s.remove_prefix(2);
  std::uint64_t v = 0;
  const auto* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v, 16);
  if (ec != std::errc{} || p != end) return std::nullopt;
  return v;
}

bool read_uint(std::string_view s, std::size_t& pos, std::size_t max_digits, std::uint64_t& out) {
  std::size_t n = 0;
  std::uint64_t v = 0;
  while (pos < s.size() && n < max_digits && is_digit(s[pos])) {
    v = v * 10 + static_cast<std::uint64_t>(s[pos] - '0');
    ++pos;
    ++n;
  }
  out = v;
  return n > 0;
}

unsigned month_abbreviation(std::string_view name) {
  static constexpr std::string_view kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                                 "jul", "aug", "sep", "oct", "nov", "dec"};
  if (name.size() != 3) return 0;
  for (unsigned i = 0; i < 12; ++i)
    if (istarts_with(name, kMonths[i])) return i + 1;
  return 0;
}

bool is_json_number(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (is_digit(s[i])) {
    while (i < n && is_digit(s[i])) ++i;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  return i == n;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the optimal-string-alignment table: a swap of neighbours looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

std::vector<std::string> name_tokens(std::string_view name) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  for (const char c : name) {
    if (c == '-' || c == '_' || c == '.' || c == '/' || c == ' ') {
      flush();
      continue;
    }
    if (!cur.empty() && is_digit(cur.back()) != is_digit(c)) flush();
    cur.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  flush();
  return out;
}

namespace {

// Two words that differ by a typo: letters only (4090 is not 4080), three or more of them, one
// edit apart (two for words of six letters or more).
bool typo_of(const std::string& a, const std::string& b) {
  if (a.size() < 3 || b.size() < 3 || is_digit(a[0]) || is_digit(b[0])) return false;
  const std::size_t allowed = std::min(a.size(), b.size()) >= 6 ? 2 : 1;
  const std::size_t longer = std::max(a.size(), b.size()), shorter = std::min(a.size(), b.size());
  return longer - shorter <= allowed && edit_distance(a, b) <= allowed;
}

struct Rank {
  std::size_t shared = 0;   // twice the words matched exactly, plus the words matched with a typo
  std::size_t matched = 0;  // query words matched either way
  bool prefix = false;
  std::size_t distance = 0;
};

Rank rank_of(std::string_view query, const std::vector<std::string>& q_words, std::string_view candidate) {
  Rank r;
  const std::vector<std::string> c_words = name_tokens(candidate);
  std::vector<bool> used(c_words.size(), false), done(q_words.size(), false);
  for (std::size_t i = 0; i < q_words.size(); ++i) {
    for (std::size_t j = 0; j < c_words.size(); ++j) {
      if (used[j] || q_words[i] != c_words[j]) continue;
      used[j] = done[i] = true;
      r.shared += 2;
      ++r.matched;
      break;
    }
  }
  for (std::size_t i = 0; i < q_words.size(); ++i) {
    if (done[i]) continue;
    for (std::size_t j = 0; j < c_words.size(); ++j) {
      if (used[j] || !typo_of(q_words[i], c_words[j])) continue;
      used[j] = done[i] = true;
      r.shared += 1;
      ++r.matched;
      break;
    }
  }
  r.prefix = query.size() >= 3 && candidate.size() > query.size() && candidate.substr(0, query.size()) == query;
  r.distance = edit_distance(query, candidate);
  return r;
}

}  // namespace

std::string_view closest_name(std::string_view query, std::span<const std::string_view> candidates) {
  const std::vector<std::string> q_words = name_tokens(query);
  std::string_view best;
  Rank best_rank;
  for (const std::string_view c : candidates) {
    if (c.empty() || c == query) continue;
    const Rank r = rank_of(query, q_words, c);
    const std::size_t near = std::max<std::size_t>(2, std::min(query.size(), c.size()) / 3);
    const bool close = r.matched * 2 > q_words.size() || r.prefix || r.distance <= near;
    if (!close) continue;
    const bool better =
        best.empty() || r.shared > best_rank.shared ||
        (r.shared == best_rank.shared &&
         (r.prefix > best_rank.prefix || (r.prefix == best_rank.prefix && r.distance < best_rank.distance)));
    if (better) {
      best = c;
      best_rank = r;
    }
  }
  return best;
}

std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  unsigned min = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  unsigned cp = c & (0xFFu >> (n + 1));
  for (std::size_t k = 1; k < n; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

namespace {

// The C escape of an ASCII control character: \t, \n, ... or \xHH (ESC is \x1b).
void append_control_escape(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  switch (c) {
    case '\a': out.append("\\a"); return;
    case '\b': out.append("\\b"); return;
    case '\t': out.append("\\t"); return;
    case '\n': out.append("\\n"); return;
    case '\v': out.append("\\v"); return;
    case '\f': out.append("\\f"); return;
    case '\r': out.append("\\r"); return;
    default: break;
  }
  out.append("\\x");
  out.push_back(kHex[c >> 4]);
  out.push_back(kHex[c & 0xF]);
}

// C1 controls (U+0080-U+009F: some terminals read U+009B as CSI) and the bidirectional
// overrides and isolates (U+202A-U+202E, U+2066-U+2069: they reorder what follows on screen).
bool is_hidden_code_point(std::string_view seq) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(seq[k]); };
  if (seq.size() == 2) return b(0) == 0xC2 && b(1) >= 0x80 && b(1) <= 0x9F;
  if (seq.size() != 3 || b(0) != 0xE2) return false;
  return (b(1) == 0x80 && b(2) >= 0xAA && b(2) <= 0xAE) || (b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9);
}

void append_code_point_escape(std::string& out, std::string_view seq) {
  unsigned cp = 0;
  if (seq.size() == 2)
    cp = ((static_cast<unsigned char>(seq[0]) & 0x1Fu) << 6) | (static_cast<unsigned char>(seq[1]) & 0x3Fu);
  else
    cp = ((static_cast<unsigned char>(seq[0]) & 0x0Fu) << 12) | ((static_cast<unsigned char>(seq[1]) & 0x3Fu) << 6) |
         (static_cast<unsigned char>(seq[2]) & 0x3Fu);
  static constexpr char kHex[] = "0123456789abcdef";
  out.append("\\u");
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 0xFu]);
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f)
        append_control_escape(out, c);
      else
        out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");  // U+FFFD
      ++i;
    } else if (is_hidden_code_point(s.substr(i, n))) {
      append_code_point_escape(out, s.substr(i, n));
      i += n;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

bool looks_binary(std::string_view head) {
  head = head.substr(0, 4096);
  if (head.empty()) return false;
  if (head.find('\0') != std::string_view::npos) return true;
  std::size_t odd = 0;
  for (std::size_t i = 0; i < head.size();) {
    const auto c = static_cast<unsigned char>(head[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f) ++odd;
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(head, i);
    if (n == 0) {
      // A sequence cut by the end of the head is not evidence of binary data.
      if (i + 4 < head.size()) ++odd;
      ++i;
    } else {
      i += n;
    }
  }
  return odd * 10 > head.size();
}

std::string duration_hours(double hours) {
  if (!std::isfinite(hours)) return "none";
  // Decide on the minutes as printed: 119.96 min would read "120.0 min", the first value in hours.
  const double minutes = std::round(hours * 600) / 10 + 0.0;  // + 0.0: no "-0.0"
  if (minutes < kMinutesBelowHours * 60) return fmt::format("{:.1f} min", minutes);
  return fmt::format("{:.2f} h", hours);
}

std::string counted(long long count, std::string_view singular, std::string_view plural) {
  if (count == 1) return fmt::format("1 {}", singular);
  if (plural.empty()) return fmt::format("{} {}s", count, singular);
  return fmt::format("{} {}", count, plural);
}

std::string short_number(double v) {
  if (std::fabs(v) < 1e-9) return "0";  // also -0
  return fmt::format("{:.6g}", v);
}

}  // namespace gpucost::text

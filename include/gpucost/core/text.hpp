// Small helpers for text: parsing fields (trimming, numbers, JSON number shape) and the few
// formatting rules every people-facing output shares (durations, counted nouns, rounding noise).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::text {

/// ASCII white space. '\n' counts too: lines never hold one, but journal messages can.
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

/// `s` starts with `lower`, ignoring ASCII case; `lower` must be lower case.
inline bool istarts_with(std::string_view s, std::string_view lower) {
  if (s.size() < lower.size()) return false;
  for (std::size_t i = 0; i < lower.size(); ++i)
    if (ascii_lower(s[i]) != lower[i]) return false;
  return true;
}

/// `s` contains `lower` anywhere, ignoring ASCII case; `lower` must be lower case.
inline bool icontains(std::string_view s, std::string_view lower) {
  if (lower.empty()) return true;
  for (std::size_t i = 0; i + lower.size() <= s.size(); ++i)
    if (ascii_lower(s[i]) == lower[0] && istarts_with(s.substr(i), lower)) return true;
  return false;
}

inline std::string_view ltrim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

inline std::string_view trim(std::string_view s) {
  s = ltrim(s);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}
inline std::string_view rtrim(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Next whitespace-separated token of `s` starting at `pos`; advances pos. Empty at end.
inline std::string_view next_token(std::string_view s, std::size_t& pos) {
  while (pos < s.size() && is_space(s[pos])) ++pos;
  const std::size_t start = pos;
  while (pos < s.size() && !is_space(s[pos])) ++pos;
  return s.substr(start, pos - start);
}

/// True when `s` is one or more ASCII digits and nothing else.
inline bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!is_digit(c)) return false;
  return true;
}

/// The line of `s` at `pos`, without its '\n'; advances pos past the '\n'. For a loop while
/// pos < s.size().
inline std::string_view next_line(std::string_view s, std::size_t& pos) {
  const std::size_t nl = s.find('\n', pos);
  const std::size_t end = nl == std::string_view::npos ? s.size() : nl;
  const std::string_view line = s.substr(pos, end - pos);
  pos = end + 1;
  return line;
}

/// Parses the whole of `s` as a decimal floating point number (no spaces, no unit).
std::optional<double> parse_double(std::string_view s);
/// parse_double and is_json_number in one pass: false when `s` is not a number; `json` is true
/// when the text can be copied to JSON output as written.
bool parse_number(std::string_view s, double& out, bool& json);
/// Parses the whole of `s` as a signed decimal integer.
std::optional<std::int64_t> parse_int(std::string_view s);
/// Parses "0x..." hexadecimal (nvidia-smi bit masks).
std::optional<std::uint64_t> parse_hex(std::string_view s);
/// Reads up to `max_digits` decimal digits of `s` from `pos` (advanced past them) into `out`;
/// false when there is no digit there. Callers bound max_digits so that `out` cannot overflow.
bool read_uint(std::string_view s, std::size_t& pos, std::size_t max_digits, std::uint64_t& out);
/// 1-12 for an English month abbreviation ("Jan" ... "Dec", any case, as date(1) and
/// nvidia-smi print them); 0 otherwise.
unsigned month_abbreviation(std::string_view name);

/// True when `s` is a number in strict JSON grammar (so it can be copied to output verbatim).
bool is_json_number(std::string_view s);

/// Length of the valid UTF-8 sequence starting at s[i] (2-4), or 0 when s[i] starts none
/// (an ASCII byte also gives 0: callers test < 0x80 first).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i);
/// `s` safe for a terminal: ASCII controls as C escapes (\t, \x1b), C1 and bidi controls as \u0080,
/// non-UTF-8 bytes as U+FFFD; every outside string goes through it (docs/security.md).
std::string printable(std::string_view s);
/// True when `head` looks like binary data rather than text: a NUL byte, or more than 10 % of
/// its bytes (up to 4 KiB) control characters other than tab/CR/LF or not UTF-8.
bool looks_binary(std::string_view head);

/// The parts with `sep` between them ("a, b, c").
std::string join(const std::vector<std::string>& parts, std::string_view sep);

/// Case-insensitive ASCII equality.
bool iequals(std::string_view a, std::string_view b);

/// Edit distance (optimal string alignment: insert, delete, substitute, swap two neighbours,
/// each 1), for "did you mean" hints.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// Below this many hours a job length or duration is printed in minutes, from it on in hours.
inline constexpr double kMinutesBelowHours = 2.0;

/// A job length or other duration given in hours, as printed to people everywhere (table,
/// findings, Markdown note, HTML report, history; docs/outputs.md, "Units"): minutes with one
/// decimal below 2 h ("0.0 min", "45.0 min", "119.9 min"), hours with two decimals from 2 h on
/// ("2.00 h", "36.25 h"); the rule is applied to the rounded minutes, so 1.9999 h is "2.00 h".
/// "none" when not finite. JSON, CSV and Prometheus keep their documented fixed units.
std::string duration_hours(double hours);

/// "1 step", "0 steps", "2 faults": the count and the noun, in the plural unless the count is 1.
/// `plural` defaults to `singular` + "s" ("loss" needs "losses").
std::string counted(long long count, std::string_view singular, std::string_view plural = {});

/// A value for people with 6 significant digits ("{:.6g}"), but 0 when it is zero up to rounding
/// (|v| < 1e-9, e.g. 4.04103e-15 from 1 - a / a): an indicator, a ratio or a parameter, never a
/// figure that is legitimately that small in its unit. "-0" never appears.
std::string short_number(double v);

/// The words of a name, lower case: split at '-', '_', '.', '/', ' ' and between letters and
/// digits ("runpod-rtx4090-community" -> runpod, rtx, 4090, community).
std::vector<std::string> name_tokens(std::string_view name);

/// The candidate a "did you mean" hint offers for the unknown name `query`; empty when none is
/// close. Candidates are ranked by the words they share with the query (a word with a typo of
/// one or two letters counts as half), then by whether the query is their prefix, then by edit
/// distance, then by their order. A candidate is close when it shares more than half of the
/// query's words, or starts with the query (3 letters or more), or is within an edit distance
/// of max(2, a third of the shorter name). So `runpod-4090` gives `runpod-rtx4090-community`,
/// not the nearer spelling `runpod-l40s`, and `cloud.rate` gives `cloud.rate_per_hour`.
std::string_view closest_name(std::string_view query, std::span<const std::string_view> candidates);

}  // namespace gpucost::text

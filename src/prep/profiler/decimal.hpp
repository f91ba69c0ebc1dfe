// Exact decimal text -> scaled integers (durations in ns, sizes in bytes) for the profiler
// summaries: "12.979us" is 12979 ns, never 12978.999... Internal to prep.
#pragma once

#include <gpucost/core/text.hpp>

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

namespace gpucost::prep {

/// A decimal number as written: mantissa digits with the point removed, and how many of them
/// follow the point ("-1,234.50" = {-123450, 2}).
struct Decimal {
  std::int64_t mantissa = 0;
  int frac_digits = 0;
};

/// Parses an optional '-', digits (with ',' thousands separators when `thousands`), an optional
/// '.' and digits. At most 18 significant digits; false for anything else.
inline bool parse_decimal(std::string_view s, Decimal& out, bool thousands = false) {
  std::size_t i = 0;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) ++i;
  std::int64_t mantissa = 0;
  int digits = 0, int_digits = 0, frac = 0;
  bool point = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (text::is_digit(c)) {
      if (mantissa != 0 || c != '0') ++digits;
      if (digits > 18) return false;
      mantissa = mantissa * 10 + (c - '0');
      (point ? frac : int_digits) += 1;
    } else if (c == '.' && !point) {
      point = true;
    } else if (c == ',' && thousands && !point && int_digits > 0 && i + 1 < s.size() && text::is_digit(s[i + 1])) {
      continue;
    } else {
      return false;
    }
  }
  if (int_digits == 0 || (point && frac == 0)) return false;
  out.mantissa = negative ? -mantissa : mantissa;
  out.frac_digits = frac;
  return true;
}

/// value × mul / div, rounded half away from zero; false when it does not fit in 64 bits.
inline bool scale_decimal(const Decimal& d, std::int64_t mul, std::int64_t div, std::int64_t& out) {
  __extension__ using Wide = __int128;
  Wide den = div;
  for (int i = 0; i < d.frac_digits; ++i) den *= 10;
  const Wide num = static_cast<Wide>(d.mantissa) * mul;
  const Wide abs_num = num < 0 ? -num : num;
  const Wide q = (abs_num + den / 2) / den;
  if (q > static_cast<Wide>(INT64_MAX)) return false;
  out = static_cast<std::int64_t>(num < 0 ? -q : q);
  return true;
}

/// Writes value × 10^shift as plain JSON number text ("3,481,709.0" shift 0 -> "3481709.0";
/// "1.5" shift 3 -> "1500"): the tool's own digits, the point moved, separators dropped. False
/// when the shifted value does not fit in 64 bits.
inline bool decimal_text(const Decimal& d, int shift, std::string& out) {
  std::int64_t m = d.mantissa;
  int frac = d.frac_digits - shift;
  for (; frac < 0; ++frac) {
    if (m > INT64_MAX / 10 || m < INT64_MIN / 10) return false;
    m *= 10;
  }
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, m < 0 ? -m : m);
  if (ec != std::errc()) return false;
  const auto len = static_cast<std::size_t>(end - digits);
  const auto f = static_cast<std::size_t>(frac);
  out.clear();
  if (m < 0) out.push_back('-');
  if (len <= f) {
    out.push_back('0');
    out.push_back('.');
    out.append(f - len, '0');
    out.append(digits, len);
    return true;
  }
  out.append(digits, len - f);
  if (f > 0) {
    out.push_back('.');
    out.append(digits + (len - f), f);
  }
  return true;
}

}  // namespace gpucost::prep

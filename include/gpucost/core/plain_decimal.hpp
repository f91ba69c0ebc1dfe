// The decimal every table cell is ("123", "-45.67"): read inline by the table parsers' hot
// loops (docs/performance.md, "Table formats") before text::parse_number, which reads every
// other form with std::from_chars.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpucost::text {

// Exact powers of ten: a decimal with at most 15 digits is m / 10^k with m < 2^53, and one IEEE
// division of two exact values is correctly rounded (Clinger's fast path).
inline constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// "123", "-45.67": true and `out` set; false for anything else (then from_chars decides).
// `json` tells whether the text is also a JSON number as written (no leading zeros).
inline bool parse_plain_decimal(std::string_view s, double& out, bool& json) {
  const char* p = s.data();
  const char* const end = p + s.size();
  const bool neg = p != end && *p == '-';
  if (neg) ++p;
  // Unsigned arithmetic: a mantissa of too many digits wraps (well defined) and is refused below.
  std::uint64_t mant = 0;
  const auto read_digits = [&] {
    const char* from = p;
    for (; p != end; ++p) {
      const unsigned d = static_cast<unsigned char>(*p) - unsigned{'0'};  // wraps above 9 for a non-digit
      if (d > 9) break;
      mant = mant * 10 + d;
    }
    return static_cast<std::size_t>(p - from);
  };
  const char* const int_start = p;
  const std::size_t int_digits = read_digits();
  if (int_digits == 0) return false;
  std::size_t frac = 0;
  if (p != end && *p == '.') {
    ++p;
    frac = read_digits();
    if (frac == 0) return false;
  }
  if (p != end || int_digits + frac > 15) return false;
  const double v = frac == 0 ? static_cast<double>(mant) : static_cast<double>(mant) / kPow10[frac];
  out = neg ? -v : v;
  json = !(int_digits > 1 && *int_start == '0');
  return true;
}

}  // namespace gpucost::text

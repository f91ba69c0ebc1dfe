// Writing TOML by hand for the user catalogue: basic strings escaped, floats that read back as
// the same double (and stay floats).
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <string_view>

namespace gpucost::prices {

/// "text" with quotes, backslashes and control characters escaped (a TOML basic string).
inline std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\u{:04X}", u);
    } else {
      out += c;
    }
  }
  return out + '"';
}

/// The shortest text that reads back as `v`, with a ".0" when it would read as an integer.
inline std::string toml_float(double v) {
  if (!std::isfinite(v)) return "0.0";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

/// A whole number without a fraction (as data/cloud-offers.toml writes 24, 60), else toml_float.
inline std::string toml_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return fmt::format("{}", static_cast<long long>(v));
  return toml_float(v);
}

}  // namespace gpucost::prices

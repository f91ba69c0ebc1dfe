// A column of local date-time stamps read fast: rows of one sample share their date and second,
// so the text before the fraction is parsed once and remembered (docs/performance.md, "Table
// formats").
#pragma once

#include <gpucost/core/time.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost {

class CivilStampCache {
 public:
  /// parse_civil_datetime(s)'s answer as CivilTime::as_utc_ns() (the wall clock as if it were
  /// UTC), the same for every text.
  std::optional<std::int64_t> wall_ns(std::string_view s);

 private:
  std::string m_prefix;          // the last valid stamp's text before its fraction
  std::int64_t m_prefix_ns = 0;  // what it says, as_utc_ns() with no fraction
  bool m_valid = false;
};

}  // namespace gpucost

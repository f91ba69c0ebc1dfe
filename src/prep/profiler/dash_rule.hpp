// Tables whose columns are given by a rule of dash groups ("-----  -----  -----"): the
// PyTorch profiler table and nsys stats text reports. Internal to prep.
#pragma once

#include <gpucost/core/text.hpp>

#include <string_view>
#include <vector>

namespace gpucost::prep {

struct Span {
  std::size_t begin = 0, end = 0;  ///< byte offsets in the rule line, end exclusive
};

/// The dash groups of a rule line: only '-' and spaces, at least `min_groups` groups. Clears
/// `spans` and returns false for any other line.
inline bool parse_dash_rule(std::string_view line, std::vector<Span>& spans, std::size_t min_groups = 2) {
  spans.clear();
  const std::string_view body = text::rtrim(line);
  std::size_t i = 0;
  while (i < body.size()) {
    if (body[i] == ' ') {
      ++i;
      continue;
    }
    if (body[i] != '-') {
      spans.clear();
      return false;
    }
    Span s;
    s.begin = i;
    while (i < body.size() && body[i] == '-') ++i;
    s.end = i;
    spans.push_back(s);
  }
  if (spans.size() < min_groups) {
    spans.clear();
    return false;
  }
  return true;
}

/// Cell i of `line`: from span i's start to span i+1's start, the last one to the end of the
/// line, trimmed (cells are right- or left-aligned inside their span; the last one, free text,
/// may run past its span).
inline void slice_by_spans(std::string_view line, const std::vector<Span>& spans,
                           std::vector<std::string_view>& cells) {
  cells.clear();
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const std::size_t b = spans[i].begin;
    const std::size_t e = i + 1 < spans.size() ? spans[i + 1].begin : line.size();
    cells.push_back(b < line.size() ? text::trim(line.substr(b, e - b)) : std::string_view{});
  }
}

}  // namespace gpucost::prep

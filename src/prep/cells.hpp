// Splitting a table row into its cells, the hot loop of the CSV formats (docs/performance.md,
// "Table formats"): the separators are found 16 bytes at a time (SSE2, which every x86-64 has),
// so a row of a dozen short cells costs a few compares instead of a library call per cell.
// Internal to prep.
#pragma once

#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpucost::prep {

/// text::is_space in two compares.
inline bool is_blank(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/// The cell [begin, end) of a row without its surrounding white space.
inline std::string_view trimmed_cell(const char* begin, const char* end) {
  while (begin < end && is_blank(*begin)) ++begin;
  while (end > begin && is_blank(end[-1])) --end;
  return {begin, static_cast<std::size_t>(end - begin)};
}

/// `line` cut at every `sep` into `out` (cleared first), each cell trimmed of white space; a
/// line without `sep` is one cell. The same cells as repeated find(sep) would give.
inline void split_trimmed(std::string_view line, char sep, std::vector<std::string_view>& out) {
  out.clear();
  const char* const data = line.data();
  const char* start = data;
  const auto cut = [&](std::size_t at) {
    out.push_back(trimmed_cell(start, data + at));
    start = data + at + 1;
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i seps = _mm_set1_epi8(sep);
  for (; i + 16 <= line.size(); i += 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, seps)));
    for (; mask != 0; mask &= mask - 1) cut(i + static_cast<std::size_t>(__builtin_ctz(mask)));
  }
#endif
  for (; i < line.size(); ++i)
    if (data[i] == sep) cut(i);
  out.push_back(trimmed_cell(start, data + line.size()));
}

/// `line`'s runs of non-blank bytes (text::next_token's tokens) into `out` (cleared first): the
/// blanks of 16 bytes at a time make a bit mask whose changes are where tokens start and end.
inline void split_blank(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  const char* const data = line.data();
  const std::size_t n = line.size();
  bool in_token = false;
  std::size_t token_start = 0;
  // `changes`: bit k set where byte `at + k` starts or ends a token (blankness differs from the byte before).
  const auto take = [&](std::size_t at, unsigned changes) {
    for (; changes != 0; changes &= changes - 1) {
      const std::size_t pos = at + static_cast<std::size_t>(__builtin_ctz(changes));
      if (in_token) out.emplace_back(data + token_start, pos - token_start);
      token_start = pos;
      in_token = !in_token;
    }
  };
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r');
  for (; i + 16 <= n; i += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + i));
    // '\t'..'\r' (9-13): clamping into that range leaves exactly those bytes unchanged.
    const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(_mm_max_epu8(b, tab), cr), b);
    const auto blank = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(b, space), control)));
    const unsigned token = ~blank & 0xFFFFU;
    take(i, (token ^ ((token << 1) | (in_token ? 1U : 0U))) & 0xFFFFU);
  }
#endif
  for (; i < n; ++i)
    if (is_blank(data[i]) == in_token) take(i, 1U);
  if (in_token) out.emplace_back(data + token_start, n - token_start);
}

}  // namespace gpucost::prep

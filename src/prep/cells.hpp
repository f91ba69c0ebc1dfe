// Splitting a table row into its cells, the hot loop of the CSV formats (docs/performance.md,
// "Table formats"): the separators are found 16 bytes at a time (SSE2, which every x86-64 has),
// so a row of a dozen short cells costs a few compares instead of a library call per cell.
// Internal to prep.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// Bit k set when p[k] is blank (is_blank), for the 16 bytes at `p`.
inline unsigned blanks16(const char* p) {
#if defined(__SSE2__)
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  // '\t'..'\r' (9-13): clamping into that range leaves exactly those bytes unchanged.
  const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(_mm_max_epu8(b, _mm_set1_epi8('\t')), _mm_set1_epi8('\r')), b);
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8(' ')), control)));
#else
  unsigned bits = 0;
  for (unsigned k = 0; k < 16; ++k) bits |= is_blank(p[k]) ? 1U << k : 0U;
  return bits;
#endif
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
  for (; i + 16 <= n; i += 16) {
    const unsigned token = ~blanks16(data + i) & 0xFFFFU;
    take(i, (token ^ ((token << 1) | (in_token ? 1U : 0U))) & 0xFFFFU);
  }
#endif
  for (; i < n; ++i)
    if (is_blank(data[i]) == in_token) take(i, 1U);
  if (in_token) out.emplace_back(data + token_start, n - token_start);
}

/// The tokens of a row of 16 to 127 bytes (split_blank()'s) as bit masks of where each starts
/// and ends, made from its blanks 16 bytes at a time, then taken in order with a few bit
/// operations each and no vector (the dmon row's fast path).
class RowTokens {
 public:
  static constexpr std::size_t kMinBytes = 16, kMaxBytes = 127;

  /// False (and nothing set) when `row` is shorter than kMinBytes or longer than kMaxBytes.
  bool set(std::string_view row) {
    const std::size_t n = row.size();
    if (n < kMinBytes || n > kMaxBytes) return false;
    // Bit k of `blank`: byte k is blank; bytes past the row's end count as blank.
    std::uint64_t blank[2] = {~std::uint64_t{0}, ~std::uint64_t{0}};
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) put(blank, i, blanks16(row.data() + i), 0xFFFFU);
    if (i < n) {  // the last bytes: the block that ends with the row, its new part shifted down
      const std::size_t fresh = n - i;
      put(blank, i, blanks16(row.data() + n - 16) >> (16 - fresh), (1U << fresh) - 1);
    }
    // A token starts at a non-blank byte after a blank one (or the row's start) and ends at the
    // first blank byte after it, which the row's end or the blank bits past it always provide.
    const std::uint64_t before0 = (blank[0] << 1) | 1U;
    const std::uint64_t before1 = (blank[1] << 1) | (blank[0] >> 63);
    m_starts[0] = ~blank[0] & before0;
    m_starts[1] = ~blank[1] & before1;
    m_ends[0] = blank[0] & ~before0;
    m_ends[1] = blank[1] & ~before1;
    return true;
  }
  [[nodiscard]] std::size_t count() const {
    return static_cast<std::size_t>(__builtin_popcountll(m_starts[0])) +
           static_cast<std::size_t>(__builtin_popcountll(m_starts[1]));
  }
  /// The next token as [begin, end) offsets; at most count() times after set().
  void next(std::size_t& begin, std::size_t& end) {
    begin = take(m_starts);
    end = take(m_ends);
  }

 private:
  // Bits [at, at + 16) never straddle the two words: `at` is a multiple of 16.
  static void put(std::uint64_t* words, std::size_t at, unsigned bits, unsigned keep) {
    std::uint64_t& w = words[at / 64];
    const unsigned shift = at % 64;
    w = (w & ~(std::uint64_t{keep} << shift)) | (std::uint64_t{bits & keep} << shift);
  }
  /// The lowest set bit of the pair (which must have one), cleared.
  static std::size_t take(std::uint64_t* words) {
    if (words[0] != 0) {
      const auto at = static_cast<std::size_t>(__builtin_ctzll(words[0]));
      words[0] &= words[0] - 1;
      return at;
    }
    const auto at = static_cast<std::size_t>(__builtin_ctzll(words[1]));
    words[1] &= words[1] - 1;
    return 64 + at;
  }

  std::uint64_t m_starts[2] = {0, 0};
  std::uint64_t m_ends[2] = {0, 0};
};

}  // namespace gpucost::prep

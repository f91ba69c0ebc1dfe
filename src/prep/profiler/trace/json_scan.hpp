// The trace reader's own JSON scanner, for the records a profiler writes (trace_reader.cpp reads
// them with it first and hands anything it does not take to simdjson).
//
// The readers of a value (string, scalar, skip_container, skip_value) take a cursor `p` and the
// end of the text they may use, and either move `p` past what they read and return true, or
// return false and leave `p` alone (the skip_space functions move it past the blanks either way):
// false means "not taken here" (the text is not what this scanner accepts, or it runs past
// `end`), never a verdict on the JSON. What it accepts is valid JSON that simdjson reads the same way: strings
// of printable ASCII with valid escapes, numbers and literals by JSON's grammar; whatever else
// (a byte >= 0x80, a control byte, a bad escape, a value cut by `end`) is left to simdjson, which
// decides. A skipped object or array is checked as simdjson's On-Demand checks one it steps over
// (strings closed and clean, brackets balanced; their kinds must match here too), not for the
// grammar between its brackets.
//
// The byte at `end` must be one that ends every run the scanner reads (the reader puts a NUL
// there: no blank, digit or quote), and the text must stay readable for 64 bytes past it (the
// reader's buffer has simdjson's padding there): blocks of 16 or 64 bytes are looked at whole,
// and only what lies before `end` counts.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gpucost::prep::trace::json_scan {

/// JSON's whitespace: ' ', '\t', '\n', '\r'.
inline bool is_space(char c) {
  static constexpr auto kSpace = [] {
    std::array<bool, 256> t{};
    t[' '] = t['\t'] = t['\n'] = t['\r'] = true;
    return t;
  }();
  return kSpace[static_cast<unsigned char>(c)];
}
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Bits of the 64 bytes at `p`.
struct Block {
  std::uint64_t quote = 0;      ///< '"'
  std::uint64_t backslash = 0;  ///< '\'
  std::uint64_t unusual = 0;    ///< a byte < 0x20 or >= 0x80 (a blank such as '\n' included)
  std::uint64_t blank = 0;      ///< '\t', '\n', '\r' (the control bytes allowed outside strings)
  std::uint64_t open = 0;       ///< '{' or '['
  std::uint64_t close = 0;      ///< '}' or ']'
};

inline Block block64(const char* p) {
  Block b;
#if defined(__SSE2__)
  for (unsigned part = 0; part < 4; ++part) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * part));
    const auto bits = [part](__m128i m) {
      return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(m))) << (16 * part);
    };
    const auto eq = [&v](char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
    b.quote |= bits(eq('"'));
    b.backslash |= bits(eq('\\'));
    // Signed compare: bytes >= 0x80 are negative, so they are below 0x20 too.
    b.unusual |= bits(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
    b.blank |= bits(_mm_or_si128(_mm_or_si128(eq('\n'), eq('\r')), eq('\t')));
    // '[' and ']' are 0x5B and 0x5D, '{' and '}' 0x7B and 0x7D: bit 5 off gives '[' or ']'.
    const __m128i folded = _mm_andnot_si128(_mm_set1_epi8(0x20), v);
    b.open |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8('[')));
    b.close |= bits(_mm_cmpeq_epi8(folded, _mm_set1_epi8(']')));
  }
#else
  for (unsigned k = 0; k < 64; ++k) {
    const auto c = static_cast<unsigned char>(p[k]);
    const std::uint64_t bit = std::uint64_t{1} << k;
    if (c == '"') b.quote |= bit;
    if (c == '\\') b.backslash |= bit;
    if (c < 0x20 || c >= 0x80) b.unusual |= bit;
    if (c == '\n' || c == '\r' || c == '\t') b.blank |= bit;
    if (c == '{' || c == '[') b.open |= bit;
    if (c == '}' || c == ']') b.close |= bit;
  }
#endif
  return b;
}

/// Bit k of the 16 bytes at `p`: a byte a string's scan stops at ('"', '\', < 0x20, >= 0x80).
[[gnu::always_inline]] inline unsigned string_stops16(const char* p) {
#if defined(__SSE2__)
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i stop =
      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
                   _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
  return static_cast<unsigned>(_mm_movemask_epi8(stop));
#else
  unsigned bits = 0;
  for (unsigned k = 0; k < 16; ++k) {
    const auto c = static_cast<unsigned char>(p[k]);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) bits |= 1U << k;
  }
  return bits;
#endif
}

/// Bit k: an odd number of bits at or below k (inside a string, given the quotes of a block).
inline std::uint64_t prefix_xor64(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/// The blanks at `p`; false when they reach `end`.
[[gnu::always_inline]] inline bool skip_space(const char*& p, const char* end) {
  // A byte loop: a block compare (spaces16) puts its whole latency on every value's path and
  // measured slower, though a run's end is mispredicted now and then.
  while (is_space(*p)) ++p;  // stops at `end`: the byte there is no blank
  return p < end;
}

/// The blanks at `p` and then `c`; false when `c` is not there.
[[gnu::always_inline]] inline bool skip_space_to(const char*& p, const char* end, char c) {
  if (*p != c) {  // profilers write ':' and ',' right after what they follow: no loop then
    skip_space(p, end);
    if (*p != c || p >= end) return false;
  }
  ++p;
  return true;
}

/// The blanks at `p` before a value or key; false when they reach `end`.
[[gnu::always_inline]] inline bool skip_space_before(const char*& p, const char* end) {
  p += *p == ' ' ? 1 : 0;  // "key": value, ", " : one blank, no loop
  return skip_space(p, end);
}

/// One escape at `p` (just after its '\'): \" \\ \/ \b \f \n \r \t or \u and four hex digits;
/// the bytes it takes, 0 when it is not one.
inline unsigned escape_length(const char* p, const char* end) {
  if (p >= end) return 0;
  switch (*p) {
    case '"':
    case '\\':
    case '/':
    case 'b':
    case 'f':
    case 'n':
    case 'r':
    case 't': return 1;
    case 'u':
      if (end - p < 5) return 0;
      for (int k = 1; k <= 4; ++k) {
        const char h = p[k];
        if (!is_digit(h) && !(h >= 'a' && h <= 'f') && !(h >= 'A' && h <= 'F')) return 0;
      }
      return 5;
    default: return 0;
  }
}

/// A string at `p` (its opening quote): `raw` is the text between the quotes, escapes as
/// written; `escaped` says whether it has any.
[[gnu::always_inline]] inline bool string(const char*& p, const char* end, std::string_view& raw, bool& escaped) {
  const char* q = p + 1;
  escaped = false;
  for (;;) {
    const unsigned stop = string_stops16(q);
    if (stop == 0) {
      q += 16;
      if (q >= end) return false;
      continue;
    }
    const char* at = q + __builtin_ctz(stop);
    if (*at == '"' && at < end) {
      raw = std::string_view(p + 1, static_cast<std::size_t>(at - p - 1));
      p = at + 1;
      return true;
    }
    // A control byte or one >= 0x80 (the byte at `end` among them) is simdjson's to judge.
    if (*at != '\\' || at >= end) return false;
    const unsigned n = escape_length(at + 1, end);
    if (n == 0) return false;
    escaped = true;
    q = at + 1 + n;
  }
}

/// True when `c` may follow a number or literal.
inline bool ends_scalar(char c) { return is_space(c) || c == ',' || c == '}' || c == ']'; }

/// A number (JSON's grammar) or true, false, null at `p`; `token` is its text.
[[gnu::always_inline]] inline bool scalar(const char*& p, const char* end, std::string_view& token) {
  const char* q = p;
  if (*q == '-') ++q;
  if (is_digit(*q)) {
    // Digit loops need no bound: the byte at `end` is no digit.
    if (*q++ != '0')
      while (is_digit(*q)) ++q;
    if (*q == '.') {
      if (!is_digit(*++q)) return false;
      while (is_digit(*q)) ++q;
    }
    if (*q == 'e' || *q == 'E') {
      if (*++q == '+' || *q == '-') ++q;
      if (!is_digit(*q)) return false;
      while (is_digit(*q)) ++q;
    }
  } else {
    if (q != p) return false;
    const auto literal = [&](std::string_view word) {
      if (static_cast<std::size_t>(end - q) <= word.size() || std::string_view(q, word.size()) != word) return false;
      q += word.size();
      return true;
    };
    if (!literal("true") && !literal("false") && !literal("null")) return false;
  }
  if (q >= end || !ends_scalar(*q)) return false;
  token = std::string_view(p, static_cast<std::size_t>(q - p));
  p = q;
  return true;
}

/// Steps over the object or array at `p` (its '{' or '['), as On-Demand steps over a value it
/// is not asked for: its strings must be closed and clean and its brackets balanced, the grammar
/// between them is not looked at. Blocks of 64 bytes find the quotes and brackets; a block with a
/// '\' is read a byte at a time.
inline bool skip_container(const char*& p, const char* end) {
  constexpr int kMaxDepth = 64;
  std::uint64_t braces = 0;  // bit d: the container at depth d+1 is an object
  int depth = 0;
  bool in_string = false, escape_next = false;
  // Opens or closes one bracket; false when its kind does not match or the depth is too large.
  const auto bracket = [&](char c) {
    if (c == '{' || c == '[') {
      if (depth == kMaxDepth) return false;
      braces = c == '{' ? braces | (std::uint64_t{1} << depth) : braces & ~(std::uint64_t{1} << depth);
      ++depth;
      return true;
    }
    --depth;
    return depth >= 0 && ((braces >> depth) & 1U) == (c == '}' ? 1U : 0U);
  };
  for (const char* q = p; q < end; q += 64) {
    const std::uint64_t valid = end - q >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (end - q)) - 1;
    const Block b = block64(q);
    if (b.backslash != 0 || escape_next) {  // a byte at a time
      for (unsigned k = 0; k < 64 && ((valid >> k) & 1U) != 0; ++k) {
        const char c = q[k];
        if (static_cast<unsigned char>(c) >= 0x80) return false;
        if (in_string) {
          if (static_cast<unsigned char>(c) < 0x20) return false;
          if (escape_next)
            escape_next = false;
          else if (c == '\\')
            escape_next = true;
          else if (c == '"')
            in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == '{' || c == '[' || c == '}' || c == ']') {
          if (!bracket(c)) return false;
          if (depth == 0) {
            p = q + k + 1;
            return true;
          }
        } else if (static_cast<unsigned char>(c) < 0x20 && !is_space(c)) {
          return false;
        }
      }
      continue;
    }
    // Bit k of `inside`: byte k is in a string (its opening quote included, its closing not).
    const std::uint64_t inside = prefix_xor64(b.quote) ^ (in_string ? ~std::uint64_t{0} : 0);
    int last = -1;  // the container's closing bracket, when in this block
    for (std::uint64_t brackets = (b.open | b.close) & ~inside & valid; brackets != 0; brackets &= brackets - 1) {
      const int k = __builtin_ctzll(brackets);
      if (!bracket(q[k])) return false;
      if (depth == 0) {
        last = k;
        break;
      }
    }
    // The bytes that belong to the container: up to its closing bracket, else all before `end`.
    const std::uint64_t taken = last < 0 ? valid : last == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << last) - 1;
    // Control bytes: none in a string, only blanks outside one; no byte >= 0x80 anywhere.
    if ((b.unusual & ~(b.blank & ~inside)) & taken) return false;
    if (last >= 0) {
      p = q + last + 1;
      return true;
    }
    in_string = (inside >> 63) & 1U;
  }
  return false;
}

/// Steps over any value at `p`.
inline bool skip_value(const char*& p, const char* end) {
  if (*p == '"') {
    std::string_view raw;
    bool escaped = false;
    return string(p, end, raw, escaped);
  }
  if (*p == '{' || *p == '[') return skip_container(p, end);
  std::string_view token;
  return scalar(p, end, token);
}

}  // namespace gpucost::prep::trace::json_scan

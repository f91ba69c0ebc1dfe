// The table formats' hot loops (src/prep/cells.hpp, core/civil_cache.hpp, core/plain_decimal.hpp)
// against the plain code they stand in for: the same cells, tokens, times and numbers for every
// text, at every length around their 8- and 16-byte blocks.
#include <catch2/catch.hpp>

#include "prep/cells.hpp"

#include <gpucost/core/civil_cache.hpp>
#include <gpucost/core/plain_decimal.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>

#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace prep = gpucost::prep;
namespace text = gpucost::text;

namespace {

std::vector<std::string_view> cells_by_find(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t at = line.find(sep, start);
    out.push_back(text::trim(line.substr(start, at == std::string_view::npos ? line.npos : at - start)));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::vector<std::string_view> tokens_by_next_token(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  for (std::string_view tok = text::next_token(line, pos); !tok.empty(); tok = text::next_token(line, pos))
    out.push_back(tok);
  return out;
}

// Random lines over an alphabet of separators, every kind of white space and a few bytes.
std::string random_line(std::mt19937& rng, std::size_t length) {
  static constexpr std::string_view kAlphabet = ", ,\t\r\n\v\f a0.-N/A\xc3\xa9";
  std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
  std::string line(length, ' ');
  for (char& c : line) c = kAlphabet[pick(rng)];
  return line;
}

}  // namespace

TEST_CASE("prep::split_trimmed and split_blank give the cells of find() and the tokens of next_token()",
          "[prep][cells]") {
  std::mt19937 rng(7);
  std::vector<std::string_view> cells;
  for (std::size_t length = 0; length <= 70; ++length) {
    for (int round = 0; round < 40; ++round) {
      const std::string line = random_line(rng, length);
      INFO("line '" << line << "'");
      prep::split_trimmed(line, ',', cells);
      CHECK(cells == cells_by_find(line, ','));
      prep::split_blank(line, cells);
      CHECK(cells == tokens_by_next_token(line));
    }
  }
  prep::split_trimmed("2024/06/12 14:22:18.123, 0, 245.32 W, 98 %", ',', cells);
  CHECK(cells == std::vector<std::string_view>{"2024/06/12 14:22:18.123", "0", "245.32 W", "98 %"});
  prep::split_blank("    0    515     32 -   2619   1980 ", cells);
  CHECK(cells == std::vector<std::string_view>{"0", "515", "32", "-", "2619", "1980"});
}

TEST_CASE("prep::RowTokens gives split_blank's tokens for rows of 16 to 127 bytes", "[prep][cells]") {
  std::mt19937 rng(13);
  std::vector<std::string_view> expected;
  prep::RowTokens row;
  for (std::size_t length = 0; length <= 140; ++length) {
    for (int round = 0; round < 40; ++round) {
      std::string line = random_line(rng, length);
      if (round % 4 == 0)  // mostly blanks, as a dmon row is
        for (char& c : line) c = rng() % 3 == 0 ? c : ' ';
      INFO("line '" << line << "'");
      const bool taken = row.set(line);
      REQUIRE(taken == (length >= prep::RowTokens::kMinBytes && length <= prep::RowTokens::kMaxBytes));
      if (!taken) continue;
      prep::split_blank(line, expected);
      REQUIRE(row.count() == expected.size());
      for (const std::string_view token : expected) {
        std::size_t begin = 0, end = 0;
        row.next(begin, end);
        CHECK(std::string_view(line).substr(begin, end - begin) == token);
        CHECK(line.data() + begin == token.data());
      }
    }
  }
}

TEST_CASE("CivilStampCache: the answer of parse_civil_datetime for each stamp of a column", "[prep][cells][time]") {
  // Rows sharing a second, a fraction written with ',', a bad fraction after a good prefix, a new
  // day, a stamp without a fraction, junk, and the remembered prefix followed by something else.
  const std::vector<std::string_view> stamps = {
      "2024/06/12 14:22:18.123",
      "2024/06/12 14:22:18.124",
      "2024/06/12 14:22:18,5",
      "2024/06/12 14:22:18.",
      "2024/06/12 14:22:18.1x",
      "2024/06/12 14:22:18",
      "2024/06/12 14:22:18x",
      "2024/06/12 14:22:19.000",
      "2024/06/13 00:00:00.5",
      "2024-06-13T00:00:00.25",
      "2024/02/30 00:00:00.1",
      "2024/02/30 00:00:00.2",
      "junk",
      "2024/06/12 14:22:18.123456789",
      "2024/06/12 14:22:18.1234567891",
  };
  gpucost::CivilStampCache cache;
  for (const std::string_view s : stamps) {
    INFO("stamp '" << s << "'");
    const auto expected = gpucost::parse_civil_datetime(s);
    const auto got = cache.wall_ns(s);
    REQUIRE(got.has_value() == expected.has_value());
    if (expected) CHECK(*got == expected->as_utc_ns());
  }
}

TEST_CASE("text::parse_plain_decimal: plain decimals exactly as from_chars, the rest left to parse_number",
          "[prep][cells][text]") {
  double v = 0;
  bool json = false;
  CHECK(text::parse_plain_decimal("245.32", v, json));
  CHECK(v == 245.32);
  CHECK(json);
  CHECK(text::parse_plain_decimal("-0.5", v, json));
  CHECK(v == -0.5);
  CHECK(text::parse_plain_decimal("007", v, json));
  CHECK(v == 7);
  CHECK_FALSE(json);  // a leading zero: not a JSON number as written
  for (const std::string_view other : {"", "-", ".5", "5.", "1e3", "+1", "1.2.3", "12 W", "1234567890123456"})
    CHECK_FALSE(text::parse_plain_decimal(other, v, json));
  // Up to 15 digits the division is correctly rounded: the double from_chars reads.
  for (const std::string_view s : {"0.1", "123456789.012345", "98765.4321", "0.00000000000001"}) {
    REQUIRE(text::parse_plain_decimal(s, v, json));
    CHECK(v == text::parse_double(s).value());
  }
}

// NewlineCursor (include/gpucost/io/newline_cursor.hpp) against std::string_view::find: the same
// '\n' from every start, for texts of every length around its 64-byte blocks; io::count_newlines
// (16 or 32 bytes a step, as the CPU allows) against std::count.
#include <catch2/catch.hpp>

#include <gpucost/io/line_reader.hpp>
#include <gpucost/io/newline_cursor.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>

using gpucost::io::NewlineCursor;

TEST_CASE("newline cursor: every newline from every start, as find() sees them", "[io][newline]") {
  std::mt19937 rng(7);
  for (std::size_t len = 0; len <= 200; ++len) {
    for (const unsigned density : {2U, 10U, 70U}) {  // a '\n' in 1 of `density` bytes (70: mostly none per block)
      std::string buf(len, 'x');
      for (char& c : buf) c = rng() % density == 0 ? '\n' : static_cast<char>('a' + rng() % 26);
      const std::string_view text(buf);
      // One cursor walking forward, as the prefilter uses it, and a fresh one per start.
      NewlineCursor walk(text);
      std::size_t at = 0;
      for (;;) {
        const std::size_t want = text.find('\n', at);
        REQUIRE(walk.next(at) == want);
        if (want == std::string_view::npos) break;
        at = want + 1;
      }
      for (std::size_t from = 0; from <= len; ++from) {
        NewlineCursor fresh(text);
        REQUIRE(fresh.next(from) == text.find('\n', from));
      }
    }
  }
}

TEST_CASE("newline cursor: a start in an earlier block than the last call's", "[io][newline]") {
  std::string buf(300, 'a');
  buf[10] = buf[140] = buf[299] = '\n';
  NewlineCursor c{std::string_view(buf)};
  CHECK(c.next(200) == 299);
  CHECK(c.next(0) == 10);
  CHECK(c.next(11) == 140);
  CHECK(c.next(300) == std::string_view::npos);
}

TEST_CASE("count_newlines: the same count as std::count at every length around its 16- and 32-byte steps",
          "[io][newline]") {
  std::mt19937 rng(11);
  for (std::size_t len = 0; len <= 300; ++len) {
    std::string buf(len, 'x');
    for (char& c : buf) c = rng() % 5 == 0 ? '\n' : 'y';
    CHECK(gpucost::io::count_newlines(buf) == static_cast<std::size_t>(std::count(buf.begin(), buf.end(), '\n')));
  }
  // More than 255 steps of 32 bytes: the byte lanes are summed before they overflow.
  const std::string many(32 * 300 + 7, '\n');
  CHECK(gpucost::io::count_newlines(many) == many.size());
}

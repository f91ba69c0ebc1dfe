// core/text: the formatting rules every people-facing output shares (docs/outputs.md, "Units"):
// a duration in minutes below 2 h and in hours from 2 h on, counted nouns, and rounding noise as 0.
#include <catch2/catch.hpp>

#include <gpucost/core/text.hpp>

#include <limits>

using gpucost::text::counted;
using gpucost::text::duration_hours;
using gpucost::text::short_number;
namespace text = gpucost::text;

TEST_CASE("text: a duration is in minutes below 2 h and in hours from 2 h on", "[core][text]") {
  CHECK(duration_hours(0) == "0.0 min");
  CHECK(duration_hours(-1e-12) == "0.0 min");  // never "-0.0"
  CHECK(duration_hours(0.001) == "0.1 min");
  CHECK(duration_hours(0.25) == "15.0 min");
  CHECK(duration_hours(1.0) == "60.0 min");
  CHECK(duration_hours(1.5) == "90.0 min");
  CHECK(duration_hours(1.99) == "119.4 min");
  // Decided on the minutes as printed: 119.96 min would print as "120.0 min".
  CHECK(duration_hours(1.9994) == "2.00 h");
  CHECK(duration_hours(2.0) == "2.00 h");
  CHECK(duration_hours(36.254) == "36.25 h");
  CHECK(duration_hours(std::numeric_limits<double>::quiet_NaN()) == "none");
  CHECK(duration_hours(std::numeric_limits<double>::infinity()) == "none");
}

TEST_CASE("text: a count and its noun agree", "[core][text]") {
  CHECK(counted(1, "step") == "1 step");
  CHECK(counted(0, "step") == "0 steps");
  CHECK(counted(2, "fault") == "2 faults");
  CHECK(counted(1, "AC loss", "AC losses") == "1 AC loss");
  CHECK(counted(3, "AC loss", "AC losses") == "3 AC losses");
}

TEST_CASE("text: a value that is zero up to rounding prints as 0", "[core][text]") {
  CHECK(short_number(4.04103e-15) == "0");
  CHECK(short_number(-5.9952e-15) == "0");
  CHECK(short_number(-0.0) == "0");
  CHECK(short_number(0) == "0");
  CHECK(short_number(0.0259204) == "0.0259204");
  CHECK(short_number(38000) == "38000");
  CHECK(short_number(1.5e-6) == "1.5e-06");  // small but not noise
}

TEST_CASE("text: case-insensitive prefix and search take a lower-case needle", "[core][text]") {
  CHECK(text::istarts_with("Requested functionality has been deprecated", "requested functionality"));
  CHECK_FALSE(text::istarts_with("Request", "requested"));
  CHECK(text::icontains("NVRM: GPU at PCI:0000:01:00: GPU-xyz OVER temperature", "over temp"));
  CHECK_FALSE(text::icontains("thermal", "thermals"));
  CHECK(text::icontains("anything", ""));
  CHECK(text::ascii_lower('Q') == 'q');
  CHECK(text::ascii_lower('7') == '7');
}

TEST_CASE("text: trims drop ASCII white space, newlines included", "[core][text]") {
  CHECK(text::ltrim(" \t\nmsg \n") == "msg \n");
  CHECK(text::rtrim(" msg \r\n") == " msg");
  CHECK(text::trim("\v msg\f") == "msg");
}

TEST_CASE("text: read_uint reads a bounded number of digits and advances", "[core][text]") {
  std::size_t pos = 1;
  std::uint64_t v = 0;
  CHECK(text::read_uint("x12345y", pos, 3, v));
  CHECK(v == 123);
  CHECK(pos == 4);
  CHECK(text::read_uint("x12345y", pos, 20, v));
  CHECK(v == 45);
  CHECK(pos == 6);
  CHECK_FALSE(text::read_uint("x12345y", pos, 20, v));
  CHECK(pos == 6);
}

TEST_CASE("text: English month abbreviations in any case", "[core][text]") {
  CHECK(text::month_abbreviation("Jan") == 1);
  CHECK(text::month_abbreviation("dec") == 12);
  CHECK(text::month_abbreviation("SEP") == 9);
  CHECK(text::month_abbreviation("Sept") == 0);
  CHECK(text::month_abbreviation("Mai") == 0);
  CHECK(text::month_abbreviation("") == 0);
}

TEST_CASE("printable: control characters shown escaped, as journalctl shows untrusted text", "[text][security]") {
  using gpucost::text::printable;
  CHECK(printable("plain text, ümlauts, 4090") == "plain text, ümlauts, 4090");
  CHECK(printable("\x1b]0;owned\a") == "\\x1b]0;owned\\a");                         // the terminal's title
  CHECK(printable("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m");                 // colours
  CHECK(printable("ok\ngpucost: error: forged") == "ok\\ngpucost: error: forged");  // no new line
  CHECK(printable("a\tb\rc\x7f") == "a\\tb\\rc\\x7f");
  CHECK(printable("\xc2\x9b"
                  "2J") == "\\u009b2J");              // C1 CSI
  CHECK(printable("x\xe2\x80\xaey") == "x\\u202ey");  // right-to-left override
  CHECK(printable("\xff") == "\xEF\xBF\xBD");         // not UTF-8
}

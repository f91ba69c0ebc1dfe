// core/text: the formatting rules every people-facing output shares (docs/outputs.md, "Units"):
// a duration in minutes below 2 h and in hours from 2 h on, counted nouns, and rounding noise as 0.
#include <catch2/catch.hpp>

#include <gpucost/core/text.hpp>

#include <limits>

using gpucost::text::counted;
using gpucost::text::duration_hours;
using gpucost::text::short_number;

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

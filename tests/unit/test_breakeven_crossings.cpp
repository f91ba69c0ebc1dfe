// breakeven: T* and T_λ on the same billing function as the premium (so the minimum bill counts), against
// hand-computed cases; docs/cost-model.md, "Break-even job length T*".
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/crossings.hpp>

#include <cstddef>
#include <vector>

namespace {

using namespace gpucost;
using breakeven::Billing;
using breakeven::Crossing;
using breakeven::Crossings;
using gpucost::testing::reference_job;

// rate, q, cold start, increment, minimum, fixed
Billing billing(double rate, double q, double cold_start_s, double increment_s, double minimum_s, double fixed) {
  return Billing{rate, q, cold_start_s, increment_s, minimum_s, fixed};
}

std::vector<double> hours_of(const Crossings& c) {
  std::vector<double> out;
  for (const Crossing& p : c.points) out.push_back(p.hours);
  return out;
}

// Just below and just above each crossing (and between crossings) the sign of c_L T - f C_C(T),
// computed by the premium's billing function, is the one the crossing states.
void check_signs_agree(double c_L, const Billing& b, double f, const Crossings& c) {
  REQUIRE(c.omitted == 0);
  std::vector<double> probes;
  double prev = 0;
  for (const Crossing& p : c.points) {
    if (p.hours > prev) probes.push_back((prev + p.hours) / 2);
    prev = p.hours;
  }
  probes.push_back(prev + 1.0);
  for (double t : probes) {
    std::size_t beaten_below = 0;  // crossings below t that turn to "beaten"
    for (const Crossing& p : c.points)
      if (p.hours < t) beaten_below += p.local_cheaper_below ? 1 : 0;
    std::size_t back_below = 0;
    for (const Crossing& p : c.points)
      if (p.hours < t) back_below += p.local_cheaper_below ? 0 : 1;
    const bool beaten = beaten_below > back_below;
    INFO("T = " << t);
    CHECK((c_L * t > f * breakeven::cloud_cost(b, t)) == beaten);
  }
}

// The reference job of test_breakeven_cost_model.cpp: W = 2 h, C_L = 1.863710372, ū = 0.75.
// docs/cost-model.md's reference case at a cloud rate of 0.5 per hour.
breakeven::CostConfig reference_config() {
  breakeven::CostConfig c = testing::reference_config();
  c.rate_per_hour = 0.5;
  return c;
}

}  // namespace

TEST_CASE("crossings: the issue's 10 h minimum and a 20-minute job", "[breakeven][crossings]") {
  // rate 1.00/h, q = 1, cold start 60 s, per-second billing, minimum 36000 s; the 20-minute job
  // cost 1.20 locally, so c_L = 1.20 / (1/3 h) = 3.60/h. Its cloud bill is the minimum:
  // 1.00 x 36000 / 3600 = 10.00, premium 1.20 / 10 - 1 = -0.88. The closed form ignored the
  // minimum: k = 1.00 x 60 / 3600 = 0.016667, T* = 0.016667 / (3.60 - 1.00) = 0.00641 h = 23 s.
  const Billing b = billing(1.0, 1.0, 60, 1, 36000, 0);
  CHECK(breakeven::cloud_cost(b, 1.0 / 3.0) == Approx(10.0));
  // Up to (36000 - 60) / 3600 = 9.983 h the cloud bills 10.00: local reaches it at 10 / 3.6 = 2.778 h.
  // Beyond, the cloud adds 1.00/h and local 3.60/h: the cloud stays cheaper.
  const Crossings t = breakeven::solve_crossings(3.6, b, 1.0);
  REQUIRE(t.points.size() == 1);
  CHECK(t.points[0].hours == Approx(10.0 / 3.6));
  CHECK(t.points[0].hours == Approx(2.7777777778));
  CHECK(t.points[0].local_cheaper_below);
  check_signs_agree(3.6, b, 1.0, t);
  // The line (12 %): 3.6 T = 1.12 x 10 -> T_λ = 11.2 / 3.6 = 3.111 h.
  const Crossings line = breakeven::solve_crossings(3.6, b, 1.12);
  REQUIRE(line.points.size() == 1);
  CHECK(line.points[0].hours == Approx(3.1111111111));
}

TEST_CASE("crossings: per-second billing without a minimum gives the closed forms", "[breakeven][crossings]") {
  // c_L = 0.931855186, rate 0.5, q = 0.625, cold start 300 s, fixed 0.5:
  // k = 0.5 x 300 / 3600 + 0.5 = 0.541667; T* = k / (c_L - 0.3125) = 0.874565 h, bit for bit.
  const double c_L = 1.8637103718 / 2;
  const Billing b = billing(0.5, 0.625, 300, 1, 0, 0.5);
  const double k = 0.5 * 300 / 3600.0 + 0.5;
  const Crossings t = breakeven::solve_crossings(c_L, b, 1.0);
  REQUIRE(t.points.size() == 1);
  CHECK(t.points[0].hours == k / (c_L - 0.5 * 0.625));
  CHECK(t.points[0].hours == Approx(0.8745654820));
  // T_λ = 1.12 k / (c_L - 1.12 x 0.3125) = 1.042642 h
  const Crossings line = breakeven::solve_crossings(c_L, b, 1.12);
  REQUIRE(line.points.size() == 1);
  CHECK(line.points[0].hours == (1.0 + 0.12) * k / (c_L - (1.0 + 0.12) * 0.5 * 0.625));
  SECTION("with nothing per job the cloud is cheaper from T = 0") {
    // k = 0: T* = 0 / (c_L - 0.3125) = 0, as the closed form says.
    const Crossings z = breakeven::solve_crossings(c_L, billing(0.5, 0.625, 0, 1, 0, 0), 1.0);
    REQUIRE(z.points.size() == 1);
    CHECK(z.points[0].hours == 0.0);
  }
  SECTION("a minimum that the crossing falls into is respected") {
    // minimum 3600 s: up to (3600 - 300) / 2250 = 1.4667 h the cloud bills 0.5 + 0.5 = 1.0;
    // local reaches it at 1.0 / 0.931855 = 1.073127 h, past the closed form's 0.874565 h.
    const Crossings m = breakeven::solve_crossings(c_L, billing(0.5, 0.625, 300, 1, 3600, 0.5), 1.0);
    REQUIRE(m.points.size() == 1);
    CHECK(m.points[0].hours == Approx(1.0 / c_L));
    CHECK(m.points[0].hours == Approx(1.0731275));
  }
}

TEST_CASE("crossings: hourly increments alternate", "[breakeven][crossings]") {
  // rate 3/h, q = 1, billed by the whole hour, nothing else; c_L = 4/h. A job in (n - 1, n] h
  // is billed 3n: local is dearer from 3n / 4 to n, then cheaper again after the next hour
  // starts: 0.75..1, 1.5..2, 2.25..3, and from 3 h on (12 / 4 = 3) the whole hour.
  const Billing b = billing(3.0, 1.0, 0, 3600, 0, 0);
  const Crossings t = breakeven::solve_crossings(4.0, b, 1.0);
  REQUIRE(hours_of(t) == std::vector<double>{0.75, 1.0, 1.5, 2.0, 2.25});
  CHECK(t.points[0].local_cheaper_below);
  CHECK_FALSE(t.points[1].local_cheaper_below);
  CHECK(t.points[4].local_cheaper_below);
  check_signs_agree(4.0, b, 1.0, t);
  const auto local = breakeven::local_side_stretches(t);
  REQUIRE(local.size() == 3);
  CHECK(local[0].from == 0.0);
  CHECK(local[0].to == 0.75);
  CHECK(local[1].from == 1.0);
  CHECK(local[1].to == 1.5);
  CHECK(local[2].from == 2.0);
  CHECK(local[2].to == 2.25);
}

TEST_CASE("crossings: a fixed fee with hourly billing", "[breakeven][crossings]") {
  // rate 2/h, fixed 1, hourly; c_L = 2.5/h. Hour n costs 2n + 1, local reaches it at (2n + 1) / 2.5:
  // n = 1: 1.2 > 1 (never), n = 2: 2.0 = 2 (touches, no sign change), n = 3: 2.8, n = 4: 3.6,
  // n = 5: 4.4, n = 6: 5.2, n = 7: 6.0 = the start of hour 7, so from 5.2 h on local is dearer.
  // The closed form (no rounding) said T* = 1 / (2.5 - 2) = 2 h.
  const Billing b = billing(2.0, 1.0, 0, 3600, 0, 1.0);
  const Crossings t = breakeven::solve_crossings(2.5, b, 1.0);
  const std::vector<double> expected{2.8, 3.0, 3.6, 4.0, 4.4, 5.0, 5.2};
  REQUIRE(t.points.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) CHECK(t.points[i].hours == Approx(expected[i]));
  check_signs_agree(2.5, b, 1.0, t);
}

TEST_CASE("crossings: cold start and per-minute billing", "[breakeven][crossings]") {
  // The reference job at 0.5/h: c_L = 0.931855, q = 0.625, cold start 300 s, per minute, minimum
  // 600 s, fixed 0.5. The closed form's 0.874565 h bills 0.625 x 0.874565 x 3600 + 300 = 2267.8 s,
  // rounded up to 2280 s (38 minutes): C_C = 0.5 x 2280 / 3600 + 0.5 = 0.816667, which local
  // reaches at 0.816667 / 0.931855 = 0.876388 h; minute 38 ends at (2280 - 300) / 2250 = 0.88 h.
  // Minute 39 costs 0.825, reached at 0.885331 h; minute 40 costs 0.833333, reached at
  // 0.894273 h, before minute 39 ends (0.906667 h): local is dearer from 0.885331 h on.
  const double c_L = 1.8637103718 / 2;
  const Billing b = billing(0.5, 0.625, 300, 60, 600, 0.5);
  const Crossings t = breakeven::solve_crossings(c_L, b, 1.0);
  REQUIRE(t.points.size() == 3);
  CHECK(t.points[0].hours == Approx(0.8763879614));
  CHECK(t.points[1].hours == Approx(0.88));
  CHECK(t.points[2].hours == Approx(0.8853306957));
  check_signs_agree(c_L, b, 1.0, t);
  // The line: 1.042642 h bills 2645.9 s -> 2700 s, C_C = 0.875; 1.12 x 0.875 / c_L = 1.051666 h
  // < 1.066667 h (end of minute 45); minute 46 (0.883333) is reached at 1.061681 h, before
  // minute 45 ends: one crossing.
  const Crossings line = breakeven::solve_crossings(c_L, b, 1.12);
  REQUIRE(line.points.size() == 1);
  CHECK(line.points[0].hours == Approx(1.0516655536));
  check_signs_agree(c_L, b, 1.12, line);
}

TEST_CASE("crossings: none when local costs no more per hour than the cloud", "[breakeven][crossings]") {
  // c_L = 1.9/h against 2/h billed per hour from a 10 h minimum: at each hour's end the cloud
  // bills 2 T >= 1.9 T, and inside the minimum 20 > 1.9 x 10.
  const Billing b = billing(2.0, 1.0, 0, 3600, 36000, 0);
  CHECK(breakeven::solve_crossings(1.9, b, 1.0).points.empty());
  CHECK(breakeven::solve_crossings(0.0, b, 1.0).points.empty());  // a free local side
  const auto local = breakeven::local_side_stretches(breakeven::solve_crossings(1.9, b, 1.0));
  REQUIRE(local.size() == 1);
  CHECK(local[0].to < 0);
}

TEST_CASE("crossings: a long run of rounding flips is listed at both ends", "[breakeven][crossings]") {
  // c_L = 1.001/h against 1/h billed per minute: minute n costs n / 60 and is reached at
  // t_n = n / 60.06 h, before it ends at n / 60 h; it starts beaten once t_n <= (n - 1) / 60,
  // n >= 1001. Minutes 1 .. 1000 are beaten in part: 2 x 1000 crossings, less the last way out
  // (minute 1001 joins it). Only 64 minutes are walked, 32 at each end of the run.
  const Billing b = billing(1.0, 1.0, 0, 60, 0, 0);
  const Crossings t = breakeven::solve_crossings(1.001, b, 1.0);
  CHECK(t.points.size() <= 2 * breakeven::kMaxFlipSteps);
  CHECK(t.omitted % 2 == 0);
  CHECK(t.points.size() + t.omitted == 2 * 1000 - 1);
  for (std::size_t i = 0; i < t.points.size(); ++i) CHECK(t.points[i].local_cheaper_below == (i % 2 == 0));
  for (std::size_t i = 1; i < t.points.size(); ++i) CHECK(t.points[i].hours > t.points[i - 1].hours);
  // The cloud is cheaper for good from t_1000 = 1000 / 60.06 = 16.65 h.
  CHECK(t.points.back().hours == Approx(1000.0 / 60.06));
  CHECK(t.points.back().local_cheaper_below);
}

TEST_CASE("crossings: evaluate reports the first crossing and keeps H* per job", "[breakeven][crossings]") {
  // The reference job at 0.5/h with a 10 h minimum: C_C = 0.5 x 36000 / 3600 + 0.5 = 5.5,
  // premium = 1.863710 / 5.5 - 1 = -0.661. Local reaches 5.5 at 5.5 / 0.931855 = 5.902205 h,
  // inside the minimum (which lasts to (36000 - 300) / 2250 = 15.867 h); minute 601 costs 5.508,
  // reached at 5.911 h, long before: one crossing. The line: 1.12 x 5.5 / 0.931855 = 6.610469 h.
  breakeven::CostConfig c = reference_config();
  c.billing_minimum_s = 36000;
  const auto r = breakeven::compute(c, reference_job());
  CHECK(r.cloud_total == Approx(5.5));
  CHECK(r.premium == Approx(1.8637103718 / 5.5 - 1));
  REQUIRE(r.job_hours.value);
  CHECK(*r.job_hours.value == Approx(5.9022046378));
  CHECK(r.job_crossings.points.size() == 1);
  REQUIRE(r.line_job_hours.value);
  CHECK(*r.line_job_hours.value == Approx(6.6104691944));
  // The premium agrees: this 2 h job is shorter than T*, and local is cheaper.
  CHECK(r.premium < 0);
  CHECK(r.job.wall_h < *r.job_hours.value);
  // H* from this job's costs: r = C_C / W = 5.5 / 2 = 2.75 (the minimum billed), v = 0.396 / 2 = 0.198,
  // F = 1500: H* = 1500 / (2.75 - 0.198) = 587.77 h/year.
  REQUIRE(r.use_hours_per_year.value);
  CHECK(*r.use_hours_per_year.value == Approx(587.7742947));
}

// breakeven: the cost model (docs/cost-model.md) against hand-computed cases.
// The reference case is the worked example of docs/cost-model.md.
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/extract.hpp>

#include <string>

namespace {

using namespace gpucost;
using breakeven::CostConfig;
using breakeven::JobInputs;
using gpucost::testing::reference_config;
using gpucost::testing::reference_job;

extract::IndicatorValue v(double x) { return {x, {}}; }
extract::IndicatorValue none(const std::string& why) { return {std::nullopt, why}; }

}  // namespace

TEST_CASE("breakeven: reference case, every key by hand", "[breakeven]") {
  const auto r = breakeven::compute(reference_config(), reference_job());

  CHECK(r.energy_kwh == Approx(0.9));  // Σ E_g = 0.5 + 0.4
  CHECK(r.util_mean == Approx(0.75));  // ū = (0.6 + 0.9) / 2
  // C_e = 1.2 x 0.30 x (0.9 + 100 x 2 / 1000) = 0.36 x 1.1 = 0.396
  CHECK(r.electricity == Approx(0.396));
  // C_a = 3000 x (1 - 0) / (3 x 2044) x 2 = 6000 / 6132 = 0.978473581...
  CHECK(r.amortisation == Approx(6000.0 / 6132.0));
  CHECK(r.amortisation == Approx(0.9784735812));
  // C_m = 50 x 10 / 2044 x 2 = 1000 / 2044 = 0.489236790...
  CHECK(r.maintenance == Approx(1000.0 / 2044.0));
  CHECK(r.maintenance == Approx(0.4892367906));
  // C_L = 0.396 + 0.978473581 + 0.489236791 = 1.863710372
  CHECK(r.local_total == Approx(1.8637103718));
  // q = (1 - 0.75) + 0.75 / 2 = 0.25 + 0.375 = 0.625
  CHECK(r.q == Approx(0.625));
  // billed = max(600, ceil((0.625 x 2 x 3600 + 300) / 60) x 60) = max(600, ceil(4800 / 60) x 60) = 4800 s
  CHECK(r.billed_s == Approx(4800.0));
  // C_C = 2.0 x 4800 / 3600 + 0.5 = 2.666667 + 0.5 = 3.166667
  CHECK(r.cloud_total == Approx(19.0 / 6.0));
  // premium = 1.863710372 / 3.166666667 - 1 = 0.588540117 - 1 = -0.411459883
  CHECK(r.premium == Approx(-0.4114598826));
  CHECK(r.line == Approx(0.12));
  CHECK_FALSE(r.above_line);  // -0.41 > 0.12 is false
  // c_L = 1.863710372 / 2 = 0.931855186; rate x q = 2.0 x 0.625 = 1.25
  // T*: denominator 0.931855186 - 1.25 = -0.318 <= 0 -> none
  CHECK_FALSE(r.job_hours.value.has_value());
  CHECK(r.job_hours.reason.find("local is cheaper at every job length") != std::string::npos);
  // T_λ: denominator 0.931855186 - 1.12 x 1.25 = 0.931855186 - 1.4 = -0.468 <= 0 -> none
  CHECK_FALSE(r.line_job_hours.value.has_value());
  CHECK(r.line_job_hours.reason.find("below the line at every job length") != std::string::npos);
  // H*: F = 3000 x (1 - 0) / 3 + 50 x 10 = 1000 + 500 = 1500 per year
  //     v = 0.396 / 2 = 0.198 per hour, r = 3.166667 / 2 = 1.583333 per hour
  //     H* = 1500 / (1.583333 - 0.198) = 1500 / 1.385333 = 1082.77 h per year
  REQUIRE(r.use_hours_per_year.value.has_value());
  CHECK(*r.use_hours_per_year.value == Approx(1082.771896));
}

TEST_CASE("breakeven: reference case at 0.5/h has T*, T_λ and an above-line premium", "[breakeven]") {
  CostConfig c = reference_config();
  c.rate_per_hour = 0.5;
  const auto r = breakeven::compute(c, reference_job());
  // Local side unchanged: C_L = 1.863710372.
  CHECK(r.local_total == Approx(1.8637103718));
  // C_C = 0.5 x 4800 / 3600 + 0.5 = 0.666667 + 0.5 = 1.166667
  CHECK(r.cloud_total == Approx(7.0 / 6.0));
  // premium = 1.863710372 / 1.166666667 - 1 = 0.597466033 > 0.12
  CHECK(r.premium == Approx(0.5974660330));
  CHECK(r.above_line);
  // k = 0.5 x 300 / 3600 + 0.5 = 0.041667 + 0.5 = 0.541667 (= 13 / 24); the line rate x q + k
  // meets c_L T at 0.541667 / (0.931855186 - 0.5 x 0.625) = 0.874565 h, which bills
  // 0.625 x 0.874565 x 3600 + 300 = 2267.8 s, rounded up to 2280 s: C_C = 0.5 x 2280 / 3600 + 0.5
  // = 0.816667, reached at T* = 0.816667 / 0.931855186 = 0.876388 h (test_breakeven_crossings.cpp).
  REQUIRE(r.job_hours.value.has_value());
  CHECK(*r.job_hours.value == Approx(0.8763879614));
  // T_λ: 1.042642 h bills 2645.9 s -> 2700 s, C_C = 0.875; 1.12 x 0.875 / 0.931855186 = 1.051666 h
  REQUIRE(r.line_job_hours.value.has_value());
  CHECK(*r.line_job_hours.value == Approx(1.0516655536));
  // H* = 1500 / (1.166667 / 2 - 0.198) = 1500 / (0.583333 - 0.198) = 1500 / 0.385333 = 3892.73 h/y
  REQUIRE(r.use_hours_per_year.value.has_value());
  CHECK(*r.use_hours_per_year.value == Approx(3892.733564));
}

TEST_CASE("breakeven: T*, T_λ and H* are where the costs meet", "[breakeven]") {
  // Local costs are linear in W and, with a 1 µs increment and no minimum, so is the cloud's; a job
  // of length T* then costs the same on both sides, one of length T_λ sits on the line, and
  // use_hours_per_year = H* makes the hourly costs equal.
  CostConfig c = reference_config();
  c.rate_per_hour = 0.5;
  c.billing_increment_s = 1e-6;
  c.billing_minimum_s = 0;
  const auto base = breakeven::compute(c, reference_job());
  REQUIRE(base.job_hours.value);
  REQUIRE(base.line_job_hours.value);
  REQUIRE(base.use_hours_per_year.value);

  const auto scaled = [](double hours) {
    JobInputs j = reference_job();
    const double s = hours / j.wall_h;  // energy scales with the job
    j.wall_h = hours;
    for (double& e : j.energy_kwh) e *= s;
    return j;
  };
  CHECK(breakeven::compute(c, scaled(*base.job_hours.value)).premium == Approx(0.0).margin(1e-6));
  CHECK(breakeven::compute(c, scaled(*base.line_job_hours.value)).premium == Approx(0.12).margin(1e-6));
  CostConfig at_h = c;
  at_h.use_hours_per_year = *base.use_hours_per_year.value;
  // v + F / H* = r exactly when there is no fixed cost per job; with one, r includes it for W = 2 h.
  const auto r = breakeven::compute(at_h, reference_job());
  CHECK(r.local_total == Approx(r.cloud_total));
}

TEST_CASE("breakeven: residual fraction reduces amortisation and F", "[breakeven]") {
  CostConfig c = reference_config();
  c.residual_fraction = 0.25;
  const auto r = breakeven::compute(c, reference_job());
  // C_a = 3000 x (1 - 0.25) / (3 x 2044) x 2 = 4500 / 6132 = 0.733855186
  CHECK(r.amortisation == Approx(4500.0 / 6132.0));
  // F = 3000 x 0.75 / 3 + 500 = 750 + 500 = 1250; H* = 1250 / (1.583333 - 0.198) = 902.31 h/y
  REQUIRE(r.use_hours_per_year.value);
  CHECK(*r.use_hours_per_year.value == Approx(1250.0 / (19.0 / 12.0 - 0.198)));
  CHECK(*r.use_hours_per_year.value == Approx(902.3099134));
}

TEST_CASE("breakeven: billing minimum and increment rounding", "[breakeven]") {
  CostConfig c = reference_config();
  JobInputs j = reference_job();
  SECTION("a short job pays the minimum") {
    // W = 0.05 h = 180 s, q = 0.625: 0.625 x 180 + 300 = 412.5 s -> ceil(412.5 / 60) = 7 -> 420 s;
    // max(600, 420) = 600 s
    j.wall_h = 0.05;
    const auto r = breakeven::compute(c, j);
    CHECK(r.billed_s == 600.0);
    CHECK(r.cloud_total == Approx(2.0 * 600 / 3600 + 0.5));  // 0.333333 + 0.5
  }
  SECTION("a partial increment is billed whole") {
    // cold start 330 s: 4500 + 330 = 4830 s -> ceil(80.5) = 81 increments -> 4860 s
    c.cold_start_s = 330;
    CHECK(breakeven::compute(c, j).billed_s == 4860.0);
  }
  SECTION("hourly billing") {
    // 4800 s -> ceil(4800 / 3600) = 2 hours -> 7200 s; C_C = 2.0 x 2 + 0.5 = 4.5
    c.billing_increment_s = 3600;
    const auto r = breakeven::compute(c, j);
    CHECK(r.billed_s == 7200.0);
    CHECK(r.cloud_total == Approx(4.5));
  }
  SECTION("a whole number of seconds is not rounded up by the h -> s conversion") {
    // W = 57 s / 3600 h, ū = 0 -> q = 1, per-second billing, no cold start, no minimum:
    // billed = ceil(1 x (57 / 3600) x 3600) = 57 s (57 / 3600 x 3600 is 57.000000000000007 in doubles)
    c.cold_start_s = 0;
    c.billing_increment_s = 1;
    c.billing_minimum_s = 0;
    j.wall_h = 57.0 / 3600.0;
    j.util = {0.0, 0.0};
    const auto r = breakeven::compute(c, j);
    CHECK(r.q == 1.0);
    CHECK(r.billed_s == 57.0);
  }
  SECTION("speed ratio 1 bills the wall time") {
    // q = 0.25 + 0.75 / 1 = 1; 7200 + 300 = 7500 s = 125 x 60
    c.speed_ratio = 1.0;
    const auto r = breakeven::compute(c, j);
    CHECK(r.q == Approx(1.0));
    CHECK(r.billed_s == 7500.0);
  }
}

TEST_CASE("breakeven: no use per year breaks even when electricity outruns the cloud", "[breakeven]") {
  CostConfig c = reference_config();
  c.price_per_kwh = 10;
  const auto r = breakeven::compute(c, reference_job());
  // v = 1.2 x 10 x 1.1 / 2 = 6.6 per hour >= r = 3.166667 / 2 = 1.583333 -> none
  CHECK(r.electricity == Approx(13.2));
  CHECK_FALSE(r.use_hours_per_year.value.has_value());
  // The reason names the term: electricity 13.2 / 2 = 6.60 per job hour against 3.166667 / 2 = 1.58.
  CHECK(
      r.use_hours_per_year.reason ==
      "electricity 6.60 USD per job hour alone exceeds the cloud's 1.58 USD per job hour: no use per year breaks even");
}

TEST_CASE("breakeven: no use per year, the reason names incident labour", "[breakeven]") {
  CostConfig c = reference_config();
  JobInputs j = reference_job();
  extract::WindowFault fault;  // one fault, priced once at its bucket
  fault.bucket = "contact_support";
  fault.count = 1;
  j.faults.push_back(fault);
  const auto r = breakeven::compute(c, j);
  // C_i = 50 x 8 = 400; 400 / 2 = 200.00 per job hour, electricity 0.198, cloud 1.58.
  CHECK_FALSE(r.use_hours_per_year.value.has_value());
  CHECK(r.use_hours_per_year.reason.rfind("incident labour 200.00 USD per job hour alone exceeds the cloud's 1.58 USD",
                                          0) == 0);
  // A small incident: reset_gpu at 0.05 h gives C_i = 2.5, 1.25 per job hour; with electricity
  // 0.198 that is 1.448 < 1.583: H* exists again.
  j.faults.front().bucket = "reset_gpu";
  c.incident_reset_gpu_h = 0.05;
  CHECK(breakeven::compute(c, j).use_hours_per_year.value.has_value());
  // At 0.06 h: 1.5 + 0.198 = 1.698 > 1.583, neither alone: "together exceed".
  c.incident_reset_gpu_h = 0.06;
  const auto both = breakeven::compute(c, j);
  CHECK_FALSE(both.use_hours_per_year.value.has_value());
  CHECK(both.use_hours_per_year.reason.find("electricity 0.20 USD and incident labour 1.50 USD per job hour together "
                                            "exceed") != std::string::npos);
}

TEST_CASE("breakeven: T_λ may not exist while T* does", "[breakeven]") {
  // rate 0.8, speed 2: rate x q = 0.5; c_L = 0.931855. T* denominator 0.431855 > 0;
  // line: 0.931855 - 1.12 x 0.5 = 0.371855 > 0 too. Raise the line to 1.0: 0.931855 - 2 x 0.5 < 0 -> none.
  CostConfig c = reference_config();
  c.rate_per_hour = 0.8;
  c.line = 1.0;
  const auto r = breakeven::compute(c, reference_job());
  REQUIRE(r.job_hours.value);
  // k = 0.8 x 300 / 3600 + 0.5 = 0.566667; the line meets c_L T at 0.566667 / 0.431855 = 1.312169 h,
  // billed 0.625 x 1.312169 x 3600 + 300 = 3252.4 s -> 3300 s: T* = (0.8 x 3300 / 3600 + 0.5) / c_L
  // = 1.233333 / 0.931855 = 1.323525 h.
  CHECK(*r.job_hours.value == Approx((0.8 * 3300 / 3600 + 0.5) / (1.8637103718 / 2)));
  CHECK_FALSE(r.line_job_hours.value);
  CHECK_FALSE(r.line_job_hours.reason.empty());
}

TEST_CASE("breakeven: job_inputs takes W, E_g and u_g from the features", "[breakeven]") {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = 5'400'000'000'000;  // 5400 s = 1.5 h
  f.gpus.emplace_back().indicators = {{"energy_kwh", v(0.3)}, {"util_mean", v(0.4)}};
  f.gpus.emplace_back().indicators = {{"energy_kwh", v(0.2)}, {"util_mean", v(0.8)}};
  f.gpus.back().gpu = 1;
  auto in = breakeven::job_inputs(f);
  REQUIRE(in.has_value());
  CHECK(in->wall_h == Approx(1.5));
  CHECK(in->energy_kwh == std::vector<double>{0.3, 0.2});
  CHECK(in->util == std::vector<double>{0.4, 0.8});
  CHECK_FALSE(in->util_assumed);

  SECTION("utilisation unknown: u_g = 1 assumed and flagged") {
    f.gpus[1].indicators["util_mean"] = none("no utilisation samples (MIG mode prints none)");
    auto in2 = breakeven::job_inputs(f);
    REQUIRE(in2.has_value());
    CHECK(in2->util == std::vector<double>{0.4, 1.0});
    CHECK(in2->util_assumed);
    // ū = (0.4 + 1) / 2 = 0.7
    CHECK(breakeven::compute(reference_config(), *in2).util_mean == Approx(0.7));
  }
  SECTION("no utilisation anywhere: ū = 1, q = 1 / speed_ratio") {
    f.gpus[0].indicators.erase("util_mean");
    f.gpus[1].indicators.erase("util_mean");
    auto in2 = breakeven::job_inputs(f);
    REQUIRE(in2.has_value());
    CHECK(in2->util_assumed);
    const auto r = breakeven::compute(reference_config(), *in2);
    CHECK(r.util_mean == 1.0);
    CHECK(r.q == Approx(0.5));  // 0 + 1 / 2
  }
  SECTION("a GPU without energy is an error naming it") {
    f.gpus[1].indicators["energy_kwh"] = none("no power samples");
    auto bad = breakeven::job_inputs(f);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().message.find("GPU 1") != std::string::npos);
    CHECK(bad.error().message.find("no power samples") != std::string::npos);
    CHECK_FALSE(bad.error().hint.empty());
  }
  SECTION("a 0 s window is an error") {
    f.to_ns = f.from_ns;
    auto bad = breakeven::job_inputs(f);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().message.find("0 s") != std::string::npos);
  }
  SECTION("no GPU is an error") {
    f.gpus.clear();
    CHECK_FALSE(breakeven::job_inputs(f).has_value());
  }
}

TEST_CASE("breakeven: defaults of the config are the issue's", "[breakeven]") {
  // cooling 1, system 0 W, residual 0, wage 0, maintenance 0, speed 1, cold 0, increment 1, minimum 0, fixed 0
  CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.rate_per_hour = 2.0;
  JobInputs j;
  j.wall_h = 1.0;
  j.energy_kwh = {0.25};
  j.util = {0.5};
  const auto r = breakeven::compute(c, j);
  CHECK(r.electricity == Approx(0.075));             // 1 x 0.30 x 0.25
  CHECK(r.amortisation == Approx(3000.0 / 6132.0));  // 3000 / (3 x 2044) x 1
  CHECK(r.maintenance == 0.0);
  CHECK(r.q == Approx(1.0));            // 0.5 + 0.5 / 1
  CHECK(r.billed_s == 3600.0);          // ceil(3600 / 1) x 1
  CHECK(r.cloud_total == Approx(2.0));  // 2.0 x 3600 / 3600 + 0
  // k = 0: T* = 0 / (c_L - 2) with c_L = 0.075 + 0.489237 = 0.564237 < 2 -> none
  CHECK_FALSE(r.job_hours.value);
  // H* = 1000 / (2 - 0.075) = 519.48 h/y
  REQUIRE(r.use_hours_per_year.value);
  CHECK(*r.use_hours_per_year.value == Approx(1000.0 / 1.925));
}

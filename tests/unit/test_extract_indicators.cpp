// extract: every indicator of the catalogue against a hand-computed expectation. Each series
// is small enough to integrate on paper; the arithmetic is written next to each assertion.
#include <catch2/catch.hpp>

#include "indicator_checks.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/extract/indicator_key.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace gpucost;
using gpucost::extract::Features;
using gpucost::extract::IndicatorSet;
using gpucost::testing::absent_reason;
using gpucost::testing::value;

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // 2023-11-14T22:13:20Z
constexpr double kJPerKwh = 3.6e6;

std::int64_t at(double t_s) { return kT0 + static_cast<std::int64_t>(std::llround(t_s * 1e9)); }

/// One telemetry row: time (s after kT0) and the four metrics extract uses; kNone = not in the row.
struct Row {
  double t_s;
  double power_w = kNone, sm_pct = kNone, temp_c = kNone, pclk_mhz = kNone;
  int gpu = 0;
};

void feed(extract::SampleCollector& c, const std::vector<Row>& rows, std::string_view kind = "sample") {
  for (const Row& r : rows) {
    Event ev;
    ev.ts_ns = at(r.t_s);
    ev.source = "dmon";
    ev.host = "node1";
    ev.gpu = r.gpu;
    ev.kind = kind;
    if (!std::isnan(r.power_w)) ev.set(Metric::power_w, r.power_w);
    if (!std::isnan(r.sm_pct)) ev.set(Metric::sm_pct, r.sm_pct);
    if (!std::isnan(r.temp_c)) ev.set(Metric::temp_c, r.temp_c);
    if (!std::isnan(r.pclk_mhz)) ev.set(Metric::pclk_mhz, r.pclk_mhz);
    c.on_event(ev);
  }
}

Features features_of(const std::vector<Row>& rows, extract::ExtractOptions options = {}) {
  extract::SampleCollector c;
  feed(c, rows);
  auto f = extract::compute_features(c, options);
  REQUIRE(f.has_value());
  return *f;
}

const IndicatorSet& gpu(const Features& f, int index) {
  for (const auto& g : f.gpus)
    if (g.gpu == index) return g.indicators;
  FAIL("no GPU " << index);
  return f.gpus.front().indicators;
}

// The reference series of GPU 0: seven samples, one 16 s gap.
//   t (s)   power W   sm %   temp °C   pclk MHz
//    0        100       0      70       1000
//    1        200      50      80       1500
//    2        200     100      79       2000
//    3        100       0      78       2000
//    4        300     100      90        500
//   20        200      80      85       1000
//   21        400      40      60       1800
const std::vector<Row> kReference = {
    {0, 100, 0, 70, 1000},  {1, 200, 50, 80, 1500},  {2, 200, 100, 79, 2000}, {3, 100, 0, 78, 2000},
    {4, 300, 100, 90, 500}, {20, 200, 80, 85, 1000}, {21, 400, 40, 60, 1800},
};

}  // namespace

TEST_CASE("extract: gap limit is max(10 s, 5 x median interval)", "[extract]") {
  CHECK(extract::gap_limit_s(0) == 10.0);    // max(10, 0)
  CHECK(extract::gap_limit_s(1) == 10.0);    // max(10, 5 x 1 = 5)
  CHECK(extract::gap_limit_s(2) == 10.0);    // max(10, 5 x 2 = 10)
  CHECK(extract::gap_limit_s(4) == 20.0);    // max(10, 5 x 4 = 20)
  CHECK(extract::gap_limit_s(60) == 300.0);  // max(10, 5 x 60 = 300)
}

TEST_CASE("extract: reference series, every GPU indicator by hand", "[extract]") {
  const Features f = features_of(kReference);
  const IndicatorSet& g = gpu(f, 0);
  REQUIRE(f.gpus.size() == 1);
  CHECK(f.chosen_by == "samples");
  CHECK(f.from_ns == at(0));
  CHECK(f.to_ns == at(21));
  CHECK(f.host == "node1");

  // Window: first to last sample = 21 - 0 = 21 s.
  CHECK(value(g, "wall_s") == Approx(21.0));
  CHECK(value(g, "samples") == 7.0);
  // Intervals 1, 1, 1, 1, 16, 1 -> sorted 1 1 1 1 1 16, even count: (1 + 1) / 2 = 1 s.
  CHECK(value(g, "sample_interval_median_s") == Approx(1.0));
  // Gap limit max(10, 5 x 1) = 10 s: the 16 s interval 4 -> 20 is a gap. Covered = 5 x 1 s = 5 s.
  // coverage = 5 / 21 = 0.238095...
  CHECK(value(g, "coverage") == Approx(5.0 / 21.0));

  // Energy, trapezoid over the covered intervals:
  //   [0,1] (100+200)/2 = 150   [1,2] (200+200)/2 = 200   [2,3] (200+100)/2 = 150
  //   [3,4] (100+300)/2 = 200   [20,21] (200+400)/2 = 300        sum = 1000 J over 5 s
  // mean covered power = 1000 / 5 = 200 W; uncovered = 21 - 5 = 16 s -> filled 200 x 16 = 3200 J
  // E = 1000 + 3200 = 4200 J = 4200 / 3.6e6 kWh = 0.0011666... kWh; filled share 3200 / 4200
  CHECK(value(g, "energy_kwh") == Approx(4200.0 / kJPerKwh));
  CHECK(value(g, "energy_filled_fraction") == Approx(3200.0 / 4200.0));
  CHECK(value(g, "power_mean_w") == Approx(200.0));
  CHECK(value(g, "power_max_w") == 400.0);  // the 21 s sample
  // p95, time-weighted: each sample weighs the covered interval it starts:
  //   100 (t0) 1 s, 200 (t1) 1 s, 200 (t2) 1 s, 100 (t3) 1 s, 200 (t20) 1 s; 300 (t4) starts the
  //   gap and 400 (t21) starts nothing -> weight 0. Sorted: 100 100 200 200 200, total 5 s,
  //   0.95 x 5 = 4.75 s is reached by the 5th -> 200 W.
  CHECK(value(g, "power_p95_w") == 200.0);

  // Utilisation, held (left sample holds) over covered intervals:
  //   0 x 1 + 50 x 1 + 100 x 1 + 0 x 1 + 80 x 1 = 230 %·s over 5 s = 46 % -> 0.46
  //   (the 100 % of t4 holds over the gap and does not count)
  CHECK(value(g, "util_mean") == Approx(0.46));
  // Idle: the intervals starting at t0 and t3 read 0 % -> 2 s / 5 s = 0.4
  CHECK(value(g, "idle_fraction") == Approx(0.4));

  // Temperature, held: (70 + 80 + 79 + 78 + 85) x 1 s / 5 s = 392 / 5 = 78.4 °C
  CHECK(value(g, "temp_mean_c") == Approx(78.4));
  CHECK(value(g, "temp_max_c") == 90.0);  // t4, a sample in the window, even though its interval is a gap
  // Above 78 °C (strictly): intervals starting at t1 (80), t2 (79), t20 (85) -> 3 s; t3 reads exactly 78.
  CHECK(value(g, "time_above_78c_s") == Approx(3.0));

  // SM clock, held: (1000 + 1500 + 2000 + 2000 + 1000) / 5 = 1500 MHz; max seen 2000 -> 0.75
  CHECK(value(g, "sm_clock_ratio") == Approx(0.75));

  // No host-only indicator on a GPU.
  CHECK(g.count("gpu_count") == 0);
}

TEST_CASE("extract: a gap of up to 10 s is bridged, one above 5 x median is not", "[extract]") {
  SECTION("8 s after 1 s intervals: 8 <= max(10, 5) -> covered") {
    // t 0 1 2 10, power 100 W throughout. Intervals 1 1 8, median 1, limit 10: all covered.
    const Features f = features_of({{0, 100}, {1, 100}, {2, 100}, {10, 100}});
    const IndicatorSet& g = gpu(f, 0);
    CHECK(value(g, "coverage") == Approx(1.0));                      // 10 / 10
    CHECK(value(g, "energy_kwh") == Approx(100.0 * 10 / kJPerKwh));  // 100 W x 10 s
    CHECK(value(g, "energy_filled_fraction") == Approx(0.0));
  }
  SECTION("25 s after 4 s intervals: median 4, limit 20 -> a gap") {
    // t 0 4 8 12 37: intervals 4 4 4 25, median (4 + 4) / 2 = 4, limit max(10, 20) = 20.
    // Covered 12 s of 37 s; power 100 W then 300 W in the last sample.
    const Features f = features_of({{0, 100}, {4, 100}, {8, 100}, {12, 100}, {37, 300}});
    const IndicatorSet& g = gpu(f, 0);
    CHECK(value(g, "sample_interval_median_s") == Approx(4.0));
    CHECK(value(g, "coverage") == Approx(12.0 / 37.0));
    // trapezoid 3 x 4 s x 100 W = 1200 J, mean 1200 / 12 = 100 W, filled 100 x (37 - 12) = 2500 J
    CHECK(value(g, "energy_kwh") == Approx(3700.0 / kJPerKwh));
    CHECK(value(g, "energy_filled_fraction") == Approx(2500.0 / 3700.0));
    CHECK(value(g, "power_max_w") == 300.0);
  }
  SECTION("19 s after 4 s intervals: 19 <= 20 -> bridged") {
    // t 0 4 8 12 31: covered 31 s of 31 s. Trapezoid 3 x 400 + (100 + 300) / 2 x 19 = 1200 + 3800 = 5000 J
    const Features f = features_of({{0, 100}, {4, 100}, {8, 100}, {12, 100}, {31, 300}});
    const IndicatorSet& g = gpu(f, 0);
    CHECK(value(g, "coverage") == Approx(1.0));
    CHECK(value(g, "energy_kwh") == Approx(5000.0 / kJPerKwh));
    CHECK(value(g, "power_mean_w") == Approx(5000.0 / 31.0));  // trapezoid energy / covered time
  }
}

TEST_CASE("extract: power p95 is weighted by time, not by sample count", "[extract]") {
  SECTION("300 W for 2 s of 20 s (10 %) is above the 95th percentile") {
    // t 0: 300 W, t 2: 100 W, t 20: 100 W. Intervals 2, 18, median 10, limit 50: covered.
    // Weights: 300 -> 2 s, 100 -> 18 s; total 20 s, 0.95 x 20 = 19 s; 100 W reaches 18 s < 19 -> 300 W.
    const Features f = features_of({{0, 300}, {2, 100}, {20, 100}});
    CHECK(value(gpu(f, 0), "power_p95_w") == 300.0);
  }
  SECTION("300 W for 1 s of 30 s (3.3 %) is not") {
    // Weights: 300 -> 1 s, 100 -> 29 s; 0.95 x 30 = 28.5 s, reached by 100 W (29 s) -> 100 W.
    // An unweighted p95 of the samples {300, 100, 100} would say 300 W.
    const Features f = features_of({{0, 300}, {1, 100}, {30, 100}});
    CHECK(value(gpu(f, 0), "power_p95_w") == 100.0);
  }
  SECTION("an exact boundary: 19 s of 20 s reach 0.95 x 20 = 19 s") {
    // 20 samples at 1 s: 100 W for t 0..18 (19 s), 500 W at t 19, 100 W at t 20.
    // 100 W holds 19 s of 20 s = exactly 95 % -> p95 = 100 W (not tipped to 500 by rounding).
    std::vector<Row> rows;
    for (int t = 0; t <= 20; ++t) rows.push_back({static_cast<double>(t), t == 19 ? 500.0 : 100.0});
    const Features f = features_of(rows);
    CHECK(value(gpu(f, 0), "power_p95_w") == 100.0);
    CHECK(value(gpu(f, 0), "power_max_w") == 500.0);
  }
}

TEST_CASE("extract: the catalogue row's host rule is the one its definition states", "[extract][catalogue]") {
  int sums = 0, maxima = 0, minima = 0;
  for (const extract::IndicatorDef& d : extract::catalogue()) {
    INFO(d.key << ": " << d.definition);
    const std::string_view def = d.definition;
    switch (d.host_combine) {
      case extract::HostCombine::sum:
        CHECK(def.find("(host: sum") != std::string_view::npos);
        ++sums;
        break;
      case extract::HostCombine::max:
        CHECK(def.find("(host: max over GPUs)") != std::string_view::npos);
        ++maxima;
        break;
      case extract::HostCombine::min:
        CHECK(def.find("(host: min over GPUs)") != std::string_view::npos);
        ++minima;
        break;
      case extract::HostCombine::mean:
        CHECK(def.find("(host: max over GPUs)") == std::string_view::npos);
        CHECK(def.find("(host: min over GPUs)") == std::string_view::npos);
        break;
    }
    if (d.host_combine != extract::HostCombine::mean) CHECK(d.scope == extract::Scope::host_and_gpu);
  }
  CHECK(sums == 12);
  CHECK(maxima == 6);
  CHECK(minima == 1);
}

TEST_CASE("extract: host aggregates sum energy, take max of maxima, average the rest", "[extract]") {
  // GPU 0: t 0, 5, 10   power 100 100 100   sm 0 100 50   temp 70 80 75   pclk 1000 1000 1000
  // GPU 1: t 0, 10      power 300 300       sm 100 100    temp 60 90      pclk 500 1000
  const std::vector<Row> rows = {
      {0, 100, 0, 70, 1000, 0},  {5, 100, 100, 80, 1000, 0},  {10, 100, 50, 75, 1000, 0},
      {0, 300, 100, 60, 500, 1}, {10, 300, 100, 90, 1000, 1},
  };
  const Features f = features_of(rows);
  REQUIRE(f.gpus.size() == 2);
  const IndicatorSet& g0 = gpu(f, 0);
  const IndicatorSet& g1 = gpu(f, 1);
  const IndicatorSet& h = f.host_indicators;

  // GPU 0: 100 W x 10 s = 1000 J; util (0 x 5 + 100 x 5) / 10 = 50 % -> 0.5; idle 5 / 10 = 0.5;
  //        temp (70 x 5 + 80 x 5) / 10 = 75; above 78: the 80 °C interval, 5 s; clock 1000 / 1000 = 1.
  CHECK(value(g0, "energy_kwh") == Approx(1000.0 / kJPerKwh));
  CHECK(value(g0, "util_mean") == Approx(0.5));
  CHECK(value(g0, "idle_fraction") == Approx(0.5));
  CHECK(value(g0, "temp_mean_c") == Approx(75.0));
  CHECK(value(g0, "time_above_78c_s") == Approx(5.0));
  CHECK(value(g0, "sm_clock_ratio") == Approx(1.0));
  CHECK(value(g0, "sample_interval_median_s") == Approx(5.0));
  // GPU 1: 300 W x 10 s = 3000 J; util 1.0, idle 0; temp holds 60 for 10 s -> 60, max 90, above 0 s;
  //        clock held 500 / max 1000 = 0.5; median interval 10 s.
  CHECK(value(g1, "energy_kwh") == Approx(3000.0 / kJPerKwh));
  CHECK(value(g1, "util_mean") == Approx(1.0));
  CHECK(value(g1, "idle_fraction") == Approx(0.0));
  CHECK(value(g1, "temp_mean_c") == Approx(60.0));
  CHECK(value(g1, "temp_max_c") == 90.0);
  CHECK(value(g1, "time_above_78c_s") == Approx(0.0));
  CHECK(value(g1, "sm_clock_ratio") == Approx(0.5));

  // Host.
  CHECK(value(h, "gpu_count") == 2.0);
  CHECK(value(h, "wall_s") == Approx(10.0));
  CHECK(value(h, "energy_kwh") == Approx(4000.0 / kJPerKwh));  // sum: 1000 + 3000 J
  CHECK(value(h, "energy_filled_fraction") == Approx(0.0));    // 0 J filled of 4000 J
  CHECK(value(h, "samples") == 5.0);                           // sum: 3 + 2
  CHECK(value(h, "power_max_w") == 300.0);                     // max(100, 300)
  CHECK(value(h, "temp_max_c") == 90.0);                       // max(80, 90)
  CHECK(value(h, "power_mean_w") == Approx(200.0));            // (100 + 300) / 2
  CHECK(value(h, "power_p95_w") == Approx(200.0));             // (100 + 300) / 2
  CHECK(value(h, "util_mean") == Approx(0.75));                // (0.5 + 1.0) / 2
  CHECK(value(h, "idle_fraction") == Approx(0.25));            // (0.5 + 0) / 2
  CHECK(value(h, "temp_mean_c") == Approx(67.5));              // (75 + 60) / 2
  CHECK(value(h, "time_above_78c_s") == Approx(2.5));          // (5 + 0) / 2
  CHECK(value(h, "sm_clock_ratio") == Approx(0.75));           // (1 + 0.5) / 2
  CHECK(value(h, "coverage") == Approx(1.0));                  // (1 + 1) / 2
  CHECK(value(h, "sample_interval_median_s") == Approx(7.5));  // (5 + 10) / 2
}

TEST_CASE("extract: host energy is absent when a GPU has no power, never a partial sum", "[extract]") {
  // GPU 0 has power (100 W x 10 s), GPU 1 only temperature.
  const Features f = features_of({{0, 100, kNone, 60, kNone, 0},
                                  {10, 100, kNone, 60, kNone, 0},
                                  {0, kNone, kNone, 70, kNone, 1},
                                  {10, kNone, kNone, 80, kNone, 1}});
  CHECK(value(gpu(f, 0), "energy_kwh") == Approx(1000.0 / kJPerKwh));
  CHECK(absent_reason(gpu(f, 1), "energy_kwh") == "no power samples");
  const std::string reason = absent_reason(f.host_indicators, "energy_kwh");
  CHECK(reason.find("GPU 1") != std::string::npos);
  CHECK(reason.find("no power samples") != std::string::npos);
  CHECK_FALSE(f.host_indicators.at("energy_filled_fraction").value.has_value());
  // Intensive values average the GPUs that have them: power mean is GPU 0's 100 W alone.
  CHECK(value(f.host_indicators, "power_mean_w") == Approx(100.0));
  CHECK(value(f.host_indicators, "temp_mean_c") == Approx(65.0));  // (60 + 70) / 2
}

TEST_CASE("extract: telemetry without a GPU index belongs to GPU 0", "[extract]") {
  // Two rows with gpu = -1 and one with gpu = 0 form one series of three samples.
  const Features f = features_of(
      {{0, 100, kNone, kNone, kNone, -1}, {1, 100, kNone, kNone, kNone, 0}, {2, 100, kNone, kNone, kNone, -1}});
  REQUIRE(f.gpus.size() == 1);
  CHECK(f.gpus[0].gpu == 0);
  CHECK(value(gpu(f, 0), "samples") == 3.0);
  CHECK(value(gpu(f, 0), "energy_kwh") == Approx(200.0 / kJPerKwh));  // 100 W x 2 s
}

TEST_CASE("extract: only sample events are telemetry", "[extract]") {
  extract::SampleCollector c;
  feed(c, {{0, 100}, {1, 100}});
  feed(c, {{0.5, 9999}}, "process");  // a pmon row: ignored
  auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  CHECK(value(gpu(*f, 0), "samples") == 2.0);
  CHECK(value(gpu(*f, 0), "power_max_w") == 100.0);
}

TEST_CASE("extract: --from/--to choose the window", "[extract]") {
  // 100 W every second from t 0 to t 10 (11 samples).
  std::vector<Row> rows;
  for (int t = 0; t <= 10; ++t) rows.push_back({static_cast<double>(t), 100, 50});

  SECTION("a window inside the samples keeps t 2..4: --to is exclusive") {
    extract::ExtractOptions o;
    o.from_ns = at(2);
    o.to_ns = at(5);
    const Features f = features_of(rows, o);
    CHECK(f.chosen_by == "flags");
    CHECK(f.to_exclusive);
    CHECK(value(gpu(f, 0), "wall_s") == Approx(3.0));                   // 5 - 2
    CHECK(value(gpu(f, 0), "samples") == 3.0);                          // t 2, 3, 4 (t 5 is the next window's)
    CHECK(value(gpu(f, 0), "energy_kwh") == Approx(300.0 / kJPerKwh));  // 100 W x 2 s + 100 W x 1 s filled
    CHECK(value(gpu(f, 0), "coverage") == Approx(2.0 / 3.0));
  }
  SECTION("consecutive windows [2, 5) and [5, 8) tile time: merge takes them and equals [2, 8)") {
    extract::ExtractOptions a, b, whole;
    a.from_ns = at(2);
    a.to_ns = at(5);
    b.from_ns = at(5);
    b.to_ns = at(8);
    whole.from_ns = at(2);
    whole.to_ns = at(8);
    const auto through_json = [&](const extract::ExtractOptions& o) {
      auto back = extract::features_from_json(extract::features_to_json(features_of(rows, o)), "part.json");
      REQUIRE(back);
      return *back;
    };
    auto m = extract::merge_features({through_json(b), through_json(a)});
    REQUIRE(m);
    const Features w = features_of(rows, whole);
    CHECK(m->to_exclusive);
    CHECK(value(gpu(*m, 0), "samples") == value(gpu(w, 0), "samples"));  // 6: t 2..7
    CHECK(value(gpu(*m, 0), "energy_kwh") == Approx(value(gpu(w, 0), "energy_kwh")));
    CHECK(value(gpu(*m, 0), "coverage") == Approx(value(gpu(w, 0), "coverage")));
  }
  SECTION("a window wider than the samples fills the uncovered time with the mean power") {
    extract::ExtractOptions o;
    o.from_ns = at(-5);
    o.to_ns = at(15);
    const Features f = features_of(rows, o);
    // wall 15 - (-5) = 20 s; covered 10 s -> coverage 0.5
    // E = 100 W x 10 s measured + 100 W x 10 s filled = 2000 J; filled share 1000 / 2000 = 0.5
    CHECK(value(gpu(f, 0), "wall_s") == Approx(20.0));
    CHECK(value(gpu(f, 0), "coverage") == Approx(0.5));
    CHECK(value(gpu(f, 0), "energy_kwh") == Approx(2000.0 / kJPerKwh));
    CHECK(value(gpu(f, 0), "energy_filled_fraction") == Approx(0.5));
    CHECK(value(gpu(f, 0), "samples") == 11.0);
  }
  SECTION("only --from: the window runs to the last sample") {
    extract::ExtractOptions o;
    o.from_ns = at(4);
    const Features f = features_of(rows, o);
    CHECK(f.to_ns == at(10));
    CHECK(value(gpu(f, 0), "wall_s") == Approx(6.0));  // 10 - 4
  }
  SECTION("a window with no sample is an error") {
    extract::SampleCollector c;
    feed(c, rows);
    extract::ExtractOptions o;
    o.from_ns = at(100);
    o.to_ns = at(200);
    auto f = extract::compute_features(c, o);
    REQUIRE_FALSE(f.has_value());
    CHECK(f.error().message.find("no sample falls inside the window") != std::string::npos);
  }
  SECTION("only --from, after every sample, says there is no sample in the window") {
    extract::SampleCollector c;
    feed(c, rows);
    extract::ExtractOptions o;
    o.from_ns = at(100);
    auto f = extract::compute_features(c, o);
    REQUIRE_FALSE(f.has_value());
    CHECK(f.error().message.find("no sample falls inside the window") != std::string::npos);
  }
  SECTION("--to before --from is an error") {
    extract::SampleCollector c;
    feed(c, rows);
    extract::ExtractOptions o;
    o.from_ns = at(5);
    o.to_ns = at(2);
    auto f = extract::compute_features(c, o);
    REQUIRE_FALSE(f.has_value());
    CHECK(f.error().message.find("ends before it starts") != std::string::npos);
  }
}

TEST_CASE("extract: no telemetry at all is an error", "[extract]") {
  extract::SampleCollector c;
  auto f = extract::compute_features(c, {});
  REQUIRE_FALSE(f.has_value());
  CHECK(f.error().message.find("no telemetry samples") != std::string::npos);
}

TEST_CASE("extract: absent indicators are null with a reason, never 0", "[extract]") {
  // Temperature only: t 0 and 10, 50 and 60 °C.
  const Features f = features_of({{0, kNone, kNone, 50}, {10, kNone, kNone, 60}});
  const IndicatorSet& g = gpu(f, 0);
  for (const char* key : {"energy_kwh", "energy_filled_fraction", "power_mean_w", "power_p95_w", "power_max_w"})
    CHECK(absent_reason(g, key) == "no power samples");
  CHECK(absent_reason(g, "util_mean").find("no utilisation samples") == 0);
  CHECK(absent_reason(g, "idle_fraction").find("no utilisation samples") == 0);
  CHECK(absent_reason(g, "sm_clock_ratio") == "no SM clock samples");
  CHECK(value(g, "temp_mean_c") == Approx(50.0));  // 50 holds for 10 s
  CHECK(value(g, "coverage") == Approx(1.0));
  // The host carries the absence too.
  CHECK_FALSE(f.host_indicators.at("energy_kwh").value.has_value());
  CHECK_FALSE(f.host_indicators.at("util_mean").value.has_value());
  CHECK_FALSE(f.host_indicators.at("util_mean").reason.empty());
}

TEST_CASE("extract: a lone sample", "[extract]") {
  const std::vector<Row> lone = {{0, 250, 40, 65, 1200}};
  SECTION("window from the samples: 0 s") {
    const Features f = features_of(lone);
    const IndicatorSet& g = gpu(f, 0);
    CHECK(value(g, "wall_s") == 0.0);
    CHECK(value(g, "samples") == 1.0);
    CHECK(absent_reason(g, "coverage").find("empty") != std::string::npos);
    CHECK(absent_reason(g, "sample_interval_median_s").find("fewer than two samples") == 0);
    CHECK(value(g, "energy_kwh") == 0.0);  // 250 W x 0 s
    CHECK(absent_reason(g, "energy_filled_fraction") == "energy is 0");
    // With no covered interval each statistic is the sample's own value.
    CHECK(value(g, "power_mean_w") == 250.0);
    CHECK(value(g, "power_p95_w") == 250.0);
    CHECK(value(g, "power_max_w") == 250.0);
    CHECK(value(g, "util_mean") == Approx(0.4));  // 40 %
    CHECK(value(g, "idle_fraction") == 0.0);      // 40 % is not 0 %
    CHECK(value(g, "temp_mean_c") == 65.0);
    CHECK(value(g, "temp_max_c") == 65.0);
    CHECK(value(g, "time_above_78c_s") == 0.0);  // no covered time
    CHECK(value(g, "sm_clock_ratio") == 1.0);    // 1200 / 1200
  }
  SECTION("inside a 10 s window: all energy is filled") {
    extract::ExtractOptions o;
    o.from_ns = at(-5);
    o.to_ns = at(5);
    const Features f = features_of(lone, o);
    const IndicatorSet& g = gpu(f, 0);
    CHECK(value(g, "coverage") == 0.0);                              // 0 s covered of 10 s
    CHECK(value(g, "energy_kwh") == Approx(250.0 * 10 / kJPerKwh));  // 250 W x 10 s = 2500 J
    CHECK(value(g, "energy_filled_fraction") == Approx(1.0));
  }
}

TEST_CASE("extract: power samples all separated by gaps use the plain mean of the samples", "[extract]") {
  // Samples every second t 0..40 carry temperature; power only at t 0 (100 W) and t 40 (300 W).
  // The 40 s power interval exceeds the limit max(10, 5 x 1) = 10 s: no covered power time.
  // Mean = (100 + 300) / 2 = 200 W (not the first sample's 100 W); E = 200 W x 40 s = 8000 J, all filled.
  std::vector<Row> rows;
  for (int t = 0; t <= 40; ++t) {
    Row r{static_cast<double>(t)};
    r.temp_c = 60;
    if (t == 0) r.power_w = 100;
    if (t == 40) r.power_w = 300;
    rows.push_back(r);
  }
  const Features f = features_of(rows);
  const IndicatorSet& g = gpu(f, 0);
  CHECK(value(g, "power_mean_w") == Approx(200.0));
  CHECK(value(g, "energy_kwh") == Approx(8000.0 / kJPerKwh));
  CHECK(value(g, "energy_filled_fraction") == Approx(1.0));
  // p95 of two equally weighted samples: 0.95 x 2 = 1.9 is reached by the second -> 300 W.
  CHECK(value(g, "power_p95_w") == 300.0);
  CHECK(value(g, "coverage") == Approx(1.0));  // the samples themselves cover every second
}

TEST_CASE("extract: samples out of order give the same indicators as in order", "[extract]") {
  std::vector<Row> shuffled = kReference;
  std::reverse(shuffled.begin(), shuffled.end());
  std::swap(shuffled[1], shuffled[4]);
  const Features a = features_of(kReference);
  const Features b = features_of(shuffled);
  REQUIRE(b.gpus.size() == 1);
  for (const auto& [key, v] : a.gpus[0].indicators) {
    INFO(key);
    const auto& w = b.gpus[0].indicators.at(key);
    REQUIRE(v.value.has_value() == w.value.has_value());
    if (v.value) CHECK(*v.value == Approx(*w.value));
  }
  CHECK(value(gpu(b, 0), "energy_kwh") == Approx(4200.0 / kJPerKwh));  // as in the reference case
}

TEST_CASE("extract: duplicate timestamps add no time", "[extract]") {
  // t 0 (100 W), t 0 again (100 W), t 2 (100 W): intervals 0 (skipped) and 2 -> 200 J, 3 samples.
  const Features f = features_of({{0, 100}, {0, 100}, {2, 100}});
  CHECK(value(gpu(f, 0), "samples") == 3.0);
  CHECK(value(gpu(f, 0), "energy_kwh") == Approx(200.0 / kJPerKwh));
  CHECK(value(gpu(f, 0), "sample_interval_median_s") == Approx(2.0));  // positive intervals only
}

TEST_CASE("extract: features JSON round trip keeps every value and reason", "[extract]") {
  // The reference GPU plus a GPU 3 with temperature only (absent power, util, clock).
  std::vector<Row> rows = kReference;
  rows.push_back({0, kNone, kNone, 40, kNone, 3});
  rows.push_back({21, kNone, kNone, 41, kNone, 3});
  const Features f = features_of(rows);
  const std::string json = extract::features_to_json(f);
  CHECK(extract::is_features_document(json));
  CHECK(json.find("\"energy_kwh\": {\"id\": \"F003\"") != std::string::npos);

  auto back = extract::features_from_json(json, "mem.json");
  REQUIRE(back.has_value());
  CHECK(back->from_ns == f.from_ns);
  CHECK(back->to_ns == f.to_ns);
  CHECK(back->chosen_by == f.chosen_by);
  CHECK(back->host == f.host);
  REQUIRE(back->gpus.size() == f.gpus.size());
  const auto same = [](const IndicatorSet& x, const IndicatorSet& y) {
    REQUIRE(x.size() == y.size());
    for (const auto& [key, v] : x) {
      INFO(key);
      const auto it = y.find(key);
      REQUIRE(it != y.end());
      REQUIRE(v.value.has_value() == it->second.value.has_value());
      if (v.value)
        CHECK(*v.value == *it->second.value);  // shortest round-trip digits: exact
      else
        CHECK(v.reason == it->second.reason);
    }
  };
  same(f.host_indicators, back->host_indicators);
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    CHECK(back->gpus[i].gpu == f.gpus[i].gpu);
    same(f.gpus[i].indicators, back->gpus[i].indicators);
  }
  CHECK(back->gpus[1].gpu == 3);
  CHECK(back->gpus[1].indicators.at("energy_kwh").reason == "no power samples");

  SECTION("a document of another schema or version is refused") {
    CHECK_FALSE(extract::features_from_json("{\"schema\":\"gpucost.events\",\"version\":1}", "x").has_value());
    CHECK_FALSE(extract::features_from_json("{\"schema\":\"gpucost.features\",\"version\":3}", "x").has_value());
    CHECK_FALSE(extract::features_from_json("not json", "x").has_value());
  }
}

TEST_CASE("extract: catalogue ids are unique and consecutive, keys unique", "[extract]") {
  const auto cat = extract::catalogue();
  REQUIRE(!cat.empty());
  std::set<std::string_view> keys;
  const std::set<std::string_view> units = {"s",     "kWh", "W",   "°C",   "ratio", "count", "us", "GB/s",
                                            "kWh/h", "MHz", "MiB", "MB/s", "1/h",   "1/s",   "Wh", "%"};
  for (std::size_t i = 0; i < cat.size(); ++i) {
    const auto& d = cat[i];
    CHECK(d.id == fmt::format("F{:03}", i + 1));  // F001, F002, ...
    CHECK(keys.insert(d.key).second);
    CHECK(units.count(d.unit) == 1);
    CHECK_FALSE(d.definition.empty());
    CHECK_FALSE(d.name.empty());
    CHECK_FALSE(d.used_by.empty());  // every entry says what reads it
    CHECK(extract::find_indicator(d.key) == &d);
  }
  CHECK(extract::find_indicator("no_such_key") == nullptr);
  // Every key the issue names is in the catalogue.
  for (const char* k :
       {"wall_s", "coverage", "energy_kwh", "energy_filled_fraction", "power_mean_w", "power_p95_w", "power_max_w",
        "util_mean", "idle_fraction", "temp_mean_c", "temp_max_c", "time_above_78c_s", "sm_clock_ratio"})
    CHECK(extract::find_indicator(k) != nullptr);
}

TEST_CASE("extract: the typed keys are the catalogue's, in its order", "[extract][catalogue]") {
  // indicator_key.hpp checks a key named in the code against kIndicatorKeys when compiled: the
  // list must be the catalogue's own.
  const auto defs = extract::catalogue();
  REQUIRE(extract::kIndicatorKeys.size() == defs.size());
  for (std::size_t i = 0; i < defs.size(); ++i) {
    CAPTURE(i);
    CHECK(extract::kIndicatorKeys[i] == defs[i].key);
  }
  constexpr extract::IndicatorKey energy = "energy_kwh";  // compiles: a key of the catalogue
  STATIC_REQUIRE(energy.name() == "energy_kwh");
  STATIC_REQUIRE_FALSE(extract::is_indicator_key("energy_kwhh"));  // would not compile as a key
}

TEST_CASE("extract: every catalogue indicator is computed for the host and each GPU", "[extract]") {
  const Features f = features_of(kReference);
  for (const auto& d : extract::catalogue()) {
    INFO(d.key);
    if (d.scope != extract::Scope::gpu_only) CHECK(f.host_indicators.count(std::string(d.key)) == 1);
    if (d.scope != extract::Scope::host_only) CHECK(f.gpus[0].indicators.count(std::string(d.key)) == 1);
  }
}

TEST_CASE("extract -j: the GPUs walked side by side give -j 1's document byte for byte", "[extract][jobs]") {
  // Six GPUs of uneven length, with gaps, temperature crossings and power, through a store small
  // enough to spill runs, so that several walks read the temporary file at once.
  std::vector<Row> rows;
  for (int i = 0; i < 6000; ++i) {
    const double t = i * 0.5 + (i > 3000 ? 40 : 0);  // a 40 s gap in the middle
    for (int gpu = 0; gpu < 6; ++gpu) {
      if (gpu == 5 && i % 3 != 0) continue;  // a GPU sampled less often
      const double wave = std::sin(i / (50.0 + gpu));
      rows.push_back(Row{t + gpu * 0.01, 150 + 120 * wave + gpu, 50 + 45 * wave, 70 + 12 * wave, 1400.0 + gpu, gpu});
    }
  }
  std::string first;
  for (const unsigned jobs : {1U, 2U, 4U, 16U}) {
    INFO("jobs " << jobs);
    extract::SampleCollector c(4096);
    feed(c, rows);
    REQUIRE(c.store().runs() > 0);
    extract::ExtractOptions o;
    o.jobs = jobs;
    auto f = extract::compute_features(c, o);
    REQUIRE(f.has_value());
    REQUIRE(f->gpus.size() == 6);
    const std::string json = extract::features_to_json(*f);
    if (jobs == 1)
      first = json;
    else
      CHECK(json == first);
  }
}

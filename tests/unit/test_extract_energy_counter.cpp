// extract: the energy from the GPUs' total-energy counters (docs/indicators.md, "Energy from the
// counter"): the increase between readings, resets, the window's ends, the choice between the
// counter and the power samples per GPU and for the host, merge and the features document.
// Every expected value is worked out by hand in the comment beside it.
#include <catch2/catch.hpp>

#include "indicator_checks.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/extract/features.hpp>

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
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

/// One sample: time (s after kT0), power (W) and the counter as dcgmi prints it (`totec`, mJ).
struct Row {
  double t_s;
  double power_w = kNone;
  double totec_mj = kNone;
  int gpu = 0;
};

void feed(extract::SampleCollector& c, const std::vector<Row>& rows) {
  for (const Row& r : rows) {
    Event ev;
    ev.ts_ns = at(r.t_s);
    ev.source = "dcgmi";
    ev.host = "node1";
    ev.gpu = r.gpu;
    ev.kind = "sample";
    if (!std::isnan(r.power_w)) ev.set(Metric::power_w, r.power_w);
    if (!std::isnan(r.totec_mj))
      ev.fields.push_back(Field{"totec", ev.own(fmt::format("{:.0f}", r.totec_mj)), true, false});
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

/// Every 10 s from 0 to 2000 s at 250 W; the counter rises 2 000 000 mJ per 10 s (200 W) and
/// is reset between 1000 s and 1010 s (it reads 700 000 mJ at 1010 s, then rises again).
std::vector<Row> reset_series(int gpu = 0) {
  std::vector<Row> rows;
  for (int k = 0; k <= 200; ++k) {
    const double t = 10.0 * k;
    const double mj = k <= 100 ? 5e9 + 2e6 * k : 7e5 + 2e6 * (k - 101);
    rows.push_back(Row{t, 250, mj, gpu});
  }
  return rows;
}

}  // namespace

TEST_CASE("extract: the counter's increase gives the energy, a reset leaves one interval uncovered",
          "[extract][energy-counter]") {
  const Features f = features_of(reset_series());
  const IndicatorSet& g = f.gpus.at(0).indicators;
  CHECK(f.gpus[0].energy_method == "counter");
  CHECK(f.energy_method == "counter");
  // 200 intervals of 10 s: 199 increases of 2000 J, one reset (5.2e9 mJ -> 7e5 mJ).
  CHECK(value(g, "energy_counter_resets") == 1);
  CHECK(value(g, "energy_counter_coverage") == Approx(1990.0 / 2000));  // t_ctr = 1990 s
  // E_ctr = 398 000 J; P_ctr = 398000 / 1990 = 200 W; the reset's 10 s at 200 W = 2000 J.
  CHECK(value(g, "energy_kwh") == Approx(400000 / kJPerKwh));
  CHECK(value(g, "energy_filled_fraction") == Approx(2000.0 / 400000));
  // The power samples: 250 W x 2000 s = 500 000 J; (500000 - 400000) / 400000 = +25 %.
  CHECK(value(g, "energy_kwh_from_power") == Approx(500000 / kJPerKwh));
  CHECK(value(g, "energy_power_vs_counter_pct") == Approx(25.0));
  // Bounds: E_ctr + min(250, 200) x 10 s and + max(250, 200) x 10 s.
  CHECK(value(g, "energy_low_kwh") == Approx(400000 / kJPerKwh));
  CHECK(value(g, "energy_high_kwh") == Approx(400500 / kJPerKwh));
  // The power statistics stay those of the power samples.
  CHECK(value(g, "power_mean_w") == Approx(250));
  CHECK(g.count("energy_left_kwh") == 0);  // retired in version 2 (the partial power.held stays)
  // The host: one GPU, the same values.
  CHECK(value(f.host_indicators, "energy_kwh") == Approx(400000 / kJPerKwh));
  CHECK(value(f.host_indicators, "energy_power_vs_counter_pct") == Approx(25.0));
  CHECK(value(f.host_indicators, "energy_counter_resets") == 1);
  // The profile holds the counter's energy: its total is energy_kwh.
  CHECK(f.energy_profile.total() == Approx(400000 / kJPerKwh));
}

TEST_CASE("extract: the window's ends are filled at the counter's mean power, not interpolated",
          "[extract][energy-counter]") {
  // Readings at 10, 20, 30 s at 100 W, the counter +1 500 000 mJ per 10 s (150 W); window [0, 40).
  const std::vector<Row> rows = {{10, 100, 1e9}, {20, 100, 1e9 + 1.5e6}, {30, 100, 1e9 + 3e6}};
  extract::ExtractOptions o;
  o.from_ns = at(0);
  o.to_ns = at(40);
  const Features f = features_of(rows, o);
  const IndicatorSet& g = f.gpus.at(0).indicators;
  // t_ctr = 20 s = the samples' covered time: the counter gives the energy.
  CHECK(f.gpus[0].energy_method == "counter");
  CHECK(value(g, "energy_counter_coverage") == Approx(0.5));
  // E_ctr = 3000 J over 20 s: 150 W; the 20 s before 10 s and after 30 s at 150 W: 6000 J.
  CHECK(value(g, "energy_kwh") == Approx(6000 / kJPerKwh));
  CHECK(value(g, "energy_filled_fraction") == Approx(0.5));
  // Bounds over the 20 uncovered seconds: 3000 + 100 x 20 and 3000 + 150 x 20.
  CHECK(value(g, "energy_low_kwh") == Approx(5000 / kJPerKwh));
  CHECK(value(g, "energy_high_kwh") == Approx(6000 / kJPerKwh));
  // The power integral: 2000 J covered + 100 W x 20 s = 4000 J, -33.3 % off the counter.
  CHECK(value(g, "energy_kwh_from_power") == Approx(4000 / kJPerKwh));
  CHECK(value(g, "energy_power_vs_counter_pct") == Approx(-100.0 / 3));
}

TEST_CASE("extract: the counter counts through gaps and without power samples (dcgmi dmon -e 156)",
          "[extract][energy-counter]") {
  // Readings at 0, 1, 2 s, then 600 s (a 598 s gap), then 601 s; no power column at all.
  // Increases: 1000, 1000, 598 000, 1000 J -> 601 000 J over 601 s, nothing filled.
  const std::vector<Row> rows = {
      {0, kNone, 1e6}, {1, kNone, 2e6}, {2, kNone, 3e6}, {600, kNone, 6.01e8}, {601, kNone, 6.02e8}};
  const Features f = features_of(rows);
  const IndicatorSet& g = f.gpus.at(0).indicators;
  CHECK(f.gpus[0].energy_method == "counter");
  // The samples cover 3 s (the 598 s interval is a gap), the counter all 601 s.
  CHECK(value(g, "coverage") == Approx(3.0 / 601));
  CHECK(value(g, "energy_counter_coverage") == Approx(1.0));
  CHECK(value(g, "energy_kwh") == Approx(601000 / kJPerKwh));
  CHECK(value(g, "energy_filled_fraction") == 0);
  CHECK(value(g, "energy_low_kwh") == Approx(601000 / kJPerKwh));
  CHECK(value(g, "energy_high_kwh") == Approx(601000 / kJPerKwh));
  CHECK(absent_reason(g, "energy_kwh_from_power") == "no power samples");
  CHECK(absent_reason(g, "energy_power_vs_counter_pct") == "no power samples");
  CHECK(absent_reason(g, "power_mean_w") == "no power samples");
}

TEST_CASE("extract: a counter over part of the window leaves the energy to the power samples",
          "[extract][energy-counter]") {
  // 1 s samples at 300 W from 0 to 100 s; the counter only from 0 to 50 s (at 300 W).
  std::vector<Row> rows;
  for (int k = 0; k <= 100; ++k) rows.push_back(Row{1.0 * k, 300, k <= 50 ? 1e9 + 3e5 * k : kNone});
  const Features f = features_of(rows);
  const IndicatorSet& g = f.gpus.at(0).indicators;
  CHECK(f.gpus[0].energy_method == "power");
  CHECK(f.energy_method == "power");
  CHECK(value(g, "energy_counter_coverage") == Approx(0.5));  // 50 of 100 s < 100 - 1 s
  CHECK(value(g, "energy_counter_resets") == 0);
  CHECK(value(g, "energy_kwh") == Approx(30000 / kJPerKwh));  // 300 W x 100 s
  CHECK(value(g, "energy_kwh_from_power") == value(g, "energy_kwh"));
  CHECK(absent_reason(g, "energy_power_vs_counter_pct") ==
        "the energy counter covers less of the window than the samples: energy from the power samples");
  // One reading short of 200 s is within the 1 % slack: 199 of 200 s >= 200 - 2 s.
  rows.clear();
  for (int k = 0; k <= 200; ++k) rows.push_back(Row{1.0 * k, 300, k <= 199 ? 1e9 + 3e5 * k : kNone});
  CHECK(features_of(rows).gpus[0].energy_method == "counter");
}

TEST_CASE("extract: GPUs with and without a counter: each its own method, the host mixed",
          "[extract][energy-counter]") {
  // GPU 0: the reset series (counter, 400 000 J; power 500 000 J). GPU 1: 100 W, no counter,
  // every 10 s from 0 to 2000 s: 200 000 J.
  std::vector<Row> rows = reset_series(0);
  for (int k = 0; k <= 200; ++k) rows.push_back(Row{10.0 * k, 100, kNone, 1});
  const Features f = features_of(rows);
  REQUIRE(f.gpus.size() == 2);
  CHECK(f.gpus[0].energy_method == "counter");
  CHECK(f.gpus[1].energy_method == "power");
  CHECK(f.energy_method == "mixed");
  const IndicatorSet& h = f.host_indicators;
  CHECK(value(h, "energy_kwh") == Approx(600000 / kJPerKwh));             // 400 000 + 200 000 J
  CHECK(value(h, "energy_kwh_from_power") == Approx(700000 / kJPerKwh));  // 500 000 + 200 000 J
  CHECK(absent_reason(h, "energy_power_vs_counter_pct").starts_with("GPU 1: no energy counter in the samples"));
  CHECK(absent_reason(h, "energy_counter_resets").starts_with("GPU 1: no energy counter"));
  CHECK(value(h, "energy_counter_coverage") == Approx(0.995));  // the mean over the GPUs that have one
  // Both with counters: the host's difference is over the summed energies, not a mean of %.
  std::vector<Row> both = reset_series(0);
  for (int k = 0; k <= 200; ++k) both.push_back(Row{10.0 * k, 100, 1e9 + 1e6 * k, 1});  // 100 W, agrees
  const Features b = features_of(both);
  CHECK(b.energy_method == "counter");
  // (700 000 - 600 000) / 600 000 = 16.67 % (the GPUs' own: 25 % and 0 %).
  CHECK(value(b.host_indicators, "energy_power_vs_counter_pct") == Approx(100.0 / 6));
  CHECK(value(b.gpus[1].indicators, "energy_power_vs_counter_pct") == Approx(0).margin(1e-9));
}

TEST_CASE("extract: a steady series gives the same energy from the counter and from power",
          "[extract][energy-counter]") {
  // A counter that integrates the same 1 s ramps the trapezoid does: 100 W + 50 W x (k mod 7).
  std::vector<Row> rows;
  double mj = 4.2e9;
  for (int k = 0; k <= 3600; ++k) {
    const double w = 100 + 50 * (k % 7);
    if (k > 0) mj += (rows.back().power_w + w) / 2 * 1000;  // the trapezoid of the last second, mJ
    rows.push_back(Row{1.0 * k, w, mj});
  }
  const Features f = features_of(rows);
  const IndicatorSet& g = f.gpus.at(0).indicators;
  CHECK(f.gpus[0].energy_method == "counter");
  CHECK(value(g, "energy_kwh") == Approx(value(g, "energy_kwh_from_power")).epsilon(1e-12));
  CHECK(value(g, "energy_power_vs_counter_pct") == Approx(0).margin(1e-9));
}

TEST_CASE("merge: counter energies of consecutive windows merge to the whole's, through JSON",
          "[extract][energy-counter][merge]") {
  const auto window = [](double from_s, double to_s) {
    extract::ExtractOptions o;
    o.from_ns = at(from_s);
    o.to_ns = at(to_s);
    return o;
  };
  // The reset series with one more sample at 2010 s, so that [0, 2010) holds the same 201 samples.
  std::vector<Row> rows = reset_series();
  rows.push_back(Row{2010, 250, 7e5 + 2e6 * 100});
  const Features whole = features_of(rows, window(0, 2010));
  for (const double cut : {500.0, 1005.0, 1500.0}) {  // 1005 s cuts the reset interval
    INFO("cut at " << cut << " s");
    std::vector<Features> parts;
    for (const Features& part : {features_of(rows, window(0, cut)), features_of(rows, window(cut, 2010))}) {
      auto back = extract::features_from_json(extract::features_to_json(part), "part.json");
      REQUIRE(back.has_value());
      CHECK(back->gpus[0].energy_method == part.gpus[0].energy_method);
      CHECK(back->energy_method == part.energy_method);
      REQUIRE(back->gpus[0].last.has_value());
      CHECK(back->gpus[0].last->energy_mj == part.gpus[0].last->energy_mj);  // the edge carries the counter
      parts.push_back(std::move(*back));
    }
    auto merged = extract::merge_features(parts);
    REQUIRE(merged.has_value());
    const IndicatorSet& m = merged->gpus.at(0).indicators;
    const IndicatorSet& w = whole.gpus.at(0).indicators;
    CHECK(merged->gpus[0].energy_method == "counter");
    CHECK(merged->energy_method == "counter");
    // The whole: 200 increases of 2000 J but one reset: E_ctr 398 000 J over 1990 s, 2010 s
    // window, 20 s filled at 200 W = 402 000 J.
    CHECK(value(w, "energy_kwh") == Approx(402000 / kJPerKwh));
    for (const char* key :
         {"energy_kwh", "energy_filled_fraction", "energy_counter_coverage", "energy_counter_resets",
          "energy_kwh_from_power", "energy_power_vs_counter_pct", "energy_low_kwh", "energy_high_kwh"}) {
      INFO(key);
      CHECK(value(m, key) == Approx(value(w, key)).epsilon(1e-12));
    }
  }
}

TEST_CASE("features: a document without energy_method reads as the power integral", "[extract][energy-counter]") {
  std::vector<Row> rows;
  for (int k = 0; k <= 10; ++k) rows.push_back(Row{1.0 * k, 200});
  std::string json = extract::features_to_json(features_of(rows));
  const auto erase_all = [&json](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t pos = json.find(text); pos != std::string::npos; pos = json.find(text), ++n)
      json.erase(pos, text.size());
    return n;
  };
  CHECK(erase_all(", \"energy_method\": \"power\"") == 2);  // the host's and GPU 0's
  REQUIRE(json.find("energy_method") == std::string::npos);
  auto old = extract::features_from_json(json, "old.json");
  REQUIRE(old.has_value());
  CHECK(old->gpus[0].energy_method == "power");
  CHECK(old->energy_method == "power");
}

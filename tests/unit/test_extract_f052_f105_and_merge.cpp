// extract: the indicators F052-F105 against hand-computed expectations, their absent cases, and
// merge: extracting a whole log equals merging the extracts of its halves (the quantiles
// through their sketches: exactly in exact mode, within the sketch's alpha in bucket mode).
#include <catch2/catch.hpp>

#include "indicator_checks.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include "extract/gpu_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace gpucost;
using extract::Features;
using extract::IndicatorSet;
using gpucost::testing::absent_reason;
using gpucost::testing::value;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kSec = 1'000'000'000;

using Metrics = std::map<Metric, double>;

void sample(extract::SampleCollector& c, double t_s, int gpu, const Metrics& m) {
  Event ev;
  ev.ts_ns = kT0 + static_cast<std::int64_t>(std::llround(t_s * 1e9));
  ev.source = "query-csv";
  ev.host = "node1";
  ev.gpu = gpu;
  ev.kind = "sample";
  for (const auto& [metric, v] : m) ev.set(metric, v);
  c.on_event(ev);
}

void incident(extract::SampleCollector& c, double t_s, const char* kind, const char* key = nullptr,
              const char* val = nullptr) {
  Event ev;
  ev.ts_ns = kT0 + static_cast<std::int64_t>(std::llround(t_s * 1e9));
  ev.kind = kind;
  if (key != nullptr) ev.add_text(key, val);
  c.on_event(ev);
}

// Five samples 1 s apart, every metric the new indicators read.
//  t  power  util mem  memT mclk pclk  mask  fb   enc  rx   gen
//  0   300    90  40    80 1000 1500  0x4  1000  10  100   4
//  1   290    90  60    82 1000 1500  0x4  2000  10  200   4
//  2   200    85  30    84  500 1200  0x0  3000   0  300   1
//  3   100     0   0    86  500  300  0x1  2000   0  400   1
//  4   100     0   0    80 1000  300  0x44 1000   0  500   4
// limit 300 W (default 400 W), rated clocks 2000 MHz (SM and memory), fb total 8000 MiB,
// dec 0 %, tx 50 MB/s, gen max 4, width 16 of 16.
Features rich_series() {
  extract::SampleCollector c;
  const double power[] = {300, 290, 200, 100, 100}, util[] = {90, 90, 85, 0, 0}, mem[] = {40, 60, 30, 0, 0},
               mtemp[] = {80, 82, 84, 86, 80}, mclk[] = {1000, 1000, 500, 500, 1000},
               pclk[] = {1500, 1500, 1200, 300, 300}, mask[] = {4, 4, 0, 1, 0x44},
               fb[] = {1000, 2000, 3000, 2000, 1000}, enc[] = {10, 10, 0, 0, 0}, rx[] = {100, 200, 300, 400, 500},
               gen[] = {4, 4, 1, 1, 4};
  for (int i = 0; i < 5; ++i)
    sample(c, i, 0,
           {{Metric::power_w, power[i]},
            {Metric::sm_pct, util[i]},
            {Metric::mem_pct, mem[i]},
            {Metric::mem_temp_c, mtemp[i]},
            {Metric::mclk_mhz, mclk[i]},
            {Metric::pclk_mhz, pclk[i]},
            {Metric::throttle_mask, mask[i]},
            {Metric::fb_mib, fb[i]},
            {Metric::fb_total_mib, 8000},
            {Metric::enc_pct, enc[i]},
            {Metric::dec_pct, 0},
            {Metric::rxpci_mb_s, rx[i]},
            {Metric::txpci_mb_s, 50},
            {Metric::power_limit_w, 300},
            {Metric::power_default_limit_w, 400},
            {Metric::pclk_max_mhz, 2000},
            {Metric::mclk_max_mhz, 2000},
            {Metric::pcie_gen, gen[i]},
            {Metric::pcie_gen_max, 4},
            {Metric::pcie_width, 16},
            {Metric::pcie_width_max, 16},
            {Metric::temp_c, 60}});
  auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  return *f;
}

// The reference series of test_extract_indicators.cpp (power, sm, temp, pclk only; a 16 s gap).
Features reference_series() {
  extract::SampleCollector c;
  const double t[] = {0, 1, 2, 3, 4, 20, 21}, p[] = {100, 200, 200, 100, 300, 200, 400},
               u[] = {0, 50, 100, 0, 100, 80, 40}, temp[] = {70, 80, 79, 78, 90, 85, 60},
               clk[] = {1000, 1500, 2000, 2000, 500, 1000, 1800};
  for (int i = 0; i < 7; ++i)
    sample(c, t[i], 0,
           {{Metric::power_w, p[i]}, {Metric::sm_pct, u[i]}, {Metric::temp_c, temp[i]}, {Metric::pclk_mhz, clk[i]}});
  auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  return *f;
}

}  // namespace

TEST_CASE("extract: F053-F104 on the reference series, by hand", "[extract]") {
  const Features f = reference_series();
  const IndicatorSet& g = f.gpus.at(0).indicators;
  // Covered intervals start at t = 0 1 2 3 20 (the 4 -> 20 s interval is a gap), 1 s each.
  CHECK(value(g, "power_min_w") == 100);
  // Idle intervals (left utilisation 0): [0,1] (100+200)/2 = 150 J and [3,4] (100+300)/2 = 200 J.
  CHECK(value(g, "idle_power_w") == Approx(175));
  CHECK(value(g, "idle_energy_kwh") == Approx(350 / 3.6e6));
  const auto& p = f.gpus.at(0).partials;  // busy: covered utilisation time above 0 % (left 50, 100, 80)
  CHECK(p.at("util.cov_s") - p.at("util.zero_s") == 3);
  CHECK(value(g, "energy_per_busy_hour_kwh") == Approx(4200.0 / 3000));  // 4200 J / 3 s
  // Held power 100 200 200 100 200: mean 160 W, mean square 28000 -> sd sqrt(2400).
  CHECK(value(g, "power_cv") == Approx(std::sqrt(2400.0) / 160));
  // Trailing 15 s medians: 70, 75, 79, 78.5, 79, 85, 72.5: one upward crossing (75 -> 79).
  CHECK(value(g, "temp_rolling_crossings") == 1);
  // Busy SM clock intervals (left util > 0): 1500 + 2000 + 1000 over 3 s against max 2000.
  CHECK(value(g, "throttle_work_lost_fraction") == Approx(1 - 4500.0 / 6000));
  CHECK(value(g, "sample_interval_max_s") == 16);
  CHECK(value(g, "gap_count") == 1);
  // Absent inputs: null with the reason.
  CHECK(absent_reason(g, "power_limit_time_s") == "no enforced power limit in the power samples");
  CHECK(absent_reason(g, "power_limit_share") == "no sample gives both the enforced and the default power limit");
  CHECK(absent_reason(g, "mem_temp_mean_c").rfind("no memory temperature samples", 0) == 0);
  CHECK(absent_reason(g, "mclk_ratio").rfind("no memory clock samples", 0) == 0);
  CHECK(absent_reason(g, "throttle_power_cap_fraction").rfind("no throttle reasons in the samples", 0) == 0);
  CHECK(absent_reason(g, "throttle_onsets").rfind("no throttle reasons in the samples", 0) == 0);
  CHECK(absent_reason(g, "fb_used_max_mib").rfind("no framebuffer samples", 0) == 0);
  CHECK(absent_reason(g, "pcie_rx_mean_mb_s").rfind("no PCIe throughput samples", 0) == 0);
  CHECK(absent_reason(g, "pcie_gen_ratio").rfind("no sample gives the PCIe link", 0) == 0);
  CHECK(absent_reason(g, "mem_util_mean").rfind("no memory utilisation samples", 0) == 0);
  CHECK(absent_reason(f.host_indicators, "oom_kill_count").rfind("no kernel log", 0) == 0);
}

TEST_CASE("extract: power limit, memory, clocks, throttle reasons and PCIe, by hand", "[extract]") {
  const Features f = rich_series();
  const IndicatorSet& g = f.gpus.at(0).indicators;
  CHECK(value(g, "power_limit_time_s") == 2);            // left 300 and 290 >= 0.95 x 300 = 285
  CHECK(value(g, "power_limit_share") == Approx(0.75));  // 300 / 400
  CHECK(value(g, "mem_util_mean") == Approx(0.325));     // (40 + 60 + 30 + 0) / 4 / 100
  CHECK(value(g, "mem_temp_mean_c") == Approx(83));      // (80 + 82 + 84 + 86) / 4
  CHECK(value(g, "mem_temp_max_c") == 86);
  CHECK(value(g, "mclk_ratio") == Approx(0.375));                   // 750 / 2000 (rated)
  CHECK(value(g, "sm_clock_ratio") == Approx(0.75));                // 1125 / 1500 (largest sample)
  CHECK(value(g, "throttle_work_lost_fraction") == Approx(0.3));    // 1 - (1500 + 1500 + 1200) / (2000 x 3)
  CHECK(value(g, "throttle_power_cap_fraction") == Approx(0.5));    // left masks 0x4 0x4 0x0 0x1
  CHECK(f.gpus.at(0).partials.at("throttle.idle_s") == Approx(1));  // the 0x1 interval: a partial, no indicator
  CHECK(value(g, "throttle_hw_thermal_fraction") == 0);
  CHECK(value(g, "throttle_sw_thermal_fraction") == 0);
  CHECK(value(g, "throttle_hw_slowdown_fraction") == 0);
  CHECK(value(g, "throttle_onsets") == 1);  // 0x1 -> 0x44; the first sample starts nothing
  CHECK(value(g, "fb_used_max_mib") == 3000);
  CHECK(f.gpus.at(0).partials.at("fb_free.min") == 5000);  // the cloud fit's memory.total - memory.used
  CHECK(value(g, "pcie_rx_mean_mb_s") == Approx(250));
  CHECK(g.count("pcie_rx_max_mb_s") == 0);  // retired for the rank indicators (issue 21)
  CHECK(value(g, "pcie_tx_mean_mb_s") == Approx(50));
  CHECK(value(g, "pcie_gen_ratio") == Approx(0.7));  // (1 + 1 + 0.25 + 0.25 + 1) / 5
  CHECK(value(g, "pcie_width_ratio") == 1);
  // Idle: [3,4] at 100 W; busy 3 s; energy (295 + 245 + 150 + 100) J = 790 J.
  CHECK(value(g, "idle_power_w") == Approx(100));
  CHECK(value(g, "energy_per_busy_hour_kwh") == Approx(790.0 / 3000));
}

TEST_CASE("extract: kernel and driver event indicators, by hand", "[extract]") {
  extract::SampleCollector c;
  sample(c, 0, 0, {{Metric::power_w, 100}});
  sample(c, 4, 0, {{Metric::power_w, 100}});  // window 0..4 s
  incident(c, 1, "xid", "bucket", "reboot");
  incident(c, 3, "xid", "bucket", "restart_app");
  incident(c, 9, "xid", "bucket", "restart_app");  // outside the window
  incident(c, 2, "aer", "severity", "uncorrected_fatal");
  incident(c, 2, "aer", "severity", "uncorrected_nonfatal");
  incident(c, 2, "modeset");
  incident(c, 2, "thermal", "state", "throttled");
  incident(c, 3, "thermal", "state", "normal");  // back to normal: not counted
  incident(c, 1, "driver", "action", "load");
  incident(c, 2, "driver", "action", "reset");
  incident(c, 2, "driver", "action", "unload");
  incident(c, 3, "oom");
  auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  const IndicatorSet& h = f->host_indicators;
  CHECK(value(h, "xid_first_s") == Approx(1));
  CHECK(h.count("xid_last_s") == 0);              // retired for the rank indicators (issue 21)
  CHECK(value(h, "aer_uncorrected_count") == 2);  // the fatal one too
  CHECK(h.count("modeset_error_count") == 0);     // retired in version 2
  CHECK(value(h, "thermal_event_count") == 1);
  CHECK(value(h, "driver_load_count") == 1);
  CHECK(value(h, "gpu_reset_count") == 1);
  CHECK(value(h, "oom_kill_count") == 1);
}

namespace {

/// A generated day-like log: two GPUs at 1 Hz with a gap, every metric varying, incidents.
void generated(extract::SampleCollector& c, double from_s, double to_s) {
  for (int gpu = 0; gpu < 2; ++gpu)
    for (int t = 0; t < 1200; ++t) {
      if (t < from_s || t >= to_s || (t > 500 && t < 540 && gpu == 1)) continue;  // GPU 1: a 40 s gap
      const double k = t * 0.37 + gpu;
      sample(c, t, gpu,
             {{Metric::power_w, 150 + 120 * std::sin(k)},
              {Metric::sm_pct, t % 7 == 0 ? 0 : std::fmod(k * 13, 100)},
              {Metric::mem_pct, std::fmod(k * 7, 100)},
              {Metric::temp_c, 70 + 10 * std::sin(k / 5)},
              {Metric::mem_temp_c, 75 + 8 * std::cos(k / 3)},
              {Metric::pclk_mhz, 1200 + 600 * std::cos(k)},
              {Metric::pclk_max_mhz, 1980},
              {Metric::mclk_mhz, 1500 + 100 * std::sin(k)},
              {Metric::throttle_mask, (t / 11) % 3 == 0   ? 0
                                      : (t / 11) % 3 == 1 ? 4
                                                          : 0x41},
              {Metric::fb_mib, 1000 + t},
              {Metric::fb_total_mib, 81920},
              {Metric::rxpci_mb_s, 100 + t % 50},
              {Metric::power_limit_w, 250},
              {Metric::power_default_limit_w, 300},
              {Metric::pcie_gen, 1 + t % 4},
              {Metric::pcie_gen_max, 4},
              {Metric::pcie_width, 16},
              {Metric::pcie_width_max, 16}});
    }
  for (double t : {100.0, 420.0, 800.0, 1100.0})
    if (t >= from_s && t < to_s) incident(c, t, "xid", "bucket", "restart_app");
  if (300 >= from_s && 300 < to_s) incident(c, 300, "oom");
}

Features extract_part(double from_s, double to_s) {
  extract::SampleCollector c;
  InputStats kernel_log;
  kernel_log.format = Format::syslog;  // so that "no Xid" reads 0, not null
  c.note_inputs({kernel_log});
  generated(c, from_s, to_s);
  auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  // Through the JSON document, as `gpucost merge` reads it.
  auto back = extract::features_from_json(extract::features_to_json(*f), "part.json");
  REQUIRE(back.has_value());
  return *back;
}

bool mergeable(const extract::IndicatorDef& d) {
  static const std::set<std::string_view> kNot = {"temp_rolling_crossings",
                                                  // stretches of the sessions, step times and rates
                                                  "battery_s", "suspend_s", "gpu_unavailable_s", "step_time_mean_s",
                                                  "step_time_p95_s", "samples_per_s", "iterations_per_s"};
  // The chain is not: a crossing near one document's end has its errors in the next; nor are
  // the pmon counts (a process can run in both windows).
  return d.category != "trace" && d.category != "chain" && d.category != "processes" && kNot.count(d.key) == 0;
}

void check_same(const IndicatorSet& whole, const IndicatorSet& merged) {
  for (const auto& d : extract::catalogue()) {
    const std::string key(d.key);
    const auto w = whole.find(key), m = merged.find(key);
    if (w == whole.end()) continue;
    INFO(key);
    REQUIRE(m != merged.end());
    if (!mergeable(d)) {
      CHECK_FALSE(m->second.value.has_value());
      continue;
    }
    REQUIRE(w->second.value.has_value() == m->second.value.has_value());
    if (w->second.value) CHECK(*m->second.value == Approx(*w->second.value).epsilon(1e-9).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("merge: extract of the whole log equals the merge of the extracts of its halves", "[extract][merge]") {
  const Features whole = extract_part(0, 1e9);
  for (const double cut : {300.0, 517.0, 700.0}) {  // 517 lies in GPU 1's gap
    INFO("cut at " << cut << " s");
    std::vector<Features> parts = {extract_part(cut, 1e9), extract_part(0, cut)};  // any order
    auto merged = extract::merge_features(parts);
    REQUIRE(merged.has_value());
    CHECK(merged->from_ns == whole.from_ns);
    CHECK(merged->to_ns == whole.to_ns);
    CHECK(merged->merged_from == 2);
    REQUIRE(merged->gpus.size() == 2);
    check_same(whole.host_indicators, merged->host_indicators);
    for (std::size_t i = 0; i < 2; ++i) check_same(whole.gpus[i].indicators, merged->gpus[i].indicators);
    // The profile: the documents' own gap fills (at each document's mean power) stay as they were.
    CHECK(merged->energy_profile.total() == Approx(whole.energy_profile.total()).epsilon(2e-3));
    // 1200 samples per GPU: every sketch is exact, so the quantiles above merged exactly.
    for (const auto& g : whole.gpus) {
      for (const auto& q : g.sketches->held) CHECK(q.exact());
      CHECK(g.sketches->intervals.exact());
    }
  }
}

TEST_CASE("merge: several hosts keep their GPUs apart, overlaps and old documents are refused", "[extract][merge]") {
  Features a = extract_part(0, 600), b = extract_part(0, 600);
  b.host = "node2";
  auto merged = extract::merge_features({a, b});
  REQUIRE(merged.has_value());
  CHECK(merged->host == "node1,node2");
  REQUIRE(merged->gpus.size() == 4);
  CHECK(merged->gpus[2].host == "node2");
  CHECK(value(merged->host_indicators, "gpu_count") == 4);
  CHECK(value(merged->host_indicators, "energy_kwh") ==
        Approx(value(a.host_indicators, "energy_kwh") + value(b.host_indicators, "energy_kwh")));
  CHECK(value(merged->host_indicators, "xid_count") == 2 * value(a.host_indicators, "xid_count"));
  // The same host twice over the same window: samples would count twice.
  CHECK_FALSE(extract::merge_features({a, a}).has_value());
  // A single document merges into itself.
  auto one = extract::merge_features({a});
  REQUIRE(one.has_value());
  CHECK(value(one->gpus[0].indicators, "power_p95_w") == value(a.gpus[0].indicators, "power_p95_w"));
  Features old = a;
  for (auto& g : old.gpus) g.partials.clear();
  CHECK_FALSE(extract::merge_features({old}).has_value());
}

namespace {

constexpr std::int64_t kMs = 1'000'000;

/// One --query-gpu row of the generated log.
struct Row {
  std::int64_t ms = 0;  // after 2024-06-12 00:00:00 UTC
  int gpu = 0;
  double power = 0;
  int temp = 0, util = 0;
};

/// Two GPUs, 3000 samples each: GPU 0 every second with a few ms of jitter and power with two
/// decimals (more distinct values than the exact cap: buckets), GPU 1 at irregular intervals of
/// 0.5-6 s (ms: buckets for the median interval) and whole-watt power (exact).
std::vector<Row> generated_rows() {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> jitter(-4, 4), step(500, 6000), watts(60, 400), centi(6000, 45000);
  std::vector<Row> rows;
  std::int64_t t1 = 0;
  for (int i = 0; i < 3000; ++i) {
    rows.push_back({i * 1000LL + jitter(rng) + 10, 0, centi(rng) / 100.0, 55 + (i / 40) % 30, (i * 37) % 101});
    rows.push_back({t1, 1, static_cast<double>(watts(rng)), 60 + (i / 25) % 25, i % 9 == 0 ? 0 : 50 + i % 51});
    t1 += step(rng);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.ms < b.ms; });
  return rows;
}

std::string query_csv(const std::vector<Row>& rows, std::size_t from, std::size_t to) {
  std::string text = "timestamp, index, power.draw [W], temperature.gpu, utilization.gpu [%]\n";
  for (std::size_t i = from; i < to; ++i) {
    const Row& r = rows[i];
    const std::int64_t s = r.ms / 1000;
    text += fmt::format("2024/06/12 {:02}:{:02}:{:02}.{:03}, {}, {:.2f} W, {}, {} %\n", s / 3600, s / 60 % 60, s % 60,
                        r.ms % 1000, r.gpu, r.power, r.temp, r.util);
  }
  return text;
}

Features extract_csv(const std::string& text) {
  auto reader = io::LineReader::from_string(text);
  auto clock = LocalClock::make("UTC");
  extract::SampleCollector c;
  InputStats stats;
  REQUIRE(prep::run_prep_input(*reader, {}, *clock, c, stats));
  auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  auto back = extract::features_from_json(extract::features_to_json(*f), "part.json");
  REQUIRE(back.has_value());
  return *back;
}

/// The exact time-weighted quantile of one GPU's column (every interval is covered).
double exact_quantile(const std::vector<Row>& rows, int gpu, double Row::*column, double q) {
  std::vector<std::pair<double, double>> vw;
  const Row* prev = nullptr;
  for (const Row& r : rows) {
    if (r.gpu != gpu) continue;
    if (prev != nullptr) vw.emplace_back(prev->*column, static_cast<double>((r.ms - prev->ms) * kMs) / 1e9);
    prev = &r;
  }
  std::sort(vw.begin(), vw.end());
  double total = 0, acc = 0;
  for (const auto& p : vw) total += p.second;
  std::size_t i = 0;
  while (i + 1 < vw.size() && acc + vw[i].second < q * total * (1 - 1e-12)) acc += vw[i++].second;
  return vw[i].first;
}

double exact_median_interval(const std::vector<Row>& rows, int gpu) {
  std::vector<double> d;
  const Row* prev = nullptr;
  for (const Row& r : rows) {
    if (r.gpu != gpu) continue;
    if (prev != nullptr) d.push_back(static_cast<double>((r.ms - prev->ms) * kMs) / 1e9);
    prev = &r;
  }
  std::sort(d.begin(), d.end());
  return d.size() % 2 == 1 ? d[d.size() / 2] : (d[d.size() / 2 - 1] + d[d.size() / 2]) / 2;
}

}  // namespace

TEST_CASE("merge: quantiles of a generated query CSV merge within the sketch's error", "[extract][merge][sketch]") {
  const std::vector<Row> rows = generated_rows();
  const Features whole = extract_csv(query_csv(rows, 0, rows.size()));
  REQUIRE(whole.gpus.size() == 2);
  const auto& s0 = *whole.gpus[0].sketches;
  const auto& s1 = *whole.gpus[1].sketches;
  REQUIRE_FALSE(s0.held[0].exact());  // GPU 0 power: buckets
  REQUIRE(s0.intervals.exact());
  REQUIRE(s1.held[0].exact());  // GPU 1 power: whole watts
  REQUIRE_FALSE(s1.intervals.exact());
  const double alpha = extract::detail::QuantileSketch::kAlpha;
  const auto near = [&](double got, double exact) {
    return std::abs(got - exact) <= alpha * std::abs(exact) * (1 + 1e-9);
  };
  // The whole log's quantiles against the exact ones.
  for (int gpu = 0; gpu < 2; ++gpu) {
    INFO("GPU " << gpu);
    const IndicatorSet& g = whole.gpus[static_cast<std::size_t>(gpu)].indicators;
    CHECK(near(value(g, "power_p95_w"), exact_quantile(rows, gpu, &Row::power, 0.95)));
    CHECK(near(value(g, "sample_interval_median_s"), exact_median_interval(rows, gpu)));
  }
  CHECK(value(whole.gpus[1].indicators, "power_p95_w") == exact_quantile(rows, 1, &Row::power, 0.95));

  const char* keys[] = {"power_p95_w", "sample_interval_median_s"};
  for (const std::size_t cut : {rows.size() / 2, rows.size() / 3 + 1, rows.size() - 7}) {
    INFO("cut after row " << cut);
    auto merged =
        extract::merge_features({extract_csv(query_csv(rows, 0, cut)), extract_csv(query_csv(rows, cut, rows.size()))});
    REQUIRE(merged.has_value());
    REQUIRE(merged->gpus.size() == 2);
    for (std::size_t gpu = 0; gpu < 2; ++gpu) {
      const auto& sk = *whole.gpus[gpu].sketches;
      for (const char* key : keys) {
        INFO("GPU " << gpu << " " << key);
        const double w = value(whole.gpus[gpu].indicators, key), m = value(merged->gpus[gpu].indicators, key);
        const std::string k = key;
        const bool exact = k == "sample_interval_median_s" ? sk.intervals.exact() : sk.held[0].exact();
        if (exact)
          CHECK(m == Approx(w).epsilon(1e-12));
        else
          CHECK(near(m, w));
      }
    }
    // The host row: the mean over the GPUs, as for any intensive indicator.
    for (const char* key : keys)
      CHECK(value(merged->host_indicators, key) ==
            Approx((value(merged->gpus[0].indicators, key) + value(merged->gpus[1].indicators, key)) / 2));
  }
}

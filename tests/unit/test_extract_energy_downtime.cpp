// extract: the energy bounds (F049, F050), the downtime after incidents (F051) and the per-minute
// energy profile, against series small enough to integrate by hand (docs/indicators.md).
#include <catch2/catch.hpp>

#include <gpucost/core/event.hpp>
#include <gpucost/extract/extract.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace gpucost;

constexpr double kJPerKwh = 3.6e6;
constexpr std::int64_t kSec = 1'000'000'000;
// 1 700 000 000 s since the epoch is 20 s into a UTC minute: minutes start at t = 40, 100, 160.
constexpr std::int64_t kT0 = 1'700'000'000 * kSec;
constexpr std::int64_t kMinuteOfT0 = 1'700'000'000 / 60;  // 28 333 333, starts at t = -20 s
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

std::int64_t at(double t_s) { return kT0 + static_cast<std::int64_t>(std::llround(t_s * 1e9)); }

void sample(extract::SampleCollector& c, int gpu, double t_s, double power_w, double util_pct = kNone) {
  Event ev;
  ev.ts_ns = at(t_s);
  ev.kind = "sample";
  ev.gpu = gpu;
  if (!std::isnan(power_w)) ev.set(Metric::power_w, power_w);
  if (!std::isnan(util_pct)) ev.set(Metric::sm_pct, util_pct);
  c.on_event(ev);
}

void incident(extract::SampleCollector& c, double t_s, const char* kind, const char* key = nullptr,
              const char* value = nullptr) {
  Event ev;
  ev.ts_ns = at(t_s);
  ev.kind = kind;
  if (key != nullptr) ev.add_text(key, value);
  c.on_event(ev);
}

double value(const extract::IndicatorSet& set, const std::string& key) {
  INFO("indicator " << key);
  const auto it = set.find(key);
  REQUIRE(it != set.end());
  REQUIRE(it->second.value.has_value());
  return *it->second.value;
}

const extract::IndicatorSet& gpu(const extract::Features& f, int index) {
  for (const auto& g : f.gpus)
    if (g.gpu == index) return g.indicators;
  FAIL("no GPU " << index);
  return f.gpus.front().indicators;
}

// Two GPUs in the window t = 30 .. 120 s (--from/--to):
//   GPU 0: t 35: 100 W, 45: 300 W, 50: 300 W, 110: 100 W. Intervals 10, 5, 60 s; median 10 s,
//          gap limit max(10, 50) = 50 s, so 50 -> 110 is a gap. Covered 15 s, uncovered 90 - 15 = 75 s.
//          trapezoid (100 + 300) / 2 x 10 + 300 x 5 = 2000 + 1500 = 3500 J, mean 3500 / 15 = 233.33 W,
//          filled 233.33 x 75 = 17500 J, energy 21000 J.
//   GPU 1: t 40: 100 W, 50: 100 W. Covered 10 s, uncovered 80 s, trapezoid 1000 J, mean 100 W,
//          filled 8000 J, energy 9000 J.
extract::Features two_gpus() {
  extract::SampleCollector c;
  for (auto [t, p] : {std::pair{35.0, 100.0}, {45.0, 300.0}, {50.0, 300.0}, {110.0, 100.0}}) sample(c, 0, t, p);
  sample(c, 1, 40, 100);
  sample(c, 1, 50, 100);
  extract::ExtractOptions o;
  o.from_ns = at(30);
  o.to_ns = at(120);
  auto f = extract::compute_features(c, o);
  REQUIRE(f);
  return *f;
}

}  // namespace

TEST_CASE("extract: the left and right Riemann sums behind the energy bounds (partials)", "[extract][energy]") {
  const auto f = two_gpus();
  // GPU 0 left: 100 x 10 + 300 x 5 = 2500 J; right: 300 x 10 + 300 x 5 = 4500 J (the partials
  // power.held and power.right); the trapezoid 3500 J lies between them, + 17500 J filled.
  CHECK(value(gpu(f, 0), "energy_kwh") == Approx(21000.0 / kJPerKwh));
  const auto& p0 = f.gpus.at(0).partials;
  CHECK(p0.at("power.held") == Approx(2500.0));
  CHECK(p0.at("power.right") == Approx(4500.0));
  CHECK(p0.at("power.trap") == Approx(3500.0));
  // GPU 1: flat 100 W, left = right = trapezoid: 1000 J.
  const auto& p1 = f.gpus.at(1).partials;
  CHECK(p1.at("power.held") == Approx(1000.0));
  CHECK(p1.at("power.right") == Approx(1000.0));
  CHECK(value(f.host_indicators, "energy_kwh") == Approx(30000.0 / kJPerKwh));
}

TEST_CASE("extract: energy bounds, Riemann sums +-5 W and the extreme samples over gaps (F049, F050)",
          "[extract][energy]") {
  const auto f = two_gpus();
  // GPU 0 low:  min(2500, 4500) - 5 W x 15 s + smallest sample 100 W x 75 s = 2500 - 75 + 7500 = 9925 J
  //        high: max(2500, 4500) + 5 W x 15 s + largest sample 300 W x 75 s = 4500 + 75 + 22500 = 27075 J
  CHECK(value(gpu(f, 0), "energy_low_kwh") == Approx(9925.0 / kJPerKwh));
  CHECK(value(gpu(f, 0), "energy_high_kwh") == Approx(27075.0 / kJPerKwh));
  // GPU 1 low: 1000 - 5 x 10 + 100 x 80 = 8950 J; high: 1000 + 50 + 100 x 80 = 9050 J
  CHECK(value(gpu(f, 1), "energy_low_kwh") == Approx(8950.0 / kJPerKwh));
  CHECK(value(gpu(f, 1), "energy_high_kwh") == Approx(9050.0 / kJPerKwh));
  // Host: 9925 + 8950 = 18875 J; 27075 + 9050 = 36125 J
  CHECK(value(f.host_indicators, "energy_low_kwh") == Approx(18875.0 / kJPerKwh));
  CHECK(value(f.host_indicators, "energy_high_kwh") == Approx(36125.0 / kJPerKwh));
}

TEST_CASE("extract: the lower energy bound is never below 0", "[extract][energy]") {
  // 0 W for 4 s, fully covered: min(0, 0) - 5 W x 4 s = -20 J -> 0; high = 0 + 20 J.
  extract::SampleCollector c;
  for (double t : {0.0, 1.0, 2.0, 3.0, 4.0}) sample(c, 0, t, 0);
  const auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(value(gpu(*f, 0), "energy_low_kwh") == 0.0);
  CHECK(value(gpu(*f, 0), "energy_high_kwh") == Approx(20.0 / kJPerKwh));
}

TEST_CASE("extract: energy profile by UTC minute, each interval in the minute it starts", "[extract][energy]") {
  const auto f = two_gpus();
  // Minutes: A = [-20, 40), B = [40, 100), C = [100, 160) s after kT0.
  //   GPU 0: window start 30 -> first sample 35, 5 s at the mean 233.33 W = 1166.67 J -> A
  //          [35, 45] trapezoid 2000 J -> A;  [45, 50] 1500 J -> B;  gap [50, 110] 60 s x 233.33 = 14000 J -> B
  //          last sample 110 -> window end 120, 10 s x 233.33 = 2333.33 J -> C
  //   GPU 1: 30 -> 40 at 100 W = 1000 J -> A;  [40, 50] 1000 J -> B;  50 -> 120, 70 s x 100 W = 7000 J -> B
  //   A = 1166.67 + 2000 + 1000 = 4166.67 J, B = 1500 + 14000 + 1000 + 7000 = 23500 J, C = 2333.33 J
  const auto& p = f.energy_profile;
  const auto& m = p.kwh_by_minute;
  REQUIRE(m.size() == 3);
  CHECK(m.begin()->first == kMinuteOfT0);
  CHECK(m.at(kMinuteOfT0) == Approx((1166.0 + 2.0 / 3.0 + 2000 + 1000) / kJPerKwh));
  CHECK(m.at(kMinuteOfT0 + 1) == Approx(23500.0 / kJPerKwh));
  CHECK(m.at(kMinuteOfT0 + 2) == Approx((2333.0 + 1.0 / 3.0) / kJPerKwh));
  // Its sum is the host energy: 30000 J.
  CHECK(p.total() == Approx(value(f.host_indicators, "energy_kwh")));
}

TEST_CASE("extract: energy profile buckets before the epoch round down", "[extract][energy]") {
  extract::EnergyProfile p;
  p.add(-1, 1.0);             // 1 ns before the epoch: minute -1
  p.add(0, 2.0);              // minute 0
  p.add(60 * kSec + 5, 3.0);  // minute 1
  p.add(59 * kSec, 4.0);      // minute 0 again
  REQUIRE(p.kwh_by_minute.size() == 3);
  CHECK(p.kwh_by_minute.at(-1) == 1.0);
  CHECK(p.kwh_by_minute.at(0) == 6.0);
  CHECK(p.kwh_by_minute.at(1) == 3.0);
  CHECK(p.total() == 10.0);
}

TEST_CASE("extract: a sample years off costs two profile minutes, not millions", "[extract][energy]") {
  extract::SampleCollector c;
  for (const std::int64_t t : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1718200000}}) {  // 1970 and 2024
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "sample";
    ev.set(Metric::power_w, 100);
    c.on_event(ev);
  }
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(f->energy_profile.kwh_by_minute.size() <= 3);
  CHECK(f->energy_profile.total() == Approx(value(f->host_indicators, "energy_kwh")));
  const std::string json = extract::features_to_json(*f);
  CHECK(json.size() < 100000);
  auto back = extract::features_from_json(json, "f.json");
  REQUIRE(back);
  CHECK(back->energy_profile.kwh_by_minute == f->energy_profile.kwh_by_minute);
}

TEST_CASE("extract: downtime is the union of [event, next busy sample of any GPU] (F051)", "[extract][downtime]") {
  extract::SampleCollector c;
  // GPU 0 every 10 s from 0 to 100 s; busy (util > 0) at 0, 10, 20, 50, 60, 70, 80; idle at 30, 40, 90, 100.
  for (int t = 0; t <= 100; t += 10) {
    const bool busy = (t <= 20) || (t >= 50 && t <= 80);
    sample(c, 0, t, 200, busy ? 50 : 0);
  }
  sample(c, 1, 0, 100, 0);
  sample(c, 1, 42, 100, 10);                            // GPU 1 busy at 42 s: work resumed on any GPU
  incident(c, 25, "xid", "bucket", "reset_gpu");        // next busy sample: GPU 1 at 42 -> [25, 42], 17 s
  incident(c, 45, "suspend");                           // next busy: GPU 0 at 50 -> [45, 50], 5 s
  incident(c, 46, "suspend");                           // the same suspend seen by another layer: dropped
  incident(c, 48, "lid", "state", "closed");            // not an interruption of its own
  incident(c, 55, "power_source", "state", "online");   // AC back: not an interruption
  incident(c, 95, "power_source", "state", "offline");  // no busy sample after: window end 100 -> 5 s
  incident(c, 300, "gpu_lost");                         // after the window: ignored
  InputStats kern;
  kern.format = Format::syslog;
  c.note_inputs({kern});
  const auto f = extract::compute_features(c, {});
  REQUIRE(f);
  // 17 + 5 + 5 = 27 s
  CHECK(value(f->host_indicators, "downtime_s") == Approx(27.0));
  REQUIRE(f->incidents.size() == 3);
  CHECK(f->incidents[0].kind == "xid");
  CHECK(f->incidents[0].bucket == "reset_gpu");
  CHECK(*f->incidents[0].downtime_s == Approx(17.0));
  CHECK(f->incidents[1].kind == "suspend");
  CHECK(*f->incidents[1].downtime_s == Approx(5.0));
  CHECK(f->incidents[2].kind == "ac_offline");
  CHECK(*f->incidents[2].downtime_s == Approx(5.0));

  SECTION("overlapping downtimes count once") {
    extract::SampleCollector d;
    for (int t = 0; t <= 60; t += 10) sample(d, 0, t, 200, t == 0 || t == 60 ? 50 : 0);
    incident(d, 5, "xid", "bucket", "restart_app");  // [5, 60] 55 s
    incident(d, 15, "gpu_lost");                     // [15, 60] inside it
    d.note_inputs({kern});
    const auto g = extract::compute_features(d, {});
    REQUIRE(g);
    CHECK(value(g->host_indicators, "downtime_s") == Approx(55.0));
    REQUIRE(g->incidents.size() == 2);
    CHECK(*g->incidents[1].downtime_s == Approx(45.0));
    CHECK(g->incidents[1].bucket == "reboot");  // a GPU off the bus needs a reboot
  }
  SECTION("without utilisation samples the downtime is null with a reason") {
    extract::SampleCollector d;
    sample(d, 0, 0, 200);
    sample(d, 0, 10, 200);
    incident(d, 5, "suspend");
    d.note_inputs({kern});
    const auto g = extract::compute_features(d, {});
    REQUIRE(g);
    const auto& v = g->host_indicators.at("downtime_s");
    CHECK_FALSE(v.value);
    CHECK(v.reason.find("utilisation") != std::string::npos);
  }
}

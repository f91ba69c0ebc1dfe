// breakeven: time-of-use tariffs (across midnight, at DST changes), incidents, always-on
// machines, sensitivity, energy bounds and the Monte-Carlo, against hand-computed cases.
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/tariff.hpp>
#include <gpucost/core/time.hpp>

#include <set>
#include <string>

namespace {

using namespace gpucost;
using breakeven::CostConfig;
using breakeven::JobInputs;
using breakeven::TouWindow;
using gpucost::testing::reference_config;
using gpucost::testing::reference_job;

constexpr std::int64_t kMin = 60 * kNsPerSecond;

std::int64_t utc(const char* iso) {
  const auto t = parse_iso8601(iso);
  REQUIRE(t);
  return t->civil.as_utc_ns() - t->offset_s.value_or(0) * kNsPerSecond;
}

TouWindow window(const char* days, const char* hours, double price, const char* months = "") {
  TouWindow w;
  auto d = breakeven::parse_days(days);
  REQUIRE(d);
  w.days = *d;
  auto m = breakeven::parse_months(months);
  REQUIRE(m);
  w.months = *m;
  REQUIRE(breakeven::parse_hours(hours, w));
  w.price_per_kwh = price;
  w.text = std::string(days) + " " + hours;
  return w;
}

breakeven::Tariff tariff(std::vector<TouWindow> w, const char* zone, double flat = 0.20) {
  auto t = breakeven::Tariff::make(flat, std::move(w), zone);
  REQUIRE(t);
  return *t;
}

}  // namespace

TEST_CASE("tariff: day, hour and month lists", "[breakeven][tou]") {
  CHECK(*breakeven::parse_days("mon-fri") == 0x1fu);
  CHECK(*breakeven::parse_days("sat,sun") == 0x60u);
  CHECK(*breakeven::parse_days("fri-mon") == (0x10u | 0x20u | 0x40u | 0x01u));  // wraps
  CHECK(*breakeven::parse_days("") == 0x7fu);
  CHECK(*breakeven::parse_months("jun-sep") == (0x20u | 0x40u | 0x80u | 0x100u));
  CHECK(*breakeven::parse_months("11-2") == (0x400u | 0x800u | 0x1u | 0x2u));
  CHECK_FALSE(breakeven::parse_days("mon-fry"));
  TouWindow w;
  CHECK_FALSE(breakeven::parse_hours("08:00", w));
  CHECK_FALSE(breakeven::parse_hours("08:00-08:00", w));
  CHECK_FALSE(breakeven::parse_hours("08:00-25:00", w));
  REQUIRE(breakeven::parse_hours("22:00-06:00", w));
  CHECK(w.start_min == 1320);
  CHECK(w.end_min == 360);
}

TEST_CASE("tariff: a window across midnight belongs to the day it starts on", "[breakeven][tou]") {
  // Friday 22:00 to Saturday 06:00 at 0.10, else 0.20 (UTC). 2024-06-14 is a Friday.
  const auto t = tariff({window("fri", "22:00-06:00", 0.10)}, "UTC");
  CHECK(t.price_at(utc("2024-06-14T21:59:00Z")) == 0.20);
  CHECK(t.price_at(utc("2024-06-14T22:00:00Z")) == 0.10);
  CHECK(t.price_at(utc("2024-06-15T05:59:00Z")) == 0.10);  // Saturday morning: Friday's window
  CHECK(t.price_at(utc("2024-06-15T06:00:00Z")) == 0.20);
  CHECK(t.price_at(utc("2024-06-15T22:30:00Z")) == 0.20);  // Saturday night: not a Friday
  CHECK(t.price_at(utc("2024-06-14T01:00:00Z")) == 0.20);  // Friday morning: Thursday's night
}

TEST_CASE("tariff: windows follow the zone's DST changes", "[breakeven][tou]") {
  // Europe/Berlin, 08:00-22:00 every day at 0.40. Clocks went forward on 2024-03-31 at 01:00 UTC
  // (02:00 CET -> 03:00 CEST) and back on 2024-10-27 at 01:00 UTC.
  const auto t = tariff({window("", "08:00-22:00", 0.40)}, "Europe/Berlin");
  CHECK(t.price_at(utc("2024-03-30T06:30:00Z")) == 0.20);  // 07:30 CET
  CHECK(t.price_at(utc("2024-03-30T07:00:00Z")) == 0.40);  // 08:00 CET
  CHECK(t.price_at(utc("2024-03-31T06:30:00Z")) == 0.40);  // 08:30 CEST, the day of the change
  CHECK(t.price_at(utc("2024-03-31T05:59:00Z")) == 0.20);  // 07:59 CEST
  CHECK(t.price_at(utc("2024-03-31T20:00:00Z")) == 0.20);  // 22:00 CEST
  CHECK(t.price_at(utc("2024-10-27T06:59:00Z")) == 0.20);  // 07:59 CET after the change back
  CHECK(t.price_at(utc("2024-10-27T07:00:00Z")) == 0.40);  // 08:00 CET
  CHECK(t.price_at(utc("2024-10-26T06:00:00Z")) == 0.40);  // 08:00 CEST the day before
}

TEST_CASE("tariff: months restrict a window, overlapping windows are refused", "[breakeven][tou]") {
  const auto t = tariff({window("mon-fri", "08:00-20:00", 0.50, "jun-aug")}, "UTC");
  CHECK(t.price_at(utc("2024-07-01T10:00:00Z")) == 0.50);  // a Monday in July
  CHECK(t.price_at(utc("2024-09-02T10:00:00Z")) == 0.20);  // a Monday in September
  CHECK(breakeven::check_overlaps({window("mon-fri", "08:00-22:00", 0.4), window("sat,sun", "08:00-22:00", 0.3)}));
  const auto bad =
      breakeven::check_overlaps({window("mon-fri", "08:00-22:00", 0.4), window("fri", "21:00-07:00", 0.1)});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("windows 1 (mon-fri 08:00-22:00) and 2 (fri 21:00-07:00) overlap") !=
        std::string::npos);
  // Across midnight into Saturday: overlaps a Saturday window from 05:00.
  CHECK_FALSE(breakeven::check_overlaps({window("fri", "22:00-06:00", 0.1), window("sat", "05:00-09:00", 0.3)}));
}

TEST_CASE("tariff: energy-weighted prices of a profile", "[breakeven][tou]") {
  // 1 kWh in the minute starting 07:59 UTC (flat 0.20), 3 kWh in the minute starting 08:00 (0.40).
  const auto t = tariff({window("", "08:00-22:00", 0.40)}, "UTC");
  extract::EnergyProfile p;
  const std::int64_t from = utc("2024-06-14T07:59:00Z");
  p.add(from + 30 * kNsPerSecond, 1.0);
  p.add(from + kMin, 3.0);
  // GPU: (1 x 0.20 + 3 x 0.40) / 4 = 1.4 / 4 = 0.35. System over 07:59-08:01: (60 x 0.2 + 60 x 0.4) / 120 = 0.30.
  // Mean with 4 kWh GPU and 1 kWh system: (4 x 0.35 + 1 x 0.30) / 5 = 1.7 / 5 = 0.34.
  const auto prices = breakeven::energy_prices(t, p, from, from + 2 * kMin, 4.0, 1.0);
  CHECK(prices.gpu == Approx(0.35));
  CHECK(prices.system == Approx(0.30));
  CHECK(prices.mean == Approx(0.34));
}

TEST_CASE("breakeven: time of use prices the reference job by hand", "[breakeven][tou]") {
  // Reference job 2024-06-14 06:00-08:00 UTC; peak 07:00-22:00 at 0.50, flat 0.30. GPU energy:
  // 0.6 kWh in the first hour (off-peak), 0.3 kWh in the second (peak).
  CostConfig c = reference_config();
  c.tou = {window("", "07:00-22:00", 0.50)};
  c.tariff_tz = "UTC";
  JobInputs j = reference_job();
  j.from_ns = utc("2024-06-14T06:00:00Z");
  j.to_ns = utc("2024-06-14T08:00:00Z");
  j.profile.add(j.from_ns, 0.6);
  j.profile.add(j.from_ns + 60 * kMin, 0.3);
  const auto r = breakeven::compute(c, j);
  // p_gpu = (0.6 x 0.30 + 0.3 x 0.50) / 0.9 = 0.33 / 0.9 = 0.366667; p_sys = (0.30 + 0.50) / 2 = 0.40
  CHECK(r.prices.gpu == Approx(0.33 / 0.9));
  CHECK(r.prices.system == Approx(0.40));
  // system 100 W x 2 h = 0.2 kWh; mean = (0.33 + 0.2 x 0.40) / 1.1 = 0.41 / 1.1 = 0.372727
  CHECK(r.prices.mean == Approx(0.41 / 1.1));
  // C_e = 1.2 x (0.33 + 0.08) = 0.492
  CHECK(r.electricity == Approx(0.492));
  CHECK(breakeven::check_job(c, j));
  j.profile = {};
  CHECK_FALSE(breakeven::check_job(c, j));  // a time-of-use tariff needs the profile
}

TEST_CASE("breakeven: incidents cost operator time and add to maintenance", "[breakeven][incidents]") {
  JobInputs j = reference_job();
  // Faults as extract groups them (an `ignore` Xid alone is none); a suspend is an interruption.
  const auto fault = [](std::int64_t ts, const char* kind, const char* bucket, int code) {
    extract::WindowFault f;
    f.ts_ns = f.last_ts_ns = ts;
    f.bucket = bucket;
    f.members = {{kind, code, 1}};
    f.count = 1;
    return f;
  };
  j.faults = {fault(1, "xid", "reset_gpu", 79), fault(2, "gpu_lost", "reboot", -1), fault(5, "xid", "unknown", 999)};
  j.incidents = {{3, "suspend", "", -1, 90.0}};
  j.downtime_s = 720;  // 0.2 h
  const auto r = breakeven::compute(reference_config(), j);
  REQUIRE(r.incidents.size() == 4);
  CHECK(r.incidents[0].cost == Approx(25.0));  // 50 x 0.5
  CHECK(r.incidents[1].cost == Approx(50.0));  // 50 x 1.0 (gpu_lost = reboot)
  CHECK(r.incidents[2].cost == 0.0);           // an interruption costs downtime only
  CHECK(r.incidents[2].fault.members[0].kind == "suspend");
  CHECK(r.incidents[3].cost == Approx(25.0));  // unknown: 0.5 h
  CHECK(r.incident_cost == Approx(100.0));
  CHECK(r.maintenance == Approx(1000.0 / 2044.0 + 100.0));
  CHECK(r.local_total == Approx(1.8637103718 + 100.0));
  CHECK(*r.downtime_h == Approx(0.2));
  CHECK(*r.downtime_share == Approx(0.1));  // 0.2 h of 2 h
  // v includes the incidents per job hour: (0.396 + 100) / 2 = 50.198 > r = 1.583: no H*.
  CHECK_FALSE(r.use_hours_per_year.value);
}

TEST_CASE("breakeven: an always-on machine pays idle power in the use-per-year break-even", "[breakeven][always_on]") {
  CostConfig c = reference_config();
  c.always_on = true;
  c.idle_power_w = 200;
  const auto r = breakeven::compute(c, reference_job());
  // I = 200 / 1000 x 1.2 x 0.30 = 0.072 per idle hour
  CHECK(r.idle_cost_per_hour == Approx(0.072));
  CHECK(r.idle_cost_per_year == Approx((8760 - 2044) * 0.072));  // 483.552
  // H* = (1500 + 8760 x 0.072) / (19/12 - 0.198 + 0.072) = 2130.72 / 1.457333 = 1462.065
  REQUIRE(r.use_hours_per_year.value);
  CHECK(*r.use_hours_per_year.value == Approx(2130.72 / (19.0 / 12.0 - 0.198 + 0.072)));
  CHECK(*r.use_hours_per_year.value == Approx(1462.0654));
  // No break-even: the cloud at 0.01/h costs less per hour than the electricity minus the idle saving.
  c.rate_per_hour = 0.01;
  c.fixed_per_job = 0;
  c.idle_power_w = 10;  // I = 0.0036; r = 0.01 x 4800 / 3600 / 2 = 0.006667; r - v + I = -0.1877
  const auto none = breakeven::compute(c, reference_job());
  CHECK_FALSE(none.use_hours_per_year.value);
  CHECK(none.use_hours_per_year.reason.find("no use per year breaks even") != std::string::npos);
}

TEST_CASE("breakeven: sensitivity recomputes the premium at 0.8x and 1.2x, largest swing first", "[breakeven]") {
  const CostConfig c = reference_config();
  const JobInputs j = reference_job();
  const auto prices = breakeven::price_energy(c, j);
  const auto s = breakeven::sensitivity(c, j, prices);
  // Every parameter of C_L and C_C; price and cooling swing alike and share one row.
  REQUIRE(s.size() == breakeven::parameters().size() - 1);
  CHECK(s.size() == 20);
  for (std::size_t i = 1; i < s.size(); ++i) CHECK(s[i - 1].swing() >= s[i].swing());
  std::set<std::string> names;
  for (const auto& x : s) names.insert(x.parameter);
  for (const char* p :
       {"price_per_kwh, cooling_factor", "hourly_wage", "maintenance_hours_per_year", "residual_fraction",
        "billing_minimum_s", "billing_increment_s", "fixed_per_job", "idle_power_w", "incident_hours.reboot"})
    CHECK(names.count(p) == 1);
  CHECK(names.count("cooling_factor") == 0);
  for (const auto& x : s) {
    if (x.parameter == "hourly_wage") {
      // C_m x 1.2 = 0.587084: C_L = 0.396 + 0.978474 + 0.587084 = 1.961558; / 3.166667 - 1
      CHECK(x.premium_high == Approx(1.961558 / (19.0 / 6) - 1).epsilon(1e-5));
    }
    if (x.parameter == "price_per_kwh, cooling_factor") {
      // C_e x 1.2 = 0.4752 either way: C_L = 1.943310
      CHECK(x.premium_high == Approx((0.4752 + 6000.0 / 6132 + 1000.0 / 2044) / (19.0 / 6) - 1));
    }
    if (x.parameter != "rate_per_hour") continue;
    // rate x 0.8 = 1.6: C_C = 1.6 x 4800 / 3600 + 0.5 = 2.633333; premium = 1.863710 / 2.633333 - 1
    CHECK(x.premium_low == Approx(1.8637103718 / (1.6 * 4800 / 3600 + 0.5) - 1));
    CHECK(x.premium_high == Approx(1.8637103718 / (2.4 * 4800 / 3600 + 0.5) - 1));
  }
  CHECK(s.front().parameter == "rate_per_hour");  // swing 0.204 against speed_ratio 0.113
}

TEST_CASE("breakeven: premium range from the energy bounds, Monte-Carlo is reproducible", "[breakeven]") {
  const CostConfig c = reference_config();
  JobInputs j = reference_job();
  const auto prices = breakeven::price_energy(c, j);
  // No energy bounds: the billing rounding alone bounds the premium; 4800 s is whole minutes, so
  // by the second it bills the same and the range is the point.
  const auto billing_only = breakeven::premium_range(c, j, prices);
  REQUIRE(billing_only.low);
  CHECK(*billing_only.low == Approx(*billing_only.high));
  REQUIRE(billing_only.missing.size() == 1);
  CostConfig per_second = c;
  per_second.billing_increment_s = 1;
  CHECK_FALSE(breakeven::premium_range(per_second, j, prices).low);
  j.energy_low_kwh = 0.8;
  j.energy_high_kwh = 1.0;
  const auto pr = breakeven::premium_range(c, j, prices);
  // C_e(0.8) = 1.2 x 0.30 x (0.8 + 0.2) = 0.36; local = 0.36 + 0.978474 + 0.489237 = 1.827710
  REQUIRE(pr.low);
  CHECK(*pr.low == Approx((0.36 + 6000.0 / 6132 + 1000.0 / 2044) / (19.0 / 6) - 1));
  CHECK(*pr.high == Approx((0.432 + 6000.0 / 6132 + 1000.0 / 2044) / (19.0 / 6) - 1));
  CostConfig ranged = c;
  ranged.ranges["rate_per_hour"] = {0.5, 2.0};
  const auto a = breakeven::monte_carlo(ranged, j, prices, 2000, 7);
  const auto b = breakeven::monte_carlo(ranged, j, prices, 2000, 7);
  CHECK(a.probability_local_cheaper == b.probability_local_cheaper);
  // premium < 0 when C_C > 1.863710: rate x 4/3 + 0.5 > 1.863710 -> rate > 1.022783; P = (2 - 1.022783) / 1.5 = 0.6515
  CHECK(a.probability_local_cheaper == Approx(0.6515).margin(0.03));
}

TEST_CASE("cloud catalogue: the bundled offers parse and carry a date and a source", "[breakeven][clouds]") {
  const auto& offers = breakeven::cloud_offers();
  REQUIRE(offers.size() >= 15);
  for (const auto& o : offers) {
    INFO(o.name);
    CHECK(o.date_seen.size() == 10);
    CHECK(o.source.rfind("https://", 0) == 0);
    CHECK(o.price_per_hour > 0);
  }
  auto h = breakeven::find_cloud_offer("runpod-h100-sxm", breakeven::cloud_offers());
  REQUIRE(h);
  const auto c = breakeven::with_offer(reference_config(), *h, 2);
  CHECK(c.rate_per_hour == Approx(2 * 2.99));
  CHECK(c.speed_ratio_source == "default");
  const auto missing = breakeven::find_cloud_offer("runpod-h100-sx", breakeven::cloud_offers());
  REQUIRE_FALSE(missing);
  CHECK(missing.error().hint.find("runpod-h100-sxm") != std::string::npos);
}

namespace {

// The reference job with a 290 s cold start: q W + cold start = 4790 s, billed 4800 s by the
// minute and 4790 s by the second.
CostConfig rounding_config() {
  CostConfig c = reference_config();
  c.cold_start_s = 290;
  return c;
}

}  // namespace

TEST_CASE("breakeven: the premium range combines energy bounds, the speed ratio's range and billing rounding",
          "[breakeven][verdict]") {
  CostConfig c = rounding_config();
  JobInputs j = reference_job();
  const auto prices = breakeven::price_energy(c, j);
  // C_L = 1.863710 (E = 0.9 kWh). C_C by the minute 2 x 4800 / 3600 + 0.5 = 3.166667, by the second
  // 2 x 4790 / 3600 + 0.5 = 3.161111.
  const double local = 1.8637103718;
  const auto billing = breakeven::premium_range(c, j, prices);
  REQUIRE(billing.parts.size() == 1);
  CHECK(billing.parts[0].name == "billing rounding");
  CHECK(billing.parts[0].low == Approx(local / (2.0 * 4800 / 3600 + 0.5) - 1));
  CHECK(billing.parts[0].high == Approx(local / (2.0 * 4790 / 3600 + 0.5) - 1));
  // The speed ratio's range [1.5, 3]: q = 0.25 + 0.75 / 1.5 = 0.75 -> 5400 + 290 = 5690 s, billed
  // 5700 s (5690 s by the second); q = 0.25 + 0.25 = 0.5 -> 3890 s, billed 3900 s (3890 s).
  c.speed_ratio_low = 1.5;
  c.speed_ratio_high = 3.0;
  j.energy_low_kwh = 0.8;   // C_e(0.8) = 1.2 x 0.30 x (0.8 + 0.2) = 0.36: C_L = 1.827710
  j.energy_high_kwh = 1.0;  // C_e(1.0) = 0.432: C_L = 1.899710
  const auto r = breakeven::premium_range(c, j, prices);
  REQUIRE(r.parts.size() == 3);
  CHECK(r.parts[0].name == "energy");
  CHECK(r.parts[1].name == "speed ratio");
  CHECK(r.parts[1].low == Approx(local / (2.0 * 5700 / 3600 + 0.5) - 1));
  CHECK(r.parts[1].high == Approx(local / (2.0 * 3900 / 3600 + 0.5) - 1));
  const double low_local = 0.36 + 6000.0 / 6132 + 1000.0 / 2044, high_local = 0.432 + 6000.0 / 6132 + 1000.0 / 2044;
  REQUIRE(r.low);
  // The lowest: the least energy, the slowest cloud, billed by the minute; the highest: the most
  // energy, the fastest cloud, billed by the second.
  CHECK(*r.low == Approx(low_local / (2.0 * 5700 / 3600 + 0.5) - 1));
  CHECK(*r.high == Approx(high_local / (2.0 * 3890 / 3600 + 0.5) - 1));
  CHECK_FALSE(r.job_hours_low);  // the cloud costs more per hour at every corner: no T*
  REQUIRE(r.use_hours_low);
  CHECK(*r.use_hours_low <= *r.use_hours_high);
}

TEST_CASE("breakeven: a verdict only when the range is on one side of the line, and none for an unfit offer",
          "[breakeven][verdict]") {
  CostConfig c = rounding_config();
  const JobInputs j = reference_job();
  const auto prices = breakeven::price_energy(c, j);
  const double by_minute = 1.8637103718 / (2.0 * 4800 / 3600 + 0.5) - 1;  // -0.411460
  const double by_second = 1.8637103718 / (2.0 * 4790 / 3600 + 0.5) - 1;  // -0.410426
  c.line = (by_minute + by_second) / 2;  // the line between the two: rounding alone decides
  auto r = breakeven::evaluate(c, j, prices);
  CHECK_FALSE(r.above_line);  // the point, by the minute, is below
  const auto range = breakeven::premium_range(c, j, prices);
  breakeven::decide_verdict(r, range, "");
  CHECK(r.undecided);
  CHECK_FALSE(r.above_line);
  CHECK(std::string(breakeven::verdict_word(r)) == "undecided");
  CHECK(r.verdict_reason == "billing rounding alone moves it across the line");
  // The line below both: the whole range is above, the verdict holds.
  c.line = by_minute - 0.001;
  auto above = breakeven::evaluate(c, j, prices);
  breakeven::decide_verdict(above, breakeven::premium_range(c, j, prices), "");
  CHECK(above.above_line);
  CHECK(std::string(breakeven::verdict_word(above)) == "above");
  // An offer that cannot run the job: no verdict, whatever the premium.
  breakeven::decide_verdict(above, breakeven::premium_range(c, j, prices), "1 GPU, the job ran on 2");
  CHECK(above.unfit);
  CHECK_FALSE(above.above_line);
  CHECK(std::string(breakeven::verdict_word(above)) == "unfit");
}

TEST_CASE("breakeven: sensitivity samples [0.8x, 1.2x], so a turn inside shows", "[breakeven][verdict]") {
  const CostConfig c = rounding_config();
  const JobInputs j = reference_job();
  const auto prices = breakeven::price_energy(c, j);
  for (const auto& s : breakeven::sensitivity(c, j, prices)) {
    INFO(s.parameter);
    CHECK(s.premium_min <= std::min(s.premium_low, s.premium_high));
    CHECK(s.premium_max >= std::max(s.premium_low, s.premium_high));
    if (s.parameter != "billing_increment_s") continue;
    // 4790 s in increments of 48 s (0.8x): 100 -> 4800 s; of 72 s (1.2x): 67 -> 4824 s. Between them
    // 63 s (1.05x) bills 77 x 63 = 4851 s and 67.5 s (1.125x) 71 x 67.5 = 4792.5 s: the swing is
    // the premium at 4792.5 s less that at 4851 s, more than the ends' difference.
    CHECK(s.premium_low == Approx(1.8637103718 / (2.0 * 4800 / 3600 + 0.5) - 1));
    CHECK(s.premium_high == Approx(1.8637103718 / (2.0 * 4824 / 3600 + 0.5) - 1));
    CHECK(s.premium_max == Approx(1.8637103718 / (2.0 * 4792.5 / 3600 + 0.5) - 1));
    CHECK(s.premium_min == Approx(1.8637103718 / (2.0 * 4851 / 3600 + 0.5) - 1));
    CHECK(s.swing() > std::abs(s.premium_high - s.premium_low));
  }
}

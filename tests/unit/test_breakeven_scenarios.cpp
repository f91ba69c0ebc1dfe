// The verdict scenarios of docs/cost-model.md ("Verdict scenarios"): each row of that table,
// computed by hand there, reproduced here through the model. The base is one GPU for W = 1 h,
// 0.3 kWh, busy throughout (ū = 1); 0.30/kWh, hardware 3066 over 3 years of 2044 h (0.50 per
// job hour), nothing else local; the cloud 1.00/h at speed 1, billed per second, no minimum:
//   C_L = 0.09 + 0.50 = 0.59, C_C = 1.00, premium -0.41, no T*, H* = 1022 / 0.91 = 1123.08 h/y.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/price_job.hpp>
#include <gpucost/breakeven/reference_rates.hpp>

#include <fmt/format.h>

#include <string>

namespace {

using namespace gpucost;
using breakeven::CostConfig;
using breakeven::JobInputs;

CostConfig base_config() {
  CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 3066;
  c.lifetime_years = 3;
  c.use_hours_per_year = 2044;
  c.rate_per_hour = 1.0;
  return c;
}

JobInputs base_job(double hours = 1.0) {
  JobInputs j;
  j.wall_h = hours;
  j.energy_kwh = {0.3 * hours};
  j.util = {1.0};
  return j;
}

/// The base job as a features document with a sampled share `coverage` of the window.
extract::Features base_features(double coverage) {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = 3600LL * 1'000'000'000;
  extract::GpuFeatures g;
  g.indicators["energy_kwh"] = {0.3, ""};
  g.indicators["energy_filled_fraction"] = {1.0 - coverage, ""};  // filled at mean power
  g.indicators["coverage"] = {coverage, ""};
  g.indicators["util_mean"] = {1.0, ""};
  g.indicators["fb_used_max_mib"] = {70.0 * 1024, ""};
  f.gpus.push_back(g);
  return f;
}

breakeven::CloudOffer usd_offer(double memory_gb) {
  const std::string toml = fmt::format(
      "[[offer]]\nname = \"test\"\nprovider = \"p\"\ninstance = \"i\"\ngpu_model = \"RTX 4090\"\n"
      "gpu_memory_gb = {}\nper_gpu = true\nmax_gpus = 8\nprice_per_hour = 1.0\ncurrency = \"USD\"\n"
      "date_seen = \"2026-11-01\"\nsource = \"test\"\n",
      memory_gb);
  auto parsed = breakeven::parse_cloud_offers(toml, "test");
  REQUIRE(parsed);
  return parsed->front();
}

bool has_notice(const breakeven::PricedJob& p, const std::string& text) {
  for (const auto& n : p.notices)
    if (n.text.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("scenario 1: the base case", "[breakeven][scenarios]") {
  const auto r = breakeven::compute(base_config(), base_job());
  CHECK(r.local_total == Approx(0.59));
  CHECK(r.cloud_total == Approx(1.0));
  CHECK(r.premium == Approx(-0.41));
  CHECK_FALSE(r.job_hours.value);  // c_L 0.59 <= rate 1.00: local is cheaper at every length
  CHECK_FALSE(r.line_job_hours.value);
  CHECK(*r.use_hours_per_year.value == Approx(1022.0 / 0.91));  // 1123.08
}

TEST_CASE("scenario 2: a 20-minute job against a 10 h billing minimum", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.rate_per_hour = 0.4;
  c.cold_start_s = 60;
  c.billing_minimum_s = 36000;
  const auto r = breakeven::compute(c, base_job(1.0 / 3));
  CHECK(r.cloud_total == Approx(4.0));             // the minimum: 10 h x 0.40
  CHECK(r.premium == Approx(0.59 / 3 / 4.0 - 1));  // -0.950833
  REQUIRE(r.job_hours.value);
  CHECK(*r.job_hours.value == Approx(4.0 / 0.59));  // 6.779661 h (the old formula: 2.1 min)
  REQUIRE(r.line_job_hours.value);
  CHECK(*r.line_job_hours.value == Approx(4.48 / 0.59));                 // 7.593220 h
  CHECK(*r.use_hours_per_year.value == Approx(1022.0 / (12.0 - 0.09)));  // 85.81: r = 4.0 / (1/3) h
}

TEST_CASE("scenario 3: an incident storm is one fault", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.hourly_wage = 50;
  c.cold_start_s = 360;
  c.faults = "all-local";  // the application's fault on the owner alone, as before causes
  JobInputs j = base_job();
  extract::WindowFault storm;  // 635 Xid 13 then an Xid 43: restart_app, priced once
  storm.bucket = "restart_app";
  storm.cause = "application";
  storm.count = 636;
  j.faults.push_back(storm);
  const auto r = breakeven::compute(c, j);
  CHECK(r.incident_cost == Approx(5.0));  // 0.1 h x 50, not 636 x 5
  CHECK(r.local_total == Approx(5.59));
  CHECK(r.cloud_total == Approx(1.1));                     // (3600 + 360) s at 1.00/h
  CHECK(r.premium == Approx(5.59 / 1.1 - 1));              // 4.081818
  CHECK(*r.job_hours.value == Approx(0.1 / 4.59));         // 0.021786 h
  CHECK(*r.line_job_hours.value == Approx(0.112 / 4.47));  // 0.025056 h
  CHECK_FALSE(r.use_hours_per_year.value);
  CHECK(r.use_hours_per_year.reason.rfind("incident labour 5.00 USD per job hour alone exceeds the cloud's 1.10 USD",
                                          0) == 0);
  // Both sides (the default): 5.00 in both totals, out of the comparison: 0.59 / 1.10 - 1.
  c.faults = "both-sides";
  const auto both = breakeven::compute(c, j);
  CHECK(both.cloud_total == Approx(6.1));
  CHECK(both.premium == Approx(0.59 / 1.1 - 1));  // -0.463636
  CHECK(*both.use_hours_per_year.value == Approx(1022 / (1.1 - 0.09)));
}

TEST_CASE("scenario 4: a quarter of the window sampled", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.idle_power_w = 40;
  breakeven::PriceOptions o;
  auto mean = breakeven::price_job(c, std::nullopt, base_features(0.25), o);
  REQUIRE(mean);
  CHECK(mean->result.premium == Approx(-0.41));  // the energy as extract filled it
  CHECK(has_notice(*mean, "samples cover 25.0 % of the window: 0.2250 of 0.3000 kWh (75 %) is estimated"));
  o.fill = breakeven::FillRule::idle;  // 0.075 measured + 0.75 h x 40 W = 0.105 kWh
  auto idle = breakeven::price_job(c, std::nullopt, base_features(0.25), o);
  REQUIRE(idle);
  CHECK(idle->result.local_total == Approx(0.0315 + 0.5));
  CHECK(idle->result.premium == Approx(-0.4685));
  CHECK(*idle->result.use_hours_per_year.value == Approx(1022.0 / (1.0 - 0.0315)));  // 1055.24
  o.fill = breakeven::FillRule::none;                                                // 0.075 kWh over 0.25 h
  auto none = breakeven::price_job(c, std::nullopt, base_features(0.25), o);
  REQUIRE(none);
  CHECK(none->result.local_total == Approx(0.0225 + 0.125));
  CHECK(none->result.cloud_total == Approx(0.25));
  CHECK(none->result.premium == Approx(-0.41));
}

TEST_CASE("scenario 5: a USD offer priced in EUR", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.currency = "EUR";
  c.exchange["USD"] = 0.92;
  c.exchange_date = "2026-11-28";
  auto p = breakeven::price_job(c, usd_offer(80), base_features(1.0), {});
  REQUIRE(p);
  CHECK(p->result.cloud_total == Approx(0.92));
  CHECK(p->result.premium == Approx(0.59 / 0.92 - 1));                  // -0.358696
  CHECK(*p->result.use_hours_per_year.value == Approx(1022.0 / 0.83));  // 1231.33
  CHECK(has_notice(*p, "exchange USD->EUR 0.92 of 2026-11-28, from config"));
  c.exchange.clear();  // no rate: no answer
  const auto refused = breakeven::price_job(c, usd_offer(80), base_features(1.0), {});
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("exchange.USD") != std::string::npos);
}

TEST_CASE("scenario 5b: the rate's age: one warning past 90 days, whichever rate converted", "[breakeven][scenarios]") {
  const auto warnings = [](const breakeven::PricedJob& p) {
    int n = 0;
    for (const auto& x : p.notices) n += x.warning && x.text.find("the exchange rate") != std::string::npos ? 1 : 0;
    return n;
  };
  CostConfig c = base_config();
  c.currency = "EUR";
  c.exchange["USD"] = 0.92;
  c.exchange_date = "2026-11-28";
  breakeven::PriceOptions o;
  o.today = "2027-02-26";  // 90 days: not yet
  auto p = breakeven::price_job(c, usd_offer(80), base_features(1.0), o);
  REQUIRE(p);
  CHECK(warnings(*p) == 0);
  o.today = "2027-02-27";  // 91 days
  p = breakeven::price_job(c, usd_offer(80), base_features(1.0), o);
  REQUIRE(p);
  CHECK(warnings(*p) == 1);
  CHECK(has_notice(*p,
                   "the exchange rate USD->EUR 0.92 is of 2026-11-28, 91 days ago (the config's [exchange]): set "
                   "[exchange] USD and date to a rate of today"));
  // Without the config's rate: the built-in ECB rates of 2026-10-02 (1.1225 USD per EUR), their age likewise.
  c.exchange.clear();
  c.exchange_date.clear();
  breakeven::use_newest_rates(c, std::nullopt);
  o.today = "2026-12-31";  // 90 days
  p = breakeven::price_job(c, usd_offer(80), base_features(1.0), o);
  REQUIRE(p);
  CHECK(p->result.cloud_total == Approx(1.0 / 1.1225));  // 0.890869
  CHECK(
      has_notice(*p, "exchange USD->EUR 0.890869, from the ECB euro reference rates of 2026-10-02 built into gpucost"));
  CHECK(warnings(*p) == 0);
  o.today = "2027-01-01";
  p = breakeven::price_job(c, usd_offer(80), base_features(1.0), o);
  REQUIRE(p);
  CHECK(warnings(*p) == 1);
  CHECK(has_notice(*p,
                   "the exchange rate USD->EUR 0.890869 is of 2026-10-02, 91 days ago (the ECB's reference rate "
                   "built into gpucost): run gpucost offers update, or set [exchange] USD in the config"));
  // An offer in the config's currency needs no rate, and gets no warning however old the rates.
  c.currency = "USD";
  breakeven::use_newest_rates(c, std::nullopt);
  o.today = "2030-01-01";
  p = breakeven::price_job(c, usd_offer(80), base_features(1.0), o);
  REQUIRE(p);
  CHECK(warnings(*p) == 0);
}

TEST_CASE("scenario 6: an offer that cannot hold the job", "[breakeven][scenarios]") {
  auto p = breakeven::price_job(base_config(), usd_offer(24), base_features(1.0), {});
  REQUIRE(p);
  CHECK(p->config.cloud_unfit == "24 GB per GPU, the job used up to 70.0 GiB (+5 % margin)");
  CHECK(has_notice(*p, "offer 'test' cannot run this job as logged"));
  CHECK(p->result.premium == Approx(-0.41));  // computed, but said not to be a verdict
}

TEST_CASE("scenario 7: electricity outruns the cloud (cents typed as units)", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.price_per_kwh = 5.0;
  auto p = breakeven::price_job(c, std::nullopt, base_features(1.0), {});
  REQUIRE(p);
  const auto& r = p->result;
  CHECK(r.local_total == Approx(2.0));
  CHECK(r.premium == Approx(1.0));
  CHECK(*r.job_hours.value == 0);  // no per-job cost in the cloud: it is cheaper at every length
  CHECK_FALSE(r.use_hours_per_year.value);
  CHECK(r.use_hours_per_year.reason.rfind("electricity 1.50 USD per job hour alone exceeds the cloud's 1.00 USD", 0) ==
        0);
  CHECK(has_notice(*p, "cents entered as units?"));
}

TEST_CASE("scenario 8: hourly billing, the answer alternates", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.rate_per_hour = 0.5;
  c.billing_increment_s = 3600;
  const auto r = breakeven::compute(c, base_job(1.5));
  CHECK(r.cloud_total == Approx(1.0));    // 2 h billed
  CHECK(r.premium == Approx(0.885 - 1));  // -0.115
  // 0.59 T against 0.5 x ceil(T): local dearer from 0.5 / 0.59, cheaper again at each hour while
  // 0.59 n < 0.5 (n + 1), i.e. up to n = 5; from 5.084746 h the cloud for good.
  const std::vector<double> want = {0.5 / 0.59, 1, 1.0 / 0.59, 2, 1.5 / 0.59, 3,
                                    2.0 / 0.59, 4, 2.5 / 0.59, 5, 3.0 / 0.59};
  REQUIRE(r.job_crossings.points.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(r.job_crossings.points[i].hours == Approx(want[i]));
    CHECK(r.job_crossings.points[i].local_cheaper_below == (i % 2 == 0));
  }
  CHECK(*r.job_hours.value == Approx(0.847458).epsilon(1e-6));
  CHECK(*r.use_hours_per_year.value == Approx(1022.0 / (1.0 / 1.5 - 0.09)));  // 1772.25
}

TEST_CASE("scenario 9: an always-on machine pays its idle hours", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.always_on = true;
  c.idle_power_w = 100;  // I = 0.1 kW x 0.30 = 0.03 per idle hour
  const auto r = breakeven::compute(c, base_job());
  CHECK(r.premium == Approx(-0.41));  // the job's own cost is unchanged
  CHECK(r.idle_cost_per_hour == Approx(0.03));
  CHECK(*r.use_hours_per_year.value == Approx((1022 + 8760 * 0.03) / (1.0 - 0.09 + 0.03)));  // 1366.81
}

TEST_CASE("scenario 10: the line is crossed later than the break-even", "[breakeven][scenarios]") {
  CostConfig c = base_config();
  c.rate_per_hour = 0.5;
  c.cold_start_s = 360;  // k = 0.05
  const auto r = breakeven::compute(c, base_job());
  CHECK(r.cloud_total == Approx(0.55));
  CHECK(r.premium == Approx(0.59 / 0.55 - 1));  // 0.072727: below the 12 % line
  CHECK_FALSE(r.above_line);
  CHECK(*r.job_hours.value == Approx(0.05 / 0.09));                 // 0.555556 h
  CHECK(*r.line_job_hours.value == Approx(0.056 / (0.59 - 0.56)));  // 1.866667 h
  CHECK(*r.use_hours_per_year.value == Approx(1022.0 / 0.46));      // 2221.74
}

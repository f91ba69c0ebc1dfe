// breakeven: kg CO2e of a job (docs/cost-model.md, "Carbon") against hand-computed cases, and the
// tables it reads (data/grid-carbon-intensity.tsv, data/cloud-pue.toml).
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include "support.hpp"

#include <gpucost/breakeven/carbon.hpp>
#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace gpucost;
using breakeven::CostConfig;
using breakeven::JobInputs;
using gpucost::testing::reference_job;

// The reference case of docs/cost-model.md: cooling 1.2, system 100 W, W = 2 h, E = 0.5 + 0.4 kWh,
// ū = 0.75 and speed ratio 2, so q = 0.25 + 0.75 / 2 = 0.625.
CostConfig reference_config() {
  CostConfig c;
  c.cooling_factor = 1.2;
  c.system_power_w = 100;
  c.speed_ratio = 2.0;
  return c;
}

constexpr double kQ = 0.625;

// A config as load_config leaves it: the keys named were given.
CostConfig with_keys(CostConfig c, std::initializer_list<const char*> keys) {
  for (const char* k : keys) c.keys_set.insert(k);
  return c;
}

const std::vector<std::string> kRequiredSets = {"electricity.price_per_kwh=0.30", "local.hardware_price=3000",
                                                "cloud.rate_per_hour=2.0"};

Expected<CostConfig> load_with(std::vector<std::string> sets, const std::optional<std::string>& path = {}) {
  sets.insert(sets.begin(), kRequiredSets.begin(), kRequiredSets.end());
  return breakeven::load_config(path, sets);
}

}  // namespace

TEST_CASE("carbon: the grid intensity table parses and holds what it says", "[breakeven][carbon]") {
  const auto& t = breakeven::grid_intensities();
  CHECK(t.size() >= 60);
  const auto* de = breakeven::find_grid_intensity("de");
  REQUIRE(de != nullptr);
  CHECK(de->country == "DE");
  CHECK(de->g_per_kwh == Approx(342.06));  // Ember 2024, as in the file
  CHECK(de->year == 2024);
  const auto* us = breakeven::find_grid_intensity("US");
  REQUIRE(us != nullptr);
  CHECK(us->g_per_kwh == Approx(383.55));
  CHECK(breakeven::find_grid_intensity("XX") == nullptr);
  for (const auto& g : t) {
    INFO(g.country);
    CHECK(g.country.size() == 2);
    CHECK(g.g_per_kwh >= 0);  // the Central African Republic: hydro only, 0
    CHECK(g.g_per_kwh < 1500);
    CHECK(g.year >= 2020);
  }
}

TEST_CASE("carbon: a malformed intensity row names its line", "[breakeven][carbon]") {
  const std::string good = "# comment\ncountry\tname\tg_co2e_per_kwh\tyear\nDE\tGermany\t342.06\t2024\n";
  auto ok = breakeven::parse_grid_intensities(good, "t.tsv");
  REQUIRE(ok);
  REQUIRE(ok->size() == 1);
  CHECK((*ok)[0].name == "Germany");
  auto bad = breakeven::parse_grid_intensities(good + "FR\tFrance\tforty\t2024\n", "t.tsv");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("t.tsv:4:") == 0);
  CHECK_FALSE(breakeven::parse_grid_intensities(good + "FRA\tFrance\t44\t2024\n", "t.tsv"));
  CHECK_FALSE(breakeven::parse_grid_intensities(good + "FR\tFrance\t44\n", "t.tsv"));
}

TEST_CASE("carbon: providers' PUE and every region's country", "[breakeven][carbon]") {
  const auto& t = breakeven::cloud_carbon_table();
  REQUIRE(breakeven::find_provider_pue("AWS") != nullptr);
  CHECK(breakeven::find_provider_pue("AWS")->pue == Approx(1.15));
  CHECK(breakeven::find_provider_pue("Google Cloud")->pue == Approx(1.09));
  CHECK(breakeven::find_provider_pue("Azure")->pue == Approx(1.18));
  CHECK(breakeven::find_provider_pue("Lambda") == nullptr);  // publishes none
  CHECK(breakeven::find_provider_pue("RunPod (secure cloud)") == nullptr);
  CHECK(t.fallback.pue == Approx(1.58));
  CHECK(breakeven::region_country("us-east-1") == "US");
  CHECK(breakeven::region_country("europe-west4") == "NL");
  CHECK(breakeven::region_country("westeurope") == "NL");
  CHECK(breakeven::region_country("varies").empty());
  CHECK(t.regions.size() >= 100);
  // Every region's country has an intensity, and so has every catalogue offer's region but "varies".
  for (const auto& [region, country] : t.regions) {
    INFO(region);
    CHECK(breakeven::find_grid_intensity(country) != nullptr);
  }
  for (const auto& o : breakeven::cloud_offers()) {
    INFO(o.name);
    if (o.region != "varies") CHECK_FALSE(breakeven::region_country(o.region).empty());
  }
}

TEST_CASE("carbon: the reference case by hand, a flat local intensity and an AWS region", "[breakeven][carbon]") {
  CostConfig c = with_keys(reference_config(), {"carbon.intensity_g_per_kwh", "local.cooling_factor"});
  c.carbon_intensity = 400;
  c.offer_provider = "AWS";
  c.offer_region = "eu-central-1";  // Frankfurt: DE, 342.06 g/kWh
  const auto r = breakeven::carbon_of(c, reference_job(), kQ);
  CHECK(r.computed);
  // local: IT energy 0.9 + 100 W x 2 h = 1.1 kWh; x1.2 cooling = 1.32 kWh; x 400 g/kWh = 528 g
  CHECK(r.local.it_kwh == Approx(1.1));
  CHECK(r.local.kwh == Approx(1.32));
  REQUIRE(r.local.kg);
  CHECK(*r.local.kg == Approx(0.528));
  CHECK(r.local.intensity_basis == "carbon.intensity_g_per_kwh");
  // cloud: 0.625 x 1.1 = 0.6875 kWh; x1.15 PUE = 0.790625 kWh; x 342.06 g/kWh = 270.4411875 g
  CHECK(r.cloud.it_kwh == Approx(0.6875));
  CHECK(r.cloud.overhead == Approx(1.15));
  CHECK(r.cloud.kwh == Approx(0.790625));
  REQUIRE(r.cloud.kg);
  CHECK(*r.cloud.kg == Approx(0.2704411875));
  CHECK(r.cloud.country == "DE");
  CHECK(r.cloud.overhead_basis == "AWS's PUE of 2024");
  CHECK(r.cloud.intensity_basis == "region eu-central-1: Germany (DE), Ember 2024 average");
}

TEST_CASE("carbon: by country, the reference case", "[breakeven][carbon]") {
  CostConfig c = reference_config();
  c.carbon_country = "FR";  // 44.18 g/kWh (Ember 2024)
  const auto r = breakeven::carbon_of(c, reference_job(), kQ);
  REQUIRE(r.local.kg);
  CHECK(*r.local.kg == Approx(1.32 * 44.18 / 1000));  // 0.0583176 kg
  CHECK(r.local.country == "FR");
  CHECK(r.local.intensity_basis.find("Ember 2024") != std::string::npos);
  // An explicit intensity wins over the country.
  c = with_keys(c, {"carbon.intensity_g_per_kwh"});
  c.carbon_intensity = 100;
  CHECK(*breakeven::carbon_of(c, reference_job(), kQ).local.kg == Approx(0.132));
}

TEST_CASE("carbon: an unknown intensity is unknown, never 0 kg", "[breakeven][carbon]") {
  const auto r = breakeven::carbon_of(reference_config(), reference_job(), kQ);
  CHECK_FALSE(r.local.kg);
  CHECK(r.local.reason.find("carbon.country") != std::string::npos);
  CHECK(r.local.kwh == Approx(1.32));  // the energy is still known
  CHECK_FALSE(r.cloud.kg);             // priced from the config: no region
  CHECK(r.cloud.reason.find("carbon.cloud_country") != std::string::npos);
  CostConfig c = reference_config();
  c.offer_provider = "RunPod (secure cloud)";
  c.offer_region = "varies";
  const auto v = breakeven::carbon_of(c, reference_job(), kQ);
  CHECK_FALSE(v.cloud.kg);
  CHECK(v.cloud.reason.find("'varies'") != std::string::npos);
  // RunPod publishes no PUE: the industry average, said so.
  CHECK(v.cloud.overhead == Approx(1.58));
  CHECK(v.cloud.overhead_basis.find("RunPod (secure cloud) publishes none") != std::string::npos);
}

TEST_CASE("carbon: the cloud's country, intensity and PUE from the config", "[breakeven][carbon]") {
  CostConfig c = reference_config();
  c.offer_provider = "Lambda";
  c.offer_region = "us";
  auto r = breakeven::carbon_of(c, reference_job(), kQ);
  REQUIRE(r.cloud.kg);
  // 0.6875 kWh x 1.58 (industry average) x 383.55 g/kWh (US)
  CHECK(*r.cloud.kg == Approx(0.6875 * 1.58 * 383.55 / 1000));
  c.carbon_cloud_country = "SE";  // for a region without a country only: "us" keeps US
  CHECK(breakeven::carbon_of(c, reference_job(), kQ).cloud.country == "US");
  c.offer_region = "varies";
  r = breakeven::carbon_of(c, reference_job(), kQ);
  CHECK(r.cloud.country == "SE");
  CHECK(r.cloud.intensity_basis == "carbon.cloud_country: Sweden (SE), Ember 2024 average");
  CHECK(*r.cloud.kg == Approx(0.6875 * 1.58 * 35.89 / 1000));
  c = with_keys(c, {"carbon.cloud_intensity_g_per_kwh", "carbon.cloud_pue"});
  c.carbon_cloud_intensity = 50;
  c.carbon_cloud_pue = 1.1;
  r = breakeven::carbon_of(c, reference_job(), kQ);
  CHECK(*r.cloud.kg == Approx(0.6875 * 1.1 * 50 / 1000));  // 0.0378125
  CHECK(r.cloud.overhead_basis == "PUE from carbon.cloud_pue");
}

TEST_CASE("carbon: time-of-use intensity weighs the energy profile", "[breakeven][carbon]") {
  // 1 kWh in the minute at 03:00 UTC (inside 00:00-06:00 at 100 g/kWh) and 1 kWh at 12:00 (flat
  // 500 g/kWh); no system power, cooling 1: (1 x 100 + 1 x 500) / 1000 = 0.6 kg.
  constexpr std::int64_t kMin = extract::EnergyProfile::kBucketNs;
  const std::int64_t day = 20000LL * 1440;  // 2024-10-04 00:00 UTC in minutes
  JobInputs j;
  j.wall_h = 12.0;
  j.energy_kwh = {2.0};
  j.util = {1.0};
  j.from_ns = day * kMin;
  j.to_ns = (day + 720) * kMin;
  j.profile.add_minute(day + 180, 1.0);
  j.profile.add_minute(day + 720 - 1, 1.0);
  auto c = load_with({"carbon.intensity_g_per_kwh=500"});
  REQUIRE(c);
  breakeven::TouWindow night;
  REQUIRE(breakeven::parse_hours("00:00-06:00", night));
  night.price_per_kwh = 100;
  night.text = "every day 00:00-06:00";
  c->carbon_tou = {night};
  const auto r = breakeven::carbon_of(*c, j, 1.0);
  REQUIRE(r.local.kg);
  CHECK(r.local.time_of_use);
  CHECK(*r.local.intensity_g_per_kwh == Approx(300));
  CHECK(*r.local.kg == Approx(0.6));
  // Without the profile (an old features document) the windows cannot be applied: unknown.
  j.profile = {};
  CHECK_FALSE(breakeven::carbon_of(*c, j, 1.0).local.kg);
}

TEST_CASE("carbon: the [carbon] section loads and refuses what it cannot use", "[breakeven][carbon]") {
  auto c = load_with({"carbon.country=de", "carbon.cloud_pue=1.2"});
  REQUIRE(c);
  CHECK(c->carbon_country == "de");
  CHECK(c->is_set("carbon.cloud_pue"));
  auto bad = load_with({"carbon.country=XY"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "carbon.country: 'XY' is not a country of data/grid-carbon-intensity.tsv");
  CHECK_FALSE(load_with({"carbon.cloud_country=Germany"}));
  CHECK_FALSE(load_with({"carbon.cloud_pue=0.9"}));  // a PUE is at least 1
  CHECK_FALSE(load_with({"carbon.intensity_g_per_kwh=-1"}));

  const test::ScratchDir dir{"carbon"};
  const auto write = [&dir](const std::string& name, const std::string& text) {
    const std::string p = (dir.path() / name).string();
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p;
  };
  const std::string tou = write("tou.toml", R"([carbon]
country = "DE"
[[carbon.tou]]
hours = "10:00-16:00"
months = "apr-sep"
intensity_g_per_kwh = 150
)");
  c = load_with({}, tou);
  REQUIRE(c);
  REQUIRE(c->carbon_tou.size() == 1);
  CHECK(c->carbon_tou[0].price_per_kwh == Approx(150));
  const std::string alone = write("alone.toml", R"([[carbon.tou]]
hours = "10:00-16:00"
intensity_g_per_kwh = 150
)");
  bad = load_with({}, alone);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("outside them") != std::string::npos);
  const std::string overlap = write("overlap.toml", R"([carbon]
intensity_g_per_kwh = 300
[[carbon.tou]]
hours = "10:00-16:00"
intensity_g_per_kwh = 150
[[carbon.tou]]
hours = "12:00-18:00"
intensity_g_per_kwh = 200
)");
  bad = load_with({}, overlap);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("carbon.tou: windows 1") == 0);
  const std::string typo = write("typo.toml", R"([[carbon.tou]]
hours = "10:00-16:00"
price_per_kwh = 150
)");
  bad = load_with({}, typo);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("carbon.tou[1]: unknown key 'price_per_kwh'") != std::string::npos);
}

TEST_CASE("carbon: with_offer gives the cloud side its provider and region", "[breakeven][carbon]") {
  breakeven::CloudOffer o;
  o.name = "x";
  o.provider = "Google Cloud";
  o.region = "europe-north1";
  o.price_per_hour = 3;
  const CostConfig c = breakeven::with_offer(reference_config(), o, 1);
  CHECK(c.offer_provider == "Google Cloud");
  CHECK(c.offer_region == "europe-north1");
  const auto r = breakeven::carbon_of(c, reference_job(), kQ);
  REQUIRE(r.cloud.kg);
  CHECK(r.cloud.country == "FI");
  CHECK(*r.cloud.kg == Approx(0.6875 * 1.09 * 72.25 / 1000));
}

TEST_CASE("carbon: kg for people never rounds a small figure to 0", "[breakeven][carbon]") {
  CHECK(breakeven::kg_text(1.0794) == "1.08");
  CHECK(breakeven::kg_text(0.11382) == "0.114");
  CHECK(breakeven::kg_text(0.01) == "0.010");
  CHECK(breakeven::kg_text(0.000493) == "0.00049");
  CHECK(breakeven::kg_text(0) == "0.000");  // a grid of 0 g/kWh (hydro only) is 0
}

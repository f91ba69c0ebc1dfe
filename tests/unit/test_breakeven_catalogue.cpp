// The cloud catalogue of a run: kinds, ages, filters, --clouds files (gpucost's TOML and a SkyPilot
// vms.csv, GCP's machine types joined with their GPUs) and how spot and reserved prices become
// rates per hour of use (docs/cost-model.md, "Cloud catalogue").
#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/prices/offer_catalogue.hpp>

#include "support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace gpucost;
using breakeven::CloudOffer;
using breakeven::OfferKind;

namespace {

const test::ScratchDir kDir{"catalogue"};

std::string write(const std::string& relative, const std::string& text) {
  const fs::path p = kDir.path() / relative;
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p.string();
}

const CloudOffer* named(const std::vector<CloudOffer>& offers, std::string_view name) {
  const auto it = std::find_if(offers.begin(), offers.end(), [&](const CloudOffer& o) { return o.name == name; });
  return it == offers.end() ? nullptr : &*it;
}

// Rows in the shape of SkyPilot's catalogs/v7/aws/vms.csv: two zones of one region, a CPU
// instance, a second region without a spot price, and a row whose price is not a number.
constexpr const char* kAwsVms =
    "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone\n"
    "p5.48xlarge,H100,8.0,192.0,2048.0,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, "
    "'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\",55.04,17.2,us-east-1,us-east-1a\n"
    "p5.48xlarge,H100,8.0,192.0,2048.0,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, "
    "'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\",55.04,16.95,us-east-1,us-east-1b\n"
    "m5.large,,,2.0,8.0,,0.096,0.04,us-east-1,us-east-1a\n"
    "p4d.24xlarge,A100,8.0,96.0,1152.0,\"{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, "
    "'MemoryInfo': {'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 327680}\",24.15,,us-west-2,us-west-2a\n"
    "g5.xlarge,A10G,1.0,4.0,16.0,,n/a,,us-east-1,us-east-1a\n";

// Google Cloud's shape (catalogs/v8/gcp/vms.csv): machine types without their GPUs, and the GPUs
// in rows of their own with an empty InstanceType.
constexpr const char* kGcpVms =
    "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice\n"
    "a3-highgpu-8g,208.0,1872.0,,,,us-central1,us-central1-a,9.46006,2.88933\n"
    "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.73948,0.36975\n"
    ",,,H100,1,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 1, 'MemoryInfo': {'SizeInMiB': "
    "81920}}], 'TotalGpuMemoryInMiB': 81920}\",us-central1,us-central1-a,9.79655,2.253\n"
    ",,,H100,2,\"{'Gpus': []}\",us-central1,us-central1-a,19.5931,4.506\n"
    "n1-standard-4,4.0,15.0,,,,us-central1,us-central1-a,0.19,0.04\n";

}  // namespace

TEST_CASE("catalogue: kind, confirmed and note are read, a kind that is not one is refused", "[breakeven]") {
  const auto offers = breakeven::parse_cloud_offers(R"(
[[offer]]
name = "x-spot"
provider = "X"
instance = "x8"
gpu_model = "H100"
gpus = 8
price_per_hour = 20.0
currency = "USD"
kind = "spot"
confirmed = false
note = "from a quote"
date_seen = "2026-11-01"
source = "mail"
)",
                                                    "t.toml");
  REQUIRE(offers);
  REQUIRE(offers->size() == 1);
  CHECK(offers->front().kind == OfferKind::spot);
  CHECK_FALSE(offers->front().confirmed);
  CHECK(offers->front().note == "from a quote");
  CHECK(offers->front().origin == "t.toml");
  const auto bad = breakeven::parse_cloud_offers(
      "[[offer]]\nname='a'\nprovider='X'\ninstance='i'\ngpu_model='L4'\nprice_per_hour=1.0\ncurrency='USD'\n"
      "kind='weekly'\ndate_seen='2026-01-01'\nsource='s'\n",
      "t.toml");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("kind 'weekly'") != std::string::npos);
}

TEST_CASE("catalogue: an offer missing a field names it and every field an offer needs", "[breakeven]") {
  const auto no_price = breakeven::parse_cloud_offers(
      "[[offer]]\nname='colo'\nprovider='X'\ninstance='i'\ngpu_model='L4'\ncurrency='USD'\ndate_seen='2026-01-01'\n"
      "source='quote'\n",
      "mine.toml");
  REQUIRE_FALSE(no_price);
  CHECK(no_price.error().message == "mine.toml: offer 'colo': 'price_per_hour' is missing");
  CHECK(no_price.error().hint.starts_with(
      "an [[offer]] needs name, provider, instance, gpu_model, price_per_hour, currency, date_seen and source"));
  const auto no_name = breakeven::parse_cloud_offers("[[offer]]\nprovider='X'\n", "mine.toml");
  REQUIRE_FALSE(no_name);
  CHECK(no_name.error().message == "mine.toml: offer 1: 'name' is missing");
  CHECK(no_name.error().hint.find("date_seen") != std::string::npos);
}

TEST_CASE("catalogue: every built-in offer has a kind, a date and a source", "[breakeven]") {
  for (const CloudOffer& o : breakeven::cloud_offers()) {
    INFO(o.name);
    CHECK(breakeven::price_age_days(o, "2030-01-01"));
    CHECK_FALSE(o.source.empty());
    CHECK(o.origin == "built-in");
    CHECK((o.confirmed || !o.note.empty()));  // an unconfirmed price says why
  }
}

TEST_CASE("catalogue: price age in whole days, none without dates", "[breakeven]") {
  CloudOffer o;
  o.date_seen = "2026-09-03";
  CHECK(breakeven::price_age_days(o, "2026-12-02") == 90);
  CHECK(breakeven::price_age_days(o, "2026-12-03") == 91);
  CHECK(breakeven::price_age_days(o, "2024-02-29").value() < 0);
  CHECK_FALSE(breakeven::price_age_days(o, ""));
  o.date_seen = "2026-02-30";
  CHECK_FALSE(breakeven::price_age_days(o, "2026-12-02"));
}

TEST_CASE("catalogue: offers list filters by GPU words, region start and kind", "[breakeven]") {
  const auto& all = breakeven::cloud_offers();
  const auto h100 = breakeven::filter_offers(all, {"h100", "", {}});
  REQUIRE_FALSE(h100.empty());
  for (const CloudOffer& o : h100) CHECK(o.gpu_model.find("H100") != std::string::npos);
  const auto a100_80 = breakeven::filter_offers(all, {"a100 80", "on-demand", {"us-"}});
  REQUIRE_FALSE(a100_80.empty());
  for (const CloudOffer& o : a100_80) {
    CHECK(o.gpu_model == "A100 80GB");
    CHECK(o.kind == OfferKind::on_demand);
    CHECK(o.region.starts_with("us-"));
  }
  CHECK(breakeven::filter_offers(all, {"", "spot", {}}).size() < all.size());
}

TEST_CASE("catalogue: a SkyPilot vms.csv of AWS: cheapest zone, spot apart, CPU rows ignored", "[breakeven]") {
  const std::string path = write("sky/aws/vms.csv", kAwsVms);
  auto c = prices::load_catalogue({"", {path}});
  REQUIRE(c);
  const CloudOffer* p5 = named(c->offers, "aws-p5.48xlarge");  // the default region: no suffix
  REQUIRE(p5);
  CHECK(p5->origin == path);  // it replaced the built-in offer of the same name
  CHECK(p5->price_per_hour == 55.04);
  CHECK(p5->gpus == 8);
  CHECK(p5->gpu_memory_gb == 80);
  CHECK(p5->gpu_model == "H100");
  CHECK(p5->billing_increment_s == 1);
  CHECK(p5->billing_minimum_s == 60);
  const CloudOffer* spot = named(c->offers, "aws-p5.48xlarge-spot");
  REQUIRE(spot);
  CHECK(spot->kind == OfferKind::spot);
  CHECK(spot->price_per_hour == 16.95);  // the cheaper zone
  const CloudOffer* p4d = named(c->offers, "aws-p4d.24xlarge-us-west-2");
  REQUIRE(p4d);
  CHECK(p4d->gpu_model == "A100 40GB");
  CHECK_FALSE(named(c->offers, "aws-p4d.24xlarge-us-west-2-spot"));
  CHECK_FALSE(named(c->offers, "aws-m5.large"));
  REQUIRE(c->notes.size() == 1);
  const std::string& note = c->notes.front();
  INFO(note);
  CHECK(note.find("SkyPilot vms.csv of AWS (5 rows): 3 offers") != std::string::npos);
  CHECK(note.find("rows without GPUs ignored: 1") != std::string::npos);
  CHECK(note.find("1 malformed (first: " + path + ":6:") != std::string::npos);
  CHECK(note.find("gpucost's defaults for AWS") != std::string::npos);
  CHECK(note.find("2 of them replace offers of the same name") != std::string::npos);
}

TEST_CASE("catalogue: GCP's machine types are priced with the GPUs they carry", "[breakeven]") {
  const std::string path = write("sky/gcp/vms.csv", kGcpVms);
  auto c = prices::load_catalogue({"", {path}});
  REQUIRE(c);
  const CloudOffer* a3 = named(c->offers, "gcp-a3-highgpu-8g");
  REQUIRE(a3);
  CHECK(a3->gpus == 8);
  CHECK(a3->gpu_model == "H100");
  CHECK(a3->gpu_memory_gb == 80);
  CHECK(a3->price_per_hour == Approx(9.46006 + 8 * 9.79655));  // 87.83246
  const CloudOffer* a3_spot = named(c->offers, "gcp-a3-highgpu-8g-spot");
  REQUIRE(a3_spot);
  CHECK(a3_spot->price_per_hour == Approx(2.88933 + 8 * 2.253));
  // a2-highgpu-1g's A100 has no price row here: left out and counted.
  CHECK(named(c->offers, "gcp-a2-highgpu-1g")->origin == "built-in");
  CHECK(c->notes.front().find("1 machine types without their GPUs' price") != std::string::npos);
}

TEST_CASE("catalogue: the user catalogue, then --clouds in order, replace offers by name", "[breakeven]") {
  const auto offer = [](const char* name, double price) {
    return fmt::format(
        "[[offer]]\nname = \"{}\"\nprovider = \"AWS\"\ninstance = \"p5.48xlarge\"\nregion = \"us-east-1\"\n"
        "gpu_model = \"H100\"\ngpu_memory_gb = 80\ngpus = 8\nprice_per_hour = {}\ncurrency = \"USD\"\n"
        "date_seen = \"2026-11-30\"\nsource = \"test\"\n",
        name, price);
  };
  const std::string user = write("user/offers.toml", offer("aws-p5.48xlarge", 50.0));
  const std::string mine = write("mine.toml", offer("aws-p5.48xlarge", 40.0) + offer("colo-h100", 30.0));
  auto c = prices::load_catalogue({user, {mine}});
  REQUIRE(c);
  CHECK(c->offers.size() == breakeven::cloud_offers().size() + 1);
  CHECK(named(c->offers, "aws-p5.48xlarge")->price_per_hour == 40.0);
  CHECK(named(c->offers, "colo-h100")->origin == mine);
  REQUIRE(c->notes.size() == 2);
  CHECK(c->notes[0] == "user catalogue " + user + ": 1 offers (1 of them replace offers of the same name)");
  // A user catalogue that does not exist yet is no error: offers update has not run.
  CHECK(prices::load_catalogue({(kDir.path() / "none.toml").string(), {}}));
  const auto missing = prices::load_catalogue({"", {(kDir.path() / "none.toml").string()}});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.starts_with("--clouds: "));
}

TEST_CASE("catalogue: spot as listed (or the flat overhead a config gives), a term every hour of the year",
          "[breakeven]") {
  breakeven::CostConfig c;
  c.use_hours_per_year = 4380;  // half the year
  CloudOffer o;
  o.name = "x";
  o.gpus = 8;
  o.price_per_hour = 10.0;
  o.date_seen = "2026-11-01";
  CHECK(breakeven::with_offer(c, o, 8).rate_per_hour == 10.0);
  CHECK(breakeven::with_offer(c, o, 8).offer_rate_basis.empty());
  o.kind = OfferKind::spot;
  // As listed: the cost model prices the interruptions in the billed time (test_breakeven_spot.cpp).
  CHECK(breakeven::with_offer(c, o, 8).rate_per_hour == Approx(10.0));
  CHECK(breakeven::with_offer(c, o, 8).offer_rate_basis.find("interruptions expected") != std::string::npos);
  // The older flat rule, when the config gives it: 10 x (1 + 0.10) = 11 per hour of use.
  c.spot_restart_overhead = 0.10;
  c.keys_set.insert("cloud.spot_restart_overhead");
  CHECK(breakeven::with_offer(c, o, 8).rate_per_hour == Approx(11.0));
  o.kind = OfferKind::reserved_1y;
  // 10 x 8760 / 4380 = 20 per hour of use: the idle half of the year is paid too
  const auto reserved = breakeven::with_offer(c, o, 8);
  CHECK(reserved.rate_per_hour == Approx(20.0));
  CHECK(reserved.offer_kind == "reserved-1y");
  CHECK(reserved.offer_rate_basis.find("8760 / 4380 h") != std::string::npos);
  c.use_hours_per_year = 8760;
  CHECK(breakeven::with_offer(c, o, 8).rate_per_hour == Approx(10.0));
}

TEST_CASE("catalogue: ECB reference rates convert through the euro when the config has no rate", "[breakeven]") {
  const std::string user = write("ecb/offers.toml", R"(
[exchange]
base = "EUR"
date = "2026-11-30"
source = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
USD = 1.0550
GBP = 0.8290

[[offer]]
name = "eu-h100"
provider = "EU cloud"
instance = "h100x1"
gpu_model = "H100"
gpus = 1
price_per_hour = 2.0
currency = "EUR"
date_seen = "2026-11-30"
source = "test"
)");
  auto c = prices::load_catalogue({user, {}});
  REQUIRE(c);
  REQUIRE(c->rates);
  // GBP per USD = (GBP per EUR) / (USD per EUR) = 0.8290 / 1.0550 = 0.785782
  CHECK(c->rates->rate("USD", "GBP").value() == Approx(0.785782).epsilon(1e-6));
  CHECK(c->rates->rate("EUR", "USD").value() == Approx(1.0550));
  CHECK_FALSE(c->rates->rate("USD", "JPY"));
  breakeven::CostConfig config;  // USD
  breakeven::use_reference_rates(config, *c->rates);
  CHECK(config.reference_exchange.at("EUR") == Approx(1.0550));
  CHECK(config.reference_exchange.at("GBP") == Approx(1.0550 / 0.8290));
  breakeven::JobShape shape;
  shape.gpus = 1;
  auto priced = breakeven::config_for_offer(config, *named(c->offers, "eu-h100"), shape);
  REQUIRE(priced);
  CHECK(priced->rate_per_hour == Approx(2.0 * 1.0550));
  CHECK(breakeven::exchange_text(*priced).find("from the ECB euro reference rates of 2026-11-30") != std::string::npos);
  // A rate of the config wins over the reference.
  config.exchange["EUR"] = 1.10;
  priced = breakeven::config_for_offer(config, *named(c->offers, "eu-h100"), shape);
  CHECK(priced->rate_per_hour == Approx(2.2));
  CHECK(breakeven::exchange_text(*priced).find("from config") != std::string::npos);
  const auto bad = breakeven::parse_euro_rates("[exchange]\nbase = \"USD\"\n", "x.toml");
  CHECK_FALSE(bad);
}

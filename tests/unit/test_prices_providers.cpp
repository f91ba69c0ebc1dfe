// The provider table (src/prices/providers.cpp) and its billing terms (data/provider-billing.toml):
// every row has its terms and every entry of the file a row, a fetchable row says all that
// `gpucost offers update` needs of it, the built-in catalogue bills as its providers' terms say,
// and the update's sources are exactly the fetchable rows and the ECB.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/prices/offers_update.hpp>
#include <gpucost/prices/providers.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

using namespace gpucost;

std::string billing_file() {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/data/provider-billing.toml", std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("providers: data/provider-billing.toml has one entry per row, each with its source", "[prices]") {
  const auto parsed = prices::parse_billing_terms(billing_file(), "data/provider-billing.toml");
  REQUIRE(parsed);
  std::set<std::string> rows, entries;
  for (const prices::ProviderRow& p : prices::provider_table()) rows.emplace(p.key);
  for (const prices::BillingTerms& b : parsed->providers) {
    INFO(b.key);
    CHECK(entries.insert(b.key).second);  // one entry a provider
    CHECK(rows.count(b.key) == 1);
    CHECK_FALSE(b.source.empty());
    CHECK(b.date_seen.size() == 10);
    if (!b.confirmed) CHECK_FALSE(b.note.empty());  // what was found instead
  }
  CHECK(entries == rows);
  CHECK(parsed->fallback.key.empty());
  // The compiled-in copy is the file.
  REQUIRE(prices::billing_table().providers.size() == parsed->providers.size());
  for (const prices::ProviderRow& p : prices::provider_table()) CHECK(p.terms().key == p.key);
}

TEST_CASE("providers: the billing terms as the catalogue had them", "[prices]") {
  struct Want {
    const char* key;
    double increment_s, minimum_s, cold_start_s;
  };
  for (const Want& w : {Want{"aws", 1, 60, 300}, Want{"gcp", 1, 60, 240}, Want{"azure", 60, 60, 300},
                        Want{"lambda", 60, 60, 300}, Want{"runpod", 1, 0, 120}, Want{"vast", 1, 0, 180}}) {
    INFO(w.key);
    const prices::ProviderRow* p = prices::provider_row(w.key);
    REQUIRE(p != nullptr);
    CHECK(p->terms().increment_s == w.increment_s);
    CHECK(p->terms().minimum_s == w.minimum_s);
    CHECK(p->terms().cold_start_s == w.cold_start_s);
  }
  const prices::BillingTerms& other = prices::billing_table().fallback;
  CHECK(other.increment_s == 1);
  CHECK(other.minimum_s == 60);
  CHECK(other.cold_start_s == 300);
  // The built-in offers of a provider of the table bill by its terms.
  for (const breakeven::CloudOffer& o : breakeven::cloud_offers()) {
    const prices::ProviderRow* p = prices::provider_row_by_display(o.provider);
    if (p == nullptr) continue;  // "RunPod (secure cloud)", ...: named apart
    INFO(o.name);
    CHECK(o.billing_increment_s == p->terms().increment_s);
    CHECK(o.billing_minimum_s == p->terms().minimum_s);
  }
}

TEST_CASE("providers: a malformed billing entry names what it lacks", "[prices]") {
  const auto no_source = prices::parse_billing_terms(
      "[[provider]]\nkey = \"x\"\nbilling_increment_s = 1\nbilling_minimum_s = 0\ncold_start_s = 60\n"
      "date_seen = \"2026-01-01\"\n[default]\nbilling_increment_s = 1\nbilling_minimum_s = 60\ncold_start_s = 300\n",
      "t.toml");
  REQUIRE_FALSE(no_source);
  CHECK(no_source.error().message.find("t.toml: [[provider]] 'x'") == 0);
  CHECK(no_source.error().message.find("source") != std::string::npos);
  const auto no_default = prices::parse_billing_terms("", "t.toml");
  REQUIRE_FALSE(no_default);
  CHECK(no_default.error().message == "t.toml: no [default] terms");
  CHECK_FALSE(
      prices::parse_billing_terms("[default]\nbilling_increment_s = 0\nbilling_minimum_s = 0\n"
                                  "cold_start_s = 0\n",
                                  "t.toml"));
}

TEST_CASE("providers: a fetchable row says all that offers update needs", "[prices]") {
  std::set<std::string_view> keys, displays;
  bool catalogue_only_seen = false;
  for (const prices::ProviderRow& p : prices::provider_table()) {
    INFO(p.key);
    CHECK(keys.insert(p.key).second);
    CHECK(displays.insert(p.display).second);
    CHECK(p.key != prices::kEcbKey);
    CHECK_FALSE((catalogue_only_seen && p.fetchable()));  // the fetchable rows first
    if (!p.fetchable()) {
      catalogue_only_seen = true;
      CHECK(p.list.endpoint.empty());
      CHECK(p.list.sku_gpu == nullptr);
      CHECK_FALSE(p.needs_key());
      continue;
    }
    CHECK_FALSE(p.list.name.empty());
    CHECK(p.list.endpoint.starts_with("https://"));
    CHECK_FALSE(p.list.endpoint.ends_with("/"));
    CHECK(p.list.sku_gpu != nullptr);
    CHECK_FALSE(p.default_region.empty());
    CHECK_FALSE(p.list.other_region.empty());
    CHECK(p.needs_key() == (p.list.with_key != nullptr));
    if (p.needs_key()) CHECK_FALSE(p.list.key_hint.empty());
    // A bare region of the provider's shape is its own, and only its own.
    if (p.list.region_shape != nullptr) {
      CHECK(prices::provider_of_region(p.default_region) == p.key);
      CHECK(prices::provider_of_region(p.list.other_region) == p.key);
    }
  }
  CHECK(prices::provider_of_region("").empty());
}

TEST_CASE("providers: each source's base URL, the ECB's by its own name", "[prices]") {
  prices::UpdateRequest r;
  const prices::ProviderRow& aws = *prices::provider_row("aws");
  CHECK(prices::endpoint_of(r, aws) == "https://pricing.us-east-1.amazonaws.com");
  CHECK(prices::endpoint_of(r, *prices::provider_row("azure")) == "https://prices.azure.com");
  CHECK(prices::endpoint_of(r, *prices::provider_row("gcp")) == "https://cloudbilling.googleapis.com");
  CHECK(prices::ecb_endpoint(r) == "https://www.ecb.europa.eu");
  r.endpoints["aws"] = "http://127.0.0.1:8080/aws//";
  r.endpoints["ecb"] = "http://127.0.0.1:8080/ecb/";
  CHECK(prices::endpoint_of(r, aws) == "http://127.0.0.1:8080/aws");
  CHECK(prices::ecb_endpoint(r) == "http://127.0.0.1:8080/ecb");
  CHECK(prices::regions_of(r, aws) == std::vector<std::string>{"us-east-1"});
  r.regions["aws"] = {"eu-central-1", "us-west-2"};
  CHECK(prices::regions_of(r, aws) == std::vector<std::string>{"eu-central-1", "us-west-2"});
}

TEST_CASE("providers: offer names of catalogue-only providers carry their region", "[prices]") {
  CHECK(prices::offer_name("lambda", "gpu_1x_a10", "us", breakeven::OfferKind::on_demand) == "lambda-gpu_1x_a10-us");
  CHECK(prices::offer_name("other", "x1.big", "", breakeven::OfferKind::spot) == "other-x1.big-spot");
}

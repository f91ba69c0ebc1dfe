// The price lists read from the recorded answers of testdata/price-lists/ through a Fetcher that
// serves those files (no network): the AWS offer file cut into chunks of every size gives the
// same offers, Azure's pages and Google Cloud's SKUs map as documented, and the catalogue that
// `offers update` writes parses back with breakeven::parse_cloud_offers, field for field.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/prices/offer_scanner.hpp>
#include <gpucost/prices/offers_update.hpp>
#include <gpucost/prices/sources.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace gpucost;
using breakeven::CloudOffer;
using breakeven::OfferKind;

constexpr std::string_view kAwsOffer = "aws/offers/v1.0/aws/AmazonEC2/20190916220712/us-east-1/index.json";

std::string fixture(std::string_view path) {
  std::ifstream in(std::string(GPUCOST_TESTDATA_DIR) + "/price-lists/" + std::string(path), std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Serves testdata/price-lists/ for the default endpoints of the sources; the stream in chunks of
/// `chunk` bytes.
class FixtureFetcher final : public io::Fetcher {
 public:
  std::size_t chunk = 4096;
  std::vector<std::string> urls;

  Expected<std::string> get(const std::string& url) override {
    urls.push_back(url);
    const auto path = path_of(url);
    if (!path) return make_error(ErrorKind::io, "HTTP 404 for " + url);
    return fixture(*path);
  }
  Status stream(const std::string& url, const std::function<void()>& /*restart*/,
                const std::function<Status(std::string_view)>& sink) override {
    auto body = get(url);
    if (!body) return body.error();
    for (std::size_t at = 0; at < body->size(); at += chunk)
      GPUCOST_TRY(sink(std::string_view(*body).substr(at, chunk)));
    return {};
  }

 private:
  static std::optional<std::string> path_of(std::string_view url) {
    const auto after = [&](std::string_view base) -> std::optional<std::string_view> {
      if (!url.starts_with(base)) return std::nullopt;
      return url.substr(base.size());
    };
    if (const auto p = after("https://pricing.us-east-1.amazonaws.com/")) return "aws/" + std::string(*p);
    if (const auto p = after("https://prices.azure.com")) {
      return p->find("$skip") != std::string_view::npos ? "azure/page2.json" : "azure/page1.json";
    }
    if (url.starts_with("https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?currencyCode=USD"))
      return "gcp/skus-page1.json";
    if (url == "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml") return "ecb/eurofxref-daily.xml";
    return std::nullopt;
  }
};

std::map<std::string, double> prices_by_name(const std::vector<CloudOffer>& offers) {
  std::map<std::string, double> out;
  for (const CloudOffer& o : offers) out[o.name] = o.price_per_hour;
  return out;
}

const CloudOffer& offer(const std::vector<CloudOffer>& offers, std::string_view name) {
  for (const CloudOffer& o : offers)
    if (o.name == name) return o;
  FAIL("no offer " << name);
  throw std::logic_error("not reached");
}

Expected<prices::SourceResult> read_aws(std::string_view text, std::size_t chunk) {
  prices::AwsPriceFileReader reader(prices::AwsPriceFile::ec2_offers, "us-east-1", "src");
  for (std::size_t at = 0; at < text.size(); at += chunk) GPUCOST_TRY(reader.feed(text.substr(at, chunk)));
  return reader.finish();
}

/// An offer file of `products` products (with their on-demand terms), in AWS's layout, with
/// escapes and nesting where a chunk may cut them; one in `gpu_every` a GPU instance type.
std::string generated_offer_file(std::size_t products, std::size_t gpu_every = 1) {
  std::string t = R"({
  "formatVersion" : "v1.0",
  "disclaimer" : "a \"quoted\" \\ disclaimer \u00e9 {not a brace}",
  "offerCode" : "AmazonEC2",
  "version" : "20240101000000",
  "publicationDate" : "2024-01-01T00:00:00Z",
  "products" : {
)";
  for (std::size_t i = 0; i < products; ++i)
    t += fmt::format(R"(    "SKU{0:08}" : {{
      "sku" : "SKU{0:08}",
      "productFamily" : "Compute Instance",
      "attributes" : {{ "instanceType" : "{4}.{1}xlarge", "operatingSystem" : "{2}", "tenancy" : "Shared",
        "preInstalledSw" : "NA", "capacitystatus" : "Used", "regionCode" : "us-east-1", "gpu" : "1",
        "processorFeatures" : "AVX; \"AVX2\"; ]] }}}} [[", "empty" : [ ], "none" : {{ }} }}
    }}{3}
)",
                     i, i + 1, i % 3 == 0 ? "Windows" : "Linux", i + 1 < products ? "," : "",
                     i % gpu_every == 0 ? "g5" : "m5");
  t += "  },\n  \"terms\" : {\n    \"OnDemand\" : {\n";
  for (std::size_t i = 0; i < products; ++i)
    t += fmt::format(
        R"(      "SKU{0:08}" : {{ "SKU{0:08}.JRTCKXETXF" : {{ "offerTermCode" : "JRTCKXETXF", "sku" : "SKU{0:08}",
        "effectiveDate" : "2024-01-01T00:00:00Z", "priceDimensions" : {{ "SKU{0:08}.JRTCKXETXF.6YS6EN2CT7" : {{
        "description" : "${1}.{0} per On Demand \\\"Linux\\\" Hour", "unit" : "Hrs",
        "pricePerUnit" : {{ "USD" : "{1}.{0:04}" }},
        "appliesTo" : [ ] }} }}, "termAttributes" : {{ }} }} }}{2}
)",
        i, 1 + i % 7, i + 1 < products ? "," : "");
  t += "    }\n  },\n  \"attributesList\" : { }\n}\n";
  return t;
}

}  // namespace

TEST_CASE("the recorded AWS offer file: GPU Linux products, on-demand and standard No Upfront terms", "[prices]") {
  auto r = read_aws(fixture(kAwsOffer), 1 << 20);
  REQUIRE(r);
  REQUIRE(r->offers.size() == 5);
  const CloudOffer& od = offer(r->offers, "aws-p3.8xlarge");
  CHECK(od.price_per_hour == 12.24);
  CHECK(od.gpus == 4);  // the offer file's "gpu" attribute
  CHECK(od.gpu_model == "V100");
  CHECK(od.gpu_memory_gb == 16);        // its gpuMemory is "NA": the table's
  CHECK(od.date_seen == "2019-09-16");  // publicationDate
  CHECK(od.kind == OfferKind::on_demand);
  CHECK(od.billing_increment_s == 1);
  CHECK(od.billing_minimum_s == 60);
  const CloudOffer& r1 = offer(r->offers, "aws-p3.8xlarge-reserved-1y");
  CHECK(r1.price_per_hour == 7.85);
  CHECK(r1.kind == OfferKind::reserved_1y);
  CHECK(r1.note.find("No Upfront") != std::string::npos);
  CHECK(offer(r->offers, "aws-p3.8xlarge-reserved-3y").price_per_hour == 5.3);
  CHECK(r1.upfront == 0);
  CHECK(r1.term_years == 1.0);
  // Partial Upfront: the fee (unit Quantity) beside the hourly rate; All Upfront: the fee, 0 an hour.
  const CloudOffer& partial = offer(r->offers, "aws-p3.8xlarge-reserved-1y-partial-upfront");
  CHECK(partial.kind == OfferKind::reserved_1y);
  CHECK(partial.price_per_hour == 3.76);
  CHECK(partial.upfront == 32928);
  CHECK(partial.term_years == 1.0);
  CHECK(partial.note.find("Partial Upfront: 32928 USD paid at the start") != std::string::npos);
  const CloudOffer& all = offer(r->offers, "aws-p3.8xlarge-reserved-3y-all-upfront");
  CHECK(all.kind == OfferKind::reserved_3y);
  CHECK(all.price_per_hour == 0);
  CHECK(all.upfront == 131472);
  CHECK(all.term_years == 3.0);
  CHECK(r->skipped.at("not Linux") == 1);             // the Windows BYOL p3.8xlarge
  CHECK(r->skipped.at("other instance types") == 2);  // r5d, c3
  CHECK(r->skipped.at("convertible reservations") == 1);
}

TEST_CASE("the AWS scanner gives the same offers whatever the chunk size", "[prices]") {
  for (const std::string& file : {fixture(kAwsOffer), generated_offer_file(40)}) {
    auto whole = read_aws(file, file.size());
    REQUIRE(whole);
    const auto expected = prices_by_name(whole->offers);
    REQUIRE_FALSE(expected.empty());
    for (const std::size_t chunk : std::vector<std::size_t>{1, 2, 3, 5, 7, 13, 31, 64, 100, 257, 1000, 4096, 65536}) {
      INFO("chunk " << chunk);
      auto r = read_aws(file, chunk);
      REQUIRE(r);
      CHECK(prices_by_name(r->offers) == expected);
      CHECK(r->skipped == whole->skipped);
    }
  }
  auto g = read_aws(generated_offer_file(40), 7);
  REQUIRE(g);
  CHECK(g->offers.size() == 26);  // 40 products, every third one Windows
  CHECK(offer(g->offers, "aws-g5.2xlarge").price_per_hour == Approx(2.0001));
}

TEST_CASE("a retried download starts the AWS reader over", "[prices]") {
  const std::string file = fixture(kAwsOffer);
  prices::AwsPriceFileReader reader(prices::AwsPriceFile::ec2_offers, "us-east-1", "src");
  REQUIRE(reader.feed(std::string_view(file).substr(0, file.size() / 2)));
  reader.reset();
  REQUIRE(reader.feed(file));
  auto r = reader.finish();
  REQUIRE(r);
  CHECK(r->offers.size() == 5);
}

TEST_CASE("what the AWS scanner refuses", "[prices]") {
  const std::string file = fixture(kAwsOffer);
  auto cut = read_aws(std::string_view(file).substr(0, file.size() - 10), 512);
  REQUIRE_FALSE(cut);
  CHECK(cut.error().message.find("truncated") != std::string::npos);
  CHECK_FALSE(read_aws("", 1));
  CHECK_FALSE(read_aws("[1, 2]", 1));
  CHECK_FALSE(read_aws("{\"products\" : { ] }", 3));
  CHECK_FALSE(read_aws("{\"a\" : 1,}", 3));
  CHECK_FALSE(read_aws("{\"a\" : 1} {", 3));
  CHECK_FALSE(read_aws("<html>503 Service Unavailable</html>", 8));
  // An object larger than the cap is an error, not memory.
  prices::OfferScanner small({nullptr, [](auto, auto) { return Status{}; }, nullptr, nullptr}, 64);
  CHECK_FALSE(
      small.feed(R"({"products" : { "S" : { "sku" : "a product far longer than the sixty-four bytes allowed" } } })"));
  auto other = read_aws(R"({"offerCode" : "AmazonS3", "products" : { }, "terms" : { } })", 5);
  REQUIRE_FALSE(other);
  CHECK(other.error().message.find("AmazonS3") != std::string::npos);
}

TEST_CASE("the AWS region index names each region's offer file", "[prices]") {
  const std::string index = fixture("aws/offers/v1.0/aws/AmazonEC2/current/region_index.json");
  auto url = prices::aws_offer_url(index, "http://h/aws", "us-east-1");
  REQUIRE(url);
  CHECK(*url == "http://h/aws/offers/v1.0/aws/AmazonEC2/20190916220712/us-east-1/index.json");
  auto none = prices::aws_offer_url(index, "http://h/aws", "mars-north-1");
  REQUIRE_FALSE(none);
  CHECK(none.error().hint.find("us-east-1") != std::string::npos);
}

constexpr std::string_view kAwsSavingsPlans =
    "aws/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20261003000000/us-east-1/index.json";

Expected<prices::SourceResult> read_aws_savings_plans(std::string_view text, std::size_t chunk) {
  prices::AwsPriceFileReader reader(prices::AwsPriceFile::savings_plans, "us-east-1", "src");
  for (std::size_t at = 0; at < text.size(); at += chunk) GPUCOST_TRY(reader.feed(text.substr(at, chunk)));
  return reader.finish();
}

TEST_CASE("the AWS savings plan file: each plan's rate for GPU Linux instances of the region", "[prices]") {
  const std::string file = fixture(kAwsSavingsPlans);
  auto r = read_aws_savings_plans(file, file.size());
  REQUIRE(r);
  REQUIRE(r->offers.size() == 3);
  const CloudOffer& compute = offer(r->offers, "aws-p3.8xlarge-savings-plan-compute-1y");
  CHECK(compute.kind == OfferKind::savings_plan);
  CHECK(compute.price_per_hour == 8.6424);
  CHECK(compute.term_years == 1.0);
  CHECK(compute.upfront == 0);
  CHECK(compute.gpus == 4);
  CHECK(compute.date_seen == "2026-10-03");  // the file's publicationDate
  CHECK(compute.note.find("Compute Savings Plan, 1 year, No Upfront") != std::string::npos);
  const CloudOffer& three = offer(r->offers, "aws-p3.8xlarge-savings-plan-compute-3y-all-upfront");
  CHECK(three.price_per_hour == 5.3856);
  CHECK(three.term_years == 3.0);
  const CloudOffer& instance = offer(r->offers, "aws-p3.8xlarge-savings-plan-ec2-instance-1y-partial-upfront");
  CHECK(instance.price_per_hour == 7.344);
  CHECK(instance.note.find("EC2 Instance Savings Plan, 1 year, Partial Upfront") != std::string::npos);
  CHECK(r->skipped.at("not Linux") == 1);             // RunInstances:0002
  CHECK(r->skipped.at("not shared tenancy") == 1);    // DedicatedUsage
  CHECK(r->skipped.at("other instance types") == 1);  // m5.xlarge
  CHECK(r->skipped.at("other regions") == 1);         // the Boston Local Zone
  CHECK(r->skipped.at("other services") == 1);        // Fargate
  // The same whatever the chunk size; a retried download starts over.
  for (const std::size_t chunk : std::vector<std::size_t>{1, 3, 7, 64, 1000}) {
    INFO("chunk " << chunk);
    auto c = read_aws_savings_plans(file, chunk);
    REQUIRE(c);
    CHECK(prices_by_name(c->offers) == prices_by_name(r->offers));
  }
  prices::AwsPriceFileReader reader(prices::AwsPriceFile::savings_plans, "us-east-1", "src");
  REQUIRE(reader.feed(std::string_view(file).substr(0, file.size() / 2)));
  reader.reset();
  REQUIRE(reader.feed(file));
  auto again = reader.finish();
  REQUIRE(again);
  CHECK(again->offers.size() == 3);
  // Cut short: an error, not fewer offers.
  CHECK_FALSE(read_aws_savings_plans(std::string_view(file).substr(0, file.size() - 10), 100));
}

TEST_CASE("the AWS savings plan index names each region's file, a region without one is none", "[prices]") {
  const std::string index = fixture("aws/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json");
  auto url = prices::aws_savings_plan_url(index, "http://h/aws", "us-east-1");
  REQUIRE(url);
  CHECK(*url == "http://h/aws/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20261003000000/us-east-1/index.json");
  auto none = prices::aws_savings_plan_url(index, "http://h/aws", "mars-north-1");
  REQUIRE(none);
  CHECK(none->empty());
  CHECK_FALSE(prices::aws_savings_plan_url(R"({"regions" : {}})", "http://h/aws", "us-east-1"));
}

TEST_CASE("Azure Retail Prices pages: Linux on demand, spot, reservations and savings plans, the rest left out",
          "[prices]") {
  prices::SourceResult r;
  auto next = prices::read_azure_page(fixture("azure/page1.json"), "eastus", "p1", r);
  REQUIRE(next);
  CHECK(next->find("$skip=100") != std::string::npos);
  auto last = prices::read_azure_page(fixture("azure/page2.json"), "eastus", "p2", r);
  REQUIRE(last);
  CHECK(last->empty());  // "NextPageLink": null
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4").price_per_hour == 3.673);
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4").billing_increment_s == 60);
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4-spot").kind == OfferKind::spot);
  CHECK(offer(r.offers, "azure-nd96isr-h100-v5").gpus == 8);
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4-reserved-1y").price_per_hour == Approx(19303.0 / 8760).margin(1e-6));
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4-reserved-3y").price_per_hour == Approx(37210.0 / 26280).margin(1e-6));
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4").date_seen == "2023-04-01");
  // The on-demand item's savingsPlan rates (by the hour, as the item's unit of measure).
  const CloudOffer& plan1 = offer(r.offers, "azure-nc24ads-a100-v4-savings-plan-1y");
  CHECK(plan1.kind == OfferKind::savings_plan);
  CHECK(plan1.price_per_hour == 2.6071);
  CHECK(plan1.term_years == 1.0);
  CHECK(plan1.upfront == 0);
  CHECK(plan1.note.find("savings plan for compute, 1 Year") != std::string::npos);
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4-savings-plan-3y").price_per_hour == 1.6899);
  CHECK(offer(r.offers, "azure-nc24ads-a100-v4-savings-plan-3y").term_years == 3.0);
  CHECK(r.offers.size() == 7);
  CHECK(r.skipped.at("Windows") == 1);
  CHECK(r.skipped.at("Low Priority") == 1);
  CHECK(r.skipped.at("other VM sizes") == 3);  // the documentation's F16s and E64 v4 items
  CHECK(r.skipped.at("other regions") == 1);
  prices::SourceResult bad;
  CHECK_FALSE(prices::read_azure_page("{\"Items\": [", "eastus", "p", bad));
  CHECK_FALSE(prices::read_azure_page("{\"error\": \"throttled\"}", "eastus", "p", bad));
}

TEST_CASE("the Azure query asks for the GPU SKUs of one region in USD", "[prices]") {
  const std::string url = prices::azure_first_page_url("https://prices.azure.com", "westeurope");
  CHECK(url.starts_with(
      "https://prices.azure.com/api/retail/prices?api-version=2023-01-01-preview&currencyCode=%27USD%27&$filter="));
  CHECK(url.find("armRegionName%20eq%20%27westeurope%27") != std::string::npos);
  CHECK(url.find("Standard_ND96isr_H100_v5") != std::string::npos);
  CHECK(url.find(' ') == std::string::npos);
}

TEST_CASE("Google Cloud GPU SKUs become per-GPU offers that say the VM is not included", "[prices]") {
  prices::SourceResult r;
  auto next = prices::read_gcp_page(fixture("gcp/skus-page1.json"), "us-central1", "src", r);
  REQUIRE(next);
  CHECK(next->empty());
  REQUIRE(r.offers.size() == 1);
  const CloudOffer& o = r.offers.front();
  CHECK(o.name == "gcp-gpu-a100-40gb");
  CHECK(o.price_per_hour == Approx(2.933908));
  CHECK(o.per_gpu);
  CHECK_FALSE(o.confirmed);
  CHECK(o.note.find("not in this price") != std::string::npos);
  CHECK(o.date_seen == "2023-03-24");
  CHECK(r.skipped.at("not GPU SKUs") == 2);
  prices::SourceResult eu;
  REQUIRE(prices::read_gcp_page(fixture("gcp/skus-page1.json"), "europe-west4", "src", eu));
  CHECK(eu.offers.empty());
  // The key goes in a header, never in the URL (a redirect or a log would carry it on).
  CHECK(prices::gcp_skus_url("https://g", "t/1") ==
        "https://g/v1/services/6F81-5844-456A/skus?currencyCode=USD&pageToken=t%2F1");
  const io::HttpOptions gcp = prices::gcp_http_options(io::HttpOptions{}, "k y");
  CHECK(gcp.headers == std::vector<std::string>{"X-goog-api-key: k y"});
}

TEST_CASE("an update's catalogue parses back with parse_cloud_offers, field for field", "[prices]") {
  FixtureFetcher fetcher;
  prices::UpdateRequest req;
  req.providers = {"aws", "azure", "gcp"};
  req.api_keys["gcp"] = "k";
  req.today = "2026-01-02";
  auto update = prices::fetch_updates(req, fetcher);
  REQUIRE(update);
  CHECK(update->offers.size() == 16);  // AWS: 5 on-demand and reserved, 3 savings plans; Azure 2 savings plans
  CHECK(update->exchange.date == "2010-04-20");
  const std::string toml = prices::catalogue_toml(update->offers, update->exchange, req.today);
  auto back = breakeven::parse_cloud_offers(toml, "offers.toml");
  REQUIRE(back);
  REQUIRE(back->size() == update->offers.size());
  for (std::size_t i = 0; i < back->size(); ++i) {
    const CloudOffer &a = update->offers[i], &b = (*back)[i];
    INFO(a.name);
    CHECK(b.name == a.name);
    CHECK(b.provider == a.provider);
    CHECK(b.instance == a.instance);
    CHECK(b.region == a.region);
    CHECK(b.gpu_model == a.gpu_model);
    CHECK(b.gpu_memory_gb == a.gpu_memory_gb);
    CHECK(b.gpus == a.gpus);
    CHECK(b.per_gpu == a.per_gpu);
    CHECK(b.price_per_hour == a.price_per_hour);
    CHECK(b.upfront == a.upfront);
    CHECK(b.term_years == a.term_years);
    CHECK(b.currency == a.currency);
    CHECK(b.kind == a.kind);
    CHECK(b.billing_increment_s == a.billing_increment_s);
    CHECK(b.billing_minimum_s == a.billing_minimum_s);
    CHECK(b.cold_start_s == a.cold_start_s);
    CHECK(b.date_seen == a.date_seen);
    CHECK(b.source == a.source);
    CHECK(b.confirmed == a.confirmed);
    CHECK(b.note == a.note);
  }
  auto ex = breakeven::parse_euro_rates(toml, "offers.toml");
  REQUIRE(ex);
  REQUIRE(*ex);
  CHECK((*ex)->per_euro.at("USD") == 1.3486);
}

TEST_CASE("Azure: a region given in capitals is asked for as Azure spells it", "[prices]") {
  FixtureFetcher fetcher;
  auto r = prices::fetch_azure(fetcher, "https://prices.azure.com", {"EastUS"});
  REQUIRE(r);
  REQUIRE_FALSE(fetcher.urls.empty());
  CHECK(fetcher.urls.front().find("armRegionName%20eq%20%27eastus%27") != std::string::npos);
  CHECK(offer(r->offers, "azure-nc24ads-a100-v4").price_per_hour == 3.673);
}

TEST_CASE("an update replaces only its providers, regions and GPUs", "[prices]") {
  FixtureFetcher fetcher;
  prices::UpdateRequest all;
  all.providers = {"aws", "azure"};
  all.today = "2026-01-02";
  auto first = prices::fetch_updates(all, fetcher);
  REQUIRE(first);
  const std::string old = prices::catalogue_toml(first->offers, first->exchange, all.today);

  prices::UpdateRequest azure = all;
  azure.providers = {"azure"};
  auto second = prices::fetch_updates(azure, fetcher);
  REQUIRE(second);
  auto c = prices::new_catalogue(azure, *second, old, "old.toml");
  REQUIRE(c);
  CHECK(c->kept == 8);  // the AWS offers: 5 on-demand and reserved, 3 savings plans
  CHECK(c->offers.size() == 15);

  prices::UpdateRequest h100 = azure;
  h100.gpu = "h100";
  auto third = prices::fetch_updates(h100, fetcher);
  REQUIRE(third);
  CHECK(third->offers.size() == 1);
  auto d = prices::new_catalogue(h100, *third, old, "old.toml");
  REQUIRE(d);
  CHECK(d->offers.size() == 15);  // the A100 offers of Azure kept too

  CHECK_FALSE(prices::new_catalogue(azure, *second, "[[offer]]\nname = 1\n", "old.toml"));

  // --dry-run: the price in use now against the new one.
  std::vector<CloudOffer> current = breakeven::cloud_offers();
  const auto changes = prices::price_changes(all, current, first->offers);
  bool seen_nc24 = false;
  for (const auto& ch : changes)
    if (ch.name == "azure-nc24ads-a100-v4") {
      seen_nc24 = true;
      CHECK(ch.before == 3.67);
      CHECK(ch.after == 3.673);
      CHECK(ch.before_origin == "built-in");
    }
  CHECK(seen_nc24);
  // A built-in offer the list does not have stays in use: not gone. One of an earlier update is.
  for (const auto& ch : changes) CHECK((ch.after || ch.name != "aws-p5.48xlarge"));
  CloudOffer earlier = *breakeven::find_cloud_offer("aws-p5.48xlarge", current);
  earlier.origin = "old.toml";
  current.push_back(earlier);
  bool gone = false;
  for (const auto& ch : prices::price_changes(all, current, first->offers))
    gone = gone || (ch.name == "aws-p5.48xlarge" && !ch.after && ch.before_origin == "old.toml");
  CHECK(gone);
}

TEST_CASE("AWS scanner speed on a generated offer file", "[.][bench]") {
  const char* mb_env = std::getenv("GPUCOST_BENCH_MB");
  const std::size_t products = static_cast<std::size_t>(std::atof(mb_env != nullptr ? mb_env : "100") * 1e6 / 1200);
  const std::string file = generated_offer_file(products, 100);  // as in EC2's: few GPU types
  const auto start = std::chrono::steady_clock::now();
  auto r = read_aws(file, 1 << 16);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r);
  WARN(fmt::format("{:.1f} MB in {:.2f} s: {:.0f} MB/s, {} offers", static_cast<double>(file.size()) / 1e6, s,
                   static_cast<double>(file.size()) / 1e6 / s, r->offers.size()));
}

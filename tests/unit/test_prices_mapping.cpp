// gpucost offers update, the small rules: which GPUs a SKU holds, which units are hourly, how a
// reservation's term price becomes an hourly rate, how offers are named, and the HTTP layer's
// retry arithmetic. Each against hand-written expectations (docs/cost-model.md, "Refreshing prices").
#include <catch2/catch.hpp>

#include <gpucost/io/http.hpp>
#include <gpucost/prices/gpu_skus.hpp>
#include <gpucost/prices/offers_update.hpp>
#include <gpucost/prices/sources.hpp>

namespace {

using namespace gpucost;
using breakeven::OfferKind;

void check_gpu(const std::optional<prices::SkuGpu>& g, const char* model, int gpus, double memory) {
  REQUIRE(g);
  CHECK(g->model == model);
  CHECK(g->gpus == gpus);
  CHECK(g->memory_gb == memory);
  CHECK_FALSE(g->source.empty());
}

}  // namespace

TEST_CASE("AWS instance types map to their GPUs", "[prices]") {
  check_gpu(prices::aws_instance_gpu("p5.48xlarge"), "H100", 8, 80);
  check_gpu(prices::aws_instance_gpu("p5e.48xlarge"), "H200", 8, 141);
  check_gpu(prices::aws_instance_gpu("p5en.48xlarge"), "H200", 8, 141);
  check_gpu(prices::aws_instance_gpu("p4d.24xlarge"), "A100 40GB", 8, 40);
  check_gpu(prices::aws_instance_gpu("p4de.24xlarge"), "A100 80GB", 8, 80);
  check_gpu(prices::aws_instance_gpu("p6-b200.48xlarge"), "B200", 8, 180);
  check_gpu(prices::aws_instance_gpu("p3.8xlarge"), "V100", 4, 16);
  check_gpu(prices::aws_instance_gpu("g5.xlarge"), "A10G", 1, 24);
  check_gpu(prices::aws_instance_gpu("g5.12xlarge"), "A10G", 4, 24);
  check_gpu(prices::aws_instance_gpu("g5.48xlarge"), "A10G", 8, 24);
  check_gpu(prices::aws_instance_gpu("g6.2xlarge"), "L4", 1, 24);
  check_gpu(prices::aws_instance_gpu("g6e.24xlarge"), "L40S", 4, 48);
  check_gpu(prices::aws_instance_gpu("g4dn.metal"), "T4", 8, 16);
  CHECK_FALSE(prices::aws_instance_gpu("m5.large"));
  CHECK_FALSE(prices::aws_instance_gpu("p5.2xlarge"));  // no such size: not guessed
  CHECK_FALSE(prices::aws_instance_gpu("p5"));
  CHECK_FALSE(prices::aws_instance_gpu("g5g.xlarge"));  // Graviton + T4G: another family
}

TEST_CASE("Azure ARM SKUs map to their GPUs", "[prices]") {
  check_gpu(prices::azure_sku_gpu("Standard_ND96isr_H100_v5"), "H100", 8, 80);
  check_gpu(prices::azure_sku_gpu("Standard_ND96isr_H200_v5"), "H200", 8, 141);
  check_gpu(prices::azure_sku_gpu("Standard_NC24ads_A100_v4"), "A100 80GB", 1, 80);
  check_gpu(prices::azure_sku_gpu("Standard_NC96ads_A100_v4"), "A100 80GB", 4, 80);
  check_gpu(prices::azure_sku_gpu("Standard_ND96asr_v4"), "A100 40GB", 8, 40);
  check_gpu(prices::azure_sku_gpu("Standard_ND96amsr_A100_v4"), "A100 80GB", 8, 80);
  check_gpu(prices::azure_sku_gpu("Standard_NV36ads_A10_v5"), "A10", 1, 24);
  CHECK_FALSE(prices::azure_sku_gpu("Standard_NV6ads_A10_v5"));  // a sixth of a GPU
  CHECK_FALSE(prices::azure_sku_gpu("Standard_F16s"));
  CHECK(prices::azure_gpu_skus().size() >= 10);
}

TEST_CASE("Google Cloud GPU SKU descriptions map to one GPU", "[prices]") {
  check_gpu(prices::gcp_gpu_description("Nvidia Tesla A100 GPU running in Americas"), "A100 40GB", 16, 40);
  check_gpu(prices::gcp_gpu_description("Nvidia A100 80GB GPU running in Americas"), "A100 80GB", 8, 80);
  check_gpu(prices::gcp_gpu_description("Nvidia H100 80GB GPU running in Americas"), "H100", 8, 80);
  check_gpu(prices::gcp_gpu_description("Nvidia L4 GPU running in Americas"), "L4", 8, 24);
  check_gpu(prices::gcp_gpu_description("Spot Preemptible Nvidia L4 GPU running in Americas"), "L4", 8, 24);
  CHECK_FALSE(prices::gcp_gpu_description("A2 Instance Core running in Americas"));
  CHECK_FALSE(prices::gcp_gpu_description("Nvidia Tesla T4 Virtual Workstation GPU running in Americas"));
  CHECK_FALSE(prices::gcp_gpu_description("Nvidia L40S GPU running in Americas"));  // not in the table
}

TEST_CASE("hourly units of measure", "[prices]") {
  CHECK(prices::hourly_unit("1 Hour") == 1.0);
  CHECK(prices::hourly_unit("10 Hours") == 10.0);
  CHECK(prices::hourly_unit("100 Hours") == 100.0);
  CHECK(prices::hourly_unit(" 1 Hour ") == 1.0);
  CHECK(prices::hourly_unit("Hrs") == 1.0);
  CHECK(prices::hourly_unit("h") == 1.0);
  CHECK_FALSE(prices::hourly_unit("1/Month"));
  CHECK_FALSE(prices::hourly_unit("1 GB/Month"));
  CHECK_FALSE(prices::hourly_unit("1 Year"));
  CHECK_FALSE(prices::hourly_unit("GiBy.h"));
  CHECK_FALSE(prices::hourly_unit("Quantity"));
  CHECK_FALSE(prices::hourly_unit("0 Hours"));
  CHECK_FALSE(prices::hourly_unit(""));
}

TEST_CASE("a reservation's term price over the hours of its term", "[prices]") {
  // 1 year = 8760 h; 3 years = 26280 h (no leap days, as the providers' own hourly figures).
  CHECK(*prices::amortised_hourly(8760, "1 Year") == Approx(1.0));
  CHECK(*prices::amortised_hourly(19303, "1 Year") == Approx(2.2035388128));
  CHECK(*prices::amortised_hourly(37210, "3 Years") == Approx(1.4159056317));
  CHECK(*prices::amortised_hourly(25007, "1yr") == Approx(2.8546803653));
  CHECK_FALSE(prices::amortised_hourly(100, "5 Years"));
  CHECK_FALSE(prices::amortised_hourly(0, "1 Year"));
  CHECK(prices::reserved_kind("1 Year") == OfferKind::reserved_1y);
  CHECK(prices::reserved_kind("3yr") == OfferKind::reserved_3y);
  CHECK_FALSE(prices::reserved_kind("2 Years"));
}

TEST_CASE("offer names match data/cloud-offers.toml", "[prices]") {
  CHECK(prices::offer_name("aws", "p5.48xlarge", "us-east-1", OfferKind::on_demand) == "aws-p5.48xlarge");
  CHECK(prices::offer_name("aws", "g6.xlarge", "eu-central-1", OfferKind::spot) == "aws-g6.xlarge-eu-central-1-spot");
  CHECK(prices::offer_name("azure", "Standard_NC24ads_A100_v4", "eastus", OfferKind::on_demand) ==
        "azure-nc24ads-a100-v4");
  CHECK(prices::offer_name("azure", "Standard_ND96isr_H100_v5", "westeurope", OfferKind::reserved_3y) ==
        "azure-nd96isr-h100-v5-westeurope-reserved-3y");
  CHECK(prices::offer_name("gcp", "a2-highgpu-1g", "us-central1", OfferKind::reserved_1y) ==
        "gcp-a2-highgpu-1g-reserved-1y");
  // Every Azure and AWS offer of the built-in catalogue keeps its name.
  for (const auto& o : breakeven::cloud_offers()) {
    const prices::ProviderRow* row = prices::provider_row_by_display(o.provider);
    const std::string_view key = row != nullptr ? row->key : std::string_view();
    if (key != "aws" && key != "azure") continue;
    CHECK(prices::offer_name(key, o.instance, o.region, o.kind) == o.name);
  }
}

TEST_CASE("a bare region belongs to the provider its shape says", "[prices]") {
  CHECK(prices::provider_of_region("us-east-1") == "aws");
  CHECK(prices::provider_of_region("ap-southeast-2") == "aws");
  CHECK(prices::provider_of_region("us-gov-west-1") == "aws");
  CHECK(prices::provider_of_region("eastus") == "azure");
  CHECK(prices::provider_of_region("westeurope") == "azure");
  CHECK(prices::provider_of_region("eastus2") == "azure");
  CHECK(prices::provider_of_region("us-central1") == "gcp");
  CHECK(prices::provider_of_region("europe-west4") == "gcp");
  CHECK(prices::provider_of_region("").empty());
}

TEST_CASE("retries: backoff, Retry-After and what is retried", "[prices]") {
  io::HttpOptions o;
  o.backoff_ms = 500;
  o.max_retry_after_s = 60;
  CHECK(io::retry_delay_ms(o, 2, std::nullopt) == 500);
  CHECK(io::retry_delay_ms(o, 3, std::nullopt) == 1000);
  CHECK(io::retry_delay_ms(o, 3, 5) == 5000);      // the server's wait when longer
  CHECK(io::retry_delay_ms(o, 2, 3600) == 60000);  // capped
  CHECK(io::parse_retry_after("120") == 120);
  CHECK_FALSE(io::parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
  CHECK(io::retryable_status(429));
  CHECK(io::retryable_status(503));
  CHECK_FALSE(io::retryable_status(404));
  CHECK_FALSE(io::retryable_status(403));
}

TEST_CASE("URL helpers keep API keys out", "[prices]") {
  CHECK(io::url_encode("a b'$(x)") == "a%20b%27%24%28x%29");
  CHECK(io::url_origin("https://prices.azure.com:443/api/retail/prices?x=1") == "https://prices.azure.com");
  CHECK(io::url_origin("HTTP://127.0.0.1:8080/azure") == "http://127.0.0.1:8080");
  CHECK(io::redact_key("https://h/v1/skus?key=SECRET&currencyCode=USD") ==
        "https://h/v1/skus?key=REDACTED&currencyCode=USD");
  CHECK(io::redact_key("https://h/v1/skus?monkey=1") == "https://h/v1/skus?monkey=1");
  CHECK(io::is_no_network(make_error(ErrorKind::io, "no network: host: refused")));
}

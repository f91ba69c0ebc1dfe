// The price lists `gpucost offers update` reads, each turned into catalogue offers
// (breakeven::CloudOffer) with the names data/cloud-offers.toml uses:
//   Azure Retail Prices API (paged JSON), the AWS Price List bulk API (a region's EC2 offer file
//   and savings plan price file, streamed), the Google Cloud Billing Catalog API (per-GPU SKUs, with an API key).
// Every function here only reads text it is given or fetches through a Fetcher; none prints.
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/io/http.hpp>
#include <gpucost/prices/offer_scanner.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prices {

/// What one source gave: its offers and why the other items were left out.
struct SourceResult {
  std::vector<breakeven::CloudOffer> offers;
  std::map<std::string, std::size_t> skipped;  ///< reason -> count ("Windows", "not hourly", ...)
  std::size_t pages = 0;                       ///< documents fetched
  std::uint64_t bytes = 0;                     ///< their size
  std::map<std::string, std::size_t> by_name;  ///< offers' index by name (add_offer keeps it)
};
/// "12 offers; skipped: 3 Windows, 1 Low Priority" (the skip reasons in name order).
std::string summary(const SourceResult& r);

// ---- units and terms ------------------------------------------------------------------------

/// Hours per unit of an hourly unit of measure: "1 Hour" -> 1, "100 Hours" -> 100, "Hrs" -> 1,
/// "h" -> 1; none for any other unit ("1/Month", "1 GB/Month", "1 Year").
std::optional<double> hourly_unit(std::string_view unit);
/// The hourly rate of a reservation bought for its whole term: price / (8760 x years);
/// `term` "1 Year", "3 Years" (Azure's words), "1yr", "3yr" (AWS's). None for another term.
std::optional<double> amortised_hourly(double term_price, std::string_view term);
/// The term's kind: reserved_1y or reserved_3y; none for another term.
std::optional<breakeven::OfferKind> reserved_kind(std::string_view term);

// ---- Azure Retail Prices API -------------------------------------------------------------------

/// The first page's URL for one region: base + /api/retail/prices?currencyCode='USD'&$filter=
/// serviceName eq 'Virtual Machines' and armRegionName eq '<region>' and (armSkuName eq ... or ...)
/// with every GPU SKU of the table.
std::string azure_first_page_url(std::string_view base, std::string_view region);
/// One page: the offers of its items (on-demand, spot, 1- and 3-year reservations; Linux only)
/// added to `into`, and the next page's link (empty at the end).
Expected<std::string> read_azure_page(std::string_view json, std::string_view region, std::string_view source_url,
                                      SourceResult& into);
/// Every page of every region, following NextPageLink (only to the same origin as `base`).
Expected<SourceResult> fetch_azure(io::Fetcher& fetcher, std::string_view base,
                                   const std::vector<std::string>& regions);

// ---- AWS Price List bulk API -------------------------------------------------------------------

/// base + /offers/v1.0/aws/AmazonEC2/current/region_index.json
std::string aws_region_index_url(std::string_view base);
/// The offer file URL of `region` in a region index (base + its currentVersionUrl).
Expected<std::string> aws_offer_url(std::string_view region_index_json, std::string_view base, std::string_view region);

/// The two kinds of AWS price file gpucost reads.
enum class AwsPriceFile {
  /// A region's EC2 offer file: GPU instance types of the table, Linux, shared tenancy, no
  /// pre-installed software, capacity "Used"; on-demand hourly prices and standard 1- and 3-year
  /// reservations, each purchase option an offer.
  ec2_offers,
  /// A region's savings plan price file: each Compute or EC2 Instance Savings Plan's rate for a GPU
  /// instance type of the table, Linux, shared tenancy, in the region, for its term (1 or 3 years)
  /// and purchase option (kind savings-plan).
  savings_plans,
};

/// Reads one region's price file fed in chunks (OfferScanner) into offers.
class AwsPriceFileReader {
 public:
  AwsPriceFileReader(AwsPriceFile file, std::string region, std::string source_url);
  ~AwsPriceFileReader();
  AwsPriceFileReader(const AwsPriceFileReader&) = delete;
  AwsPriceFileReader& operator=(const AwsPriceFileReader&) = delete;

  Status feed(std::string_view chunk);
  /// The offers, once the whole file was fed.
  Expected<SourceResult> finish();
  /// Forgets what was read (a retried download).
  void reset();

  struct State;  ///< what both files' readers keep (aws_prices.cpp)

 private:
  std::unique_ptr<State> m_state;
};

/// base + /savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json: the index of the
/// savings plan price files (Compute and EC2 Instance Savings Plans), one per region.
std::string aws_savings_plan_index_url(std::string_view base);
/// The savings plan price file URL of `region` in that index (its "regions" array of
/// {"regionCode", "versionUrl"}): base + its versionUrl.
Expected<std::string> aws_savings_plan_url(std::string_view index_json, std::string_view base, std::string_view region);
/// The region index, then each region's offer file, streamed; then the savings plans' index and
/// each region's savings plan file, streamed.
Expected<SourceResult> fetch_aws(io::Fetcher& fetcher, std::string_view base, const std::vector<std::string>& regions);

// ---- Google Cloud Billing Catalog API ----------------------------------------------------------

/// The request header that carries the API key: never the URL's key=, which a redirect, a proxy's
/// log or a message would carry on.
inline constexpr std::string_view kGcpKeyHeader = "X-goog-api-key";
/// `base` with the API key in kGcpKeyHeader: the options of Google Cloud's requests.
io::HttpOptions gcp_http_options(io::HttpOptions base, std::string_view key);
/// The Compute Engine service's SKUs: base + /v1/services/6F81-5844-456A/skus?currencyCode=USD
std::string gcp_skus_url(std::string_view base, std::string_view page_token);
/// One page: per-GPU offers of the GPU SKUs that serve `region` (on demand and spot), and the
/// next page token (empty at the end).
Expected<std::string> read_gcp_page(std::string_view json, std::string_view region, std::string_view source_url,
                                    SourceResult& into);
/// Every page of every region; `fetcher` sends the key (gcp_http_options).
Expected<SourceResult> fetch_gcp(io::Fetcher& fetcher, std::string_view base, const std::vector<std::string>& regions);

}  // namespace gpucost::prices

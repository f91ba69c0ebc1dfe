// `gpucost offers update`, the library half: fetch the requested providers' price lists and the
// ECB reference rates, then build the user catalogue's new text (data/cloud-offers.toml's
// format, plus an [exchange] table). Writing it is the caller's: only once every requested
// provider succeeded, and atomically.
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/io/http.hpp>
#include <gpucost/prices/exchange.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prices {

/// The providers in the order they are fetched: "aws", "azure", "gcp".
const std::vector<std::string>& known_providers();

struct UpdateRequest {
  std::vector<std::string> providers;                       ///< keys of known_providers()
  std::map<std::string, std::vector<std::string>> regions;  ///< per provider; none: its default
  std::string gpu;                                          ///< keep offers whose GPU model contains it
  std::map<std::string, std::string> endpoints;             ///< "aws", "azure", "gcp", "ecb" -> base URL
  std::string gcp_key;                                      ///< GPUCOST_GCP_API_KEY
  std::string today;                                        ///< YYYY-MM-DD: date_seen when a list has none
};

/// The base URL of a source: the override, else https://pricing.us-east-1.amazonaws.com,
/// https://prices.azure.com, https://cloudbilling.googleapis.com, https://www.ecb.europa.eu.
std::string endpoint_of(const UpdateRequest& r, std::string_view source);
/// The regions a provider is asked for: the request's, else its default region.
std::vector<std::string> regions_of(const UpdateRequest& r, std::string_view provider);
/// Which provider a bare --region belongs to by its shape: us-east-1 (AWS), eastus (Azure),
/// us-central1 (Google Cloud); empty when none fits.
std::string provider_of_region(std::string_view region);

struct UpdateResult {
  std::vector<breakeven::CloudOffer> offers;  ///< of every requested provider, by provider then name
  ExchangeRates exchange;
  std::vector<std::string> notes;  ///< one per source: what it gave and left out
};

/// Fetches every requested provider and the ECB rates; the first failure is the error (nothing
/// partial comes back). A "no network" failure says that the built-in catalogue of its newest
/// date_seen stays in use. Google Cloud is asked through `gcp_fetcher` when given: the one whose
/// requests carry the API key (gcp_http_options); else through `fetcher`.
Expected<UpdateResult> fetch_updates(const UpdateRequest& request, io::Fetcher& fetcher,
                                     io::Fetcher* gcp_fetcher = nullptr);

/// The text of a user catalogue holding `offers` and `exchange`.
std::string catalogue_toml(const std::vector<breakeven::CloudOffer>& offers,
                           const std::optional<ExchangeRates>& exchange, std::string_view today);

/// Whether an offer of an earlier catalogue is replaced by this update: one of a requested
/// provider, in a requested region, matching the GPU filter.
bool replaced_by(const UpdateRequest& request, const breakeven::CloudOffer& offer);

/// The new user catalogue: the update's offers, then those of `old_text` (the catalogue there
/// now; empty for none) that the update does not replace (other providers, regions, GPUs).
struct NewCatalogue {
  std::string toml;
  std::vector<breakeven::CloudOffer> offers;
  std::size_t kept = 0;  ///< offers carried over from the old catalogue
};
Expected<NewCatalogue> new_catalogue(const UpdateRequest& request, const UpdateResult& update,
                                     std::string_view old_text, std::string_view old_origin);

/// One offer's price before and after (--dry-run).
struct PriceChange {
  std::string name, currency;
  std::optional<double> before, after;  ///< none: new, or gone from the list
  std::string before_origin;            ///< "built-in", the user catalogue's path
};
/// The update's offers against those in use now (`current`: the built-in list and the user
/// catalogue, the later overriding), and the current ones in its scope that it no longer lists.
std::vector<PriceChange> price_changes(const UpdateRequest& request, const std::vector<breakeven::CloudOffer>& current,
                                       const std::vector<breakeven::CloudOffer>& updated);

/// The newest date_seen of the built-in catalogue ("the built-in catalogue of DATE stays in use").
std::string builtin_catalogue_date();

}  // namespace gpucost::prices

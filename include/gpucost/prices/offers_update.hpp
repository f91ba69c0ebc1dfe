// `gpucost offers update`, the library half: fetch the requested providers' price lists and the
// ECB reference rates, then build the user catalogue's new text (data/cloud-offers.toml's
// format, plus an [exchange] table). Writing it is the caller's: only once every requested
// provider succeeded, and atomically.
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/io/http.hpp>
#include <gpucost/prices/exchange.hpp>
#include <gpucost/prices/providers.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prices {

struct UpdateRequest {
  std::vector<std::string> providers;                       ///< keys of fetchable rows of the provider table
  std::map<std::string, std::vector<std::string>> regions;  ///< per provider; none: its default
  std::string gpu;                                          ///< keep offers whose GPU model contains it
  std::map<std::string, std::string> endpoints;             ///< a provider's key or kEcbKey -> base URL
  std::map<std::string, std::string> api_keys;              ///< per provider that needs one (its key_env)
  std::string today;                                        ///< YYYY-MM-DD: date_seen when a list has none
};

/// The base URL of a provider's price list: the request's, else the row's endpoint.
std::string endpoint_of(const UpdateRequest& r, const ProviderRow& provider);
/// The base URL of the ECB's reference rates: the request's, else kEcbEndpoint.
std::string ecb_endpoint(const UpdateRequest& r);
/// The regions a provider is asked for: the request's, else its default region.
std::vector<std::string> regions_of(const UpdateRequest& r, const ProviderRow& provider);

struct UpdateResult {
  std::vector<breakeven::CloudOffer> offers;  ///< of every requested provider, by provider then name
  ExchangeRates exchange;
  std::vector<std::string> notes;  ///< one per source: what it gave and left out
};

/// Fetches every requested provider and the ECB rates; the first failure is the error (nothing
/// partial comes back). A "no network" failure says that the built-in catalogue of its newest
/// date_seen stays in use. A provider that needs an API key is asked through its fetcher in
/// `with_key` when there is one: the one whose requests carry the key (its row's with_key);
/// else through `fetcher`.
Expected<UpdateResult> fetch_updates(const UpdateRequest& request, io::Fetcher& fetcher,
                                     const std::map<std::string, io::Fetcher*>& with_key = {});

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

// What the sources share: building a catalogue offer from a SKU's GPUs and a price, and adding
// it to a result once per name.
#pragma once

#include <gpucost/prices/gpu_skus.hpp>
#include <gpucost/prices/providers.hpp>
#include <gpucost/prices/sources.hpp>

#include <simdjson.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::prices {

/// "2024-06-01" from "2024-06-01T00:00:00Z"; empty when it does not start with a date.
std::string date_part(std::string_view iso);

struct OfferFacts {
  const ProviderRow& provider;
  std::string_view instance, region;
  const SkuGpu* gpu = nullptr;
  breakeven::OfferKind kind = breakeven::OfferKind::on_demand;
  double price_per_hour = 0;
  std::string date_seen{}, source{}, note{};
  bool per_gpu = false, confirmed = true;
  double upfront = 0;                  ///< a reservation's payment at its start, USD
  std::optional<double> term_years{};  ///< a reservation's term
  std::string_view name_suffix{};      ///< after the offer's name: "-partial-upfront"
};
/// The offer, with the provider's billing terms (data/provider-billing.toml) and the cold start
/// of the SKU's family, else the provider's.
breakeven::CloudOffer make_offer(const OfferFacts& f);
/// Adds `o` unless an offer of that name is there already: the newer date_seen wins (a price
/// list can hold a price and its successor); the other counts as "superseded".
void add_offer(SourceResult& r, breakeven::CloudOffer o);
/// One more item left out for `reason`.
inline void skip(SourceResult& r, const char* reason) { ++r.skipped[reason]; }

/// A string member of a simdjson object, or empty.
std::string_view json_string(simdjson::dom::object o, std::string_view key);

/// Where a paged JSON price list keeps its items and the next page, and whose answer it is.
struct JsonPageShape {
  std::string_view items;   ///< the array of items: "Items"
  std::string_view next;    ///< the next page's link or token, absent on the last: "NextPageLink"
  std::string_view answer;  ///< what a page is, for the error without items: "Retail Prices"
};
/// One page: each object of its items handed to `read` (another element is counted as "not an
/// object"), the page and its bytes counted in `into`; the next page's link or token, empty at
/// the end. An error when it is not JSON or has no items array.
Expected<std::string> read_json_page(std::string_view json, std::string_view source_url, const JsonPageShape& shape,
                                     SourceResult& into, const std::function<void(simdjson::dom::object)>& read);

}  // namespace gpucost::prices

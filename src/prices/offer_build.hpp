// What the sources share: building a catalogue offer from a SKU's GPUs and a price, and adding
// it to a result once per name.
#pragma once

#include <gpucost/prices/gpu_skus.hpp>
#include <gpucost/prices/providers.hpp>
#include <gpucost/prices/sources.hpp>

#include <simdjson.h>

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

}  // namespace gpucost::prices

// Cloud providers as the catalogue knows them: the name prefix of their offers, their default
// region and the billing terms their built-in offers have. `--clouds` files that give no terms
// (a SkyPilot vms.csv) and `gpucost offers update` both name and bill offers by this table.
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>

#include <string>
#include <string_view>

namespace gpucost::prices {

using breakeven::OfferKind;

struct ProviderTerms {
  std::string_view key;             ///< the name prefix and SkyPilot's folder: "aws", "gcp", ...
  std::string_view display;         ///< as offers name it: "AWS", "Google Cloud", ...
  std::string_view default_region;  ///< offers in it carry no region suffix; empty: always one
  double increment_s, minimum_s, cold_start_s;
};

/// The terms of provider `key`; null when the table does not know it.
const ProviderTerms* provider_terms(std::string_view key);
/// The terms of the provider shown as `display` ("Google Cloud"); null when unknown.
const ProviderTerms* provider_terms_by_display(std::string_view display);
/// Per-second billing with a one-minute minimum, the hyperscalers' terms: for unknown providers.
inline constexpr ProviderTerms kOtherProviderTerms{"", "", "", 1, 60, 300};

/// An offer's name as the built-in catalogue spells it: <key>-<instance> (Azure's SKU without
/// "Standard_", lower case, '_' as '-'), then -<region> unless it is the provider's default one,
/// then -spot, -reserved-1y, ... for kinds other than on-demand.
std::string offer_name(std::string_view key, std::string_view instance, std::string_view region, OfferKind kind);

}  // namespace gpucost::prices

// The provider table: one row per cloud provider, with all that gpucost says of a provider outside
// the code that reads its price list. The catalogue names and bills offers by it (offer_name, a
// SkyPilot vms.csv's folder); `gpucost offers update` reads from it which providers it can fetch,
// from where, with which function, SKU table and API key, and builds --provider's choices, its
// help and its hints from it. The billing terms of each row are data, with their sources:
// data/provider-billing.toml. Adding a price source: docs/CONTRIBUTING.md, "Adding a price source".
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/io/http.hpp>
#include <gpucost/prices/gpu_skus.hpp>
#include <gpucost/prices/sources.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prices {

using breakeven::OfferKind;

/// How a provider bills a started instance, and where that was read (data/provider-billing.toml).
struct BillingTerms {
  std::string key;            ///< the provider's key; empty for [default]
  double increment_s = 1;     ///< billed time is rounded up to a multiple of it
  double minimum_s = 60;      ///< the least time billed per start
  double cold_start_s = 300;  ///< typical billed time before a job runs: gpucost's rough figure
  std::string source, date_seen, note;
  bool confirmed = true;
};
/// data/provider-billing.toml: each provider's terms, and those of a provider the table lacks.
struct BillingTable {
  std::vector<BillingTerms> providers;
  BillingTerms fallback;
};
Expected<BillingTable> parse_billing_terms(std::string_view toml_text, std::string_view origin);
/// The compiled-in data/provider-billing.toml.
const BillingTable& billing_table();

/// Reads a provider's price list: every page of every region asked (sources.hpp).
using FetchFunction = Expected<SourceResult> (*)(io::Fetcher& fetcher, std::string_view base,
                                                 const std::vector<std::string>& regions);
/// The GPUs of one of the list's SKUs (gpu_skus.hpp); none for a SKU that is not a GPU offer.
using SkuGpuFunction = std::optional<SkuGpu> (*)(std::string_view sku);

/// A provider's public price list, as `gpucost offers update` reads it.
struct PriceList {
  std::string_view name{};      ///< as messages name it: "Cloud Billing Catalog API"
  std::string_view endpoint{};  ///< its base URL: scheme and host (--endpoint KEY=URL replaces it)
  FetchFunction fetch = nullptr;
  SkuGpuFunction sku_gpu = nullptr;  ///< the SKU -> GPU table of gpu_skus.cpp its reader maps by
  /// Whether a bare --region has the shape of this provider's region names; null: never guessed.
  bool (*region_shape)(std::string_view region) = nullptr;
  std::string_view other_region{};  ///< a region besides the default one, for the hints: "eu-central-1"
  /// The variable its API key comes from; empty: the list is public.
  std::string_view key_env{};
  std::string_view key_hint{};  ///< where such a key comes from
  /// The request options that carry the key (never in a URL); null when no key is needed.
  io::HttpOptions (*with_key)(io::HttpOptions base, std::string_view key) = nullptr;
};

struct ProviderRow {
  std::string_view key{};      ///< --provider, the offers' name prefix, SkyPilot's folder: "aws"
  std::string_view display{};  ///< the offers' provider: "AWS", "Google Cloud"
  /// The region `offers update` prices unless told, whose offers carry no region in their name;
  /// empty: none (every name carries its region).
  std::string_view default_region{};
  /// An instance's name in offer names (Azure: "Standard_NC24ads_A100_v4" -> "nc24ads-a100-v4");
  /// null: as it is.
  std::string (*instance_slug)(std::string_view instance) = nullptr;
  /// Its VMs are priced as the machine type plus the GPUs attached: a SkyPilot vms.csv lists
  /// the GPUs in rows of their own, which the machine types are joined with.
  bool gpus_priced_apart = false;
  PriceList list{};  ///< list.fetch null: catalogue offers only, no price list to read

  [[nodiscard]] bool fetchable() const { return list.fetch != nullptr; }
  [[nodiscard]] bool needs_key() const { return !list.key_env.empty(); }
  /// Its terms in data/provider-billing.toml (the [default] ones when it has none there).
  [[nodiscard]] const BillingTerms& terms() const;
};

/// Every provider, the fetchable ones first in the order `offers update` reads them.
std::span<const ProviderRow> provider_table();
/// The row of `key`; null when the table has none.
const ProviderRow* provider_row(std::string_view key);
/// The row of the provider offers name `display` ("Google Cloud"); null when the table has none.
const ProviderRow* provider_row_by_display(std::string_view display);
/// The keys of the fetchable rows, in table order.
std::vector<std::string> fetchable_keys();
/// Which fetchable provider a bare --region belongs to by its shape: us-east-1 (AWS), eastus
/// (Azure), us-central1 (Google Cloud); empty when none fits.
std::string provider_of_region(std::string_view region);

/// An offer's name as the built-in catalogue spells it: <key>-<instance> (the row's
/// instance_slug), then -<region> unless it is the provider's default one, then -spot,
/// -reserved-1y, ... for kinds other than on-demand.
std::string offer_name(std::string_view key, std::string_view instance, std::string_view region, OfferKind kind);

}  // namespace gpucost::prices

// The provider table (providers.hpp) and what reads it: offer names, a bare region's provider,
// and the billing terms of data/provider-billing.toml.
#include <gpucost/prices/providers.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>

namespace gpucost::prices {

namespace {

constexpr std::string_view kBillingTerms =
#include "provider_billing.inc"
    ;
constexpr std::string_view kBillingOrigin = "data/provider-billing.toml";

// Region names by their shape. AWS: words, then a number after a dash (us-east-1, ap-southeast-2,
// us-gov-west-1). Google Cloud: words with the number at the end of the last (us-central1,
// europe-west4). Azure: one word (eastus, westeurope, eastus2). No name has two of these shapes.
bool aws_region(std::string_view r) { return r.size() >= 2 && text::is_digit(r.back()) && r[r.size() - 2] == '-'; }
bool gcp_region(std::string_view r) {
  return r.find('-') != std::string_view::npos && text::is_digit(r.back()) && r[r.size() - 2] != '-';
}
bool azure_region(std::string_view r) { return !r.empty() && r.find('-') == std::string_view::npos; }

/// Azure's ARM SKU name without "Standard_", lower case, '_' as '-': "nc24ads-a100-v4".
std::string azure_instance_slug(std::string_view instance) {
  if (instance.starts_with("Standard_")) instance.remove_prefix(9);
  std::string out;
  for (const char c : instance) out += c == '_' ? '-' : text::ascii_lower(c);
  return out;
}

// One row per provider; the order is the one `offers update` reads them in. Billing terms:
// data/provider-billing.toml.
// clang-format off
const ProviderRow kProviders[] = {
    {.key = "aws", .display = "AWS", .default_region = "us-east-1",
     .list = {.name = "Price List bulk API", .endpoint = "https://pricing.us-east-1.amazonaws.com",
              .fetch = fetch_aws, .sku_gpu = aws_instance_gpu,
              .region_shape = aws_region, .other_region = "eu-central-1"}},
    {.key = "azure", .display = "Azure", .default_region = "eastus", .instance_slug = azure_instance_slug,
     .list = {.name = "Retail Prices API", .endpoint = "https://prices.azure.com",
              .fetch = fetch_azure, .sku_gpu = azure_sku_gpu,
              .region_shape = azure_region, .other_region = "westeurope"}},
    {.key = "gcp", .display = "Google Cloud", .default_region = "us-central1", .gpus_priced_apart = true,
     .list = {.name = "Cloud Billing Catalog API", .endpoint = "https://cloudbilling.googleapis.com",
              .fetch = fetch_gcp, .sku_gpu = gcp_gpu_description,
              .region_shape = gcp_region, .other_region = "europe-west4",
              .key_env = "GPUCOST_GCP_API_KEY",
              .key_hint = "a key of any Google Cloud project; no billing account needed",
              .with_key = gcp_http_options}},
    // Catalogue offers only (data/cloud-offers.toml, a SkyPilot vms.csv): no price list is read.
    {.key = "lambda", .display = "Lambda"},
    {.key = "runpod", .display = "RunPod"},
    {.key = "vast",   .display = "Vast.ai"},
};
// clang-format on

Expected<BillingTerms> read_terms(const toml::table& t, std::string_view origin, std::string_view what, bool sourced) {
  BillingTerms b;
  b.key = t["key"].value_or(std::string());
  b.source = t["source"].value_or(std::string());
  b.date_seen = t["date_seen"].value_or(std::string());
  b.note = t["note"].value_or(std::string());
  b.confirmed = t["confirmed"].value_or(true);
  const auto increment = t["billing_increment_s"].value<double>();
  const auto minimum = t["billing_minimum_s"].value<double>();
  const auto cold = t["cold_start_s"].value<double>();
  if (!increment || !(*increment > 0) || !minimum || !(*minimum >= 0) || !cold || !(*cold >= 0) ||
      (sourced && (b.key.empty() || b.source.empty() || b.date_seen.empty())))
    return make_error(ErrorKind::config,
                      fmt::format("{}: {} '{}': billing_increment_s (> 0), billing_minimum_s, cold_start_s{} are "
                                  "required",
                                  origin, what, b.key, sourced ? ", key, source and date_seen" : ""));
  b.increment_s = *increment;
  b.minimum_s = *minimum;
  b.cold_start_s = *cold;
  return b;
}

}  // namespace

Expected<BillingTable> parse_billing_terms(std::string_view toml_text, std::string_view origin) {
  toml::table doc;
  try {
    doc = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    return make_error(ErrorKind::config, fmt::format("{}:{}:{}: {}", origin, e.source().begin.line,
                                                     e.source().begin.column, e.description()));
  }
  BillingTable out;
  if (const toml::array* providers = doc["provider"].as_array())
    for (const toml::node& n : *providers) {
      const toml::table* t = n.as_table();
      if (t == nullptr) return make_error(ErrorKind::config, fmt::format("{}: [[provider]] is not a table", origin));
      auto terms = read_terms(*t, origin, "[[provider]]", true);
      if (!terms) return terms.error();
      out.providers.push_back(std::move(*terms));
    }
  const toml::table* fallback = doc["default"].as_table();
  if (fallback == nullptr) return make_error(ErrorKind::config, fmt::format("{}: no [default] terms", origin));
  auto terms = read_terms(*fallback, origin, "[default]", false);
  if (!terms) return terms.error();
  out.fallback = std::move(*terms);
  return out;
}

const BillingTable& billing_table() {
  static const BillingTable kTable = [] {
    auto parsed = parse_billing_terms(kBillingTerms, kBillingOrigin);
    return parsed ? std::move(*parsed) : BillingTable{};  // a unit test parses it
  }();
  return kTable;
}

const BillingTerms& ProviderRow::terms() const {
  const BillingTable& t = billing_table();
  for (const BillingTerms& b : t.providers)
    if (b.key == key) return b;
  return t.fallback;
}

std::span<const ProviderRow> provider_table() { return kProviders; }

const ProviderRow* provider_row(std::string_view key) {
  for (const ProviderRow& p : kProviders)
    if (p.key == key) return &p;
  return nullptr;
}

const ProviderRow* provider_row_by_display(std::string_view display) {
  for (const ProviderRow& p : kProviders)
    if (p.display == display) return &p;
  return nullptr;
}

std::vector<std::string> fetchable_keys() {
  std::vector<std::string> out;
  for (const ProviderRow& p : kProviders)
    if (p.fetchable()) out.emplace_back(p.key);
  return out;
}

std::string provider_of_region(std::string_view region) {
  for (const ProviderRow& p : kProviders)
    if (p.fetchable() && p.list.region_shape != nullptr && p.list.region_shape(region)) return std::string(p.key);
  return {};
}

std::string offer_name(std::string_view key, std::string_view instance, std::string_view region, OfferKind kind) {
  const ProviderRow* p = provider_row(key);
  std::string name(key);
  name += '-';
  if (p != nullptr && p->instance_slug != nullptr)
    name += p->instance_slug(instance);
  else
    name += instance;
  if (!region.empty() && (p == nullptr || region != p->default_region)) name.append("-").append(region);
  if (kind != OfferKind::on_demand) name.append("-").append(offer_kind_name(kind));
  return name;
}

}  // namespace gpucost::prices

// Google Cloud Billing Catalog API: https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list
// Compute Engine (service 6F81-5844-456A) prices a GPU apart from the VM's vCPUs and memory: only
// the per-GPU SKUs are read, as per-GPU offers that say so (confirmed = false: the VM is not in
// the price), on demand and spot. Commitments and the machine types' own SKUs are left out.
#include <gpucost/prices/sources.hpp>

#include <gpucost/core/text.hpp>

#include "offer_build.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

namespace gpucost::prices {

namespace {

constexpr std::size_t kMaxPages = 200;
constexpr std::string_view kComputeEngine = "6F81-5844-456A";

/// units + nanos / 1e9 of the first tier that starts at 0.
std::optional<double> first_tier_usd(simdjson::dom::object expr) {
  simdjson::dom::array tiers;
  if (expr["tieredRates"].get_array().get(tiers) != simdjson::SUCCESS) return std::nullopt;
  for (const simdjson::dom::element t : tiers) {
    double start = 0;
    if (t["startUsageAmount"].get_double().get(start) == simdjson::SUCCESS && start > 0) continue;
    std::string_view currency, units = "0";
    int64_t nanos = 0;
    if (t["unitPrice"]["currencyCode"].get_string().get(currency) != simdjson::SUCCESS || currency != "USD")
      return std::nullopt;
    if (t["unitPrice"]["units"].get_string().get(units) != simdjson::SUCCESS) units = "0";
    if (t["unitPrice"]["nanos"].get_int64().get(nanos) != simdjson::SUCCESS) nanos = 0;
    const auto whole = text::parse_double(units);
    if (!whole) return std::nullopt;
    return *whole + static_cast<double>(nanos) / 1e9;
  }
  return std::nullopt;
}

bool serves(simdjson::dom::object sku, std::string_view region) {
  simdjson::dom::array regions;
  if (sku["serviceRegions"].get_array().get(regions) != simdjson::SUCCESS) return false;
  for (const simdjson::dom::element r : regions) {
    std::string_view name;
    if (r.get_string().get(name) == simdjson::SUCCESS && name == region) return true;
  }
  return false;
}

std::string slug(std::string_view model) {
  std::string out = "gpu-";
  for (const char c : model) out += c == ' ' ? '-' : text::ascii_lower(c);
  return out;
}

void read_sku(simdjson::dom::object sku, std::string_view region, std::string_view source, SourceResult& into) {
  simdjson::dom::object cat;
  if (sku["category"].get_object().get(cat) != simdjson::SUCCESS || json_string(cat, "resourceGroup") != "GPU")
    return skip(into, "not GPU SKUs");
  const std::string_view usage = json_string(cat, "usageType");
  if (usage != "OnDemand" && usage != "Preemptible") return skip(into, "commitments");
  const auto gpu = gcp_gpu_description(json_string(sku, "description"));
  if (!gpu) return skip(into, "other GPUs");
  if (!serves(sku, region)) return skip(into, "other regions");
  simdjson::dom::array infos;
  simdjson::dom::object info, expr;
  if (sku["pricingInfo"].get_array().get(infos) != simdjson::SUCCESS || infos.size() == 0 ||
      infos.at(0).get_object().get(info) != simdjson::SUCCESS ||
      info["pricingExpression"].get_object().get(expr) != simdjson::SUCCESS)
    return skip(into, "no price");
  const auto hours = hourly_unit(json_string(expr, "usageUnit"));
  const auto price = first_tier_usd(expr);
  if (!hours) return skip(into, "not priced by the hour");
  if (!price || !(*price > 0)) return skip(into, "no price");
  const bool spot = usage == "Preemptible";
  const std::string instance = slug(gpu->model);
  OfferFacts f{*provider_row("gcp"), instance, region, &*gpu};
  f.kind = spot ? breakeven::OfferKind::spot : breakeven::OfferKind::on_demand;
  f.price_per_hour = *price / *hours;
  f.date_seen = date_part(json_string(info, "effectiveTime"));
  f.source = std::string(source);
  f.per_gpu = true;
  f.confirmed = false;
  f.note = fmt::format("one {} GPU alone ({}): the VM's vCPUs and memory are billed on top and are not in this price{}",
                       gpu->model, json_string(sku, "description"), spot ? "; Spot VMs can be preempted" : "");
  add_offer(into, make_offer(f));
}

}  // namespace

io::HttpOptions gcp_http_options(io::HttpOptions base, std::string_view key) {
  base.headers.push_back(fmt::format("{}: {}", kGcpKeyHeader, key));
  return base;
}

std::string gcp_skus_url(std::string_view base, std::string_view page_token) {
  std::string url = fmt::format("{}/v1/services/{}/skus?currencyCode=USD", base, kComputeEngine);
  if (!page_token.empty()) url += "&pageToken=" + io::url_encode(page_token);
  return url;
}

Expected<std::string> read_gcp_page(std::string_view json, std::string_view region, std::string_view source_url,
                                    SourceResult& into) {
  return read_json_page(json, source_url, {"skus", "nextPageToken", "Cloud Billing"}, into,
                        [&](simdjson::dom::object sku) { read_sku(sku, region, source_url, into); });
}

Expected<SourceResult> fetch_gcp(io::Fetcher& fetcher, std::string_view base, const std::vector<std::string>& regions) {
  SourceResult r;
  for (const std::string& region : regions) {
    std::string token;
    std::set<std::string> seen;
    do {
      const std::string url = gcp_skus_url(base, token);
      if (!seen.insert(token).second || seen.size() > kMaxPages)
        return make_error(ErrorKind::format, fmt::format("{}: the pages do not end", io::shown_url(url)));
      auto body = fetcher.get(url);
      if (!body) return body.error();
      auto next = read_gcp_page(*body, region, io::redact_key(url), r);
      if (!next) return next.error();
      token = std::move(*next);
    } while (!token.empty());
  }
  return r;
}

}  // namespace gpucost::prices

// Azure Retail Prices API: https://learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices
// One query per region for the GPU SKUs of the table, in USD, followed page by page.
#include <gpucost/prices/sources.hpp>

#include <gpucost/core/text.hpp>

#include "offer_build.hpp"

#include <fmt/format.h>

#include <set>

namespace gpucost::prices {

namespace {

constexpr std::size_t kMaxPages = 500;  // the GPU query of one region is a few pages

/// The hourly price and kind of one item, or the reason it is left out.
struct Priced {
  double hourly = 0;
  breakeven::OfferKind kind = breakeven::OfferKind::on_demand;
  std::string note;
  const char* skip = nullptr;
};

Priced price_item(simdjson::dom::object item, double price) {
  const std::string_view type = json_string(item, "type");
  Priced p;
  if (type == "Consumption") {
    const bool spot = text::icontains(json_string(item, "skuName"), "spot") ||
                      text::icontains(json_string(item, "meterName"), "spot");
    const auto hours = hourly_unit(json_string(item, "unitOfMeasure"));
    if (!hours) {
      p.skip = "not priced by the hour";
      return p;
    }
    p.hourly = price / *hours;
    p.kind = spot ? breakeven::OfferKind::spot : breakeven::OfferKind::on_demand;
    if (spot) p.note = "Azure Spot: evicted when Azure needs the capacity back; the price moves with demand";
    return p;
  }
  if (type == "Reservation") {
    // retailPrice is the price of the whole term (its unitOfMeasure still reads "1 Hour").
    const std::string_view term = json_string(item, "reservationTerm");
    const auto kind = reserved_kind(term);
    const auto hourly = amortised_hourly(price, term);
    if (!kind || !hourly) {
      p.skip = "other reservation terms";
      return p;
    }
    p.hourly = *hourly;
    p.kind = *kind;
    p.note = fmt::format("reserved instance, {}: {} USD for the term, paid whether used or not, spread over its hours",
                         term, price);
    return p;
  }
  p.skip = type == "DevTestConsumption" ? "Dev/Test prices" : "other price types";
  return p;
}

/// Why an item is not one of the wanted offers (nullptr: it is).
const char* unwanted(simdjson::dom::object item, std::string_view region) {
  const std::string_view service = json_string(item, "serviceName");
  if (!service.empty() && service != "Virtual Machines") return "other services";
  if (json_string(item, "armRegionName") != region) return "other regions";
  if (json_string(item, "currencyCode") != "USD") return "not in USD";
  if (text::icontains(json_string(item, "productName"), "windows")) return "Windows";
  if (text::icontains(json_string(item, "skuName"), "low priority") ||
      text::icontains(json_string(item, "meterName"), "low priority"))
    return "Low Priority";
  bool primary = true;
  if (item["isPrimaryMeterRegion"].get_bool().get(primary) == simdjson::SUCCESS && !primary)
    return "not the primary meter region";
  return nullptr;
}

/// The savings plan rates of an on-demand item (api-version 2023-01-01-preview: "savingsPlan", an
/// array of {"unitPrice", "retailPrice", "term": "1 Year" | "3 Years"}, by the item's unit of
/// measure), each an offer of kind savings-plan beside the on-demand one.
void read_savings_plans(simdjson::dom::object item, const OfferFacts& on_demand, SourceResult& into) {
  simdjson::dom::array plans;
  if (item["savingsPlan"].get_array().get(plans) != simdjson::SUCCESS) return;
  const auto hours = hourly_unit(json_string(item, "unitOfMeasure"));
  for (const auto element : plans) {
    simdjson::dom::object plan;
    double price = 0;
    if (element.get_object().get(plan) != simdjson::SUCCESS ||
        plan["retailPrice"].get_double().get(price) != simdjson::SUCCESS || !(price > 0) || !hours) {
      skip(into, "savings plans without a price");
      continue;
    }
    const std::string_view term = json_string(plan, "term");
    const double years = term == "1 Year" ? 1.0 : term == "3 Years" ? 3.0 : 0.0;
    if (years == 0.0) {
      skip(into, "other savings plan terms");
      continue;
    }
    OfferFacts f = on_demand;
    f.kind = breakeven::OfferKind::savings_plan;
    f.price_per_hour = price / *hours;
    f.term_years = years;
    f.name_suffix = years == 1.0 ? "-1y" : "-3y";
    f.note = fmt::format(
        "Azure savings plan for compute, {}: the plan's hourly rate for this size, paid for every hour of the term, "
        "used or not",
        term);
    add_offer(into, make_offer(f));
  }
}

void read_item(simdjson::dom::object item, std::string_view region, std::string_view source, SourceResult& into) {
  const std::string_view arm = json_string(item, "armSkuName");
  const auto gpu = azure_sku_gpu(arm);
  if (!gpu) return skip(into, "other VM sizes");
  if (const char* why = unwanted(item, region)) return skip(into, why);
  double price = 0;
  if (item["retailPrice"].get_double().get(price) != simdjson::SUCCESS || !(price > 0)) return skip(into, "no price");
  const Priced p = price_item(item, price);
  if (p.skip != nullptr) return skip(into, p.skip);
  OfferFacts f{*provider_row("azure"),
               arm,
               region,
               &*gpu,
               p.kind,
               p.hourly,
               date_part(json_string(item, "effectiveStartDate")),
               std::string(source),
               p.note};
  add_offer(into, make_offer(f));
  if (p.kind == breakeven::OfferKind::on_demand) read_savings_plans(item, f, into);
}

}  // namespace

std::string azure_first_page_url(std::string_view base, std::string_view region) {
  std::string skus;
  for (const std::string_view s : azure_gpu_skus())
    skus += fmt::format("{}armSkuName eq '{}'", skus.empty() ? "" : " or ", s);
  const std::string filter =
      fmt::format("serviceName eq 'Virtual Machines' and armRegionName eq '{}' and ({})", region, skus);
  // The preview API version is the one that gives savings plan rates; its filter values are
  // case-sensitive, which the table's names (Azure's own spelling) meet.
  return fmt::format("{}/api/retail/prices?api-version=2023-01-01-preview&currencyCode={}&$filter={}", base,
                     io::url_encode("'USD'"), io::url_encode(filter));
}

Expected<std::string> read_azure_page(std::string_view json, std::string_view region, std::string_view source_url,
                                      SourceResult& into) {
  return read_json_page(json, source_url, {"Items", "NextPageLink", "Retail Prices"}, into,
                        [&](simdjson::dom::object item) { read_item(item, region, source_url, into); });
}

Expected<SourceResult> fetch_azure(io::Fetcher& fetcher, std::string_view base,
                                   const std::vector<std::string>& regions) {
  SourceResult r;
  const std::string origin = io::url_origin(base);
  for (const std::string& given : regions) {
    // Azure's region names are lower case ("eastus"), and the API version asked for compares
    // filter values case-sensitively: "EastUS" would match nothing.
    std::string region;
    for (const char c : given) region += text::ascii_lower(c);
    std::string url = azure_first_page_url(base, region);
    std::set<std::string> seen;
    while (!url.empty()) {
      if (!seen.insert(url).second || seen.size() > kMaxPages)
        return make_error(ErrorKind::format,
                          fmt::format("{}: the pages do not end (NextPageLink loops)", io::shown_url(url)));
      auto body = fetcher.get(url);
      if (!body) return body.error();
      auto next = read_azure_page(*body, region, url, r);
      if (!next) return next.error();
      if (!next->empty() && io::url_origin(*next) != origin)
        return make_error(ErrorKind::format, fmt::format("{}: NextPageLink leads to another site ({}): not followed",
                                                         io::shown_url(url), io::shown_url(*next)));
      url.clear();
      for (const char c : *next) {  // curl takes no spaces in a URL
        if (c == ' ')
          url += "%20";
        else
          url += c;
      }
    }
  }
  return r;
}

}  // namespace gpucost::prices

#include <gpucost/prices/sources.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/prices/providers.hpp>

#include "offer_build.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>

namespace gpucost::prices {

namespace {

constexpr double kHoursPerYear = 8760;

std::optional<int> term_years(std::string_view term) {
  term = text::trim(term);
  if (term == "1 Year" || term == "1yr") return 1;
  if (term == "3 Years" || term == "3yr") return 3;
  return std::nullopt;
}

}  // namespace

std::string summary(const SourceResult& r) {
  std::string out = fmt::format("{} offer{}", r.offers.size(), r.offers.size() == 1 ? "" : "s");
  std::string skipped;
  for (const auto& [reason, n] : r.skipped) skipped += fmt::format("{}{} {}", skipped.empty() ? "" : ", ", n, reason);
  if (!skipped.empty()) out += "; left out: " + skipped;
  return out;
}

std::optional<double> hourly_unit(std::string_view unit) {
  unit = text::trim(unit);
  if (unit == "Hrs" || unit == "h" || unit == "Hour" || unit == "Hours") return 1.0;
  std::size_t pos = 0;
  const std::string_view count = text::next_token(unit, pos);
  const std::string_view word = text::next_token(unit, pos);
  if (pos < unit.size() && !text::trim(unit.substr(pos)).empty()) return std::nullopt;
  const auto n = text::parse_double(count);
  if (!n || !(*n > 0) || (word != "Hour" && word != "Hours")) return std::nullopt;
  return *n;
}

std::optional<double> amortised_hourly(double term_price, std::string_view term) {
  const auto years = term_years(term);
  if (!years || !(term_price > 0)) return std::nullopt;
  return term_price / (kHoursPerYear * *years);
}

std::optional<breakeven::OfferKind> reserved_kind(std::string_view term) {
  const auto years = term_years(term);
  if (!years) return std::nullopt;
  return *years == 1 ? breakeven::OfferKind::reserved_1y : breakeven::OfferKind::reserved_3y;
}

std::string date_part(std::string_view iso) {
  iso = text::trim(iso);
  if (iso.size() < 10 || iso[4] != '-' || iso[7] != '-') return {};
  constexpr std::array<std::size_t, 8> kDigits{0, 1, 2, 3, 5, 6, 8, 9};
  for (const std::size_t i : kDigits)
    if (!text::is_digit(iso[i])) return {};
  return std::string(iso.substr(0, 10));
}

breakeven::CloudOffer make_offer(const OfferFacts& f) {
  const BillingTerms& terms = f.provider.terms();
  breakeven::CloudOffer o;
  o.name = offer_name(f.provider.key, f.instance, f.region, f.kind) + std::string(f.name_suffix);
  o.provider = std::string(f.provider.display);
  o.instance = std::string(f.instance);
  o.region = std::string(f.region);
  o.gpu_model = f.gpu->model;
  o.gpu_memory_gb = f.gpu->memory_gb;
  o.gpus = f.gpu->gpus;
  o.per_gpu = f.per_gpu;
  // Prices to a millionth of a dollar: the lists give 4 to 10 decimals, amortised terms more.
  o.price_per_hour = std::round(f.price_per_hour * 1e6) / 1e6;
  o.upfront = f.upfront;
  o.term_years = f.term_years;
  o.currency = "USD";
  o.kind = f.kind;
  o.billing_increment_s = terms.increment_s;
  o.billing_minimum_s = terms.minimum_s;
  o.cold_start_s = f.gpu->cold_start_s > 0 ? f.gpu->cold_start_s : terms.cold_start_s;
  o.date_seen = f.date_seen;
  o.source = f.source;
  o.confirmed = f.confirmed;
  o.note = f.note;
  return o;
}

void add_offer(SourceResult& r, breakeven::CloudOffer o) {
  const auto [it, added] = r.by_name.try_emplace(o.name, r.offers.size());
  if (added) {
    r.offers.push_back(std::move(o));
    return;
  }
  breakeven::CloudOffer& have = r.offers[it->second];
  if (o.date_seen > have.date_seen) have = std::move(o);
  skip(r, "superseded");
}

std::string_view json_string(simdjson::dom::object o, std::string_view key) {
  std::string_view v;
  if (o[key].get_string().get(v) != simdjson::SUCCESS) return {};
  return v;
}

Expected<std::string> read_json_page(std::string_view json, std::string_view source_url, const JsonPageShape& shape,
                                     SourceResult& into, const std::function<void(simdjson::dom::object)>& read) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (const auto err = parser.parse(json.data(), json.size()).get(doc); err != simdjson::SUCCESS)
    return make_error(ErrorKind::format, fmt::format("{}: not JSON: {}", source_url, simdjson::error_message(err)));
  simdjson::dom::array items;
  if (doc[shape.items].get_array().get(items) != simdjson::SUCCESS)
    return make_error(ErrorKind::format,
                      fmt::format("{}: no \"{}\" array: not a {} answer", source_url, shape.items, shape.answer));
  for (const simdjson::dom::element e : items) {
    simdjson::dom::object item;
    if (e.get_object().get(item) != simdjson::SUCCESS) {
      skip(into, "not an object");
      continue;
    }
    read(item);
  }
  ++into.pages;
  into.bytes += json.size();
  std::string_view next;
  if (doc[shape.next].get_string().get(next) != simdjson::SUCCESS) return std::string();
  return std::string(next);
}

}  // namespace gpucost::prices

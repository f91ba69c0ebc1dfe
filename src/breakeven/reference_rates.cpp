#include <gpucost/breakeven/reference_rates.hpp>

#include "toml_list.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

namespace gpucost::breakeven {

namespace {

constexpr std::string_view kRates =
#include "ecb_reference_rates.inc"
    ;

}  // namespace

std::optional<double> EuroRates::rate(std::string_view from, std::string_view to) const {
  const auto units_per_euro = [this](std::string_view code) -> std::optional<double> {
    if (code == "EUR") return 1.0;
    const auto it = per_euro.find(std::string(code));
    return it == per_euro.end() ? std::nullopt : std::optional<double>(it->second);
  };
  const auto f = units_per_euro(from), t = units_per_euro(to);
  if (!f || !t) return std::nullopt;
  return *t / *f;  // (to per euro) / (from per euro) = to per from
}

Expected<std::optional<EuroRates>> parse_euro_rates(std::string_view toml_text, std::string_view origin) {
  auto tbl = parse_toml_text(toml_text, origin);
  if (!tbl) return tbl.error();
  const toml::table* ex = (*tbl)["exchange"].as_table();
  if (ex == nullptr) return std::optional<EuroRates>{};
  if ((*ex)["base"].value_or(std::string()) != "EUR")
    return make_error(ErrorKind::config,
                      fmt::format("{}: [exchange] needs base = \"EUR\" (rates per euro, as the ECB's)", origin));
  EuroRates r;
  r.date = (*ex)["date"].value_or(std::string());
  r.source = (*ex)["source"].value_or(std::string());
  for (const auto& [key, value] : *ex) {
    const std::string code(key.str());
    if (code == "base" || code == "date" || code == "source") continue;
    const auto v = value.value<double>();
    if (code.size() != 3 || !v || !(*v > 0))
      return make_error(ErrorKind::config,
                        fmt::format("{}: [exchange] {} is not a currency code with a rate per euro", origin, code));
    r.per_euro[code] = *v;
  }
  return std::optional<EuroRates>{std::move(r)};
}

void use_reference_rates(CostConfig& config, const EuroRates& rates) {
  config.reference_exchange.clear();
  for (const auto& [code, units] : rates.per_euro)
    if (const auto r = rates.rate(code, config.currency)) config.reference_exchange[code] = *r;
  if (const auto r = rates.rate("EUR", config.currency); r && config.currency != "EUR")
    config.reference_exchange["EUR"] = *r;
  config.reference_exchange_label = rates_label(rates);
  config.reference_exchange_date = rates.date;
}

const EuroRates& built_in_rates() {
  static const EuroRates kTable = [] {
    auto parsed = parse_euro_rates(kRates, "data/ecb-reference-rates.toml");
    return parsed && *parsed ? std::move(**parsed) : EuroRates{};  // a unit test parses it
  }();
  return kTable;
}

const EuroRates& newest_rates(const std::optional<EuroRates>& user) {
  // Both dates are YYYY-MM-DD: they sort as text. An update's rates of the same day are the same.
  return user && user->date >= built_in_rates().date ? *user : built_in_rates();
}

std::string rates_label(const EuroRates& rates) {
  return fmt::format("ECB euro reference rates of {}{}", rates.date,
                     &rates == &built_in_rates() ? " built into gpucost" : "");
}

void use_newest_rates(CostConfig& config, const std::optional<EuroRates>& user) {
  use_reference_rates(config, newest_rates(user));
}

std::string stale_exchange_warning(const CostConfig& c, std::string_view today) {
  if (c.offer_currency.empty() || c.offer_currency == c.currency) return {};
  const bool from_config = c.offer_exchange_source == "config";
  const std::string& day = from_config ? c.exchange_date : c.reference_exchange_date;
  const auto age = days_between(day, today);
  if (!age || *age <= kStalePriceDays) return {};
  const bool built_in = c.reference_exchange_label == rates_label(built_in_rates());
  const std::string origin = from_config
                                 ? std::string("the config's [exchange]")
                                 : fmt::format("the ECB's reference rate {}",
                                               built_in ? "built into gpucost" : "gpucost offers update stored");
  const std::string advice =
      from_config ? fmt::format(
                        "set [exchange] {} and date to a rate of today, or remove them and run gpucost offers "
                        "update for the ECB's",
                        c.offer_currency)
                  : fmt::format("run gpucost offers update, or set [exchange] {} in the config", c.offer_currency);
  return fmt::format("the exchange rate {}->{} {:.6g} is of {}, {} days ago ({}): {}", c.offer_currency, c.currency,
                     c.offer_exchange_rate, day, *age, origin, advice);
}

}  // namespace gpucost::breakeven

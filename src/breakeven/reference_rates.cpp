#include <gpucost/breakeven/reference_rates.hpp>

#include <fmt/format.h>

namespace gpucost::breakeven {

namespace {

constexpr std::string_view kRates =
#include "ecb_reference_rates.inc"
    ;

}  // namespace

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

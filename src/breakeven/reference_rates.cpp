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

}  // namespace gpucost::breakeven

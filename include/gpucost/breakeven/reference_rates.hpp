// The euro reference rates an offer's price is converted with when the config gives no rate for
// its currency: the European Central Bank's of one day, built into gpucost
// (data/ecb-reference-rates.toml), or the newer ones `gpucost offers update` stored in the user
// catalogue. docs/cost-model.md, "Reference rates".
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace gpucost::breakeven {

/// The built-in table (data/ecb-reference-rates.toml, compiled in).
const EuroRates& built_in_rates();
/// The rates to convert with: the user catalogue's when they are of the built-in table's day or
/// later (an update's), else the built-in table's.
const EuroRates& newest_rates(const std::optional<EuroRates>& user);
/// use_reference_rates with newest_rates(user); the label says when they are the built-in ones.
void use_newest_rates(CostConfig& config, const std::optional<EuroRates>& user);
/// "ECB euro reference rates of 2026-10-02 built into gpucost" (or without "built into gpucost").
std::string rates_label(const EuroRates& rates);

/// The warning that the rate the chosen offer was converted with (the config's, of its
/// [exchange] date, or the reference rates') is more than kStalePriceDays before `today`; empty
/// when it is not, when no rate was needed, or when its date is unknown.
std::string stale_exchange_warning(const CostConfig& priced, std::string_view today);

}  // namespace gpucost::breakeven

// Euro reference rates of the European Central Bank (eurofxref-daily.xml): read, and written into
// the user catalogue as its [exchange] table (breakeven::parse_euro_rates reads it back and
// converts between any two of their currencies through the euro).
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/error.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::prices {

/// The ECB's rates as a source of `offers update`, the one that is no provider: its name for
/// --endpoint, its base URL, and the day's rates below it.
inline constexpr std::string_view kEcbKey = "ecb";
inline constexpr std::string_view kEcbEndpoint = "https://www.ecb.europa.eu";
inline constexpr std::string_view kEcbDailyPath = "/stats/eurofxref/eurofxref-daily.xml";

/// Units of each currency per euro, of one day (the cost model reads them back from the user
/// catalogue and converts through the euro: breakeven::EuroRates::rate).
using ExchangeRates = breakeven::EuroRates;

/// The rates of an ECB eurofxref document (gesmes envelope, Cube time='...' holding
/// Cube currency='USD' rate='...'); an error when it holds none.
Expected<ExchangeRates> parse_ecb_rates(std::string_view xml, std::string_view source);

/// The [exchange] table of a catalogue: base, date, source, then one CODE = rate per currency.
std::string exchange_toml(const ExchangeRates& rates);

}  // namespace gpucost::prices

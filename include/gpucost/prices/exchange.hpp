// Euro reference rates of the European Central Bank (eurofxref-daily.xml): read, written into
// the user catalogue as its [exchange] table, and turned into the rate between any two of their
// currencies through the euro.
#pragma once

#include <gpucost/core/error.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::prices {

inline constexpr std::string_view kEcbDailyUrl = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml";

/// Units of each currency per one unit of `base` (the ECB's: EUR), of one day.
struct ExchangeRates {
  std::string base = "EUR";
  std::string date;                        ///< "YYYY-MM-DD", the rates' day
  std::string source;                      ///< the URL they were read from
  std::map<std::string, double> per_base;  ///< "USD" -> 1.0823: USD per EUR
};

/// The rates of an ECB eurofxref document (gesmes envelope, Cube time='...' holding
/// Cube currency='USD' rate='...'); an error when it holds none.
Expected<ExchangeRates> parse_ecb_rates(std::string_view xml, std::string_view source);

/// Units of `to` per one unit of `from` ("EUR" -> "USD": 1.08 means 1 EUR = 1.08 USD), through
/// the base: per_base[to] / per_base[from], the base itself counting 1. None when either is not
/// in the table.
std::optional<double> cross_rate(const ExchangeRates& rates, std::string_view from, std::string_view to);

/// The [exchange] table of a catalogue: base, date, source, then one CODE = rate per currency.
std::string exchange_toml(const ExchangeRates& rates);
/// The [exchange] table of a catalogue's TOML text; none when it has none; an error when it is
/// malformed (no base, a rate that is not a positive number).
Expected<std::optional<ExchangeRates>> parse_exchange_table(std::string_view toml_text, std::string_view origin);

}  // namespace gpucost::prices

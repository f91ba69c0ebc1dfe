// The ECB reference rates built into gpucost (data/ecb-reference-rates.toml) and which rates a
// run converts with: the newer of those and the user catalogue's (docs/cost-model.md,
// "Reference rates"). Every expected figure is worked out by hand from the table's rates.
#include <gpucost/breakeven/reference_rates.hpp>

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

using namespace gpucost;
using breakeven::EuroRates;

TEST_CASE("reference rates: the built-in table is the ECB's of 2026-10-02, whole", "[breakeven][exchange]") {
  const EuroRates& r = breakeven::built_in_rates();
  CHECK(r.date == "2026-10-02");
  CHECK(r.source.find("ECB euro foreign exchange reference rates of 2026-10-02") != std::string::npos);
  // The 29 currencies the ECB published that day (Bulgaria uses the euro since 2026-01-01).
  std::set<std::string> codes;
  for (const auto& [code, rate] : r.per_euro) codes.insert(code);
  CHECK(codes == std::set<std::string>{"AUD", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "GBP", "HKD", "HUF",
                                       "IDR", "ILS", "INR", "ISK", "JPY", "KRW", "MXN", "MYR", "NOK", "NZD",
                                       "PHP", "PLN", "RON", "SEK", "SGD", "THB", "TRY", "USD", "ZAR"});
  CHECK(r.per_euro.at("USD") == 1.1225);
  CHECK(r.per_euro.at("GBP") == 0.85033);
  CHECK(r.per_euro.at("JPY") == 176.99);
  CHECK(r.per_euro.at("ISK") == 137.0);
  // The compiled-in text is the file's.
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/data/ecb-reference-rates.toml");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto parsed = breakeven::parse_euro_rates(text, "data/ecb-reference-rates.toml");
  REQUIRE(parsed);
  REQUIRE(*parsed);
  CHECK((*parsed)->per_euro == r.per_euro);
}

TEST_CASE("reference rates: through the euro, by hand", "[breakeven][exchange]") {
  const EuroRates& r = breakeven::built_in_rates();
  // EUR per USD = 1 / (USD per EUR) = 1 / 1.1225 = 0.890869
  CHECK(r.rate("USD", "EUR").value() == Approx(0.890869).epsilon(1e-6));
  CHECK(r.rate("EUR", "USD").value() == 1.1225);
  // GBP per USD = 0.85033 / 1.1225 = 0.757532; JPY per USD = 176.99 / 1.1225 = 157.674833
  CHECK(r.rate("USD", "GBP").value() == Approx(0.757532).epsilon(1e-6));
  CHECK(r.rate("USD", "JPY").value() == Approx(157.674833).epsilon(1e-7));
  CHECK_FALSE(r.rate("USD", "AED"));
  breakeven::CostConfig c;
  c.currency = "EUR";
  breakeven::use_newest_rates(c, std::nullopt);
  CHECK(c.reference_exchange.at("USD") == Approx(1 / 1.1225));
  CHECK(c.reference_exchange_label == "ECB euro reference rates of 2026-10-02 built into gpucost");
  CHECK(c.reference_exchange_date == "2026-10-02");
}

TEST_CASE("reference rates: an update's rates win when they are as recent as the built-in ones",
          "[breakeven][exchange]") {
  const EuroRates& built_in = breakeven::built_in_rates();
  CHECK(&breakeven::newest_rates(std::nullopt) == &built_in);
  EuroRates user;
  user.per_euro["USD"] = 1.25;
  for (const char* day : {"2026-10-02", "2026-11-30"}) {
    user.date = day;
    const std::optional<EuroRates> u = user;
    CHECK(breakeven::newest_rates(u).date == day);
    CHECK(&breakeven::newest_rates(u) != &built_in);
  }
  for (const char* day : {"2026-10-01", "2010-04-20", ""}) {  // older, or undated: the built-in ones
    user.date = day;
    CHECK(&breakeven::newest_rates(user) == &built_in);
  }
  user.date = "2026-11-30";
  breakeven::CostConfig c;
  c.currency = "EUR";
  breakeven::use_newest_rates(c, user);
  CHECK(c.reference_exchange.at("USD") == Approx(0.8));  // 1 / 1.25
  CHECK(c.reference_exchange_label == "ECB euro reference rates of 2026-11-30");
}

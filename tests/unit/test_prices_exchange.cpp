// The ECB's euro reference rates: read from a recorded eurofxref-daily.xml, the rate between two
// currencies through the euro (hand-computed), and the catalogue's [exchange] table read back.
#include <catch2/catch.hpp>

#include <gpucost/prices/exchange.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace {

using namespace gpucost;

std::string fixture(const std::string& path) {
  std::ifstream in(std::string(GPUCOST_TESTDATA_DIR) + "/price-lists/" + path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("ECB reference rates from eurofxref-daily.xml", "[prices]") {
  auto r = prices::parse_ecb_rates(fixture("ecb/eurofxref-daily.xml"), "ecb");
  REQUIRE(r);
  CHECK(r->date == "2010-04-20");
  CHECK(r->per_euro.size() == 34);
  CHECK(r->per_euro.at("USD") == 1.3486);
  CHECK(r->per_euro.at("GBP") == 0.8765);
  CHECK(r->per_euro.at("JPY") == 125.32);
}

TEST_CASE("the rate between two currencies goes through the euro", "[prices]") {
  auto r = prices::parse_ecb_rates(fixture("ecb/eurofxref-daily.xml"), "ecb");
  REQUIRE(r);
  // 1 EUR = 1.3486 USD = 0.87650 GBP, so 1 USD = 0.87650 / 1.3486 = 0.649933 GBP.
  CHECK(*r->rate("USD", "GBP") == Approx(0.6499332641));
  CHECK(*r->rate("GBP", "USD") == Approx(1.5386195094));
  CHECK(*r->rate("GBP", "JPY") == Approx(142.9777524244));
  CHECK(*r->rate("EUR", "USD") == 1.3486);
  CHECK(*r->rate("USD", "EUR") == Approx(1 / 1.3486));
  CHECK(*r->rate("USD", "USD") == 1.0);
  CHECK_FALSE(r->rate("USD", "XYZ"));
}

TEST_CASE("the [exchange] table reads back as written", "[prices]") {
  auto r = prices::parse_ecb_rates(fixture("ecb/eurofxref-daily.xml"), "https://example/eurofxref-daily.xml");
  REQUIRE(r);
  const std::string toml = prices::exchange_toml(*r);
  CHECK(toml.find("[exchange]\nbase = \"EUR\"\ndate = \"2010-04-20\"") != std::string::npos);
  CHECK(toml.find("\nUSD = 1.3486\n") != std::string::npos);
  auto back = breakeven::parse_euro_rates(toml, "t");
  REQUIRE(back);
  REQUIRE(*back);
  CHECK((*back)->per_euro == r->per_euro);
  CHECK((*back)->date == r->date);
  CHECK((*back)->source == r->source);
  auto none = breakeven::parse_euro_rates("[[offer]]\nname = \"x\"\n", "t");
  REQUIRE(none);
  CHECK_FALSE(*none);
  CHECK_FALSE(breakeven::parse_euro_rates("[exchange]\nbase = \"EUR\"\nUSD = -1.0\n", "t"));
  CHECK_FALSE(breakeven::parse_euro_rates("[exchange]\nUSD = 1.0\n", "t"));
}

TEST_CASE("what is not an ECB rates document", "[prices]") {
  CHECK_FALSE(prices::parse_ecb_rates("", "x"));
  CHECK_FALSE(prices::parse_ecb_rates("<html><body>maintenance</body></html>", "x"));
  CHECK_FALSE(prices::parse_ecb_rates("<Cube><Cube time='2024-01-02'></Cube></Cube>", "x"));
  auto one = prices::parse_ecb_rates(
      "<Cube><Cube time='2024-01-02'><Cube currency='USD' rate='1.09'/>"
      "<Cube currency='usd' rate='2'/><Cube currency='GBP' rate='x'/></Cube></Cube>",
      "x");
  REQUIRE(one);
  CHECK(one->per_euro.size() == 1);
}

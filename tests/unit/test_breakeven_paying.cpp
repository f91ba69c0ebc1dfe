// breakeven: ways of paying for a year of jobs, as cost per year against use (docs/cost-model.md,
// "Ways of paying: cost per year against use"), against the hand-worked example there.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/paying.hpp>

#include <string>
#include <vector>

using namespace gpucost;
using breakeven::PayingCurve;

namespace {

// The hand-worked example's instance: 2.00 USD/h on demand, a 1-year reservation at 1.20 USD/h and
// a 1-year savings plan at 1.30 USD/h with 500 USD upfront; the cloud GPU runs at 0.8x the local one.
constexpr std::string_view kOffers = R"(
[[offer]]
name = "acme-x1"
provider = "Acme"
instance = "x1"
region = "r1"
gpu_model = "A100"
price_per_hour = 2.00
currency = "USD"
speed_ratio = 0.8
date_seen = "2026-01-01"
source = "test"

[[offer]]
name = "acme-x1-reserved-1y"
provider = "Acme"
instance = "x1"
region = "r1"
gpu_model = "A100"
price_per_hour = 1.20
currency = "USD"
kind = "reserved-1y"
speed_ratio = 0.8
date_seen = "2026-01-01"
source = "test"

[[offer]]
name = "acme-x1-savings-plan"
provider = "Acme"
instance = "x1"
region = "r1"
gpu_model = "A100"
price_per_hour = 1.30
currency = "USD"
kind = "savings-plan"
upfront = 500
term_years = 1
speed_ratio = 0.8
date_seen = "2026-01-01"
source = "test"

[[offer]]
name = "acme-x1-other-region"
provider = "Acme"
instance = "x1"
region = "r2"
gpu_model = "A100"
price_per_hour = 0.10
currency = "USD"
kind = "reserved-3y"
date_seen = "2026-01-01"
source = "test"
)";

// F = 27000 / 3 = 9000 a year; v = 1.0 kWh x 0.40 per job hour of 1 h = 0.40; 4000 h a year given.
breakeven::CostConfig example_config() {
  breakeven::CostConfig c;
  c.currency = "USD";
  c.price_per_kwh = 0.40;
  c.cooling_factor = 1;
  c.system_power_w = 0;
  c.hardware_price = 27000;
  c.residual_fraction = 0;
  c.lifetime_years = 3;
  c.hourly_wage = 0;
  c.maintenance_hours_per_year = 0;
  c.use_hours_per_year = 4000;
  c.keys_set.insert("local.use_hours_per_year");
  c.billing_increment_s = 1;
  c.billing_minimum_s = 0;
  c.cold_start_s = 0;
  c.fixed_per_job = 0;
  return c;
}

breakeven::JobInputs example_job() {
  breakeven::JobInputs j;
  j.wall_h = 1.0;
  j.energy_kwh = {1.0};
  j.util = {1.0};  // busy throughout: q = 1 / 0.8 = 1.25 instance hours a job hour
  return j;
}

struct Example {
  std::vector<breakeven::CloudOffer> offers;
  breakeven::CostConfig config;
  breakeven::JobInputs job;
  breakeven::JobShape shape;
  breakeven::EnergyPrices prices;
  breakeven::Result result;
};

Example priced_example() {
  Example e;
  auto offers = breakeven::parse_cloud_offers(kOffers, "test");
  REQUIRE(offers);
  e.offers = *offers;
  e.shape.gpus = 1;
  e.job = example_job();
  auto c = breakeven::config_for_offer(example_config(), e.offers.front(), e.shape);
  REQUIRE(c);
  e.config = *c;
  e.prices = breakeven::price_energy(e.config, e.job);
  e.result = breakeven::evaluate(e.config, e.job, e.prices);
  return e;
}

}  // namespace

TEST_CASE("paying: the four curves of the hand-worked example", "[breakeven]") {
  const Example e = priced_example();
  const auto p = breakeven::paying_comparison(e.config, e.result, e.job, e.prices, e.shape, e.offers.front(), e.offers);
  REQUIRE(p.curves.size() == 4);
  // owning: 9000 a year + 0.40 per job hour
  CHECK(p.curves[0].way == "owning");
  CHECK(p.curves[0].fixed_per_year == Approx(9000));
  CHECK(p.curves[0].per_job_h == Approx(0.40));
  // on demand: 2.00/h x 4500 s billed per job hour of 3600 s = 2.50 per job hour
  CHECK(p.curves[1].way == "on-demand");
  CHECK(p.curves[1].per_job_h == Approx(2.50));
  // reserved-1y: 1.20 x 8760 = 10512 a year, for 8760 / 1.25 = 7008 job hours, then 2.50 each
  CHECK(p.curves[2].way == "reserved-1y");
  CHECK(p.curves[2].fixed_per_year == Approx(10512));
  CHECK(p.curves[2].per_job_h == 0);
  REQUIRE(p.curves[2].capacity_job_h);
  CHECK(*p.curves[2].capacity_job_h == Approx(7008));
  CHECK(p.curves[2].overflow_per_job_h.value_or(0) == Approx(2.50));
  // savings plan: 1.30 x 8760 + 500 / 1 y = 11388 + 500 = 11888 a year
  CHECK(p.curves[3].way == "savings-plan");
  CHECK(p.curves[3].fixed_per_year == Approx(11888));
  CHECK(p.curves[3].upfront_per_year == Approx(500));
  // The cheapest: on demand up to 10512 / 2.50 = 4204.8 h; the reservation up to where its
  // on-demand overflow meets owning, 10512 + 2.50 (U - 7008) = 9000 + 0.40 U: U = 16008 / 2.1 =
  // 7622.857 h; owning above. The savings plan costs more than the reservation everywhere.
  REQUIRE(p.ranges.size() == 3);
  CHECK(p.ranges[0].curve == 1);
  CHECK(p.ranges[0].from_h == 0);
  CHECK(p.ranges[0].to_h == Approx(4204.8));
  CHECK(p.ranges[1].curve == 2);
  CHECK(p.ranges[1].to_h == Approx(16008.0 / 2.1));
  CHECK(p.ranges[2].curve == 0);
  CHECK(p.ranges[2].to_h == 8760);
  CHECK(p.never_cheapest() == std::vector<std::size_t>{3});
  // At the 4000 h planned: on demand 10000, the reservation 10512, owning 10600, the plan 11888.
  CHECK(p.planned_h == 4000);
  CHECK_FALSE(p.planned_assumed);
  CHECK(p.cheapest_at(4000) == 1);
  CHECK(*p.curves[0].cost(4000) == Approx(10600));
  CHECK(*p.curves[1].cost(4000) == Approx(10000));
  CHECK(*p.curves[2].cost(4000) == Approx(10512));
  CHECK(*p.curves[2].cost(8000) == Approx(10512 + 2.5 * 992));
  // Owning against on demand is H*: 9000 / (2.50 - 0.40) = 4285.71 h, where the two lines cross.
  REQUIRE(e.result.use_hours_per_year.value);
  CHECK(*e.result.use_hours_per_year.value == Approx(9000 / 2.1));
  // The other region's offer is another instance: the 3-year term is missing, and said so.
  REQUIRE(p.missing.size() == 1);
  CHECK(p.missing.front() == "no reserved-3y offer in the catalogue for Acme x1 (r1)");
}

TEST_CASE("paying: the planned use is said to be assumed when the config does not give it", "[breakeven]") {
  Example e = priced_example();
  e.config.keys_set.erase("local.use_hours_per_year");
  const auto p = breakeven::paying_comparison(e.config, e.result, e.job, e.prices, e.shape, e.offers.front(), e.offers);
  CHECK(p.planned_assumed);
}

TEST_CASE("paying: a term without an on-demand offer ends at its capacity", "[breakeven]") {
  Example e = priced_example();
  const std::vector<breakeven::CloudOffer> terms(e.offers.begin() + 1, e.offers.end());
  const auto p = breakeven::paying_comparison(e.config, e.result, e.job, e.prices, e.shape, terms.front(), terms);
  REQUIRE(p.curves.size() == 3);  // owning, reserved-1y, savings-plan
  CHECK_FALSE(p.curves[1].overflow_per_job_h);
  CHECK_FALSE(p.curves[1].cost(7500));
  CHECK(p.curves[1].end_h() == Approx(7008));
  // Owning up to 10512 = 9000 + 0.40 U, U = 3780; the reservation to its 7008 h; owning past them.
  REQUIRE(p.ranges.size() == 3);
  CHECK(p.ranges[0].curve == 0);
  CHECK(p.ranges[0].to_h == Approx(3780));
  CHECK(p.ranges[1].curve == 1);
  CHECK(p.ranges[1].to_h == Approx(7008));
  CHECK(p.ranges[2].curve == 0);
  CHECK(p.missing.front() ==
        "no on-demand offer in the catalogue for Acme x1 (r1): use past a term's hours is not priced");
}

TEST_CASE("cheapest_ranges: crossings inside pieces, ties to the first listed, merged ranges", "[breakeven]") {
  PayingCurve owning{"owning", "", false, 1000, 1, {}, {}, 0, ""};
  PayingCurve rent{"on-demand", "x", false, 0, 3, {}, {}, 0, ""};
  PayingCurve spot{"spot", "x-spot", false, 0, 2, {}, {}, 0, ""};
  // owning = spot at 1000 / (2 - 1) = 1000 h; the on-demand line is never below spot.
  auto ranges = breakeven::cheapest_ranges({owning, rent, spot}, 8760);
  REQUIRE(ranges.size() == 2);
  CHECK(ranges[0].curve == 2);
  CHECK(ranges[0].to_h == Approx(1000));
  CHECK(ranges[1].curve == 0);
  // Two identical lines: the first listed holds the whole year.
  ranges = breakeven::cheapest_ranges({rent, rent}, 100);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].curve == 0);
  CHECK(ranges[0].to_h == 100);
}

TEST_CASE("offers: upfront and term_years, read and spread over a term's hours", "[breakeven]") {
  const Example e = priced_example();
  const breakeven::CloudOffer& plan = e.offers[2];
  CHECK(plan.upfront == 500);
  CHECK(plan.term_length_years() == 1);
  CHECK(e.offers[1].term_length_years() == 1);  // reserved-1y
  CHECK_FALSE(e.offers[1].term_years);
  CHECK(e.offers[3].term_length_years() == 3);  // reserved-3y
  CHECK(e.offers[0].term_length_years() == 0);  // on demand: no term
  // Per hour of use: (1.30 x 8760 + 500) / 4000 h = 11888 / 4000 = 2.972
  const auto with = breakeven::with_offer(example_config(), plan, 1);
  CHECK(with.rate_per_hour == Approx(2.972));
  CHECK(with.offer_rate_basis.find("500 USD upfront over 1 y") != std::string::npos);
  // An upfront payment on an on-demand offer is a mistake in the catalogue, not a price.
  const auto bad = breakeven::parse_cloud_offers(R"([[offer]]
name = "x"
provider = "p"
instance = "i"
gpu_model = "A100"
price_per_hour = 1
currency = "USD"
upfront = 100
date_seen = "2026-01-01"
source = "s"
)",
                                                 "test");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("upfront and term_years belong to a reserved or savings-plan offer") !=
        std::string::npos);
}

TEST_CASE("wants_paying: a term of the instance in the catalogue, or a term's kind asked for", "[breakeven]") {
  const Example e = priced_example();
  const std::vector<breakeven::OfferKind> on_demand{breakeven::OfferKind::on_demand};
  CHECK(breakeven::wants_paying(e.offers.front(), e.offers, on_demand));
  const std::vector<breakeven::CloudOffer> alone{e.offers.front()};
  CHECK_FALSE(breakeven::wants_paying(e.offers.front(), alone, on_demand));
  CHECK(breakeven::wants_paying(e.offers.front(), alone, {breakeven::OfferKind::savings_plan}));
}

// breakeven: a job on several hosts (docs/cost-model.md, "A job on several hosts"): the config's
// machine figures scale by hosts / local.machines, and a config that does not say is priced as
// given with a warning. Hand-computed cases.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/price_job.hpp>

#include <optional>
#include <string>

namespace {

using namespace gpucost;

constexpr std::int64_t kHourNs = 3600LL * 1'000'000'000;

extract::GpuFeatures gpu(const std::string& host) {
  extract::GpuFeatures g;
  g.host = host;
  g.indicators["energy_kwh"] = {0.5, ""};
  g.indicators["energy_filled_fraction"] = {0.0, ""};
  g.indicators["coverage"] = {1.0, ""};
  g.indicators["util_mean"] = {1.0, ""};
  return g;
}

/// One hour on four hosts of one GPU each, 0.5 kWh per GPU.
extract::Features four_hosts() {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = kHourNs;
  f.host = "n1,n2,n3,n4";
  for (const char* h : {"n1", "n2", "n3", "n4"}) f.gpus.push_back(gpu(h));
  return f;
}

/// One machine: 10000 for 5 y x 2000 h/y, no resale: 1.00 an hour; 100 W beside the GPUs at 0.20
/// per kWh; 20 h/y of maintenance at 50 per hour: 0.50 an hour.
breakeven::CostConfig one_machine() {
  breakeven::CostConfig c;
  c.price_per_kwh = 0.20;
  c.hardware_price = 10000;
  c.lifetime_years = 5;
  c.use_hours_per_year = 2000;
  c.system_power_w = 100;
  c.hourly_wage = 50;
  c.maintenance_hours_per_year = 20;
  c.rate_per_hour = 10.0;
  return c;
}

bool has_notice(const breakeven::PricedJob& p, bool warning, const std::string& text) {
  for (const auto& n : p.notices)
    if (n.warning == warning && n.text.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("several hosts: one machine's figures count once per host with local.machines = 1", "[breakeven][hosts]") {
  breakeven::CostConfig c = one_machine();
  c.machines = 1;
  auto p = breakeven::price_job(c, std::nullopt, four_hosts(), breakeven::PriceOptions{});
  REQUIRE(p);
  // Four machines for an hour: amortisation 4 x 1.00, maintenance 4 x 0.50; electricity
  // 0.20 x (4 x 0.5 kWh of GPUs + 4 x 100 W x 1 h) = 0.20 x 2.4 = 0.48.
  CHECK(p->result.amortisation == Approx(4.0));
  CHECK(p->result.maintenance == Approx(2.0));
  CHECK(p->result.electricity == Approx(0.48));
  CHECK(has_notice(*p, false, "the config describes 1 machine, the job ran on 4 hosts"));
}

TEST_CASE("several hosts: figures that already sum the machines are priced as given", "[breakeven][hosts]") {
  breakeven::CostConfig c = one_machine();
  c.machines = 4;
  auto p = breakeven::price_job(c, std::nullopt, four_hosts(), breakeven::PriceOptions{});
  REQUIRE(p);
  CHECK(p->result.amortisation == Approx(1.0));
  CHECK(p->result.electricity == Approx(0.20 * 2.1));
  // Two of the four machines' sums, the job on four: x2.
  c.machines = 2;
  auto q = breakeven::price_job(c, std::nullopt, four_hosts(), breakeven::PriceOptions{});
  REQUIRE(q);
  CHECK(q->result.amortisation == Approx(2.0));
}

TEST_CASE("several hosts: a config that does not say is priced as given, and warned of", "[breakeven][hosts]") {
  auto p = breakeven::price_job(one_machine(), std::nullopt, four_hosts(), breakeven::PriceOptions{});
  REQUIRE(p);
  CHECK(p->result.amortisation == Approx(1.0));
  CHECK(has_notice(*p, true, "the job ran on 4 hosts (n1,n2,n3,n4)"));
  CHECK(has_notice(*p, true, "set local.machines"));
  // One host: nothing to say.
  extract::Features one = four_hosts();
  one.host = "n1";
  one.gpus.resize(1);
  auto q = breakeven::price_job(one_machine(), std::nullopt, one, breakeven::PriceOptions{});
  REQUIRE(q);
  CHECK_FALSE(has_notice(*q, true, "local.machines"));
}

// breakeven: the cost per unit of work and the break-even in work (docs/cost-model.md, "Cost per
// unit of work"), and cloud.busy_share (docs/cost-model.md, "Busy share"), against hand-computed
// figures. The job is the reference case of docs/cost-model.md's worked example.
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/carbon.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/price_job.hpp>
#include <gpucost/breakeven/work_units.hpp>

#include <string>

namespace {

using namespace gpucost;
using breakeven::CostConfig;
using breakeven::JobInputs;
using gpucost::testing::reference_config;
using gpucost::testing::reference_job;

// 1200 steps of 64 samples of 2048 tokens: 76 800 samples, 157 286 400 tokens, 1.5 epochs.
extract::IndicatorSet reference_work() {
  extract::IndicatorSet s;
  extract::set_value(s, "work_steps", 1200);
  extract::set_value(s, "work_samples", 76800);
  extract::set_value(s, "work_tokens", 157286400);
  extract::set_value(s, "work_epochs", 1.5);
  return s;
}

const breakeven::UnitCost& unit(const breakeven::WorkCosts& w, const char* noun) {
  const auto* u = w.find(noun);
  REQUIRE(u != nullptr);
  return *u;
}

}  // namespace

TEST_CASE("work: cost per step, 1k samples, 1M tokens and epoch, by hand", "[work]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  REQUIRE(r.local_total == Approx(1.863710).epsilon(1e-6));
  REQUIRE(r.cloud_total == Approx(3.166667).epsilon(1e-6));
  const auto w = breakeven::work_costs(r, reference_work());
  CHECK(w.any());
  CHECK(w.window_h == 2.0);

  const auto& steps = unit(w, "steps");
  CHECK(*steps.count == 1200);
  CHECK(*steps.per_hour == Approx(600));       // 1200 / 2 h
  CHECK(*steps.local == Approx(0.001553092));  // 1.863710 / 1200
  CHECK(*steps.cloud == Approx(0.002638889));  // 3.166667 / 1200
  const auto& samples = unit(w, "samples");
  CHECK(*samples.local == Approx(0.024267062));  // 1.863710 / 76 800 x 1000
  CHECK(*samples.cloud == Approx(0.041232639));  // 3.166667 / 76.8
  const auto& tokens = unit(w, "tokens");
  CHECK(*tokens.per_hour == Approx(78643200));  // 157 286 400 / 2
  CHECK(*tokens.local == Approx(0.011849151));  // 1.863710 / 157.2864
  CHECK(*tokens.cloud == Approx(0.020133124));  // 3.166667 / 157.2864
  const auto& epochs = unit(w, "epochs");
  CHECK(*epochs.local == Approx(1.242473581));  // 1.863710 / 1.5
  CHECK(*epochs.cloud == Approx(2.111111111));  // 3.166667 / 1.5
  CHECK_FALSE(steps.local_kg.has_value());      // no grid intensity: no kg per unit
}

TEST_CASE("work: kg CO2e per unit of work, by hand", "[work][carbon]") {
  auto r = breakeven::compute(reference_config(), reference_job());
  r.carbon.computed = true;
  r.carbon.local.kg = 0.528;   // docs/cost-model.md, "Carbon": 1.32 kWh at 400 g/kWh
  r.carbon.cloud.kg = 0.2704;  // 0.790625 kWh at 342.06 g/kWh (an estimate)
  const auto w = breakeven::work_costs(r, reference_work());
  CHECK(*unit(w, "steps").local_kg == Approx(0.00044));       // 0.528 / 1200
  CHECK(*unit(w, "steps").cloud_kg == Approx(0.000225333));   // 0.2704 / 1200
  CHECK(*unit(w, "tokens").local_kg == Approx(0.003356933));  // 0.528 / 157.2864 (per 1M tokens)
  CHECK(*unit(w, "epochs").cloud_kg == Approx(0.180266667));  // 0.2704 / 1.5
  r.carbon.cloud.kg.reset();
  CHECK_FALSE(breakeven::work_costs(r, reference_work()).units[0].cloud_kg.has_value());
  CHECK(breakeven::co2e_text(0.00044) == "0.44 g");  // per step, for people
  CHECK(breakeven::co2e_text(0.0382) == "38.2 g");
  CHECK(breakeven::co2e_text(1.5) == breakeven::kg_text(1.5) + " kg");
}

TEST_CASE("work: the break-even use in work a month and a year", "[work]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  REQUIRE(*r.use_hours_per_year.value == Approx(1082.771896));  // 1500 / (1.583333 - 0.198)
  const auto w = breakeven::work_costs(r, reference_work());
  const auto& tokens = unit(w, "tokens");
  // 1082.771896 h/year x 78 643 200 tokens/h = 85.15 B tokens a year, 7.10 B a month
  CHECK(*tokens.breakeven_per_year == Approx(85152646775.7));
  CHECK(*tokens.breakeven_per_month == Approx(7096053898.0));
  CHECK(*unit(w, "steps").breakeven_per_month == Approx(54138.595));  // 1082.771896 x 600 / 12
  // T* none in the reference case: local is cheaper at every length, and so at every job size.
  CHECK_FALSE(tokens.breakeven_job);
  CHECK(tokens.job_reason == r.job_hours.reason);
  CHECK(breakeven::work_amount(*tokens.breakeven_per_month) == "7.1 B");
}

TEST_CASE("work: the break-even job in work against the cheaper offer", "[work]") {
  CostConfig c = reference_config();
  c.rate_per_hour = 0.5;
  const auto r = breakeven::compute(c, reference_job());
  REQUIRE(*r.job_hours.value == Approx(0.876388).epsilon(1e-5));  // 0.816667 / 0.931855
  const auto w = breakeven::work_costs(r, reference_work());
  CHECK(*unit(w, "steps").breakeven_job == Approx(525.833).epsilon(1e-5));    // 0.876388 h x 600 steps/h
  CHECK(*unit(w, "epochs").breakeven_job == Approx(0.657291).epsilon(1e-5));  // 0.876388 x 0.75 epochs/h
  // H* = 1500 / (1.166667 / 2 - 0.198) = 3892.73 h/year; x 78 643 200 / 12 = 25.51 B tokens a month
  CHECK(*unit(w, "tokens").breakeven_per_month == Approx(25511418685.1));
  CHECK(unit(w, "tokens").cloud.value() == Approx(1.166667 / 157.2864).epsilon(1e-6));
}

TEST_CASE("work: a unit the features do not count is null with the reason", "[work]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  extract::IndicatorSet s;
  extract::set_value(s, "work_steps", 1200);
  extract::set_absent(s, "work_tokens", "the training log prints no token counts");
  extract::set_value(s, "work_epochs", 0);
  const auto w = breakeven::work_costs(r, s);
  CHECK(w.any());
  CHECK(unit(w, "steps").local);
  const auto& tokens = unit(w, "tokens");
  CHECK_FALSE(tokens.count);
  CHECK_FALSE(tokens.local);
  CHECK_FALSE(tokens.cloud);
  CHECK(tokens.reason == "the training log prints no token counts");
  const auto& samples = unit(w, "samples");
  CHECK_FALSE(samples.local);
  CHECK(samples.reason.find("no work_samples") != std::string::npos);
  const auto& epochs = unit(w, "epochs");
  CHECK_FALSE(epochs.local);
  CHECK(epochs.reason.find("no epochs in the job window") != std::string::npos);

  const auto none = breakeven::work_costs(r, extract::IndicatorSet{});
  CHECK_FALSE(none.any());
}

TEST_CASE("work: --fill none over a partly sampled window gives no cost per unit", "[work]") {
  JobInputs j = reference_job();
  j.energy_basis.known = true;
  j.energy_basis.coverage = 0.5;
  j.energy_basis.window_h = 2.0;
  j.energy_basis.covered_h = 1.0;
  j.energy_basis.uncovered_h = 1.0;
  j.measured_kwh = {0.25, 0.2};
  j.uncovered_h = {1.0, 1.0};
  breakeven::apply_fill(j, breakeven::FillRule::none, 0);
  REQUIRE(j.wall_h == 1.0);
  const auto w = breakeven::work_costs(breakeven::compute(reference_config(), j), reference_work());
  CHECK_FALSE(w.any());
  CHECK(unit(w, "tokens").reason.find("--fill none priced 1 h with samples of the 2 h window") != std::string::npos);
}

TEST_CASE("work: amounts with a prefix of the short scale, costs never 0.00", "[work]") {
  CHECK(breakeven::work_amount(640) == "640");
  CHECK(breakeven::work_amount(1.5) == "1.5");
  CHECK(breakeven::work_amount(0.25) == "0.25");
  CHECK(breakeven::work_amount(1200) == "1.2 k");
  CHECK(breakeven::work_amount(999.4) == "999");
  CHECK(breakeven::work_amount(999.6) == "1 k");
  CHECK(breakeven::work_amount(3456789) == "3.46 M");
  CHECK(breakeven::work_amount(1.2e9) == "1.2 B");
  CHECK(breakeven::work_amount(7.5e12) == "7.5 T");
  CHECK(breakeven::unit_money(1.2424735) == "1.24");
  CHECK(breakeven::unit_money(0.5) == "0.500");
  CHECK(breakeven::unit_money(0.001553092) == "0.00155");
  CHECK(breakeven::unit_money(0.999) == "1.00");
  CHECK(breakeven::unit_money(0) == "0.00");
}

// ---- busy share -------------------------------------------------------------------------

namespace {

// The reference job's features: two GPUs at u = 0.6 and 0.9, with SM active 0.4 and 0.5.
extract::Features busy_features(bool per_gpu, bool host) {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = 7'200'000'000'000;
  const double energy[] = {0.5, 0.4}, util[] = {0.6, 0.9}, sm[] = {0.4, 0.5};
  for (int i = 0; i < 2; ++i) {
    extract::GpuFeatures g;
    g.gpu = i;
    extract::set_value(g.indicators, "energy_kwh", energy[i]);
    extract::set_value(g.indicators, "util_mean", util[i]);
    extract::set_value(g.indicators, "coverage", 1.0);
    extract::set_value(g.indicators, "energy_filled_fraction", 0.0);
    if (per_gpu) extract::set_value(g.indicators, "sm_active_mean", sm[i]);
    f.gpus.push_back(g);
  }
  if (host)
    extract::set_value(f.host_indicators, "sm_active_mean", 0.5);
  else
    extract::set_absent(f.host_indicators, "sm_active_mean", "no DCGM profiling field in the telemetry");
  return f;
}

}  // namespace

TEST_CASE("work: cloud.busy_share = sm_active takes each GPU's SM active for the busy share", "[work][busy]") {
  const auto f = busy_features(true, true);
  auto job = breakeven::job_inputs(f);
  REQUIRE(job);
  CHECK(breakeven::apply_busy_share(*job, f, "sm_active").empty());
  CHECK(job->busy_source == "sm_active");
  const auto r = breakeven::compute(reference_config(), *job);
  CHECK(r.util_mean == Approx(0.75));   // the utilisation is still shown as measured
  CHECK(r.busy_share == Approx(0.45));  // (0.4 + 0.5) / 2
  CHECK(r.q == Approx(0.775));          // (1 - 0.45) + 0.45 / 2
  // max(600, ceil((0.775 x 7200 + 300) / 60) x 60) = ceil(5880 / 60) x 60 = 5880 s
  CHECK(r.billed_s == Approx(5880));
  CHECK(r.cloud_total == Approx(3.766667).epsilon(1e-6));  // 2.0 x 5880 / 3600 + 0.5
}

TEST_CASE("work: busy share from the host's SM active when the GPUs have none of their own", "[work][busy]") {
  const auto f = busy_features(false, true);
  auto job = breakeven::job_inputs(f);
  REQUIRE(job);
  CHECK(breakeven::apply_busy_share(*job, f, "sm_active").empty());
  const auto r = breakeven::compute(reference_config(), *job);
  CHECK(r.busy_share == Approx(0.5));
  CHECK(r.q == Approx(0.75));  // (1 - 0.5) + 0.5 / 2
}

TEST_CASE("work: busy share util (the default) ignores SM active", "[work][busy]") {
  const auto f = busy_features(true, true);
  auto job = breakeven::job_inputs(f);
  REQUIRE(job);
  CHECK(breakeven::apply_busy_share(*job, f, "util").empty());
  CHECK(job->busy_source == "util");
  const auto r = breakeven::compute(reference_config(), *job);
  CHECK(r.busy_share == Approx(0.75));
  CHECK(r.q == Approx(0.625));  // the worked example's q
}

TEST_CASE("work: sm_active asked without SM active falls back to util, and says so", "[work][busy]") {
  const auto f = busy_features(false, false);
  auto job = breakeven::job_inputs(f);
  REQUIRE(job);
  const std::string why = breakeven::apply_busy_share(*job, f, "sm_active");
  CHECK(why.find("cloud.busy_share = sm_active, but the features give no sm_active_mean") != std::string::npos);
  CHECK(why.find("no DCGM profiling field in the telemetry") != std::string::npos);
  CHECK(job->busy_source == "util");
  CHECK(breakeven::compute(reference_config(), *job).q == Approx(0.625));

  // price_job passes it on as a warning: never silently.
  CostConfig c = reference_config();
  c.busy_share = "sm_active";
  auto priced = breakeven::price_job(c, std::nullopt, f, breakeven::PriceOptions{});
  REQUIRE(priced);
  bool warned = false;
  for (const auto& n : priced->notices) warned = warned || (n.warning && n.text == why);
  CHECK(warned);
  CHECK(priced->result.q == Approx(0.625));
}

TEST_CASE("work: cloud.busy_share is read from the config and checked", "[work][busy][config]") {
  auto c = breakeven::load_config(std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000",
                                                 "cloud.rate_per_hour=2", "cloud.busy_share=sm_active"});
  REQUIRE(c);
  CHECK(c->busy_share == "sm_active");
  auto d = breakeven::load_config(
      std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000", "cloud.rate_per_hour=2"});
  REQUIRE(d);
  CHECK(d->busy_share == "util");
  auto bad = breakeven::load_config(std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000",
                                                   "cloud.rate_per_hour=2", "cloud.busy_share=sm"});
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "--set: cloud.busy_share 'sm' is not util or sm_active");
  CHECK(bad.error().hint.find("e.g. --set cloud.busy_share=sm_active") != std::string::npos);
}

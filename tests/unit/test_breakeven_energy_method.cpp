// breakeven: which energy is priced (docs/cost-model.md, "Which energy is priced"): the GPUs'
// energy counters or their power samples, the split of measured and estimated energy by the
// counter's coverage, the warning when the power integral is far off the counters, and the
// method in the table, the JSON and the Prometheus textfile. Hand-computed cases.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/price_job.hpp>
#include <gpucost/outputs/prom_textfile.hpp>
#include <gpucost/report/breakeven_report.hpp>

#include <string>

namespace {

using namespace gpucost;

constexpr std::int64_t kHourNs = 3600LL * 1'000'000'000;

extract::GpuFeatures gpu(int index, double kwh, double from_power_kwh, const std::string& method) {
  extract::GpuFeatures g;
  g.gpu = index;
  g.energy_method = method;
  g.indicators["energy_kwh"] = {kwh, ""};
  g.indicators["energy_filled_fraction"] = {0.1, ""};
  g.indicators["coverage"] = {1.0, ""};  // the samples cover the hour
  g.indicators["util_mean"] = {0.9, ""};
  g.indicators["energy_kwh_from_power"] = {from_power_kwh, ""};
  if (method == "counter") g.indicators["energy_counter_coverage"] = {0.9, ""};  // 54 of 60 min
  return g;
}

/// One hour, two GPUs: 0.5 and 0.4 kWh, each 10 % filled; the power integrals 0.47 + 0.376 = 0.846
/// kWh, (0.846 - 0.9) / 0.9 = -6 % off the counters.
extract::Features job(const std::string& method1 = "counter") {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = kHourNs;
  f.gpus = {gpu(0, 0.5, 0.47, "counter"), gpu(1, 0.4, 0.376, method1)};
  f.energy_method = method1 == "counter" ? "counter" : "mixed";
  f.host_indicators["energy_kwh_from_power"] = {0.846, ""};
  if (method1 == "counter")
    f.host_indicators["energy_power_vs_counter_pct"] = {-6.0, ""};
  else
    f.host_indicators["energy_power_vs_counter_pct"] = {std::nullopt, "GPU 1: no energy counter in the samples"};
  return f;
}

breakeven::CostConfig config() {
  breakeven::CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.rate_per_hour = 1.0;
  return c;
}

bool has_notice(const breakeven::PricedJob& p, bool warning, const std::string& text) {
  for (const auto& n : p.notices)
    if (n.warning == warning && n.text.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("energy method: the counters' energy is priced, measured where they cover", "[breakeven][energy-counter]") {
  auto in = breakeven::job_inputs(job());
  REQUIRE(in);
  CHECK(in->energy_method == "counter");
  REQUIRE(in->gpu_energy_method.size() == 2);
  CHECK(in->gpu_energy_method[1] == std::pair<int, std::string>{1, "counter"});
  CHECK(*in->energy_from_power_kwh == Approx(0.846));
  CHECK(*in->power_vs_counter_pct == Approx(-6.0));
  // The counters' coverage, not the samples': 0.9 of the hour; measured 0.9 x (0.5 + 0.4) = 0.81,
  // estimated 0.09 kWh over 0.1 h: 900 W.
  const auto& b = in->energy_basis;
  CHECK(b.coverage == Approx(0.9));
  CHECK(b.measured_kwh == Approx(0.81));
  CHECK(b.estimated_kwh == Approx(0.09));
  CHECK(b.uncovered_h == Approx(0.1));
  CHECK(b.fill_power_w == Approx(900));
}

TEST_CASE("energy method: a power integral more than 5 % off the counters is a warning",
          "[breakeven][energy-counter]") {
  auto p = breakeven::price_job(config(), std::nullopt, job(), breakeven::PriceOptions{});
  REQUIRE(p);
  CHECK(has_notice(*p, true, "the power samples' integral (0.8460 kWh) is -6.0 % off the GPUs' energy counters"));
  CHECK(p->result.energy_kwh == Approx(0.9));  // the counters' energy is priced
  // -4 % is within the tolerance: no warning.
  extract::Features close = job();
  close.host_indicators["energy_power_vs_counter_pct"] = {-4.0, ""};
  auto q = breakeven::price_job(config(), std::nullopt, close, breakeven::PriceOptions{});
  REQUIRE(q);
  CHECK_FALSE(has_notice(*q, true, "off the GPUs' energy counters"));
  // Mixed: a note, and no cross-check of the host.
  auto m = breakeven::price_job(config(), std::nullopt, job("power"), breakeven::PriceOptions{});
  REQUIRE(m);
  CHECK(has_notice(*m, false, "the GPU energy comes from the energy counters of some GPUs"));
  CHECK_FALSE(has_notice(*m, true, "off the GPUs' energy counters"));
}

TEST_CASE("energy method: the table, the JSON and the textfile say which method gave the energy",
          "[breakeven][energy-counter]") {
  const extract::Features f = job();
  auto p = breakeven::price_job(config(), std::nullopt, f, breakeven::PriceOptions{});
  REQUIRE(p);
  const std::string table = report::breakeven_table(p->result, p->config, f);
  CHECK(table.find("energy    0.9000 kWh (0.8100 measured over 54.0 min, 0.0900 estimated for 6.0 min without "
                   "samples at 900 W mean; from the GPUs' energy counters; power integral 0.8460 kWh, -6.0 %)") !=
        std::string::npos);
  const std::string json = report::breakeven_json(p->result, p->config, f);
  CHECK(json.find("\"method\": \"counter\", \"from_power_kwh\": 0.846, \"power_vs_counter_pct\": -6") !=
        std::string::npos);
  const std::string prom = outputs::prometheus_textfile(p->result, p->config, f);
  CHECK(prom.find("gpucost_job_energy_method{host=\"\",method=\"counter\"} 1") != std::string::npos);
  CHECK(prom.find("gpucost_host_energy_power_vs_counter_ratio{host=\"\"} -0.06") != std::string::npos);

  const extract::Features mixed = job("power");
  auto m = breakeven::price_job(config(), std::nullopt, mixed, breakeven::PriceOptions{});
  REQUIRE(m);
  CHECK(report::breakeven_table(m->result, m->config, mixed)
            .find("from the energy counters of GPU 0 and the power samples of GPU 1)") != std::string::npos);
  CHECK(report::breakeven_json(m->result, m->config, mixed)
            .find("\"method\": \"mixed\", \"gpu_methods\": [{\"gpu\": 0, \"method\": \"counter\"}, {\"gpu\": 1, "
                  "\"method\": \"power\"}], \"from_power_kwh\": 0.846, \"power_vs_counter_pct\": null") !=
        std::string::npos);

  // The power integral alone: the line is as it always was, the JSON says "power".
  extract::Features power = job("power");
  for (auto& g : power.gpus) g.energy_method = "power";
  power.energy_method = "power";
  auto w = breakeven::price_job(config(), std::nullopt, power, breakeven::PriceOptions{});
  REQUIRE(w);
  CHECK(report::breakeven_table(w->result, w->config, power).find("energy counter") == std::string::npos);
  CHECK(report::breakeven_json(w->result, w->config, power).find("\"method\": \"power\"") != std::string::npos);
  CHECK(outputs::prometheus_textfile(w->result, w->config, power).find("method=\"power\"} 1") != std::string::npos);
}

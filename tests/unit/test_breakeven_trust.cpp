// What keeps the verdict honest: measured vs estimated energy (--fill), one currency
// ([exchange]), offers that can run the job, the GPU speed table, and the warnings about
// implausible inputs. Each against a hand-computed case (docs/cost-model.md).
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/breakeven/price_job.hpp>

#include <fmt/format.h>

#include <string>

namespace {

using namespace gpucost;
using breakeven::CostConfig;

constexpr std::int64_t kHourNs = 3600LL * 1'000'000'000;

/// The 40-minute sample seen through a 4 h window: coverage 1/6, 1.2971 of 1.5565 kWh filled.
extract::Features partial_window() {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = 4 * kHourNs;
  extract::GpuFeatures g;
  g.gpu = 0;
  g.indicators["energy_kwh"] = {1.5565, ""};
  g.indicators["energy_filled_fraction"] = {1.2971 / 1.5565, ""};
  g.indicators["coverage"] = {1.0 / 6.0, ""};
  g.indicators["util_mean"] = {0.9, ""};
  f.gpus.push_back(g);
  return f;
}

CostConfig simple_config() {
  CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.rate_per_hour = 1.0;
  return c;
}

/// One offer, read through the catalogue's own parser.
breakeven::CloudOffer offer(const char* name, const char* model, double memory_gb, int gpus, bool per_gpu, double price,
                            const char* currency = "USD") {
  const std::string toml = fmt::format(
      "[[offer]]\nname = \"{}\"\nprovider = \"p\"\ninstance = \"{}\"\ngpu_model = \"{}\"\ngpu_memory_gb = {}\n"
      "{} = {}\nper_gpu = {}\nprice_per_hour = {}\ncurrency = \"{}\"\ndate_seen = \"2026-11-01\"\nsource = \"test\"\n",
      name, name, model, memory_gb, per_gpu ? "max_gpus" : "gpus", gpus, per_gpu ? "true" : "false", price, currency);
  auto parsed = breakeven::parse_cloud_offers(toml, "test");
  REQUIRE(parsed);
  REQUIRE(parsed->size() == 1);
  return parsed->front();
}

}  // namespace

TEST_CASE("energy: measured and estimated from coverage and the filled fraction", "[breakeven][trust]") {
  auto job = breakeven::job_inputs(partial_window());
  REQUIRE(job);
  const auto& b = job->energy_basis;
  REQUIRE(b.known);
  // measured = 1.5565 x (1 - 1.2971 / 1.5565) = 0.2594; estimated 1.2971; 4 h x 1/6 = 0.6667 h covered
  CHECK(b.measured_kwh == Approx(0.2594));
  CHECK(b.estimated_kwh == Approx(1.2971));
  CHECK(b.coverage == Approx(1.0 / 6));
  CHECK(b.covered_h == Approx(4.0 / 6));
  CHECK(b.uncovered_h == Approx(4.0 * 5 / 6));
  CHECK(b.fill_power_w == Approx(1.2971 / (20.0 / 6) * 1000));  // 389.13 W
  CHECK(b.estimated_share() == Approx(1.2971 / 1.5565));
}

TEST_CASE("energy: --fill none prices the measured time, --fill idle the idle power", "[breakeven][trust]") {
  auto none = breakeven::job_inputs(partial_window());
  REQUIRE(none);
  breakeven::apply_fill(*none, breakeven::FillRule::none, 60);
  CHECK(none->wall_h == Approx(4.0 / 6));
  CHECK(none->energy_kwh[0] == Approx(0.2594));
  CHECK(none->energy_basis.estimated_kwh == 0);
  // C_e = 0.30 x 0.2594 = 0.07782; C_a = 3000 / (3 x 2044) x 0.6667 = 0.326157
  const auto r = breakeven::compute(simple_config(), *none);
  CHECK(r.electricity == Approx(0.30 * 0.2594));
  CHECK(r.amortisation == Approx(3000.0 / (3 * 2044) * 4.0 / 6));

  auto idle = breakeven::job_inputs(partial_window());
  REQUIRE(idle);
  breakeven::apply_fill(*idle, breakeven::FillRule::idle, 60);
  // 3.3333 h x 60 W = 0.2 kWh on top of the measured 0.2594
  CHECK(idle->wall_h == Approx(4.0));
  CHECK(idle->energy_kwh[0] == Approx(0.2594 + 0.2));
  CHECK(idle->energy_basis.fill_power_w == 60);

  auto mean = breakeven::job_inputs(partial_window());
  REQUIRE(mean);
  breakeven::apply_fill(*mean, breakeven::FillRule::mean, 60);
  CHECK(mean->energy_kwh[0] == Approx(1.5565));
  CHECK_FALSE(breakeven::parse_fill_rule("median"));
}

TEST_CASE("energy: a warning names the estimated share, --fill none a note", "[breakeven][trust]") {
  breakeven::PriceOptions o;
  auto p = breakeven::price_job(simple_config(), std::nullopt, partial_window(), o);
  REQUIRE(p);
  bool warned = false;
  for (const auto& n : p->notices)
    warned = warned || (n.warning && n.text.find("samples cover 16.7 % of the window: 1.2971 of 1.5565 kWh (83 %)") !=
                                         std::string::npos);
  CHECK(warned);
  o.fill = breakeven::FillRule::none;
  auto q = breakeven::price_job(simple_config(), std::nullopt, partial_window(), o);
  REQUIRE(q);
  CHECK(q->result.job.wall_h == Approx(4.0 / 6));
  CHECK_FALSE(q->range.low);  // the bounds include the unsampled time
}

TEST_CASE("currency: [exchange] converts an offer, a missing rate names the key", "[breakeven][trust]") {
  auto c = breakeven::load_config(std::nullopt,
                                  {"currency=\"EUR\"", "electricity.price_per_kwh=0.3", "local.hardware_price=3000",
                                   "cloud.offer=\"x\"", "exchange.USD=0.92", "exchange.date=\"2026-11-28\""});
  REQUIRE(c);
  CHECK(c->exchange.at("USD") == 0.92);
  CHECK(c->exchange_date == "2026-11-28");
  breakeven::JobShape shape;
  shape.gpus = 1;
  const auto with = breakeven::config_for_offer(*c, offer("o", "H100", 80, 8, true, 1.99), shape);
  REQUIRE(with);
  CHECK(with->rate_per_hour == Approx(1.99 * 0.92));  // 1.8308 EUR/h
  CHECK(breakeven::exchange_text(*with) == "USD->EUR 0.92 of 2026-11-28, from config");
  c->exchange.clear();
  const auto missing = breakeven::config_for_offer(*c, offer("o", "H100", 80, 8, true, 1.99), shape);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("exchange.USD") != std::string::npos);
  // An offer in the config's own currency needs no rate.
  CHECK(breakeven::config_for_offer(*c, offer("o", "H100", 80, 8, true, 1.99, "EUR"), shape));
  // Codes are three capital letters; rates are positive.
  CHECK_FALSE(breakeven::load_config(std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000",
                                                    "cloud.rate_per_hour=1", "exchange.usd=0.9"}));
  CHECK_FALSE(breakeven::load_config(std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000",
                                                    "cloud.rate_per_hour=1", "exchange.USD=0"}));
}

TEST_CASE("offers: fit by GPU count and memory, with the margin and the local card's cap", "[breakeven][trust]") {
  breakeven::JobShape job;
  job.gpus = 2;
  job.peak_fb_mib = 70.0 * 1024;  // 70 GiB per GPU
  const double margin = 0.05;     // needs 73.5 GiB
  CHECK(breakeven::unfit_reason(offer("4090", "RTX 4090", 24, 8, true, 0.4), job, margin) ==
        "24 GB per GPU, the job used up to 70.0 GiB (+5 % margin)");
  CHECK(breakeven::unfit_reason(offer("h100", "H100", 80, 8, true, 2.5), job, margin).empty());
  CHECK(breakeven::unfit_reason(offer("one", "H100", 80, 1, false, 2.5), job, margin) == "1 GPU, the job ran on 2");
  // A larger instance fits and is paid whole.
  const auto eight = offer("eight", "H100", 80, 8, false, 20);
  CHECK(breakeven::unfit_reason(eight, job, margin).empty());
  CHECK(eight.billed_gpus(2) == 8);
  // A job that ran on a 24 GB card fits a 24 GB offer, whatever the margin: 24000 + 564 MiB headroom.
  breakeven::JobShape full;
  full.gpus = 1;
  full.peak_fb_mib = 24000;
  full.local_fb_mib = 24564;
  CHECK(*breakeven::required_memory_mib(full, margin) == Approx(24564));
  CHECK(breakeven::unfit_reason(offer("4090", "RTX 4090", 24, 1, false, 0.4), full, margin).empty());
  // Memory not measured: only the count is checked, and the basis says so.
  breakeven::JobShape unknown;
  unknown.gpus = 1;
  CHECK(breakeven::unfit_reason(offer("4090", "RTX 4090", 24, 1, false, 0.4), unknown, margin).empty());
  CHECK(breakeven::fit_basis(unknown, margin) == "to fit: 1 GPU (memory use not in the logs: not checked)");
  CHECK(breakeven::fit_basis(job, margin) == "to fit: 2 GPUs, 73.5 GiB per GPU (peak use 70.0 GiB + 5 %)");
}

TEST_CASE("speed table: names as nvidia-smi prints them, whole words, longest match", "[breakeven][trust]") {
  REQUIRE(breakeven::gpu_speeds().size() >= 10);
  for (const auto& g : breakeven::gpu_speeds()) {
    CHECK_FALSE(g.source.empty());
    CHECK(g.date_seen.size() == 10);
  }
  const auto model = [](const char* name) {
    const auto* g = breakeven::find_gpu_speed(name);
    return g == nullptr ? std::string("none") : g->model;
  };
  CHECK(model("NVIDIA GeForce RTX 4090") == "RTX 4090");
  CHECK(model("NVIDIA H100 80GB HBM3") == "H100 SXM");
  CHECK(model("NVIDIA H100 PCIe") == "H100 PCIe");
  CHECK(model("NVIDIA A100-SXM4-80GB") == "A100 SXM4 80GB");
  CHECK(model("NVIDIA A100-SXM4-40GB") == "A100 SXM4 40GB");
  CHECK(model("NVIDIA A100 80GB PCIe") == "A100 80GB PCIe");
  CHECK(model("NVIDIA A100-PCIE-40GB") == "A100 PCIe 40GB");
  CHECK(model("A100 40GB") == "A100");    // the variant not told: no power or memory
  CHECK(model("NVIDIA A10G") == "A10G");  // not the A10
  CHECK(model("NVIDIA L40S") == "L40S");  // not the L4
  CHECK(model("NVIDIA L4") == "L4");
  CHECK(model("Tesla T4") == "T4");
  CHECK(model("NVIDIA GeForce RTX 4060") == "none");  // not the T4, not the 4060 Laptop
  CHECK(model("NVIDIA GeForce RTX 4080") == "RTX 4080");
  CHECK(model("NVIDIA GeForce RTX 4080 SUPER") == "RTX 4080 SUPER");  // the longer match
  CHECK(model("NVIDIA GeForce RTX 4060 Laptop GPU") == "RTX 4060 Laptop");
  CHECK(model("NVIDIA GeForce RTX 5090") == "RTX 5090");
  CHECK(model("NVIDIA B200") == "B200");
  CHECK(model("NVIDIA RTX 6000 Ada Generation") == "RTX 6000 Ada");
  CHECK(model("NVIDIA RTX A6000") == "RTX A6000");  // not the RTX 6000 Ada
  // AMD names as amd-smi/rocm-smi print them: "AMD" and "Instinct" are dropped; "/" does not split.
  CHECK(model("AMD Instinct MI300X") == "MI300X");
  CHECK(model("AMD Instinct MI300X OAM") == "MI300X");
  CHECK(model("AMD Instinct MI210") == "MI210");
  CHECK(model("AMD Instinct MI250X") == "MI250X");
  CHECK(model("AMD Instinct MI250") == "MI250");
  CHECK(breakeven::gpu_name_words("AMD Instinct MI250X/MI250") == std::vector<std::string>{"mi250x/mi250"});
  CHECK(model("AMD Instinct MI250X/MI250") == "MI250X/MI250 GCD");  // one GCD, either variant
  // H100 SXM over RTX 4090: memory-bound 3350 / 1008, compute-bound 989.4 / 165.2 (the range's
  // arithmetic is checked by hand in test_breakeven_speed_range.cpp).
  const auto r = breakeven::speed_ratio_range("NVIDIA GeForce RTX 4090", "H100 SXM");
  REQUIRE(r);
  CHECK(r->high == Approx(989.4 / 165.2));
  CHECK(r->high_basis.find("989.4") != std::string::npos);
  std::string why;
  CHECK_FALSE(breakeven::speed_ratio_range("NVIDIA GeForce RTX 4090", "A10G", {}, &why));
  CHECK(why == "no published dense throughput for A10G");
  CHECK_FALSE(breakeven::speed_ratio_range("", "H100", {}, &why));
  // Per-OAM figures for a GCD of unknown variant would be a guess: no ratio.
  CHECK_FALSE(breakeven::speed_ratio_range("AMD Instinct MI250X/MI250", "H100 SXM", {}, &why));
  CHECK(why == "no published dense throughput for MI250X/MI250 GCD");
  // Both throughputs are known, but the MI210's memory bandwidth is not at hand: no range.
  CHECK_FALSE(breakeven::speed_ratio_range("AMD Instinct MI210", "MI300X", {}, &why));
  CHECK(why == "no memory bandwidth for MI210");
}

TEST_CASE("GPU table: board power and memory, by hand from the datasheets' columns", "[breakeven][trust]") {
  const auto* h100 = breakeven::find_gpu_speed("NVIDIA H100 80GB HBM3");
  REQUIRE(h100 != nullptr);
  CHECK(h100->tdp_w == 700);
  CHECK(h100->memory_gb == 80);
  const auto* pcie = breakeven::find_gpu_speed("NVIDIA A100-PCIE-40GB");
  REQUIRE(pcie != nullptr);
  CHECK(pcie->tdp_w == 250);
  CHECK(pcie->memory_gb == 40);
  const auto* a100 = breakeven::find_gpu_speed("A100");
  REQUIRE(a100 != nullptr);
  CHECK_FALSE(a100->tdp_w.has_value());  // variants differ: no guess
  CHECK_FALSE(a100->memory_gb.has_value());
  const auto* mi210 = breakeven::find_gpu_speed("AMD Instinct MI210");
  REQUIRE(mi210 != nullptr);
  CHECK(mi210->tdp_w == 300);
  CHECK(mi210->memory_gb == 64);
  const auto* b200 = breakeven::find_gpu_speed("NVIDIA B200");
  REQUIRE(b200 != nullptr);
  CHECK(b200->memory_gb == 180);         // DGX B200 User Guide: 1,440 GB over 8 GPUs
  CHECK_FALSE(b200->tdp_w.has_value());  // no NVIDIA document at hand: not guessed
  CHECK_FALSE(b200->dense_tflops.has_value());
  for (const auto& g : breakeven::gpu_speeds()) {
    if (g.tdp_w) CHECK((*g.tdp_w >= 35 && *g.tdp_w <= 1500));
    if (g.memory_gb) CHECK((*g.memory_gb >= 4 && *g.memory_gb <= 512));
  }
  auto bad = breakeven::parse_gpu_speeds(
      "[[gpu]]\nmodel = \"X\"\nmatch = [\"x\"]\ntdp_w = 0\nsource = \"s\"\ndate_seen = \"2026-12-03\"\n", "t.toml");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "t.toml: gpu 'X': tdp_w must be > 0");
}

TEST_CASE("speed ratio: flag, config and offer win over the table, the table over the default", "[breakeven][trust]") {
  CostConfig c = simple_config();
  breakeven::JobShape shape;
  shape.gpus = 1;
  shape.local_model = "NVIDIA GeForce RTX 4090";
  const auto h100 = offer("h100", "H100", 80, 8, true, 2.5);
  auto t = breakeven::config_for_offer(c, h100, shape);
  REQUIRE(t);
  CHECK(t->speed_ratio_source == "table");
  // A bare "H100" of 80 GB: SXM or PCIe (the NVL has 94 GB); the range spans both, the middle is
  // the geometric mean of theirs (test_breakeven_speed_range.cpp works the figures).
  REQUIRE(t->speed_ratio_low);
  REQUIRE(t->speed_ratio_high);
  CHECK(*t->speed_ratio_low == Approx(1.531863).epsilon(1e-5));
  CHECK(*t->speed_ratio_high == Approx(989.4 / 165.2));
  CHECK(t->speed_ratio == Approx(2.027871).epsilon(1e-5));
  CHECK(t->speed_ratio_basis.find("a range") != std::string::npos);
  CHECK(t->speed_ratio_basis.find("does not tell the board") != std::string::npos);
  c.speed_ratio = 1.5;
  c.speed_ratio_source = "config";
  t = breakeven::config_for_offer(c, h100, shape);
  CHECK(t->speed_ratio == 1.5);
  CHECK(t->speed_ratio_source == "config");
  CHECK_FALSE(t->speed_ratio_low);  // a given ratio is a point, and says so
  CHECK(t->speed_ratio_basis.find("a point") != std::string::npos);
  shape.local_model.clear();  // several models, or none named: the default stays, with the reason
  t = breakeven::config_for_offer(simple_config(), h100, shape);
  CHECK(t->speed_ratio_source == "default");
  CHECK(t->speed_ratio_basis.find("not in the logs") != std::string::npos);
}

TEST_CASE("warnings: implausible values, --mc without ranges says nothing varies", "[breakeven][trust]") {
  CostConfig c = simple_config();
  CHECK(breakeven::implausible_values(c).empty());
  c.price_per_kwh = 25;  // cents typed as units
  c.line = 12;           // 12 for 12 %
  c.lifetime_years = 20;
  const auto w = breakeven::implausible_values(c);
  REQUIRE(w.size() == 3);
  CHECK(w[0].find("cents entered as units?") != std::string::npos);
  CHECK(w[1] == "line = 12 is a premium of 1200 %: 0.12 means 12 %");
  CHECK(w[2].find("15 years") != std::string::npos);
  breakeven::PriceOptions o;
  o.mc_draws = 100;
  auto p = breakeven::price_job(simple_config(), std::nullopt, partial_window(), o);
  REQUIRE(p);
  CHECK_FALSE(p->monte_carlo);
  CHECK(p->monte_carlo_reason.find("nothing varies: give [ranges]") == 0);
  // Impossible values are errors.
  CHECK_FALSE(breakeven::load_config(std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000",
                                                    "cloud.rate_per_hour=1", "local.use_hours_per_year=9000"}));
  CHECK_FALSE(breakeven::load_config(
      std::nullopt, {"electricity.price_per_kwh=-0.3", "local.hardware_price=3000", "cloud.rate_per_hour=1"}));
}

TEST_CASE("defaults: the config records which keys it was given", "[breakeven][trust]") {
  auto c = breakeven::load_config(std::nullopt, {"electricity.price_per_kwh=0.3", "local.hardware_price=3000",
                                                 "cloud.rate_per_hour=1", "local.lifetime_years=4"});
  REQUIRE(c);
  CHECK(c->is_set("local.lifetime_years"));
  CHECK_FALSE(c->is_set("local.use_hours_per_year"));
}

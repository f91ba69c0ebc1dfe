// The energy estimated from the GPU model (docs/cost-model.md, "Estimated energy"), by hand.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/energy_estimate.hpp>
#include <gpucost/extract/indicator_set.hpp>

namespace be = gpucost::breakeven;
namespace ex = gpucost::extract;

namespace {

constexpr std::int64_t kHourNs = 3'600'000'000'000LL;

/// A window of two hours from a training log, no GPU (a training log alone).
ex::Features trainlog_window() {
  ex::Features f;
  f.from_ns = 1'699'999'980'000'000'000LL;  // on a minute
  f.to_ns = f.from_ns + 2 * kHourNs;
  f.chosen_by = "trainlog";
  return f;
}

}  // namespace

TEST_CASE("estimate: the power model of a measured and of an unmeasured idle", "[estimate]") {
  const be::GpuSpeed* h100 = be::find_gpu_speed("NVIDIA H100 80GB HBM3");
  REQUIRE(h100 != nullptr);
  const auto m = be::power_model(*h100);
  REQUIRE(m);
  // H100 SXM: idle 70 W measured, board 700 W.
  CHECK(m->central_w(0.5) == Approx(70 + 630 * 0.5));    // 385 W
  CHECK(m->low_w(0.5) == Approx(63 + 637 * 0.5 * 0.6));  // 254.1 W
  CHECK(m->high_w() == Approx(700));
  CHECK(m->idle_basis.starts_with("measured"));

  const be::GpuSpeed* rtx = be::find_gpu_speed("NVIDIA GeForce RTX 4090");
  REQUIRE(rtx != nullptr);
  const auto r = be::power_model(*rtx);
  REQUIRE(r);
  CHECK(r->idle_w == Approx(0.15 * 450));       // 67.5 W assumed
  CHECK(r->idle_low_w == Approx(0.015 * 450));  // 6.75 W
  CHECK(r->central_w(1.0) == Approx(450));
  CHECK(r->low_w(1.0) == Approx(6.75 + 443.25 * 0.6));  // 272.7 W
  CHECK(r->idle_basis.starts_with("assumed"));

  std::string why;
  const be::GpuSpeed* a100 = be::find_gpu_speed("A100");  // the generic entry: variants differ
  REQUIRE(a100 != nullptr);
  CHECK_FALSE(be::power_model(*a100, &why));
  CHECK(why.find("name the variant") != std::string::npos);
}

TEST_CASE("estimate: a training log alone, 4 H100 for 2 h", "[estimate]") {
  ex::Features f = trainlog_window();
  be::EstimateRequest req;
  req.gpu = "NVIDIA H100 80GB HBM3";
  req.gpus = 4;
  SECTION("busy from start to end") {
    const auto e = be::estimate_energy(f, req, {}, {});
    REQUIRE(e);
    CHECK(e->model == "H100 SXM");
    CHECK(e->gpu_source == "--gpu");
    CHECK(e->count_source == "--gpus");
    CHECK(e->busy == 1.0);
    CHECK(e->hours == Approx(2));
    CHECK(e->estimated_kwh == Approx(4 * 700 * 2 / 1000.0));         // 5.6 kWh
    CHECK(e->low_kwh == Approx(4 * (63 + 637 * 0.6) * 2 / 1000.0));  // 3.5616 kWh
    CHECK(e->high_kwh == Approx(5.6));
    const auto job = be::estimated_job_inputs(f, *e);
    REQUIRE(job);
    REQUIRE(job->energy_kwh.size() == 4);
    CHECK(job->energy_kwh[0] == Approx(1.4));
    CHECK(job->energy_method == "model");
    CHECK(*job->energy_low_kwh == Approx(4 * (63 + 637 * 0.6) * 2 / 1000.0));
    CHECK(*job->energy_high_kwh == Approx(5.6));
    CHECK(job->profile.total() == Approx(5.6));
    CHECK(job->profile.kwh_by_minute.size() == 120);
  }
  SECTION("a trace's busy share, extrapolated and said so") {
    ex::set_value(f.host_indicators, "gpu_idle_fraction_trace", 0.25);
    const auto e = be::estimate_energy(f, req, {}, {});
    REQUIRE(e);
    CHECK(e->busy == Approx(0.75));
    CHECK(e->busy_source == "the profiler trace");
    CHECK(e->estimated_kwh == Approx(4 * (70 + 630 * 0.75) * 2 / 1000.0));  // 4.34 kWh
    CHECK(e->low_kwh == Approx(4 * (63 + 637 * 0.75 * 0.6) * 2 / 1000.0));  // 2.7972 kWh
    REQUIRE_FALSE(e->notes.empty());
    CHECK(e->notes.front().find("extrapolated") != std::string::npos);
  }
  SECTION("--util wins") {
    req.util = 0.5;
    ex::set_value(f.host_indicators, "gpu_idle_fraction_trace", 0.25);
    const auto e = be::estimate_energy(f, req, {}, {});
    REQUIRE(e);
    CHECK(e->busy == 0.5);
    CHECK(e->estimated_kwh == Approx(4 * 385 * 2 / 1000.0));
  }
}

TEST_CASE("estimate: which GPU, and when it cannot be told", "[estimate]") {
  const ex::Features f = trainlog_window();
  be::EstimateRequest req;
  SECTION("no name anywhere: an error that asks for --gpu") {
    const auto e = be::estimate_energy(f, req, {}, {});
    REQUIRE_FALSE(e);
    CHECK(e.error().hint.find("--gpu") != std::string::npos);
  }
  SECTION("the trace's name, one GPU assumed with a note") {
    const auto e = be::estimate_energy(f, req, {}, {"NVIDIA A100-SXM4-80GB"});
    REQUIRE(e);
    CHECK(e->model == "A100 SXM4 80GB");
    CHECK(e->gpu_source.find("trace") != std::string::npos);
    CHECK(e->gpus == 1);
    CHECK(e->count_source == "assumed");
  }
  SECTION("two models in the traces: which one?") {
    const auto e = be::estimate_energy(f, req, {}, {"NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"});
    REQUIRE_FALSE(e);
    CHECK(e.error().message.find("several GPU models") != std::string::npos);
  }
  SECTION("a GPU the table does not know") {
    req.gpu = "Radeon 9700";
    const auto e = be::estimate_energy(f, req, {}, {});
    REQUIRE_FALSE(e);
    CHECK(e.error().message.find("not in the GPU table") != std::string::npos);
  }
}

TEST_CASE("estimate: a verdict only when the range is on one side of the line", "[estimate]") {
  be::PremiumRange r;
  r.low = -0.05;
  r.high = 0.20;
  CHECK(r.spans(0.12));
  CHECK_FALSE(r.spans(0.25));
  CHECK_FALSE(r.spans(-0.10));
  r.high.reset();
  CHECK_FALSE(r.spans(0.12));
}

TEST_CASE("estimate: beside a measurement, per GPU at its utilisation", "[estimate]") {
  ex::Features f;
  f.from_ns = 0;
  f.to_ns = kHourNs;
  f.gpus.resize(2);
  f.gpus[0].gpu = 0;
  f.gpus[1].gpu = 1;
  be::JobInputs measured;
  measured.wall_h = 1;
  measured.energy_kwh = {0.6, 0.1};
  measured.util = {1.0, 0.0};
  be::EstimateRequest req;
  const auto m = be::estimate_beside(f, measured, req, {"NVIDIA H100 80GB HBM3"}, {});
  REQUIRE(m);
  REQUIRE(m->gpus.size() == 2);
  // GPU 0 busy: bounds 0.4452 .. 0.7 kWh; 0.6 inside. GPU 1 idle: 0.063 .. 0.7; 0.1 inside.
  CHECK(m->gpus[0].low_kwh == Approx(0.4452));
  CHECK(m->gpus[0].high_kwh == Approx(0.7));
  CHECK(m->gpus[0].inside());
  CHECK(m->gpus[1].low_kwh == Approx(0.063));
  CHECK(m->gpus[1].estimated_kwh == Approx(0.07));
  CHECK(m->gpus[1].inside());
  CHECK(m->estimate.busy == Approx(0.5));
}

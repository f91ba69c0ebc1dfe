// breakeven: a spot offer priced by its interruptions (docs/cost-model.md, "Spot: interruptions
// priced"), against hand-computed expectations.
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/spot.hpp>

#include <cmath>
#include <string>

using namespace gpucost;
using breakeven::SpotTerms;

TEST_CASE("spot_expectation: segments to their checkpoints, by hand", "[breakeven]") {
  // λ = 1/24 per h, τ = 0.5 h, R = 300 s = 1/12 h. One segment of 0.5 h:
  // e^{λR} (e^{λτ} - 1) / λ = e^{1/288} x (e^{1/48} - 1) x 24 = 1.0034783 x 0.0210518 x 24 = 0.5070021 h
  const SpotTerms t{1.0 / 24.0, 1800, 300};
  const auto two = breakeven::spot_expectation(2.0, t);  // 4 segments
  CHECK(two.expected_h == Approx(4 * 0.5070020625538264));
  CHECK(two.factor == Approx(1.0140041251));
  CHECK(two.interruptions == Approx(0.0845003438));  // λ E[T] = 2.0280083 / 24
  // 1.2 h: 2 segments of 0.5 h and one of 0.2 h (e^{1/288} x (e^{0.2/24} - 1) x 24 = 0.2015342)
  const auto part = breakeven::spot_expectation(1.2, t);
  CHECK(part.expected_h == Approx(1.2155383362));
  CHECK(part.factor == Approx(1.0129486135));
}

TEST_CASE("spot_expectation: no interruptions, no checkpoint, no work", "[breakeven]") {
  CHECK(breakeven::spot_expectation(3.0, SpotTerms{0, 1800, 300}).expected_h == Approx(3.0));
  CHECK(breakeven::spot_expectation(3.0, SpotTerms{0, 1800, 300}).interruptions == 0);
  // Without checkpoints the job is one segment: 16 h at λ = 1/24, R = 300 s gives
  // e^{1/288} x (e^{16/24} - 1) x 24 = 22.8247 h, x1.4265: a long job loses much more.
  const auto whole = breakeven::spot_expectation(16.0, SpotTerms{1.0 / 24.0, 0, 300});
  CHECK(whole.expected_h == Approx(22.8247320952));
  CHECK(breakeven::spot_expectation(0, SpotTerms{1.0 / 24.0, 1800, 300}).factor == 1);
}

TEST_CASE("breakeven: a spot offer's billed time grows by the expected interruptions", "[breakeven]") {
  auto c = gpucost::testing::reference_config();
  c.offer_kind = "spot";
  const auto r = breakeven::compute(c, gpucost::testing::reference_job());
  REQUIRE(r.spot.has_value());
  // The cloud's work: q W = 0.625 x 2 = 1.25 h, 2 segments of 0.5 h and one of 0.25 h
  // (e^{1/288} x (e^{0.25/24} - 1) x 24 = 0.2521807): E[T] = 2 x 0.5070021 + 0.2521807 = 1.2661849 h
  CHECK(r.spot->work_h == Approx(1.25));
  CHECK(r.spot->expected_h == Approx(1.2661848505));
  CHECK(r.q == Approx(0.625 * 1.2661848505 / 1.25));  // 0.6330924
  // billed = max(600, ceil((0.6330924 x 7200 + 300) / 60) x 60) = ceil(4858.27 / 60) x 60 = 4860 s
  CHECK(r.billed_s == Approx(4860.0));
  CHECK(r.cloud_total == Approx(2.0 * 4860 / 3600 + 0.5));  // 3.2
  // The flat rule, when a config gives it, replaces the model.
  c.spot_restart_overhead = 0.1;
  c.keys_set.insert("cloud.spot_restart_overhead");
  CHECK_FALSE(breakeven::compute(c, gpucost::testing::reference_job()).spot.has_value());
  // Not a spot offer: nothing changes.
  c.offer_kind = "on-demand";
  c.keys_set.clear();
  CHECK_FALSE(breakeven::compute(c, gpucost::testing::reference_job()).spot.has_value());
}

TEST_CASE("spot_text: says which terms are assumed", "[breakeven]") {
  auto c = gpucost::testing::reference_config();
  c.offer_kind = "spot";
  const auto e = breakeven::spot_expectation(1.25, breakeven::spot_terms(c));
  const std::string text = breakeven::spot_text(c, e);
  INFO(text);
  CHECK(text.find("1 interruption per 24.00 h of running assumed (cloud.spot_interruptions_per_hour)") !=
        std::string::npos);
  CHECK(text.find("assumed (cloud.checkpoint_interval_s)") != std::string::npos);
  CHECK(text.find("restart 300 s (the cold start)") != std::string::npos);
}

TEST_CASE("spot: the checkpoint interval from the training log, unless the config sets one", "[breakeven]") {
  auto c = gpucost::testing::reference_config();
  c.offer_kind = "spot";
  auto job = gpucost::testing::reference_job();
  job.checkpoint_interval_s = 780;
  job.checkpoints = 4;
  CHECK(breakeven::spot_terms(c, job.checkpoint_interval_s).checkpoint_interval_s == 780);
  CHECK(breakeven::checkpoint_basis(c, job.checkpoint_interval_s) == breakeven::CheckpointBasis::training_log);
  // 1.25 h of work in segments of 780 s = 0.216667 h: 5 whole (1.083333 h) and 0.166667 h, each
  // e^{1/288} (e^{λ s} - 1) / λ: 5 x 0.2184047 + 0.1678284 = 1.2598517 h (less than 1.2661849 at 1800 s)
  const auto r = breakeven::compute(c, job);
  REQUIRE(r.spot.has_value());
  CHECK(r.spot->expected_h == Approx(1.2598517).epsilon(1e-6));
  const std::string text = breakeven::spot_text(c, *r.spot, job.checkpoint_interval_s, job.checkpoints);
  INFO(text);
  CHECK(text.find("checkpoints every 13.0 min (the training log's median of 4 checkpoints)") != std::string::npos);
  c.checkpoint_interval_s = 1800;
  c.keys_set.insert("cloud.checkpoint_interval_s");
  CHECK(breakeven::spot_terms(c, job.checkpoint_interval_s).checkpoint_interval_s == 1800);
  CHECK(breakeven::checkpoint_basis(c, job.checkpoint_interval_s) == breakeven::CheckpointBasis::config);
}

TEST_CASE("spot: the job length from which the interruptions make spot dearer than on demand", "[breakeven]") {
  // No checkpoint, no restart, 1 interruption per 24 h: factor(w) = (e^{λw} - 1) / (λw). At half the
  // on-demand price spot is dearer once (e^x - 1) / x = 2, x = 1.2564312 (e^x = 1 + 2x): w = 24 x
  // 1.2564312 = 30.154 h.
  const SpotTerms none{1.0 / 24, 0, 0};
  const auto w = breakeven::spot_dearer_from_h(none, 2.0);
  REQUIRE(w.has_value());
  CHECK(*w == Approx(24 * 1.2564312).epsilon(1e-6));
  CHECK(breakeven::spot_expectation(*w, none).factor == Approx(2.0).epsilon(1e-9));
  // Checkpoints every 30 min, a 300 s restart: long jobs settle near e^{λR} (e^{λτ} - 1) / (λτ) =
  // e^{1/288} x 48 (e^{1/48} - 1) = 1.0140: never x3, and from the first minute x1.002 (the restart
  // alone, e^{1/288} = 1.00348, is more).
  const SpotTerms checkpointed{1.0 / 24, 1800, 300};
  CHECK_FALSE(breakeven::spot_dearer_from_h(checkpointed, 3.0).has_value());
  CHECK(breakeven::spot_expectation(breakeven::kSpotSearchMaxH, checkpointed).factor == Approx(1.0140).epsilon(1e-4));
  CHECK(breakeven::spot_dearer_from_h(checkpointed, 1.002) == 0.0);
  // Spot no cheaper than on demand: dearer at every length.
  CHECK(breakeven::spot_dearer_from_h(none, 1.0) == 0.0);
}

// A spot offer priced by its interruptions (docs/cost-model.md, "Spot: interruptions priced"):
// the work since the last checkpoint is lost at each interruption and a restart follows, so the
// expected time on the spot instance grows with the interruption rate, the checkpoint interval
// and the restart time.
#pragma once

#include <gpucost/breakeven/config.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace gpucost::breakeven {

/// What a spot run of the job faces: interruptions as a Poisson process, checkpoints at a fixed
/// interval of work, and a restart (a new instance, the checkpoint loaded) after each interruption.
struct SpotTerms {
  double interruptions_per_hour = 0;  ///< λ
  double checkpoint_interval_s = 0;   ///< τ, of work
  double restart_s = 0;               ///< R
};

/// The expected run of `work_h` hours of work on spot.
struct SpotExpectation {
  double work_h = 0;         ///< the job's time on the cloud without interruptions
  double expected_h = 0;     ///< E[T]: the work, the work lost and the restarts
  double factor = 1;         ///< expected_h / work_h (1 for no work)
  double interruptions = 0;  ///< E[N] = λ E[T] (Wald)
};

/// E[T] = Σ over the checkpoint segments s_i of e^{λR} (e^{λ s_i} - 1) / λ: each segment is tried
/// until it runs without an interruption, each retry after a restart that may itself be
/// interrupted (the exact expectation under Poisson interruptions; Daly 2006). λ = 0 gives the work.
SpotExpectation spot_expectation(double work_h, const SpotTerms& terms);

/// The longest run the search below looks at: ten years of work.
inline constexpr double kSpotSearchMaxH = 87600;

/// From how many hours of work on the instance spot, at 1 / `price_ratio` of the on-demand price
/// of the same instance, is expected to cost more than on demand: the least w whose expected
/// factor E[T](w) / w reaches `price_ratio`. 0 when it does from the first minute (the restart
/// alone, e^{λR}, reaches it, or spot is no cheaper); none when no run up to kSpotSearchMaxH
/// does. The factor rises with w without checkpoints (the whole job is one segment) and settles
/// near the checkpoint interval's with them, so the search walks a geometric grid of w and refines
/// the first crossing by bisection.
std::optional<double> spot_dearer_from_h(const SpotTerms& terms, double price_ratio);

/// Whether `c` prices a spot offer by its interruptions: a spot offer, and no flat
/// cloud.spot_restart_overhead given (the older rule, kept when a config sets it).
bool spot_modelled(const CostConfig& c);

/// Where τ comes from: the config's key, the training log's checkpoints, or the assumed default.
enum class CheckpointBasis { config, training_log, assumed };

/// The spot terms: the config's keys, the restart defaulting to the offer's cold start, and τ
/// from the job's training log when the config does not set it (JobInputs::checkpoint_interval_s).
SpotTerms spot_terms(const CostConfig& c, std::optional<double> log_interval_s = std::nullopt);
CheckpointBasis checkpoint_basis(const CostConfig& c, std::optional<double> log_interval_s);

/// The rate and the checkpoints in words, each said assumed when the config left it at its
/// default: "1 interruption per 24.00 h of running assumed (cloud.spot_interruptions_per_hour),
/// checkpoints every 30.0 min assumed (cloud.checkpoint_interval_s)".
std::string spot_terms_text(const CostConfig& c, std::optional<double> log_interval_s = std::nullopt,
                            std::int64_t log_checkpoints = 0);

/// "1 interruption per 24.0 h assumed (cloud.spot_interruptions_per_hour), checkpoints every 30.0 min
/// assumed, restart 300 s: 0.42 interruptions expected, 16.5 h on spot for 16.0 h of work (x1.031)".
std::string spot_text(const CostConfig& c, const SpotExpectation& e,
                      std::optional<double> log_interval_s = std::nullopt, std::int64_t log_checkpoints = 0);

}  // namespace gpucost::breakeven

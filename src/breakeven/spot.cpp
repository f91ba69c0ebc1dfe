#include <gpucost/breakeven/spot.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace gpucost::breakeven {

namespace {

/// The expected time to run `segment_h` of work to its checkpoint: e^{λR} (e^{λs} - 1) / λ.
double segment_expected_h(double segment_h, double lambda, double restart_h) {
  if (lambda * segment_h < 1e-15) return segment_h;
  return std::exp(lambda * restart_h) * std::expm1(lambda * segment_h) / lambda;
}

/// "assumed (KEY)" for a key the config left at its default, else "(KEY)".
std::string basis_of(const CostConfig& c, std::string_view key) {
  return fmt::format("{}({})", c.is_set(key) ? "" : "assumed ", key);
}

}  // namespace

SpotExpectation spot_expectation(double work_h, const SpotTerms& t) {
  SpotExpectation e;
  e.work_h = std::max(0.0, work_h);
  if (e.work_h <= 0) return e;
  const double lambda = std::max(0.0, t.interruptions_per_hour);
  const double restart_h = std::max(0.0, t.restart_s) / 3600.0;
  // No checkpoint (interval 0): the whole job is one segment.
  const double tau_h = t.checkpoint_interval_s > 0 ? t.checkpoint_interval_s / 3600.0 : e.work_h;
  const double whole = std::floor(e.work_h / tau_h);
  const double rest_h = e.work_h - whole * tau_h;
  e.expected_h = whole * segment_expected_h(tau_h, lambda, restart_h) + segment_expected_h(rest_h, lambda, restart_h);
  e.factor = e.expected_h / e.work_h;
  e.interruptions = lambda * e.expected_h;
  return e;
}

std::optional<double> spot_dearer_from_h(const SpotTerms& terms, double price_ratio) {
  constexpr double kFirstH = 1.0 / 60;  // a minute of work
  const auto reaches = [&](double w) { return spot_expectation(w, terms).factor >= price_ratio; };
  if (price_ratio <= 1 || reaches(kFirstH)) return 0.0;
  constexpr int kSteps = 2000;
  const double growth = std::pow(kSpotSearchMaxH / kFirstH, 1.0 / kSteps);
  double below = kFirstH;
  for (int i = 1; i <= kSteps; ++i) {
    const double w = kFirstH * std::pow(growth, i);
    if (!reaches(w)) {
      below = w;
      continue;
    }
    double above = w;
    for (int k = 0; k < 60; ++k) {  // the crossing to well under a second
      const double mid = 0.5 * (below + above);
      (reaches(mid) ? above : below) = mid;
    }
    return above;
  }
  return std::nullopt;
}

bool spot_modelled(const CostConfig& c) { return c.offer_kind == "spot" && !c.is_set("cloud.spot_restart_overhead"); }

CheckpointBasis checkpoint_basis(const CostConfig& c, std::optional<double> log_interval_s) {
  if (c.is_set("cloud.checkpoint_interval_s")) return CheckpointBasis::config;
  return log_interval_s && *log_interval_s > 0 ? CheckpointBasis::training_log : CheckpointBasis::assumed;
}

SpotTerms spot_terms(const CostConfig& c, std::optional<double> log_interval_s) {
  const double tau_s =
      checkpoint_basis(c, log_interval_s) == CheckpointBasis::training_log ? *log_interval_s : c.checkpoint_interval_s;
  return SpotTerms{c.spot_interruptions_per_hour, tau_s,
                   c.is_set("cloud.spot_restart_s") ? c.spot_restart_s : c.cold_start_s};
}

std::string spot_terms_text(const CostConfig& c, std::optional<double> log_interval_s, std::int64_t log_checkpoints) {
  const SpotTerms t = spot_terms(c, log_interval_s);
  const std::string every =
      t.interruptions_per_hour > 0
          ? fmt::format("1 interruption per {} of running", text::duration_hours(1.0 / t.interruptions_per_hour))
          : std::string("no interruption");
  const std::string checkpoints =
      t.checkpoint_interval_s > 0
          ? fmt::format("checkpoints every {}", text::duration_hours(t.checkpoint_interval_s / 3600.0))
          : std::string("no checkpoint (an interruption loses all the work)");
  const std::string checkpoint_source =
      checkpoint_basis(c, log_interval_s) == CheckpointBasis::training_log
          ? fmt::format("(the training log's median of {} checkpoints)", log_checkpoints)
          : basis_of(c, "cloud.checkpoint_interval_s");
  return fmt::format("{} {}, {} {}", every, basis_of(c, "cloud.spot_interruptions_per_hour"), checkpoints,
                     checkpoint_source);
}

std::string spot_text(const CostConfig& c, const SpotExpectation& e, std::optional<double> log_interval_s,
                      std::int64_t log_checkpoints) {
  const double restart_s = spot_terms(c).restart_s;
  return fmt::format("{}, restart {:g} s{}: {:.3g} interruptions expected, {} on spot for {} of work (x{:.4f})",
                     spot_terms_text(c, log_interval_s, log_checkpoints), restart_s,
                     c.is_set("cloud.spot_restart_s") ? "" : " (the cold start)", e.interruptions,
                     text::duration_hours(e.expected_h), text::duration_hours(e.work_h), e.factor);
}

}  // namespace gpucost::breakeven

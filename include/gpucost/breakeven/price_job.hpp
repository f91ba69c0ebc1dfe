// Pricing one job end to end, the sequence breakeven, report, batch and record share: the
// offer fitted to the job and converted to the answer's currency, the energy fill rule, the
// model, and the analyses around it (sensitivity, energy bounds, Monte-Carlo, offers, findings),
// with the notes and warnings the command line prints (the library never prints).
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/energy_estimate.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/breakeven/paying.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/extract/features.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::breakeven {

struct PriceOptions {
  FillRule fill = FillRule::mean;
  bool compare_clouds = false;  ///< price every catalogue offer
  bool explain = false;         ///< findings even below the line
  bool sensitivity = true;
  std::size_t mc_draws = 0;
  std::uint64_t mc_seed = 1;
  std::vector<std::string> gpu_names;               ///< GPU models of the telemetry (the inputs' fingerprint)
  std::vector<std::string> trace_gpu_names;         ///< GPU models of the profiler traces
  const std::vector<CloudOffer>* offers = nullptr;  ///< the run's catalogue (--compare-clouds); null: built-in
  std::vector<OfferKind> compare_kinds{OfferKind::on_demand};  ///< the kinds --compare-clouds ranks
  std::string today;  ///< YYYY-MM-DD: the offer's price age is counted to it; empty: not counted
  /// Without telemetry: the GPU, count and busy share the estimate takes (--gpu, --gpus, --util,
  /// the training log's); with it and `estimate.beside` (--estimate), the model beside the measurement.
  EstimateRequest estimate;
};

/// Something the user should read next to the answer; `warning` ones doubt the answer itself.
struct Notice {
  bool warning = false;
  std::string text;
};

struct PricedJob {
  CostConfig config;  ///< with the offer applied and converted
  JobInputs job;      ///< after the fill rule
  JobShape shape;
  EnergyPrices prices;
  Result result;
  std::vector<Swing> sensitivity;
  PremiumRange range;
  std::optional<MonteCarlo> monte_carlo;
  std::string monte_carlo_reason;  ///< set when --mc was asked but nothing varies
  std::vector<OfferPrice> clouds;  ///< --compare-clouds: fit offers cheapest first, then the unfit
  /// The ways of paying for the priced offer's instance (paying.hpp): when the catalogue has a
  /// term of it or --compare-kinds asks for one, and the offer can run the job.
  std::optional<PayingComparison> paying;
  std::optional<std::vector<Finding>> findings;  ///< above the line or with explain
  std::vector<Notice> notices;
  std::optional<EnergyEstimate> estimate;  ///< set when the energy was estimated (no telemetry)
  std::optional<EstimateBeside> beside;    ///< --estimate with telemetry: the model beside the measurement
};

/// Prices the job. Fails on what makes any figure a guess: no GPU energy, an empty window, a
/// time-of-use tariff without the energy profile, an offer in a currency without a rate.
Expected<PricedJob> price_job(CostConfig config, const std::optional<CloudOffer>& offer,
                              const extract::Features& features, const PriceOptions& options);

}  // namespace gpucost::breakeven

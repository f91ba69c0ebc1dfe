// Renders a breakeven Result for people (a table) and for programs (JSON).
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/extract/extract.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpucost::report {

/// One offer of --compare-clouds, priced for the job.
struct CloudRank {
  std::string name, provider, instance, gpu_model, date_seen;
  int gpus = 0;
  double rate_per_hour = 0, speed_ratio = 1, billed_s = 0, total = 0, premium = 0;
  std::string speed_ratio_source;
};

/// What breakeven adds around the Result: the analyses of the answer's robustness.
struct BreakevenExtras {
  std::vector<breakeven::Swing> sensitivity;
  breakeven::PremiumRange range;
  std::optional<breakeven::MonteCarlo> monte_carlo;
  std::vector<CloudRank> clouds;  ///< --compare-clouds, cheapest first
  std::string tariff_tz;          ///< the zone time-of-use windows were read in
  /// Ranked findings: computed above the line or with --explain, else null (no key in the JSON).
  std::optional<std::vector<breakeven::Finding>> findings;
};

std::string breakeven_json(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                           const BreakevenExtras& extras = {});
std::string breakeven_table(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                            const BreakevenExtras& extras = {});

}  // namespace gpucost::report

// Findings: what drives the premium and what to change, each backed by the indicators (or model
// figures) that justify it and an estimated saving in the config's currency. Triggers and
// savings: docs/cost-model.md, "Findings"; the thresholds are one table (finding_thresholds()).
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/features.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

/// One figure a finding rests on: an indicator of the features (id "F009", key "idle_fraction")
/// or a figure of the model (empty id, key as in the JSON, e.g. "local.total").
struct Evidence {
  std::string id;
  std::string key;
  double value = 0;
};

struct Finding {
  std::string kind;  ///< idle_share, throttling, launch_delay_tail, incidents_<bucket>, ...
  std::string title;
  std::string trigger;  ///< the rule that fired, e.g. "F009 idle_fraction >= 0.1"
  std::vector<Evidence> evidence;
  double saving = 0;         ///< estimated, in the config's currency
  std::string saving_basis;  ///< the arithmetic of the estimate
  std::string suggestion;
};

/// One row of the trigger table: a finding fires when `key` compares to `value` by `op`.
struct FindingThreshold {
  std::string_view kind;
  std::string_view id;  ///< indicator id, or empty for a model figure
  std::string_view key;
  std::string_view op;  ///< ">=", "<=", "<", ">"
  double value = 0;
  std::string_view meaning;
};
std::span<const FindingThreshold> finding_thresholds();
/// The row of `kind` (every kind has exactly one).
const FindingThreshold& threshold_of(std::string_view kind);

/// The cheapest catalogue offer that can run the job (its GPU count, and its memory when `shape`
/// gives it), priced for the job in the config's currency (offers without an exchange rate are
/// left out).
struct OfferQuote {
  std::string name;
  double total = 0;  ///< C_C on that offer
  double speed_ratio = 1;
  std::string speed_ratio_source;
  std::string gpu_model;
  std::string date_seen;
  std::optional<int> age_days;  ///< days since date_seen; none when not counted
  bool confirmed = true;
};
std::optional<OfferQuote> cheapest_offer(const CostConfig& config, const JobInputs& job, const EnergyPrices& prices,
                                         const JobShape* shape = nullptr);
/// The first of price_offers()'s list when it fits (they come cheapest first, the unfit last).
std::optional<OfferQuote> cheapest_of(const std::vector<OfferPrice>& offers);

/// The findings of one run, largest estimated saving first (ties in the table's order). A finding
/// whose indicators are absent (null) is never emitted.
std::vector<Finding> findings(const Result& result, const CostConfig& config, const extract::Features& features,
                              const std::optional<OfferQuote>& cheapest);

/// The local cost that scales with the job's wall time: electricity + amortisation + routine
/// maintenance (C_L without the incidents), currency.
double time_cost(const Result& result);

}  // namespace gpucost::breakeven

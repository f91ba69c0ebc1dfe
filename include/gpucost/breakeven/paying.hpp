// Ways of paying for a year of jobs like this one: owning, on demand, spot, a reservation or a
// savings plan, each a cost per year against the job hours run in it, and the ranges of yearly
// use where each is the cheapest (docs/cost-model.md, "Ways of paying: cost per year against use").
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::breakeven {

/// One way of paying, as the cost of a year with U job hours: fixed_per_year + per_job_h x U up
/// to capacity_job_h, and past it overflow_per_job_h for each further job hour. A term's instance
/// runs 8760 h a year: its capacity is 8760 / (instance hours per job hour), and what the jobs
/// need beyond it is rented on demand (none when no on-demand offer prices it: the way ends there).
struct PayingCurve {
  std::string way;    ///< "owning", "on-demand", "spot", "reserved-1y", "reserved-3y", "savings-plan"
  std::string offer;  ///< the catalogue offer it prices; empty for owning
  bool commitment = false;
  double fixed_per_year = 0, per_job_h = 0;
  std::optional<double> capacity_job_h;      ///< none: no limit within the year
  std::optional<double> overflow_per_job_h;  ///< past the capacity; none: not priced
  double upfront_per_year = 0;               ///< the upfront payment over the term's years (in fixed_per_year)
  std::string basis;                         ///< how the curve was made, in words

  /// The cost of a year of `use_h` job hours; none past a capacity nothing prices.
  [[nodiscard]] std::optional<double> cost(double use_h) const;
  /// The most job hours a year it prices (infinity when nothing limits it).
  [[nodiscard]] double end_h() const;
};

/// A stretch of yearly use, [from_h, to_h], where the curve `curve` is the cheapest.
struct CheapestRange {
  double from_h = 0, to_h = 0;
  std::size_t curve = 0;
};

/// The cheapest curve over [0, max_h], in ascending ranges (adjacent ranges of one curve merged;
/// on a tie the curve listed first). Each curve is linear between its breakpoints (0, its
/// capacity), so the cheapest can change only there or where two curves cross inside a piece: the
/// ranges end at those points, solved exactly.
std::vector<CheapestRange> cheapest_ranges(const std::vector<PayingCurve>& curves, double max_h = kHoursPerYear);

/// The comparison for the priced offer's instance.
struct PayingComparison {
  std::string instance;               ///< "AWS p4d.24xlarge (us-east-1)": whose offers form the curves
  std::vector<PayingCurve> curves;    ///< owning first, then on-demand, spot, the terms
  std::vector<CheapestRange> ranges;  ///< over a year's 8760 h
  double planned_h = 0;               ///< local.use_hours_per_year
  bool planned_assumed = false;       ///< the default, not the user's figure
  std::vector<std::string> missing;   ///< the kinds the catalogue lacks for the instance, in words
  /// The curve cheapest at `use_h` (owning when none prices it).
  [[nodiscard]] std::size_t cheapest_at(double use_h) const;
  /// The curves cheapest nowhere in the year, by index.
  [[nodiscard]] std::vector<std::size_t> never_cheapest() const;
};

/// Whether the comparison is worth an output: the priced offer's instance has a reserved or
/// savings-plan offer in `offers`, or `asked` names a term's kind.
bool wants_paying(const CloudOffer& chosen, const std::vector<CloudOffer>& offers, const std::vector<OfferKind>& asked);

/// The curves of the priced offer's instance (the offers of its provider, instance and region):
/// owning from the Result's split (F, v, the idle power), each offer priced for the job as the
/// premium prices it (its billing, speed ratio, spot interruptions), a term at its listed price
/// for all 8760 h plus its upfront payment over the term. `config` has the chosen offer applied.
PayingComparison paying_comparison(const CostConfig& config, const Result& result, const JobInputs& job,
                                   const EnergyPrices& prices, const JobShape& shape, const CloudOffer& chosen,
                                   const std::vector<CloudOffer>& offers);

}  // namespace gpucost::breakeven

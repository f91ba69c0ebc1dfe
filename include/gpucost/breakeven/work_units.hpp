// Cost per unit of work: the priced job's local and cloud cost per step, per 1 k samples, per
// 1 M tokens and per epoch, and the break-even expressed in work ("owning pays beyond 1.2 B
// tokens a month"); and the busy share of the cloud's billed time (cloud.busy_share: utilisation
// or DCGM SM active). Formulas: docs/cost-model.md, "Cost per unit of work" and "Busy share".
#pragma once

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/features.hpp>

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::breakeven {

/// One kind of work the features may count (host indicators work_steps ... work_epochs).
struct WorkUnit {
  std::string_view key;        ///< host indicator: "work_tokens"
  std::string_view noun;       ///< the counted thing, plural: "tokens" (JSON key, ledger, text)
  std::string_view singular;   ///< "token"
  double per = 1;              ///< the costs are per this many units: 1e6 for tokens
  std::string_view per_label;  ///< "1M tokens" (text); prom label and ledger column use per_id
  std::string_view per_id;     ///< "1M_tokens": Prometheus label value, JSON key, ledger column suffix
};

/// The four kinds, in the order every output lists them: steps, samples, tokens, epochs.
const std::array<WorkUnit, 4>& work_units();

/// The cost of one kind of work in the priced job. Every figure is null with `reason` when the
/// features do not count that work (or count none of it).
struct UnitCost {
  const WorkUnit* unit = nullptr;
  std::optional<double> count;     ///< units done in the job window
  std::optional<double> per_hour;  ///< count / W: units per wall hour of the job
  std::optional<double> local;     ///< C_L / count x per: currency per `per` units
  std::optional<double> cloud;     ///< C_C / count x per: the billed cost of this job, per `per` units
  /// kg CO2e per `per` units, locally and in the cloud (an estimate): the job's kg (Result::carbon)
  /// / count x per; null when the grid intensity is unknown.
  std::optional<double> local_kg, cloud_kg;
  std::string reason;  ///< why count (and so every figure) is null
  /// Break-even in work: H* x per_hour, the units a year (and / 12 a month) above which owning
  /// the machine pays; null with `use_reason` when H* is none.
  std::optional<double> breakeven_per_year, breakeven_per_month;
  std::string use_reason;
  /// T* x per_hour: the units of the break-even job (the first crossing); local is cheaper for
  /// smaller jobs (of the same work rate). Null with `job_reason` when T* is none.
  std::optional<double> breakeven_job;
  std::string job_reason;
};

struct WorkCosts {
  std::array<UnitCost, 4> units;  ///< in work_units() order
  double window_h = 0;            ///< W the counts were done in
  /// True when at least one unit has a count (outputs for people show the block only then).
  [[nodiscard]] bool any() const;
  /// The unit by noun ("tokens"); null for an unknown noun.
  [[nodiscard]] const UnitCost* find(std::string_view noun) const;
};

/// The per-unit costs of a priced job from the host indicators work_steps, work_samples,
/// work_tokens and work_epochs. With --fill none over a window partly without samples the costs
/// cover less time than the counts: every figure is then null, with the reason.
WorkCosts work_costs(const Result& result, const extract::IndicatorSet& host);

/// A count for people with an SI-style prefix of the short scale, 3 significant digits:
/// "640", "1.5", "12 k", "3.46 M", "1.2 B", "7.5 T".
std::string work_amount(double units);
/// A cost per unit for people: two decimals from 1 on ("1.29"), else 3 significant digits with
/// their zeros ("0.500", "0.000155"), so that a cost per step never reads 0.00.
std::string unit_money(double value);

// ---- busy share ---------------------------------------------------------------------------

/// cloud.busy_share: what gives the busy share ū of q = (1 - ū) + ū / speed_ratio.
inline constexpr std::string_view kBusyShareUtil = "util";
inline constexpr std::string_view kBusyShareSmActive = "sm_active";

/// Applies cloud.busy_share to the job: with "sm_active", each GPU's busy share is its
/// sm_active_mean (DCGM SM active, 0-1) when every GPU has one, else the host's sm_active_mean
/// for every GPU; when the features have none, the utilisation stays and the returned text says
/// why (a warning: sm_active was asked for). Empty when nothing needs saying.
std::string apply_busy_share(JobInputs& job, const extract::Features& features, std::string_view busy_share);

}  // namespace gpucost::breakeven

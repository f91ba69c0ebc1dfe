// Renders a breakeven Result for people (a table) and for programs (JSON).
#pragma once

#include <gpucost/breakeven/attribution.hpp>
#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/energy_estimate.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/breakeven/paying.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/extract/features.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::report {

/// One offer of --compare-clouds, priced for the job (or unfit, with its reason).
using CloudRank = breakeven::OfferPrice;

/// What breakeven adds around the Result: the analyses of the answer's robustness.
struct BreakevenExtras {
  std::vector<breakeven::Swing> sensitivity;
  breakeven::PremiumRange range;
  std::optional<breakeven::MonteCarlo> monte_carlo;
  std::string monte_carlo_reason;  ///< --mc asked, nothing varies
  std::vector<CloudRank> clouds;   ///< --compare-clouds: fit offers cheapest first, then the unfit
  std::string fit_basis;           ///< what an offer had to hold: "fits: 2 GPUs, 68.4 GiB per GPU ..."
  /// The ways of paying for the priced offer's instance; null when no term is in view.
  std::optional<breakeven::PayingComparison> paying;
  std::string tariff_tz;  ///< the zone time-of-use windows were read in
  /// The zone the raw logs' local times were read in (--tz or this machine's); empty when only
  /// event streams or features documents were read (their times are UTC already).
  std::string logs_tz;
  /// Ranked findings: computed above the line or with --explain, else null (no key in the JSON).
  std::optional<std::vector<breakeven::Finding>> findings;
  /// --explain: the findings' evidence by indicator id and key in the table (--full alone: not).
  bool explain = false;
  /// --by: the cost by process, user or cgroup; null when not asked (no key in the JSON).
  std::optional<breakeven::Attribution> attribution;
  /// The energy estimated from the GPU model (no telemetry); --estimate: the model beside the measurement.
  std::optional<breakeven::EnergyEstimate> estimate;
  std::optional<breakeven::EstimateBeside> beside;
};

/// People-facing lists (the table, the HTML report) show at most this many incidents.
inline constexpr std::size_t kIncidentsShown = 20;

/// The incidents a people-facing list shows, as indexes into r.incidents in time order: all of
/// them up to `limit`, else the `limit` costliest (the earlier first among equal costs), so that
/// a storm of cheap faults cannot hide the one that cost a reboot. JSON lists them all.
std::vector<std::size_t> incidents_shown(const breakeven::Result& r, std::size_t limit = kIncidentsShown);

/// What the incidents a list leaves out (those not in `shown`) add up to.
struct HiddenIncidents {
  std::size_t count = 0;
  double cost = 0, operator_h = 0;
};
HiddenIncidents incidents_hidden(const breakeven::Result& r, const std::vector<std::size_t>& shown);

/// The break-even in work for people, as (label, text): "use" (owning pays above N tokens a month)
/// and "job" (local is cheaper for jobs of fewer than N steps); the table and the HTML report show
/// them (docs/cost-model.md, "Cost per unit of work"). Empty when the features count no work.
std::vector<std::pair<std::string, std::string>> work_breakeven_texts(const breakeven::Result& r,
                                                                      const breakeven::WorkCosts& w);

/// What people are told of a host no input named: "host vm: this machine's name, ..." (the logs
/// were read there, and may have been copied from another machine); empty for a host the logs
/// or --host named.
std::string assumed_host_note(const extract::Features& f);

std::string breakeven_json(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                           const BreakevenExtras& extras = {});
/// The whole answer for people (--full, --explain): every figure and its basis.
std::string breakeven_table(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                            const BreakevenExtras& extras = {});
/// The default answer for people: one screen (at most 25 lines of 100 columns, docs/outputs.md).
std::string breakeven_summary(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                              const BreakevenExtras& extras = {});

}  // namespace gpucost::report

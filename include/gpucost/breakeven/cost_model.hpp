// Stage 3, breakeven: the local cost of a job against a cloud offer, the premium, and the
// break-even job length and use per year. Formulas: docs/cost-model.md.
#pragma once

#include <gpucost/breakeven/carbon.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/crossings.hpp>
#include <gpucost/breakeven/spot.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/extract/features.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::breakeven {

/// How the GPU energy of uncovered time (no samples) is filled in: at the GPU's mean power
/// (default), at the machine's idle power, or not at all (the job is then priced over its
/// measured time only).
enum class FillRule { mean, idle, none };
std::string_view fill_rule_name(FillRule rule);
/// "mean", "idle" or "none".
Expected<FillRule> parse_fill_rule(std::string_view text);

/// What of the GPU energy was measured and what was filled in (docs/cost-model.md, "Measured
/// and estimated energy").
struct EnergyBasis {
  bool known = false;                     ///< false: the features lack coverage/energy_filled_fraction
  double measured_kwh = 0;                ///< over sampled intervals
  double estimated_kwh = 0;               ///< filled in for uncovered time by `rule`
  double coverage = 1;                    ///< mean sampled share of the window over the GPUs, 0-1
  double covered_h = 0, uncovered_h = 0;  ///< coverage x W, and the rest (of the window as read)
  double fill_power_w = 0;                ///< estimated_kwh / uncovered_h x 1000: the power the fill assumed
  FillRule rule = FillRule::mean;
  double window_h = 0;  ///< the window before --fill none shortened it
  [[nodiscard]] double estimated_share() const {
    const double e = measured_kwh + estimated_kwh;
    return e > 0 ? estimated_kwh / e : 0.0;
  }
};

/// What the model needs from a job.
struct JobInputs {
  double wall_h = 0;  ///< W, hours
  /// The training log's median checkpoint interval and its checkpoint count (Features::checkpoints):
  /// a spot offer's τ when the config does not set cloud.checkpoint_interval_s.
  std::optional<double> checkpoint_interval_s;
  std::int64_t checkpoints = 0;
  std::vector<double> energy_kwh;  ///< E_g per GPU
  std::vector<double> util;        ///< u_g per GPU, 0-1
  bool util_assumed = false;       ///< true when no utilisation was measured (then ū = 1)
  /// Where u_g came from: "telemetry" (util_mean), "trace" (1 - gpu_idle_fraction_trace of a
  /// profiler trace, used only without telemetry utilisation) or "assumed" (1).
  std::string util_source = "telemetry";
  std::optional<double> trace_busy_fraction;  ///< host 1 - gpu_idle_fraction_trace, when a trace was given
  std::int64_t from_ns = 0, to_ns = 0;        ///< the window (time-of-use pricing)
  extract::EnergyProfile profile;             ///< GPU energy by UTC minute
  std::vector<extract::WindowIncident> incidents;
  std::vector<extract::WindowFault> faults;  ///< grouped within fault_window_s
  double fault_window_s = extract::kDefaultFaultWindowS;
  bool faults_listed = true;  ///< false: rebuilt from the bursts of an older document
  /// The window runs from the first kernel or system event to the last (features chosen_by
  /// "events": a kernel log alone): the faults bound it, so their count per hour is no rate of
  /// the job, and neither T* nor H* takes one from it (docs/cost-model.md, "Who caused a fault").
  bool window_from_faults = false;
  std::optional<double> downtime_s;  ///< F051
  std::string downtime_reason;
  std::optional<double> energy_low_kwh, energy_high_kwh;  ///< F049, F050 of the host
  /// What gave E_g: "counter" (the GPUs' energy counters), "power" (their power samples) or
  /// "mixed" (docs/indicators.md, "Energy from the counter"); per GPU (index, method), in E_g's order.
  std::string energy_method;
  std::vector<std::pair<int, std::string>> gpu_energy_method;
  /// The host's power integral (F047) and its difference to the counters' energy (F048, %).
  std::optional<double> energy_from_power_kwh, power_vs_counter_pct;
  EnergyBasis energy_basis;
  std::vector<double> measured_kwh, uncovered_h;  ///< per GPU, when energy_basis.known
  /// The busy share of each GPU in q (cloud.busy_share, docs/cost-model.md "Busy share"); empty:
  /// the utilisation u_g. `busy_source` names what gave it: "util" or "sm_active".
  std::vector<double> busy;
  std::string busy_source = "util";
};

/// Applies the fill rule: `idle` refills each GPU's uncovered time at idle_power_w / GPUs;
/// `none` keeps the measured energy only and shortens W to the covered time (the energy
/// profile scales with it). `mean` leaves the job as extract computed it; the other two drop the
/// energy bounds, which include the uncovered time at extract's assumption.
void apply_fill(JobInputs& job, FillRule rule, double idle_power_w);

/// The window's part of the job: its ends, incidents, faults and downtime.
void window_inputs(const extract::Features& features, JobInputs& job);

/// Takes W, E_g and u_g from extract's features. Fails when the window is empty or a GPU
/// has no energy (no power samples): the cost would be a silent guess.
Expected<JobInputs> job_inputs(const extract::Features& features);

/// A solution that may not exist.
struct Solution {
  std::optional<double> value;
  std::string reason;  ///< why there is none
};

/// One fault with its price, hourly_wage x incident_hours[bucket] (once per fault, whatever its
/// member count); or an interruption (suspend, AC offline: a "fault" of one member kind and
/// no bucket), which costs downtime, not operator time.
struct IncidentCost {
  extract::WindowFault fault;
  double hours = 0;  ///< operator hours (0 for interruptions)
  double cost = 0;   ///< as priced: 0 for a fault left out of both sides
  /// Where the fault is priced (local.faults): "both" (an application fault under both-sides:
  /// in the local and the cloud total alike), "local" (hardware, driver, unknown; every fault
  /// under all-local), "neither" (an application fault under hardware-only); empty for
  /// interruptions.
  std::string priced_on;
};

/// Where application faults are priced (local.faults, --faults).
enum class FaultRule { both_sides, hardware_only, all_local };
std::string_view fault_rule_name(FaultRule rule);
/// "both-sides", "hardware-only" or "all-local"; any other text reads as both-sides (the config
/// and the option check their values).
FaultRule fault_rule_of(std::string_view text);

/// The faults priced with the config's window: those of the features joined further when
/// local.fault_window_s is longer than the window they were grouped with; a shorter one cannot
/// split them (`note` then says so).
std::vector<extract::WindowFault> faults_at(const CostConfig& config, const JobInputs& job,
                                            std::string* note = nullptr);

struct Result {
  JobInputs job;
  EnergyPrices prices;    ///< energy-weighted prices; prices.mean is the JSON's mean price
  double system_kwh = 0;  ///< system_power_w x W / 1000
  double util_mean = 0;   ///< ū
  double energy_kwh = 0;  ///< Σ E_g
  // local
  double electricity = 0, amortisation = 0, maintenance = 0, local_total = 0;
  double maintenance_routine = 0;       ///< C_m of the yearly maintenance hours
  double incident_cost = 0;             ///< C_i: Σ incident costs on the local side (maintenance = routine + C_i)
  std::vector<IncidentCost> incidents;  ///< faults and interruptions, in time order
  /// The faults split by cause (docs/cost-model.md, "Who caused a fault"): application faults
  /// and what they cost on the local side (A: their labour; 0 under hardware-only), the others
  /// (hardware, driver, unknown: local only) and theirs. C_i = A + hardware_fault_cost.
  FaultRule fault_rule = FaultRule::both_sides;
  std::size_t application_faults = 0, hardware_faults = 0;
  double application_fault_cost = 0, hardware_fault_cost = 0;
  /// C_A: the faults' cost on the cloud side, in cloud_total: A under both-sides, else 0. Both
  /// totals carry it, so the premium, T*, T_λ and H* compare the totals without it.
  double cloud_fault_cost = 0;
  std::string fault_note;  ///< how the faults were grouped, when not as configured
  std::optional<double> downtime_h, downtime_share;
  double idle_cost_per_hour = 0;  ///< I (always_on), currency per idle hour
  double idle_cost_per_year = 0;  ///< (8760 - use_hours_per_year) x I
  /// The yearly split behind H* (docs/cost-model.md, "Break-even use per year H*"): F, the fixed
  /// local cost a year; v, the local cost that comes with each job hour; r, this job's cloud cost
  /// per job hour (billing included, C_A not).
  double fixed_per_year = 0, local_per_job_h = 0, cloud_per_job_h = 0;
  // cloud
  double busy_share = 0;  ///< ū of q: the mean of job.busy, else util_mean
  double q = 0;           ///< billed share of W: (1 - ū) + ū / speed_ratio
  /// A spot offer's expected run (spot.hpp): q above includes its factor. None for other offers.
  std::optional<SpotExpectation> spot;
  double billed_s = 0, cloud_total = 0;
  // comparison
  double premium = 0, line = 0;
  bool above_line = false;
  /// The energy was estimated (energy_method "model") and its bounds put the premium on both
  /// sides of the line: no verdict; above_line is then false (docs/cost-model.md, "Estimated energy").
  bool undecided = false;
  /// The offer cannot run the job as logged (too few GPUs, too little memory): no verdict, no
  /// advice to rent; above_line is then false and the JSON's null.
  bool unfit = false;
  /// What puts an undecided premium on both sides of the line ("billing rounding alone moves it
  /// across the line"); empty otherwise.
  std::string verdict_reason;
  Solution job_hours;           ///< T*: the first of job_crossings
  Solution line_job_hours;      ///< T_λ: the first of line_crossings
  Crossings job_crossings;      ///< every job length where C_L = C_C (the billing's steps may give several)
  Crossings line_crossings;     ///< every job length where C_L = (1 + line) C_C
  Solution use_hours_per_year;  ///< H*
  /// kg CO2e locally and in the cloud: set by price_job (carbon_of), not by evaluate (the
  /// sensitivity and Monte-Carlo reruns do not need it).
  CarbonResult carbon;
};

/// Fails when the tariff needs what the job lacks (a time-of-use tariff without an energy profile).
Status check_job(const CostConfig& config, const JobInputs& job);

/// The whole model; the energy is priced with the config's tariff.
Result compute(const CostConfig& config, const JobInputs& job);
/// The model with given energy prices (sensitivity and Monte-Carlo reuse one pricing of the profile).
Result evaluate(const CostConfig& config, const JobInputs& job, const EnergyPrices& prices);
/// The energy-weighted prices of the job under the config's tariff.
EnergyPrices price_energy(const CostConfig& config, const JobInputs& job);

/// "above", "below", "undecided" or "unfit" (docs/cost-model.md, "The verdict").
const char* verdict_word(const Result& r);

/// Sensitivity: the premium with one parameter over [0.8x, 1.2x] its value, sampled at
/// kSensitivitySteps + 1 even points, so that an effect that turns (billing steps) shows.
inline constexpr int kSensitivitySteps = 16;
struct Swing {
  std::string parameter;
  double base = 0;                           ///< the parameter's value
  double premium_low = 0, premium_high = 0;  ///< at 0.8x and 1.2x
  double premium_min = 0, premium_max = 0;   ///< the least and the most over the samples
  [[nodiscard]] double swing() const { return premium_max - premium_min; }
};
/// Every parameter of parameters(), sorted by swing, largest first.
std::vector<Swing> sensitivity(const CostConfig& config, const JobInputs& job, const EnergyPrices& prices);

/// The premium over what is not known exactly (docs/cost-model.md, "The verdict"): the GPU
/// energy within its bounds (F049/F050), the speed ratio within its range (a table's
/// [memory-bound, compute-bound]), and the billing at the offer's increment or by the second
/// (a job's rounded-up last increment is chance). The range is the lowest and highest premium over
/// every combination of these ends.
struct PremiumRange {
  std::optional<double> low, high;
  std::string reason;  ///< when nothing bounds the premium
  /// The lowest and highest T* and H* over the same combinations (none where no combination has a
  /// solution).
  std::optional<double> job_hours_low, job_hours_high, use_hours_low, use_hours_high;
  /// One uncertain input alone, the others at their point values: its name ("energy", "speed
  /// ratio", "billing rounding"), what it spans, and the premium's range over it.
  struct Part {
    std::string name, span;
    double low = 0, high = 0;
  };
  std::vector<Part> parts;
  /// Why an input has no part ("energy: no bounds in the features ..."), for the text.
  std::vector<std::string> missing;
  /// Whether the range lies on both sides of the line: then no verdict holds.
  [[nodiscard]] bool spans(double line) const { return low && high && ((*low > line) != (*high > line)); }
};
PremiumRange premium_range(const CostConfig& config, const JobInputs& job, const EnergyPrices& prices);

/// Sets the verdict of `result` from its premium range (docs/cost-model.md, "The verdict"): none
/// (unfit) when `unfit_reason` is not empty, undecided with its reason when the range spans the
/// line; above_line is then false.
void decide_verdict(Result& result, const PremiumRange& range, const std::string& unfit_reason);

/// Monte-Carlo over the config's [ranges]: each draw takes every ranged parameter uniformly.
struct MonteCarlo {
  std::size_t draws = 0;
  std::uint64_t seed = 0;
  double probability_local_cheaper = 0;  ///< share of draws with premium < 0
  double probability_above_line = 0;
  double premium_p05 = 0, premium_p50 = 0, premium_p95 = 0;
};
MonteCarlo monte_carlo(const CostConfig& config, const JobInputs& job, const EnergyPrices& prices, std::size_t draws,
                       std::uint64_t seed);

/// The config with one parameter scaled (price_per_kwh scales every tariff price).
CostConfig scaled(const CostConfig& config, std::string_view parameter, double factor);

}  // namespace gpucost::breakeven

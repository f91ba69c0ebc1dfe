// The cost configuration (TOML, --config FILE, --set section.key=value). One table of keys
// with defaults and limits drives loading, validation, "did you mean" hints and the docs.
#pragma once

#include <gpucost/breakeven/speed_projection.hpp>
#include <gpucost/breakeven/tariff.hpp>
#include <gpucost/core/error.hpp>

#include <map>

#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

struct CostConfig {
  std::string currency = "USD";
  double line = 0.12;  ///< premium threshold, 0.12 = 12 %
  // [electricity]
  double price_per_kwh = 0;  ///< required, currency per kWh
  std::string tariff_tz;     ///< zone of the time-of-use windows; empty = the logs' --tz zone
  std::vector<TouWindow> tou;
  // [local]
  double hardware_price = 0;  ///< required, currency
  double residual_fraction = 0;
  double lifetime_years = 3;
  double use_hours_per_year = 2044;
  double cooling_factor = 1.0;
  double system_power_w = 0;
  double hourly_wage = 0;
  double maintenance_hours_per_year = 0;
  bool always_on = false;   ///< powered (idle) when not working
  double idle_power_w = 0;  ///< whole machine, idle
  /// How many machines hardware_price, system_power_w, idle_power_w and maintenance describe; a
  /// job on more hosts scales them (docs/cost-model.md, "A job on several hosts"). 0: not said.
  double machines = 0;
  /// Operator hours per fault, by its most severe member's bucket (docs/cost-model.md, "Faults").
  double incident_restart_app_h = 0.1, incident_reset_gpu_h = 0.5, incident_reboot_h = 1.0,
         incident_contact_support_h = 8.0, incident_unknown_h = 0.5;
  /// Fault members within this of the previous one of their GPU are one fault, s.
  double fault_window_s = 60;
  /// Where a fault the application caused is priced (docs/cost-model.md, "Who caused a fault"):
  /// "both-sides" (the same labour on the cloud side too), "hardware-only" (on neither side) or
  /// "all-local" (on the local side, as every fault is).
  std::string faults = "both-sides";
  // [cloud]
  std::string cloud_name;
  std::string cloud_offer;   ///< a catalogue offer (data/cloud-offers.toml), like --cloud
  double rate_per_hour = 0;  ///< required, currency per hour
  double speed_ratio = 1.0;
  double cold_start_s = 0;
  double billing_increment_s = 1;
  double billing_minimum_s = 0;
  double fixed_per_job = 0;
  /// Where speed_ratio came from: "default", "config", "offer", "flag" or "table" (it dominates the answer).
  std::string speed_ratio_source = "default";
  /// Why that speed ratio: for "table", the range and what each bound rests on; for a ratio given
  /// with an offer, that it is a point; else empty.
  std::string speed_ratio_basis;
  /// The speed ratio's range when it is not known as one number (docs/cost-model.md, "Speed
  /// ratio"): the GPU table's [memory-bound, compute-bound] ratios, or the variants an ambiguous
  /// offer GPU may be. speed_ratio is then inside it; both empty when the ratio is a point (given
  /// by the user or the offer, or projected from this job's trace).
  std::optional<double> speed_ratio_low, speed_ratio_high;
  /// speed_ratio_source "trace": the step projected from this job's trace; none otherwise.
  std::optional<SpeedProjection> speed_projection;
  /// Why a trace with a step split gave no projection ("no projection: memory bandwidth of ...");
  /// empty when it gave one or there is no split.
  std::string speed_projection_missing;
  /// The offer's own currency and the rate that turned its price into `currency` (1 when the
  /// same); set by config_for_offer.
  std::string offer_currency;
  double offer_exchange_rate = 1;
  /// Why the chosen offer cannot run the job as logged (too few GPUs, too little memory); empty
  /// when it can. Set by price_job: the verdict then says that it compares with such an offer.
  std::string cloud_unfit;
  /// An offer fits when its GPU memory holds the job's peak framebuffer use x (1 + margin).
  double memory_margin = 0.05;
  /// A spot offer's billed time grows by this flat share (the older rule): only when a config
  /// sets it; else the interruptions are priced (spot.hpp) from the three terms below.
  double spot_restart_overhead = 0.10;
  /// Spot interruptions per hour of running (λ), checkpoint interval of work (τ) and restart
  /// time (R; default the offer's cold start): docs/cost-model.md, "Spot: interruptions priced".
  double spot_interruptions_per_hour = 1.0 / 24.0;
  double checkpoint_interval_s = 1800;
  double spot_restart_s = 0;
  /// What gives the busy share ū of the billed time q: "util" (utilization.gpu) or "sm_active"
  /// (DCGM SM active, when the features have it); docs/cost-model.md, "Busy share".
  std::string busy_share = "util";
  /// The priced catalogue offer's terms, set by with_offer (empty/defaults without an offer):
  /// its kind ("on-demand", "spot", "reserved-1y", ...), how its listed price became
  /// rate_per_hour (a spot overhead, a term spread over the hours used; empty when as listed),
  /// the date and source of the price, and whether it was confirmed there.
  std::string offer_kind, offer_rate_basis, offer_date_seen, offer_source, offer_note;
  bool offer_confirmed = true;
  std::optional<int> offer_age_days;  ///< days from offer_date_seen to the run's date
  /// The priced offer's provider and region (set by with_offer; empty without an offer): the
  /// cloud side's PUE and grid (docs/cost-model.md, "Carbon").
  std::string offer_provider, offer_region;
  // [carbon]: grid intensities in g CO2e/kWh; a number counts only when is_set() says it was given.
  double carbon_intensity = 0;        ///< carbon.intensity_g_per_kwh, flat
  std::string carbon_country;         ///< carbon.country: the intensity from data/grid-carbon-intensity.tsv
  std::vector<TouWindow> carbon_tou;  ///< [[carbon.tou]]: price_per_kwh holds the intensity
  double carbon_cloud_intensity = 0;  ///< carbon.cloud_intensity_g_per_kwh
  std::string carbon_cloud_country;   ///< carbon.cloud_country
  double carbon_cloud_pue = 0;        ///< carbon.cloud_pue
  /// [ranges]: Monte-Carlo bounds by parameter name (the sensitivity parameters).
  std::map<std::string, std::pair<double, double>> ranges;
  /// [exchange]: units of `currency` per unit of another currency ("USD" -> 0.92), and the date
  /// the rates were taken (a label printed with every conversion).
  std::map<std::string, double> exchange;
  std::string exchange_date;
  /// Reference rates (units of `currency` per unit of CODE) used when [exchange] has no rate for
  /// the offer's currency: the ECB rates `gpucost offers update` stored, and their label
  /// ("ECB euro reference rates of 2026-11-30"). Set by the command line from the catalogue.
  std::map<std::string, double> reference_exchange;
  std::string reference_exchange_label, reference_exchange_date;
  /// Where offer_exchange_rate came from: "config" or reference_exchange_label.
  std::string offer_exchange_source;
  /// The keys the file or --set gave ("local.lifetime_years"): the others are defaults, and the
  /// output says so where a default drives the answer.
  std::set<std::string> keys_set;

  /// Whether `path` was given rather than left at its default.
  [[nodiscard]] bool is_set(std::string_view path) const { return keys_set.count(std::string(path)) > 0; }
};

/// Warnings (not errors) about values that are possible but probably a mistake: a price per kWh
/// above 2 ("cents entered as units?"), a line above 1, a hardware price below 50, a lifetime
/// above 15 years. One sentence each, with the key.
std::vector<std::string> implausible_values(const CostConfig& config);

/// The parameters of the sensitivity table and of [ranges]: name, and the field it scales.
struct Parameter {
  std::string_view name;
  double CostConfig::*field;
};
std::span<const Parameter> parameters();

struct ConfigKey {
  std::string_view path;  ///< "local.hardware_price"; top-level keys have no dot
  std::string_view unit;  ///< for docs and the table
  std::string_view description;
  bool required = false;
  bool is_string = false;
  double min = 0, max = 0;  ///< inclusive limits for numbers
  bool min_exclusive = false;
  bool is_bool = false;
  /// No default: the key is unknown until given (a [carbon] intensity left out must not read as
  /// 0). init writes it as "# key =", without a value.
  bool no_default = false;
  /// A default that is no number, in words ("default: the offer's cold start"): init writes the
  /// key as "# key =" with these words.
  std::string_view default_words = {};
};

std::span<const ConfigKey> config_keys();

/// The value of key `path` in `config` as TOML text ("0.12", "\"USD\"", "false"): of a default
/// CostConfig, the key's default (gpucost init writes it). Empty when `path` is no key.
std::string key_value_text(const CostConfig& config, std::string_view path);

/// Loads `path` (optional) and applies `overrides` ("section.key=value") on top, then checks
/// that required keys are present and values are in range.
/// `cloud_from_catalogue`: an offer is picked on the command line (--cloud), so the [cloud]
/// rate is not required.
Expected<CostConfig> load_config(const std::optional<std::string>& path, const std::vector<std::string>& overrides,
                                 bool cloud_from_catalogue = false);

}  // namespace gpucost::breakeven

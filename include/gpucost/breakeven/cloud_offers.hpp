// The cloud catalogue: dated list prices of GPU offers (data/cloud-offers.toml, compiled in).
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/breakeven/spot.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/extract/features.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

/// The hours of a year: a term is paid for every one of them.
inline constexpr double kHoursPerYear = 8760;

/// How the offer is bought: on demand, on the spot market (can be interrupted), or for a term.
enum class OfferKind { on_demand, spot, reserved_1y, reserved_3y, savings_plan };
/// "on-demand", "spot", "reserved-1y", "reserved-3y", "savings-plan" (the catalogue's words).
std::string_view offer_kind_name(OfferKind kind);
std::optional<OfferKind> parse_offer_kind(std::string_view word);
/// Whether the kind is a term paid whether used or not (reserved, savings plan).
bool is_commitment(OfferKind kind);

struct CloudOffer {
  std::string name, provider, instance, region, gpu_model, currency, date_seen, source;
  OfferKind kind = OfferKind::on_demand;
  bool confirmed = true;  ///< false: the price could not be checked against its source
  std::string note;       ///< why unconfirmed, or what else to know (a term's payment option)
  std::string origin;     ///< the catalogue it came from: "built-in", a file's path
  double gpu_memory_gb = 0;
  int gpus = 1;          ///< GPUs of the instance; with per_gpu the most one can rent
  bool per_gpu = false;  ///< price_per_hour is for one GPU, any count up to gpus
  double price_per_hour = 0;
  double billing_increment_s = 1, billing_minimum_s = 0, cold_start_s = 0;
  std::optional<double> speed_ratio;
  /// Paid once at the start of the term (reserved, savings plan), in `currency`: for the instance,
  /// or for one GPU with per_gpu. 0: no upfront payment.
  double upfront = 0;
  /// The term's length as the catalogue gives it; none: the kind's (reserved-1y 1, reserved-3y 3,
  /// a savings plan 1, which is then an assumption).
  std::optional<double> term_years;

  /// The term in years: as given, else the kind's; 0 for offers without a term.
  [[nodiscard]] double term_length_years() const;
  /// The upfront payment for a job on `job_gpus` GPUs, in the offer's currency.
  [[nodiscard]] double upfront_for(int job_gpus) const { return per_gpu ? upfront * job_gpus : upfront; }

  /// Whether the offer has GPUs enough for a job on `job_gpus` GPUs (a larger instance is paid whole).
  [[nodiscard]] bool fits(int job_gpus) const { return job_gpus <= gpus; }
  /// The GPUs paid for a job on `job_gpus` GPUs: those rented per GPU, else the whole instance.
  [[nodiscard]] int billed_gpus(int job_gpus) const { return per_gpu ? job_gpus : gpus; }
  /// The hourly rate for a job on `gpus` GPUs, in the offer's currency.
  [[nodiscard]] double rate_for(int job_gpus) const { return per_gpu ? price_per_hour * job_gpus : price_per_hour; }
};

/// What an offer must hold to run the job, from its logs.
struct JobShape {
  int gpus = 0;
  std::optional<double> peak_fb_mib;   ///< largest F083 fb_used_max_mib over the GPUs
  std::optional<double> local_fb_mib;  ///< the local card's memory (F083 + F084 headroom), when known
  /// The telemetry's GPU name, else (no names given) the traces'; empty when unknown or several.
  std::string local_model;
  /// The traces' steps split by bound: the offer's speed ratio is projected from it.
  std::optional<extract::TraceStepSplit> trace_split;
  /// The GPU table the projection reads; null: the compiled-in data/gpu-speed.toml.
  const std::vector<GpuSpeed>* gpu_table = nullptr;
  /// The traces' `[memory]` peaks: when they give the allocated peak, it decides the memory fit.
  std::optional<extract::TraceMemoryPeak> trace_memory = {};
};

/// MiB outside PyTorch's allocator (CUDA context, cuBLAS/cuDNN/NCCL workspaces) added to a trace's
/// allocated peak when no nvidia-smi figure measures it (docs/cost-model.md, "Offers that can run the job").
inline constexpr double kContextAllowanceMib = 512;
/// The MiB beside the trace's allocated peak that the job needs: nvidia-smi's frame-buffer peak
/// less the allocator's reserved peak (what only the driver sees) when both are known, else
/// kContextAllowanceMib; none without a trace allocated peak.
std::optional<double> outside_allocator_mib(const JobShape& shape);
/// The job's shape from its features and the GPU names of its inputs (their fingerprint).
JobShape job_shape(const extract::Features& features, const std::vector<std::string>& gpu_names);
/// The memory (MiB) an offer's GPU needs for the job: the trace's allocated peak x (1 + margin) +
/// outside_allocator_mib when a trace gives it, else nvidia-smi's frame-buffer peak x (1 + margin);
/// never more than the local card had (a job that ran on it fits any card as large); none when
/// not measured.
std::optional<double> required_memory_mib(const JobShape& shape, double margin);
/// What an offer must hold, in words: "to fit: 2 GPUs, 25.6 GiB per GPU (peak 24.4 GiB + 5 %)", or
/// "to fit: 2 GPUs (memory use not in the logs: not checked)".
std::string fit_basis(const JobShape& shape, double margin);
/// Why the offer cannot run the job (too few GPUs, too little memory per GPU); empty when it can.
std::string unfit_reason(const CloudOffer& offer, const JobShape& shape, double margin);

/// Units of config.currency per unit of `currency` (1 for the same); an error naming the missing
/// `exchange.<CODE>` key otherwise.
Expected<double> exchange_rate(const CostConfig& config, std::string_view currency);
/// "USD->EUR 0.92 of 2026-11-28, from config" (empty when the offer is in the config's currency).
std::string exchange_text(const CostConfig& config);

/// The config priced with the offer for this job: with_offer, the price converted to the config's
/// currency, and, when neither the flag, the config nor the offer gives a speed ratio, the one
/// projected from the job's trace (shape.trace_split), else the GPU speed table's: its range's
/// middle, with speed_ratio_low/high (a given or projected ratio is a point).
Expected<CostConfig> config_for_offer(const CostConfig& config, const CloudOffer& offer, const JobShape& shape);

/// One catalogue offer priced for the job (--compare-clouds, the cloud_offer finding).
struct OfferPrice {
  std::string name, provider, instance, gpu_model, date_seen;
  std::string region;        ///< the offer's region; empty when it names none
  int gpus = 0;              ///< GPUs paid for
  double rate_per_hour = 0;  ///< in the config's currency
  double speed_ratio = 1, billed_s = 0, total = 0, premium = 0;
  std::string speed_ratio_source, speed_ratio_basis;
  std::optional<double> speed_ratio_low,
      speed_ratio_high;      ///< the table's range (speed_ratio its middle); none: a point
  std::string currency;      ///< the offer's own
  double exchange_rate = 1;  ///< config currency per offer currency unit
  std::string unfit;         ///< why it cannot run the job (or cannot be priced); empty: ranked
  OfferKind kind = OfferKind::on_demand;
  std::string rate_basis;  ///< how the listed price became rate_per_hour (spot, terms); empty: as listed
  bool confirmed = true;
  std::optional<int> age_days;    ///< days from date_seen to the run's date; none when not counted
  std::optional<SpotTerms> spot;  ///< a spot offer priced by its interruptions: its terms (restart: its cold start)
};
/// Every catalogue offer priced for the job: those that fit, cheapest first, then the unfit ones
/// (with their reason, unpriced) in catalogue order.
std::vector<OfferPrice> price_offers(const CostConfig& config, const JobInputs& job, const EnergyPrices& prices,
                                     const JobShape& shape, const std::vector<CloudOffer>& offers);

/// Parses a catalogue (the TOML text of data/cloud-offers.toml).
Expected<std::vector<CloudOffer>> parse_cloud_offers(std::string_view toml_text, std::string_view origin);
/// The compiled-in catalogue.
const std::vector<CloudOffer>& cloud_offers();

/// Euro reference rates as the European Central Bank publishes them: units of CODE per euro.
struct EuroRates {
  std::string date, source;
  std::map<std::string, double> per_euro;
  /// Units of `to` per unit of `from` through the euro; none when either is not known.
  [[nodiscard]] std::optional<double> rate(std::string_view from, std::string_view to) const;
};

/// Reads a catalogue's [exchange] table (base = "EUR", date, source, CODE = units per euro);
/// none when it has none, an error when it is malformed.
Expected<std::optional<EuroRates>> parse_euro_rates(std::string_view toml_text, std::string_view origin);
/// The config with reference rates for every currency of `rates` into the config's currency.
void use_reference_rates(CostConfig& config, const EuroRates& rates);
/// Past this many days breakeven warns that the priced offer's price may have changed.
inline constexpr int kStalePriceDays = 90;
/// Whole days from `day` to `today` (both YYYY-MM-DD); none when either is not a date.
std::optional<int> days_between(std::string_view day, std::string_view today);
/// Whole days from the offer's date_seen to `today` (both YYYY-MM-DD); none when either is not a date.
std::optional<int> price_age_days(const CloudOffer& offer, std::string_view today);

/// Which offers `gpucost offers list` shows: each given field must match (GPU: words of the
/// model, any case, "h100" matches "H100"; region: the region or its start; kind: exactly).
struct OfferFilter {
  std::string gpu, kind;
  std::vector<std::string> regions;
};
std::vector<CloudOffer> filter_offers(const std::vector<CloudOffer>& offers, const OfferFilter& filter);

/// The offer named `name` among `offers`, or an error with the nearest name.
Expected<CloudOffer> find_cloud_offer(std::string_view name, const std::vector<CloudOffer>& offers);

/// Whether the speed ratio was given by the user (--speed-ratio or cloud.speed_ratio): it then
/// holds for every offer; otherwise each offer takes its own (offer, table, default).
bool user_speed_ratio(const CostConfig& config);
/// The config with the offer's rate (for `job_gpus` GPUs), billing, cold start and name; its
/// speed_ratio only when the config's is the default (a flag or the config wins).
CostConfig with_offer(const CostConfig& config, const CloudOffer& offer, int job_gpus);

}  // namespace gpucost::breakeven

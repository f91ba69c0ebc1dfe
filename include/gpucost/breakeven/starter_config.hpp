// gpucost init: a commented starter cost configuration (TOML) with every key of config_keys(),
// its unit, its default and where to find the number, filled with what is known about the
// machine (its GPUs from the logs, nvidia-smi or --gpu; a catalogue offer of the same GPU; the
// electricity price of a country from data/electricity-prices.toml).
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/extract/features.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

/// What is known about the machine's GPUs. Empty when nothing is.
struct MachineFacts {
  std::vector<std::string> gpu_names;       ///< distinct models, as nvidia-smi names them
  int gpu_count = 0;                        ///< 0 = unknown
  std::optional<double> gpu_memory_mib;     ///< memory of one GPU (the largest), when known
  std::optional<double> gpu_power_limit_w;  ///< power limit of one GPU (the largest), when known
  std::optional<double> idle_power_w;       ///< the GPUs together at 0 % utilisation, measured
  std::string idle_basis;                   ///< how idle_power_w was measured, for the config's note
  std::string source;                       ///< "the logs (a.csv)", "nvidia-smi", "--gpu"
};

/// What the logs say of the machine: the GPU models their fingerprints name (a profiler's are
/// left out: it names the GPU it ran on, maybe elsewhere), the GPU count and memory of the
/// features. `source` and the idle power are left empty (idle_power_from_samples).
MachineFacts machine_facts_from_logs(const extract::Features& features, const std::vector<InputStats>& stats);

/// The GPUs' idle power read from telemetry (docs/cost-model.md, "init"): for each GPU the
/// kIdlePercentile of the power of its samples at 0 % utilisation, summed over the GPUs. A low
/// percentile, not the mean: a GPU between two steps of a job reads 0 % at a clock and power far
/// above its idle state. None when a GPU has fewer than kMinIdleSamples such samples.
struct IdlePowerReading {
  double watts = 0;         ///< summed over the GPUs
  std::size_t samples = 0;  ///< the samples at 0 % utilisation it rests on, all GPUs
  double low_w = 0;         ///< the lowest such sample of any GPU
  double high_w = 0;        ///< the highest
  int gpus = 0;
};
inline constexpr double kIdlePercentile = 0.10;
inline constexpr std::size_t kMinIdleSamples = 5;
/// `zero_util_power_w`: per GPU, the power (W) of each sample that reads 0 % utilisation.
std::optional<IdlePowerReading> idle_power_from_samples(const std::vector<std::vector<double>>& zero_util_power_w);
/// The note the config gives a measured idle power: "the 10th percentile of ...".
std::string idle_power_basis(const IdlePowerReading& r);

/// One country's average electricity price (data/electricity-prices.toml).
struct ElectricityPrice {
  std::string country, currency, period, consumers, source, date_seen;
  double price_per_kwh = 0;
};
/// Parses a price table (the TOML text of data/electricity-prices.toml).
Expected<std::vector<ElectricityPrice>> parse_electricity_prices(std::string_view toml_text, std::string_view origin);
/// The compiled-in table.
const std::vector<ElectricityPrice>& electricity_prices();

/// A country code as init takes it: two letters, upper-cased; "UK" is GB and "EL" (Eurostat's
/// Greece) GR. An error for anything else.
Expected<std::string> normalise_country(std::string_view code);
/// The currency (ISO 4217) of a country (ISO 3166-1 alpha-2, upper case); none when the small
/// table in starter_config.cpp does not know it.
std::optional<std::string> currency_of_country(std::string_view country);

/// The on-demand catalogue offers of the same GPU model as `gpu_name` that can hold `gpu_count`
/// GPUs (and, when known, at least `memory_mib` per GPU), cheapest first for that count (offers in
/// `currency` before the others, confirmed prices before unconfirmed ones).
std::vector<CloudOffer> same_gpu_offers(std::string_view gpu_name, int gpu_count, std::optional<double> memory_mib,
                                        std::string_view currency,
                                        const std::vector<CloudOffer>& catalogue = cloud_offers());

/// The GPUs of `nvidia-smi --query-gpu=name,memory.total,power.limit --format=csv,noheader`
/// output (record::probe_nvidia_smi runs it): one line per GPU ("NVIDIA H100 80GB HBM3,
/// 81559 MiB, 700.00 W"); "[N/A]" values are unknown. An error when no line has that shape.
Expected<MachineFacts> parse_smi_gpu_list(std::string_view csv);

struct StarterOptions {
  MachineFacts machine;
  std::string country;             ///< normalised (normalise_country); empty = none
  std::vector<std::string> notes;  ///< lines for the file's header ("nvidia-smi is not on PATH: ...")
  /// The user catalogue's ECB rates (gpucost offers update); the built-in ones when none is as recent.
  std::optional<EuroRates> user_rates;
  std::string generator = "gpucost init";
};

/// The starter configuration, with the notes init prints besides (what it filled, what it
/// could not).
struct StarterConfig {
  std::string toml;
  std::vector<std::string> notes;
};
/// The commented TOML: every key of config_keys() under its section, written out when its value
/// is known, else behind "# " at its default with "set this: ..." (a required key without a
/// value is written "# key =", so breakeven names it until it is set); then [exchange] (the
/// chosen offer's rate through the euro from the newest ECB rates, with their date, when the
/// offer is in another currency and they know both) and [ranges] as a commented example. It loads
/// with load_config() as it is (the required keys it could not fill aside).
StarterConfig starter_config(const StarterOptions& options);

/// Where to find the number of key `path` (the invoice, the electricity bill, nvidia-smi -q, the
/// provider's price page, ...); empty for a key without one (a unit test keeps that from happening).
std::string_view where_to_find(std::string_view path);

}  // namespace gpucost::breakeven

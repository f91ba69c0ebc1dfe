// The cloud catalogue: dated list prices of GPU offers (data/cloud-offers.toml, compiled in).
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/core/error.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

struct CloudOffer {
  std::string name, provider, instance, region, gpu_model, currency, date_seen, source;
  double gpu_memory_gb = 0;
  int gpus = 1;              ///< GPUs of the instance; with per_gpu the most one can rent
  bool per_gpu = false;      ///< price_per_hour is for one GPU, any count up to gpus
  double price_per_hour = 0;
  double billing_increment_s = 1, billing_minimum_s = 0, cold_start_s = 0;
  std::optional<double> speed_ratio;

  /// Whether a job on `gpus` GPUs fits the offer as is (same count, or per-GPU up to the max).
  [[nodiscard]] bool fits(int job_gpus) const { return per_gpu ? job_gpus <= gpus : job_gpus == gpus; }
  /// The hourly rate for a job on `gpus` GPUs.
  [[nodiscard]] double rate_for(int job_gpus) const { return per_gpu ? price_per_hour * job_gpus : price_per_hour; }
};

/// Parses a catalogue (the TOML text of data/cloud-offers.toml).
Expected<std::vector<CloudOffer>> parse_cloud_offers(std::string_view toml_text, std::string_view origin);
/// The compiled-in catalogue.
const std::vector<CloudOffer>& cloud_offers();
/// The offer named `name`, or an error with the nearest name.
Expected<CloudOffer> find_cloud_offer(std::string_view name);

/// The config with the offer's rate (for `job_gpus` GPUs), billing, cold start and name; its
/// speed_ratio only when the config's is the default (a flag or the config wins).
CostConfig with_offer(const CostConfig& config, const CloudOffer& offer, int job_gpus);

}  // namespace gpucost::breakeven

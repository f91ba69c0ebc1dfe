// Which GPUs an instance type holds: AWS instance types, Azure ARM SKU names and Google Cloud
// GPU SKU descriptions mapped to a model, a count and the memory of one GPU. The table is
// written out in gpu_skus.cpp with the provider page each family comes from; a name it does not
// know is not a GPU offer (or not one gpucost can price honestly) and is skipped.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prices {

struct SkuGpu {
  std::string model;        ///< as data/cloud-offers.toml names it: "H100", "A100 80GB", "L4"
  int gpus = 1;             ///< GPUs of the instance (for a per-GPU SKU: the most one VM takes)
  double memory_gb = 0;     ///< of one GPU
  std::string_view family;  ///< "p5", "NCads A100 v4", ...
  std::string_view source;  ///< where the family's figures come from
  /// The family's typical cold start (boot, driver, image pull: data/cloud-offers.toml's rough
  /// figure); 0: the provider's (data/provider-billing.toml).
  double cold_start_s = 0;
};

/// "p5.48xlarge" -> 8x H100 80 GB. None for a type outside the GPU families of the table.
std::optional<SkuGpu> aws_instance_gpu(std::string_view instance_type);
/// "Standard_NC24ads_A100_v4" -> 1x A100 80GB. None for a non-GPU SKU, or one with a fraction of
/// a GPU (NVads A10 v5 below 36 vCPUs).
std::optional<SkuGpu> azure_sku_gpu(std::string_view arm_sku_name);
/// "Nvidia Tesla A100 GPU running in Americas" -> A100 40GB (gpus = the most GPUs one VM of that
/// model takes). None for what is not one whole NVIDIA GPU (vGPU workstation SKUs, ...).
std::optional<SkuGpu> gcp_gpu_description(std::string_view description);

/// The ARM SKU names of the table (the Azure query asks for these only).
std::vector<std::string_view> azure_gpu_skus();

}  // namespace gpucost::prices

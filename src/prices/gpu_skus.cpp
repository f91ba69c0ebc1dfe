// The GPU table of the price lists. Each family names the provider page its model, count and
// memory come from (seen 2024-2025). AWS's offer file also states the GPU count and memory of
// most instance types; the AWS source prefers those and falls back on this table.
#include <gpucost/prices/gpu_skus.hpp>

#include <gpucost/core/text.hpp>

#include <array>
#include <utility>

namespace gpucost::prices {

namespace {

struct SizeCount {
  std::string_view size;
  int gpus;
};

struct AwsFamily {
  std::string_view family, model;
  double memory_gb;
  int default_gpus;  ///< sizes not listed (0: only the listed sizes exist)
  std::array<SizeCount, 3> sizes;
  std::string_view source;
  double cold_start_s;  ///< as data/cloud-offers.toml's offers of the family: g 240 s, p3/p4 420 s, p5/p6 480 s
};

// g-families: one GPU up to 16xlarge, four at 12xlarge and 24xlarge, eight at 48xlarge.
constexpr std::array<SizeCount, 3> kGSizes{{{"12xlarge", 4}, {"24xlarge", 4}, {"48xlarge", 8}}};

const std::array kAws{
    AwsFamily{"p6-b200", "B200", 180, 0, {{{"48xlarge", 8}}}, "https://aws.amazon.com/ec2/instance-types/p6/", 480},
    AwsFamily{"p5en", "H200", 141, 0, {{{"48xlarge", 8}}}, "https://aws.amazon.com/ec2/instance-types/p5/", 480},
    AwsFamily{"p5e", "H200", 141, 0, {{{"48xlarge", 8}}}, "https://aws.amazon.com/ec2/instance-types/p5/", 480},
    AwsFamily{
        "p5", "H100", 80, 0, {{{"48xlarge", 8}, {"4xlarge", 1}}}, "https://aws.amazon.com/ec2/instance-types/p5/", 480},
    AwsFamily{"p4de", "A100 80GB", 80, 0, {{{"24xlarge", 8}}}, "https://aws.amazon.com/ec2/instance-types/p4/", 420},
    AwsFamily{"p4d", "A100 40GB", 40, 0, {{{"24xlarge", 8}}}, "https://aws.amazon.com/ec2/instance-types/p4/", 420},
    AwsFamily{"p3dn", "V100", 32, 0, {{{"24xlarge", 8}}}, "https://aws.amazon.com/ec2/instance-types/p3/", 420},
    AwsFamily{"p3",
              "V100",
              16,
              0,
              {{{"2xlarge", 1}, {"8xlarge", 4}, {"16xlarge", 8}}},
              "https://aws.amazon.com/ec2/instance-types/p3/",
              420},
    AwsFamily{"g6e", "L40S", 48, 1, kGSizes, "https://aws.amazon.com/ec2/instance-types/g6e/", 240},
    AwsFamily{"g6", "L4", 24, 1, kGSizes, "https://aws.amazon.com/ec2/instance-types/g6/", 240},
    AwsFamily{"g5", "A10G", 24, 1, kGSizes, "https://aws.amazon.com/ec2/instance-types/g5/", 240},
    AwsFamily{
        "g4dn", "T4", 16, 1, {{{"12xlarge", 4}, {"metal", 8}}}, "https://aws.amazon.com/ec2/instance-types/g4/", 240},
};

struct AzureSku {
  std::string_view arm_sku, model, family;
  int gpus;
  double memory_gb;
  std::string_view source;
};

constexpr std::string_view kAzureGpuSizes =
    "https://learn.microsoft.com/azure/virtual-machines/sizes/overview#gpu-accelerated";

const std::array kAzure{
    AzureSku{"Standard_ND96isr_H200_v5", "H200", "ND H200 v5", 8, 141, kAzureGpuSizes},
    AzureSku{"Standard_ND96isr_H100_v5", "H100", "ND H100 v5", 8, 80, kAzureGpuSizes},
    AzureSku{"Standard_NC40ads_H100_v5", "H100 NVL", "NCads H100 v5", 1, 94, kAzureGpuSizes},
    AzureSku{"Standard_NC80adis_H100_v5", "H100 NVL", "NCads H100 v5", 2, 94, kAzureGpuSizes},
    AzureSku{"Standard_ND96amsr_A100_v4", "A100 80GB", "NDm A100 v4", 8, 80, kAzureGpuSizes},
    AzureSku{"Standard_ND96asr_v4", "A100 40GB", "ND A100 v4", 8, 40, kAzureGpuSizes},
    AzureSku{"Standard_NC24ads_A100_v4", "A100 80GB", "NCads A100 v4", 1, 80, kAzureGpuSizes},
    AzureSku{"Standard_NC48ads_A100_v4", "A100 80GB", "NCads A100 v4", 2, 80, kAzureGpuSizes},
    AzureSku{"Standard_NC96ads_A100_v4", "A100 80GB", "NCads A100 v4", 4, 80, kAzureGpuSizes},
    AzureSku{"Standard_NV36ads_A10_v5", "A10", "NVads A10 v5", 1, 24, kAzureGpuSizes},
    AzureSku{"Standard_NV72ads_A10_v5", "A10", "NVads A10 v5", 2, 24, kAzureGpuSizes},
    AzureSku{"Standard_NC4as_T4_v3", "T4", "NCas T4 v3", 1, 16, kAzureGpuSizes},
    AzureSku{"Standard_NC8as_T4_v3", "T4", "NCas T4 v3", 1, 16, kAzureGpuSizes},
    AzureSku{"Standard_NC16as_T4_v3", "T4", "NCas T4 v3", 1, 16, kAzureGpuSizes},
    AzureSku{"Standard_NC64as_T4_v3", "T4", "NCas T4 v3", 4, 16, kAzureGpuSizes},
    AzureSku{"Standard_NC6s_v3", "V100", "NCv3", 1, 16, kAzureGpuSizes},
    AzureSku{"Standard_NC12s_v3", "V100", "NCv3", 2, 16, kAzureGpuSizes},
    AzureSku{"Standard_NC24s_v3", "V100", "NCv3", 4, 16, kAzureGpuSizes},
    AzureSku{"Standard_NC24rs_v3", "V100", "NCv3", 4, 16, kAzureGpuSizes},
    AzureSku{"Standard_ND40rs_v2", "V100", "NDv2", 8, 32, kAzureGpuSizes},
};

struct GcpGpu {
  std::string_view description_start;  ///< lower case, after "nvidia "
  std::string_view model;
  int max_gpus;
  double memory_gb;
};

// Checked in this order: the longer names first ("h100 80gb mega" before "h100 80gb").
const std::array kGcp{
    GcpGpu{"h200 141gb", "H200", 8, 141},      GcpGpu{"h100 80gb mega", "H100", 8, 80},
    GcpGpu{"h100 80gb", "H100", 8, 80},        GcpGpu{"a100 80gb", "A100 80GB", 8, 80},
    GcpGpu{"tesla a100", "A100 40GB", 16, 40}, GcpGpu{"l4", "L4", 8, 24},
    GcpGpu{"tesla t4", "T4", 4, 16},           GcpGpu{"tesla v100", "V100", 8, 16},
};
constexpr std::string_view kGcpSource = "https://cloud.google.com/compute/docs/gpus";

}  // namespace

std::optional<SkuGpu> aws_instance_gpu(std::string_view type) {
  const std::size_t dot = type.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view family = type.substr(0, dot), size = type.substr(dot + 1);
  for (const AwsFamily& f : kAws) {
    if (f.family != family) continue;
    int gpus = f.default_gpus;
    for (const SizeCount& s : f.sizes)
      if (!s.size.empty() && s.size == size) gpus = s.gpus;
    if (gpus == 0) return std::nullopt;
    return SkuGpu{std::string(f.model), gpus, f.memory_gb, f.family, f.source, f.cold_start_s};
  }
  return std::nullopt;
}

std::optional<SkuGpu> azure_sku_gpu(std::string_view arm_sku_name) {
  for (const AzureSku& s : kAzure)
    if (s.arm_sku == arm_sku_name) return SkuGpu{std::string(s.model), s.gpus, s.memory_gb, s.family, s.source};
  return std::nullopt;
}

std::optional<SkuGpu> gcp_gpu_description(std::string_view description) {
  // "Nvidia Tesla A100 GPU running in Americas", "Nvidia L4 GPU attached to Spot Preemptible VMs ..."
  std::string lower;
  for (const char c : description) lower += text::ascii_lower(c);
  const std::size_t at = lower.find("nvidia ");
  if (at == std::string::npos || lower.find("virtual workstation") != std::string::npos) return std::nullopt;
  const std::string_view rest = std::string_view(lower).substr(at + 7);
  for (const GcpGpu& g : kGcp)
    if (rest.starts_with(g.description_start) && rest.substr(g.description_start.size()).starts_with(" gpu"))
      return SkuGpu{std::string(g.model), g.max_gpus, g.memory_gb, g.description_start, kGcpSource};
  return std::nullopt;
}

std::vector<std::string_view> azure_gpu_skus() {
  std::vector<std::string_view> out;
  for (const AzureSku& s : kAzure) out.push_back(s.arm_sku);
  return out;
}

}  // namespace gpucost::prices

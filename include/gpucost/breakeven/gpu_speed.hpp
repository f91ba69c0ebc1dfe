// The GPU table (data/gpu-speed.toml, compiled in): per GPU model its peak dense tensor
// throughput (breakeven's cloud/local speed ratio when nothing else gives one), its board power
// limit and its memory, each with the datasheet it comes from; `gpucost gpus` lists it.
#pragma once

#include <gpucost/core/error.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

struct GpuSpeed {
  std::string model;
  std::vector<std::vector<std::string>> match;  ///< each a sequence of leading words
  std::optional<double> dense_tflops;           ///< none: no published figure
  std::optional<double> tdp_w;                  ///< the board's maximum power; none: variants differ, or none published
  std::optional<double> memory_gb;              ///< GPU memory as the datasheet states it; none likewise
  /// Peak memory bandwidth, GB/s, as the datasheet states it (the memory-bound end of a speed
  /// range); none: not at hand.
  std::optional<double> memory_bw_gbs;
  /// GPU-to-GPU bandwidth, GB/s (NVLink's total where the board has it, else its PCIe link), and
  /// its name ("NVLink 4, 18 links", "PCIe 4.0 x16"); none: not at hand.
  std::optional<double> interconnect_gbs;
  std::string interconnect;
  /// The board's power when no kernel runs (0 % utilisation, P0 where measured so), W;
  /// none: not measured (the estimate then assumes a share of tdp_w, docs/cost-model.md).
  std::optional<double> idle_w;
  std::string idle_source;  ///< where idle_w comes from (a measurement, rarely a datasheet)
  std::string precision, source, date_seen;
};

/// Parses a speed table (the TOML text of data/gpu-speed.toml).
Expected<std::vector<GpuSpeed>> parse_gpu_speeds(std::string_view toml_text, std::string_view origin);
/// The compiled-in table.
const std::vector<GpuSpeed>& gpu_speeds();

/// The words of a GPU name as the table matches them: lower case, split at spaces, dashes and
/// underscores (not at '/'), without "nvidia", "geforce", "tesla", "amd" and "instinct"
/// ("NVIDIA A100-SXM4-80GB" -> a100 sxm4 80gb; "AMD Instinct MI250X/MI250" -> mi250x/mi250).
std::vector<std::string> gpu_name_words(std::string_view name);
/// The entry whose longest `match` is a prefix of the name's words; none when no entry matches.
const GpuSpeed* find_gpu_speed(std::string_view name, const std::vector<GpuSpeed>& table = gpu_speeds());

/// A speed ratio from the table, with the sentence that says where it came from.
struct TableRatio {
  double ratio = 1;
  std::string source;  ///< "peak dense tensor TFLOPS H100 SXM 989.4 / RTX 4090 165.2 (data/gpu-speed.toml, ...)"
};
/// cloud / local from the table; none (with `why`) when either model is unknown or has no figure.
std::optional<TableRatio> table_speed_ratio(std::string_view local_model, std::string_view cloud_model,
                                            std::string* why = nullptr);

}  // namespace gpucost::breakeven

// The GPU table (data/gpu-speed.toml, compiled in): per GPU model its peak dense tensor throughput
// and peak memory bandwidth (the range of breakeven's cloud/local speed ratio when nothing else
// gives one), its interconnect, its board power limit and its memory, each with the document it
// comes from; `gpucost gpus` lists it.
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
  /// The models a name that does not tell its board may be (a bare "H100"); empty: one board.
  std::vector<std::string> variants;
  std::optional<double> dense_tflops;  ///< none: no published figure
  /// The accumulator of dense_tflops, "fp32" or "fp16" (GeForce datasheets print both, the FP16
  /// one at twice the rate): throughputs are only compared when it is the same.
  std::string accumulate;
  std::optional<double> tdp_w;      ///< the board's maximum power; none: variants differ, or none published
  std::optional<double> memory_gb;  ///< GPU memory as the datasheet states it; none likewise
  /// Peak memory bandwidth, GB/s, as the datasheet states it (the memory-bound end of a speed
  /// range); none: not at hand.
  std::optional<double> memory_bw_gbs;
  /// GPU-to-GPU bandwidth, GB/s (NVLink's total where the board has it, else its PCIe link), and
  /// its name ("NVLink 4, 18 links", "PCIe 4.0 x16"); none: not at hand.
  std::optional<double> interconnect_gbs;
  std::string interconnect;
  std::string bandwidth_source;  ///< where memory_bw_gbs and the interconnect come from; empty: `source`
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
/// "OPTION: 'NAME' is not in the GPU table", with the nearest model of the table as the hint.
Error unknown_gpu_error(std::string_view option, std::string_view name);

/// What besides its GPU name tells which board an offer rents: the instance and offer names
/// ("gpu_1x_h100_pcie", "H100 SXM pod") and the GPU memory per GPU, GB (0: not given).
struct GpuHints {
  std::string text;
  double memory_gb = 0;
};
/// The boards a name may be: one entry, or for a name with variants those of them that the
/// hints do not rule out (by form factor word: SXM, PCIe, NVL; by memory); none when the table
/// does not know the name.
struct GpuIdentity {
  std::vector<const GpuSpeed*> boards;
  std::string basis;  ///< how an ambiguous name was read ("'H100' read as H100 PCIe (from: pcie)"); empty otherwise
};
GpuIdentity identify_gpu(std::string_view name, const GpuHints& hints = {},
                         const std::vector<GpuSpeed>& table = gpu_speeds());

/// The share of a step that a faster GPU does not shorten (kernel launches, input, host work),
/// which pulls the ratio nearer 1: the speed range's end nearer 1 and its middle allow for it.
/// Fitted to measured training throughputs (docs/cost-model.md, "Speed ratio", validation).
inline constexpr double kSpeedFixedShare = 0.3;

/// The speed ratio of one GPU over another for training when nothing was measured
/// (docs/cost-model.md, "Speed ratio"): from the memory-bound ratio (peak memory bandwidths) to
/// the compute-bound one (peak dense throughputs of the same kind), the end nearer 1 moved
/// towards 1 by kSpeedFixedShare; the middle is the geometric mean of the two ratios, moved
/// likewise. Across variants: the lowest low, the highest high, the geometric mean of the middles.
struct SpeedRange {
  double low = 1, middle = 1, high = 1;
  std::string low_basis, middle_basis, high_basis;  ///< what each rests on, in words
  std::string from_model, to_model;                 ///< the entries compared ("H100 SXM / H100 PCIe" for variants)
  std::string identification;  ///< how an ambiguous name was read, and variants left out; empty when none
  std::string date_seen;       ///< the later of the entries' dates
  /// "a range x2.09 .. x5.99, middle x3.07: low ..., high ..., middle ... (data/gpu-speed.toml, seen ...)"
  [[nodiscard]] std::string sentence() const;
};
/// `to` over `from` for two table entries; none (with `why`) when either lacks a bandwidth or a
/// throughput, or their throughputs are of different kinds.
std::optional<SpeedRange> speed_ratio_range(const GpuSpeed& from, const GpuSpeed& to, std::string* why = nullptr);
/// `to` over `from` by name: each identified (identify_gpu; `to_hints` for an offer's GPU), over
/// every pair of boards they may be; none (with `why`) when a name is unknown or no pair has figures.
std::optional<SpeedRange> speed_ratio_range(std::string_view from_name, std::string_view to_name,
                                            const GpuHints& to_hints = {}, std::string* why = nullptr);
/// `gpucost gpus --speed FROM TO`: the range of TO over FROM, or an error naming the unknown model
/// with the nearest names of the table, or why the two cannot be compared.
Expected<SpeedRange> compare_gpu_speed(std::string_view from_name, std::string_view to_name);

}  // namespace gpucost::breakeven

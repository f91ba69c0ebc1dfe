// The speed ratio projected from this job's own trace (docs/cost-model.md, "Speed projected from
// the trace"): each part of the step scaled by the ratio of what bounds it on the two GPUs — dense
// tensor throughput, memory bandwidth, the interconnect — and CPU, launch and idle time unchanged.
#pragma once

#include <gpucost/breakeven/gpu_speed.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::extract {
struct TraceStepSplit;  // extract/features.hpp: the config (which holds a projection) needs none of it
}

namespace gpucost::breakeven {

/// One step on the local GPU and projected to the other, s (a mean over the traces' steps).
struct SpeedProjection {
  std::string local_model, cloud_model;  ///< the GPU table's names of the two GPUs
  /// cloud / local of each bound's figure; 1 where the part is empty and the figure not needed.
  double tensor_ratio = 1, memory_ratio = 1, interconnect_ratio = 1;
  std::int64_t steps = 0;  ///< steps the mean is over
  bool marked = false;     ///< false: no ProfilerStep marks, the traces' GPU spans stand for the step
  double local_step_s = 0, projected_step_s = 0;
  double tensor_s = 0, memory_s = 0, unknown_s = 0, comm_s = 0, rest_s = 0;  ///< local parts
  double tensor_projected_s = 0, memory_projected_s = 0, unknown_projected_s = 0, comm_projected_s = 0;
  double unknown_kernel_share = 0;  ///< of the summed kernel time, the share no name rule claims
  /// The GPU-busy part of the step (every part but the rest), local and projected, s.
  [[nodiscard]] double busy_s() const { return local_step_s - rest_s; }
  [[nodiscard]] double busy_projected_s() const { return projected_step_s - rest_s; }
  /// The speed ratio the cost model takes: of the busy part, since q = (1 - ū) + ū / ratio keeps
  /// the idle share (1 - ū) unchanged already; the whole step's ratio would count it twice.
  [[nodiscard]] double ratio() const { return busy_projected_s() > 0 ? busy_s() / busy_projected_s() : 1.0; }
  /// The whole step's: local step / projected step (CPU, launch and idle unchanged).
  [[nodiscard]] double step_ratio() const { return projected_step_s > 0 ? local_step_s / projected_step_s : 1.0; }
};

/// Projects the traces' mean step from `local_model` to `cloud_model` with the figures of `table`;
/// none (with `why`, e.g. "memory bandwidth of RTX 4090 not in data/gpu-speed.toml") when a GPU is
/// not in the table or lacks a figure a non-empty part needs.
std::optional<SpeedProjection> project_speed(const extract::TraceStepSplit& split, std::string_view local_model,
                                             std::string_view cloud_model, const std::vector<GpuSpeed>& table,
                                             std::string* why = nullptr);

/// "speed x2.2 projected from this job's trace (RTX 4090 -> H100 SXM): GPU busy 310 -> 141 ms a step; step
/// 412 -> 243 ms (x1.7, CPU/launch/idle 102 ms unchanged); tensor 180 -> 30 ms, ...".
std::string speed_projection_text(const SpeedProjection& p);
/// The ratios behind it, for speed_ratio_basis: "trace: tensor x5.99 (dense TFLOPS ...), ...".
std::string speed_projection_basis(const SpeedProjection& p);

}  // namespace gpucost::breakeven

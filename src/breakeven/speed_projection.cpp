#include <gpucost/breakeven/speed_projection.hpp>

#include <gpucost/extract/features.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpucost::breakeven {

namespace {

/// A figure of both GPUs as a ratio cloud / local; none (with why) when either lacks it.
std::optional<double> figure_ratio(const GpuSpeed& local, const GpuSpeed& cloud, std::optional<double> GpuSpeed::*field,
                                   std::string_view what, std::string* why) {
  for (const GpuSpeed* g : {&local, &cloud})
    if (!(g->*field)) {
      if (why != nullptr) *why = fmt::format("{} of {} not in data/gpu-speed.toml", what, g->model);
      return std::nullopt;
    }
  return *(cloud.*field) / *(local.*field);
}

/// Milliseconds with the digits a step time needs: 412, 41.2, 4.12, 0.41.
std::string ms(double s) {
  const double v = s * 1e3;
  if (v >= 100 || v == 0) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

}  // namespace

std::optional<SpeedProjection> project_speed(const extract::TraceStepSplit& split, std::string_view local_model,
                                             std::string_view cloud_model, const std::vector<GpuSpeed>& table,
                                             std::string* why) {
  const auto fail = [&](std::string reason) -> std::optional<SpeedProjection> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  if (split.several_models) return fail("the traces ran on several GPU models");
  if (local_model.empty()) return fail("the trace names no GPU model (deviceProperties)");
  if (split.steps <= 0 || split.window_ns <= 0) return fail("the trace's steps last 0 s");
  if (split.window_ns - split.rest_ns <= 0) return fail("no GPU work in the trace's steps");
  const GpuSpeed* local = find_gpu_speed(local_model, table);
  const GpuSpeed* cloud = find_gpu_speed(cloud_model, table);
  if (local == nullptr) return fail(fmt::format("'{}' is not in data/gpu-speed.toml", local_model));
  if (cloud == nullptr) return fail(fmt::format("'{}' is not in data/gpu-speed.toml", cloud_model));

  SpeedProjection p;
  p.local_model = local->model;
  p.cloud_model = cloud->model;
  p.steps = split.steps;
  p.marked = split.marked;
  const double per_step = 1e-9 / static_cast<double>(split.steps);  // ns summed over steps -> s per step
  p.tensor_s = static_cast<double>(split.tensor_ns) * per_step;
  p.memory_s = static_cast<double>(split.memory_ns) * per_step;
  p.unknown_s = static_cast<double>(split.unknown_ns) * per_step;
  p.comm_s = static_cast<double>(split.exposed_comm_ns) * per_step;
  p.rest_s = static_cast<double>(split.rest_ns) * per_step;
  p.local_step_s = static_cast<double>(split.window_ns) * per_step;
  p.unknown_kernel_share = split.unknown_kernel_share();

  // Only the figures a non-empty part needs: a trace without collectives needs no interconnect.
  // Kernels of unknown bound take the lower of the two GPU ratios: neither bound's whole gain.
  std::string reason;
  if (split.tensor_ns > 0 || split.unknown_ns > 0) {
    const auto r = figure_ratio(*local, *cloud, &GpuSpeed::dense_tflops, "dense tensor throughput", &reason);
    if (!r) return fail(reason);
    p.tensor_ratio = *r;
  }
  if (split.memory_ns > 0 || split.unknown_ns > 0) {
    const auto r = figure_ratio(*local, *cloud, &GpuSpeed::memory_bw_gbs, "memory bandwidth", &reason);
    if (!r) return fail(reason);
    p.memory_ratio = *r;
  }
  if (split.exposed_comm_ns > 0) {
    const auto r = figure_ratio(*local, *cloud, &GpuSpeed::interconnect_gbs, "interconnect bandwidth", &reason);
    if (!r) return fail(reason);
    p.interconnect_ratio = *r;
  }
  p.tensor_projected_s = p.tensor_s / p.tensor_ratio;
  p.memory_projected_s = p.memory_s / p.memory_ratio;
  p.unknown_projected_s = p.unknown_s / std::min(p.tensor_ratio, p.memory_ratio);
  p.comm_projected_s = p.comm_s / p.interconnect_ratio;
  p.projected_step_s =
      p.tensor_projected_s + p.memory_projected_s + p.unknown_projected_s + p.comm_projected_s + p.rest_s;
  return p;
}

std::string speed_projection_text(const SpeedProjection& p) {
  std::string parts = fmt::format("tensor {} -> {} ms, memory {} -> {} ms", ms(p.tensor_s), ms(p.tensor_projected_s),
                                  ms(p.memory_s), ms(p.memory_projected_s));
  if (p.unknown_s > 0)
    parts += fmt::format(", unknown kernels {} -> {} ms ({:.0f} % of kernel time)", ms(p.unknown_s),
                         ms(p.unknown_projected_s), p.unknown_kernel_share * 100);
  parts += p.comm_s > 0 ? fmt::format(", exposed comm {} -> {} ms", ms(p.comm_s), ms(p.comm_projected_s))
                        : std::string(", no exposed comm");
  return fmt::format(
      "speed x{:.3g} projected from this job's trace ({} -> {}): GPU busy {} -> {} ms a {}; {} {} -> {} ms (x{:.3g}, "
      "CPU/launch/idle {} ms unchanged); {}",
      p.ratio(), p.local_model, p.cloud_model, ms(p.busy_s()), ms(p.busy_projected_s()), p.marked ? "step" : "GPU span",
      p.marked ? "step" : "span", ms(p.local_step_s), ms(p.projected_step_s), p.step_ratio(), ms(p.rest_s), parts);
}

std::string speed_projection_basis(const SpeedProjection& p) {
  const std::string of = p.marked ? fmt::format("mean of {} steps", p.steps) : std::string("GPU span, no step marks");
  return fmt::format(
      "trace ({}): step {} -> {} ms; tensor x{:.3g} (dense TFLOPS), memory x{:.3g} (memory bandwidth), interconnect "
      "x{:.3g}, CPU/launch/idle x1 ({} -> {}, data/gpu-speed.toml; peak ratios per part, kernel names as the bound)",
      of, ms(p.local_step_s), ms(p.projected_step_s), p.tensor_ratio, p.memory_ratio, p.interconnect_ratio,
      p.local_model, p.cloud_model);
}

}  // namespace gpucost::breakeven

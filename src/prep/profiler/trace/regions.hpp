// Annotated regions of a trace (docs/formats.md, "Annotated regions"): per record_function
// name, its calls, CPU time and GPU time over the steps analysed, so a report can give each
// region its share of the step and its price.
#pragma once

#include "trace.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prep::trace {

/// Where a region's GPU time comes from.
enum class RegionGpuSource : std::uint8_t {
  none,         ///< no GPU annotation and no GPU op launched inside it
  annotation,   ///< its gpu_user_annotation ranges
  launched_ops  ///< the GPU ops whose launch call (on any thread) starts inside its CPU ranges
};
std::string_view to_string(RegionGpuSource s);

struct RegionRow {
  std::string name;
  std::string parent;  ///< the region enclosing its first call on its thread; empty: top level
  int depth = 0;       ///< regions around its first call (0: top level)
  std::uint64_t calls = 0, gpu_calls = 0;
  std::uint64_t threads = 0, devices = 0;
  /// Inclusive: Σ over threads of the union of its ranges (a region called inside itself counts once).
  std::int64_t cpu_ns = 0;
  std::int64_t annotated_gpu_ns = 0;  ///< Σ over devices of the union of its gpu_user_annotation ranges
  std::int64_t launched_gpu_ns = 0;   ///< Σ over devices of the union of the ops launched while it was open
  std::int64_t first_ns = 0;          ///< start of its first range (trace clock)
  RegionGpuSource gpu_source = RegionGpuSource::none;
  [[nodiscard]] std::int64_t gpu_ns() const {
    return gpu_source == RegionGpuSource::annotation ? annotated_gpu_ns : launched_gpu_ns;
  }
};

struct RegionReport {
  std::vector<RegionRow> rows;  ///< by CPU time, longest first
  std::int64_t steps = 0;       ///< ProfilerStep marks the regions were counted over (0: none)
  std::int64_t step_ns = 0;     ///< their mean length
  std::int64_t steps_ns = 0;    ///< their total length (a region's share of the steps: cpu_ns / steps_ns)
};

/// The regions of `data` counted over `steps`: with `restricted` (--steps) the ranges that start
/// from the first of `steps` to the start of the step mark after the last one, else every range
/// of the trace; `steps` also gives the per-step figures (none when empty).
RegionReport analyse_regions(const TraceData& data, const std::vector<StepMark>& steps, bool restricted);

}  // namespace gpucost::prep::trace

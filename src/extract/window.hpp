// The job window a features document covers: the flags' --from/--to, else a training log's start
// and end, else the first and last sample (of telemetry, else of the traces' GPU spans, else of
// the kernel and system incidents).
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/extract/extract.hpp>

#include <cstdint>
#include <vector>

namespace gpucost::extract::detail {

/// What the window was chosen from, beside the window itself (in the Features).
struct Window {
  std::int64_t lo = 0, hi = 0;  ///< the span the window was taken from (the samples'), for messages
  std::vector<int> trace_gpus;  ///< GPUs only profiler traces give (no telemetry at all), ascending
  bool host_only = false;       ///< kernel and system logs alone: no GPU
  bool trainlog_only = false;   ///< a training log alone (its start and end): no GPU, no energy
  /// hi is an end that is not part of the job (a Slurm job's End, as --to's): [lo, hi).
  bool hi_exclusive = false;
};

/// Chooses the window: sets f's from_ns, to_ns, to_exclusive and chosen_by, and its host and
/// logs_tz. Fails when there is nothing to take a window from, or the flags' window is empty.
Expected<Window> choose_window(const SampleCollector& samples, const ExtractOptions& options, Features& f);

}  // namespace gpucost::extract::detail

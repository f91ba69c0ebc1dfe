// Stage 2, extract: telemetry samples -> per-GPU and host indicators over a job window. The
// driver: a SampleCollector fed with events in, a features document (features.hpp) out.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace gpucost::extract {

struct ExtractOptions {
  /// --from (inclusive) / --to (exclusive, so that consecutive windows tile time: a sample at
  /// 11:00:00 belongs to the window from 11:00, not to the one that ends then); else the first
  /// and the last sample, both inside.
  std::optional<std::int64_t> from_ns, to_ns;
  double temp_threshold_c = 78.0;
  /// The chain (F106-F113): an error counts after a crossing when it comes within this long.
  double chain_window_s = 300.0;
  /// Fault members within this of the previous one are one fault (docs/cost-model.md, "Faults").
  double fault_window_s = kDefaultFaultWindowS;
  /// -j: the GPUs' walks run on up to this many threads; the numbers are the same for any value.
  unsigned jobs = 1;
  /// --slurm-job: the Slurm job among the inputs' `job` events whose start and end are the window
  /// (flags still win); empty: the only job there is, if any (several: an error naming them).
  std::string slurm_job;
  /// --tokens-per-step / --samples-per-step: the work of one optimizer step when the training log
  /// does not count tokens or samples itself (work_tokens, work_samples = work_steps x this).
  std::optional<double> tokens_per_step, samples_per_step;
};

/// Computes every indicator. Fails when there is no sample at all to choose a window from.
Expected<Features> compute_features(const SampleCollector& samples, const ExtractOptions& options);

/// The one-line warning when the window is a Slurm job's and the telemetry's host is not among
/// the job's nodes (its NodeList): it names the host and the node list. Empty when the host is
/// one of them, or the features hold no single job and host (merged documents) to compare.
std::string slurm_host_warning(const Features& features);

// ---- the statistics, exposed for unit tests -----------------------------------------------

/// Intervals between samples longer than this are gaps: max(10 s, 5 x median interval).
double gap_limit_s(double median_interval_s);

}  // namespace gpucost::extract

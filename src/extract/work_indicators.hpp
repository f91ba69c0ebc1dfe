// The work the job did (steps, samples, tokens, epochs, from the training logs) and the energy
// per unit of it (F079-F081, F084-F087, F111, F114; docs/indicators.md, "Work").
#pragma once

#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

#include <optional>

namespace gpucost::extract::detail {

/// --tokens-per-step and --samples-per-step (none: not given).
struct WorkOptions {
  std::optional<double> tokens_per_step, samples_per_step;
};

/// work_steps, work_samples, work_tokens and work_epochs of the window, then work_ratios.
void work_indicators(const SampleCollector& c, const WorkOptions& options, Features& f);

/// tokens_per_s and the energies per unit of work, from the host's work counts, wall time and
/// energy_kwh (extract, and merge after it merged those).
void work_ratios(Features& f);

}  // namespace gpucost::extract::detail

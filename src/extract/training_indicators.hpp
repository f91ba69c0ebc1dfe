// The job's own records on the host: profiler steps and traces, a training log's throughput
// (F132-F137) and the --pattern lines (F045, F046).
#pragma once

#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

namespace gpucost::extract::detail {

/// Profiler steps and traces (F132-F134) and the training log's throughput (F135, F136).
void training_indicators(const SampleCollector& c, const Features& f, IndicatorSet& out);

/// --pattern lines in the window: how many, and their summed durations.
void pattern_indicators(const SampleCollector& c, const Features& f, IndicatorSet& out);

/// The training log's checkpoints in the window (Features::checkpoints): the work a spot
/// interruption loses (docs/cost-model.md, "Spot: interruptions priced").
void checkpoint_summary(const SampleCollector& c, Features& f);

}  // namespace gpucost::extract::detail

// The indicators of profiler traces, profiler tables and nsys summaries (F028-F044, F124-F131),
// per GPU and for the host. Like every trace indicator they are the traces', not cut by the
// window.
#pragma once

#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

namespace gpucost::extract::detail {

/// Trace indicators per GPU (for the GPUs of the features) and for the host.
void add_trace_indicators(const SampleCollector& c, Features& f);

}  // namespace gpucost::extract::detail

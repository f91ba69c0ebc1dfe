// The processes on each GPU: nvidia-smi pmon's rows (F120, F122-F125) and the device files
// gpucost record saw held (F127, F131); docs/indicators.md, "Processes".
#pragma once

#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

namespace gpucost::extract::detail {

/// The process indicators of every GPU and of the host.
void process_indicators(const SampleCollector& c, Features& f);

}  // namespace gpucost::extract::detail

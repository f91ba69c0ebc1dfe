// The indicators of each GPU over the window, from one walk of its samples, and the host's
// values that come from the GPUs' (sums, maxima, minima, means).
#pragma once

#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_store.hpp>

#include "host_events.hpp"

#include <array>
#include <string_view>

namespace gpucost::extract::detail {

/// What each GPU's walk feeds besides its own indicators.
struct HostWalks {
  GpuWalkSummary& summary;
  EnergyProfile& profile;
  double filled_j = 0, energy_j = 0;
};

/// One GPU over the window, in two reads of its samples: the intervals first (the gap limit
/// needs their median), then every walk at once. False when no sample falls in the window.
/// `readers_at_once`: how many GPUs are walked at the same time (-j), to share the read memory.
bool gpu_indicators(const SampleStore& store, int gpu, const Features& window, double threshold, GpuFeatures& g,
                    HostWalks& host, std::size_t readers_at_once = 1);

/// The telemetry indicators of a GPU that only a trace gives: absent, with the reason.
void no_telemetry(IndicatorSet& out);

/// The host-only indicators host_from_gpus sets besides the GPUs' own: merge recomputes them too.
inline constexpr std::array<std::string_view, 2> kHostKeysFromGpus = {"gpu_count", "coverage_min"};

/// The host indicators that come from the GPUs' (extract and merge): sums, maxima, minima or
/// means by key (docs/indicators.md), and the host's ratios of summed quantities.
void host_from_gpus(Features& f, double filled_j, double energy_j);

}  // namespace gpucost::extract::detail

// The extract stage: per-GPU time-weighted statistics over the job window, and the host's. The
// stage in order; its parts are:
//   sample_collector.cpp     the events kept: samples, incidents, trace and training records
//   window.cpp               the job window and what chose it
//   gpu_indicators.cpp       each GPU's walk over its samples (gpu_stats, series_passes); host values from the GPUs
//   incident_counts.cpp      the window's kernel and system incident counts, the Xid rate
//   host_events.cpp          incidents with downtime, faults (faults.cpp), the chain, sessions
//   trace_indicators.cpp     profiler traces, tables and nsys summaries
//   training_indicators.cpp  profiler steps, training throughput, --pattern lines
// Every formula is in docs/indicators.md; the unit tests recompute them by hand.
#include <gpucost/extract/extract.hpp>

#include <gpucost/core/time.hpp>

#include "gpu_indicators.hpp"
#include "host_events.hpp"
#include "incident_counts.hpp"
#include "trace_indicators.hpp"
#include "training_indicators.hpp"
#include "window.hpp"

#include <fmt/format.h>

namespace gpucost::extract {

Expected<Features> compute_features(const SampleCollector& samples, const ExtractOptions& options) {
  const SampleStore& store = samples.store();
  if (!store.status()) return store.status().error();
  if (!samples.incidents().status()) return samples.incidents().status().error();
  Features f;
  const Expected<detail::Window> window = detail::choose_window(samples, options, f);
  if (!window) return window.error();

  detail::GpuWalkSummary summary;
  detail::HostWalks walks{summary, f.energy_profile};
  for (const int gpu : store.gpus()) {
    GpuFeatures g;
    g.gpu = gpu;
    if (detail::gpu_indicators(store, gpu, f, options.temp_threshold_c, g, walks)) f.gpus.push_back(std::move(g));
  }
  for (int gpu : window->trace_gpus) {  // trace-only GPUs (no telemetry at all)
    GpuFeatures g;
    g.gpu = gpu;
    set_value(g.indicators, "wall_s", f.wall_s());
    detail::no_telemetry(g.indicators);
    f.gpus.push_back(std::move(g));
  }
  if (f.gpus.empty() && !window->host_only)
    return make_error(ErrorKind::usage, "--from/--to: no sample falls inside the window",
                      fmt::format("the samples run from {} to {}", format_utc(window->lo), format_utc(window->hi)));
  detail::host_from_gpus(f, walks.filled_j, walks.energy_j);
  detail::incident_indicators(samples, f, f.host_indicators);
  detail::window_pass(samples, summary, {options.chain_window_s, options.fault_window_s}, f);
  detail::session_indicators(samples, f);
  // A read of a temporary file failed: the indicators above would miss what it held.
  if (!store.status()) return store.status().error();
  if (!samples.incidents().status()) return samples.incidents().status().error();
  detail::add_trace_indicators(samples, f);
  detail::pattern_indicators(samples, f, f.host_indicators);
  detail::training_indicators(samples, f, f.host_indicators);
  return f;
}

}  // namespace gpucost::extract

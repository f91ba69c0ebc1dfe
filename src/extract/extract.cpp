// The extract stage: per-GPU time-weighted statistics over the job window, and the host's. The
// stage in order; its parts are:
//   sample_collector.cpp     the events kept: samples, incidents, trace and training records
//   window.cpp               the job window and what chose it
//   gpu_indicators.cpp       each GPU's walk over its samples (gpu_stats, series_passes); host values from the GPUs
//   incident_counts.cpp      the window's kernel and system incident counts, the Xid rate
//   host_events.cpp          incidents with downtime, faults (faults.cpp), the chain, sessions
//   trace_indicators.cpp     profiler traces, tables and nsys summaries
//   training_indicators.cpp  profiler steps, training throughput, --pattern lines
//   work_indicators.cpp      the work done (steps, samples, tokens, epochs) and energy per unit of it
//   process_indicators.cpp   the processes on each GPU (pmon) and those holding its device files
//   process_list.cpp         the per-process list (pmon joined with the scan): breakeven --by
// Every formula is in docs/indicators.md; the unit tests recompute them by hand.
#include <gpucost/extract/extract.hpp>

#include <gpucost/core/parallel.hpp>
#include <gpucost/core/time.hpp>

#include "gpu_indicators.hpp"
#include "host_events.hpp"
#include "incident_counts.hpp"
#include "process_indicators.hpp"
#include "process_list.hpp"
#include "rank_indicators.hpp"
#include "trace_indicators.hpp"
#include "training_indicators.hpp"
#include "window.hpp"
#include "work_indicators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace gpucost::extract {

namespace {

/// One GPU's walk and what it feeds the host's, kept apart until every GPU is done.
struct GpuWalk {
  GpuFeatures g;
  bool any = false;
  detail::GpuWalkSummary summary;
  EnergyProfile profile;
  double filled_j = 0, energy_j = 0;
};

/// Every GPU's indicators, the GPUs walked side by side (-j): each walk has its own summary and
/// energy profile, added to the host's in GPU order, so any -j gives -j 1's numbers.
void walk_gpus(const SampleStore& store, const ExtractOptions& options, Features& f, detail::HostWalks& host) {
  const std::vector<int> gpus = store.gpus();
  std::vector<GpuWalk> walks(gpus.size());
  const std::size_t readers = std::min<std::size_t>(std::max(1U, options.jobs), gpus.size());
  parallel_for(options.jobs, gpus.size(), [&](std::size_t i) {
    GpuWalk& w = walks[i];
    w.g.gpu = gpus[i];
    detail::HostWalks own{w.summary, w.profile};
    w.any = detail::gpu_indicators(store, gpus[i], f, options.temp_threshold_c, w.g, own, readers);
    w.filled_j = own.filled_j;
    w.energy_j = own.energy_j;
  });
  for (GpuWalk& w : walks) {
    if (!w.any) continue;
    host.summary.utilisation = host.summary.utilisation || w.summary.utilisation;
    host.summary.temperature = host.summary.temperature || w.summary.temperature;
    host.summary.crossings.insert(host.summary.crossings.end(), w.summary.crossings.begin(), w.summary.crossings.end());
    for (const auto& [minute, kwh] : w.profile.kwh_by_minute) host.profile.add_minute(minute, kwh);
    host.filled_j += w.filled_j;
    host.energy_j += w.energy_j;
    f.gpus.push_back(std::move(w.g));
  }
}

/// The features of one host's collector.
Expected<Features> features_of_host(const SampleCollector& samples, const ExtractOptions& options) {
  const SampleStore& store = samples.store();
  if (!store.status()) return store.status().error();
  if (!samples.incidents().status()) return samples.incidents().status().error();
  Features f;
  const Expected<detail::Window> window = detail::choose_window(samples, options, f);
  if (!window) return window.error();

  detail::GpuWalkSummary summary;
  detail::HostWalks walks{summary, f.energy_profile};
  walk_gpus(store, options, f, walks);
  for (int gpu : window->trace_gpus) {  // trace-only GPUs (no telemetry at all)
    GpuFeatures g;
    g.gpu = gpu;
    set_value(g.indicators, "wall_s", f.wall_s());
    detail::no_telemetry(g.indicators);
    f.gpus.push_back(std::move(g));
  }
  if (f.gpus.empty() && !window->host_only && !window->trainlog_only)
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
  detail::checkpoint_summary(samples, f);
  detail::work_indicators(samples, {options.tokens_per_step, options.samples_per_step}, f);
  detail::process_indicators(samples, f);
  f.processes = detail::process_list(samples, f);
  for (extract::TraceJob& job : samples.trace_jobs())
    if (job.ranks.size() >= 2 || job.comm_ns > 0) f.trace_jobs.push_back(std::move(job));
  detail::rank_indicators(f.trace_jobs, f.host_indicators);
  return f;
}

/// The one document's `member` when exactly one of them has one (a job's training log or trace
/// is read on one host), else its empty value.
template <typename T>
std::optional<T> only_one(const std::vector<Features>& docs, std::optional<T> Features::*member) {
  const std::optional<T>* found = nullptr;
  for (const Features& f : docs) {
    if (!(f.*member)) continue;
    if (found != nullptr) return std::nullopt;
    found = &(f.*member);
  }
  return found != nullptr ? *found : std::nullopt;
}

/// A job on several nodes: each host's features, merged as `gpucost merge` merges the documents
/// of one extract per host (docs/cluster.md, "A job on several nodes"), so that its GPUs are
/// (host, index) and the sums are exact.
Expected<Features> features_of_hosts(const SampleCollector& samples, const ExtractOptions& options) {
  std::vector<Features> docs;
  std::vector<const SampleCollector*> hosts{&samples};
  for (const auto& other : samples.other_hosts()) hosts.push_back(other.get());
  for (const SampleCollector* host : hosts) {
    Expected<Features> f = features_of_host(*host, options);
    if (!f) {
      Error e = f.error();
      e.message = fmt::format("host {}: {}", host->host(), e.message);
      return e;
    }
    docs.push_back(std::move(*f));
  }
  const std::string chosen_by = docs.front().chosen_by;
  const bool one_choice =
      std::all_of(docs.begin(), docs.end(), [&](const Features& f) { return f.chosen_by == chosen_by; });
  const auto checkpoints = only_one(docs, &Features::checkpoints);
  const auto trace_split = only_one(docs, &Features::trace_split);
  Expected<Features> merged = merge_features(std::move(docs));
  if (!merged) return merged;
  merged->merged_from = 1;  // one run's document, not a merge of documents
  if (one_choice) merged->chosen_by = chosen_by;
  merged->checkpoints = checkpoints;
  merged->trace_split = trace_split;
  return merged;
}

}  // namespace

Expected<Features> compute_features(const SampleCollector& samples, const ExtractOptions& options) {
  return samples.other_hosts().empty() ? features_of_host(samples, options) : features_of_hosts(samples, options);
}

}  // namespace gpucost::extract

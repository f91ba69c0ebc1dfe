// gpucost merge: features documents of several hosts and/or consecutive windows into one
// (docs/indicators.md, Merging). Every mergeable GPU indicator is recomputed from the summed
// partials and the merged quantile sketches by the same code as extract's; the rest are null
// unless one document gives them.
#include <gpucost/core/time.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/features.hpp>

#include "faults.hpp"
#include "gpu_indicators.hpp"
#include "gpu_stats.hpp"
#include "host_events.hpp"
#include "incident_counts.hpp"
#include "process_list.hpp"
#include "rank_indicators.hpp"
#include "work_indicators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>

namespace gpucost::extract {

namespace {

const std::string kNotMergeable = "not mergeable from summaries";

/// How the documents relate: consecutive windows of one host, or each host once (a fleet).
enum class Docs { windows, one_per_host };

// Indicators that are plain sums of the documents' values (trace and trainlog; host counts).
// The chain's counts and the session stretches are sums only across different hosts: between
// consecutive windows of one host a crossing's errors or a suspend can fall in the next.
// The processes' counts and memory are sums only across hosts: a process can run in consecutive
// windows of one host. The work counts (steps, tokens) are sums only across windows: two hosts'
// training logs may be the ranks of one job, each counting its steps.
bool is_summed(const IndicatorDef& d, Docs docs) {
  if (d.category == "processes")
    return docs == Docs::one_per_host && (d.unit == "count" || d.unit == "MiB") && d.key != "processes_max";
  if (d.category == "work") return docs == Docs::windows && d.unit == "count";
  if (docs == Docs::one_per_host && ((d.category == "chain" && d.unit == "count") || d.key == "battery_s" ||
                                     d.key == "suspend_s" || d.key == "gpu_unavailable_s"))
    return true;
  return (d.unit == "count" && d.category != "thermal" && d.category != "chain") || d.key == "gpu_busy_s" ||
         d.key == "memcpy_s" || d.key == "pattern_duration_s" || d.key == "downtime_s";
}

/// Indicators whose merged value is the largest of the documents' (none is summed or recomputed).
bool is_maximum(const IndicatorDef& d) { return d.key == "processes_max"; }

/// The indicators version 2 added (docs/indicators.md, "Changes in version 2"): a version-1
/// document has neither them nor the partials they come from.
constexpr std::array<std::string_view, 32> kAddedInVersion2 = {"sm_active_mean",
                                                               "tensor_active_mean",
                                                               "sm_occupancy_mean",
                                                               "dram_active_mean",
                                                               "fp16_active_mean",
                                                               "fp32_active_mean",
                                                               "fp64_active_mean",
                                                               "sm_active_busy",
                                                               "nvlink_tx_mean_mb_s",
                                                               "nvlink_rx_mean_mb_s",
                                                               "work_steps",
                                                               "work_samples",
                                                               "work_tokens",
                                                               "work_epochs",
                                                               "tokens_per_s",
                                                               "energy_per_step_wh",
                                                               "energy_per_1k_samples_wh",
                                                               "energy_per_1k_tokens_wh",
                                                               "energy_per_epoch_kwh",
                                                               "idle_energy_share",
                                                               "processes",
                                                               "processes_max",
                                                               "top_process_share",
                                                               "idle_processes",
                                                               "idle_process_fb_mib",
                                                               "handle_holders",
                                                               "other_handle_holders",
                                                               "fb_used_mean_mib",
                                                               "collective_wait_fraction",
                                                               "exposed_comm_fraction",
                                                               "comm_overlap_fraction",
                                                               "straggler_step_share"};

/// The indicators version 2 added are null in a merge of a version-1 document, saying why.
void note_old_versions(const std::vector<Features>& docs, Features& m) {
  const bool old = std::any_of(docs.begin(), docs.end(), [](const Features& f) { return f.version < 2; });
  if (!old) return;
  const std::string why =
      "a merged document is gpucost.features version 1, written before this indicator existed: re-run gpucost extract";
  const auto fill = [&](IndicatorSet& set, bool host) {
    for (const std::string_view key : kAddedInVersion2) {
      const IndicatorDef* d = find_indicator(key);
      if (d != nullptr && (host ? d->scope != Scope::gpu_only : d->scope != Scope::host_only))
        set_absent(set, IndicatorKey::of(key), why);
    }
  };
  fill(m.host_indicators, true);
  for (GpuFeatures& g : m.gpus) fill(g.indicators, false);
}

/// A work count of several hosts: the one host's whose training log counted it; several hosts'
/// may be the ranks of one job (each logs the job's steps) or separate jobs, which the summaries
/// cannot tell apart.
void merge_hosts_work(const std::string& key, const std::vector<const IndicatorSet*>& sets, IndicatorSet& out) {
  const IndicatorValue* only = nullptr;
  std::size_t with_value = 0;
  for (const IndicatorSet* s : sets) {
    const auto it = s->find(key);
    if (it == s->end()) continue;
    if (it->second.value) ++with_value;
    if (only == nullptr || (it->second.value && !only->value)) only = &it->second;
  }
  if (only == nullptr) return;
  if (with_value <= 1)
    out[key] = *only;
  else
    set_absent(out, IndicatorKey::of(key),
               fmt::format("{}: the training logs of {} hosts may count one job's work each (its ranks) or "
                           "separate jobs'",
                           kNotMergeable, with_value));
}

/// An indicator that the partials do not give: summed where that is exact, the value itself
/// when one document gives it, else null.
void merge_plain(const IndicatorDef& d, const std::vector<const IndicatorSet*>& sets, IndicatorSet& out,
                 Docs docs = Docs::windows) {
  const std::string key(d.key);
  if (sets.size() == 1) {
    const auto it = sets.front()->find(key);
    if (it != sets.front()->end()) out[key] = it->second;
    return;
  }
  if (d.category == "work" && docs == Docs::one_per_host) return merge_hosts_work(key, sets, out);
  if (!is_summed(d, docs) && !is_maximum(d)) {
    set_absent(out, IndicatorKey::of(key), kNotMergeable);
    return;
  }
  double sum = 0;
  for (const IndicatorSet* s : sets) {
    const auto it = s->find(key);
    if (it == s->end()) return;  // not computed by a document: leave it out
    if (!it->second.value) {
      set_absent(out, IndicatorKey::of(key), it->second.reason);
      return;
    }
    sum = is_maximum(d) ? std::max(sum, *it->second.value) : sum + *it->second.value;
  }
  set_value(out, IndicatorKey::of(key), sum);
}

/// The median interval is mergeable only when every document gives the same.
void merge_median_interval(const std::vector<const IndicatorSet*>& sets, IndicatorSet& out) {
  std::set<double> seen;
  for (const IndicatorSet* s : sets) {
    const auto it = s->find("sample_interval_median_s");
    if (it == s->end() || !it->second.value) {
      set_absent(out, "sample_interval_median_s", kNotMergeable);
      return;
    }
    seen.insert(*it->second.value);
  }
  if (seen.size() == 1)
    set_value(out, "sample_interval_median_s", *seen.begin());
  else
    set_absent(out, "sample_interval_median_s", fmt::format("{} (the documents' medians differ)", kNotMergeable));
}

/// One GPU of the merged document from its documents, in time order.
Expected<detail::GpuEnergy> merge_gpu(const std::string& host, const std::vector<const GpuFeatures*>& parts,
                                      double wall_s, GpuFeatures& g, EnergyProfile& profile) {
  std::vector<const IndicatorSet*> sets;
  for (const GpuFeatures* p : parts) sets.push_back(&p->indicators);
  const bool telemetry =
      std::all_of(parts.begin(), parts.end(), [](const GpuFeatures* p) { return !p->partials.empty(); });
  // Documents written before the sketches existed: their quantiles stay "not mergeable".
  const bool sketched =
      telemetry && std::all_of(parts.begin(), parts.end(), [](const GpuFeatures* p) { return p->sketches != nullptr; });
  detail::GpuEnergy energy;
  if (telemetry) {
    detail::GpuSketches sketches;
    std::vector<std::pair<std::int64_t, Partials>> bridges;  // each bridged interval's start and partials
    for (std::size_t i = 0; i < parts.size(); ++i) {
      detail::combine_partials(g.partials, parts[i]->partials);
      if (sketched) sketches.merge(*parts[i]->sketches);
      if (i == 0) continue;
      const GpuFeatures& prev = *parts[i - 1];
      const GpuFeatures& cur = *parts[i];
      if (!prev.last || !cur.first) continue;
      if (cur.first->ts_ns <= prev.last->ts_ns)
        return make_error(
            ErrorKind::usage,
            fmt::format("host '{}' GPU {}: two documents overlap in time ({} to {}; samples counted twice)", host,
                        g.gpu, format_utc(cur.first->ts_ns), format_utc(prev.last->ts_ns)),
            "merge the results of different hosts or of consecutive, disjoint windows "
            "(--to is exclusive: --to 11:00 and --from 11:00 tile)");
      const Partials bridge =
          detail::bridge_partials(*prev.last, *cur.first, detail::partial(g.partials, "gap_limit_s"),
                                  detail::partial(g.partials, "temp.threshold_c"));
      detail::combine_partials(g.partials, bridge);
      if (sketched)
        sketches.merge(detail::bridge_sketches(*prev.last, *cur.first, detail::partial(g.partials, "gap_limit_s")));
      bridges.emplace_back(prev.last->ts_ns, bridge);
    }
    g.first = parts.front()->first;
    g.last = parts.back()->last;
    energy = detail::finish_gpu(g.partials, wall_s, g.indicators);
    g.energy_method = std::string(energy.method);
    // The bridged interval's energy, by the method that gave the merged GPU's.
    const std::string bridged = energy.method == kEnergyByCounter ? "counter.j" : "power.trap";
    for (const auto& [ts_ns, bridge] : bridges) {
      const double bridge_j = detail::partial(bridge, bridged);
      if (!std::isnan(bridge_j)) profile.add(ts_ns, bridge_j / 3.6e6);
    }
    if (sketched) {
      detail::finish_quantiles(sketches, g.indicators);
      g.sketches = std::make_shared<const detail::GpuSketches>(std::move(sketches));
    }
  }
  for (const IndicatorDef& d : catalogue()) {
    if (d.scope == Scope::host_only || (telemetry && g.indicators.count(std::string(d.key)) > 0)) continue;
    if (d.key == "sample_interval_median_s" && parts.size() > 1)
      merge_median_interval(sets, g.indicators);
    else if (d.key == "wall_s")
      set_value(g.indicators, "wall_s", wall_s);
    else
      merge_plain(d, sets, g.indicators);
  }
  return energy;
}

/// Host indicators that the GPUs do not give: event counts, downtime, traces, patterns.
/// Each host in one document only (a fleet of hosts, or fleets of disjoint hosts)?
Docs relation(const std::vector<Features>& docs) {
  std::set<std::string> seen;
  for (const Features& f : docs) {
    std::size_t start = 0;
    for (;;) {  // a merged document names its hosts comma-separated
      const std::size_t comma = f.host.find(',', start);
      if (!seen.insert(f.host.substr(start, comma == std::string::npos ? std::string::npos : comma - start)).second)
        return Docs::windows;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return Docs::one_per_host;
}

/// A host-only indicator that merge recomputes from the merged GPUs or host partials.
bool recomputed(std::string_view key) {
  const auto in = [&](const auto& keys) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  return in(detail::kHostKeysFromGpus) || in(detail::kXidTimeKeys) || in(detail::kSessionRateKeys) ||
         in(detail::kRankKeys);
}

void merge_host_only(const std::vector<Features>& docs, Features& m) {
  const Docs relation_of_docs = relation(docs);
  std::vector<const IndicatorSet*> sets;
  for (const Features& f : docs) sets.push_back(&f.host_indicators);
  for (const IndicatorDef& d : catalogue()) {
    const bool from_gpus = d.scope != Scope::host_only && d.category != "trace" && d.category != "processes";
    if (from_gpus || recomputed(d.key)) continue;
    merge_plain(d, sets, m.host_indicators, relation_of_docs);
  }
  for (const Features& f : docs) detail::combine_partials(m.host_partials, f.host_partials);
  detail::xid_indicators_from_partials(m);
  detail::session_rates_from_partials(m);
  detail::work_ratios(m);
  if (docs.size() == 1 || relation_of_docs == Docs::one_per_host) return;
  // Downtime runs to the next busy sample: a stretch cut by a document's window end would
  // continue in the next document of the host, which the summaries cannot tell.
  for (const Features& f : docs)
    for (const WindowIncident& w : f.incidents)
      if (w.downtime_s && w.downtime_to_end && value_of(m.host_indicators, "downtime_s"))
        set_absent(m.host_indicators, "downtime_s",
                   fmt::format("{}: an incident's downtime reaches the end of its document's window", kNotMergeable));
}

/// The faults of every document, each keeping its host when there are several; a fault cut by
/// a window's end joins its continuation in the next window (regroup_faults at the longest
/// window of the documents), and the fault counts are counted again.
void merge_faults(const std::vector<Features>& docs, bool several_hosts, Features& m) {
  std::vector<WindowFault> all;
  m.fault_window_s = 0;
  for (const Features& f : docs) {
    m.fault_window_s = std::max(m.fault_window_s, f.fault_window_s);
    m.faults_listed = m.faults_listed && f.faults_listed;
    for (WindowFault w : f.faults) {
      if (several_hosts && w.host.empty()) w.host = f.host;
      all.push_back(std::move(w));
    }
  }
  m.faults = regroup_faults(std::move(all), m.fault_window_s);
  if (value_of(m.host_indicators, "fault_count")) detail::fault_indicators(m);
}

/// The Slurm jobs of every document, once each (the documents of a job's nodes name the same
/// job), by start.
void merge_jobs(const std::vector<Features>& docs, Features& m) {
  for (const Features& f : docs)
    for (const JobRecord& j : f.jobs)
      if (std::none_of(m.jobs.begin(), m.jobs.end(), [&j](const JobRecord& x) { return x.id == j.id; }))
        m.jobs.push_back(j);
  std::stable_sort(m.jobs.begin(), m.jobs.end(),
                   [](const JobRecord& a, const JobRecord& b) { return a.start_ns < b.start_ns; });
}

/// Each document's trace jobs as they were: ranks of one job split over documents are not
/// matched again, so the cross-rank indicators are null when a job of several documents lacks ranks.
void merge_trace_jobs(const std::vector<Features>& docs, Features& m) {
  for (const Features& f : docs) m.trace_jobs.insert(m.trace_jobs.end(), f.trace_jobs.begin(), f.trace_jobs.end());
  const bool partial = docs.size() > 1 && std::any_of(m.trace_jobs.begin(), m.trace_jobs.end(), [](const auto& j) {
                         return j.world_size > 0 && j.ranks.size() < static_cast<std::size_t>(j.world_size);
                       });
  detail::rank_indicators(m.trace_jobs, m.host_indicators,
                          partial ? fmt::format("{}: a job lacks ranks, which another document may hold (ranks are "
                                                "matched within one document)",
                                                kNotMergeable)
                                  : std::string{});
}

void merge_profiles(const std::vector<Features>& docs, EnergyProfile& out) {
  for (const Features& f : docs)
    for (const auto& [minute, kwh] : f.energy_profile.kwh_by_minute) out.add_minute(minute, kwh);
}

}  // namespace

Expected<Features> merge_features(std::vector<Features> docs) {
  if (docs.empty()) return make_error(ErrorKind::usage, "merge: no features documents");
  for (const Features& f : docs)
    for (const GpuFeatures& g : f.gpus) {
      if (g.partials.empty() && value_of(g.indicators, "samples"))
        return make_error(
            ErrorKind::schema,
            fmt::format("host '{}' GPU {}: the document has no partials (written by an older gpucost)", f.host, g.gpu),
            "re-run `gpucost extract` with this version");
    }
  std::stable_sort(docs.begin(), docs.end(),
                   [](const Features& a, const Features& b) { return a.from_ns < b.from_ns; });
  Features m;
  m.from_ns = docs.front().from_ns;
  m.to_ns = docs.front().to_ns;
  m.to_exclusive = docs.front().to_exclusive;
  std::set<std::string> hosts, zones;
  for (const Features& f : docs) {
    for (std::size_t start = 0; start < f.logs_tz.size();) {
      const std::size_t comma = std::min(f.logs_tz.find(',', start), f.logs_tz.size());
      zones.insert(f.logs_tz.substr(start, comma - start));
      start = comma + 1;
    }
    m.from_ns = std::min(m.from_ns, f.from_ns);
    // The latest end decides; at the same end an inclusive window holds the instant.
    if (f.to_ns > m.to_ns)
      m.to_exclusive = f.to_exclusive;
    else if (f.to_ns == m.to_ns)
      m.to_exclusive = m.to_exclusive && f.to_exclusive;
    m.to_ns = std::max(m.to_ns, f.to_ns);
    hosts.insert(f.host);
    m.merged_from += f.merged_from;
    // The models every document named: a merge of hosts with different GPUs names several.
    for (auto [to, from] : {std::pair{&m.input_gpus.telemetry, &f.input_gpus.telemetry},
                            std::pair{&m.input_gpus.traces, &f.input_gpus.traces},
                            std::pair{&m.input_gpus.log_names, &f.input_gpus.log_names}})
      for (const std::string& name : *from) Fingerprint::add(*to, name);
    m.input_gpus.log_count = std::max(m.input_gpus.log_count, f.input_gpus.log_count);
  }
  m.merged_from -= 1;  // started at 1
  const bool several_hosts = hosts.size() > 1;
  for (const std::string& h : hosts) m.host += m.host.empty() ? h : "," + h;
  // One host's basis when every document says the same; else not one thing to say.
  m.host_basis = docs.front().host_basis;
  for (const Features& f : docs)
    if (several_hosts || f.host_basis != m.host_basis) m.host_basis.clear();
  for (const std::string& z : zones) m.logs_tz += m.logs_tz.empty() ? z : "," + z;
  m.chosen_by = "merge";
  merge_jobs(docs, m);

  // GPUs by (host, index); a GPU of a merged multi-host document keeps its own host.
  std::map<std::pair<std::string, int>, std::vector<const GpuFeatures*>> groups;
  for (const Features& f : docs)
    for (const GpuFeatures& g : f.gpus) groups[{g.host.empty() ? f.host : g.host, g.gpu}].push_back(&g);
  double filled_j = 0, energy_j = 0;
  for (auto& [id, parts] : groups) {
    const auto start = [](const GpuFeatures* g) {
      return g->first ? g->first->ts_ns : std::numeric_limits<std::int64_t>::min();
    };
    std::stable_sort(parts.begin(), parts.end(),
                     [&](const GpuFeatures* a, const GpuFeatures* b) { return start(a) < start(b); });
    GpuFeatures g;
    g.gpu = id.second;
    if (several_hosts) g.host = id.first;
    auto e = merge_gpu(id.first, parts, m.wall_s(), g, m.energy_profile);
    if (!e) return e.error();
    filled_j += e->filled_j;
    energy_j += e->energy_j;
    m.gpus.push_back(std::move(g));
  }
  detail::host_from_gpus(m, filled_j, energy_j);
  merge_host_only(docs, m);
  for (const Features& f : docs) m.incidents.insert(m.incidents.end(), f.incidents.begin(), f.incidents.end());
  std::stable_sort(m.incidents.begin(), m.incidents.end(),
                   [](const WindowIncident& a, const WindowIncident& b) { return a.ts_ns < b.ts_ns; });
  merge_faults(docs, several_hosts, m);
  merge_profiles(docs, m.energy_profile);
  std::vector<const std::vector<ProcessUse>*> process_lists;
  for (const Features& f : docs) process_lists.push_back(&f.processes);
  m.processes = detail::merge_processes(process_lists);
  merge_trace_jobs(docs, m);
  // A step split is one job's: the steps of several jobs or windows are not one step, and the
  // projection made of their sum would describe none of them.
  if (docs.size() == 1) m.trace_split = docs.front().trace_split;
  if (docs.size() == 1) m.checkpoints = docs.front().checkpoints;  // one job's; several are not one interval
  for (const Features& f : docs)  // each GPU must hold its own peak: the largest of any document
    if (f.trace_memory) add_trace_memory(*f.trace_memory, m.trace_memory);
  note_old_versions(docs, m);
  return m;
}

}  // namespace gpucost::extract

// Charging the job to whoever computed: each GPU's share of the cost goes to the processes that
// ran kernels on it, in proportion to their SM time (pmon's sm % x its cycle). A GPU nobody
// computed on is charged to nobody, and said so: spreading it would hide idle hardware.
#include <gpucost/breakeven/attribution.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

namespace gpucost::breakeven {

Expected<AttributionBy> parse_attribution_by(std::string_view text) {
  if (text == "process") return AttributionBy::process;
  if (text == "user") return AttributionBy::user;
  if (text == "cgroup") return AttributionBy::cgroup;
  return make_error(ErrorKind::usage, fmt::format("--by: '{}' is not process, user or cgroup", text),
                    "e.g. --by user: the job's cost split over the users whose processes computed on its GPUs");
}

std::string_view attribution_by_name(AttributionBy by) {
  switch (by) {
    case AttributionBy::process: return "process";
    case AttributionBy::user: return "user";
    case AttributionBy::cgroup: return "cgroup";
  }
  return "user";
}

namespace {

using GpuId = std::pair<std::string, int>;  // (host, index)

/// Each GPU's local and cloud cost, by (host, index) as the process list names them.
std::map<GpuId, std::pair<double, double>> gpu_costs(const Result& r, const CostConfig& c, const extract::Features& f) {
  std::map<GpuId, std::pair<double, double>> out;
  const std::size_t n = std::min(f.gpus.size(), r.job.energy_kwh.size());
  if (n == 0) return out;
  const auto G = static_cast<double>(n);
  const double per_kwh = c.cooling_factor * r.prices.mean;
  const double fixed = (r.amortisation + r.maintenance) / G;
  for (std::size_t i = 0; i < n; ++i) {
    const extract::GpuFeatures& g = f.gpus[i];
    const double local = per_kwh * (r.job.energy_kwh[i] + r.system_kwh / G) + fixed;
    out[{g.host.empty() ? f.host : g.host, g.gpu}] = {local, r.cloud_total / G};
  }
  return out;
}

std::string short_id(const std::string& id) { return id.size() > 12 ? id.substr(0, 12) : id; }

/// The group a process belongs to, and what the group's key leaves out.
std::pair<std::string, std::string> group_of(const extract::ProcessUse& p, AttributionBy by, bool several_hosts) {
  switch (by) {
    case AttributionBy::process: {
      std::string key = fmt::format("{}{} {}", several_hosts ? p.host + ":" : "", p.pid, p.command);
      return {key, p.user.empty() && p.uid ? fmt::format("uid {}", *p.uid) : p.user};
    }
    case AttributionBy::user:
      if (!p.user.empty()) return {p.user, p.uid ? fmt::format("uid {}", *p.uid) : ""};
      if (p.uid) return {fmt::format("uid {}", *p.uid), ""};
      return {"unknown", ""};
    case AttributionBy::cgroup:
      if (!p.container_id.empty())
        return {fmt::format("{} {}", p.container_runtime.empty() ? "container" : p.container_runtime,
                            short_id(p.container_id)),
                p.cgroup};
      if (!p.pod_uid.empty()) return {fmt::format("pod {}", p.pod_uid), p.cgroup};
      if (!p.slurm_job.empty()) return {fmt::format("slurm job {}", p.slurm_job), p.cgroup};
      if (!p.cgroup.empty()) return {p.cgroup, ""};
      return {"unknown", ""};
  }
  return {"unknown", ""};
}

std::string gpu_label(const GpuId& id, bool several_hosts) {
  return several_hosts ? fmt::format("{}:{}", id.first, id.second) : std::to_string(id.second);
}

/// Why the identities are unknown, when none of the processes has the scan's.
void note_unknown_identity(const std::vector<extract::ProcessUse>& ps, AttributionBy by, Attribution& a) {
  if (by == AttributionBy::process) return;
  const bool any_scan = std::any_of(ps.begin(), ps.end(), [](const extract::ProcessUse& p) { return p.start_ns; });
  if (!any_scan)
    a.notes.push_back(
        fmt::format("every {} is unknown: no gpu_handle events among the inputs (gpucost record scans "
                    "/proc for who runs each process; pmon prints only pids)",
                    by == AttributionBy::user ? "user" : "cgroup"));
}

/// Holders of a GPU that computed nothing on it (without pmon: all of them, not knowing).
void collect_idle(const extract::Features& f, Attribution& a) {
  for (const extract::ProcessUse& p : f.processes) {
    if (p.gpu < 0 || p.role == "gpucost") continue;  // control files only; gpucost's own sampler
    if (p.busy_s && *p.busy_s > 0) continue;
    a.idle.push_back({p, !p.busy_s.has_value()});
  }
  std::stable_sort(a.idle.begin(), a.idle.end(), [](const IdleHolder& x, const IdleHolder& y) {
    return x.process.fb_max_mib.value_or(-1) > y.process.fb_max_mib.value_or(-1);
  });
}

}  // namespace

Attribution attribute_cost(const Result& r, const CostConfig& c, const extract::Features& f, AttributionBy by) {
  Attribution a;
  a.by = by;
  const bool has_pmon = std::any_of(f.processes.begin(), f.processes.end(),
                                    [](const extract::ProcessUse& p) { return p.busy_s.has_value(); });
  collect_idle(f, a);
  if (f.processes.empty()) {
    a.reason = "no per-process rows: neither nvidia-smi pmon nor gpucost record's gpu_handle events among the inputs";
    return a;
  }
  if (!has_pmon) {
    a.reason =
        "no nvidia-smi pmon among the inputs: nothing says how much each process computed (the scan only "
        "says who held the GPU)";
    return a;
  }
  std::set<std::string> hosts;
  for (const extract::ProcessUse& p : f.processes) hosts.insert(p.host);
  const bool several_hosts = hosts.size() > 1;
  const auto costs = gpu_costs(r, c, f);
  std::map<GpuId, double> busy_on;  // Σ busy_s of the GPU's processes
  for (const extract::ProcessUse& p : f.processes)
    if (p.gpu >= 0 && p.busy_s) busy_on[{p.host, p.gpu}] += *p.busy_s;

  std::map<std::string, AttributionRow> groups;
  std::set<GpuId> outside;
  double charged = 0, busy_total = 0;
  for (const extract::ProcessUse& p : f.processes) {
    if (p.gpu < 0 || !p.busy_s || !(*p.busy_s > 0)) continue;
    const GpuId id{p.host, p.gpu};
    const auto cost = costs.find(id);
    if (cost == costs.end()) {  // pmon saw a GPU the telemetry did not price
      outside.insert(id);
      continue;
    }
    const double share = *p.busy_s / busy_on[id];
    auto [key, detail] = group_of(p, by, several_hosts);
    AttributionRow& row = groups[key];
    row.key = key;
    if (row.detail.empty()) row.detail = detail;
    row.processes += 1;
    if (std::find(row.gpus.begin(), row.gpus.end(), p.gpu) == row.gpus.end()) row.gpus.push_back(p.gpu);
    row.busy_s += *p.busy_s;
    row.local += cost->second.first * share;
    row.cloud += cost->second.second * share;
    if (p.fb_max_mib) row.fb_max_mib = row.fb_max_mib.value_or(0.0) + *p.fb_max_mib;
    charged += cost->second.first * share;
    busy_total += *p.busy_s;
  }
  for (const auto& [id, cost] : costs)
    if (!(busy_on[id] > 0)) {
      a.unattributed_local += cost.first;
      a.unattributed_cloud += cost.second;
      a.unattributed_gpus.push_back(gpu_label(id, several_hosts));
    }
  for (const GpuId& id : outside)
    a.notes.push_back(
        fmt::format("GPU {}: pmon rows for a GPU without priced telemetry are left out", gpu_label(id, several_hosts)));
  for (auto& [key, row] : groups) {
    row.share = charged > 0 ? row.local / charged : 0.0;
    std::sort(row.gpus.begin(), row.gpus.end());
    a.rows.push_back(std::move(row));
  }
  std::stable_sort(a.rows.begin(), a.rows.end(),
                   [](const AttributionRow& x, const AttributionRow& y) { return x.local > y.local; });
  const double gpu_s = static_cast<double>(costs.size()) * f.wall_s();
  a.busy_share = gpu_s > 0 ? busy_total / gpu_s : 0.0;
  a.basis = "SM time (nvidia-smi pmon's sm % x its cycle)";
  note_unknown_identity(f.processes, by, a);
  return a;
}

}  // namespace gpucost::breakeven

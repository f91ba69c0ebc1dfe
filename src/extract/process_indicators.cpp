// Who used the GPU: pmon prints one row per process and GPU each cycle, with its SM share (sm %)
// and memory (fb MiB); a process whose every row reads 0 (or "-") held the GPU without computing.
#include "process_indicators.hpp"

#include <gpucost/extract/catalogue.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::extract::detail {

namespace {

constexpr const char* kNoPmon = "no nvidia-smi pmon among the inputs";

/// What the rows of one GPU (or of every GPU: the host) say.
struct ProcessTally {
  struct Process {
    double sm = 0;                                             // summed sm %
    double fb_max = std::numeric_limits<double>::quiet_NaN();  // largest fb, MiB
    bool computed = false;                                     // a row read sm > 0
  };
  std::map<std::pair<int, std::int64_t>, Process> by_process;  // (gpu, pid)
  std::map<std::pair<int, std::int64_t>, double> rows_at;      // (gpu, time) -> rows
  double sm_total = 0;

  void add(const ProcessRow& r) {
    Process& p = by_process[{r.gpu, r.pid}];
    const auto sm = static_cast<double>(r.sm_pct), fb = static_cast<double>(r.fb_mib);
    if (!std::isnan(sm) && sm > 0) {
      p.sm += sm;
      sm_total += sm;
      p.computed = true;
    }
    if (!std::isnan(fb) && !(fb <= p.fb_max)) p.fb_max = fb;
    rows_at[{r.gpu, r.ts_ns}] += 1;
  }
};

/// `distinct_pids`: the host counts a pid once over its GPUs.
void set_tally(const ProcessTally& t, bool distinct_pids, IndicatorSet& out) {
  std::set<std::int64_t> pids;
  double idle = 0, idle_fb = 0, top = 0;
  bool idle_fb_known = false;
  std::map<std::int64_t, double> sm_by_pid;
  for (const auto& [id, p] : t.by_process) {
    pids.insert(id.second);
    sm_by_pid[id.second] += p.sm;
    if (p.computed) continue;
    ++idle;
    if (!std::isnan(p.fb_max)) {
      idle_fb += p.fb_max;
      idle_fb_known = true;
    }
  }
  for (const auto& [pid, sm] : sm_by_pid) top = std::max(top, sm);
  double most = 0;
  for (const auto& [at, rows] : t.rows_at) most = std::max(most, rows);
  set_value(out, "processes",
            distinct_pids ? static_cast<double>(pids.size()) : static_cast<double>(t.by_process.size()));
  set_value(out, "processes_max", most);
  if (t.sm_total > 0)
    set_value(out, "top_process_share", top / t.sm_total);
  else
    set_absent(out, "top_process_share",
               t.by_process.empty() ? "no process on the GPU in the window" : "no pmon row reads sm above 0 %");
  set_value(out, "idle_processes", idle);
  if (idle == 0)
    set_value(out, "idle_process_fb_mib", 0);
  else if (idle_fb_known)
    set_value(out, "idle_process_fb_mib", idle_fb);
  else
    set_absent(out, "idle_process_fb_mib", "pmon printed no fb column (pmon -s m)");
}

void absent_pmon(IndicatorSet& out, const std::string& reason) {
  set_absent(out, {"processes", "processes_max", "top_process_share", "idle_processes", "idle_process_fb_mib"}, reason);
}

constexpr const char* kNoHandles =
    "no gpu_handle events (gpucost record's scan of the processes holding NVIDIA device files)";

/// The holders of `gpu` (every GPU and the control files: `gpu` none) whose span meets the window.
void set_handles(const SampleCollector& c, const Features& f, std::optional<int> gpu, IndicatorSet& out) {
  std::set<std::pair<std::int64_t, std::int64_t>> all, other;  // (pid, start time)
  bool roles = true;
  for (const auto& [key, h] : c.handle_holdings()) {
    const auto& [g, pid, start_ns] = key;
    if (gpu && g != *gpu) continue;
    if (h.first_ns > f.last_ns() || (!h.to_end && h.last_ns < f.from_ns)) continue;
    all.emplace(pid, start_ns);
    if (h.role.empty()) roles = false;
    if (h.role == "other") other.emplace(pid, start_ns);
  }
  set_value(out, "handle_holders", static_cast<double>(all.size()));
  if (roles)
    set_value(out, "other_handle_holders", static_cast<double>(other.size()));
  else
    set_absent(out, "other_handle_holders",
               "the scan read another /proc tree (--proc-root): the command's processes cannot be told from others");
}

void handle_indicators(const SampleCollector& c, Features& f) {
  if (c.handle_holdings().empty()) {
    for (const IndicatorKey k : std::initializer_list<IndicatorKey>{"handle_holders", "other_handle_holders"}) {
      set_absent(f.host_indicators, k, kNoHandles);
      for (GpuFeatures& g : f.gpus) set_absent(g.indicators, k, kNoHandles);
    }
    return;
  }
  set_handles(c, f, std::nullopt, f.host_indicators);
  for (GpuFeatures& g : f.gpus) set_handles(c, f, g.gpu, g.indicators);
}

}  // namespace

void process_indicators(const SampleCollector& c, Features& f) {
  handle_indicators(c, f);
  if (!c.has_pmon()) {
    absent_pmon(f.host_indicators, kNoPmon);
    for (GpuFeatures& g : f.gpus) absent_pmon(g.indicators, kNoPmon);
    return;
  }
  ProcessTally host;
  std::map<int, ProcessTally> per_gpu;
  for (const ProcessRow& r : c.process_rows()) {
    if (!f.contains(r.ts_ns)) continue;
    host.add(r);
    per_gpu[r.gpu].add(r);
  }
  set_tally(host, true, f.host_indicators);
  for (GpuFeatures& g : f.gpus) set_tally(per_gpu[g.gpu], false, g.indicators);
}

}  // namespace gpucost::extract::detail

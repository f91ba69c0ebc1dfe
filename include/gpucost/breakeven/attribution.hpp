// Who spent it: the priced job's local and cloud cost split over the processes that computed on
// its GPUs, grouped by process, user or cgroup/container (breakeven --by), and the processes that
// held a GPU without computing. Method: docs/cost-model.md, "Cost by process, user or cgroup".
#pragma once

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/extract/features.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

enum class AttributionBy { process, user, cgroup };

/// --by: "process", "user" or "cgroup" (a usage error names the three).
Expected<AttributionBy> parse_attribution_by(std::string_view text);
std::string_view attribution_by_name(AttributionBy by);

/// One group's part of the job: its processes' SM time and the cost that time was charged.
struct AttributionRow {
  std::string key;                   ///< "alice", "4100 python train.py", "docker 3f2a9c1b04de", "unknown"
  std::string detail;                ///< what the key leaves out: a process's user; a user's uid; a cgroup's path
  int processes = 0;                 ///< (process, GPU) pairs of the group that computed
  std::vector<int> gpus;             ///< the GPU indexes they computed on (several hosts: per host, unmerged)
  double busy_s = 0;                 ///< SM-busy seconds (the processes' busy_s)
  double share = 0;                  ///< of the charged cost: local / (local total - unattributed local)
  double local = 0;                  ///< currency: Σ over its GPUs of C_g x its busy share there
  double cloud = 0;                  ///< the same split of the cloud cost
  std::optional<double> fb_max_mib;  ///< Σ of its processes' largest fb, MiB (pmon -s m)
};

/// A process that held a GPU (pmon listed it, or the scan saw it hold a device file) and computed
/// nothing there in the window (or, without pmon, may not have).
struct IdleHolder {
  extract::ProcessUse process;
  bool computed_unknown = false;  ///< no pmon: whether it computed is unknown
};

struct Attribution {
  AttributionBy by = AttributionBy::user;
  /// Empty when the split was made; else why not (no pmon among the inputs, ...): rows are empty.
  std::string reason;
  std::string basis;                 ///< "SM time of nvidia-smi pmon (sm % x its 1 s cycle)"
  std::vector<AttributionRow> rows;  ///< the most costly first
  /// The cost of GPUs no process computed on in the window (charged to nobody), with why.
  double unattributed_local = 0, unattributed_cloud = 0;
  std::vector<std::string> unattributed_gpus;  ///< "0", "node2:1"
  /// Σ busy_s / (GPUs x W): the share of the GPU time some process computed.
  double busy_share = 0;
  std::vector<IdleHolder> idle;  ///< the most memory first; gpucost's own processes left out
  std::vector<std::string> notes;
};

/// Splits r's local and cloud totals: C_g = cooling x mean price x (E_g + system kWh / G)
/// + (amortisation + maintenance) / G locally, C_C / G in the cloud; each GPU's C_g is shared by
/// the processes that computed on it in proportion to their SM-busy seconds.
Attribution attribute_cost(const Result& r, const CostConfig& c, const extract::Features& f, AttributionBy by);

}  // namespace gpucost::breakeven

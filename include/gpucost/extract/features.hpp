// The features document (schema gpucost.features): the indicators extract computes over a job
// window, per GPU and for the host, with the partials, incidents and faults that breakeven,
// report, outputs and merge read. The contract between extract and the stages after it.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/fault_cause.hpp>
#include <gpucost/extract/indicator_set.hpp>
#include <gpucost/extract/sample.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::extract {

inline constexpr std::string_view kFeaturesSchema = "gpucost.features";
/// Version 2 (issue 15's catalogue: docs/indicators.md, "Changes in version 2"); merge and
/// breakeven also read version 1, whose retired indicators they ignore.
inline constexpr int kFeaturesVersion = 2;
inline constexpr int kOldestFeaturesVersion = 1;
/// The default fault window, s (local.fault_window_s): docs/cost-model.md, "Faults".
inline constexpr double kDefaultFaultWindowS = 60.0;

/// What gave a GPU's energy_kwh (docs/indicators.md, "Energy from the counter"): the GPU's
/// total-energy counter, or the power samples' integral; the host's is "mixed" when its GPUs
/// differ. Empty: no energy (no power samples and no counter that covers the window).
inline constexpr std::string_view kEnergyByCounter = "counter";
inline constexpr std::string_view kEnergyByPower = "power";
inline constexpr std::string_view kEnergyMixed = "mixed";
/// Not measured: estimated by breakeven from the GPU model (docs/cost-model.md, "Estimated energy").
inline constexpr std::string_view kEnergyByModel = "model";

/// Partial sums that let results of several hosts or consecutive windows merge exactly
/// (docs/indicators.md, Merging): name -> value; names ending in ".max"/".min" combine by
/// max/min, "gap_limit_s" and "temp.threshold_c" by max, every other name by sum.
using Partials = std::map<std::string, double>;

namespace detail {
struct GpuSketches;  // quantile sketches of one GPU (src/extract/gpu_stats.hpp)
}

struct GpuFeatures {
  int gpu = 0;
  IndicatorSet indicators;
  std::string host;           ///< set on merged documents of several hosts; else empty (the document's host)
  std::string energy_method;  ///< kEnergyByCounter or kEnergyByPower; empty: no energy
  Partials partials;
  /// The first and last sample of the GPU in the window: merge bridges the interval between
  /// consecutive windows with them. Empty for trace-only GPUs and old documents.
  std::optional<Sample> first, last;
  /// The quantile sketches that merge recomputes the quantiles from (docs/indicators.md,
  /// Merging); shared by copies, never changed. Null for trace-only GPUs and old documents.
  std::shared_ptr<const detail::GpuSketches> sketches;
};

/// GPU energy of the whole host by UTC minute: each sample interval's energy (and the filled
/// energy of uncovered time) lands in the minute where the interval starts. Every current time
/// zone is a whole number of minutes off UTC and tariff windows start on minutes, so one price
/// holds for each bucket: breakeven prices time-of-use tariffs from this alone.
struct EnergyProfile {
  static constexpr std::int64_t kBucketNs = 60 * 1'000'000'000LL;
  /// Energy (kWh) by minute since the epoch (UTC). Sparse: only the minutes that received
  /// energy, so a window stretched by one sample years off costs two entries, not a million.
  std::map<std::int64_t, double> kwh_by_minute;
  void add(std::int64_t ts_ns, double kwh_value) { add_minute(minute_of(ts_ns), kwh_value); }
  /// The minute since the epoch that holds ts_ns (rounded down, before the epoch too).
  static std::int64_t minute_of(std::int64_t ts_ns) {
    return ts_ns / kBucketNs - (ts_ns < 0 && ts_ns % kBucketNs != 0 ? 1 : 0);
  }
  void add_minute(std::int64_t minute, double kwh_value) { kwh_by_minute[minute] += kwh_value; }
  [[nodiscard]] bool empty() const { return kwh_by_minute.empty(); }
  [[nodiscard]] double total() const {
    double t = 0;
    for (const auto& [minute, v] : kwh_by_minute) t += v;
    return t;
  }
};

/// One incident or interruption of the window, for breakeven's itemised costs and downtime; or
/// a burst of them: incidents of the same kind, bucket and code, each within 60 s of the one
/// before, are one entry with their count (docs/indicators.md, "incidents").
struct WindowIncident {
  std::int64_t ts_ns = 0;  ///< the (first) incident's time
  std::string kind;        ///< xid, gpu_lost, suspend or ac_offline
  std::string bucket;      ///< xid: NVIDIA resolution bucket; gpu_lost: reboot; else empty
  int code = -1;           ///< xid code
  /// Until the next sample with utilisation > 0 (or the window end); for a burst, the length
  /// of the union of its incidents' downtimes.
  std::optional<double> downtime_s;
  std::int64_t count = 1;        ///< incidents in the burst
  std::int64_t last_ts_ns = 0;   ///< the burst's last incident (count > 1)
  bool downtime_to_end = false;  ///< the (last) incident's downtime ran to the window end
  [[nodiscard]] std::int64_t last() const { return count > 1 ? last_ts_ns : ts_ns; }
};

/// Events of one kind and code within a fault: "Xid 13 ×181".
struct FaultMember {
  std::string kind;  ///< xid, gpu_lost or aer (uncorrected_fatal only)
  int code = -1;     ///< xid code
  std::int64_t count = 0;
};

/// A fault (docs/cost-model.md, "Faults"): the Xid, GPU-lost and fatal AER events of one GPU
/// (or of the host when they name none), each within the fault window of the one before; at
/// least one of them not of bucket `ignore`. Priced once, at its most severe member's bucket.
struct WindowFault {
  std::int64_t ts_ns = 0, last_ts_ns = 0;  ///< the first and the last member
  std::string device;                      ///< "0000:01:00", "GPU4"; empty: the host
  std::string host;                        ///< set on merged documents of several hosts
  std::string bucket;                      ///< the most severe member's (fault_severity)
  /// Who caused it (core/fault_cause.hpp): "application", "hardware" or "unknown": the highest
  /// cause of its members not of bucket `ignore` (those need no action, so they cost nothing
  /// either way: an Xid 45 tearing down the application after its Xid 13 does not make the
  /// fault the driver's).
  std::string cause = "unknown";
  std::vector<FaultMember> members;  ///< by first appearance
  std::int64_t count = 0;            ///< member events
  /// The union of the members' downtimes, s (null without utilisation samples).
  std::optional<double> downtime_s;
  std::int64_t downtime_end_ns = 0;  ///< where the last member's downtime ends
  bool downtime_to_end = false;      ///< ... at the window end (no busy sample after it)
};

/// The buckets in order of severity (docs/cost-model.md, "Faults"): a fault is priced at its
/// most severe member's. Returns 0 (ignore) .. 5 (contact_support); an unknown name ranks as
/// "unknown".
int fault_severity(std::string_view bucket);

/// The bucket of a member event: an Xid's own, gpu_lost "reboot", a fatal AER "reset_gpu".
std::string_view fault_bucket(std::string_view kind, std::string_view xid_bucket);
/// The cause of a member event: an Xid's own (its event's `cause`), gpu_lost and a fatal AER
/// hardware (a GPU off the bus, a link that failed).
FaultCause fault_member_cause(std::string_view kind, FaultCause xid_cause);

/// What a fault is made of, in order: "Xid 13 ×181 then Xid 43", "Xid 79 then GPU lost",
/// "fatal AER ×2"; an interruption's kind ("suspend", "AC offline").
std::string fault_members_text(const WindowFault& fault);

/// Joins faults of the same host and device whose gap (the next one's first member after the
/// previous one's last) is at most `window_s`; the result in time order. Exact for a window at
/// least as long as the one the faults were grouped with: the union of downtimes is kept.
std::vector<WindowFault> regroup_faults(std::vector<WindowFault> faults, double window_s);

/// A Slurm job (sacct's allocation line, a `job` event): what the cluster allotted it and how it
/// ended (docs/indicators.md, "The Slurm job").
struct JobRecord {
  std::string id;  ///< as sacct prints it: 4242, 4242_7 (array task), 4242+1 (heterogeneous component)
  std::string name, user, state;
  std::string nodelist;              ///< as printed: node[01-02]
  std::vector<std::string> nodes;    ///< expanded
  std::optional<std::int64_t> gpus;  ///< AllocTRES gres/gpu; none when it names none
  std::string gpu_types;             ///< gres/gpu:TYPE, comma-separated
  std::optional<std::int64_t> exit_code, exit_signal, cancelled_by;
  std::int64_t start_ns = 0;
  std::optional<std::int64_t> end_ns;  ///< none: running when sacct was asked
  std::optional<double> energy_j;      ///< ConsumedEnergyRaw; none: not measured (no energy plugin)
  std::string energy_source;           ///< "job", "extern step" or "batch step"
};

/// One process on one GPU in the window: nvidia-smi pmon's rows joined with gpucost record's
/// scan of the device-file holders (docs/indicators.md, "Per-process list"); breakeven --by
/// splits the cost with it.
struct ProcessUse {
  std::string host;  ///< the host of the document it was computed in
  int gpu = 0;       ///< -1: a holder of control, UVM or DRM files only (the scan)
  std::int64_t pid = 0;
  std::optional<std::int64_t> start_ns;    ///< the process's start (the scan); none from pmon alone
  std::string command;                     ///< the scan's command line, else pmon's (truncated) name
  std::string type;                        ///< pmon's type: C, G, C+G, M, ...; empty: not in pmon
  std::int64_t first_ns = 0, last_ns = 0;  ///< first and last seen in the window
  std::int64_t rows = 0;                   ///< pmon rows in the window
  /// SM-busy seconds: Σ sm / 100 x its GPU's pmon cycle over its rows; none without pmon.
  std::optional<double> busy_s;
  std::optional<double> fb_max_mib;  ///< the largest fb pmon printed for it (pmon -s m)
  bool held = false;                 ///< the scan saw it hold this GPU's device file
  /// From the scan (empty / none: unknown): docs/formats.md, "gpu_handle".
  std::string user, role, cgroup, container_runtime, container_id, pod_uid, slurm_job;
  std::optional<std::int64_t> uid;
};

/// The GPU models the inputs named, kept in the document so that a stage reading it prices as one
/// reading the logs does (docs/indicators.md, "The features document"): the telemetry's models
/// (the speed ratio, the offer's fit), the profiler traces' (checked against them), and a
/// training log's names and count (the estimate without telemetry).
struct InputGpus {
  std::vector<std::string> telemetry, traces, log_names;  ///< distinct, in first-seen order
  int log_count = 0;                                      ///< 0: the logs give none
  [[nodiscard]] bool empty() const {
    return telemetry.empty() && traces.empty() && log_names.empty() && log_count == 0;
  }
};

/// The profiler traces' steps split by what bounds their time (docs/indicators.md, "Trace step
/// split"), summed over the traces' GPUs: breakeven projects the step to another GPU with it
/// (docs/cost-model.md, "Speed projected from the trace"). One job's: merge keeps it only for a
/// single document, since steps of different jobs or windows do not add up to one step.
struct TraceStepSplit {
  std::int64_t devices = 0;  ///< trace_device records summed
  /// Steps timed: Σ over the devices of their ProfilerStep windows, a device without step marks
  /// counting its GPU span as one; `marked` says whether any device had step marks.
  std::int64_t steps = 0;
  bool marked = false;
  /// The parts of the steps' time, ns: window = tensor + memory + unknown + exposed_comm + rest.
  std::int64_t window_ns = 0, tensor_ns = 0, memory_ns = 0, unknown_ns = 0, exposed_comm_ns = 0, rest_ns = 0;
  /// Summed kernel and copy durations by bound, ns (overlaps counted per op): the share of GPU
  /// time the name rules leave unknown.
  std::int64_t tensor_kernel_ns = 0, memory_kernel_ns = 0, comm_kernel_ns = 0, unknown_kernel_ns = 0;
  /// The traces' GPU (deviceProperties' name); empty when no trace names it or they name several.
  std::string gpu_model;
  bool several_models = false;
  [[nodiscard]] double mean_step_ns() const {
    return steps > 0 ? static_cast<double>(window_ns) / static_cast<double>(steps) : 0.0;
  }
  [[nodiscard]] double unknown_kernel_share() const {
    const std::int64_t all = tensor_kernel_ns + memory_kernel_ns + comm_kernel_ns + unknown_kernel_ns;
    return all > 0 ? static_cast<double>(unknown_kernel_ns) / static_cast<double>(all) : 0.0;
  }
};

/// The GPU memory the traces' `[memory]` instants show (profile_memory=True; docs/formats.md, "GPU
/// memory from [memory] events"): the largest peak over their GPUs, bytes; -1 where no event gave
/// that total. The cloud fit reads it (docs/cost-model.md, "Does the offer fit?").
struct TraceMemoryPeak {
  std::int64_t allocated_bytes = -1, reserved_bytes = -1;
  std::int64_t gpus = 0;  ///< GPUs (trace_device records) with memory events
};

/// Adds one GPU's (or one document's) peaks to `into`: the larger of each total, the GPUs summed.
inline void add_trace_memory(const TraceMemoryPeak& one, std::optional<TraceMemoryPeak>& into) {
  if (!into) into.emplace();
  into->allocated_bytes = std::max(into->allocated_bytes, one.allocated_bytes);
  into->reserved_bytes = std::max(into->reserved_bytes, one.reserved_bytes);
  into->gpus += one.gpus;
}

struct Features {
  std::int64_t from_ns = 0, to_ns = 0;
  /// The window is [from, to) when --to gave its end, else [from, to].
  bool to_exclusive = false;
  /// The last instant inside the window (ns).
  [[nodiscard]] std::int64_t last_ns() const { return to_exclusive ? to_ns - 1 : to_ns; }
  [[nodiscard]] bool contains(std::int64_t ts_ns) const { return ts_ns >= from_ns && ts_ns <= last_ns(); }
  /// "flags"; "trainlog" (a training log's start/end phases); "samples"; or "trace" (no
  /// telemetry: the traces' GPU spans)
  std::string chosen_by;
  std::string host;
  /// Where `host` comes from: "option" (--host), "logs" (the inputs name it), "machine" (the
  /// name of the machine prep ran on: no input names a host); empty: not known (older documents).
  std::string host_basis;
  /// What gave the host's energy: kEnergyByCounter or kEnergyByPower when every GPU with energy
  /// agrees, else kEnergyMixed; empty when no GPU has energy.
  std::string energy_method;
  IndicatorSet host_indicators;
  std::vector<GpuFeatures> gpus;
  EnergyProfile energy_profile;           ///< empty in documents written before it existed
  std::vector<WindowIncident> incidents;  ///< in time order
  std::vector<WindowFault> faults;        ///< in time order, grouped within fault_window_s
  double fault_window_s = kDefaultFaultWindowS;
  /// false: faults rebuilt from the bursts of a document written before faults existed, and
  /// some of them joined bursts (host-wide: approximate)
  bool faults_listed = true;
  Partials host_partials;  ///< event times for merging (xid.first_ns.min, ...)
  int merged_from = 1;     ///< number of documents merged into this one
  /// The version of the document it was read from (kFeaturesVersion when computed).
  int version = kFeaturesVersion;
  /// The zones the logs' local times were read in (--tz or the machine's), comma-separated when
  /// several; empty when no input had local times (a trace alone).
  std::string logs_tz;
  /// The Slurm job the window was taken from (one), or the jobs of the merged documents.
  std::vector<JobRecord> jobs;
  /// The processes on each GPU (pmon, the scan); empty when the inputs had neither.
  std::vector<ProcessUse> processes;
  /// The jobs the profiler traces' ranks form (docs/formats.md, "A job of ranks"): those of two
  /// ranks or more, or with communication; empty without such traces.
  std::vector<extract::TraceJob> trace_jobs;
  InputGpus input_gpus;
  /// The traces' steps split by bound; none without a Kineto trace with GPU ops.
  std::optional<TraceStepSplit> trace_split;
  /// The training log's checkpoints in the window (phase checkpoint): how many, and the median
  /// interval between consecutive ones (none with fewer than two). None without such lines.
  struct Checkpoints {
    std::int64_t count = 0;
    std::optional<double> interval_median_s;
  };
  std::optional<Checkpoints> checkpoints;
  /// The traces' GPU memory peaks; none without a trace with `[memory]` events.
  std::optional<TraceMemoryPeak> trace_memory = {};

  [[nodiscard]] double wall_s() const { return static_cast<double>(to_ns - from_ns) / 1e9; }
};

/// The features document (schema gpucost.features, version kFeaturesVersion) as pretty JSON.
std::string features_to_json(const Features& features);
/// Reads a features document back (breakeven's input).
Expected<Features> features_from_json(std::string_view text, const std::string& path);
/// Reads a features document from a file (compressed or not; "-" = stdin).
Expected<Features> read_features_file(const std::string& path);
/// True when `head` looks like a features document.
bool is_features_document(std::string_view head);

/// Merges features documents of several hosts and/or consecutive windows (docs/indicators.md,
/// Merging). Fails when a document lacks the partials (written before they existed).
Expected<Features> merge_features(std::vector<Features> docs);

}  // namespace gpucost::extract

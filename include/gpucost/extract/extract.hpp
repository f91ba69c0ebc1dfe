// Stage 2, extract: telemetry samples -> per-GPU and host indicators over a job window.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/extract/incident_store.hpp>
#include <gpucost/extract/sample_store.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::extract {

inline constexpr std::string_view kFeaturesSchema = "gpucost.features";
inline constexpr int kFeaturesVersion = 1;
/// The default fault window, s (local.fault_window_s): docs/cost-model.md, "Faults".
inline constexpr double kDefaultFaultWindowS = 60.0;

/// The numeric fields of one trace_device, trace_memory, trace_launch, trace_kernel, trace_step
/// or trace_info event (prep's analyses of a Kineto trace), or of a profiler table / nsys
/// summary; keyed by field name.
struct TraceRecord {
  std::int64_t ts_ns = 0;
  int gpu = -1;
  std::string kind;
  std::string detail;  ///< trace_memory: "memcpy h2d"; trace_kernel: the kernel's name; nsys rows: the report kind
  std::map<std::string, double> values;
  [[nodiscard]] double get(const std::string& key) const {
    const auto it = values.find(key);
    return it == values.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
  }
};

/// A throughput a training log reports (not evaluation's): HF Trainer's samples_per_second
/// summary, or a tqdm bar's iterations per second.
struct TrainRate {
  std::int64_t ts_ns = 0;
  bool samples = false;  ///< samples_per_second; else it_per_s
  double value = 0;
};

/// Collects "sample" events per GPU (telemetry without a GPU index belongs to GPU 0), the
/// incidents of kernel and system logs, and the summaries of profiler traces and tables.
class SampleCollector final : public EventSink {
 public:
  void on_event(const Event& event) override;
  /// Records which inputs were read, so that "no Xid" can be told from "no kernel log".
  void note_inputs(const std::vector<InputStats>& inputs);
  explicit SampleCollector(std::size_t sample_budget = SampleStore::kDefaultBudget,
                           std::size_t incident_budget = IncidentStore::kDefaultBudget)
      : m_store(sample_budget), m_incidents(incident_budget) {}
  /// The telemetry samples of every GPU (bounded memory; read back in time order).
  [[nodiscard]] const SampleStore& store() const { return m_store; }
  /// Every sample of one GPU in time order, in memory (the report's charts; not extract).
  [[nodiscard]] std::vector<Sample> samples_of(int gpu) const;
  /// The kernel and system incidents (bounded memory; read back in time order).
  [[nodiscard]] const IncidentStore& incidents() const { return m_incidents; }
  [[nodiscard]] bool has_host_logs() const { return m_host_logs; }
  /// The zones the inputs' local times were read in, comma-separated ("" when none had any).
  [[nodiscard]] const std::string& logs_tz() const { return m_logs_tz; }
  [[nodiscard]] const std::string& host() const { return m_host; }
  /// The host the kernel and system logs name (the document's host when they are all there is).
  [[nodiscard]] const std::string& incident_host() const { return m_incident_host; }
  [[nodiscard]] const std::vector<TraceRecord>& trace_records() const { return m_trace; }
  /// Training-log phases: (time, phase) of the `train` events whose phase is start or end.
  [[nodiscard]] const std::vector<std::pair<std::int64_t, std::string>>& train_marks() const { return m_train; }
  /// --pattern events: (time, dur_ns or -1 when the pattern has no duration group).
  [[nodiscard]] const std::vector<std::pair<std::int64_t, std::int64_t>>& pattern_events() const { return m_patterns; }
  [[nodiscard]] const std::vector<TrainRate>& train_rates() const { return m_rates; }

 private:
  SampleStore m_store;
  std::vector<TraceRecord> m_trace;
  std::vector<std::pair<std::int64_t, std::string>> m_train;
  std::vector<std::pair<std::int64_t, std::int64_t>> m_patterns;
  std::vector<TrainRate> m_rates;
  IncidentStore m_incidents;
  std::string m_host, m_incident_host, m_logs_tz;
  bool m_host_logs = false;  // a kernel log, dmesg, journal or bug report was among the inputs
};

struct ExtractOptions {
  /// --from (inclusive) / --to (exclusive, so that consecutive windows tile time: a sample at
  /// 11:00:00 belongs to the window from 11:00, not to the one that ends then); else the first
  /// and the last sample, both inside.
  std::optional<std::int64_t> from_ns, to_ns;
  double temp_threshold_c = 78.0;
  /// The chain (F106-F113): an error counts after a crossing when it comes within this long.
  double chain_window_s = 300.0;
  /// Fault members within this of the previous one are one fault (docs/cost-model.md, "Faults").
  double fault_window_s = kDefaultFaultWindowS;
};

/// A value, or why it is absent (never a silent 0).
struct IndicatorValue {
  std::optional<double> value;
  std::string reason;  ///< set when value is empty
};

using IndicatorSet = std::map<std::string, IndicatorValue>;  // key -> value

/// The value of `key` in `set`; none when the key is absent or its value is null.
inline std::optional<double> value_of(const IndicatorSet& set, const std::string& key) {
  const auto it = set.find(key);
  return it != set.end() ? it->second.value : std::nullopt;
}

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
  std::string host;  ///< set on merged documents of several hosts; else empty (the document's host)
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
  [[nodiscard]] double total() const;
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
  std::int64_t count = 1;       ///< incidents in the burst
  std::int64_t last_ts_ns = 0;  ///< the burst's last incident (count > 1)
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
  std::vector<FaultMember> members;        ///< by first appearance
  std::int64_t count = 0;                  ///< member events
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

/// What a fault is made of, in order: "Xid 13 ×181 then Xid 43", "Xid 79 then GPU lost",
/// "fatal AER ×2"; an interruption's kind ("suspend", "AC offline").
std::string fault_members_text(const WindowFault& fault);

/// Joins faults of the same host and device whose gap (the next one's first member after the
/// previous one's last) is at most `window_s`; the result in time order. Exact for a window at
/// least as long as the one the faults were grouped with: the union of downtimes is kept.
std::vector<WindowFault> regroup_faults(std::vector<WindowFault> faults, double window_s);

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
  IndicatorSet host_indicators;
  std::vector<GpuFeatures> gpus;
  EnergyProfile energy_profile;            ///< empty in documents written before it existed
  std::vector<WindowIncident> incidents;   ///< in time order
  std::vector<WindowFault> faults;         ///< in time order, grouped within fault_window_s
  double fault_window_s = kDefaultFaultWindowS;
  /// false: faults rebuilt from the bursts of a document written before faults existed, and
  /// some of them joined bursts (host-wide: approximate)
  bool faults_listed = true;
  Partials host_partials;                  ///< event times for merging (xid.first_ns.min, ...)
  int merged_from = 1;                     ///< number of documents merged into this one
  /// The zones the logs' local times were read in (--tz or the machine's), comma-separated when
  /// several; empty when no input had local times (a trace alone).
  std::string logs_tz;

  [[nodiscard]] double wall_s() const { return static_cast<double>(to_ns - from_ns) / 1e9; }
};

/// Computes every indicator. Fails when there is no sample at all to choose a window from.
Expected<Features> compute_features(const SampleCollector& samples, const ExtractOptions& options);

/// The features document (schema gpucost.features, version 1) as pretty JSON.
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

// ---- the statistics, exposed for unit tests -----------------------------------------------

/// Intervals between samples longer than this are gaps: max(10 s, 5 x median interval).
double gap_limit_s(double median_interval_s);

/// Power reading uncertainty used by energy_low_kwh / energy_high_kwh, W per sample.
inline constexpr double kPowerErrorW = 5.0;

}  // namespace gpucost::extract

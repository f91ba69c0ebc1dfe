// What extract keeps of the events it is fed: the telemetry samples of every GPU, the kernel and
// system incidents, and the records of profiler traces, tables and training logs.
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/event_kind.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/extract/features.hpp>
#include <gpucost/extract/incident_store.hpp>
#include <gpucost/extract/sample_store.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace gpucost::extract {

/// The numeric fields of one trace_device, trace_memory, trace_launch, trace_kernel, trace_step
/// or trace_info event (prep's analyses of a Kineto trace), or of a profiler table / nsys
/// summary; keyed by field name.
struct TraceRecord {
  std::int64_t ts_ns = 0;
  int gpu = -1;
  EventKind kind = EventKind::other;
  std::string detail;  ///< trace_memory: "memcpy h2d"; trace_kernel: the kernel's name; trace_device: the GPU's
                       ///< name; nsys rows: the report kind
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

/// What a training-log line says of the work done so far (docs/indicators.md, "Work"); NaN =
/// not on the line. An HF Trainer summary (phase end, `train_*` keys) gives the run's rates.
struct TrainWork {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  std::int64_t ts_ns = 0;
  double step = kNone;         ///< global optimizer step
  double progress = kNone;     ///< epochs done: HF's fractional epoch, or a Lightning bar's epoch + step / total
  double tokens_seen = kNone;  ///< HF num_input_tokens_seen
  bool start = false;          ///< a training start mark (phase start)
  double runtime_s = kNone, samples_per_s = kNone, steps_per_s = kNone, tokens_per_s = kNone;  ///< the summary
};

/// One nvidia-smi pmon row: a process on a GPU at one time (`process` events).
struct ProcessRow {
  std::int64_t ts_ns = 0;
  std::int64_t pid = 0;
  int gpu = 0;
  float sm_pct = Sample::kNoF;  ///< NaN: pmon printed "-"
  float fb_mib = Sample::kNoF;
  std::uint32_t name = 0;  ///< index into SampleCollector::process_names(): its command and type
};

/// What pmon prints of a process besides its figures: the command (truncated by nvidia-smi) and
/// its type (C, G, C+G, M, ...).
struct ProcessName {
  std::string command, type;
};

/// A process that held an NVIDIA device file, from record's `gpu_handle` events: when the scans
/// saw it hold the GPU (docs/procs.md).
struct HandleHolding {
  std::int64_t first_ns = 0;  ///< the first scan that saw it
  std::int64_t last_ns = 0;   ///< the last scan that saw it (a release: its last_seen_ns)
  bool to_end = false;        ///< still held when the recording ended
  /// "command", "gpucost", "other"; empty when the scan read another /proc tree
  std::string role;
  /// Who and where, as the scan read them (empty: not known); docs/formats.md, "gpu_handle".
  std::string user, command, cgroup, container_runtime, container_id, pod_uid, slurm_job;
  std::optional<std::int64_t> uid;
};

/// (gpu, pid, process start time): one holder of one GPU (gpu -1: control files only).
using HandleKey = std::tuple<int, std::int64_t, std::int64_t>;

/// The job record of a `job` event (sacct).
JobRecord job_record_of(const Event& event);

/// The store's record of a "sample" event: its metrics, a reading beyond ±10^12 taken as none.
Sample sample_of(const Event& event);

/// Collects "sample" events per GPU (telemetry without a GPU index belongs to GPU 0), the
/// incidents of kernel and system logs, and the summaries of profiler traces and tables.
class SampleCollector final : public EventSink, public ForkableSink {
 public:
  void on_event(const Event& event) override;
  /// prep -j: a fork turns its chunk's samples into the store's records on the worker (the
  /// other events it keeps whole); join() adds them here in input order.
  ForkableSink* forkable() override { return this; }
  [[nodiscard]] std::unique_ptr<EventSink> fork() override;
  void join(EventSink& forked) override;
  void discard(EventSink& forked) override;
  /// Records which inputs were read, so that "no Xid" can be told from "no kernel log".
  void note_inputs(const std::vector<InputStats>& inputs);
  explicit SampleCollector(std::size_t sample_budget = SampleStore::kDefaultBudget,
                           std::size_t incident_budget = IncidentStore::kDefaultBudget)
      : m_store(sample_budget),
        m_incidents(incident_budget),
        m_sample_budget(sample_budget),
        m_incident_budget(incident_budget) {}
  /// Another host's collector of the same run: its samples spend `shared` with the first host's.
  SampleCollector(std::shared_ptr<SampleBudget> shared, std::size_t incident_budget)
      : m_store(std::move(shared)), m_incidents(incident_budget), m_incident_budget(incident_budget) {}
  /// The telemetry samples of every GPU (bounded memory; read back in time order).
  [[nodiscard]] const SampleStore& store() const { return m_store; }
  /// Every sample of one GPU in time order, in memory (the report's charts; not extract).
  [[nodiscard]] std::vector<Sample> samples_of(int gpu) const;
  /// The kernel and system incidents (bounded memory; read back in time order).
  [[nodiscard]] const IncidentStore& incidents() const { return m_incidents; }
  [[nodiscard]] bool has_host_logs() const { return m_host_logs; }
  /// The zones the inputs' local times were read in, comma-separated ("" when none had any).
  [[nodiscard]] const std::string& logs_tz() const { return m_logs_tz; }
  /// The GPU models the inputs named (their fingerprints; an events stream's, per upstream input).
  [[nodiscard]] const InputGpus& input_gpus() const { return m_input_gpus; }
  [[nodiscard]] const std::string& host() const { return m_host; }
  /// Where the inputs' host comes from (InputStats::host_basis): the firmest the inputs give
  /// (option, then logs, then machine); empty when none says.
  [[nodiscard]] const std::string& host_basis() const { return m_host_basis; }
  /// The collectors of the other hosts whose telemetry samples the inputs hold (a job on several
  /// nodes), in order of first appearance; empty when the samples name one host at most. Each
  /// keeps its host's samples and the events that name its host; this one keeps the first host's
  /// and the events that name no host. extract prices each and merges them, so that a GPU is
  /// (host, index).
  [[nodiscard]] const std::vector<std::unique_ptr<SampleCollector>>& other_hosts() const { return m_others; }
  /// The collector that holds `host`'s samples: this one for the first host (or none), else
  /// that host's (this one when no sample names it).
  [[nodiscard]] const SampleCollector& of_host(std::string_view host) const {
    const SampleCollector* other = host.empty() ? nullptr : other_host(host);
    return other != nullptr ? *other : *this;
  }
  /// The host the kernel and system logs name (the document's host when they are all there is).
  [[nodiscard]] const std::string& incident_host() const { return m_incident_host; }
  [[nodiscard]] const std::vector<TraceRecord>& trace_records() const { return m_trace; }
  /// The traces' trace_region events (annotated regions; detail: the region's name), in order.
  [[nodiscard]] const std::vector<TraceRecord>& trace_regions() const { return m_trace_regions; }
  /// Training-log phases: (time, phase) of the `train` events whose phase is start or end.
  [[nodiscard]] const std::vector<std::pair<std::int64_t, std::string>>& train_marks() const { return m_train; }
  /// The times of the training log's checkpoint lines (phase checkpoint), in input order.
  [[nodiscard]] const std::vector<std::int64_t>& checkpoint_times() const { return m_checkpoints; }
  /// --pattern events: (time, dur_ns or -1 when the pattern has no duration group).
  [[nodiscard]] const std::vector<std::pair<std::int64_t, std::int64_t>>& pattern_events() const { return m_patterns; }
  [[nodiscard]] const std::vector<TrainRate>& train_rates() const { return m_rates; }
  /// The training logs' work records (steps, epochs, tokens, summaries), in input order.
  [[nodiscard]] const std::vector<TrainWork>& train_work() const { return m_work; }
  /// The pmon rows (`process` events), in input order.
  [[nodiscard]] const std::vector<ProcessRow>& process_rows() const { return m_processes; }
  /// The commands and types of the pmon rows (ProcessRow::name), each once.
  [[nodiscard]] const std::vector<ProcessName>& process_names() const { return m_process_names; }
  /// The device-file holders of record's scans, by GPU, pid and start time.
  [[nodiscard]] const std::map<HandleKey, HandleHolding>& handle_holdings() const { return m_handles; }
  /// The jobs of the traces' ranks (their trace_comm and trace_collective events).
  [[nodiscard]] std::vector<extract::TraceJob> trace_jobs() const { return m_trace_jobs.jobs(); }
  /// True when a pmon input gave rows or its "no process" rows.
  [[nodiscard]] bool has_pmon() const { return m_pmon; }
  /// The Slurm jobs of sacct inputs (`job` events), in input order: the run's, shared by the
  /// collectors of every host.
  [[nodiscard]] const std::vector<JobRecord>& jobs() const { return m_first != nullptr ? m_first->m_jobs : m_jobs; }

 private:
  void add_sample(const Event& ev);
  void add_incident(const Event& ev, EventKind kind);
  void add_trace_record(const Event& ev, EventKind kind);
  void add_trace_region(const Event& ev);
  void add_training(const Event& ev, EventKind kind);
  void add_work(const Event& ev);
  void add_process(const Event& ev);
  void add_handle(const Event& ev);
  static void note_holder_identity(const Event& ev, HandleHolding& h);
  /// The collector of a sample of `host`: this one for no host or the first, else that host's.
  SampleCollector& sample_target(std::string_view host);
  /// The collector of another host, made at its first sample; nullptr when none is.
  SampleCollector* other_host(std::string_view host) const;

  SampleStore m_store;
  std::vector<TraceRecord> m_trace;
  std::vector<TraceRecord> m_trace_regions;
  std::vector<std::pair<std::int64_t, std::string>> m_train;
  std::vector<std::int64_t> m_checkpoints;
  std::vector<std::pair<std::int64_t, std::int64_t>> m_patterns;
  std::vector<TrainRate> m_rates;
  std::vector<TrainWork> m_work;
  std::vector<ProcessRow> m_processes;
  std::vector<ProcessName> m_process_names;
  std::map<std::string, std::uint32_t, std::less<>> m_process_name_ids;  // "type\tcommand" -> index
  std::string m_name_key;                                                // its lookup key, reused
  std::map<HandleKey, HandleHolding> m_handles;
  std::vector<JobRecord> m_jobs;
  extract::TraceJobCollector m_trace_jobs;
  IncidentStore m_incidents;
  std::vector<std::unique_ptr<SampleCollector>> m_others;
  const SampleCollector* m_first = nullptr;  ///< another host's collector: the first host's, which holds the jobs
  SampleCollector* m_last_other = nullptr;   ///< the other host's collector sample_target found last
  std::size_t m_sample_budget = SampleStore::kDefaultBudget, m_incident_budget = IncidentStore::kDefaultBudget;

  std::string m_host, m_incident_host, m_logs_tz, m_host_basis;
  InputGpus m_input_gpus;
  bool m_host_logs = false;  // a kernel log, dmesg, journal or bug report was among the inputs
  bool m_pmon = false;
};

}  // namespace gpucost::extract

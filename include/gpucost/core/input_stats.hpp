// InputStats: what reading one input accounted for (lines, events, clock, fingerprint, notes).
// prep fills it, the events stream carries it in its summary, extract, the ledger and the
// report read it; so it lives in core, apart from the parsers.
#pragma once

#include <gpucost/core/time.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpucost {

/// The formats prep reads. Their names, detection and parsers are prep's (gpucost/prep/prep.hpp).
enum class Format {
  unknown,
  dmon,             ///< nvidia-smi dmon
  pmon,             ///< nvidia-smi pmon
  query_csv,        ///< nvidia-smi --query-gpu CSV
  smi_q,            ///< nvidia-smi -q text
  smi_xml,          ///< nvidia-smi -q -x XML
  dcgmi,            ///< dcgmi dmon
  syslog,           ///< kern.log / syslog / messages (RFC 3164, RFC 3339 / ISO stamps)
  dmesg,            ///< dmesg: raw, -T, --time-format=iso, <prio>, /dev/kmsg records, --decode
  journal_json,     ///< journalctl -o json / json-pretty
  journal_text,     ///< journalctl -o short* text modes
  bug_report,       ///< nvidia-bug-report.log: sections handed to the parsers above
  kineto,           ///< PyTorch profiler / Kineto trace JSON (read whole, not line by line)
  torch_table,      ///< PyTorch profiler prof.key_averages().table(...)
  nsys,             ///< Nsight Systems nsys stats / profile --stats=true summaries (text, CSV)
  trainlog,         ///< Python training logs (HF/accelerate, Lightning, BasicSR, tqdm); --pattern lines
  prometheus_json,  ///< Prometheus HTTP API query_range / query JSON (dcgm-exporter, nvidia_gpu_exporter series)
  sacct,            ///< Slurm accounting records, sacct -P (jobs: window, nodes, GPUs, energy)
  exposition,       ///< an exporter's /metrics text (Prometheus exposition format; dcgm-exporter, nvidia_gpu_exporter)
};

struct MalformedExample {
  std::uint64_t line = 0;
  std::string reason;
  std::string excerpt;
};

/// How an input's times were put on the UTC clock.
enum class TimeBasis { none, absolute, local, uptime, relative };
std::string_view to_string(TimeBasis b);

/// The software stack an input shows (driver and CUDA versions, GPU names, distinct GPUs, the
/// libraries a trace or training log names), from its gpu_info and driver events, a trace's
/// header and a log's environment lines; written in the summary when not empty, to compare two runs.
struct Fingerprint {
  std::vector<std::string> drivers, cuda, gpus;  ///< distinct values in first-seen order
  /// The other layers, each "name version": "CUDA runtime 12.9", "NCCL 2.17.1", "PyTorch 2.3.1+cu121".
  std::vector<std::string> stack;
  std::uint64_t gpu_count = 0;  ///< distinct GPUs seen
  [[nodiscard]] bool empty() const {
    return drivers.empty() && cuda.empty() && gpus.empty() && stack.empty() && gpu_count == 0;
  }
  /// Appends `value` to `list` unless it is empty or already there.
  static void add(std::vector<std::string>& list, std::string_view value) {
    if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) list.emplace_back(value);
  }
  /// `other`'s values added (each once), the larger GPU count kept.
  void merge(const Fingerprint& other) {
    for (const auto& [to, from] : {std::pair{&drivers, &other.drivers}, std::pair{&cuda, &other.cuda},
                                   std::pair{&gpus, &other.gpus}, std::pair{&stack, &other.stack}})
      for (const std::string& v : *from) add(*to, v);
    gpu_count = std::max(gpu_count, other.gpu_count);
  }
};

/// Per-input accounting: lines == event lines + ignored + malformed.
struct InputStats {
  std::string path;
  Format format = Format::unknown;
  std::string compression = "none";
  std::uint64_t lines = 0, events = 0, ignored = 0, malformed = 0;
  std::uint64_t event_lines = 0;  ///< lines that became (part of) events; == events for tables
  std::uint64_t duplicates = 0;   ///< events dropped because another input gave them (overlapping rotations)
  std::string clock;              ///< how times were placed, e.g. "uptime + boot time from --boot-time"
  std::int64_t first_ts_ns = 0, last_ts_ns = 0;  ///< span of the events (valid when events > 0)
  TimeBasis time_basis = TimeBasis::none;
  std::vector<MalformedExample> examples;  ///< the first kMaxExamples malformed lines
  static constexpr std::size_t kMaxExamples = 5;
  std::vector<std::string> notes;  ///< e.g. "no --start: times are relative"
  /// Clock anomalies in input order: steps back of more than 1 s, gaps of more than an hour.
  struct ClockAnomalies {
    std::uint64_t steps_back = 0, gaps = 0;
    std::int64_t largest_back_ns = 0, largest_gap_ns = 0;
    std::uint64_t largest_back_line = 0, largest_gap_line = 0;
  } clock_anomalies;
  /// Events of local time in the repeated hour of a DST fall-back, placed at its first
  /// occurrence (LocalClock::to_utc_ns); one entry per fall-back, in the order met.
  struct RepeatedHour {
    FallBack fall_back;
    std::uint64_t events = 0;
    std::uint64_t step_line = 0;  ///< the line where the times step back into the hour (0: none seen)
    std::int64_t step_ns = 0;     ///< how far they step back there
  };
  std::vector<RepeatedHour> repeated_hours;
  std::string truncated;  ///< non-empty when the input ended early
  Fingerprint fingerprint;
  /// Host names the input's own lines give (syslog's host field, journal's _HOSTNAME), distinct,
  /// first seen first (at most kMaxHosts); empty when --host overrides them or the log has none.
  std::vector<std::string> hosts;
  static constexpr std::size_t kMaxHosts = 16;
  /// What the reader must not miss (printed as warnings, also with --quiet): e.g. a host log
  /// whose events all fall outside the telemetry's span (pipeline::check_clocks_and_hosts).
  std::vector<std::string> warnings;
  std::vector<std::string> upstream_formats;  ///< an events stream: the formats its summary names
  /// An events stream: each upstream input's fingerprint, in upstream_formats' order (a telemetry's
  /// GPU names price the speed ratio, a trace's are checked against them, a training log's estimate).
  std::vector<Fingerprint> upstream_fingerprints;
  /// The zone local times were read in: a raw log's (--tz or this machine's), an events stream's
  /// header; empty for a trace (its times are absolute) and an empty input.
  std::string logs_tz;
  /// Where the host of its events whose lines name none comes from ("option", "logs",
  /// "machine": PrepOptions::host_basis); an events stream: its header's; empty: not known.
  std::string host_basis;
};

/// Adds a note to the input's summary unless it is already there.
void add_note(InputStats& stats, std::string text);

}  // namespace gpucost

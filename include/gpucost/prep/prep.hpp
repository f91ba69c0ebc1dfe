// Stage 1, prep: raw tool output -> normalised events on one UTC clock.
// run_prep() detects each input's format, runs its line parser and hands every event to a sink;
// it accounts for every line (event, ignored or malformed) in InputStats.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event.hpp>
#include <gpucost/core/time.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::io {
class LineReader;
struct Line;
}  // namespace gpucost::io

namespace gpucost::prep {

enum class Format {
  unknown,
  dmon,          ///< nvidia-smi dmon
  pmon,          ///< nvidia-smi pmon
  query_csv,     ///< nvidia-smi --query-gpu CSV
  smi_q,         ///< nvidia-smi -q text
  smi_xml,       ///< nvidia-smi -q -x XML
  dcgmi,         ///< dcgmi dmon
  syslog,        ///< kern.log / syslog / messages (RFC 3164, RFC 3339 / ISO stamps)
  dmesg,         ///< dmesg: raw, -T, --time-format=iso, <prio>, /dev/kmsg records, --decode
  journal_json,  ///< journalctl -o json / json-pretty
  journal_text,  ///< journalctl -o short* text modes
  bug_report,    ///< nvidia-bug-report.log: sections handed to the parsers above
  kineto,        ///< PyTorch profiler / Kineto trace JSON (read whole, not line by line)
  torch_table,   ///< PyTorch profiler prof.key_averages().table(...)
  nsys,          ///< Nsight Systems nsys stats / profile --stats=true summaries (text, CSV)
  trainlog,      ///< Python training logs (HF/accelerate, Lightning, BasicSR, tqdm); --pattern lines
};

std::string_view format_name(Format f);
/// "dmon", "pmon", "query-csv" (also "query_csv", "csv"); false when unknown.
bool format_from_name(std::string_view name, Format& out);
/// Names accepted by --input-format, for help text and hints.
std::string format_names();

/// What an input of a format holds, from the format's row in the format table (src/prep/formats.cpp).
struct FormatTraits {
  bool telemetry = false;       ///< GPU samples at a fixed interval: a clock step back or an hour's gap is an anomaly
  bool host_log = false;        ///< the host's kernel or system log, checked against the telemetry's span
  bool year_less = false;       ///< stamps without a year: read after the telemetry and dated against it
  bool profiler = false;        ///< profiler output: the GPUs it names are those of the profiled run
  bool whole_document = false;  ///< read whole, in one step, not line by line (a trace)
};
/// All false for Format::unknown.
FormatTraits format_traits(Format f);

/// Receives events; the Event and its string_views are valid only during the call.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& event) = 0;
};

struct MalformedExample {
  std::uint64_t line = 0;
  std::string reason;
  std::string excerpt;
};

/// How an input's times were put on the UTC clock.
enum class TimeBasis { none, absolute, local, uptime, relative };
std::string_view to_string(TimeBasis b);

/// The software stack an input shows (driver and CUDA versions, GPU names, distinct GPUs), from
/// its gpu_info and driver events; written in the summary when not empty, to compare two runs.
struct Fingerprint {
  std::vector<std::string> drivers, cuda, gpus;  ///< distinct values in first-seen order
  std::uint64_t gpu_count = 0;                   ///< distinct GPUs seen
  [[nodiscard]] bool empty() const { return drivers.empty() && cuda.empty() && gpus.empty() && gpu_count == 0; }
  /// Appends `value` to `list` unless it is empty or already there.
  static void add(std::vector<std::string>& list, std::string_view value) {
    if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) list.emplace_back(value);
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
  std::vector<MalformedExample> examples;  ///< the first few malformed lines
  std::vector<std::string> notes;          ///< e.g. "no --start: times are relative"
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
  std::string truncated;                   ///< non-empty when the input ended early
  Fingerprint fingerprint;
  /// Host names the input's own lines give (syslog's host field, journal's _HOSTNAME), distinct,
  /// first seen first (at most kMaxHosts); empty when --host overrides them or the log has none.
  std::vector<std::string> hosts;
  static constexpr std::size_t kMaxHosts = 16;
  /// What the reader must not miss (printed as warnings, also with --quiet): e.g. a host log
  /// whose events all fall outside the telemetry's span (pipeline::check_clocks_and_hosts).
  std::vector<std::string> warnings;
  std::vector<std::string> upstream_formats;  ///< an events stream: the formats its summary names
  /// The zone local times were read in: a raw log's (--tz or this machine's), an events stream's
  /// header; empty for a trace (its times are absolute) and an empty input.
  std::string logs_tz;
};

/// Adds a note to the input's summary unless it is already there.
void add_note(InputStats& stats, std::string text);

/// The first and last telemetry sample of a run (ns since the epoch, UTC), both inside: the
/// time the job ran, against which the year of a year-less host log is checked.
struct TelemetrySpan {
  std::int64_t first_ns = 0, last_ns = 0;
  [[nodiscard]] bool contains(std::int64_t ts_ns) const { return ts_ns >= first_ns && ts_ns <= last_ns; }
};

struct PrepOptions {
  Format forced = Format::unknown;          ///< --input-format; unknown = detect
  std::optional<CivilTime> date;            ///< --date, for dmon -o T
  std::optional<IsoInstant> start;          ///< --start, for inputs without times
  std::optional<double> interval_s;         ///< --interval (seconds)
  std::string fields;                       ///< --fields, for query CSV without a header
  std::string host = "localhost";           ///< host name of events whose line names none
  bool host_given = false;                  ///< --host was given: it wins over the host names in the logs
  std::optional<std::int64_t> boot_time_ns; ///< --boot-time, for dmesg uptime stamps
  std::string boot_time_origin = "--boot-time";  ///< where boot_time_ns came from, for the summary
  std::optional<int> year;                  ///< --year, for syslog/journal stamps without a year
  /// The telemetry of the same run, read before the year-less logs: when the inferred year puts
  /// all of a log's events outside it, the year that puts them inside is used (formats.md).
  std::optional<TelemetrySpan> telemetry_span;
  std::optional<std::int64_t> step_first, step_last;  ///< --steps A[-B]: trace analyses on ProfilerStep#A..B
  std::size_t top_kernels = 10;             ///< --top-kernels: kernels listed per device from a trace
  std::size_t max_line = 4u << 20;          ///< --max-line: longer lines are malformed (with their length), not held
  std::vector<std::string> patterns;        ///< --pattern: RE2 with named groups, for training logs
  std::size_t max_examples = 5;
};

/// Compiles every --pattern once to check it: an invalid one fails (ErrorKind::usage) with a hint.
Status check_patterns(const std::vector<std::string>& patterns);

/// Detects the format of an input from its first bytes; Format::unknown when none fits.
Format detect_format(std::string_view head, const PrepOptions& options);

/// Fails with a hint when `head` (the start of input `path`) is of no known format; an empty
/// input is fine (it has nothing to parse).
Status check_format(std::string_view head, const PrepOptions& options, const std::string& path);

/// Parses one input into `sink`. Fails (ErrorKind::format) only when the format cannot be
/// determined; bad lines are counted in `stats`, never errors.
Status run_prep_input(io::LineReader& reader, const PrepOptions& options, LocalClock& clock,
                      EventSink& sink, InputStats& stats);

/// One input parsed a line at a time: what run_prep_input() does, in steps, so that several
/// inputs can be read side by side (the time-ordered merge of `gpucost prep`).
class InputParse {
 public:
  InputParse(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink,
             InputStats& stats);
  ~InputParse();
  InputParse(const InputParse&) = delete;
  InputParse& operator=(const InputParse&) = delete;
  /// Detects the format and creates the parser; fails like run_prep_input.
  Status start();
  /// Reads and parses one line (its events go to the sink); false once the input is done.
  bool step();
  /// The lines read so far only restored the parser's state: no event of theirs is emitted
  /// later (the parser's end_replay).
  void end_replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace gpucost::prep

// Stage 1, prep: raw tool output -> normalised events on one UTC clock.
// run_prep() detects each input's format, runs its line parser and hands every event to a sink;
// it accounts for every line (event, ignored or malformed) in InputStats.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/formats.hpp>
#include <gpucost/core/input_stats.hpp>
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

// The contract prep shares with the other stages (EventSink, InputStats, the Format it holds and
// the formats' names and traits) is in core; the formats' detection and parsers are here.

/// The Prometheus metric names the prometheus-json format reads (dcgm-exporter's DCGM_FI_*,
/// nvidia_gpu_exporter's nvidia_smi_*), in its table's order: what `--prometheus` asks for.
std::vector<std::string_view> prometheus_metric_names();

/// The first and last telemetry sample of a run (ns since the epoch, UTC), both inside: the
/// time the job ran, against which the year of a year-less host log is checked.
struct TelemetrySpan {
  std::int64_t first_ns = 0, last_ns = 0;
  [[nodiscard]] bool contains(std::int64_t ts_ns) const { return ts_ns >= first_ns && ts_ns <= last_ns; }
};

struct PrepOptions {
  Format forced = Format::unknown;   ///< --input-format; unknown = detect
  std::optional<CivilTime> date;     ///< --date, for dmon -o T
  std::optional<IsoInstant> start;   ///< --start, for inputs without times
  std::optional<double> interval_s;  ///< --interval (seconds)
  std::string fields;                ///< --fields, for query CSV without a header
  std::string host = "localhost";    ///< host name of events whose line names none
  bool host_given = false;           ///< --host was given: it wins over the host names in the logs
  /// Where `host` comes from: "option" (--host), "logs" (an input of the run names it, and the
  /// inputs that name none take it), "machine" (this machine's name: no input names a host).
  std::string host_basis = "machine";
  /// --sacct-format: the field list of sacct output without a header (`-n`), in sacct's --format
  /// syntax (comma-separated names, %N widths ignored); empty: the documented list.
  std::string sacct_format;
  /// --sacct-delimiter: the delimiter of sacct output written with --delimiter=STR; empty: `|`,
  /// or a multi-character delimiter found on every line (docs/formats.md).
  std::string sacct_delimiter;
  std::optional<std::int64_t> boot_time_ns;      ///< --boot-time, for dmesg uptime stamps
  std::string boot_time_origin = "--boot-time";  ///< where boot_time_ns came from, for the summary
  std::optional<int> year;                       ///< --year, for syslog/journal stamps without a year
  /// The telemetry of the same run, read before the year-less logs: when the inferred year puts
  /// all of a log's events outside it, the year that puts them inside is used (formats.md).
  std::optional<TelemetrySpan> telemetry_span;
  std::optional<std::int64_t> step_first, step_last;  ///< --steps A[-B]: trace analyses on ProfilerStep#A..B
  std::size_t top_kernels = 10;                       ///< --top-kernels: kernels listed per device from a trace
  bool trace_operators = false;       ///< a trace_op event per CPU operator name (trace --diff's operator comparison)
  std::size_t max_line = 4u << 20;    ///< --max-line: longer lines are malformed (with their length), not held
  std::vector<std::string> patterns;  ///< --pattern: RE2 with named groups, for training logs
  /// --match: label matchers (`Hostname="node01"`, `pod=~"llm-.*"`) every series of a saved
  /// Prometheus answer or an exporter's /metrics text must meet; the others are ignored.
  std::vector<std::string> label_matchers;
  /// -j: threads the run may use (core/parallel.hpp). 2 or more decompress .gz/.zst inputs beside
  /// their parse, parse one input's chunks side by side where its format and the sink allow
  /// (InputParse::run_to_end), and walk extract's GPUs side by side.
  unsigned jobs = 1;
  /// --critical-path (gpucost trace): keep a trace's CPU records and emit each step's critical
  /// path (trace_critical_path, trace_critical_op).
  bool critical_path = false;
  /// A parse of an input's start whose counts are dropped (the host names it names): its summary
  /// line is logged at debug level, marked as such, not as the input's (-v).
  bool look_ahead = false;
};

/// Compiles every --pattern once to check it: an invalid one fails (ErrorKind::usage) with a hint.
Status check_patterns(const std::vector<std::string>& patterns);

/// Compiles every --match once to check it: one that is not a matcher, or whose regex does not
/// compile, fails (ErrorKind::usage) with a hint.
Status check_label_matchers(const std::vector<std::string>& matchers);

/// Detects the format of an input from its first bytes; Format::unknown when none fits.
Format detect_format(std::string_view head, const PrepOptions& options);

/// Fails with a hint when `head` (the start of input `path`) is of no known format; an empty
/// input is fine (it has nothing to parse).
Status check_format(std::string_view head, const PrepOptions& options, const std::string& path);
/// The same check for a head whose format is known already (forced, or detected once by the caller).
Status check_format(std::string_view head, Format format, const PrepOptions& options, const std::string& path);

/// Parses one input into `sink`. Fails (ErrorKind::format) only when the format cannot be
/// determined; bad lines are counted in `stats`, never errors.
/// `known`: the format found when the input was probed (pipeline::probe_inputs); none: detected here.
Status run_prep_input(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink,
                      InputStats& stats, std::optional<Format> known = std::nullopt);

/// One input parsed a line at a time: what run_prep_input() does, in steps, so that several
/// inputs can be read side by side (the time-ordered merge of `gpucost prep`).
class InputParse {
 public:
  InputParse(io::LineReader& reader, const PrepOptions& options, LocalClock& clock, EventSink& sink, InputStats& stats);
  ~InputParse();
  InputParse(const InputParse&) = delete;
  InputParse& operator=(const InputParse&) = delete;
  /// Detects the format (unless `known`, from the probe) and creates the parser; fails like run_prep_input.
  Status start(std::optional<Format> known = std::nullopt);
  /// Reads and parses one line (its events go to the sink); false once the input is done.
  bool step();
  /// Reads and parses every line left: with PrepOptions::jobs of 2 or more, one input's chunks
  /// side by side where its format and the sink allow (ForkableSink; src/prep/chunked_parse.cpp).
  void run_to_end();
  /// The lines read so far only restored the parser's state: no event of theirs is emitted
  /// later (the parser's end_replay).
  void end_replay();
  /// --follow: the end of the input is only the end so far. step() then returns false there
  /// without ending the parse (more lines may come: LineReader::rearm), until finish().
  void set_live();
  /// Ends a live parse: the parser's held events and the input's notes (nothing when ended).
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace gpucost::prep

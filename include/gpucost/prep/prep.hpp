// Stage 1, prep: raw tool output -> normalised events on one UTC clock.
// run_prep() detects each input's format, runs its line parser and hands every event to a sink;
// it accounts for every line (event, ignored or malformed) in InputStats.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>
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

// The contract prep shares with the other stages (EventSink, InputStats and the Format it holds)
// is in core; the formats' names and detection are here.

std::string_view format_name(Format f);
/// "dmon", "pmon", "query-csv" (also "query_csv", "csv"); false when unknown.
bool format_from_name(std::string_view name, Format& out);
/// Names accepted by --input-format, for help text and hints.
std::string format_names();

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
  /// later (LineParser::end_replay).
  void end_replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// ---- parser plumbing, shared by the per-format parsers --------------------------------

/// What became of a line. `deferred`: the parser holds it (a multi-line record) and accounts
/// for it later with ParseContext::settle().
enum class LineResult { event, ignored, malformed, deferred };

/// What a parser needs besides the line: options, clock, the event to fill, the sink.
struct ParseContext {
  const PrepOptions& options;
  LocalClock& clock;
  EventSink& sink;
  InputStats& stats;
  Event event;
  std::string_view reason;  ///< set by a parser that returns LineResult::malformed
  std::string reason_buf;   ///< owns a formatted reason when a literal is not enough

  std::optional<std::int64_t> reference_ns;  ///< the input's mtime: a reference for year inference
  std::uint64_t line_no = 0;                  ///< number of the line being parsed

  static constexpr std::int64_t kStepBackTolerance = 1'000'000'000;  ///< log lines of 1 s jitter are not a step back
  static constexpr std::int64_t kGapNs = 3600'000'000'000;            ///< silence of more than an hour is a gap
  std::int64_t previous_ts = 0;  ///< time of the previous event, in input order
  int previous_repeat = -1;      ///< stats.repeated_hours entry of the previous event (-1: none)
  bool check_clock = false;      ///< telemetry inputs: note clock steps back and long gaps

  /// Sends the filled event to the sink. `event.host` is the host its line names, if the
  /// parser set one; --host wins over it, and the option's host fills in when there is none.
  void emit() {
    const int repeat = clock.fall_backs().empty() || stats.time_basis != TimeBasis::local ? -1 : note_repeated_hour();
    if (stats.events > 0 && (check_clock || repeat >= 0 || previous_repeat >= 0))
      note_clock_step(event.ts_ns - previous_ts, repeat);
    previous_ts = event.ts_ns;
    previous_repeat = repeat;
    if (options.host_given || event.host.empty()) event.host = options.host;
    else note_host(event.host, stats);
    if (stats.events == 0 || event.ts_ns < stats.first_ts_ns) stats.first_ts_ns = event.ts_ns;
    if (stats.events == 0 || event.ts_ns > stats.last_ts_ns) stats.last_ts_ns = event.ts_ns;
    if (event.kind == "driver") note_driver(event, stats);
    sink.on_event(event);
    event.host = {};  // the next event's line sets its own
    ++stats.events;
  }
  /// Adds a host name a line gave to the input's list (distinct, bounded).
  static void note_host(std::string_view host, InputStats& stats) {
    if (!stats.hosts.empty() && stats.hosts.back() == host) return;
    if (stats.hosts.size() >= InputStats::kMaxHosts) return;
    if (std::find(stats.hosts.begin(), stats.hosts.end(), host) == stats.hosts.end()) stats.hosts.emplace_back(host);
  }
  /// The stats.repeated_hours entry of the event when its time lies where the local times of a
  /// DST fall-back's repeated hour are placed (counted there); -1 when it does not.
  int note_repeated_hour();
  /// Counts a step back or a long gap of the clock (NTP steps, a stopped logger): events stay
  /// in input order and the summary says where. The first step back inside a repeated hour is
  /// the DST change (the log went on in the hour's second occurrence), noted with it instead;
  /// leaving that hour, its length is taken off the step. Only telemetry (check_clock) counts
  /// anomalies.
  void note_clock_step(std::int64_t step_ns, int repeat) {
    if (repeat >= 0 && repeat == previous_repeat && step_ns < -kStepBackTolerance) {
      auto& r = stats.repeated_hours[static_cast<std::size_t>(repeat)];
      if (r.step_line == 0) {
        r.step_line = line_no;
        r.step_ns = -step_ns;
        return;
      }
    }
    if (previous_repeat >= 0 && repeat != previous_repeat &&
        static_cast<std::size_t>(previous_repeat) < stats.repeated_hours.size()) {
      const auto& r = stats.repeated_hours[static_cast<std::size_t>(previous_repeat)];
      if (r.step_line != 0 && event.ts_ns >= r.fall_back.at_ns) step_ns -= r.fall_back.repeat_ns;
    }
    if (!check_clock) return;
    auto& a = stats.clock_anomalies;
    if (step_ns < -kStepBackTolerance) {
      ++a.steps_back;
      if (-step_ns > a.largest_back_ns) {
        a.largest_back_ns = -step_ns;
        a.largest_back_line = line_no;
      }
    } else if (step_ns > kGapNs) {
      ++a.gaps;
      if (step_ns > a.largest_gap_ns) {
        a.largest_gap_ns = step_ns;
        a.largest_gap_line = line_no;
      }
    }
  }
  /// A driver-load event names the driver version: it goes into the input's fingerprint.
  static void note_driver(const Event& event, InputStats& stats);
  /// Accounts for `lines` lines held back earlier (LineResult::deferred), starting at line
  /// `first_line`; for `malformed`, `reason` and `excerpt` describe them.
  void settle(LineResult result, std::uint64_t lines, std::uint64_t first_line = 0, std::string_view why = {},
              std::string_view excerpt = {});
  LineResult malformed(std::string_view why) {
    reason = why;
    return LineResult::malformed;
  }
};

/// One parser per format; created per input, so it may keep per-file state.
class LineParser {
 public:
  virtual ~LineParser() = default;
  virtual LineResult parse(std::string_view line, ParseContext& ctx) = 0;
  /// End of input: emit and settle() whatever is still held back.
  virtual void finish(ParseContext& ctx) { (void)ctx; }
  /// The lines parsed so far were replayed to restore this parser's state (a resumed batch
  /// run; their events were counted before): close any record still open, and never emit
  /// what is held back from them, even once the rest of the input places it.
  virtual void end_replay(ParseContext& ctx) { (void)ctx; }
};

}  // namespace gpucost::prep

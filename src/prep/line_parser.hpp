// Parser plumbing, private to prep: what a per-format parser gets (ParseContext), what it says
// of each line (LineResult), and its interface (LineParser). The driver (prep.cpp) creates one
// parser per input and accounts for every line with them.
#pragma once

#include <gpucost/prep/prep.hpp>

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
  std::uint64_t line_no = 0;                 ///< number of the line being parsed

  static constexpr std::int64_t kStepBackTolerance = 1'000'000'000;  ///< log lines of 1 s jitter are not a step back
  static constexpr std::int64_t kGapNs = 3600'000'000'000;           ///< silence of more than an hour is a gap
  std::int64_t previous_ts = 0;                                      ///< time of the previous event, in input order
  int previous_repeat = -1;  ///< stats.repeated_hours entry of the previous event (-1: none)
  bool check_clock = false;  ///< telemetry inputs: note clock steps back and long gaps

  /// A chunk of the input parsed on a worker thread (-j, chunked_parse.cpp) cannot tell how its
  /// events' times follow the chunk before: it writes them down here instead, and the thread that
  /// joins the chunks in input order notes them (note_time) as if they had come one by one.
  struct TimeMark {
    std::int64_t ts_ns;
    std::uint64_t line;
  };
  std::vector<TimeMark>* time_marks = nullptr;

  /// Sends the filled event to the sink. `event.host` is the host its line names, if the
  /// parser set one; --host wins over it, and the option's host fills in when there is none.
  void emit() {
    if (time_marks != nullptr)
      time_marks->push_back(TimeMark{event.ts_ns, line_no});
    else
      note_time(event.ts_ns, line_no);
    if (options.host_given || event.host.empty())
      event.host = options.host;
    else
      note_host(event.host, stats);
    if (stats.events == 0 || event.ts_ns < stats.first_ts_ns) stats.first_ts_ns = event.ts_ns;
    if (stats.events == 0 || event.ts_ns > stats.last_ts_ns) stats.last_ts_ns = event.ts_ns;
    if (event.kind == "driver") note_driver(event, stats);
    sink.on_event(event);
    event.host = {};  // the next event's line sets its own
    ++stats.events;
  }
  /// What depends on the events before (in input order): the repeated hour of a DST fall-back,
  /// steps back and gaps of the clock. Counts on stats.events being the events before this one.
  void note_time(std::int64_t ts_ns, std::uint64_t line) {
    const int repeat =
        clock.fall_backs().empty() || stats.time_basis != TimeBasis::local ? -1 : note_repeated_hour(ts_ns);
    if (stats.events > 0 && (check_clock || repeat >= 0 || previous_repeat >= 0))
      note_clock_step(ts_ns - previous_ts, repeat, ts_ns, line);
    previous_ts = ts_ns;
    previous_repeat = repeat;
  }
  /// Adds a host name a line gave to the input's list (distinct, bounded).
  static void note_host(std::string_view host, InputStats& stats) {
    if (!stats.hosts.empty() && stats.hosts.back() == host) return;
    if (stats.hosts.size() >= InputStats::kMaxHosts) return;
    if (std::find(stats.hosts.begin(), stats.hosts.end(), host) == stats.hosts.end()) stats.hosts.emplace_back(host);
  }
  /// The stats.repeated_hours entry of the event when its time lies where the local times of a
  /// DST fall-back's repeated hour are placed (counted there); -1 when it does not.
  int note_repeated_hour(std::int64_t ts_ns);
  /// Counts a step back or a long gap of the clock (NTP steps, a stopped logger): events stay
  /// in input order and the summary says where. The first step back inside a repeated hour is
  /// the DST change (the log went on in the hour's second occurrence), noted with it instead;
  /// leaving that hour, its length is taken off the step. Only telemetry (check_clock) counts
  /// anomalies.
  void note_clock_step(std::int64_t step_ns, int repeat, std::int64_t ts_ns, std::uint64_t line) {
    if (repeat >= 0 && repeat == previous_repeat && step_ns < -kStepBackTolerance) {
      auto& r = stats.repeated_hours[static_cast<std::size_t>(repeat)];
      if (r.step_line == 0) {
        r.step_line = line;
        r.step_ns = -step_ns;
        return;
      }
    }
    if (previous_repeat >= 0 && repeat != previous_repeat &&
        static_cast<std::size_t>(previous_repeat) < stats.repeated_hours.size()) {
      const auto& r = stats.repeated_hours[static_cast<std::size_t>(previous_repeat)];
      if (r.step_line != 0 && ts_ns >= r.fall_back.at_ns) step_ns -= r.fall_back.repeat_ns;
    }
    if (!check_clock) return;
    auto& a = stats.clock_anomalies;
    if (step_ns < -kStepBackTolerance) {
      ++a.steps_back;
      if (-step_ns > a.largest_back_ns) {
        a.largest_back_ns = -step_ns;
        a.largest_back_line = line;
      }
    } else if (step_ns > kGapNs) {
      ++a.gaps;
      if (step_ns > a.largest_gap_ns) {
        a.largest_gap_ns = step_ns;
        a.largest_gap_line = line;
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
  /// True when the parser has a prefilter (skip_ignored); asked once per input.
  [[nodiscard]] virtual bool has_prefilter() const { return false; }
  /// The prefilter: how many bytes of the leading whole lines of `lines` (each ended by '\n';
  /// what follows the last '\n' is not a whole line) parse() would only count as ignored,
  /// changing nothing a later line reads but what this call sets itself; `count` gets their
  /// number. The caller counts them as ignored lines without parsing them. A line of more than
  /// 4 KiB, which may be overlong, is never skipped. 0 (the default): the next line is parsed.
  virtual std::size_t skip_ignored(std::string_view lines, std::uint64_t& count) {
    (void)lines;
    count = 0;
    return 0;
  }
  /// End of input: emit and settle() whatever is still held back.
  virtual void finish(ParseContext& ctx) { (void)ctx; }
  /// The lines parsed so far were replayed to restore this parser's state (a resumed batch
  /// run; their events were counted before): close any record still open, and never emit
  /// what is held back from them, even once the rest of the input places it.
  /// --follow, at the end of what the input holds so far: emit what is held back for a later
  /// line to settle (a syslog's year-less stamps, dated now by the file's time), since the next
  /// line may be hours away.
  virtual void settle_live(ParseContext& ctx) { (void)ctx; }
  virtual void end_replay(ParseContext& ctx) { (void)ctx; }
  /// A format read whole (FormatTraits::whole_document: a trace) is given the whole input here,
  /// in one step, instead of parse() per line.
  virtual void parse_whole(io::LineReader& reader, ParseContext& ctx) {
    (void)reader;
    (void)ctx;
  }

  // -j: one input cut into chunks parsed side by side (chunked_parse.cpp). A chunk's parser is a
  // copy of the parser as it stood at some earlier line; the chunks are joined in input order.

  /// A copy of this parser's state, bound to `ctx` (a chunk's own context); null when the format
  /// is read on one thread only (the default).
  [[nodiscard]] virtual std::unique_ptr<LineParser> clone(ParseContext& ctx) const {
    (void)ctx;
    return nullptr;
  }
  /// This parser stands at the true end of the lines before `chunk`, which was clone()d from an
  /// earlier state and has parsed the chunk's lines. When what those lines read of the state the
  /// chunk started with equals this state, takes the chunk's end state and returns true: the
  /// chunk's events are those a parse on one thread makes. Else returns false, unchanged, and the
  /// caller parses the chunk again with this parser.
  virtual bool continue_with(LineParser& chunk) {
    (void)chunk;
    return false;
  }
  /// The fewest threads (-j) with which chunks pay: a format parsed at the speed of a copy
  /// (journal JSON) gains only when two workers parse beside the thread that cuts the chunks.
  [[nodiscard]] virtual unsigned chunks_from_jobs() const { return 2; }
  /// False when a chunk must not end after `line` (it leaves a multi-line record open); the
  /// chunk then takes the lines up to one after which it may.
  [[nodiscard]] virtual bool may_cut_after(std::string_view line) const {
    (void)line;
    return true;
  }
  /// True when a chunk may end after any line (may_cut_after() is always true): a plain file's
  /// chunks are then cut by byte offsets, each read by its worker (chunked_parse.cpp).
  [[nodiscard]] virtual bool cuts_anywhere() const { return true; }
  /// True when a copy of this parser, given every line in input order on the reading thread
  /// (skim()), keeps what a chunk needs at its start better than the joined state (dmon's
  /// cycle count, which every row moves): the chunks are then copied from it.
  [[nodiscard]] virtual bool skims() const { return false; }
  /// A cheap look at one line, ahead of its parse. It only has to be right mostly: a chunk
  /// copied from a wrong state is caught by continue_with() and parsed again.
  virtual void skim(std::string_view line) { (void)line; }
  /// A chunk was parsed again: this parser stands at its true end, where the chunk after it,
  /// `next` (null when not handed out yet), started from what the skimmer had then. Sets right
  /// `skimmer`, which has skimmed on since, by what it missed.
  virtual void resync_skim(LineParser& skimmer, const LineParser* next) const {
    (void)skimmer;
    (void)next;
  }
};

/// Accounts for one line: parses it with `parser` (an overlong line is malformed) and counts it.
void parse_line(LineParser& parser, ParseContext& ctx, const io::Line& line);

}  // namespace gpucost::prep

// Feeding a stage from its inputs: raw logs (prep in-process), gpucost.events streams, or a
// gpucost.features document. Globs are expanded here so cron jobs can quote them.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpucost::pipeline {

/// Expands arguments that contain * ? [ and do not exist as files (sorted, like the shell).
/// "-" stays stdin. Fails when a pattern matches nothing.
Expected<std::vector<std::string>> expand_inputs(const std::vector<std::string>& args);
/// Every command's inputs: a directory stands for the profiler traces in it (names ending
/// .json, .json.gz or .json.zst, as torch.profiler's tensorboard_trace_handler writes them; not
/// its subdirectories), sorted by name; other arguments are kept. A directory without one fails.
Expected<std::vector<std::string>> expand_trace_directories(const std::vector<std::string>& args);

/// What one input is, looked at once before anything is read, so that no later step opens it
/// to look again: a regular file is opened here and once more to be read.
struct ProbedInput {
  enum class Kind { raw_log, event_stream, features_document };
  std::string path;  ///< as given ("-": stdin)
  /// stdin, a pipe, <(...): not looked at ahead (a peek would block before the inputs before it
  /// are read); the reader that reads it looks at its start, as then the only time.
  bool read_once = false;
  Kind kind = Kind::raw_log;
  io::Compression compression = io::Compression::none;
  Format format = Format::unknown;    ///< --input-format, or detected here; unknown: an empty input
  std::optional<std::uint64_t> size;  ///< bytes, for a regular file
  int detections = 0;                 ///< times the format was detected here: once, or none when forced or read_once
  /// The input's bytes, already in memory (what --prometheus fetched); none: read from `path`,
  /// which then is the input's name only.
  std::shared_ptr<const std::string> content;
  /// The input's bytes as they are fetched (--prometheus' slices), read once; none: see content.
  std::shared_ptr<io::ByteSource> stream;
  /// The hosts the lines of its start name (a host log's host field or _HOSTNAME), distinct;
  /// empty when they name none or it was not looked at (a pipe, a format without host names).
  std::vector<std::string> named_hosts;

  /// The format a reader of this input starts with; none: to be detected from that reader.
  [[nodiscard]] std::optional<Format> known_format() const {
    return read_once ? std::nullopt : std::optional<Format>(format);
  }
};

/// A reader of the input: its content when it is in memory, else the file (or stdin) at its path.
Expected<std::unique_ptr<io::LineReader>> open_reader(const ProbedInput& input);

/// Opens every input that can be opened twice, reads its start and detects its format once;
/// fails on the first path that is missing, a directory, unreadable, or of no known format, so
/// that nothing is written before such an error ("-" and pipes are checked while they are read).
Expected<std::vector<ProbedInput>> probe_inputs(const std::vector<std::string>& paths,
                                                const prep::PrepOptions& options);

/// Whether `head`, the start of an input, is of a format gpucost reads (record keeps the rest
/// of a run folder unpriced).
bool is_readable_input(std::string_view head);

/// Reads one input of a known format with the default options into `sink` (record's sacct answer).
Status read_input_as(io::LineReader& reader, Format format, LocalClock& clock, EventSink& sink, InputStats& stats);

/// The bytes the inputs hold when every one is an uncompressed regular file (the progress line's
/// total); 0 when any is compressed or a stream: its decompressed size is unknown until read.
std::uint64_t plain_input_bytes(const std::vector<ProbedInput>& inputs);

/// When some input is dmesg and no --boot-time was given, takes the boot time from a
/// `journalctl -o json` input among the same paths: __REALTIME_TIMESTAMP − __MONOTONIC_TIMESTAMP
/// of the last boot the journal covers (dmesg shows the running boot). Otherwise `options`.
prep::PrepOptions with_journal_boot_time(const std::vector<ProbedInput>& inputs, prep::PrepOptions options);

/// Without --host, the host of the events whose lines name none (a query CSV, dmon, a trace):
/// the one host the inputs' starts name, else this machine's name (host_basis "logs" or
/// "machine"); when they name several, this machine's, and the several-hosts warning says so.
prep::PrepOptions with_host_from_inputs(const std::vector<ProbedInput>& inputs, prep::PrepOptions options);

/// Hands every event on to `sink` and keeps the span of the telemetry samples among them.
class TelemetrySpanSink final : public EventSink, public ForkableSink {
 public:
  explicit TelemetrySpanSink(EventSink& sink) : m_sink(sink) {}
  void on_event(const Event& event) override;
  /// Forkable when the sink it hands on to is: each fork keeps its chunk's span.
  ForkableSink* forkable() override { return m_sink.forkable() != nullptr ? this : nullptr; }
  [[nodiscard]] std::unique_ptr<EventSink> fork() override;
  void join(EventSink& forked) override;
  void discard(EventSink& forked) override;
  /// The first and last sample seen; none when no sample was.
  [[nodiscard]] const std::optional<prep::TelemetrySpan>& span() const { return m_span; }

 private:
  EventSink& m_sink;
  std::optional<prep::TelemetrySpan> m_span;
};

/// After the inputs of one run are read: a raw host log (syslog, journal, dmesg) whose events all
/// fall outside the telemetry's span gets a warning naming the shift ("its 14 events fall 3 days
/// after the telemetry ends: not priced"); when the host logs' lines name more than one host, the
/// input that names the second gets a warning naming them all. `span`: none without telemetry.
void check_clocks_and_hosts(std::span<InputStats> stats, const std::optional<prep::TelemetrySpan>& span);

/// Runs every input into `sink`: event streams are read back, raw logs go through prep.
/// One InputStats per input is appended to `stats` (also when it fails).
Status feed_inputs(const std::vector<ProbedInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                   EventSink& sink, std::vector<InputStats>& stats);

/// Runs every input into `sink` as extract, breakeven and report read them: event streams are
/// read back; raw logs of the same format (kern.log and kern.log.1, two CSV rotations, a file
/// given twice) are merged by time (pipeline::merge_into), so that the events one repeats from
/// another count once, as in `prep`; a log alone in its format is read straight through. One
/// InputStats per input is appended to `stats`, in command-line order. The year-less host logs
/// are read last, dated against the telemetry read before them (PrepOptions::telemetry_span),
/// and the inputs are checked with check_clocks_and_hosts().
Status collect_inputs(const std::vector<ProbedInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                      EventSink& sink, std::vector<InputStats>& stats);

/// Collects the inputs into `sink` (collect_inputs) and computes the features of `samples`: the
/// sink feeds them, or is them.
Expected<extract::Features> collect_features(const std::vector<ProbedInput>& inputs, const prep::PrepOptions& options,
                                             LocalClock& clock, EventSink& sink, extract::SampleCollector& samples,
                                             const extract::ExtractOptions& extract_options,
                                             std::vector<InputStats>& stats);

/// Features from the inputs: a single gpucost.features document is read as is; anything else
/// is collected and passed through extract.
Expected<extract::Features> load_features(const std::vector<ProbedInput>& inputs, const prep::PrepOptions& options,
                                          LocalClock& clock, const extract::ExtractOptions& extract_options,
                                          std::vector<InputStats>& stats);

}  // namespace gpucost::pipeline

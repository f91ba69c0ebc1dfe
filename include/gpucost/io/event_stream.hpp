// The gpucost.events stream (docs/formats.md): writer (JSON Lines or TSV) and reader.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/input_stats.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gpucost::io {

class LineReader;

inline constexpr std::string_view kEventsSchema = "gpucost.events";
inline constexpr int kEventsVersion = 1;

enum class StreamFormat { jsonl, tsv };

/// Writes events as they come; write_summary() ends the stream.
class EventWriter final : public EventSink, public ForkableSink {
 public:
  EventWriter(std::FILE* out, StreamFormat format);
  ~EventWriter() override;
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  /// Header line: schema, version, the zone used for local times, the generator, and where the
  /// host of events whose lines name none comes from (PrepOptions::host_basis; empty: not said).
  void write_header(const std::string& tz_name, const std::string& version, const std::string& host_basis = {});
  void on_event(const Event& event) override;
  /// prep -j: a fork formats its chunk's events into a buffer of its own; join() writes it.
  ForkableSink* forkable() override { return this; }
  [[nodiscard]] std::unique_ptr<EventSink> fork() override;
  void join(EventSink& forked) override;
  void discard(EventSink& forked) override;
  /// Appends the line on_event() would write to `out` (JSON Lines or TSV, with its '\n').
  void format(const Event& event, std::string& out);
  /// Writes a line made by format().
  void write_line(std::string_view line);
  /// Summary line with per-input counts (JSON Lines only; TSV has no summary row).
  void write_summary(const std::vector<InputStats>& inputs);
  /// prep --kinds/--from/--to: the summary also says what was selected and how many events were
  /// left out ("selection", "left_out").
  void set_selection(std::string description, std::uint64_t left_out);
  /// Events prep computed from several inputs together (trace_job, trace_rank): the summary's
  /// `derived`, apart from the inputs' own counts.
  void set_derived(std::uint64_t derived);
  void flush();
  [[nodiscard]] bool failed() const;

 private:
  struct Impl;
  Impl* m_impl;
};

/// True when `head` starts with a gpucost.events header line.
bool is_event_stream(std::string_view head);

/// Reads a gpucost.events JSON Lines stream back into events (for extract and breakeven).
/// Malformed lines are counted in `stats` like any other input.
Status read_event_stream(LineReader& reader, EventSink& sink, InputStats& stats);

}  // namespace gpucost::io

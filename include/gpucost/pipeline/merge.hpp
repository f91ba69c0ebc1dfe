// The time-ordered merge of `gpucost prep`: several inputs parsed side by side, their events
// written in time order, events repeated by overlapping rotated copies written once.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/prep/prep.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::pipeline {

/// How far back in time (in events) one input may jump and still come out in order: each
/// input keeps this many events in a small heap before releasing the earliest.
inline constexpr std::size_t kReorderWindow = 1024;

/// A k-way merge by ts_ns (ties: command-line order of the inputs). An event with the same
/// time and the same content as one already written from another input is dropped and
/// counted in that input's InputStats::duplicates. One InputStats per path is appended. Each
/// file is looked at ahead for the time of its first event, opened when the merge gets there
/// and closed when it is done: logs that follow each other in time (hourly rotations) hold one
/// file open at a time, however many there are.
Status merge_inputs(const std::vector<ProbedInput>& probed, const prep::PrepOptions& options, LocalClock& clock,
                    io::EventWriter& writer, std::vector<InputStats>& stats);
/// The same, into any sink (prep --kinds: the events pass through a filter before the writer).
Status merge_inputs(const std::vector<ProbedInput>& probed, const prep::PrepOptions& options, LocalClock& clock,
                    EventSink& sink, std::vector<InputStats>& stats);

/// One raw input of merge_into: its path (opened when the merge reaches its first event), or
/// an open reader (an input that can be read once: stdin, a pipe); and the InputStats its
/// parse fills (it must not move).
struct MergeInput {
  std::string path;
  std::unique_ptr<io::LineReader> reader;
  InputStats* stats = nullptr;
  std::optional<Format> format;  ///< found by the probe; none: detected when the input starts
};

/// The same merge into a sink (extract, breakeven, report): the events in time order, those
/// repeated by another input at the same time (overlapping rotated copies, a file given twice)
/// once, counted in `duplicates`. Each event is copied out of its parser while it waits.
Status merge_into(std::vector<MergeInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                  EventSink& sink);

}  // namespace gpucost::pipeline

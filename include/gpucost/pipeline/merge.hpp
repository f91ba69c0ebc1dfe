// The time-ordered merge of `gpucost prep`: several inputs parsed side by side, their events
// written in time order, events repeated by overlapping rotated copies written once.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <memory>
#include <string>
#include <vector>

namespace gpucost::pipeline {

/// How far back in time (in events) one input may jump and still come out in order: each
/// input keeps this many events in a small heap before releasing the earliest.
inline constexpr std::size_t kReorderWindow = 1024;

/// A k-way merge by ts_ns (ties: command-line order of the inputs). An event with the same
/// time and the same content as one already written from another input is dropped and
/// counted in that input's InputStats::duplicates. One InputStats per path is appended.
Status merge_inputs(const std::vector<std::string>& paths, const prep::PrepOptions& options, LocalClock& clock,
                    io::EventWriter& writer, std::vector<prep::InputStats>& stats);

/// One opened raw input of merge_into, and the InputStats its parse fills (it must not move).
struct MergeInput {
  std::unique_ptr<io::LineReader> reader;
  prep::InputStats* stats = nullptr;
};

/// The same merge into a sink (extract, breakeven, report): the events in time order, those
/// repeated by another input at the same time (overlapping rotated copies, a file given twice)
/// once, counted in `duplicates`. Each event is copied out of its parser while it waits.
Status merge_into(std::vector<MergeInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                  prep::EventSink& sink);

}  // namespace gpucost::pipeline

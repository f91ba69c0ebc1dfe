// -j N and several profiler traces (the ranks of a job): each trace is a whole document, parsed
// in one step with no parallelism inside, so the traces themselves are parsed side by side, N
// at a time, each into a buffer of its own; the buffers are then handed on in the order the
// inputs would have been read, so that any -j gives what -j 1 gives.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event_buffer.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/prep/prep.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::pipeline::detail {

/// An input that may be parsed ahead: its index among the caller's inputs, its file (opened again
/// here), the name its counts give it, its format as probed.
struct AheadInput {
  std::size_t index = 0;
  std::string path, name;
  std::optional<Format> format;
};

/// One input parsed ahead: its events and counts, the copy of the clock it converted times with,
/// and how the parse ended.
struct ParsedAhead {
  EventBuffer events;
  InputStats stats;
  LocalClock clock = LocalClock::utc();
  Status status;
};

/// Traces parsed ahead at once: 4 per thread of -j, enough to keep the threads busy while the
/// buffers (a trace's events are its summaries, not its ops) stay few.
[[nodiscard]] inline std::size_t ahead_batch(const prep::PrepOptions& options) { return options.jobs * 4; }

/// True when `format` (or --input-format) is parsed whole in one step: worth a thread of its own.
[[nodiscard]] bool parsed_whole(std::optional<Format> format, const prep::PrepOptions& options);

/// Parses `batch` on up to options.jobs threads, each input into ahead[its index]; nothing when
/// the batch holds fewer than two (the one is read in its turn).
void parse_ahead(const std::vector<AheadInput>& batch, const prep::PrepOptions& options, const LocalClock& clock,
                 std::vector<std::unique_ptr<ParsedAhead>>& ahead);

}  // namespace gpucost::pipeline::detail

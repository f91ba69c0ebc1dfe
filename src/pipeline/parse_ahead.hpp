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

/// An input that may be parsed ahead: a file (opened again here), the name its counts give it,
/// its format as probed.
struct AheadInput {
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

/// Traces parsed ahead at once, per thread of -j: enough to keep the threads busy while the
/// buffers (a trace's events are its summaries, not its ops) stay few.
inline constexpr std::size_t kAheadPerJob = 4;

/// True when `format` (or --input-format) is parsed whole in one step: worth a thread of its own.
[[nodiscard]] bool parsed_whole(std::optional<Format> format, const prep::PrepOptions& options);

/// Parses `inputs` on up to options.jobs threads; the result has one entry per input, in order.
[[nodiscard]] std::vector<std::unique_ptr<ParsedAhead>> parse_ahead(const std::vector<AheadInput>& inputs,
                                                                    const prep::PrepOptions& options,
                                                                    const LocalClock& clock);

}  // namespace gpucost::pipeline::detail

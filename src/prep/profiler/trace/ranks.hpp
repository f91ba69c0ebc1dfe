// A distributed job's ranks (docs/formats.md, "A job of ranks"): each rank's trace is summarised
// alone (its collectives, its exposed communication) and written as trace_comm and
// trace_collective events; extract groups them into jobs (extract/trace_jobs.hpp).
//
// Internal to prep, like trace.hpp.
#pragma once

#include "trace.hpp"

#include <gpucost/core/trace_rank.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prep::trace {

using gpucost::trace::Collective;
using gpucost::trace::kStripBins;
using gpucost::trace::kStripCompute;
using gpucost::trace::kStripExposed;
using gpucost::trace::kStripIdle;
using gpucost::trace::kStripOverlapped;
using gpucost::trace::RankSummary;

/// The rank a file name gives: the number after the last "rank-" or "rank_" (any case); -1 when none.
int rank_from_file_name(std::string_view path);

/// --steps A-B: the ProfilerSteps whose GPU ops count (those launched inside them, else starting
/// inside them); none: the whole trace.
struct StepRange {
  std::int64_t first = 0, last = 0;
};

/// Summarises one trace; `path` names it in notes. The exposure and the strip are computed for a
/// trace with communication kernels or of a job of several ranks (those prep writes a trace_comm
/// for), the strip when its GPU ops span some time.
RankSummary summarise_rank(const TraceData& data, std::string path, std::optional<StepRange> steps = std::nullopt);

}  // namespace gpucost::prep::trace

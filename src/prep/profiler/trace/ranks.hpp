// A distributed job's ranks side by side (docs/formats.md, "A job of ranks"): each rank's trace
// is summarised alone (its collectives, its exposed communication), then the summaries of the
// traces given together are grouped into jobs, their collectives matched across ranks, and the
// time ranks spent waiting in them for the last to arrive is counted.
//
// Internal to prep, like trace.hpp.
#pragma once

#include "trace.hpp"

#include <gpucost/prep/trace_jobs.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::prep::trace {

using prep::RankRow;
using prep::TraceJob;

/// One collective kernel of a rank (an NCCL or RCCL kernel), keyed for matching across ranks.
struct Collective {
  std::int64_t step = -1;  ///< the ProfilerStep its launch (else itself) starts in; -1: none
  std::uint32_t lane = 0;  ///< its (device, stream) among the rank's communication streams, in order
  std::uint32_t seq = 0;   ///< its order on that lane within the step
  int device = 0;
  std::int64_t start_ns = 0, dur_ns = 0;  ///< start: UTC when the trace is absolute, else its own clock
  std::string name;
};

/// What the job analysis needs of one rank's trace.
struct RankSummary {
  std::string path;
  int rank = -1;                ///< distributedInfo.rank, else the file name's rank-N; -1: none
  bool rank_from_name = false;  ///< the rank was read from the file name
  int world_size = -1;
  std::string backend;
  bool absolute = false;                  ///< times are UTC (epoch-based stamps)
  std::int64_t start_ns = 0, end_ns = 0;  ///< its first GPU op's start and last op's end
  std::int64_t comm_ns = 0;               ///< union of its communication kernels, per device, summed
  std::int64_t overlap_ns = 0;            ///< of comm_ns, the time a compute kernel ran on the same device
  std::vector<Collective> collectives;    ///< in (step, lane, seq) order
  std::string strip;                      ///< its span in kStripBins bins (RankRow::strip); empty: none
  [[nodiscard]] std::int64_t span_ns() const { return end_ns - start_ns; }
  [[nodiscard]] std::int64_t exposed_comm_ns() const { return comm_ns - overlap_ns; }
};

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

/// Groups the summaries into jobs (traces without a world size are jobs of one rank) and
/// analyses each: collectives matched by (step, lane, seq) and name, each rank's wait, the
/// straggler of each step (the rank that waited least: it arrived last), exposed communication.
std::vector<TraceJob> analyse_jobs(std::vector<RankSummary> ranks);

}  // namespace gpucost::prep::trace

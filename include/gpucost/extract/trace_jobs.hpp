// The jobs that profiler traces of several ranks form (docs/formats.md, "A job of ranks"), from
// the trace_comm and trace_collective events prep writes for each trace (core/trace_rank.hpp):
// the traces may come from one prep run or from streams prepared apart.
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/trace_rank.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace gpucost::extract {

/// One rank of a job, with what it waited and what it made others wait.
struct RankRow {
  int rank = -1;
  std::string path;  ///< the trace (its file name when the events name it)
  std::int64_t span_ns = 0;
  std::int64_t wait_ns = 0;          ///< Σ over matched collectives of its duration - the shortest's
  std::int64_t straggler_steps = 0;  ///< steps it was the straggler of
  std::int64_t comm_ns = 0, exposed_comm_ns = 0;
  std::int64_t start_ns = 0;  ///< its first GPU op's start: UTC when the trace is absolute
  std::string strip;          ///< its span in trace::kStripBins bins, a state each (is_strip); empty: none
  [[nodiscard]] double overlap_fraction() const {
    return comm_ns > 0 ? static_cast<double>(comm_ns - exposed_comm_ns) / static_cast<double>(comm_ns) : 0.0;
  }
};

/// The traces of one job: same world size and backend, overlapping in time.
struct TraceJob {
  int world_size = -1;
  std::string backend;
  std::vector<RankRow> ranks;      ///< by rank
  std::vector<std::string> notes;  ///< missing or repeated ranks, traces left out, unmatched collectives
  std::int64_t matched = 0;        ///< collectives matched across the ranks that run them (groups)
  std::int64_t unmatched = 0;      ///< collectives not matched: missing + differ + apart below (groups)
  std::int64_t steps = 0;          ///< steps with a straggler (each matched collective one, without step marks)
  int straggler_rank = -1;         ///< the most frequent straggler; -1 with fewer than two ranks
  double straggler_step_share = 0;
  std::int64_t span_ns = 0;  ///< Σ of the ranks' spans: the job's GPU time in the traces
  std::int64_t wait_ns = 0, comm_ns = 0, exposed_comm_ns = 0;
  // How the collectives were matched, and why the others were not (docs/formats.md, "A job of ranks").
  std::int64_t matched_by_group = 0;        ///< of matched: by process group name and Seq, or order in the group
  std::int64_t matched_by_order = 0;        ///< of matched: by (step, lane, order), their kernels overlapping in time
  std::int64_t matched_partial = 0;         ///< of matched: some of their ranks are not among the job's traces
  std::int64_t unmatched_missing = 0;       ///< of unmatched: a rank here that should run it lacks it
  std::int64_t unmatched_differ = 0;        ///< of unmatched: the ranks ran different kernels or collectives
  std::int64_t unmatched_apart = 0;         ///< of unmatched: matched by order, but their kernels do not overlap
  std::int64_t unmatched_apart_max_ns = 0;  ///< of those, the largest gap between two ranks' kernel ends
  [[nodiscard]] bool sample() const { return world_size > 1 && static_cast<int>(ranks.size()) < world_size; }
  [[nodiscard]] double wait_fraction() const { return share(wait_ns); }
  [[nodiscard]] double exposed_comm_fraction() const { return share(exposed_comm_ns); }
  [[nodiscard]] double overlap_fraction() const {
    return comm_ns > 0 ? static_cast<double>(comm_ns - exposed_comm_ns) / static_cast<double>(comm_ns) : 0.0;
  }

 private:
  [[nodiscard]] double share(std::int64_t ns) const {
    return span_ns > 0 ? static_cast<double>(ns) / static_cast<double>(span_ns) : 0.0;
  }
};

/// Groups the summaries into jobs (traces without a world size are jobs of one rank) and
/// analyses each: collectives matched by their process group and sequence number (or order in
/// the group) where the traces carry them, else by (step, lane, seq) when their kernels overlap in
/// time; each rank's wait, the straggler of each step (the rank that waited least: it arrived
/// last), exposed communication.
std::vector<TraceJob> analyse_jobs(std::vector<trace::RankSummary> ranks);

/// Gathers each trace's trace_comm event and the trace_collective events of its rank that follow
/// it (a collective belongs to the last trace_comm of its host, rank and file), then analyses the
/// jobs.
class TraceJobCollector final : public EventSink {
 public:
  TraceJobCollector();
  ~TraceJobCollector() override;
  TraceJobCollector(const TraceJobCollector&) = delete;
  TraceJobCollector& operator=(const TraceJobCollector&) = delete;
  void on_event(const Event& event) override;
  /// The jobs of the traces seen so far, jobs of several ranks first.
  [[nodiscard]] std::vector<TraceJob> jobs() const;
  [[nodiscard]] bool empty() const { return m_ranks.empty(); }

 private:
  std::vector<std::unique_ptr<trace::RankSummary>> m_ranks;
  /// (host, rank, file) -> its latest trace; (host, rank, "") -> the latest of any file
  std::map<std::tuple<std::string, int, std::string>, std::size_t> m_current;
};

}  // namespace gpucost::extract

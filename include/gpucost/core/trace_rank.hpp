// One rank's trace as the job analysis needs it (docs/formats.md, "A job of ranks"): prep
// summarises each trace into it and writes it as trace_comm and trace_collective events;
// extract reads those back into it and matches the ranks of a job (extract/trace_jobs.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::trace {

/// The bins of a rank's strip: its span cut into equal parts (docs/formats.md, "A job of ranks").
inline constexpr std::size_t kStripBins = 120;

/// A strip's states, one character a bin: compute only, communication overlapped by compute,
/// exposed communication, idle.
inline constexpr char kStripCompute = 'c', kStripOverlapped = 'o', kStripExposed = 'x', kStripIdle = '.';

/// A strip as written: kStripBins characters of the four states (a stream edited by hand may hold
/// anything: what is not one is dropped).
[[nodiscard]] inline bool is_strip(std::string_view s) {
  return s.size() == kStripBins && s.find_first_not_of("cox.") == std::string_view::npos;
}

/// One collective kernel of a rank (an NCCL or RCCL kernel), keyed for matching across ranks.
struct Collective {
  std::int64_t step = -1;  ///< the ProfilerStep its launch (else itself) starts in; -1: none
  std::uint32_t lane = 0;  ///< its (device, stream) among the rank's communication streams, in order
  std::uint32_t seq = 0;   ///< its order on that lane within the step
  int device = 0;
  std::int64_t start_ns = 0, dur_ns = 0;  ///< start: UTC when the trace is absolute, else its own clock
  std::string name;
  // Its identity where the trace carries it (Kineto's collective args on the kernel); absent: empty / -1.
  std::string pg;                ///< its process group's name ("Process Group Name")
  std::string pg_desc;           ///< the group's description ("default_pg")
  std::string pg_ranks;          ///< the group's global ranks as written: "[0, 1]"
  std::string op;                ///< "Collective name": allreduce, all_to_all, ...
  std::int64_t pg_seq = -1;      ///< "Seq": its sequence number in its process group
  std::int64_t pg_order = -1;    ///< its order among the rank's collectives of its process group
  std::int64_t in_nelems = -1;   ///< "In msg nelems"
  std::int64_t out_nelems = -1;  ///< "Out msg nelems"
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

}  // namespace gpucost::trace

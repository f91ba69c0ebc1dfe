// The critical path of a window of a trace (a ProfilerStep, or the whole trace), as Holistic
// Trace Analysis's critical_path_analysis defines it (docs/formats.md, "Critical path"): a graph
// whose nodes are the starts and ends of CPU operators, runtime calls and GPU ops, whose edges
// are operator spans, nesting and same-thread order, the CUDA runtime lock, kernel launches,
// kernel-to-kernel order on a stream and CUDA synchronisation, and whose longest path bounds the
// window. Needs TraceData::cpu_records (ReadOptions::keep_cpu_ops).
#pragma once

#include "trace.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpucost::prep::trace {

/// What bounds an edge of the path, as HTA's bound_by names it; `none`: 0-weight dependency and
/// synchronisation edges.
enum class CpBound : std::uint8_t {
  cpu,              ///< cpu_bound: a CPU operator or runtime call
  gpu_compute,      ///< gpu_compute_bound: a kernel, memcpy or memset
  gpu_comm,         ///< gpu_communication_bound: an NCCL/RCCL kernel
  launch_overhead,  ///< gpu_kernel_launch_overhead: launch call start to kernel start
  kernel_kernel,    ///< gpu_kernel_kernel_overhead: a gap between kernels on a stream
  none
};
inline constexpr int kCpBounds = 6;
std::string_view to_string(CpBound b);

struct CpOpRow {
  std::string name;
  CpBound bound = CpBound::cpu;
  std::int64_t ns = 0;  ///< time of the path's edges attributed to this name
};

struct CriticalPath {
  std::string error;  ///< non-empty when no path could be computed (why)
  std::int64_t window_start_ns = 0, window_end_ns = 0;
  std::int64_t start_ns = 0, end_ns = 0;  ///< the path's first and last node
  std::int64_t length_ns = 0;             ///< sum of the path's edge weights
  std::int64_t bound_ns[kCpBounds] = {0, 0, 0, 0, 0, 0};
  std::int64_t launch_calls_ns = 0;  ///< of cpu: time in kernel launch calls (cudaLaunchKernel, ...)
  std::uint64_t path_nodes = 0, graph_nodes = 0, graph_edges = 0;
  std::uint64_t sync_edges = 0;  ///< CPU<-GPU and GPU<-GPU synchronisation edges in the graph
  bool has_sync_events = false;  ///< the trace has cuda_sync events (else sync is not modelled)
  std::vector<CpOpRow> top_ops;  ///< by time on the path, CPU and GPU ops only
};

/// The critical path of the events of `data` in [window_start_ns, window_end_ns] (HTA's clipping:
/// CPU events that start inside it, GPU ops whose launch call starts inside it).
CriticalPath critical_path(const TraceData& data, std::int64_t window_start_ns, std::int64_t window_end_ns,
                           std::size_t top_ops = 5);

/// The same for several windows, the whole-trace preparation (correlation, queue lengths, event
/// records, stream waits) done once.
std::vector<CriticalPath> critical_paths(const TraceData& data,
                                         const std::vector<std::pair<std::int64_t, std::int64_t>>& windows,
                                         std::size_t top_ops = 5);

/// Whole trace window: the first start to the last end of the kept records.
std::pair<std::int64_t, std::int64_t> whole_trace_window(const TraceData& data);

}  // namespace gpucost::prep::trace

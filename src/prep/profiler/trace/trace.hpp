// PyTorch profiler / Kineto traces (Chrome trace JSON, docs/formats.md "PyTorch profiler
// traces"): a streaming reader that keeps only what the analyses need, and the analyses that
// Holistic Trace Analysis made standard (temporal breakdown, idle breakdown, launch delay,
// kernel breakdown, memory copies, queue length), per rank and device.
//
// Times are integer nanoseconds from the trace's own origin (`ts` in µs, parsed exactly from
// its decimal text); TraceData::to_epoch_ns() puts them on the UTC clock when the trace has
// baseTimeNanoseconds or absolute epoch stamps.
//
// Internal to prep: the rest of gpucost sees a trace as the events trace_events.cpp makes of it.
#pragma once

#include "host_records.hpp"
#include "kernel_bound.hpp"
#include "memory_events.hpp"

#include <gpucost/core/error.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::io {
class LineReader;
}

namespace gpucost::prep::trace {

enum class OpType : std::uint8_t { kernel, memcpy, memset };
/// Kernel breakdown classes: communication = kernel named nccl*/rccl* (any case);
/// memory = memcpy and memset operations; compute = every other kernel.
enum class OpClass : std::uint8_t { compute, communication, memory };
enum class MemDir : std::uint8_t { none, h2d, d2h, d2d, h2h, p2p, other };
std::string_view to_string(OpClass c);
std::string_view to_string(MemDir d);

inline constexpr std::int64_t kNoCorrelation = -1;

/// One GPU operation: a kernel, memcpy or memset with a stream (sync events are not ops).
struct GpuOp {
  std::int64_t start_ns = 0, dur_ns = 0;
  std::int64_t stream = 0;
  std::int64_t correlation = kNoCorrelation;
  std::uint64_t bytes = 0;  ///< memcpy/memset size when the trace gives it
  std::uint32_t name = 0;   ///< index into TraceData::names
  std::int32_t device = 0;
  OpType type = OpType::kernel;
  OpClass cls = OpClass::compute;
  MemDir dir = MemDir::none;
  std::int32_t comm_args = -1;  ///< index into TraceData::comm_args; -1: the kernel carries none
  [[nodiscard]] std::int64_t end_ns() const { return start_ns + dur_ns; }
  bool operator==(const GpuOp&) const = default;
};

/// What identifies a collective across ranks, as Kineto copies it from the `record_param_comms`
/// CPU op onto the NCCL kernel's args (docs/formats.md, "A job of ranks"); absent: empty / -1.
struct CommArgs {
  std::string pg;                                ///< "Process Group Name"
  std::string pg_desc;                           ///< "Process Group Description" (default_pg, ...)
  std::string pg_ranks;                          ///< "Process Group Ranks" as written: "[0, 1]"
  std::string op;                                ///< "Collective name": allreduce, all_to_all, ...
  std::int64_t seq = -1;                         ///< "Seq": the collective's sequence number in its process group
  std::int64_t in_nelems = -1, out_nelems = -1;  ///< "In msg nelems", "Out msg nelems"
  [[nodiscard]] bool empty() const { return pg.empty() && op.empty() && seq < 0; }
  bool operator==(const CommArgs&) const = default;
};

/// A runtime or driver call that launches GPU work (cudaLaunchKernel, cudaGraphLaunch, ...).
struct LaunchCall {
  std::int64_t start_ns = 0, dur_ns = 0;
  std::int64_t correlation = kNoCorrelation;
  [[nodiscard]] std::int64_t end_ns() const { return start_ns + dur_ns; }
  bool operator==(const LaunchCall&) const = default;
};

/// A CPU operator (`cpu_op`: aten::mm, ...), runtime call or user annotation (record_function
/// ranges but ProfilerStep#N), kept only when asked (ReadOptions::keep_host_ops: `trace --diff`'s
/// operator comparison).
enum class HostOpKind : std::uint8_t { cpu_op, runtime, annotation };
std::string_view to_string(HostOpKind k);
struct HostOp {
  std::int64_t start_ns = 0, dur_ns = 0;
  std::uint32_t name = 0;  ///< index into TraceData::names
  HostOpKind kind = HostOpKind::cpu_op;
  bool operator==(const HostOp&) const = default;
};

/// A user annotation range (record_function) other than ProfilerStep#N: on the CPU
/// (`user_annotation`, lane = its thread) or Kineto's projection of it onto a GPU stream
/// (`gpu_user_annotation`, lane = the stream, device = its pid).
struct RegionMark {
  std::int64_t start_ns = 0, dur_ns = 0;
  std::int64_t lane = 0;
  std::uint32_t name = 0;  ///< index into TraceData::region_names
  std::int32_t device = -1;
  [[nodiscard]] std::int64_t end_ns() const { return start_ns + dur_ns; }
  bool operator==(const RegionMark&) const = default;
};

/// A ProfilerStep#N annotation (CPU side).
struct StepMark {
  std::int64_t number = 0;
  std::int64_t start_ns = 0, dur_ns = 0;
  bool operator==(const StepMark&) const = default;
};

/// Accounting of the trace's records (elements of traceEvents), like lines of a text input.
struct MalformedRecord {
  std::uint64_t record = 0, line = 0;  ///< 1-based record number, and the line it starts on
  std::string reason, excerpt;         ///< excerpt: its start, whitespace runs collapsed
  bool operator==(const MalformedRecord&) const = default;
};
struct RecordCounts {
  std::uint64_t records = 0, used = 0, ignored = 0, malformed = 0;
  std::vector<MalformedRecord> examples;  ///< the first few malformed records
  bool operator==(const RecordCounts&) const = default;
};

/// What the reader keeps of one trace.
struct TraceData {
  std::vector<GpuOp> ops;
  std::vector<LaunchCall> launches;
  std::vector<StepMark> steps;
  std::vector<std::string> names;           ///< interned GPU op names
  std::vector<CommArgs> comm_args;          ///< of the communication kernels that carry them (GpuOp::comm_args)
  std::map<int, std::string> device_names;  ///< deviceProperties id -> name

  std::optional<std::int64_t> base_time_ns;  ///< baseTimeNanoseconds
  int rank = -1, world_size = -1;            ///< distributedInfo; -1 = not given
  std::string backend;                       ///< distributedInfo.backend
  std::string trace_name;                    ///< traceName
  std::int64_t schema_version = -1;
  /// The software stack Kineto names in its header: cuda_runtime_version and cuda_driver_version
  /// (CUDA's 1000 x major + 10 x minor), cupti_version, distributedInfo.nccl_version; -1 / empty: absent.
  std::int64_t cuda_runtime_version = -1, cuda_driver_version = -1, cupti_version = -1;
  std::string nccl_version;
  std::int64_t min_ts_ns = 0;  ///< earliest `ts` of any record (valid when records > 0)
  bool has_min_ts = false;
  std::uint64_t sync_events = 0, cpu_ops = 0, runtime_calls = 0, gpu_annotations = 0;
  std::uint64_t mtia_ops = 0;  ///< MTIA device events (mtia_ccp_events), each an op or a sync event
  std::map<std::string, std::uint64_t> other_device_categories;  ///< e.g. mtia_runtime, cuda_profiler_range
  RecordCounts counts;
  std::string not_kineto;  ///< non-empty when the document is JSON of another kind: what it is
  std::string truncated;   ///< non-empty when the document ended early
  /// Every CPU operator, runtime call and user annotation (24 bytes each); only with
  /// ReadOptions::keep_host_ops.
  std::vector<HostOp> host_ops;
  /// User annotations (docs/formats.md, "Annotated regions"): 32 bytes per range kept, names once.
  std::vector<RegionMark> cpu_regions, gpu_regions;
  std::vector<std::string> region_names;
  /// CPU records and GPU op references in file order; only with ReadOptions::keep_cpu_ops.
  std::vector<HostRecord> cpu_records;
  MemoryEvents memory = {};  ///< the `[memory]` instants (profile_memory=True): 32 bytes per GPU event

  /// True when `ts` values are microseconds since the Unix epoch or relative to baseTimeNanoseconds.
  [[nodiscard]] bool absolute() const;
  /// `ts_ns` (trace clock) on the UTC clock when absolute(), else unchanged.
  [[nodiscard]] std::int64_t to_epoch_ns(std::int64_t ts_ns) const;
  bool operator==(const TraceData&) const = default;
};

/// Reads a whole trace from `reader` (plain, gzip or zstd), a bounded chunk at a time: only
/// one event is materialised at once, and memory holds the chunk plus the compact records
/// above. Fails only on I/O errors that leave nothing; JSON errors are recorded in `truncated`.
Status read_trace(io::LineReader& reader, TraceData& out, const ReadOptions& options = {});
/// Text of the events array parsed per simdjson pass (the memory the reader holds).
inline constexpr std::size_t kTraceChunkBytes = 2u << 20;
/// The same over text in memory (for the unit tests; a small `chunk_bytes` exercises the chunk
/// boundaries).
TraceData read_trace_text(std::string_view text, std::size_t chunk_bytes = kTraceChunkBytes,
                          const ReadOptions& options = {});
/// True when `head` (the first bytes of a file) looks like Chrome trace JSON from a profiler,
/// or like one of the profiler's other JSON files (reported as not a Kineto trace).
bool looks_like_trace(std::string_view head);

// ---- analyses -------------------------------------------------------------------------------

struct TraceOptions {
  std::optional<std::int64_t> step_first, step_last;  ///< --steps A[-B]; empty = whole trace
  std::size_t top_kernels = 10;
  std::int64_t short_gap_ns = 30'000;       ///< idle gaps shorter than this are "short"
  std::int64_t short_kernel_ns = 10'000;    ///< kernels shorter than this are "short"
  std::int64_t long_delay_ns = 10'000'000;  ///< launch delays above this are the long tail
};

struct IdleBreakdown {
  std::int64_t host_wait_ns = 0, short_gap_ns = 0, other_ns = 0;
  [[nodiscard]] std::int64_t total() const { return host_wait_ns + short_gap_ns + other_ns; }
};

struct StreamReport {
  std::int64_t stream = 0;
  std::uint64_t ops = 0;
  std::int64_t start_ns = 0, end_ns = 0, busy_ns = 0;
  IdleBreakdown idle;
  double queue_length_mean = 0;  ///< time-weighted, from first enqueue to last completion
  std::int64_t queue_length_max = 0;
  bool has_queue = false;  ///< false when no op of the stream had its launch call
  /// Time the queue held kLaunchQueueSlots ops or more: the launching thread stalls then.
  std::int64_t full_queue_ns = 0;
  /// The queue length over time: the queue's span (first enqueue to last completion) cut into
  /// kQueueBins equal bins, the longest queue in each; empty without a queue.
  std::vector<std::int64_t> queue_max_by_bin;
};

/// Ops a CUDA stream's launch queue holds: with this many outstanding, a launch blocks the CPU
/// until one completes (HTA's "Augmented Counters": "When the queue length on a stream is 1024 or
/// larger new events cannot be scheduled on that stream and the CPU will stall").
inline constexpr std::int64_t kLaunchQueueSlots = 1024;
/// Bins of a stream's queue length over time (as the rank strip's kStripBins).
inline constexpr std::size_t kQueueBins = 120;

struct KernelRow {
  std::string name;
  OpClass cls = OpClass::compute;
  std::uint64_t count = 0;
  std::int64_t total_ns = 0, min_ns = 0, max_ns = 0;
};

struct MemoryRow {
  MemDir dir = MemDir::none;
  OpType type = OpType::memcpy;
  std::uint64_t count = 0, bytes = 0, counted_bytes_ops = 0;  ///< ops that gave bytes
  std::int64_t total_ns = 0, timed_ns = 0;                    ///< timed_ns: time of the ops that gave bytes
  [[nodiscard]] std::optional<double> gbps() const;           ///< bytes / s / 1e9 over ops with bytes
};

struct LaunchStats {
  std::uint64_t matched = 0;            ///< GPU ops joined to a launch call
  std::uint64_t unmatched = 0;          ///< GPU ops with no launch call found
  std::vector<std::int64_t> delays_ns;  ///< one per matched op, sorted
  std::uint64_t kernels = 0, short_kernels = 0;
  std::uint64_t long_delays = 0;
  /// Linear-interpolated percentile (numpy's default), ns; empty when nothing matched.
  [[nodiscard]] std::optional<double> percentile_ns(double p) const;
};

/// A device's steps split by what bounds their time (docs/cost-model.md, "Speed projected from
/// the trace"): each instant of the steps' timeline goes to one part, the highest of tensor >
/// memory > other kernels > communication among the ops running then, so overlapping streams are
/// counted once and communication only where no kernel hides it; what no op covers is the rest
/// (CPU, launch, idle).
struct StepSplit {
  std::int64_t steps = 0;      ///< ProfilerStep windows timed; 0: the device's GPU span stands for one
  std::int64_t window_ns = 0;  ///< their total length (the union of the windows)
  std::int64_t tensor_ns = 0, memory_ns = 0, other_ns = 0, exposed_comm_ns = 0;
  [[nodiscard]] std::int64_t rest_ns() const { return window_ns - tensor_ns - memory_ns - other_ns - exposed_comm_ns; }
};

struct DeviceReport {
  int rank = -1;
  int device = 0;
  std::string device_name;
  std::uint64_t ops = 0, kernels = 0, memcpys = 0, memsets = 0;
  std::int64_t start_ns = 0, end_ns = 0;  ///< trace clock
  std::int64_t span_ns = 0, busy_ns = 0, idle_ns = 0, compute_ns = 0, noncompute_ns = 0;
  std::int64_t kernel_time_ns[3] = {0, 0, 0};                ///< summed durations by OpClass
  std::int64_t bound_time_ns[kKernelBounds] = {0, 0, 0, 0};  ///< summed durations by KernelBound
  StepSplit step_split;
  IdleBreakdown idle;  ///< summed over streams
  LaunchStats launch;
  std::vector<StreamReport> streams;
  std::vector<KernelRow> top_kernels;  ///< by total time, top N
  std::uint64_t distinct_kernels = 0;
  std::vector<MemoryRow> memory;
  double queue_length_mean = 0;  ///< mean over streams with a queue
  std::int64_t queue_length_max = 0;
  std::int64_t full_queue_ns = 0;            ///< summed over streams: time launches stalled on a full queue
  std::optional<GpuMemory> gpu_memory = {};  ///< from the trace's `[memory]` instants of this device
};

/// The CPU operators (or runtime calls) of one name: their calls and inclusive time.
struct OperatorRow {
  std::string name;
  HostOpKind kind = HostOpKind::cpu_op;
  std::uint64_t calls = 0;
  std::int64_t total_ns = 0, max_ns = 0;
};

struct TraceReport {
  std::vector<DeviceReport> devices;   ///< by device
  std::vector<StepMark> steps_used;    ///< the steps the analysis was restricted to (if any)
  std::uint64_t ops_filtered_out = 0;  ///< ops outside --steps
  /// With ReadOptions::keep_host_ops: every operator name, by kind then total time (those starting
  /// inside the steps of --steps, else all).
  std::vector<OperatorRow> operators;
};

/// Runs every analysis on the trace's GPU ops; devices without ops are not reported.
TraceReport analyse(const TraceData& data, const TraceOptions& options);

/// Length of the union of [start, end) intervals (sorted by start in place).
std::int64_t union_length(std::vector<std::pair<std::int64_t, std::int64_t>>& intervals);
/// Exact µs decimal text (`1234.567`, `-3`, `12e3`) -> ns, rounded half away from zero.
bool parse_us_to_ns(std::string_view text, std::int64_t& out);
/// Launch APIs whose calls are joined to GPU ops on args.correlation.
bool is_launch_api(std::string_view name);

}  // namespace gpucost::prep::trace

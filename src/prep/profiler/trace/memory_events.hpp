// GPU memory from a trace's `[memory]` instants (torch.profiler(profile_memory=True); docs/formats.md,
// "GPU memory from [memory] events"). Each instant is one allocation (Bytes > 0) or free (Bytes < 0)
// of PyTorch's allocator, with the allocator's totals after it: Total Allocated (bytes in live
// tensors) and Total Reserved (bytes the caching allocator holds from the device, cached blocks
// included). The reader keeps a compact sample per GPU event; the analysis sorts them by time and
// takes, per GPU, the peaks, the counts and the timeline, and per ProfilerStep the same peaks.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace gpucost {
struct Event;
}

namespace gpucost::prep::trace {

/// The args of one `[memory]` instant as read; has_*: the key was there and an integer.
struct MemoryArgs {
  std::int64_t device_type = 0, device_id = 0, bytes = 0, total_allocated = 0, total_reserved = 0;
  bool has_device_type = false, has_device_id = false, has_bytes = false, has_allocated = false, has_reserved = false;
  bool operator==(const MemoryArgs&) const = default;
};

/// The slot of `args` an args key of a `[memory]` instant fills ("Device Type", "Bytes", "Total
/// Allocated", ...); false for the keys gpucost does not use (Addr, Ev Idx).
bool memory_arg_slot(std::string_view key, MemoryArgs& args, std::int64_t*& value, bool*& has);

/// One GPU memory event as kept: 32 bytes per event.
struct MemorySample {
  std::int64_t ts_ns = 0;
  std::int64_t allocated = -1, reserved = -1;  ///< the allocator's totals after the event; -1: not written
  std::int32_t device = 0;
  std::int8_t sign = 0;  ///< +1 allocation, -1 free, 0 a zero-byte event
  bool operator==(const MemorySample&) const = default;
};

/// The trace's memory instants: the GPU ones kept as samples, the others counted.
struct MemoryEvents {
  std::vector<MemorySample> gpu;     ///< Device Type 1 (CUDA; ROCm builds report CUDA too)
  std::uint64_t cpu = 0;             ///< Device Type 0: host allocations, not GPU memory
  std::uint64_t other_device = 0;    ///< any other Device Type (XPU, MPS, MTIA, ...): not analysed
  std::uint64_t without_device = 0;  ///< no Device Type or Device Id, or no Bytes: not usable
  bool operator==(const MemoryEvents&) const = default;
};

/// Files one `[memory]` instant: true when kept as a GPU sample; false when counted only (CPU,
/// another device type) or unusable (no ts, Device Type, Device Id or Bytes).
bool add_memory_event(MemoryEvents& out, const MemoryArgs& args, bool has_ts, std::int64_t ts_ns);

/// Bins of a GPU's memory over time (as the queue's kQueueBins).
inline constexpr std::size_t kMemoryBins = 120;

/// Peaks and counts over some window of one GPU's memory events.
struct MemoryPeaks {
  std::int64_t peak_allocated = -1, peak_reserved = -1;  ///< bytes; -1: no event gave the total
  std::uint64_t events = 0, allocs = 0, frees = 0, without_totals = 0;
};

/// One ProfilerStep's peaks on one GPU. The level in effect when the step starts (the last event
/// before it) counts towards its peaks, so a step without events still has the level it ran at.
struct StepMemory {
  std::int64_t step = 0, start_ns = 0;
  MemoryPeaks peaks;
};

/// One GPU's memory over the whole trace.
struct GpuMemory {
  int device = 0;
  MemoryPeaks peaks;
  std::int64_t first_ns = 0, last_ns = 0;  ///< the first and last event (trace clock)
  /// [first_ns, last_ns] cut into kMemoryBins equal bins: the largest total in each bin, the level
  /// carried from the bin before when no event falls in it; empty when no event gave the total.
  std::vector<std::int64_t> allocated_max_by_bin, reserved_max_by_bin;
  std::vector<StepMemory> steps;  ///< by step start
};

struct StepMark;
struct TraceData;
struct TraceReport;

/// Per GPU (by device id), its memory over the trace and in each of `steps`. Sorts the samples of
/// `events` by time (equal times keep the file's order).
std::vector<GpuMemory> analyse_gpu_memory(std::vector<MemorySample> events, const std::vector<StepMark>& steps);
/// Puts each GPU's memory on the report's device of the same id (a GPU with memory events but no
/// ops has no DeviceReport: its memory is not reported).
void attach_gpu_memory(const TraceData& data, const std::vector<StepMark>& steps, TraceReport& report);

// ---- events (docs/formats.md, "GPU memory from [memory] events") ------------------------------

/// trace_info's counts of the memory instants gpucost does not analyse (CPU, other devices, unusable).
void add_memory_counts(Event& e, const MemoryEvents& m);
/// trace_device's mem_* fields: the GPU's peaks, counts and timeline.
void add_gpu_memory_fields(Event& e, const GpuMemory& g);
/// trace_step_memory's fields: one step's peaks and counts on one GPU.
void add_step_memory_fields(Event& e, const StepMemory& s);

}  // namespace gpucost::prep::trace

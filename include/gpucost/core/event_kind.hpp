// The kinds of event of the gpucost.events stream (its `kind` field, docs/formats.md): an enum
// for the code that tells events apart, and each kind's name on the wire. Event keeps the name
// (a view of the input line); a stage reads it once per event with event_kind_from_name.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpucost {

/// Every kind gpucost writes. `other`: a kind it does not know (an events stream may carry any).
// clang-format off
enum class EventKind : std::uint8_t {
  // telemetry
  sample,
  process,
  no_process,
  entity_sample,
  gpu_info,
  // kernel and system logs
  xid,
  gpu_lost,
  aer,
  thermal,
  driver,
  modeset,
  oom,
  segfault,
  power_source,
  lid,
  suspend,
  resume,
  shutdown,
  boot,
  // profiler traces, profiler tables and nsys reports
  trace_info,
  trace_step,
  trace_launch,
  trace_device,
  trace_stream,
  trace_kernel,
  trace_memory,
  profiler_op,
  profiler_total,
  nsys_kernel,
  nsys_memop_time,
  nsys_memop_size,
  nsys_api,
  nsys_nvtx,
  nsys_row,
  // training logs
  train,
  pattern,
  // scheduler accounting (sacct)
  job,
  // processes holding NVIDIA device files (record's /proc scans)
  gpu_handle,
  other,
  count_  // number of kinds; keep last
};

inline constexpr std::size_t kEventKindCount = static_cast<std::size_t>(EventKind::count_);

/// The name of every EventKind on the wire, indexed by the enum value; `other` has none.
inline constexpr std::array<std::string_view, kEventKindCount> kEventKindNames = {
    "sample", "process", "no_process", "entity_sample", "gpu_info",
    "xid", "gpu_lost", "aer", "thermal", "driver", "modeset", "oom", "segfault", "power_source", "lid", "suspend",
    "resume", "shutdown", "boot",
    "trace_info", "trace_step", "trace_launch", "trace_device", "trace_stream", "trace_kernel", "trace_memory",
    "profiler_op", "profiler_total", "nsys_kernel", "nsys_memop_time", "nsys_memop_size", "nsys_api", "nsys_nvtx",
    "nsys_row",
    "train", "pattern",
    "job",
    "gpu_handle",
    ""};
// clang-format on

inline constexpr std::string_view event_kind_name(EventKind kind) {
  return kEventKindNames[static_cast<std::size_t>(kind)];
}

/// The kind named `name` ("xid"); `other` for a name gpucost does not know. Telemetry samples,
/// by far the most events, are found first.
inline constexpr EventKind event_kind_from_name(std::string_view name) {
  for (std::size_t i = 0; i + 1 < kEventKindCount; ++i)
    if (kEventKindNames[i] == name) return static_cast<EventKind>(i);
  return EventKind::other;
}

namespace detail {
/// Every name finds its own kind (no name twice); with the spot checks, the table follows the enum.
constexpr bool event_kind_names_round_trip() {
  for (std::size_t i = 0; i + 1 < kEventKindCount; ++i)
    if (event_kind_from_name(kEventKindNames[i]) != static_cast<EventKind>(i)) return false;
  return true;
}
}  // namespace detail
static_assert(detail::event_kind_names_round_trip());
static_assert(event_kind_name(EventKind::gpu_info) == "gpu_info" && event_kind_name(EventKind::boot) == "boot" &&
              event_kind_name(EventKind::nsys_row) == "nsys_row" && event_kind_name(EventKind::pattern) == "pattern");

}  // namespace gpucost

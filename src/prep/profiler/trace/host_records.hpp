// The CPU-side records of a trace (operators, annotations, runtime calls, CUDA sync events) and a
// reference to each GPU op, in file order: what the critical path (critical_path.hpp) needs. The
// reader keeps them only when asked (ReadOptions::keep_cpu_ops): they grow with every record of
// those categories, where the default reader keeps only GPU ops and launch calls.
#pragma once

#include <cstdint>

namespace gpucost::prep::trace {

enum class HostKind : std::uint8_t { cpu_op, annotation, runtime, sync, gpu_op };

struct HostRecord {
  std::int64_t ts_ns = 0, dur_ns = 0;
  std::int64_t pid = 0, tid = 0;
  std::int64_t correlation = -1;
  std::int64_t stream = -1;          ///< cuda_sync: args.stream (-1: device-wide or absent)
  std::int64_t wait_on_stream = -1;  ///< cuda_sync: args.wait_on_stream
  std::int64_t wait_on_record = -1;  ///< cuda_sync: args.wait_on_cuda_event_record_corr_id
  std::uint32_t name = 0;            ///< index into TraceData::names
  std::uint32_t op = 0;              ///< gpu_op: index into TraceData::ops
  HostKind kind = HostKind::cpu_op;
  [[nodiscard]] std::int64_t end_ns() const { return ts_ns + dur_ns; }
  bool operator==(const HostRecord&) const = default;
};

/// What the reader keeps beyond the default (the default path stays as fast as without it).
struct ReadOptions {
  bool keep_cpu_ops = false;   ///< fill TraceData::cpu_records
  bool keep_host_ops = false;  ///< fill TraceData::host_ops (trace --diff's operator comparison)
  /// Read records with the reader's own scanner (json_scan.hpp) and leave to simdjson only what it
  /// does not take; false: simdjson reads every record (the tests hold the two to the same data).
  bool scan_records = true;
};

}  // namespace gpucost::prep::trace

// Trace indicators from the summaries prep wrote of each Kineto trace (trace_device,
// trace_memory, trace_launch, trace_kernel records), a profiler table's totals or nsys reports.
#include "trace_indicators.hpp"

#include <gpucost/extract/catalogue.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace gpucost::extract::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Sums of one set of trace_device records (one GPU, or the host).
struct TraceSums {
  double span = 0, busy = 0, idle = 0, compute = 0;
  double kernels = 0, short_kernels = 0, launched = 0, long_delays = 0, unmatched = 0;
  double queue_mean_sum = 0;
  double op_ns = 0, comm_ns = 0, host_wait_ns = 0, short_gap_ns = 0;
  std::map<std::string, double> top_kernel_ns;  ///< the devices' top-N kernels, time summed by name
  std::size_t queues = 0, devices = 0;
  double memcpy_ns = 0, h2d_bytes = 0, h2d_ns = 0, d2h_bytes = 0, d2h_ns = 0;
  const TraceRecord* only = nullptr;  ///< the single device record, when there is one

  void add_device(const TraceRecord& r) {
    const auto v = [&](const char* k) {
      const double x = r.get(k);
      return std::isnan(x) ? 0.0 : x;
    };
    span += v("span_ns");
    busy += v("busy_ns");
    idle += v("idle_ns");
    compute += v("compute_ns");
    kernels += v("kernels");
    short_kernels += v("short_kernels");
    launched += v("launched_ops");
    long_delays += v("launch_delays_over_10ms");
    unmatched += v("unmatched_gpu_events");
    comm_ns += v("communication_kernel_ns");
    op_ns += v("compute_kernel_ns") + v("communication_kernel_ns") + v("memory_op_ns");
    host_wait_ns += v("idle_host_wait_ns");
    short_gap_ns += v("idle_short_gap_ns");
    if (!std::isnan(r.get("queue_length_mean"))) {
      queue_mean_sum += r.get("queue_length_mean");
      ++queues;
    }
    only = devices == 0 ? &r : nullptr;
    ++devices;
  }
  void add_kernel(const TraceRecord& r) {
    if (!std::isnan(r.get("total_ns"))) top_kernel_ns[r.detail] += r.get("total_ns");
  }
  void add_memory(const TraceRecord& r) {
    if (r.detail.rfind("memcpy", 0) != 0) return;
    const double ns = r.get("total_ns"), bytes = r.get("bytes"), timed = r.get("bytes_ns");
    if (!std::isnan(ns)) memcpy_ns += ns;
    if (std::isnan(bytes) || std::isnan(timed)) return;
    if (r.detail == "memcpy h2d") {
      h2d_bytes += bytes;
      h2d_ns += timed;
    } else if (r.detail == "memcpy d2h") {
      d2h_bytes += bytes;
      d2h_ns += timed;
    }
  }
};

/// A launch delay percentile: its indicator and the trace record's field.
struct LaunchPercentile {
  IndicatorKey key;
  const char* field;
};

/// `part / whole` as `key`, or absent for `why_absent` when `whole` is 0.
void set_share(IndicatorSet& out, const IndicatorKey& key, double part, double whole, std::string_view why_absent) {
  if (whole > 0)
    set_value(out, key, part / whole);
  else
    set_absent(out, key, std::string(why_absent));
}

/// `part` as a share of the trace's GPU span.
void of_span(const TraceSums& t, const IndicatorKey& key, double part, IndicatorSet& out) {
  set_share(out, key, part, t.span, "the trace's GPU span is 0 s");
}

/// The kinds of GPU work and the idle kinds (F126, F128-F130) of one GPU or the host.
void trace_mix_indicators(const TraceSums& t, IndicatorSet& out) {
  const auto of_ops = [&](const IndicatorKey& key, double part) {
    set_share(out, key, part, t.op_ns, "the trace's GPU ops last 0 s in total");
  };
  of_ops("comm_kernel_fraction", t.comm_ns);
  double top = kNaN;
  for (const auto& [name, ns] : t.top_kernel_ns)
    if (!(ns <= top)) top = ns;
  if (std::isnan(top))
    set_absent(out, "top_kernel_share", "no kernels in the trace");
  else
    of_ops("top_kernel_share", top);
  of_span(t, "host_wait_fraction", t.host_wait_ns, out);
  of_span(t, "short_gap_fraction", t.short_gap_ns, out);
}

/// The trace indicators of one GPU (or the host) from its sums; `launch` is the record whose
/// launch-delay percentiles apply (null when there is none or several that cannot be merged).
void trace_indicators(const TraceSums& t, const TraceRecord* launch, const std::string& launch_reason,
                      IndicatorSet& out) {
  constexpr double kUs = 1e3;
  const std::string no_trace = "no Kineto trace with GPU ops among the inputs";
  if (t.devices == 0) {
    for (const IndicatorDef& d : catalogue())
      if (d.category == "trace" && d.scope != Scope::host_only) set_absent(out, IndicatorKey::of(d.key), no_trace);
    return;
  }
  set_value(out, "gpu_busy_s", t.busy / 1e9);
  of_span(t, "gpu_idle_fraction_trace", t.idle, out);
  of_span(t, "gpu_compute_fraction", t.compute, out);
  for (const LaunchPercentile& l : {LaunchPercentile{"launch_delay_p50_us", "launch_delay_p50_ns"},
                                    LaunchPercentile{"launch_delay_p95_us", "launch_delay_p95_ns"},
                                    LaunchPercentile{"launch_delay_p99_us", "launch_delay_p99_ns"}}) {
    const IndicatorKey key = l.key;
    const double v = launch != nullptr ? launch->get(l.field) : kNaN;
    if (!std::isnan(v))
      set_value(out, key, v / kUs);
    else
      set_absent(out, key, launch != nullptr ? "no GPU op was joined to a launch call" : launch_reason);
  }
  set_share(out, "short_kernel_fraction", t.short_kernels, t.kernels, "no kernels in the trace");
  set_share(out, "launch_delay_over_10ms_fraction", t.long_delays, t.launched, "no GPU op was joined to a launch call");
  set_value(out, "kernels", t.kernels);
  set_value(out, "unmatched_gpu_events", t.unmatched);
  set_value(out, "memcpy_s", t.memcpy_ns / 1e9);
  if (t.h2d_ns > 0)
    set_value(out, "h2d_gbps", t.h2d_bytes / t.h2d_ns);
  else
    set_absent(out, "h2d_gbps", "no HtoD memcpy with a byte count in the trace");
  if (t.d2h_ns > 0)
    set_value(out, "d2h_gbps", t.d2h_bytes / t.d2h_ns);
  else
    set_absent(out, "d2h_gbps", "no DtoH memcpy with a byte count in the trace");
  if (t.queues > 0) {
    set_value(out, "queue_length_mean", t.queue_mean_sum / static_cast<double>(t.queues));
  } else {
    set_absent(out, "queue_length_mean", "no GPU op was joined to a launch call");
  }
  trace_mix_indicators(t, out);
}

/// The host's gpu_busy_s without a trace: the profiler table's device total, else nsys's summed
/// kernel and memory-operation totals (op time, overlaps counted per op); left as the trace set
/// it when a trace gives GPU ops.
void busy_without_trace(const SampleCollector& c, const TraceSums& host, IndicatorSet& out) {
  if (host.devices > 0) return;
  double table_ns = 0, nsys_ns = 0;
  bool table = false, nsys = false;
  for (const TraceRecord& r : c.trace_records()) {
    // The legacy footer gives only "CUDA time total" (the sum of the CUDA total column).
    const double device =
        !std::isnan(r.get("self_device_total_ns")) ? r.get("self_device_total_ns") : r.get("device_total_ns");
    if (r.kind == EventKind::profiler_total && !std::isnan(device)) {
      table_ns += device;
      table = true;
    } else if ((r.kind == EventKind::nsys_kernel || r.kind == EventKind::nsys_memop_time) &&
               !std::isnan(r.get("total_ns"))) {
      nsys_ns += r.get("total_ns");
      nsys = true;
    }
  }
  if (table)
    set_value(out, "gpu_busy_s", table_ns / 1e9);
  else if (nsys)
    set_value(out, "gpu_busy_s", nsys_ns / 1e9);
}

/// One trace_device record's GPU memory peaks (its mem_* fields; -1 for a total it lacks).
TraceMemoryPeak trace_memory_of(const TraceRecord& r) {
  const auto bytes = [&](const char* k) {
    const double x = r.get(k);
    return std::isnan(x) ? std::int64_t{-1} : static_cast<std::int64_t>(std::llround(x));
  };
  TraceMemoryPeak m;
  m.allocated_bytes = bytes("mem_peak_allocated_bytes");
  m.reserved_bytes = bytes("mem_peak_reserved_bytes");
  m.gpus = 1;
  return m;
}

/// Adds one trace_device record's split (prep's split_* and *_bound_ns fields) to the sums.
void add_split(const TraceRecord& r, TraceStepSplit& s) {
  const auto ns = [&](const char* k) {
    const double x = r.get(k);
    return std::isnan(x) ? std::int64_t{0} : static_cast<std::int64_t>(std::llround(x));
  };
  ++s.devices;
  const std::int64_t steps = ns("split_steps");
  s.steps += std::max<std::int64_t>(steps, 1);
  s.marked = s.marked || steps > 0;
  s.window_ns += ns("split_window_ns");
  s.tensor_ns += ns("split_tensor_ns");
  s.memory_ns += ns("split_memory_ns");
  s.unknown_ns += ns("split_unknown_ns");
  s.exposed_comm_ns += ns("split_exposed_comm_ns");
  s.rest_ns += ns("split_rest_ns");
  s.tensor_kernel_ns += ns("tensor_bound_ns");
  s.memory_kernel_ns += ns("memory_bound_ns");
  s.comm_kernel_ns += ns("comm_bound_ns");
  s.unknown_kernel_ns += ns("unknown_bound_ns");
  if (r.detail.empty() || s.several_models) return;
  if (s.gpu_model.empty()) {
    s.gpu_model = r.detail;
  } else if (s.gpu_model != r.detail) {
    s.gpu_model.clear();
    s.several_models = true;
  }
}

}  // namespace

void add_trace_indicators(const SampleCollector& c, Features& f) {
  std::map<int, TraceSums> per_gpu;
  TraceSums host;
  std::vector<const TraceRecord*> launches;
  for (const TraceRecord& r : c.trace_records()) {
    if (r.kind == EventKind::trace_device) {
      per_gpu[r.gpu].add_device(r);
      host.add_device(r);
      // Streams of prep written before the split carry none of its fields: no split then.
      if (!std::isnan(r.get("split_window_ns"))) {
        if (!f.trace_split) f.trace_split.emplace();
        add_split(r, *f.trace_split);
      }
      if (!std::isnan(r.get("mem_events"))) add_trace_memory(trace_memory_of(r), f.trace_memory);
    } else if (r.kind == EventKind::trace_memory) {
      per_gpu[r.gpu].add_memory(r);
      host.add_memory(r);
    } else if (r.kind == EventKind::trace_launch) {
      launches.push_back(&r);
    } else if (r.kind == EventKind::trace_kernel) {
      per_gpu[r.gpu].add_kernel(r);
      host.add_kernel(r);
    }
  }
  for (GpuFeatures& g : f.gpus) {
    const TraceSums& t = per_gpu[g.gpu];
    trace_indicators(t, t.only, "several traces give this GPU: their percentiles cannot be merged", g.indicators);
  }
  const TraceRecord* launch = launches.size() == 1 ? launches.front() : nullptr;
  trace_indicators(host, launch,
                   launches.empty() ? "no Kineto trace among the inputs"
                                    : fmt::format("{} traces: their percentiles cannot be merged (see per-GPU values)",
                                                  launches.size()),
                   f.host_indicators);
  busy_without_trace(c, host, f.host_indicators);
}

}  // namespace gpucost::extract::detail

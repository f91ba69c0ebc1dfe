// The analyses of a Kineto trace, per device (definitions in docs/formats.md, "Kineto traces").
#include "host_ops.hpp"
#include "trace.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace gpucost::prep::trace {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

/// The launch call of each correlation id (the first one when a trace repeats an id).
using LaunchIndex = std::unordered_map<std::int64_t, const LaunchCall*>;

LaunchIndex index_launches(const TraceData& data) {
  LaunchIndex index;
  index.reserve(data.launches.size());
  for (const LaunchCall& c : data.launches) index.emplace(c.correlation, &c);
  return index;
}

const LaunchCall* launch_of(const GpuOp& op, const LaunchIndex& index) {
  if (op.correlation == kNoCorrelation) return nullptr;
  const auto it = index.find(op.correlation);
  return it == index.end() ? nullptr : it->second;
}

/// --steps: keeps the ops whose launch call (else the op itself) starts inside a chosen step.
std::vector<const GpuOp*> select_ops(const TraceData& data, const TraceOptions& options, const LaunchIndex& index,
                                     TraceReport& report) {
  std::vector<const GpuOp*> ops;
  ops.reserve(data.ops.size());
  if (!options.step_first) {
    for (const GpuOp& op : data.ops) ops.push_back(&op);
    return ops;
  }
  const std::int64_t last = options.step_last.value_or(*options.step_first);
  for (const StepMark& s : data.steps)
    if (s.number >= *options.step_first && s.number <= last) report.steps_used.push_back(s);
  for (const GpuOp& op : data.ops) {
    const LaunchCall* call = launch_of(op, index);
    const std::int64_t t = call != nullptr ? call->start_ns : op.start_ns;
    const bool inside = std::any_of(report.steps_used.begin(), report.steps_used.end(),
                                    [&](const StepMark& s) { return t >= s.start_ns && t < s.start_ns + s.dur_ns; });
    if (inside)
      ops.push_back(&op);
    else
      ++report.ops_filtered_out;
  }
  return ops;
}

/// Raises the bins of `bins` (cutting [origin, origin + window) into equal parts) that the
/// interval [from, to) touches to at least `depth`. Bin k holds [origin + k·window/B, origin + (k+1)·window/B).
void note_queue_length(std::vector<std::int64_t>& bins, std::int64_t origin, std::int64_t window, std::int64_t from,
                       std::int64_t to, std::int64_t depth) {
  if (window <= 0) return;
  // (t - origin) x bins fits 64 bits for any trace shorter than two years.
  const auto n = static_cast<std::int64_t>(bins.size());
  const auto bin_of = [&](std::int64_t t) {
    return static_cast<std::size_t>(std::clamp<std::int64_t>((t - origin) * n / window, 0, n - 1));
  };
  for (std::size_t k = bin_of(from), last = bin_of(to - 1); k <= last; ++k) bins[k] = std::max(bins[k], depth);
}

/// Idle gaps of one stream's ops (sorted by start), classified; returns the stream's busy time.
StreamReport analyse_stream(std::int64_t stream, const std::vector<const GpuOp*>& ops, const LaunchIndex& index,
                            const TraceOptions& options) {
  StreamReport s;
  s.stream = stream;
  s.ops = ops.size();
  s.start_ns = ops.front()->start_ns;
  std::int64_t busy_end = ops.front()->end_ns();
  std::int64_t busy = ops.front()->dur_ns;
  for (std::size_t i = 1; i < ops.size(); ++i) {
    const GpuOp& op = *ops[i];
    if (op.start_ns > busy_end) {
      const std::int64_t gap = op.start_ns - busy_end;
      const LaunchCall* call = launch_of(op, index);
      if (call != nullptr && call->start_ns > busy_end)
        s.idle.host_wait_ns += gap;
      else if (gap < options.short_gap_ns)
        s.idle.short_gap_ns += gap;
      else
        s.idle.other_ns += gap;
      busy += op.dur_ns;
      busy_end = op.end_ns();
    } else if (op.end_ns() > busy_end) {
      busy += op.end_ns() - busy_end;
      busy_end = op.end_ns();
    }
  }
  s.end_ns = busy_end;
  s.busy_ns = busy;

  // Queue length: +1 when the launch call starts (the op is enqueued), -1 when the op ends.
  std::vector<std::pair<std::int64_t, int>> changes;
  changes.reserve(ops.size() * 2);
  for (const GpuOp* op : ops) {
    const LaunchCall* call = launch_of(*op, index);
    if (call == nullptr) continue;
    changes.emplace_back(call->start_ns, +1);
    changes.emplace_back(std::max(op->end_ns(), call->start_ns), -1);
  }
  if (!changes.empty()) {
    std::sort(changes.begin(), changes.end());  // at equal times -1 first: a finished op leaves first
    const std::int64_t origin = changes.front().first;
    const std::int64_t window = changes.back().first - origin;
    s.queue_max_by_bin.assign(kQueueBins, 0);
    long double area = 0;
    std::int64_t depth = 0, prev = origin;
    for (const auto& [t, d] : changes) {
      area += static_cast<long double>(depth) * static_cast<long double>(t - prev);
      if (depth >= kLaunchQueueSlots) s.full_queue_ns += t - prev;
      if (t > prev) note_queue_length(s.queue_max_by_bin, origin, window, prev, t, depth);
      depth += d;
      s.queue_length_max = std::max(s.queue_length_max, depth);
      prev = t;
    }
    s.queue_length_mean = window > 0 ? static_cast<double>(area / static_cast<long double>(window)) : 0.0;
    if (window == 0) s.queue_max_by_bin.front() = s.queue_length_max;  // all at one instant
    s.has_queue = true;
  }
  return s;
}

void add_memory(DeviceReport& dev, const GpuOp& op) {
  auto it = std::find_if(dev.memory.begin(), dev.memory.end(),
                         [&](const MemoryRow& r) { return r.type == op.type && r.dir == op.dir; });
  if (it == dev.memory.end()) {
    dev.memory.push_back(MemoryRow{op.dir, op.type, 0, 0, 0, 0, 0});
    it = dev.memory.end() - 1;
  }
  ++it->count;
  it->total_ns += op.dur_ns;
  if (op.bytes > 0) {
    it->bytes += op.bytes;
    ++it->counted_bytes_ops;
    it->timed_ns += op.dur_ns;
  }
}

void kernel_breakdown(DeviceReport& dev, const std::vector<const GpuOp*>& ops, const TraceData& data,
                      std::size_t top_n) {
  std::unordered_map<std::uint32_t, KernelRow> rows;
  for (const GpuOp* op : ops) {
    if (op->type != OpType::kernel) continue;
    KernelRow& r = rows[op->name];
    if (r.count == 0) {
      r.cls = op->cls;
      r.min_ns = op->dur_ns;
      r.max_ns = op->dur_ns;
    }
    ++r.count;
    r.total_ns += op->dur_ns;
    r.min_ns = std::min(r.min_ns, op->dur_ns);
    r.max_ns = std::max(r.max_ns, op->dur_ns);
  }
  dev.distinct_kernels = rows.size();
  std::vector<std::pair<std::uint32_t, KernelRow>> sorted(rows.begin(), rows.end());
  std::sort(sorted.begin(), sorted.end(), [&](const auto& a, const auto& b) {
    if (a.second.total_ns != b.second.total_ns) return a.second.total_ns > b.second.total_ns;
    return data.names[a.first] < data.names[b.first];  // deterministic order on ties
  });
  if (sorted.size() > top_n) sorted.resize(top_n);
  for (auto& [name, row] : sorted) {
    row.name = data.names[name];
    dev.top_kernels.push_back(std::move(row));
  }
}

/// The bound of each op: its name's for kernels (one lookup per interned name), memory for copies.
KernelBound bound_of(const GpuOp& op, const std::vector<KernelBound>& name_bounds) {
  if (op.type != OpType::kernel) return KernelBound::memory;
  return op.name < name_bounds.size() ? name_bounds[op.name] : KernelBound::other;
}

/// Splits the steps' timeline (StepSplit): one sweep over the ops' and the windows' edges; each
/// stretch between two edges goes to the highest-priority bound running then, if it lies in a window.
StepSplit split_steps(const std::vector<const GpuOp*>& ops, const std::vector<Interval>& windows,
                      const std::vector<KernelBound>& name_bounds) {
  StepSplit split;
  struct Edge {
    std::int64_t t;
    int delta;
    int what;  // a KernelBound, or kWindow
  };
  constexpr int kWindow = kKernelBounds;
  std::vector<Edge> edges;
  edges.reserve(ops.size() * 2 + windows.size() * 2);
  for (const GpuOp* op : ops) {
    if (op->dur_ns <= 0) continue;
    const int b = static_cast<int>(bound_of(*op, name_bounds));
    edges.push_back(Edge{op->start_ns, +1, b});
    edges.push_back(Edge{op->end_ns(), -1, b});
  }
  for (const auto& [start, end] : windows) {
    if (end <= start) continue;
    edges.push_back(Edge{start, +1, kWindow});
    edges.push_back(Edge{end, -1, kWindow});
  }
  if (edges.empty()) return split;
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  int active[kKernelBounds + 1] = {0, 0, 0, 0, 0};
  std::int64_t prev = edges.front().t;
  for (const Edge& e : edges) {
    if (e.t > prev && active[kWindow] > 0) {
      const std::int64_t len = e.t - prev;
      split.window_ns += len;
      if (active[static_cast<int>(KernelBound::tensor)] > 0)
        split.tensor_ns += len;
      else if (active[static_cast<int>(KernelBound::memory)] > 0)
        split.memory_ns += len;
      else if (active[static_cast<int>(KernelBound::other)] > 0)
        split.other_ns += len;
      else if (active[static_cast<int>(KernelBound::communication)] > 0)
        split.exposed_comm_ns += len;
    }
    prev = e.t;
    active[e.what] += e.delta;
  }
  return split;
}

DeviceReport analyse_device(int device, std::vector<const GpuOp*>& ops, const TraceData& data, const LaunchIndex& index,
                            const TraceOptions& options, const std::vector<Interval>& steps,
                            const std::vector<KernelBound>& name_bounds) {
  DeviceReport dev;
  dev.rank = data.rank;
  dev.device = device;
  if (auto it = data.device_names.find(device); it != data.device_names.end()) dev.device_name = it->second;
  std::sort(ops.begin(), ops.end(), [](const GpuOp* a, const GpuOp* b) {
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
    return a->end_ns() < b->end_ns();
  });
  dev.ops = ops.size();
  dev.start_ns = ops.front()->start_ns;
  dev.end_ns = dev.start_ns;
  std::vector<Interval> all, compute;
  all.reserve(ops.size());
  for (const GpuOp* op : ops) {
    dev.end_ns = std::max(dev.end_ns, op->end_ns());
    all.emplace_back(op->start_ns, op->end_ns());
    dev.kernel_time_ns[static_cast<int>(op->cls)] += op->dur_ns;
    dev.bound_time_ns[static_cast<int>(bound_of(*op, name_bounds))] += op->dur_ns;
    switch (op->type) {
      case OpType::kernel:
        ++dev.kernels;
        if (op->cls == OpClass::compute) compute.emplace_back(op->start_ns, op->end_ns());
        if (op->dur_ns < options.short_kernel_ns) ++dev.launch.short_kernels;
        break;
      case OpType::memcpy:
        ++dev.memcpys;
        add_memory(dev, *op);
        break;
      case OpType::memset:
        ++dev.memsets;
        add_memory(dev, *op);
        break;
    }
    if (const LaunchCall* call = launch_of(*op, index); call != nullptr) {
      ++dev.launch.matched;
      dev.launch.delays_ns.push_back(std::max<std::int64_t>(0, op->start_ns - call->end_ns()));
    } else {
      ++dev.launch.unmatched;
    }
  }
  dev.launch.kernels = dev.kernels;
  std::sort(dev.launch.delays_ns.begin(), dev.launch.delays_ns.end());
  dev.launch.long_delays = static_cast<std::uint64_t>(
      dev.launch.delays_ns.end() -
      std::upper_bound(dev.launch.delays_ns.begin(), dev.launch.delays_ns.end(), options.long_delay_ns));
  dev.span_ns = dev.end_ns - dev.start_ns;
  dev.busy_ns = union_length(all);
  dev.idle_ns = dev.span_ns - dev.busy_ns;
  dev.compute_ns = union_length(compute);
  dev.noncompute_ns = dev.busy_ns - dev.compute_ns;
  if (steps.empty()) {
    dev.step_split = split_steps(ops, {Interval{dev.start_ns, dev.end_ns}}, name_bounds);
  } else {
    dev.step_split = split_steps(ops, steps, name_bounds);
    dev.step_split.steps = static_cast<std::int64_t>(steps.size());
  }

  // Streams, in stream order (ops stay sorted by start within each).
  std::vector<const GpuOp*> by_stream(ops);
  std::stable_sort(by_stream.begin(), by_stream.end(),
                   [](const GpuOp* a, const GpuOp* b) { return a->stream < b->stream; });
  double queue_sum = 0;
  std::size_t queues = 0;
  for (std::size_t i = 0; i < by_stream.size();) {
    std::size_t j = i;
    while (j < by_stream.size() && by_stream[j]->stream == by_stream[i]->stream) ++j;
    std::vector<const GpuOp*> stream_ops(by_stream.begin() + static_cast<std::ptrdiff_t>(i),
                                         by_stream.begin() + static_cast<std::ptrdiff_t>(j));
    StreamReport s = analyse_stream(by_stream[i]->stream, stream_ops, index, options);
    dev.idle.host_wait_ns += s.idle.host_wait_ns;
    dev.idle.short_gap_ns += s.idle.short_gap_ns;
    dev.idle.other_ns += s.idle.other_ns;
    if (s.has_queue) {
      queue_sum += s.queue_length_mean;
      ++queues;
      dev.queue_length_max = std::max(dev.queue_length_max, s.queue_length_max);
      dev.full_queue_ns += s.full_queue_ns;
    }
    dev.streams.push_back(s);
    i = j;
  }
  dev.queue_length_mean = queues > 0 ? queue_sum / static_cast<double>(queues) : 0.0;
  kernel_breakdown(dev, ops, data, options.top_kernels);
  std::sort(dev.memory.begin(), dev.memory.end(),
            [](const MemoryRow& a, const MemoryRow& b) { return std::pair(a.type, a.dir) < std::pair(b.type, b.dir); });
  return dev;
}

}  // namespace

std::int64_t union_length(std::vector<std::pair<std::int64_t, std::int64_t>>& intervals) {
  if (intervals.empty()) return 0;
  std::sort(intervals.begin(), intervals.end());
  std::int64_t total = 0;
  std::int64_t cur_start = intervals.front().first, cur_end = intervals.front().second;
  for (const auto& [s, e] : intervals) {
    if (s > cur_end) {
      total += cur_end - cur_start;
      cur_start = s;
      cur_end = e;
    } else {
      cur_end = std::max(cur_end, e);
    }
  }
  return total + (cur_end - cur_start);
}

std::optional<double> LaunchStats::percentile_ns(double p) const {
  if (delays_ns.empty()) return std::nullopt;
  const double rank = p / 100.0 * static_cast<double>(delays_ns.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, delays_ns.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  const double v = static_cast<double>(delays_ns[lo]) +
                   (static_cast<double>(delays_ns[hi]) - static_cast<double>(delays_ns[lo])) * frac;
  return std::round(v * 1000.0) / 1000.0;  // to 0.001 ns: drops the binary noise of 0.95 x (n - 1)
}

std::optional<double> MemoryRow::gbps() const {
  if (bytes == 0 || timed_ns <= 0) return std::nullopt;
  return static_cast<double>(bytes) / static_cast<double>(timed_ns);  // bytes/ns == GB/s
}

TraceReport analyse(const TraceData& data, const TraceOptions& options) {
  TraceReport report;
  const LaunchIndex index = index_launches(data);
  std::vector<const GpuOp*> ops = select_ops(data, options, index, report);
  // The steps' windows the split times: those chosen with --steps, else every step of the trace.
  std::vector<Interval> steps;
  for (const StepMark& s : options.step_first ? report.steps_used : data.steps)
    steps.emplace_back(s.start_ns, s.start_ns + s.dur_ns);
  std::vector<KernelBound> name_bounds;
  name_bounds.reserve(data.names.size());
  for (const std::string& name : data.names) name_bounds.push_back(kernel_bound(name));
  std::stable_sort(ops.begin(), ops.end(), [](const GpuOp* a, const GpuOp* b) { return a->device < b->device; });
  for (std::size_t i = 0; i < ops.size();) {
    std::size_t j = i;
    while (j < ops.size() && ops[j]->device == ops[i]->device) ++j;
    std::vector<const GpuOp*> device_ops(ops.begin() + static_cast<std::ptrdiff_t>(i),
                                         ops.begin() + static_cast<std::ptrdiff_t>(j));
    report.devices.push_back(analyse_device(ops[i]->device, device_ops, data, index, options, steps, name_bounds));
    i = j;
  }
  if (!data.host_ops.empty())
    report.operators = operator_table(data, options.step_first ? std::optional(report.steps_used) : std::nullopt);
  attach_gpu_memory(data, options.step_first ? report.steps_used : data.steps, report);
  return report;
}

}  // namespace gpucost::prep::trace

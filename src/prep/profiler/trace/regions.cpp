#include "regions.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace gpucost::prep::trace {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;
using Marks = std::vector<RegionMark>;

/// [from, to): where a range must start to be counted.
struct Window {
  std::int64_t from = std::numeric_limits<std::int64_t>::min();
  std::int64_t to = std::numeric_limits<std::int64_t>::max();
  [[nodiscard]] bool holds(std::int64_t t) const { return t >= from && t < to; }
};

Window window_of(const TraceData& data, const std::vector<StepMark>& steps, bool restricted) {
  Window w;
  if (!restricted) return w;
  if (steps.empty()) return Window{0, 0};  // no step selected: nothing counts
  w.from = steps.front().start_ns;
  std::int64_t last = steps.front().start_ns;
  for (const StepMark& s : steps) {
    w.from = std::min(w.from, s.start_ns);
    last = std::max(last, s.start_ns);
  }
  // The GPU work of the last step runs after its CPU window: it ends where the next step starts.
  for (const StepMark& s : data.steps)
    if (s.start_ns > last) w.to = std::min(w.to, s.start_ns);
  return w;
}

/// Ranges of `marks` that start in `w` (copies: sorting values keeps the sweeps below in cache).
Marks selected(const Marks& marks, const Window& w) {
  Marks out;
  for (const RegionMark& m : marks)
    if (w.holds(m.start_ns)) out.push_back(m);
  return out;
}

/// Per lane by start, the enclosing range first.
bool by_time(const RegionMark& a, const RegionMark& b) {
  if (a.lane != b.lane) return a.lane < b.lane;
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  return a.dur_ns > b.dur_ns;
}

/// Per name and lane by start.
bool by_name(const RegionMark& a, const RegionMark& b) {
  if (a.name != b.name) return a.name < b.name;
  if (a.lane != b.lane) return a.lane < b.lane;
  return a.start_ns < b.start_ns;
}

/// Depth and parent of each name's first call: per thread, the ranges open around it.
/// `cpu` sorted by_time.
void nest(const Marks& cpu, const TraceData& data, std::vector<RegionRow>& rows) {
  std::vector<bool> seen(rows.size(), false);
  std::vector<const RegionMark*> open;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const RegionMark& m = cpu[i];
    if (i > 0 && cpu[i - 1].lane != m.lane) open.clear();
    while (!open.empty() && open.back()->end_ns() <= m.start_ns) open.pop_back();
    RegionRow& row = rows[m.name];
    if (!seen[m.name] || m.start_ns < row.first_ns) {
      seen[m.name] = true;
      row.first_ns = m.start_ns;
      row.depth = static_cast<int>(open.size());
      row.parent = open.empty() ? std::string() : data.region_names[open.back()->name];
    }
    open.push_back(&m);
  }
}

/// Σ over devices of the union of the intervals, given as (device, interval); sorts `spans`.
std::int64_t per_device_union(std::vector<std::pair<std::int32_t, Interval>>& spans, std::uint64_t* devices) {
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0;
  std::vector<Interval> one;
  for (std::size_t i = 0; i < spans.size();) {
    std::size_t j = i;
    one.clear();
    for (; j < spans.size() && spans[j].first == spans[i].first; ++j) one.push_back(spans[j].second);
    total += union_length(one);
    if (devices != nullptr) ++*devices;
    i = j;
  }
  return total;
}

/// Each GPU op joined to its launch call, by the call's start: what was launched when.
class LaunchIndex {
 public:
  explicit LaunchIndex(const TraceData& data) {
    std::vector<std::pair<std::int64_t, const GpuOp*>> ops;
    for (const GpuOp& op : data.ops)
      if (op.correlation != kNoCorrelation) ops.emplace_back(op.correlation, &op);
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const LaunchCall& c : data.launches) {
      auto op = std::lower_bound(ops.begin(), ops.end(), c.correlation,
                                 [](const auto& e, std::int64_t k) { return e.first < k; });
      for (; op != ops.end() && op->first == c.correlation; ++op)  // a graph launch: all its ops
        m_launched.push_back(Launched{c.start_ns, op->second->start_ns, op->second->end_ns(), op->second->device});
    }
    std::sort(m_launched.begin(), m_launched.end(),
              [](const Launched& a, const Launched& b) { return a.call_ns < b.call_ns; });
  }
  /// Adds the ops whose launch call starts in [from, to), on any thread, to `spans`.
  void ops_launched(std::int64_t from, std::int64_t to, std::vector<std::pair<std::int32_t, Interval>>& spans) const {
    auto it = std::lower_bound(m_launched.begin(), m_launched.end(), from,
                               [](const Launched& l, std::int64_t t) { return l.call_ns < t; });
    for (; it != m_launched.end() && it->call_ns < to; ++it)
      spans.emplace_back(it->device, Interval{it->start_ns, it->end_ns});
  }

 private:
  struct Launched {
    std::int64_t call_ns = 0, start_ns = 0, end_ns = 0;
    std::int32_t device = 0;
  };
  std::vector<Launched> m_launched;
};

/// The ops launched while any of `ranges` was open: the backward pass's kernels are launched by
/// autograd's own thread while the thread that opened "## backward ##" waits, so any thread counts.
std::int64_t launched_gpu_ns(std::vector<Interval>& ranges, const LaunchIndex& launches,
                             std::vector<std::pair<std::int32_t, Interval>>& spans) {
  std::sort(ranges.begin(), ranges.end());
  spans.clear();
  for (std::size_t i = 0; i < ranges.size();) {
    Interval u = ranges[i];
    for (++i; i < ranges.size() && ranges[i].first <= u.second; ++i) u.second = std::max(u.second, ranges[i].second);
    launches.ops_launched(u.first, u.second, spans);
  }
  return per_device_union(spans, nullptr);
}

/// CPU time, calls and threads of each name, and the GPU time of the ops launched inside it.
/// `cpu` sorted by_name.
void cpu_side(const Marks& cpu, const LaunchIndex& launches, std::vector<RegionRow>& rows) {
  std::vector<Interval> ranges;
  std::vector<std::pair<std::int32_t, Interval>> spans;
  for (std::size_t i = 0; i < cpu.size();) {
    const std::uint32_t name = cpu[i].name;
    RegionRow& row = rows[name];
    ranges.clear();
    for (; i < cpu.size() && cpu[i].name == name;) {  // one thread of the name
      const std::int64_t lane = cpu[i].lane;
      ++row.threads;
      std::int64_t from = cpu[i].start_ns, to = cpu[i].end_ns();
      for (; i < cpu.size() && cpu[i].name == name && cpu[i].lane == lane; ++i) {
        ++row.calls;
        ranges.emplace_back(cpu[i].start_ns, cpu[i].end_ns());
        if (cpu[i].start_ns > to) {  // a new stretch of the thread's union
          row.cpu_ns += to - from;
          from = cpu[i].start_ns;
        }
        to = std::max(to, cpu[i].end_ns());
      }
      row.cpu_ns += to - from;
    }
    row.launched_gpu_ns = launched_gpu_ns(ranges, launches, spans);
  }
}

/// `gpu` sorted by_name.
void gpu_side(const Marks& gpu, std::vector<RegionRow>& rows) {
  std::vector<std::pair<std::int32_t, Interval>> spans;
  for (std::size_t i = 0; i < gpu.size();) {
    const std::uint32_t name = gpu[i].name;
    RegionRow& row = rows[name];
    spans.clear();
    row.first_ns = gpu[i].start_ns;  // the earliest; nest() moves it to the first CPU call
    for (; i < gpu.size() && gpu[i].name == name; ++i) {
      row.first_ns = std::min(row.first_ns, gpu[i].start_ns);
      ++row.gpu_calls;
      spans.emplace_back(gpu[i].device, Interval{gpu[i].start_ns, gpu[i].end_ns()});
    }
    row.annotated_gpu_ns = per_device_union(spans, &row.devices);
  }
}

}  // namespace

std::string_view to_string(RegionGpuSource s) {
  switch (s) {
    case RegionGpuSource::annotation: return "gpu_user_annotation";
    case RegionGpuSource::launched_ops: return "launched_ops";
    case RegionGpuSource::none: break;
  }
  return "none";
}

RegionReport analyse_regions(const TraceData& data, const std::vector<StepMark>& steps, bool restricted) {
  RegionReport report;
  const Window w = window_of(data, steps, restricted);
  std::vector<RegionRow> rows(data.region_names.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].name = data.region_names[i];
  {
    Marks gpu = selected(data.gpu_regions, w);
    std::sort(gpu.begin(), gpu.end(), by_name);
    gpu_side(gpu, rows);
  }
  Marks cpu = selected(data.cpu_regions, w);
  std::sort(cpu.begin(), cpu.end(), by_time);
  nest(cpu, data, rows);
  std::sort(cpu.begin(), cpu.end(), by_name);
  cpu_side(cpu, LaunchIndex(data), rows);
  for (RegionRow& row : rows) {
    if (row.calls == 0 && row.gpu_calls == 0) continue;  // outside the steps
    if (row.gpu_calls > 0)
      row.gpu_source = RegionGpuSource::annotation;
    else if (row.launched_gpu_ns > 0)
      row.gpu_source = RegionGpuSource::launched_ops;
    report.rows.push_back(std::move(row));
  }
  std::stable_sort(report.rows.begin(), report.rows.end(), [](const RegionRow& a, const RegionRow& b) {
    return a.cpu_ns != b.cpu_ns ? a.cpu_ns > b.cpu_ns : a.name < b.name;
  });
  report.steps = static_cast<std::int64_t>(steps.size());
  for (const StepMark& s : steps) report.steps_ns += s.dur_ns;
  if (!steps.empty()) report.step_ns = report.steps_ns / report.steps;
  return report;
}

}  // namespace gpucost::prep::trace

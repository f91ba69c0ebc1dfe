#include "regions.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace gpucost::prep::trace {

namespace {

using Interval = std::pair<std::int64_t, std::int64_t>;

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

/// Ranges of `marks` that start in `w`, sorted by name, lane, start and longest first.
std::vector<const RegionMark*> selected(const std::vector<RegionMark>& marks, const Window& w) {
  std::vector<const RegionMark*> out;
  for (const RegionMark& m : marks)
    if (w.holds(m.start_ns)) out.push_back(&m);
  std::sort(out.begin(), out.end(), [](const RegionMark* a, const RegionMark* b) {
    if (a->name != b->name) return a->name < b->name;
    if (a->lane != b->lane) return a->lane < b->lane;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
    return a->dur_ns > b->dur_ns;
  });
  return out;
}

/// Depth and parent of each name's first call: per thread, the ranges open around it.
void nest(const std::vector<const RegionMark*>& cpu, const TraceData& data, std::vector<RegionRow>& rows) {
  std::vector<const RegionMark*> by_time(cpu);
  std::sort(by_time.begin(), by_time.end(), [](const RegionMark* a, const RegionMark* b) {
    if (a->lane != b->lane) return a->lane < b->lane;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns;
    return a->dur_ns > b->dur_ns;  // the enclosing range first
  });
  std::vector<bool> seen(rows.size(), false);
  std::vector<const RegionMark*> open;
  for (std::size_t i = 0; i < by_time.size(); ++i) {
    const RegionMark* m = by_time[i];
    if (i > 0 && by_time[i - 1]->lane != m->lane) open.clear();
    while (!open.empty() && open.back()->end_ns() <= m->start_ns) open.pop_back();
    RegionRow& row = rows[m->name];
    if (!seen[m->name] || m->start_ns < row.first_ns) {
      seen[m->name] = true;
      row.first_ns = m->start_ns;
      row.depth = static_cast<int>(open.size());
      row.parent = open.empty() ? std::string() : data.region_names[open.back()->name];
    }
    open.push_back(m);
  }
}

/// GPU ops by correlation id, to find what a launch call started.
using OpsByCorrelation = std::vector<std::pair<std::int64_t, const GpuOp*>>;

OpsByCorrelation ops_by_correlation(const TraceData& data) {
  OpsByCorrelation out;
  for (const GpuOp& op : data.ops)
    if (op.correlation != kNoCorrelation) out.emplace_back(op.correlation, &op);
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

/// Σ over devices of the union of the intervals, given as (device, interval).
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

/// Launch calls by start, to find those made while a region was open.
class LaunchIndex {
 public:
  explicit LaunchIndex(const TraceData& data) : m_ops(ops_by_correlation(data)) {
    for (const LaunchCall& c : data.launches) m_calls.push_back(&c);
    std::sort(m_calls.begin(), m_calls.end(),
              [](const LaunchCall* a, const LaunchCall* b) { return a->start_ns < b->start_ns; });
  }
  /// Adds the ops whose launch call starts in [from, to), on any thread, to `spans`.
  void ops_launched(std::int64_t from, std::int64_t to, std::vector<std::pair<std::int32_t, Interval>>& spans) const {
    auto it = std::lower_bound(m_calls.begin(), m_calls.end(), from,
                               [](const LaunchCall* c, std::int64_t t) { return c->start_ns < t; });
    for (; it != m_calls.end() && (*it)->start_ns < to; ++it) {
      auto op = std::lower_bound(m_ops.begin(), m_ops.end(), (*it)->correlation,
                                 [](const auto& e, std::int64_t c) { return e.first < c; });
      for (; op != m_ops.end() && op->first == (*it)->correlation; ++op)
        spans.emplace_back(op->second->device, Interval{op->second->start_ns, op->second->end_ns()});
    }
  }

 private:
  OpsByCorrelation m_ops;
  std::vector<const LaunchCall*> m_calls;
};

/// The ops launched while any of `ranges` was open: the backward pass's kernels are launched by
/// autograd's own thread while the thread that opened "## backward ##" waits, so any thread counts.
std::int64_t launched_gpu_ns(std::vector<Interval>& ranges, const LaunchIndex& launches) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<std::pair<std::int32_t, Interval>> spans;
  for (std::size_t i = 0; i < ranges.size();) {
    Interval u = ranges[i];
    for (++i; i < ranges.size() && ranges[i].first <= u.second; ++i) u.second = std::max(u.second, ranges[i].second);
    launches.ops_launched(u.first, u.second, spans);
  }
  return per_device_union(spans, nullptr);
}

/// CPU time, calls and threads of each name, and the GPU time of the ops launched inside it.
void cpu_side(const std::vector<const RegionMark*>& cpu, const LaunchIndex& launches, std::vector<RegionRow>& rows) {
  std::vector<Interval> ranges;
  for (std::size_t i = 0; i < cpu.size();) {
    const std::uint32_t name = cpu[i]->name;
    RegionRow& row = rows[name];
    ranges.clear();
    for (; i < cpu.size() && cpu[i]->name == name;) {  // one thread of the name
      const std::int64_t lane = cpu[i]->lane;
      ++row.threads;
      std::int64_t from = cpu[i]->start_ns, to = cpu[i]->end_ns();
      for (; i < cpu.size() && cpu[i]->name == name && cpu[i]->lane == lane; ++i) {
        ++row.calls;
        ranges.emplace_back(cpu[i]->start_ns, cpu[i]->end_ns());
        if (cpu[i]->start_ns > to) {  // a new stretch of the thread's union
          row.cpu_ns += to - from;
          from = cpu[i]->start_ns;
        }
        to = std::max(to, cpu[i]->end_ns());
      }
      row.cpu_ns += to - from;
    }
    row.launched_gpu_ns = launched_gpu_ns(ranges, launches);
  }
}

void gpu_side(const std::vector<const RegionMark*>& gpu, std::vector<RegionRow>& rows) {
  std::vector<std::pair<std::int32_t, Interval>> spans;
  for (std::size_t i = 0; i < gpu.size();) {
    const std::uint32_t name = gpu[i]->name;
    RegionRow& row = rows[name];
    spans.clear();
    for (; i < gpu.size() && gpu[i]->name == name; ++i) {
      ++row.gpu_calls;
      spans.emplace_back(gpu[i]->device, Interval{gpu[i]->start_ns, gpu[i]->end_ns()});
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
  const std::vector<const RegionMark*> cpu = selected(data.cpu_regions, w);
  const std::vector<const RegionMark*> gpu = selected(data.gpu_regions, w);
  std::vector<RegionRow> rows(data.region_names.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i].name = data.region_names[i];
  for (const RegionMark* m : gpu) rows[m->name].first_ns = m->start_ns;  // nest() sets it for CPU ranges
  nest(cpu, data, rows);
  cpu_side(cpu, LaunchIndex(data), rows);
  gpu_side(gpu, rows);
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
  std::int64_t total = 0;
  for (const StepMark& s : steps) total += s.dur_ns;
  if (!steps.empty()) report.step_ns = total / report.steps;
  return report;
}

}  // namespace gpucost::prep::trace

#include "memory_events.hpp"

#include "trace.hpp"

#include <gpucost/core/event.hpp>

#include <algorithm>
#include <string>

namespace gpucost::prep::trace {

namespace {

// c10::DeviceType as PyTorch writes it in "Device Type".
constexpr std::int64_t kDeviceCpu = 0;
constexpr std::int64_t kDeviceCuda = 1;

/// Adds one event to `p`: its totals (when written) to the peaks, its sign to the counts.
void count(MemoryPeaks& p, const MemorySample& s) {
  ++p.events;
  if (s.sign > 0) ++p.allocs;
  if (s.sign < 0) ++p.frees;
  if (s.allocated < 0 && s.reserved < 0) ++p.without_totals;
  p.peak_allocated = std::max(p.peak_allocated, s.allocated);
  p.peak_reserved = std::max(p.peak_reserved, s.reserved);
}

/// Bin k of [first, first + window] cut into `n` equal parts; window 0: everything in bin 0.
std::size_t bin_of(std::int64_t t, std::int64_t first, std::int64_t window, std::size_t n) {
  if (window <= 0) return 0;
  // (t - first) x n fits 64 bits for any trace shorter than two years.
  const auto k = (t - first) * static_cast<std::int64_t>(n) / window;
  return static_cast<std::size_t>(std::clamp<std::int64_t>(k, 0, static_cast<std::int64_t>(n) - 1));
}

/// The largest value of `field` per bin, a bin without events holding the level carried into it.
std::vector<std::int64_t> max_by_bin(const std::vector<MemorySample>& s, std::int64_t MemorySample::*field,
                                     std::int64_t first, std::int64_t window) {
  std::vector<std::int64_t> bins(kMemoryBins, -1);
  std::int64_t level = -1;
  std::size_t at = 0;
  for (const MemorySample& e : s) {
    if (e.*field < 0) continue;
    const std::size_t k = bin_of(e.ts_ns, first, window, kMemoryBins);
    for (std::size_t j = at + 1; j <= k; ++j) bins[j] = std::max(bins[j], level);  // the level entering bin j
    bins[k] = std::max(bins[k], e.*field);
    level = e.*field;
    at = std::max(at, k);
  }
  if (level < 0) return {};
  for (std::size_t j = at + 1; j < kMemoryBins; ++j) bins[j] = level;  // past the last event: only at window 0
  for (std::int64_t& b : bins) b = std::max<std::int64_t>(b, 0);
  return bins;
}

/// One step's peaks on one GPU: the events inside [start, start + dur), and the level in effect at its start.
StepMemory step_memory(const std::vector<MemorySample>& s, const StepMark& step) {
  StepMemory out;
  out.step = step.number;
  out.start_ns = step.start_ns;
  const auto by_ts = [](const MemorySample& e, std::int64_t t) { return e.ts_ns < t; };
  const auto begin = std::lower_bound(s.begin(), s.end(), step.start_ns, by_ts);
  const auto end = std::lower_bound(begin, s.end(), step.start_ns + step.dur_ns, by_ts);
  for (auto it = begin; it != end; ++it) count(out.peaks, *it);
  // The totals in effect when the step starts: the last event before it that wrote each.
  for (auto it = begin; it != s.begin();) {
    --it;
    if (it->allocated >= 0) {
      out.peaks.peak_allocated = std::max(out.peaks.peak_allocated, it->allocated);
      break;
    }
  }
  for (auto it = begin; it != s.begin();) {
    --it;
    if (it->reserved >= 0) {
      out.peaks.peak_reserved = std::max(out.peaks.peak_reserved, it->reserved);
      break;
    }
  }
  return out;
}

GpuMemory analyse_one(int device, const std::vector<MemorySample>& s, const std::vector<StepMark>& steps) {
  GpuMemory g;
  g.device = device;
  g.first_ns = s.front().ts_ns;
  g.last_ns = s.back().ts_ns;
  for (const MemorySample& e : s) count(g.peaks, e);
  const std::int64_t window = g.last_ns - g.first_ns;
  g.allocated_max_by_bin = max_by_bin(s, &MemorySample::allocated, g.first_ns, window);
  g.reserved_max_by_bin = max_by_bin(s, &MemorySample::reserved, g.first_ns, window);
  for (const StepMark& step : steps) g.steps.push_back(step_memory(s, step));
  std::sort(g.steps.begin(), g.steps.end(),
            [](const StepMemory& a, const StepMemory& b) { return a.start_ns < b.start_ns; });
  return g;
}

/// "0,3,12,...": the bins as one text field, as a stream's queue_max_by_bin.
std::string join_bins(const std::vector<std::int64_t>& bins) {
  std::string out;
  for (const std::int64_t v : bins) {
    if (!out.empty()) out += ',';
    out += std::to_string(v);
  }
  return out;
}

void add_peaks(Event& e, const MemoryPeaks& p, std::string_view prefix) {
  const auto key = [&](std::string_view name) { return e.own(std::string(prefix) + std::string(name)); };
  e.add_number(key("events"), static_cast<std::int64_t>(p.events));
  e.add_number(key("allocs"), static_cast<std::int64_t>(p.allocs));
  e.add_number(key("frees"), static_cast<std::int64_t>(p.frees));
  if (p.without_totals > 0) e.add_number(key("events_without_totals"), static_cast<std::int64_t>(p.without_totals));
  if (p.peak_allocated >= 0) e.add_number(key("peak_allocated_bytes"), p.peak_allocated);
  if (p.peak_reserved >= 0) e.add_number(key("peak_reserved_bytes"), p.peak_reserved);
}

}  // namespace

bool memory_arg_slot(std::string_view key, MemoryArgs& a, std::int64_t*& value, bool*& has) {
  if (key == "Device Type") {
    value = &a.device_type;
    has = &a.has_device_type;
  } else if (key == "Device Id") {
    value = &a.device_id;
    has = &a.has_device_id;
  } else if (key == "Bytes") {
    value = &a.bytes;
    has = &a.has_bytes;
  } else if (key == "Total Allocated") {
    value = &a.total_allocated;
    has = &a.has_allocated;
  } else if (key == "Total Reserved") {
    value = &a.total_reserved;
    has = &a.has_reserved;
  } else {
    return false;
  }
  return true;
}

bool add_memory_event(MemoryEvents& out, const MemoryArgs& a, bool has_ts, std::int64_t ts_ns) {
  if (!a.has_device_type || !a.has_bytes || !has_ts) {
    ++out.without_device;
    return false;
  }
  if (a.device_type == kDeviceCpu) {
    ++out.cpu;
    return false;
  }
  if (a.device_type != kDeviceCuda) {
    ++out.other_device;
    return false;
  }
  if (!a.has_device_id || a.device_id < 0) {
    ++out.without_device;
    return false;
  }
  MemorySample s;
  s.ts_ns = ts_ns;
  s.device = static_cast<std::int32_t>(a.device_id);
  s.sign = static_cast<std::int8_t>(a.bytes > 0 ? 1 : a.bytes < 0 ? -1 : 0);
  // PyTorch 1.8 wrote no totals; later versions leave out a total they do not know (< 0).
  if (a.has_allocated && a.total_allocated >= 0) s.allocated = a.total_allocated;
  if (a.has_reserved && a.total_reserved >= 0) s.reserved = a.total_reserved;
  out.gpu.push_back(s);
  return true;
}

std::vector<GpuMemory> analyse_gpu_memory(std::vector<MemorySample> events, const std::vector<StepMark>& steps) {
  std::stable_sort(events.begin(), events.end(), [](const MemorySample& a, const MemorySample& b) {
    return a.device != b.device ? a.device < b.device : a.ts_ns < b.ts_ns;
  });
  std::vector<GpuMemory> out;
  for (std::size_t i = 0; i < events.size();) {
    std::size_t j = i;
    while (j < events.size() && events[j].device == events[i].device) ++j;
    const std::vector<MemorySample> one(events.begin() + static_cast<std::ptrdiff_t>(i),
                                        events.begin() + static_cast<std::ptrdiff_t>(j));
    out.push_back(analyse_one(events[i].device, one, steps));
    i = j;
  }
  return out;
}

void attach_gpu_memory(const TraceData& data, const std::vector<StepMark>& steps, TraceReport& report) {
  if (data.memory.gpu.empty()) return;
  for (GpuMemory& g : analyse_gpu_memory(data.memory.gpu, steps)) {
    const auto d = std::find_if(report.devices.begin(), report.devices.end(),
                                [&g](const DeviceReport& r) { return r.device == g.device; });
    if (d != report.devices.end()) d->gpu_memory = std::move(g);  // a trace's devices are distinct
  }
}

void add_memory_counts(Event& e, const MemoryEvents& m) {
  if (!m.gpu.empty()) e.add_number("memory_events_gpu", static_cast<std::int64_t>(m.gpu.size()));
  if (m.cpu > 0) e.add_number("memory_events_cpu", static_cast<std::int64_t>(m.cpu));
  if (m.other_device > 0) e.add_number("memory_events_other_device", static_cast<std::int64_t>(m.other_device));
  if (m.without_device > 0) e.add_number("memory_events_unusable", static_cast<std::int64_t>(m.without_device));
}

void add_gpu_memory_fields(Event& e, const GpuMemory& g) {
  add_peaks(e, g.peaks, "mem_");
  e.add_number("mem_span_ns", g.last_ns - g.first_ns);
  if (!g.allocated_max_by_bin.empty()) e.add_text("mem_allocated_max_by_bin", join_bins(g.allocated_max_by_bin), true);
  if (!g.reserved_max_by_bin.empty()) e.add_text("mem_reserved_max_by_bin", join_bins(g.reserved_max_by_bin), true);
}

void add_step_memory_fields(Event& e, const StepMemory& s) {
  e.add_number("step", s.step);
  add_peaks(e, s.peaks, "");
}

}  // namespace gpucost::prep::trace

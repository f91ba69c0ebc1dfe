// GPU memory from a trace's `[memory]` instants (profile_memory=True): the reader, the peaks per GPU
// and per step, the timeline, and the events prep writes. The fixture
// testdata/trace/memory/a100x2_memory.pt.trace.json is hand-written; its figures, by hand:
//
//   GPU 0 (ts in µs after 1700000000000000; the file gives 150 before 120: sorted by time)
//     50 +1000 -> 1000 / 2 MiB   120 +3000 -> 4000 / 2 MiB   150 -1000 -> 3000 / 2 MiB
//     180 +5000 -> 8000 / 4 MiB  210 -5000 -> 3000 / 4 MiB  250 +2000 -> 5000 / 4 MiB
//     290 -2000 -> 3000 / 4 MiB
//     peaks 8000 allocated, 4194304 reserved; 7 events, 4 allocs, 3 frees; span 240 µs.
//     step 1 [100, 200): events 120, 150, 180 (2 allocs, 1 free), level entering 1000 -> peaks 8000 / 4 MiB
//     step 2 [200, 300): events 210, 250, 290 (1 alloc, 2 frees), level entering 8000 (set at 180,
//                        held until 210) -> peaks 8000 / 4 MiB
//   GPU 1: 130 +4096 without totals (PyTorch 1.8's args), 140 +4096 -> 8192 / 2 MiB
//     peaks 8192 / 2 MiB; 2 events, 2 allocs, 1 without totals.
//     step 1: both events; step 2: no event, the level 8192 / 2 MiB it entered with.
//   a CPU event (Device Type 0): counted, not GPU memory; an event without Device Type: unusable.
//   The steps come after the memory events in the file.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/trace.hpp"
#include "support.hpp"

#include <gpucost/report/trace_memory.hpp>

namespace gpucost::test {

namespace {

using namespace prep::trace;

const std::string& memory_trace() {
  static const std::string text = fixture("trace/memory/a100x2_memory.pt.trace.json");
  return text;
}

constexpr std::int64_t kMiB = 1024 * 1024;

const GpuMemory& gpu(const TraceReport& r, int device) {
  for (const DeviceReport& d : r.devices)
    if (d.device == device && d.gpu_memory) return *d.gpu_memory;
  FAIL("no memory for GPU " << device);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("trace memory: the reader keeps the GPU events and counts the others", "[trace][trace_memory]") {
  const TraceData data = read_trace_text(memory_trace());
  CHECK(data.memory.gpu.size() == 9);
  CHECK(data.memory.cpu == 1);
  CHECK(data.memory.other_device == 0);
  CHECK(data.memory.without_device == 1);
  CHECK(data.counts.malformed == 0);
  // PyTorch 1.8's event: no totals, kept with -1.
  const auto old = std::find_if(data.memory.gpu.begin(), data.memory.gpu.end(),
                                [](const MemorySample& s) { return s.device == 1 && s.allocated < 0; });
  REQUIRE(old != data.memory.gpu.end());
  CHECK(old->reserved == -1);
  CHECK(old->sign == 1);
  // Chunk boundaries anywhere read the same.
  for (const std::size_t chunk : {64u, 257u, 1000u}) {
    const TraceData small = read_trace_text(memory_trace(), chunk);
    CHECK(small.memory.gpu.size() == 9);
    CHECK(small.memory.cpu == 1);
  }
}

TEST_CASE("trace memory: peaks, counts and steps per GPU", "[trace][trace_memory]") {
  const TraceReport r = analyse(read_trace_text(memory_trace()), TraceOptions{});
  const GpuMemory& g0 = gpu(r, 0);
  CHECK(g0.peaks.peak_allocated == 8000);
  CHECK(g0.peaks.peak_reserved == 4 * kMiB);
  CHECK(g0.peaks.events == 7);
  CHECK(g0.peaks.allocs == 4);
  CHECK(g0.peaks.frees == 3);
  CHECK(g0.peaks.without_totals == 0);
  CHECK(g0.last_ns - g0.first_ns == 240'000);
  REQUIRE(g0.steps.size() == 2);
  CHECK(g0.steps[0].step == 1);
  CHECK(g0.steps[0].peaks.events == 3);
  CHECK(g0.steps[0].peaks.allocs == 2);
  CHECK(g0.steps[0].peaks.frees == 1);
  CHECK(g0.steps[0].peaks.peak_allocated == 8000);
  CHECK(g0.steps[1].step == 2);
  CHECK(g0.steps[1].peaks.events == 3);
  CHECK(g0.steps[1].peaks.allocs == 1);
  CHECK(g0.steps[1].peaks.peak_allocated == 8000);  // the level it entered with, not 5000
  CHECK(g0.steps[1].peaks.peak_reserved == 4 * kMiB);

  const GpuMemory& g1 = gpu(r, 1);
  CHECK(g1.peaks.peak_allocated == 8192);
  CHECK(g1.peaks.peak_reserved == 2 * kMiB);
  CHECK(g1.peaks.events == 2);
  CHECK(g1.peaks.without_totals == 1);
  REQUIRE(g1.steps.size() == 2);
  CHECK(g1.steps[0].peaks.events == 2);
  CHECK(g1.steps[1].peaks.events == 0);
  CHECK(g1.steps[1].peaks.peak_allocated == 8192);
  CHECK(g1.steps[1].peaks.peak_reserved == 2 * kMiB);
}

TEST_CASE("trace memory: the timeline in 120 bins carries the level between events", "[trace][trace_memory]") {
  // GPU 0: 240 µs in 120 bins of 2 µs; bin = (t - 50) / 2: 50->0, 120->35, 150->50, 180->65,
  // 210->80, 250->100, 290->119 (the last instant goes to the last bin).
  const TraceReport r = analyse(read_trace_text(memory_trace()), TraceOptions{});
  const std::vector<std::int64_t>& a = gpu(r, 0).allocated_max_by_bin;
  REQUIRE(a.size() == kMemoryBins);
  CHECK(a[0] == 1000);
  CHECK(a[34] == 1000);
  CHECK(a[35] == 4000);
  CHECK(a[50] == 4000);  // entered at 4000, fell to 3000 inside
  CHECK(a[51] == 3000);
  CHECK(a[65] == 8000);
  CHECK(a[80] == 8000);
  CHECK(a[81] == 3000);
  CHECK(a[100] == 5000);
  CHECK(a[119] == 5000);
  const std::vector<std::int64_t>& res = gpu(r, 0).reserved_max_by_bin;
  REQUIRE(res.size() == kMemoryBins);
  CHECK(res[64] == 2 * kMiB);
  CHECK(res[65] == 4 * kMiB);
  CHECK(res[119] == 4 * kMiB);
}

TEST_CASE("trace memory: events with no totals at all leave the peaks unknown", "[trace][trace_memory]") {
  std::vector<MemorySample> s(2);
  s[0].ts_ns = 10;
  s[0].sign = 1;
  s[1].ts_ns = 20;
  s[1].sign = -1;
  const std::vector<GpuMemory> g = analyse_gpu_memory(s, {});
  REQUIRE(g.size() == 1);
  CHECK(g[0].peaks.peak_allocated == -1);
  CHECK(g[0].peaks.peak_reserved == -1);
  CHECK(g[0].peaks.without_totals == 2);
  CHECK(g[0].allocated_max_by_bin.empty());
}

TEST_CASE("trace memory: prep writes trace_device mem_* fields and trace_step_memory events", "[trace][trace_memory]") {
  const PrepRun r = run_prep_text(memory_trace());
  check_accounting(r);
  const OwnedEvent* dev0 = nullptr;
  const OwnedEvent* info = nullptr;
  std::vector<const OwnedEvent*> steps;
  for (const OwnedEvent& e : r.events) {
    if (e.kind == "trace_device" && e.gpu == 0) dev0 = &e;
    if (e.kind == "trace_info") info = &e;
    if (e.kind == "trace_step_memory") steps.push_back(&e);
  }
  REQUIRE(dev0 != nullptr);
  CHECK(field(*dev0, "mem_peak_allocated_bytes") == "8000");
  CHECK(field(*dev0, "mem_peak_reserved_bytes") == "4194304");
  CHECK(field(*dev0, "mem_events") == "7");
  CHECK(field(*dev0, "mem_allocs") == "4");
  CHECK(field(*dev0, "mem_frees") == "3");
  CHECK(field(*dev0, "mem_span_ns") == "240000");
  CHECK(field(*dev0, "mem_events_without_totals") == "<absent>");
  CHECK(field(*dev0, "mem_allocated_max_by_bin").starts_with("1000,1000,"));
  REQUIRE(info != nullptr);
  CHECK(field(*info, "memory_events_gpu") == "9");
  CHECK(field(*info, "memory_events_cpu") == "1");
  CHECK(field(*info, "memory_events_unusable") == "1");
  REQUIRE(steps.size() == 4);  // 2 steps x 2 GPUs
  CHECK(steps[0]->gpu == 0);
  CHECK(field(*steps[0], "step") == "1");
  CHECK(steps[0]->ts_ns == 1700000000000100000);
  CHECK(field(*steps[1], "peak_allocated_bytes") == "8000");
  CHECK(field(*steps[3], "events") == "0");
  CHECK(field(*steps[3], "peak_allocated_bytes") == "8192");
}

TEST_CASE("trace memory: the sparkline and the binary units", "[trace][trace_memory]") {
  // Characters of 3 bins each, the largest of the 3 by eighths of the peak 8: 0 -> ' ',
  // 8 -> (64 - 1) / 8 = 7 '%', 4 -> (32 - 1) / 8 = 3 '=', 1 -> (8 - 1) / 8 = 0 '.'.
  CHECK(report::memory_sparkline("0,0,0,8,8,8,4,0,0,1,1,1", 8) == " %=.");
  CHECK(report::memory_sparkline("0,0,0", 0) == " ");
  CHECK(report::human_bytes_binary(6629508096.0) == "6.17 GiB");
  CHECK(report::human_bytes_binary(4194304.0) == "4.0 MiB");
  CHECK(report::human_bytes_binary(8000.0) == "7.8 KiB");
}

}  // namespace gpucost::test

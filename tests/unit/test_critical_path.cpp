// The critical path of a trace window (prep/profiler/trace/critical_path.hpp): small traces
// written by hand in the shape Kineto writes them, every figure computed by hand in the
// comments; and the corpus's critical-path traces against HolisticTraceAnalysis's figures.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/critical_path.hpp"
#include "support.hpp"

#include <gpucost/io/line_reader.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace fs = std::filesystem;

namespace gpucost::test {

namespace {

using namespace prep::trace;

TraceData read_kept(const std::string& path) {
  auto reader = io::LineReader::open(path);
  REQUIRE(reader);
  TraceData data;
  REQUIRE(read_trace(**reader, data, ReadOptions{.keep_cpu_ops = true}));
  return data;
}

/// HTA's window for (annotation, instance): the instance-th user annotation (in file order)
/// whose name contains `annotation`; an empty annotation is the whole trace.
std::pair<std::int64_t, std::int64_t> hta_window(const TraceData& d, const std::string& annotation, int instance) {
  if (annotation.empty()) return whole_trace_window(d);
  int seen = 0;
  for (const HostRecord& h : d.cpu_records)
    if (h.kind == HostKind::annotation && d.names[h.name].find(annotation) != std::string::npos && seen++ == instance)
      return {h.ts_ns, h.end_ns()};
  FAIL("annotation " << annotation << " #" << instance << " not found");
  return {0, 0};
}

std::int64_t bound(const CriticalPath& p, CpBound b) { return p.bound_ns[static_cast<int>(b)]; }

std::string cp_fixture(const std::string& name) {
  return std::string(GPUCOST_TESTDATA_DIR) + "/trace/critical_path/" + name + ".pt.trace.json";
}

}  // namespace

TEST_CASE("critical path: the reader keeps CPU records only when asked", "[critical_path][trace]") {
  const std::string path = cp_fixture("one_stream_sync");
  auto reader = io::LineReader::open(path);
  REQUIRE(reader);
  TraceData plain;
  REQUIRE(read_trace(**reader, plain));
  CHECK(plain.cpu_records.empty());
  const TraceData kept = read_kept(path);
  // 1 annotation, 1 cpu_op, 3 runtime calls, 1 cuda_sync, 2 kernels (flows and the instant are not kept)
  CHECK(kept.cpu_records.size() == 8);
  CHECK(kept.ops.size() == plain.ops.size());
  CHECK(kept.launches.size() == plain.launches.size());
  const HostRecord& sync = kept.cpu_records[7];
  CHECK(sync.kind == HostKind::sync);
  CHECK(sync.stream == 7);
  CHECK(sync.correlation == 3);
}

// Each fixture's figures were also checked with HTA (docs/formats.md, "Against
// HolisticTraceAnalysis"): the same length, bounds and node count.
TEST_CASE("critical path: an op launching two kernels on one stream, then cudaStreamSynchronize", "[critical_path]") {
  // aten::foo 10..40 µs launches k1 (cudaLaunchKernel 12..16, kernel 18..48) and k2 (launch
  // 20..24, kernel 50..75) on stream 7; cudaStreamSynchronize 45..85, its Stream Sync ends at 78.
  // Launch edge 12 -> 18 (6: k1's launch found an empty queue), kernel-kernel gap 48 -> 50 (2:
  // k2 was queued behind k1), sync edge k2's end -> the synchronize call's end (0; the call's own
  // span is a blocking wait, weight 0). Longest: foo's start -> k1's launch (2, cpu, foo) ->
  // k1 (6 launch + 30) -> gap (2) -> k2 (25) = 65 µs; the CPU chain reaches only 30.
  const TraceData d = read_kept(cp_fixture("one_stream_sync"));
  REQUIRE(d.steps.size() == 1);
  const CriticalPath p = critical_path(d, d.steps[0].start_ns, d.steps[0].start_ns + d.steps[0].dur_ns);
  REQUIRE(p.error.empty());
  CHECK(p.length_ns == 65'000);
  CHECK(bound(p, CpBound::cpu) == 2'000);
  CHECK(bound(p, CpBound::launch_overhead) == 6'000);
  CHECK(bound(p, CpBound::gpu_compute) == 55'000);
  CHECK(bound(p, CpBound::kernel_kernel) == 2'000);
  CHECK(p.launch_calls_ns == 0);
  CHECK(p.path_nodes == 6);  // foo start, launch start, k1 start, k1 end, k2 start, k2 end
  CHECK(p.sync_edges == 1);
  REQUIRE(p.top_ops.size() == 3);
  CHECK(p.top_ops[0].name == "ampere_sgemm_64x32_sliced1x4_nn");
  CHECK(p.top_ops[0].ns == 30'000);
  CHECK(p.top_ops[2].name == "aten::foo");
  CHECK(p.top_ops[2].bound == CpBound::cpu);
}

TEST_CASE("critical path: two streams ordered by cudaStreamWaitEvent", "[critical_path]") {
  // kA (stream 7, launched 10, runs 20..120) is recorded by cudaEventRecord at 20;
  // cudaStreamWaitEvent at 25 makes stream 20 wait for it, so kB (launched 30, runs 122..172)
  // depends on kA's end by a sync edge, not on its own launch (kA ends after kB's launch).
  // cudaDeviceSynchronize 40..180 waits for both streams. Longest: kA's launch (10) -> kA (100)
  // -> sync -> kB (50) = 160 µs: launch 10, GPU 150; the CPU side adds up to 16 µs only.
  const TraceData d = read_kept(cp_fixture("two_streams_wait_event"));
  const CriticalPath p = critical_path(d, d.steps[0].start_ns, d.steps[0].start_ns + d.steps[0].dur_ns);
  REQUIRE(p.error.empty());
  CHECK(p.length_ns == 160'000);
  CHECK(bound(p, CpBound::launch_overhead) == 10'000);
  CHECK(bound(p, CpBound::gpu_compute) == 150'000);
  CHECK(bound(p, CpBound::cpu) == 0);
  CHECK(p.path_nodes == 5);  // kA's launch start, kA start, kA end, kB start, kB end
  CHECK(p.sync_edges == 3);  // kA -> kB, and each stream's last op -> cudaDeviceSynchronize
}

TEST_CASE("critical path: a CPU-bound step where launch calls dominate", "[critical_path]") {
  // aten::add 5..25 (cudaLaunchKernel 10..20) and aten::mul 40..60 (cudaLaunchKernel 45..55)
  // each launch a 2 µs kernel. The CPU chain: add 5 + launch 10 + add 5, then mul 5 + launch 10
  // + mul 5 = 40 µs (the 15 µs between the two ops is a 0-weight dependency: no op runs there).
  // Through the kernels it reaches 25 + 12 (launch delay) + 2 = 39 < 40.
  const TraceData d = read_kept(cp_fixture("cpu_bound"));
  const CriticalPath p = critical_path(d, d.steps[0].start_ns, d.steps[0].start_ns + d.steps[0].dur_ns);
  REQUIRE(p.error.empty());
  CHECK(p.length_ns == 40'000);
  CHECK(bound(p, CpBound::cpu) == 40'000);
  CHECK(p.launch_calls_ns == 20'000);
  CHECK(bound(p, CpBound::gpu_compute) == 0);
  CHECK(p.path_nodes == 8);  // add start .. mul end; the sync call's 0-weight end is not appended
  REQUIRE(p.top_ops.size() == 3);
  CHECK(p.top_ops[0].name == "cudaLaunchKernel");
  CHECK(p.top_ops[0].ns == 20'000);
  CHECK(p.top_ops[1].name == "aten::add");
  CHECK(p.top_ops[1].ns == 10'000);
}

TEST_CASE("critical path: a GPU-bound step", "[critical_path]") {
  // aten::mm 10..30 launches (15..20) a 900 µs kernel at 25; cudaStreamSynchronize 40..930.
  // Longest: mm's start -> launch (5, cpu) -> launch delay (10) -> kernel (900) = 915 µs.
  const TraceData d = read_kept(cp_fixture("gpu_bound"));
  const CriticalPath p = critical_path(d, d.steps[0].start_ns, d.steps[0].start_ns + d.steps[0].dur_ns);
  REQUIRE(p.error.empty());
  CHECK(p.length_ns == 915'000);
  CHECK(bound(p, CpBound::cpu) == 5'000);
  CHECK(bound(p, CpBound::launch_overhead) == 10'000);
  CHECK(bound(p, CpBound::gpu_compute) == 900'000);
  CHECK(p.path_nodes == 4);
  CHECK(p.has_sync_events);
}

TEST_CASE("critical path: a window without events has no path", "[critical_path]") {
  const TraceData d = read_kept(cp_fixture("gpu_bound"));
  const CriticalPath p = critical_path(d, 0, 1'000);  // long before the trace
  CHECK_FALSE(p.error.empty());
  CHECK(p.length_ns == 0);
}

TEST_CASE("critical path: the corpus's critical-path traces give HTA's path", "[conformance][critical_path]") {
  const fs::path dir = fs::path(GPUCOST_CORPUS_DIR) / "traces";
  if (!fs::is_directory(dir)) {
    WARN("corpus folder " << dir.string() << " not found: critical path conformance skipped");
    SUCCEED("corpus absent");
    return;
  }
  // HTA f4d0062 (/tmp/hta), critical_path_analysis(rank=0, annotation, instance_id) with the
  // annotation and instance HTA's tests/test_critical_path_analysis.py uses, summed over
  // get_critical_path_breakdown() by bound_by (docs/formats.md, "Against HolisticTraceAnalysis",
  // gives the commands). µs: these traces have integer µs stamps.
  struct Case {
    const char* file;
    const char* annotation;
    int instance;
    std::int64_t path_us, cpu_us, gpu_us, launch_us, kk_us;
    std::uint64_t nodes;  ///< len(cp_graph.critical_path_nodes), as HTA's tests assert where they do
  };
  const Case cases[] = {
      {"hta__critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz",
       "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, 241724, 241190, 508, 17, 9, 315},
      {"hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
       "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, 35834, 32042, 3712, 30, 50, 149},
      {"hta__critical_path__cuda_event_sync__event_sync_trace.json.gz", "ProfilerStep", 0, 2411, 2365, 36, 10, 0, 40},
      {"hta__critical_path__cuda_event_sync_multi_stream__event_sync_trace.json.gz", "", 0, 1178, 1025, 124, 14, 15,
       59},
      {"hta__critical_path__end_to_end__output__overlaid_critical_path_trace.json.gz",
       "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, 241724, 241190, 508, 17, 9, 315},
      // A V100 training step without cuda_sync events (HTA's test uses this trace for other
      // analyses; rank=1 there): ProfilerStep#3, all CPU-bound.
      {"hta__df_index_resolver__df_index_resolver.json.gz", "ProfilerStep", 1, 259417, 259417, 0, 0, 0, 24550},
      // A DLRM-like rank (2023) whose backward pass runs on its own thread: HTA merges it into the
      // forward thread (with the merge switched off HTA gives 267 859 µs, 1 778 nodes).
      {"hta__trace_filter__sampled_rank-0.json.gz", "ProfilerStep", 0, 301476, 300492, 948, 6, 30, 3528},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    const TraceData d = read_kept((dir / c.file).string());
    const auto [w0, w1] = hta_window(d, c.annotation, c.instance);
    const CriticalPath p = critical_path(d, w0, w1);
    REQUIRE(p.error.empty());
    CHECK(p.length_ns == c.path_us * 1000);
    CHECK(bound(p, CpBound::cpu) == c.cpu_us * 1000);
    CHECK(bound(p, CpBound::gpu_compute) == c.gpu_us * 1000);
    CHECK(bound(p, CpBound::launch_overhead) == c.launch_us * 1000);
    CHECK(bound(p, CpBound::kernel_kernel) == c.kk_us * 1000);
    CHECK(p.path_nodes == c.nodes);
  }
}

}  // namespace gpucost::test

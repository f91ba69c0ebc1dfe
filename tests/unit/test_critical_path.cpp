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

}  // namespace

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
  };
  const Case cases[] = {
      {"hta__critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz",
       "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, 241724, 241190, 508, 17, 9},
      {"hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
       "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, 35834, 32042, 3712, 30, 50},
      {"hta__critical_path__cuda_event_sync__event_sync_trace.json.gz", "ProfilerStep", 0, 2411, 2365, 36, 10, 0},
      {"hta__critical_path__cuda_event_sync_multi_stream__event_sync_trace.json.gz", "", 0, 1178, 1025, 124, 14, 15},
      {"hta__critical_path__end_to_end__output__overlaid_critical_path_trace.json.gz",
       "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, 241724, 241190, 508, 17, 9},
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
  }
}

}  // namespace gpucost::test

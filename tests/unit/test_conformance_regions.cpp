// Conformance of the annotated regions on two real traces of ../shared/corpus/traces, against
// figures computed independently: a short Python script over the raw JSON (per name: the union of
// its user_annotation ranges per thread, the union of its gpu_user_annotation ranges per device,
// the union of the ops whose runtime call starts inside one of its ranges) and HTA's
// get_gpu_user_annotation_breakdown (sums of durations; docs/formats.md, "Annotated regions").
#include <catch2/catch.hpp>

#include "prep/profiler/trace/regions.hpp"

#include <gpucost/io/line_reader.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace fs = std::filesystem;

namespace gpucost::test {

namespace {

using namespace prep::trace;

std::optional<TraceData> corpus_trace(const std::string& name) {
  const fs::path path = fs::path(GPUCOST_CORPUS_DIR) / "traces" / name;
  if (!fs::is_regular_file(path)) return std::nullopt;
  auto reader = io::LineReader::open(path.string());
  REQUIRE(reader);
  TraceData d;
  REQUIRE(read_trace(**reader, d));
  return d;
}

const RegionRow& row(const RegionReport& r, const std::string& name) {
  for (const RegionRow& x : r.rows)
    if (x.name == name) return x;
  FAIL("no region " << name);
  return r.rows.front();
}

}  // namespace

TEST_CASE("conformance: regions of HTA's with_gpu_user_annotation trace", "[conformance][regions]") {
  const auto d = corpus_trace("hta__with_gpu_user_annotation__step_based_trace_2543932.json.gz");
  if (!d) {
    WARN("the corpus trace is absent: test skipped");
    return;
  }
  const RegionReport r = analyse_regions(*d, d->steps, false);
  CHECK(r.steps == 0);  // no ProfilerStep marks: figures per trace
  REQUIRE(r.rows.size() == 2);
  // HTA: CPU 669 and 594 us, GPU 321 and 310 us (sums of durations; no range overlaps another of its name).
  const RegionRow& step = row(r, "Optimizer.step#SGD.step");
  CHECK(step.calls == 5);
  CHECK(step.cpu_ns == 669'000);
  CHECK(step.gpu_calls == 5);
  CHECK(step.gpu_source == RegionGpuSource::annotation);
  CHECK(step.annotated_gpu_ns == 321'000);
  CHECK(step.launched_gpu_ns == 32'000);
  const RegionRow& zero = row(r, "Optimizer.zero_grad#SGD.zero_grad");
  CHECK(zero.calls == 5);
  CHECK(zero.cpu_ns == 594'000);
  CHECK(zero.annotated_gpu_ns == 310'000);
  CHECK(zero.launched_gpu_ns == 40'000);
}

TEST_CASE("conformance: regions of HTA's nccl_data trace, nested, over three steps", "[conformance][regions]") {
  const auto d = corpus_trace("hta__nccl_parser_config__nccl_data.json.gz");
  if (!d) {
    WARN("the corpus trace is absent: test skipped");
    return;
  }
  const RegionReport r = analyse_regions(*d, d->steps, false);
  CHECK(r.steps == 3);
  CHECK(r.step_ns == 222'368'446);  // (222 441 + 219 726 + 224 936 us, to the ns) / 3
  const RegionRow& bwd = row(r, "## backward ##");
  CHECK(bwd.calls == 3);
  CHECK(bwd.cpu_ns == 310'566'578);
  CHECK(bwd.annotated_gpu_ns == 1'911'193);
  // Kineto projects only what the annotating thread launched: autograd's thread launched the rest.
  CHECK(bwd.launched_gpu_ns == 116'653'714);
  const RegionRow& ddp = row(r, "DistributedDataParallel.forward");
  CHECK(ddp.depth == 1);
  CHECK(ddp.parent == "## forward ##");
  CHECK(ddp.cpu_ns == 308'452'280);
  CHECK(ddp.annotated_gpu_ns == 292'764'153);
  CHECK(ddp.launched_gpu_ns == 38'768'022);
  const RegionRow& ar = row(r, "nccl:all_reduce");
  CHECK(ar.calls == 15);
  CHECK(ar.cpu_ns == 1'348'074);
  CHECK(ar.annotated_gpu_ns == 46'784'659);
  CHECK(row(r, "Optimizer.zero_grad#SGD.zero_grad").gpu_source == RegionGpuSource::none);
}

}  // namespace gpucost::test

// Conformance: prep over every real profiler trace in ../shared/corpus/traces, read in place.
// Kineto traces must parse without a malformed record or a truncation, account for every
// record, and give trace_device events exactly when they hold GPU ops; the execution trace and
// the memory timeline must be refused by name. When the corpus is absent the test says so.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/trace.hpp"
#include "support.hpp"

#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace gpucost::test {

TEST_CASE("conformance: prep reads every trace of the corpus", "[conformance][trace]") {
  const fs::path dir = fs::path(GPUCOST_CORPUS_DIR) / "traces";
  if (!fs::is_directory(dir)) {
    WARN("corpus folder " << dir.string() << " not found: trace conformance test skipped");
    SUCCEED("corpus absent");
    return;
  }
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() != ".md") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  CHECK(paths.size() >= 20);
  std::size_t gpu_traces = 0, refused = 0;
  for (const fs::path& path : paths) {
    INFO(path.filename().string());
    auto reader = io::LineReader::open(path.string());
    REQUIRE(reader);
    const std::string head((*reader)->peek(64 * 1024));
    const prep::PrepOptions options;
    CHECK(prep::detect_format(head, options) == gpucost::Format::kineto);
    if (const Status st = prep::check_format(head, options, path.string()); !st) {
      CHECK(st.error().message.find("not a Kineto trace") != std::string::npos);
      ++refused;
      continue;
    }
    auto clock = LocalClock::make("UTC");
    CollectingSink sink;
    PrepRun run;
    run.stats.path = path.string();
    run.status = prep::run_prep_input(**reader, options, *clock, sink, run.stats);
    run.events = std::move(sink.events);
    check_accounting(run);
    CHECK(run.stats.format == gpucost::Format::kineto);
    CHECK(run.stats.malformed == 0);
    CHECK(run.stats.truncated.empty());
    CHECK(run.stats.lines > 0);

    // An independent count of the GPU ops, from the decoded records.
    auto again = io::LineReader::open(path.string());
    REQUIRE(again);
    prep::trace::TraceData data;
    REQUIRE(prep::trace::read_trace(**again, data));
    const auto devices = std::count_if(run.events.begin(), run.events.end(),
                                       [](const OwnedEvent& e) { return e.kind == "trace_device"; });
    CHECK((devices > 0) == !data.ops.empty());
    std::uint64_t ops = 0;
    for (const OwnedEvent& e : run.events)
      if (e.kind == "trace_device") {
        ops += std::stoull(field(e, "ops"));
        CHECK(std::stoll(field(e, "busy_ns")) <= std::stoll(field(e, "span_ns")));
        CHECK(std::stoll(field(e, "compute_ns")) <= std::stoll(field(e, "busy_ns")));
      }
    CHECK(ops == data.ops.size());
    if (!data.ops.empty())
      ++gpu_traces;
    else
      CHECK_FALSE(run.stats.notes.empty());  // says why there is nothing to analyse
  }
  CHECK(refused == 2);  // the execution trace and the memory timeline
  CHECK(gpu_traces >= 15);
}

}  // namespace gpucost::test

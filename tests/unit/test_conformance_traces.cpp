// Conformance: prep over every real profiler trace in ../shared/corpus/traces, read in place.
// Kineto traces must parse without a malformed record or a truncation, account for every
// record, and give trace_device events exactly when they hold GPU ops; the execution trace and
// the memory timeline must be refused by name. When the corpus is absent the test says so.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/ranks.hpp"
#include "prep/profiler/trace/trace.hpp"
#include "support.hpp"

#include <gpucost/extract/trace_jobs.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

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

namespace {

/// The corpus trace `name` read and summarised as a rank; nullopt when the corpus is absent.
std::optional<prep::trace::RankSummary> corpus_rank(const std::string& name, prep::trace::TraceData* data = nullptr) {
  const fs::path path = fs::path(GPUCOST_CORPUS_DIR) / "traces" / name;
  if (!fs::is_regular_file(path)) return std::nullopt;
  auto reader = io::LineReader::open(path.string());
  REQUIRE(reader);
  prep::trace::TraceData d;
  REQUIRE(prep::trace::read_trace(**reader, d));
  auto summary = prep::trace::summarise_rank(d, name);
  if (data != nullptr) *data = std::move(d);
  return summary;
}

bool has_note(const extract::TraceJob& job, const std::string& text) {
  return std::any_of(job.notes.begin(), job.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("conformance: HTA's sampled pair of a 128-rank job matches only the collectives that overlap",
          "[conformance][trace][ranks]") {
  auto r0 = corpus_rank("hta__trace_filter__sampled_rank-0.json.gz");
  auto r1 = corpus_rank("hta__trace_filter__sampled_rank-1.json.gz");
  if (!r0 || !r1) {
    WARN("the corpus's sampled pair is absent: test skipped");
    return;
  }
  const auto jobs = extract::analyse_jobs({*r0, *r1});
  REQUIRE(jobs.size() == 1);
  const extract::TraceJob& job = jobs.front();
  // Ten SendRecv kernels a rank, no collective args: paired by (step, lane, order), of which four
  // overlap in time (independently computed from the JSON): in step 551 lane 0's third (rank 0
  // 11.727 ms, rank 1 8.370 ms) and lane 1's (42.496 / 42.744 ms); in step 552 lane 0's fourth
  // (36.158 / 13.838 ms) and lane 1's (63.644 / 62.163 ms). The six others end up to 134.153 ms
  // apart (step 551, lane 0's fourth: 396.148 against 530.301 ms into the second).
  CHECK(job.world_size == 128);
  CHECK(job.matched == 4);
  CHECK(job.matched_by_order == 4);
  CHECK(job.matched_partial == 4);
  CHECK(job.unmatched == 6);
  CHECK(job.unmatched_apart == 6);
  CHECK(job.unmatched_apart_max_ns == 134'153'000);
  REQUIRE(job.ranks.size() == 2);
  CHECK(job.ranks[0].wait_ns == 3'357'000 + 22'320'000 + 1'481'000);
  CHECK(job.ranks[1].wait_ns == 248'000);
  CHECK(job.straggler_rank == 1);  // the last of the two in both steps
  CHECK(job.steps == 2);
  CHECK(job.sample());
  CHECK(has_note(job,
                 "6 of the 10 collectives paired by order did not overlap in time across the ranks (kernel "
                 "ends up to 134.2 ms apart)"));
  CHECK(has_note(job, "2 of 128 ranks present, a sample of the job"));
  CHECK(has_note(job, "a rank's wait is a lower bound"));
}

TEST_CASE("conformance: the NCCL kernels of nccl_data carry their process group, matched by it",
          "[conformance][trace][ranks]") {
  prep::trace::TraceData data;
  auto r0 = corpus_rank("hta__nccl_parser_config__nccl_data.json.gz", &data);
  if (!r0) {
    WARN("the corpus's nccl_data trace is absent: test skipped");
    return;
  }
  // 21 NCCL kernels (15 all-reduces, 6 broadcasts), each with Kineto's collective args of group
  // "0" (default_pg, ranks [0, 1]); this PyTorch wrote no Seq.
  REQUIRE(data.comm_args.size() == 21);
  REQUIRE(r0->collectives.size() == 21);
  std::size_t allreduces = 0;
  for (const auto& c : r0->collectives) {
    CHECK(c.pg == "0");
    CHECK(c.pg_desc == "default_pg");
    CHECK(c.pg_ranks == "[0, 1]");
    CHECK(c.pg_seq == -1);
    CHECK(c.in_nelems > 0);
    if (c.op == "allreduce") ++allreduces;
  }
  CHECK(allreduces == 15);
  // Alone, rank 0 of 2: a sample, nothing to match.
  const auto alone = extract::analyse_jobs({*r0});
  REQUIRE(alone.size() == 1);
  CHECK(has_note(alone.front(),
                 "1 of 2 ranks present, a sample of the job (ranks 1 of 2 are missing): waits not "
                 "computed"));
  // Beside itself as rank 1, every collective pairs with its twin by its order in group "0".
  auto twin = *r0;
  twin.rank = 1;
  const auto jobs = extract::analyse_jobs({*r0, twin});
  REQUIRE(jobs.size() == 1);
  CHECK(jobs.front().matched == 21);
  CHECK(jobs.front().matched_by_group == 21);
  CHECK(jobs.front().matched_partial == 0);
  CHECK(jobs.front().wait_ns == 0);
  CHECK_FALSE(jobs.front().sample());
}

TEST_CASE("conformance: CPU operators of one step equal HTA's compare_traces on trace_diff's control",
          "[conformance][trace]") {
  const fs::path path = fs::path(GPUCOST_CORPUS_DIR) / "traces" / "hta__trace_diff__control.json.gz";
  if (!fs::is_regular_file(path)) return;
  auto reader = io::LineReader::open(path.string());
  REQUIRE(reader);
  prep::trace::TraceData data;
  REQUIRE(prep::trace::read_trace(**reader, data, prep::trace::ReadOptions{.keep_host_ops = true}));
  prep::trace::TraceOptions options;
  options.step_first = 1010;
  const prep::trace::TraceReport report = prep::trace::analyse(data, options);
  // HTA f4d0062 TraceDiff.compare_traces(control, ..., control_iteration=1010,
  // device_type=trace_diff.DeviceType.CPU): 226 names, 10,641 calls; less its ProfilerStep#1010
  // row (gpucost times the step itself), 225 names and 10,640 calls, each name's count and total
  // equal (docs/formats.md, "Two runs side by side").
  CHECK(report.operators.size() == 225);
  std::uint64_t calls = 0;
  for (const auto& row : report.operators) calls += row.calls;
  CHECK(calls == 10'640);
  const auto row = [&](std::string_view name) {
    for (const auto& r : report.operators)
      if (r.name == name) return std::pair{r.calls, r.total_ns};
    return std::pair{std::uint64_t{0}, std::int64_t{0}};
  };
  CHECK(row("aten::mm") == std::pair{std::uint64_t{182}, std::int64_t{6'477'000}});
  CHECK(row("cudaLaunchKernel") == std::pair{std::uint64_t{1428}, std::int64_t{10'679'000}});
  CHECK(row("## backward ##") == std::pair{std::uint64_t{1}, std::int64_t{35'253'000}});
}

TEST_CASE("conformance: GPU memory of HTA's df_index_resolver trace (profile_memory)",
          "[conformance][trace][trace_memory]") {
  prep::trace::TraceData data;
  if (!corpus_rank("hta__df_index_resolver__df_index_resolver.json.gz", &data)) {
    WARN("the corpus's df_index_resolver trace is absent: test skipped");
    return;
  }
  // Computed independently with a plain json.load of the file (docs/formats.md, "Against
  // HolisticTraceAnalysis", the script there): 28010 `[memory]` instants, 26770 of CUDA device 1
  // and 1240 of the CPU; on GPU 1 13385 allocations and 13385 frees, max "Total Allocated"
  // 6629508096, max "Total Reserved" 12782141440, first to last 1718465 µs; in each of the five
  // ProfilerSteps #2..#6 5354 events, 2677 of them allocations, and the same two peaks.
  CHECK(data.memory.gpu.size() == 26770);
  CHECK(data.memory.cpu == 1240);
  CHECK(data.memory.other_device == 0);
  CHECK(data.memory.without_device == 0);
  const prep::trace::TraceReport report = prep::trace::analyse(data, prep::trace::TraceOptions{});
  REQUIRE(report.devices.size() == 1);
  REQUIRE(report.devices[0].gpu_memory);
  const prep::trace::GpuMemory& g = *report.devices[0].gpu_memory;
  CHECK(g.device == 1);
  CHECK(g.peaks.events == 26770);
  CHECK(g.peaks.allocs == 13385);
  CHECK(g.peaks.frees == 13385);
  CHECK(g.peaks.without_totals == 0);
  CHECK(g.peaks.peak_allocated == 6629508096);
  CHECK(g.peaks.peak_reserved == 12782141440);
  CHECK(g.last_ns - g.first_ns == 1'718'465'000);
  REQUIRE(g.steps.size() == 5);
  for (std::size_t i = 0; i < g.steps.size(); ++i) {
    INFO("ProfilerStep#" << g.steps[i].step);
    CHECK(g.steps[i].step == static_cast<std::int64_t>(i) + 2);
    CHECK(g.steps[i].peaks.events == 5354);
    CHECK(g.steps[i].peaks.allocs == 2677);
    CHECK(g.steps[i].peaks.peak_allocated == 6629508096);
    CHECK(g.steps[i].peaks.peak_reserved == 12782141440);
  }
}

TEST_CASE("conformance: MTIA's device events are read as ops on their streams", "[conformance][trace]") {
  prep::trace::TraceData data;
  if (!corpus_rank("hta__mtia_inference_trace__mtia_inference_rank_0.json.gz", &data)) return;
  // Counted by a python over the JSON: 1,313 mtia_ccp_events, of them 291 event_record and 48
  // event_wait (sync), 877 dma_request (HOST_TO_DEVICE 427, DEVICE_TO_HOST 450), 37 remote, 36
  // merge, 24 pe_exe; 730 ops carry the correlation of a runFunction / enqueueCommand memcpy call.
  CHECK(data.mtia_ops == 1313);
  CHECK(data.sync_events == 339);
  REQUIRE(data.ops.size() == 974);
  const auto copies = std::count_if(data.ops.begin(), data.ops.end(), [](const prep::trace::GpuOp& op) {
    return op.type == prep::trace::OpType::memcpy;
  });
  CHECK(copies == 877);
  const auto h2d = std::count_if(data.ops.begin(), data.ops.end(),
                                 [](const prep::trace::GpuOp& op) { return op.dir == prep::trace::MemDir::h2d; });
  CHECK(h2d == 427);
  const prep::trace::TraceReport report = prep::trace::analyse(data, prep::trace::TraceOptions{});
  REQUIRE(report.devices.size() == 1);
  CHECK(report.devices[0].device == 17);
  CHECK(report.devices[0].kernels == 97);
  CHECK(report.devices[0].launch.matched == 730);
  CHECK(report.devices[0].launch.unmatched == 244);
  CHECK(report.devices[0].streams.size() == 12);
}

}  // namespace gpucost::test

// gpucost trace --diff: two runs' figures from their trace events, the changed kernels, a step
// priced with a config, and prep's trace_job events. Every expected value is worked by hand
// (docs/formats.md, "Two runs side by side"; docs/cost-model.md, "Cost per step").
#include "support.hpp"

#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/pipeline/trace_job_events.hpp>
#include <gpucost/report/trace_diff.hpp>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

using namespace gpucost;
using report::TraceEventCopy;

namespace {

TraceEventCopy event(std::string kind, std::map<std::string, std::string> fields, int gpu = -1) {
  TraceEventCopy e;
  e.kind = std::move(kind);
  e.gpu = gpu;
  e.fields = std::move(fields);
  return e;
}

/// One rank's trace: `steps` steps of `step_us` each, GEMM and all-reduce time over the trace.
std::vector<TraceEventCopy> rank_trace(int rank, int steps, double step_us, double gemm_ns, double comm_ns,
                                       double p50_ns) {
  std::vector<TraceEventCopy> out;
  out.push_back(
      event("trace_info", {{"rank", std::to_string(rank)}, {"world_size", "2"}, {"steps", std::to_string(steps)}}));
  for (int s = 1; s <= steps; ++s)
    out.push_back(event("trace_step",
                        {{"step", std::to_string(s)}, {"dur_ns", fmt::format("{}", step_us * 1000 + rank * 1000)}}));
  out.push_back(event("trace_launch", {{"launch_delay_p50_ns", fmt::format("{}", p50_ns)},
                                       {"launch_delay_p95_ns", fmt::format("{}", 2 * p50_ns)}}));
  out.push_back(event("trace_device",
                      {{"span_ns", "1000000"},
                       {"busy_ns", fmt::format("{}", gemm_ns + comm_ns)},
                       {"compute_kernel_ns", fmt::format("{}", gemm_ns)},
                       {"communication_kernel_ns", fmt::format("{}", comm_ns)},
                       {"memory_op_ns", "0"}},
                      0));
  out.push_back(
      event("trace_kernel",
            {{"name", "gemm"}, {"class", "compute"}, {"total_ns", fmt::format("{}", gemm_ns)}, {"count", "3"}}, 0));
  out.push_back(event("trace_kernel",
                      {{"name", "ncclDevKernel_AllReduce"},
                       {"class", "communication"},
                       {"total_ns", fmt::format("{}", comm_ns)},
                       {"count", "3"}},
                      0));
  out.push_back(event("trace_comm", {{"span_ns", "1000000"}, {"exposed_comm_ns", fmt::format("{}", comm_ns / 2)}}));
  return out;
}

report::TraceRun two_ranks(double step_us, double gemm_ns, double comm_ns) {
  report::TraceRun run;
  run.label = "run";
  for (int r = 0; r < 2; ++r) {
    auto t = rank_trace(r, 3, step_us, gemm_ns, comm_ns, 10000.0 * (r + 1));
    run.events.insert(run.events.end(), t.begin(), t.end());
  }
  extract::TraceJob job;
  job.ranks.resize(2);
  job.span_ns = 2'000'000;
  job.wait_ns = 100'000;
  run.jobs.push_back(job);
  return run;
}

}  // namespace

TEST_CASE("trace diff: a side's figures from its ranks' events", "[trace_diff]") {
  const report::RunFigures f = report::run_figures(two_ranks(1000, 300'000, 200'000), std::nullopt);
  CHECK(f.traces == 2);
  CHECK(f.ranks == std::vector<int>{0, 1});
  CHECK(f.world_size == 2);
  CHECK(f.step_units == 6);  // 3 steps on each rank
  CHECK(f.steps == 3);
  // Each step's time is the slower rank's: rank 1's steps last 1000 + 1 µs.
  REQUIRE(f.step_ns);
  CHECK(*f.step_ns == 1'001'000);
  CHECK(*f.busy_share == Approx(0.5));  // (500 + 500) / (1000 + 1000) µs
  CHECK(*f.launch_p50_ns == 15000);     // the median of 10 and 20 µs
  CHECK(*f.launch_p95_ns == 30000);
  CHECK(f.compute_ns == 600'000);                  // totals; per unit in the comparison
  CHECK(*f.exposed_comm_fraction == Approx(0.1));  // (100 + 100) / (1000 + 1000) µs
  CHECK(*f.wait_fraction == Approx(0.05));         // 100 of 2000 µs
  REQUIRE(f.kernels.size() == 2);
  CHECK(f.kernels[0].name == "gemm");  // by name
  CHECK(f.kernels[0].total_ns == 600'000);
  CHECK(f.notes.size() == 1);  // the launch delays are a median of the traces' own
}

TEST_CASE("trace diff: --steps times only the chosen steps", "[trace_diff]") {
  auto run = two_ranks(1000, 300'000, 200'000);
  run.events.push_back(report::TraceEventCopy{0, -1, "trace_step", {{"step", "4"}, {"dur_ns", "9000000"}}, {}});
  CHECK(*report::run_figures(run, std::nullopt).step_ns == Approx((3 * 1'001'000 + 9'000'000) / 4.0));
  CHECK(*report::run_figures(run, std::pair<std::int64_t, std::int64_t>{1, 3}).step_ns == 1'001'000);
}

TEST_CASE("trace diff: kernels per step and rank, ranked by their change", "[trace_diff]") {
  const auto a = report::run_figures(two_ranks(1000, 300'000, 200'000), std::nullopt);
  auto after = two_ranks(900, 240'000, 210'000);
  after.events.push_back(
      event("trace_kernel", {{"name", "fill"}, {"class", "compute"}, {"total_ns", "60000"}, {"count", "3"}}, 0));
  const auto b = report::run_figures(after, std::nullopt);
  REQUIRE(report::compare_per_step(a, b));
  const auto changes = report::top_changed_kernels(a, b, 10);
  REQUIRE(changes.size() == 3);
  // gemm: 600 µs / 6 rank-steps = 100 µs before, 480 / 6 = 80 µs after: -20 µs, the largest change.
  CHECK(changes[0].name == "gemm");
  CHECK(changes[0].a_ns == Approx(100'000));
  CHECK(changes[0].b_ns == Approx(80'000));
  CHECK(changes[1].name == "fill");  // new: 60 µs / 6 = 10 µs
  CHECK(changes[1].a_ns == 0);
  CHECK(changes[1].b_ns == Approx(10'000));
  CHECK(changes[2].change_ns() == Approx((420'000.0 - 400'000.0) / 6));
  CHECK(report::top_changed_kernels(a, b, 1).size() == 1);
}

TEST_CASE("trace diff: without step marks on a side, kernels compare per trace", "[trace_diff]") {
  const auto a = report::run_figures(two_ranks(1000, 300'000, 200'000), std::nullopt);
  report::TraceRun one;
  one.events = rank_trace(0, 0, 0, 400'000, 0, 5000);
  const auto b = report::run_figures(one, std::nullopt);
  CHECK(b.step_units == 0);
  CHECK_FALSE(b.step_ns);
  CHECK_FALSE(report::compare_per_step(a, b));
  const auto changes = report::top_changed_kernels(a, b, 10);
  REQUIRE(changes.size() == 2);
  CHECK(changes[0].name == "ncclDevKernel_AllReduce");  // 400 µs per trace before, none after
  CHECK(changes[0].a_ns == Approx(200'000));
  CHECK(changes[1].name == "gemm");  // 300 µs per trace before, 400 after
  CHECK(changes[1].b_ns == Approx(400'000));
  const std::string table = report::trace_diff_table(a, b, 10, nullptr);
  CHECK(table.find("kernel time per trace") != std::string::npos);
  CHECK(table.find("note: kernel times are per trace") != std::string::npos);
}

TEST_CASE("trace diff: CPU operators per step and rank, new, gone, slower per call or called more often",
          "[trace_diff]") {
  // A: 2 ranks x 2 steps = 4 units; B: 2 ranks x 4 steps = 8 units.
  std::vector<TraceEventCopy> a_events, b_events;
  for (int rank = 0; rank < 2; ++rank) {
    a_events.push_back(event("trace_info", {{"rank", std::to_string(rank)}, {"steps", "2"}}));
    b_events.push_back(event("trace_info", {{"rank", std::to_string(rank)}, {"steps", "4"}}));
  }
  const auto op = [](const std::string& name, const std::string& kind, const std::string& calls,
                     const std::string& total) {
    return event("trace_op", {{"name", name}, {"op_kind", kind}, {"calls", calls}, {"total_ns", total}});
  };
  // aten::mm: A 8 calls 80 µs (2 calls, 20 µs per unit; 10 µs a call); B 16 calls 240 µs (2, 30 µs; 15 a call): slower.
  a_events.push_back(op("aten::mm", "cpu_op", "8", "80000"));
  b_events.push_back(op("aten::mm", "cpu_op", "16", "240000"));
  // cudaLaunchKernel: A 4 calls 12 µs (1 a unit, 3 µs); B 16 calls 48 µs (2, 6 µs; 3 a call): more calls.
  a_events.push_back(op("cudaLaunchKernel", "runtime", "4", "12000"));
  b_events.push_back(op("cudaLaunchKernel", "runtime", "16", "48000"));
  // aten::copy_ only in A (gone), aten::fill_ only in B (new), "## forward ##" the same per unit.
  a_events.push_back(op("aten::copy_", "cpu_op", "4", "4000"));
  b_events.push_back(op("aten::fill_", "cpu_op", "8", "16000"));
  a_events.push_back(op("## forward ##", "annotation", "4", "400000"));
  b_events.push_back(op("## forward ##", "annotation", "8", "800000"));
  const report::RunFigures a = report::run_figures(report::TraceRun{"A", a_events, {}, {}}, std::nullopt);
  const report::RunFigures b = report::run_figures(report::TraceRun{"B", b_events, {}, {}}, std::nullopt);
  REQUIRE(a.has_operators());
  const std::vector<report::OperatorChange> changes = report::operator_changes(a, b);
  REQUIRE(changes.size() == 5);
  // By |change| per unit: aten::mm +10 µs, cudaLaunchKernel +3 µs, fill_ +2 µs, copy_ -1 µs, forward 0.
  CHECK(changes[0].name == "aten::mm");
  CHECK(changes[0].a_ns == Approx(20'000));
  CHECK(changes[0].b_ns == Approx(30'000));
  CHECK(changes[0].verdict() == "slower");
  CHECK(changes[1].name == "cudaLaunchKernel");
  CHECK(changes[1].a_calls == Approx(1));
  CHECK(changes[1].b_calls == Approx(2));
  CHECK(changes[1].verdict() == "more calls");
  CHECK(changes[2].verdict() == "new");
  CHECK(changes[3].verdict() == "gone");
  CHECK(changes[4].verdict() == "same");
  const std::string table = report::trace_diff_table(a, b, 10, nullptr);
  CHECK_THAT(table, Catch::Contains("1 new, 1 gone, 1 slower per call, 0 faster, 1 called more often, 0 less often, "
                                    "1 the same"));
  CHECK_THAT(table, Catch::Contains("+50.0 % per call"));  // aten::mm: 10 -> 15 µs a call
  CHECK_THAT(table, Catch::Contains("+100.0 % calls"));    // cudaLaunchKernel: 1 -> 2 calls a unit
}

TEST_CASE("trace diff: a step priced by its length, without the GPUs' energy", "[trace_diff][cost]") {
  breakeven::CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 12000;
  c.lifetime_years = 3;
  c.use_hours_per_year = 2000;
  c.system_power_w = 120;
  c.hourly_wage = 50;
  c.maintenance_hours_per_year = 20;
  c.rate_per_hour = 1.60;
  c.speed_ratio = 2.0;
  // (12000 / 3 + 50 x 20) / 2000 = 2.5 per hour, + 0.30 x 0.120 kW = 2.536 per hour; 1 ms of it.
  const auto s = breakeven::step_cost(c, 0.001, 0.6);
  CHECK(s.local == Approx(2.536 / 3600 * 0.001));
  // q = 0.4 + 0.6 / 2 = 0.7: the busy part runs twice as fast in the cloud.
  CHECK(s.q == Approx(0.7));
  CHECK(s.cloud == Approx(1.60 / 3600 * 0.001 * 0.7));
}

TEST_CASE("trace diff: the stack of each side, and what changed", "[trace_diff]") {
  auto ra = two_ranks(1000, 300'000, 200'000);
  auto rb = ra;
  ra.fingerprint.cuda = {"12.4"};
  ra.fingerprint.stack = {"CUDA runtime 12.1", "PyTorch 2.3.1+cu121"};
  rb.fingerprint.cuda = {"12.4"};
  rb.fingerprint.stack = {"CUDA runtime 12.4", "PyTorch 2.4.0+cu124"};
  const auto a = report::run_figures(ra, std::nullopt), b = report::run_figures(rb, std::nullopt);
  const std::string table = report::trace_diff_table(a, b, 5, nullptr);
  CHECK(table.find("PyTorch") != std::string::npos);
  CHECK(table.find("2.4.0+cu124") != std::string::npos);
  const std::string json = report::trace_diff_json(a, b, 5, nullptr);
  CHECK(json.find("\"stack_changed\":[\"CUDA runtime\",\"PyTorch\"]") != std::string::npos);
  CHECK(json.find("\"unit\":\"step\"") == 1);
}

TEST_CASE("prep: trace_job events replace those read from a stream", "[trace_diff][ranks]") {
  test::CollectingSink out;
  pipeline::TraceJobEvents jobs(out);
  Event e;
  e.kind = "trace_job";
  e.source = "kineto-trace";
  jobs.on_event(e);  // an old stream's: dropped, computed again
  e.kind = "sample";
  jobs.on_event(e);
  CHECK(jobs.finish() == 0);  // no ranks seen: no job
  REQUIRE(out.events.size() == 1);
  CHECK(out.events[0].kind == "sample");
}

TEST_CASE("prep: a trace header's software stack goes into the fingerprint", "[trace_diff][fingerprint]") {
  const std::string trace =
      R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3"}],)"
      R"("distributedInfo":{"backend":"nccl","rank":0,"world_size":2,"nccl_version":"2.21.5"},)"
      R"("cuda_driver_version":12080,"cuda_runtime_version":12040,"cupti_version":24,"traceEvents":[)"
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7,"correlation":1}}]})";
  const auto r = test::run_prep_text(trace);
  CHECK(r.stats.fingerprint.cuda == std::vector<std::string>{"12.8"});
  CHECK(r.stats.fingerprint.stack == std::vector<std::string>{"CUDA runtime 12.4", "NCCL 2.21.5"});
  REQUIRE_FALSE(r.events.empty());
  CHECK(test::field(r.events.front(), "cuda_runtime") == "12.4");
  CHECK(test::field(r.events.front(), "nccl_version") == "2.21.5");
}

TEST_CASE("prep: collect_env and accelerate env lines in a training log name the stack", "[trace_diff][fingerprint]") {
  const std::string log =
      "2024-06-12 14:22:18,123 - __main__ - INFO - PyTorch version: 2.3.1+cu121\n"
      "CUDA used to build PyTorch: 12.1\n"
      "Nvidia driver version: 550.54.15\n"
      "- PyTorch version (GPU?): 2.3.1+cu121 (True)\n"
      "2024-06-12 14:22:19,000 - __main__ - INFO - ***** Running training *****\n";
  prep::PrepOptions o;
  o.forced = Format::trainlog;
  const auto r = test::run_prep_text(log, o);
  CHECK(r.stats.fingerprint.stack == std::vector<std::string>{"PyTorch 2.3.1+cu121", "CUDA (PyTorch build) 12.1"});
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"550.54.15"});
}

TEST_CASE("io: a stream's summary gives its inputs' fingerprints back", "[trace_diff][fingerprint][io]") {
  InputStats st;
  st.path = "rank0.json";
  st.format = Format::kineto;
  st.fingerprint.cuda = {"12.8"};
  st.fingerprint.gpus = {"NVIDIA H100 80GB HBM3"};
  st.fingerprint.stack = {"NCCL 2.21.5"};
  st.fingerprint.gpu_count = 2;
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  {
    io::EventWriter w(f, io::StreamFormat::jsonl);
    w.write_header("UTC", "test");
    w.write_summary({st});
    w.flush();
  }
  std::fclose(f);
  const std::string text(data, size);
  std::free(data);
  auto reader = io::LineReader::from_string(text);
  test::CollectingSink sink;
  InputStats back;
  REQUIRE(io::read_event_stream(*reader, sink, back));
  CHECK(back.fingerprint.cuda == st.fingerprint.cuda);
  CHECK(back.fingerprint.gpus == st.fingerprint.gpus);
  CHECK(back.fingerprint.stack == st.fingerprint.stack);
  CHECK(back.fingerprint.gpu_count == 2);
}

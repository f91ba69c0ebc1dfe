// A distributed job's ranks (docs/formats.md, "A job of ranks"): traces built by hand so that the
// straggler, each rank's wait and the overlap of communication with computation are known by
// construction, to the nanosecond.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/ranks.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <array>
#include <string>
#include <vector>

namespace {

using namespace gpucost::prep::trace;
using gpucost::extract::analyse_jobs;
using gpucost::extract::RankRow;
using gpucost::extract::TraceJob;

constexpr std::int64_t kBase = 1'700'000'000'000'000'000;  // baseTimeNanoseconds: epoch-based stamps
constexpr std::uint32_t kAllReduce = 0, kGemm = 1;

GpuOp kernel(std::int64_t start, std::int64_t end, std::int64_t stream, std::uint32_t name, std::int64_t corr = -1) {
  GpuOp op;
  op.start_ns = start;
  op.dur_ns = end - start;
  op.stream = stream;
  op.name = name;
  op.correlation = corr;
  op.cls = name == kAllReduce ? OpClass::communication : OpClass::compute;
  return op;
}

/// Three steps of 1 ms on the CPU. In each, rank r computes for compute[r][s] ns from 1 µs into
/// the step, then joins an all-reduce that ends for every rank at 0.5 ms into the step: the rank
/// that computed longest arrives last and has the shortest all-reduce.
//   step 1: compute 100, 300, 200 µs -> all-reduce 399, 199, 299 µs: rank 1 last; waits 200, 0, 100 µs
//   step 2: compute 250, 150, 350 µs -> all-reduce 249, 349, 149 µs: rank 2 last; waits 100, 200, 0 µs
//   step 3: compute 100, 400, 100 µs -> all-reduce 399,  99, 399 µs: rank 1 last; waits 300, 0, 300 µs
constexpr std::array<std::array<std::int64_t, 3>, 3> kCompute = {
    {{100'000, 250'000, 100'000}, {300'000, 150'000, 400'000}, {200'000, 350'000, 100'000}}};

TraceData rank_trace(int rank, int steps = 3) {
  TraceData d;
  d.names = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
             "ampere_sgemm_128x64_tn"};
  d.base_time_ns = kBase;
  d.rank = rank;
  d.world_size = 3;
  d.backend = "nccl";
  for (int s = 0; s < steps; ++s) {
    const std::int64_t t0 = s * 1'000'000;
    d.steps.push_back(StepMark{s + 1, t0, 1'000'000});
    const std::int64_t arrive = t0 + 1'000 + kCompute[static_cast<std::size_t>(rank)][static_cast<std::size_t>(s)];
    d.ops.push_back(kernel(t0 + 1'000, arrive, 7, kGemm));
    d.ops.push_back(kernel(arrive, t0 + 500'000, 20, kAllReduce));
  }
  return d;
}

const RankRow& row(const TraceJob& job, int rank) {
  for (const RankRow& r : job.ranks)
    if (r.rank == rank) return r;
  FAIL("no rank " << rank);
  return job.ranks.front();
}

}  // namespace

TEST_CASE("ranks: waits and the straggler of each step, by construction", "[trace][ranks]") {
  std::vector<RankSummary> ranks;
  for (int r = 0; r < 3; ++r) ranks.push_back(summarise_rank(rank_trace(r), "rank" + std::to_string(r) + ".json"));
  const auto jobs = analyse_jobs(ranks);
  REQUIRE(jobs.size() == 1);
  const TraceJob& job = jobs.front();
  CHECK(job.world_size == 3);
  CHECK(job.backend == "nccl");
  CHECK(job.notes.empty());
  CHECK(job.matched == 3);
  CHECK(job.unmatched == 0);
  CHECK(row(job, 0).wait_ns == 200'000 + 100'000 + 300'000);
  CHECK(row(job, 1).wait_ns == 0 + 200'000 + 0);
  CHECK(row(job, 2).wait_ns == 100'000 + 0 + 300'000);
  CHECK(job.wait_ns == 1'200'000);
  CHECK(row(job, 1).straggler_steps == 2);  // steps 1 and 3
  CHECK(row(job, 2).straggler_steps == 1);  // step 2
  CHECK(job.steps == 3);
  CHECK(job.straggler_rank == 1);
  CHECK(job.straggler_step_share == Approx(2.0 / 3.0));
  // Each rank's GPU ops span 1 µs .. 2.5 ms: 2 499 000 ns, 7 497 000 ns for the job.
  CHECK(row(job, 0).span_ns == 2'499'000);
  CHECK(job.span_ns == 7'497'000);
  CHECK(job.wait_fraction() == Approx(1'200'000.0 / 7'497'000.0));
  // No compute kernel runs beside a collective: all communication is exposed.
  CHECK(row(job, 0).comm_ns == 399'000 + 249'000 + 399'000);
  CHECK(row(job, 0).exposed_comm_ns == row(job, 0).comm_ns);
  CHECK(job.overlap_fraction() == 0.0);
}

TEST_CASE("ranks: communication overlapped by compute on another stream is not exposed", "[trace][ranks]") {
  TraceData d = rank_trace(0);
  // A GEMM on stream 9 from 200 to 300 µs, inside rank 0's first all-reduce (101 .. 500 µs), and a
  // second one overlapping it (250 .. 320 µs): the union of compute over the all-reduce is 200 .. 320 µs.
  d.ops.push_back(kernel(200'000, 300'000, 9, kGemm));
  d.ops.push_back(kernel(250'000, 320'000, 9, kGemm));
  const RankSummary r = summarise_rank(d, "rank0.json");
  CHECK(r.comm_ns == 1'047'000);
  CHECK(r.overlap_ns == 120'000);
  CHECK(r.exposed_comm_ns() == 927'000);
}

TEST_CASE("ranks: a collective belongs to the step its launch is in", "[trace][ranks]") {
  TraceData d = rank_trace(0, 2);
  // Launched at 0.9 ms (step 1 on the CPU), run at 1.6 .. 1.7 ms (step 2's time on the CPU).
  LaunchCall call;
  call.start_ns = 900'000;
  call.dur_ns = 5'000;
  call.correlation = 42;
  d.launches.push_back(call);
  d.ops.push_back(kernel(1'600'000, 1'700'000, 20, kAllReduce, 42));
  const RankSummary r = summarise_rank(d, "rank0.json");
  REQUIRE(r.collectives.size() == 3);
  CHECK(r.collectives[0].step == 1);
  CHECK(r.collectives[1].step == 1);
  CHECK(r.collectives[1].seq == 1);  // the second on its lane in step 1
  CHECK(r.collectives[1].start_ns == kBase + 1'600'000);
  CHECK(r.collectives[2].step == 2);
}

TEST_CASE("ranks: a rank that lacks a collective leaves it unmatched, and says so", "[trace][ranks]") {
  std::vector<RankSummary> ranks;
  for (int r = 0; r < 3; ++r) ranks.push_back(summarise_rank(rank_trace(r, r == 2 ? 2 : 3), "r.json"));
  const auto jobs = analyse_jobs(ranks);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs.front().matched == 2);
  CHECK(jobs.front().unmatched == 1);
  CHECK(jobs.front().wait_ns == (200'000 + 100'000) + (100'000 + 200'000));  // steps 1 and 2 only
  // Steps 1 and 2 had stragglers 1 and 2: a tie, which names nobody.
  CHECK(jobs.front().straggler_rank == -1);
  CHECK(jobs.front().straggler_step_share == Approx(0.5));
  REQUIRE(jobs.front().notes.size() == 2);
  CHECK(jobs.front().notes[0].find("could not be matched") != std::string::npos);
  CHECK(jobs.front().notes[1] ==
        "no single straggler: ranks 1, 2 were the last to arrive equally often (1 of 2 steps each)");
}

TEST_CASE("ranks: missing and repeated ranks, and another job's trace, are notes", "[trace][ranks]") {
  std::vector<RankSummary> ranks;
  ranks.push_back(summarise_rank(rank_trace(0), "a/rank0.json"));
  ranks.push_back(summarise_rank(rank_trace(0), "b/rank0.json"));  // rank 0 again
  TraceData later = rank_trace(1);
  later.base_time_ns = kBase + 3'600'000'000'000;  // an hour later: another run of the job
  ranks.push_back(summarise_rank(later, "c/rank1.json"));
  const auto jobs = analyse_jobs(ranks);
  REQUIRE(jobs.size() == 2);
  const TraceJob& first = jobs[0];
  REQUIRE(first.ranks.size() == 1);
  CHECK(first.ranks.front().path == "a/rank0.json");
  bool repeated = false, missing = false;
  for (const std::string& n : first.notes) {
    repeated = repeated || n.find("b/rank0.json: rank 0 again (first a/rank0.json)") != std::string::npos;
    missing = missing || n.find("ranks 1, 2 of 3 are missing") != std::string::npos;
  }
  CHECK(repeated);
  CHECK(missing);
  CHECK(first.straggler_rank == -1);  // one rank: nobody to wait for
  CHECK(jobs[1].ranks.front().path == "c/rank1.json");
}

TEST_CASE("ranks: the rank a file name gives", "[trace][ranks]") {
  CHECK(rank_from_file_name("run/trace_rank_3.json") == 3);
  CHECK(rank_from_file_name("logs/host1.rank-12.pt.trace.json.gz") == 12);
  CHECK(rank_from_file_name("RANK_7/rank-2.json") == 2);  // the file's name, not its folder's
  CHECK(rank_from_file_name("worker0.json") == -1);
  CHECK(rank_from_file_name("ranks_4.json") == -1);
  CHECK(rank_from_file_name("rank-.json") == -1);
  TraceData d = rank_trace(0);
  d.rank = -1;
  const RankSummary r = summarise_rank(d, "dir/trace_rank_5.json");
  CHECK(r.rank == 5);
  CHECK(r.rank_from_name);
}

TEST_CASE("ranks: the job from prep's events, as streams prepared apart give it", "[trace][ranks]") {
  // trace_comm then trace_collective events of two ranks, interleaved as a merge by time would
  // give them: each collective belongs to the last trace_comm of its host and rank.
  gpucost::extract::TraceJobCollector jobs;
  const auto comm = [&](int rank, const char* file) {
    gpucost::Event e;
    e.kind = "trace_comm";
    e.host = "node1";
    e.ts_ns = kBase;
    e.add_number("rank", rank);
    e.add_text("rank_source", "distributedInfo");
    e.add_number("world_size", 2);
    e.add_text("backend", "nccl");
    e.add_number("span_ns", 1'000'000);
    e.add_number("comm_ns", 400'000);
    e.add_number("comm_overlap_ns", 100'000);
    e.add_text("file", file);
    e.add_text("strip", rank == 0 ? std::string(120, 'c') : std::string("cox."),
               true);  // rank 1's is not a strip: dropped
    jobs.on_event(e);
  };
  const auto collective = [&](int rank, std::int64_t step, std::int64_t dur) {
    gpucost::Event e;
    e.kind = "trace_collective";
    e.host = "node1";
    e.gpu = 0;
    e.ts_ns = kBase + 500'000 - dur;
    e.add_number("rank", rank);
    e.add_number("step", step);
    e.add_number("lane", 0);
    e.add_number("seq", 0);
    e.add_number("dur_ns", dur);
    e.add_text("name", "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    jobs.on_event(e);
  };
  comm(0, "rank0.json");
  comm(1, "rank1.json");
  collective(1, 1, 100'000);  // step 1: rank 1 arrived last
  collective(0, 1, 300'000);
  collective(0, 2, 50'000);  // step 2: rank 0 arrived last
  collective(1, 2, 60'000);
  collective(0, 3, 80'000);  // step 3: rank 0 again
  collective(1, 3, 90'000);
  const auto out = jobs.jobs();
  REQUIRE(out.size() == 1);
  const TraceJob& job = out.front();
  CHECK(job.matched == 3);
  CHECK(row(job, 0).wait_ns == 200'000);          // step 1
  CHECK(row(job, 1).wait_ns == 10'000 + 10'000);  // steps 2 and 3
  CHECK(job.straggler_rank == 0);
  CHECK(job.straggler_step_share == Approx(2.0 / 3.0));
  CHECK(row(job, 0).path == "rank0.json");
  CHECK(row(job, 0).exposed_comm_ns == 300'000);
  CHECK(job.overlap_fraction() == Approx(0.25));  // 200 of 800 µs
  CHECK(row(job, 0).strip == std::string(120, 'c'));
  CHECK(row(job, 0).start_ns == kBase);
  CHECK(row(job, 1).strip.empty());
}

TEST_CASE("ranks: a collective goes to its own file's trace when two traces of a rank interleave", "[trace][ranks]") {
  // Two runs' traces of ranks 0 and 1 overlapping in time, merged by time: every trace_comm
  // comes before the collectives. The second run's ranks are left out as repeated; the first
  // run's keep their own collectives (before collectives named their file, the second run's
  // trace_comm took them all).
  gpucost::extract::TraceJobCollector jobs;
  const auto comm = [&](int rank, const std::string& file) {
    gpucost::Event e;
    e.kind = "trace_comm";
    e.host = "node1";
    e.ts_ns = kBase;
    e.add_number("rank", rank);
    e.add_number("world_size", 2);
    e.add_text("backend", "nccl");
    e.add_number("span_ns", 1'000'000);
    e.add_text("file", file, true);
    jobs.on_event(e);
  };
  const auto collective = [&](int rank, const std::string& file, std::int64_t dur) {
    gpucost::Event e;
    e.kind = "trace_collective";
    e.host = "node1";
    e.ts_ns = kBase + 500'000 - dur;
    e.add_number("rank", rank);
    e.add_number("step", 1);
    e.add_number("dur_ns", dur);
    e.add_text("name", "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    e.add_text("file", file, true);
    jobs.on_event(e);
  };
  for (const char* run : {"a", "b"})
    for (int rank = 0; rank < 2; ++rank) comm(rank, std::string(run) + "-rank-" + std::to_string(rank) + ".json");
  collective(0, "a-rank-0.json", 300'000);
  collective(0, "b-rank-0.json", 100'000);
  collective(1, "a-rank-1.json", 100'000);
  collective(1, "b-rank-1.json", 300'000);
  const auto out = jobs.jobs();
  REQUIRE(out.size() == 1);
  const TraceJob& job = out.front();
  CHECK(job.matched == 1);
  CHECK(row(job, 0).path == "a-rank-0.json");
  CHECK(row(job, 0).wait_ns == 200'000);  // run a's own durations: 300 against 100 us
  CHECK(job.straggler_rank == 1);
  CHECK(job.notes.size() == 2);  // b's ranks 0 and 1 left out
}

TEST_CASE("ranks: --steps keeps the ops launched in the chosen steps", "[trace][ranks]") {
  // Rank 0's step 2: the GEMM from 1.001 ms, the all-reduce from 1.251 to 1.5 ms.
  const RankSummary r = summarise_rank(rank_trace(0), "rank0.json", StepRange{2, 2});
  REQUIRE(r.collectives.size() == 1);
  CHECK(r.collectives.front().step == 2);
  CHECK(r.span_ns() == 499'000);
  CHECK(r.comm_ns == 249'000);
  CHECK(summarise_rank(rank_trace(0), "rank0.json", StepRange{7, 9}).span_ns() == 0);  // no such step
  // Its strip: the GEMM's 250 of 499 µs fill 60.1 bins, the all-reduce the rest.
  CHECK(r.strip == std::string(60, 'c') + std::string(60, 'x'));
  CHECK(summarise_rank(rank_trace(0), "rank0.json", StepRange{7, 9}).strip.empty());
}

TEST_CASE("ranks: the strip, bin by bin", "[trace][ranks]") {
  // A span of 1 200 ns: 120 bins of 10 ns.
  TraceData d;
  d.names = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ampere_sgemm_128x64_tn", "Memcpy HtoD"};
  d.base_time_ns = kBase;
  d.rank = 0;
  d.world_size = 2;
  d.ops.push_back(kernel(0, 35, 7, kGemm));         // bins 0-2 compute; bin 3: 5 ns compute, 5 idle: c
  d.ops.push_back(kernel(40, 80, 20, kAllReduce));  // bins 4-5 exposed
  d.ops.push_back(kernel(60, 75, 9, kGemm));        // bin 6 overlapped; bin 7: 5 overlapped, 5 exposed: x
  GpuOp copy = kernel(100, 130, 11, 2);             // bins 10-12: a memcpy is not compute: idle
  copy.type = OpType::memcpy;
  copy.cls = OpClass::compute;
  d.ops.push_back(copy);
  GpuOp other = kernel(40, 50, 7, kGemm);  // compute on another device: bin 4 stays exposed
  other.device = 1;
  d.ops.push_back(other);
  d.ops.push_back(kernel(150, 156, 20, kAllReduce));  // bin 15: 6 exposed, 4 compute: x
  d.ops.push_back(kernel(156, 160, 7, kGemm));
  d.ops.push_back(kernel(200, 205, 20, kAllReduce));  // bin 20: 5 overlapped, 5 compute: o
  d.ops.push_back(kernel(200, 210, 7, kGemm));
  d.ops.push_back(kernel(1'190, 1'200, 7, kGemm));  // bin 119 compute
  const RankSummary r = summarise_rank(d, "rank0.json");
  REQUIRE(r.span_ns() == 1'200);
  // Bins 0-3 c, 4-5 x, 6 o, 7 x, 8-14 idle, 15 x, 16-19 idle, 20 o, 21-118 idle, 119 c.
  const std::string expected =
      "ccccxxox" + std::string(7, '.') + "x" + std::string(4, '.') + "o" + std::string(98, '.') + "c";
  REQUIRE(expected.size() == 120);
  CHECK(r.strip == expected);
  CHECK(r.comm_ns == 40 + 6 + 5);
  CHECK(r.overlap_ns == 15 + 5);

  SECTION("a trace of one rank without communication has none (prep writes no trace_comm for it)") {
    d.world_size = -1;
    d.ops = {kernel(0, 35, 7, kGemm)};
    CHECK(summarise_rank(d, "rank0.json").strip.empty());
  }
  SECTION("a span of no time has none") {
    d.ops = {kernel(10, 10, 7, kGemm)};
    CHECK(summarise_rank(d, "rank0.json").strip.empty());
  }
  SECTION("a span that is not a multiple of 120 ns: bins of 10.5 ns") {
    d.ops = {kernel(0, 21, 7, kGemm), kernel(21, 1'260, 20, kAllReduce)};  // 2 bins of compute exactly
    CHECK(summarise_rank(d, "rank0.json").strip == "cc" + std::string(118, 'x'));
    d.ops = {kernel(0, 22, 7, kGemm), kernel(22, 1'261, 20, kAllReduce)};  // bins of 10.508 ns: 2.09 bins
    CHECK(summarise_rank(d, "rank0.json").strip == "cc" + std::string(118, 'x'));
  }
}

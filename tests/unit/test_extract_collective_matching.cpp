// Matching a collective across ranks (docs/formats.md, "A job of ranks"; issue 38, item 1): by
// the process group and sequence number the trace carries, else by order only where the kernels
// overlap in time; the unmatched counted with their reason, and a sample of the world said so.
// Traces built by hand, each figure known by construction.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/ranks.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <optional>
#include <string>
#include <vector>

namespace {

using namespace gpucost::prep::trace;
using gpucost::extract::analyse_jobs;
using gpucost::extract::RankRow;
using gpucost::extract::TraceJob;

constexpr std::int64_t kBase = 1'700'000'000'000'000'000;  // baseTimeNanoseconds: epoch-based stamps
constexpr std::int64_t kUs = 1'000;

/// A rank's trace of `world` ranks, without step marks: its collectives added one by one.
struct RankBuilder {
  TraceData d;
  RankBuilder(int rank, int world, std::int64_t base = kBase) {
    d.names = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"};
    d.base_time_ns = base;
    d.rank = rank;
    d.world_size = world;
    d.backend = "nccl";
  }
  /// An all-reduce from `from` to `to` µs; `args`: the collective args its kernel carries.
  RankBuilder& add(std::int64_t from, std::int64_t to, std::optional<CommArgs> args = std::nullopt) {
    GpuOp op;
    op.start_ns = from * kUs;
    op.dur_ns = (to - from) * kUs;
    op.stream = 20;
    op.cls = OpClass::communication;
    if (args) {
      d.comm_args.push_back(*args);
      op.comm_args = static_cast<std::int32_t>(d.comm_args.size() - 1);
    }
    d.ops.push_back(op);
    return *this;
  }
  [[nodiscard]] RankSummary summary() const { return summarise_rank(d, "rank-" + std::to_string(d.rank) + ".json"); }
};

CommArgs group(std::string name, std::string ranks, std::int64_t seq = -1) {
  CommArgs a;
  a.pg = std::move(name);
  a.pg_ranks = std::move(ranks);
  a.op = "allreduce";
  a.seq = seq;
  return a;
}

const RankRow& row(const TraceJob& job, int rank) {
  for (const RankRow& r : job.ranks)
    if (r.rank == rank) return r;
  FAIL("no rank " << rank);
  return job.ranks.front();
}

bool has_note(const TraceJob& job, const std::string& text) {
  for (const std::string& n : job.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

/// Rank 0 ran collectives 7, 8 and 9 of process group "0"; rank 1's trace began after 7, so it has
/// 8 and 9 only. By order on the lane, rank 1's first (8) would pair with rank 0's first (7).
//   Seq 7: rank 0  0 .. 100 µs                    -> rank 1 lacks it: unmatched (missing)
//   Seq 8: rank 0  200 .. 500 µs, rank 1  400 .. 500 µs -> rank 0 waits 300 - 100 = 200 µs
//   Seq 9: rank 0  600 .. 700 µs, rank 1  650 .. 700 µs -> rank 0 waits 100 -  50 =  50 µs
std::vector<RankSummary> window_cut(bool with_seq, std::int64_t rank1_base = kBase) {
  const auto args = [&](std::int64_t seq) { return group("0", "[0, 1]", with_seq ? seq : -1); };
  RankBuilder r0(0, 2), r1(1, 2, rank1_base);
  r0.add(0, 100, args(7)).add(200, 500, args(8)).add(600, 700, args(9));
  r1.add(400, 500, args(8)).add(650, 700, args(9));
  return {r0.summary(), r1.summary()};
}

}  // namespace

TEST_CASE("matching: a collective is matched by its process group and Seq, whatever the order", "[trace][ranks]") {
  const auto jobs = analyse_jobs(window_cut(true));
  REQUIRE(jobs.size() == 1);
  const TraceJob& job = jobs.front();
  CHECK(job.matched == 2);
  CHECK(job.matched_by_group == 2);
  CHECK(job.matched_by_order == 0);
  CHECK(job.matched_partial == 0);
  CHECK(job.unmatched == 1);
  CHECK(job.unmatched_missing == 1);  // Seq 7: rank 1's trace began after it
  CHECK(row(job, 0).wait_ns == 250 * kUs);
  CHECK(row(job, 1).wait_ns == 0);
  CHECK(job.steps == 2);  // no step marks: each matched collective is one
  CHECK(job.straggler_rank == 1);
  CHECK(job.straggler_step_share == Approx(1.0));
  CHECK(has_note(job, "1 collectives could not be matched across the ranks"));
  CHECK_FALSE(job.sample());
}

TEST_CASE("matching: by Seq the ranks' clocks need not agree", "[trace][ranks]") {
  // Rank 1's clock 250 µs ahead (a host without NTP): its Seq 8 at 650 .. 750 µs and Seq 9 at
  // 900 .. 950 µs overlap neither of rank 0's (200 .. 500, 600 .. 700 µs), yet the trace names
  // each collective, and the waits come from durations alone.
  const auto jobs = analyse_jobs(window_cut(true, kBase + 250 * kUs));
  REQUIRE(jobs.size() == 1);
  CHECK(jobs.front().matched == 2);
  CHECK(jobs.front().wait_ns == 250 * kUs);
  // Without Seq the same traces pair by order in the group, and nothing overlaps.
  CHECK(analyse_jobs(window_cut(false, kBase + 250 * kUs)).front().matched == 0);
}

TEST_CASE("matching: by order in the process group, only kernels that overlap in time", "[trace][ranks]") {
  // Without Seq the n-th collective of group "0" pairs with the n-th: 7 with 8 and 8 with 9, and
  // neither pair overlaps (ends 100 against 500 µs, 500 against 700 µs): not the same collective.
  const auto jobs = analyse_jobs(window_cut(false));
  REQUIRE(jobs.size() == 1);
  const TraceJob& job = jobs.front();
  CHECK(job.matched == 0);
  CHECK(job.unmatched == 3);
  CHECK(job.unmatched_apart == 2);
  CHECK(job.unmatched_missing == 1);  // rank 0's third has no partner
  CHECK(job.unmatched_apart_max_ns == 400 * kUs);
  CHECK(job.wait_ns == 0);
  CHECK(job.steps == 0);
  CHECK(job.straggler_rank == -1);
  CHECK(has_note(job,
                 "2 of the 2 collectives paired by order did not overlap in time across the ranks (kernel ends "
                 "up to 400.0 µs apart)"));
}

TEST_CASE("matching: without identity, order and overlap, a sample of the world says so", "[trace][ranks]") {
  // Ranks 0 and 1 of 4, no collective args (the corpus's sampled pair is of this kind):
  //   1st: rank 0    0 .. 300 µs, rank 1  200 .. 300 µs  -> overlap: rank 0 waits 200 µs
  //   2nd: rank 0 1000 .. 1100,    rank 1 1200 .. 1300   -> apart (ends 200 µs apart): not counted
  //   3rd: rank 0 2000 .. 2400,    rank 1 2100 .. 2400   -> overlap: rank 0 waits 100 µs
  RankBuilder r0(0, 4), r1(1, 4);
  r0.add(0, 300).add(1000, 1100).add(2000, 2400);
  r1.add(200, 300).add(1200, 1300).add(2100, 2400);
  const auto jobs = analyse_jobs({r0.summary(), r1.summary()});
  REQUIRE(jobs.size() == 1);
  const TraceJob& job = jobs.front();
  CHECK(job.matched == 2);
  CHECK(job.matched_by_order == 2);
  CHECK(job.matched_partial == 2);  // ranks 2 and 3 also run them
  CHECK(job.unmatched_apart == 1);
  CHECK(job.unmatched_apart_max_ns == 200 * kUs);
  CHECK(row(job, 0).wait_ns == 300 * kUs);
  CHECK(row(job, 1).wait_ns == 0);
  CHECK(job.straggler_rank == 1);
  CHECK(job.sample());
  CHECK(has_note(job, "1 of the 3 collectives paired by order did not overlap in time"));
  CHECK(has_note(job,
                 "2 of 4 ranks present, a sample of the job (ranks 2, 3 of 4 are missing): 2 of the 2 matched "
                 "collectives have ranks outside the sample"));
}

TEST_CASE("matching: a process group's own ranks are all it needs", "[trace][ranks]") {
  // Ranks 0 and 1 of 4. Group "1" is ranks 0 and 1: both here, its waits whole. Group "2" is
  // ranks 0 and 2: rank 2 is absent, so its collective has one rank here and is not matched.
  RankBuilder r0(0, 4), r1(1, 4);
  r0.add(0, 300, group("1", "[0, 1]", 0)).add(400, 500, group("2", "[0, 2]", 0));
  r1.add(100, 300, group("1", "[0, 1]", 0));
  const auto jobs = analyse_jobs({r0.summary(), r1.summary()});
  REQUIRE(jobs.size() == 1);
  const TraceJob& job = jobs.front();
  CHECK(job.matched == 1);
  CHECK(job.matched_partial == 0);
  CHECK(job.unmatched_missing == 1);
  CHECK(row(job, 0).wait_ns == 100 * kUs);
  CHECK(has_note(job,
                 "2 of 4 ranks present, a sample of the job (ranks 2, 3 of 4 are missing): every matched "
                 "collective's process group is present"));
}

TEST_CASE("matching: two ranks of a larger world with nothing matched say that waits are not computed",
          "[trace][ranks]") {
  RankBuilder r0(0, 128), r1(1, 128);
  r0.add(0, 100).add(300, 400);
  r1.add(200, 300).add(500, 600);  // each pair apart; the traces' spans overlap: one job
  const auto jobs = analyse_jobs({r0.summary(), r1.summary()});
  REQUIRE(jobs.size() == 1);
  CHECK(jobs.front().matched == 0);
  CHECK(has_note(jobs.front(), "2 of 128 ranks present, a sample of the job (ranks 2, 3, 4"));
  CHECK(has_note(jobs.front(), "and 110 more of 128 are missing): waits not computed"));
}

TEST_CASE("matching: the reader keeps the collective args Kineto writes on an NCCL kernel", "[trace][ranks]") {
  const std::string text = R"json({"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
  "pid": 0, "tid": 40, "ts": 10, "dur": 5, "args": {"External id": 1, "device": 0, "stream": 40, "correlation": 7,
  "Collective name": "allreduce", "In msg nelems": 2049000, "Out msg nelems": 2049000, "Group size": 2,
  "dtype": "Float", "Process Group Name": "0", "Process Group Description": "default_pg",
  "Process Group Ranks": "[0, 1]", "Seq": 12}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
  "pid": 0, "tid": 40, "ts": 20, "dur": 5, "args": {"device": 0, "stream": 40, "Process Group Name": "pp\u0031",
  "Seq": "13"}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllGather", "pid": 0, "tid": 40, "ts": 30, "dur": 5,
  "args": {"device": 0, "stream": 40}},
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm", "pid": 0, "tid": 7, "ts": 30, "dur": 5,
  "args": {"device": 0, "stream": 7, "Collective name": "allreduce"}}
]})json";
  const TraceData d = read_trace_text(text);
  REQUIRE(d.ops.size() == 4);
  REQUIRE(d.comm_args.size() == 2);  // the compute kernel's stray arg is not kept
  REQUIRE(d.ops[0].comm_args == 0);
  const CommArgs& a = d.comm_args[0];
  CHECK(a.pg == "0");
  CHECK(a.pg_desc == "default_pg");
  CHECK(a.pg_ranks == "[0, 1]");
  CHECK(a.op == "allreduce");
  CHECK(a.seq == 12);
  CHECK(a.in_nelems == 2'049'000);
  CHECK(a.out_nelems == 2'049'000);
  REQUIRE(d.ops[1].comm_args == 1);
  CHECK(d.comm_args[1].pg == "pp1");  // escapes decoded
  CHECK(d.comm_args[1].seq == 13);    // a quoted Seq read as its number
  CHECK(d.ops[2].comm_args == -1);
  CHECK(d.ops[3].comm_args == -1);
  // The rank's collectives carry it, with their order in their group.
  const RankSummary r = summarise_rank(d, "rank-0.json");
  REQUIRE(r.collectives.size() == 3);
  CHECK(r.collectives[0].pg == "0");
  CHECK(r.collectives[0].pg_seq == 12);
  CHECK(r.collectives[0].pg_order == 0);
  CHECK(r.collectives[1].pg == "pp1");
  CHECK(r.collectives[1].pg_order == 0);
  CHECK(r.collectives[2].pg.empty());
  CHECK(r.collectives[2].pg_order == -1);
}

TEST_CASE("matching: the identity travels in trace_collective events, streams without it pair by order",
          "[trace][ranks]") {
  // window_cut's traces as prep writes them: rank 1's first collective is Seq 8, rank 0's Seq 7.
  const auto feed = [](bool identity) {
    gpucost::extract::TraceJobCollector jobs;
    for (int rank = 0; rank < 2; ++rank) {
      gpucost::Event e;
      e.kind = "trace_comm";
      e.host = "node1";
      e.ts_ns = kBase;
      e.add_number("rank", rank);
      e.add_number("world_size", 2);
      e.add_text("backend", "nccl");
      e.add_number("span_ns", 700 * kUs);
      e.add_text("file", rank == 0 ? "rank-0.json" : "rank-1.json");
      jobs.on_event(e);
    }
    const auto collective = [&](int rank, std::int64_t seq, std::int64_t from, std::int64_t to) {
      gpucost::Event e;
      e.kind = "trace_collective";
      e.host = "node1";
      e.gpu = 0;
      e.ts_ns = kBase + from * kUs;
      e.add_number("rank", rank);
      e.add_number("lane", 0);
      e.add_number("seq", seq - (rank == 0 ? 7 : 8));  // the order on the lane
      e.add_number("dur_ns", (to - from) * kUs);
      e.add_text("name", "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
      e.add_text("file", rank == 0 ? "rank-0.json" : "rank-1.json");
      if (identity) {
        e.add_text("pg", "0");
        e.add_text("pg_ranks", "[0, 1]");
        e.add_text("collective", "allreduce");
        e.add_number("pg_seq", seq);
      }
      jobs.on_event(e);
    };
    collective(0, 7, 0, 100);
    collective(0, 8, 200, 500);
    collective(0, 9, 600, 700);
    collective(1, 8, 400, 500);
    collective(1, 9, 650, 700);
    return jobs.jobs();
  };
  const auto named = feed(true);
  REQUIRE(named.size() == 1);
  CHECK(named.front().matched_by_group == 2);
  CHECK(named.front().wait_ns == 250 * kUs);
  // An older stream: (step, lane, order) pairs 7 with 8 and 8 with 9; neither overlaps.
  const auto old = feed(false);
  REQUIRE(old.size() == 1);
  CHECK(old.front().matched == 0);
  CHECK(old.front().unmatched_apart == 2);
  CHECK(old.front().unmatched_missing == 1);
  CHECK(old.front().wait_ns == 0);
}

TEST_CASE("matching: a process group listed cut short counts the ranks past the list that ran it", "[trace][ranks]") {
  // PyTorch lists a group of more than 30 ranks as its first 30 and ", ...". Ranks 0 and 35 of
  // 40 ran Seq 3 of such a group: 35 is past the list, yet one of its ranks. Rank 0 waits 200 µs.
  std::string cut = "[0";
  for (int r = 1; r < 30; ++r) cut += ", " + std::to_string(r);
  cut += ", ...]";
  RankBuilder r0(0, 40), r35(35, 40);
  r0.add(0, 300, group("0", cut, 3));
  r35.add(200, 300, group("0", cut, 3));
  const auto jobs = analyse_jobs({r0.summary(), r35.summary()});
  REQUIRE(jobs.size() == 1);
  const TraceJob& job = jobs.front();
  CHECK(job.matched == 1);
  CHECK(job.matched_partial == 1);  // 38 of the world's ranks are absent: some may be the group's
  CHECK(row(job, 0).wait_ns == 200 * kUs);
  CHECK(job.straggler_rank == 35);
}

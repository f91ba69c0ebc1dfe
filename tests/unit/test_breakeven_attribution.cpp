// breakeven --by: the job's cost split over the processes that computed on its GPUs, by process,
// user and cgroup (docs/cost-model.md, "Cost by process, user or cgroup"); and what a distributed
// job's waiting and exposed communication cost ("Waiting and exposed communication"). Worked by
// hand from the reference case of docs/cost-model.md (tests/reference_case.hpp).
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/attribution.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/report/attribution_report.hpp>

#include <optional>
#include <string>

namespace {

using namespace gpucost;
using gpucost::testing::reference_config;
using gpucost::testing::reference_job;

extract::ProcessUse use(int gpu, std::int64_t pid, std::optional<double> busy_s, const std::string& user,
                        std::optional<double> fb = std::nullopt) {
  extract::ProcessUse p;
  p.host = "node1";
  p.gpu = gpu;
  p.pid = pid;
  p.command = "python";
  p.busy_s = busy_s;
  p.fb_max_mib = fb;
  p.user = user;
  if (!user.empty()) p.start_ns = 1;
  p.rows = busy_s ? 720 : 0;
  return p;
}

/// The reference job's two GPUs (W = 2 h) and their processes on node1.
extract::Features reference_features(std::vector<extract::ProcessUse> processes) {
  extract::Features f;
  f.host = "node1";
  f.from_ns = 0;
  f.to_ns = 7200LL * 1'000'000'000;
  f.gpus.resize(2);
  f.gpus[0].gpu = 0;
  f.gpus[1].gpu = 1;
  f.processes = std::move(processes);
  return f;
}

const breakeven::AttributionRow& row(const breakeven::Attribution& a, const std::string& key) {
  for (const auto& r : a.rows)
    if (r.key == key) return r;
  FAIL("no row " << key);
  return a.rows.front();
}

}  // namespace

// C_L = 1.863710: electricity 1.2 x 0.30 x (0.9 + 0.2 kWh) = 0.396, amortisation 0.978474 and
// maintenance 0.489237 (tests/reference_case.hpp). Per GPU, locally:
//   C_0 = 0.36 x (0.5 + 0.2 / 2) + (0.978474 + 0.489237) / 2 = 0.216 + 0.733855 = 0.949855
//   C_1 = 0.36 x (0.4 + 0.1) + 0.733855 = 0.913855
// and in the cloud C_C / 2 = 3.166667 / 2 = 1.583333 each.
TEST_CASE("attribution: each GPU's cost to its processes by SM time, by hand", "[attribution]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  REQUIRE(r.local_total == Approx(1.863710).epsilon(1e-6));
  const auto f = reference_features({use(0, 10, 3600, "alice"), use(0, 20, 1200, "bob"), use(0, 30, 0, "carol", 4096),
                                     use(1, 11, 1800, "alice", 1000)});
  const auto a = breakeven::attribute_cost(r, reference_config(), f, breakeven::AttributionBy::user);
  REQUIRE(a.reason.empty());
  REQUIRE(a.rows.size() == 2);
  // alice: 3600 / 4800 of GPU 0 and all of GPU 1: 0.75 x 0.949855 + 0.913855 = 1.626247
  const auto& alice = row(a, "alice");
  CHECK(alice.local == Approx(1.626247).epsilon(1e-5));
  CHECK(alice.cloud == Approx(0.75 * 1.583333 + 1.583333).epsilon(1e-5));  // 2.770833
  CHECK(alice.busy_s == Approx(5400));
  CHECK(alice.processes == 2);
  CHECK(alice.gpus == std::vector<int>{0, 1});
  CHECK(*alice.fb_max_mib == Approx(1000));                         // only pid 11 printed fb
  CHECK(alice.share == Approx(1.626247 / 1.863710).epsilon(1e-5));  // 0.872586
  // bob: 1200 / 4800 of GPU 0: 0.25 x 0.949855 = 0.237464
  const auto& bob = row(a, "bob");
  CHECK(bob.local == Approx(0.237464).epsilon(1e-5));
  CHECK(bob.cloud == Approx(0.395833).epsilon(1e-5));
  CHECK(a.rows.front().key == "alice");  // the most costly first
  CHECK(alice.local + bob.local == Approx(r.local_total));
  CHECK(a.unattributed_local == 0.0);
  // (3600 + 1200 + 1800) / (2 GPUs x 7200 s) = 0.458333
  CHECK(a.busy_share == Approx(0.458333).epsilon(1e-5));
  // carol held 4096 MiB on GPU 0 and computed nothing
  REQUIRE(a.idle.size() == 1);
  CHECK(a.idle.front().process.user == "carol");
  CHECK_FALSE(a.idle.front().computed_unknown);
}

TEST_CASE("attribution: by process keeps a user's processes apart", "[attribution]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  const auto f = reference_features({use(0, 10, 3600, "alice"), use(0, 20, 1200, "bob"), use(1, 11, 1800, "alice")});
  const auto a = breakeven::attribute_cost(r, reference_config(), f, breakeven::AttributionBy::process);
  REQUIRE(a.rows.size() == 3);
  CHECK(row(a, "11 python").local == Approx(0.913855).epsilon(1e-5));  // all of GPU 1
  CHECK(row(a, "10 python").local == Approx(0.712391).epsilon(1e-5));  // 0.75 x 0.949855
  CHECK(row(a, "10 python").detail == "alice");
}

TEST_CASE("attribution: a GPU nobody computed on is charged to nobody", "[attribution]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  const auto f = reference_features({use(0, 10, 600, "alice"), use(1, 11, 0, "bob", 2048)});
  const auto a = breakeven::attribute_cost(r, reference_config(), f, breakeven::AttributionBy::user);
  REQUIRE(a.rows.size() == 1);
  CHECK(row(a, "alice").local == Approx(0.949855).epsilon(1e-5));  // all of GPU 0: its only process
  CHECK(row(a, "alice").share == Approx(1.0));
  CHECK(a.unattributed_local == Approx(0.913855).epsilon(1e-5));
  CHECK(a.unattributed_cloud == Approx(1.583333).epsilon(1e-5));
  CHECK(a.unattributed_gpus == std::vector<std::string>{"1"});
  REQUIRE(a.idle.size() == 1);
  CHECK(*a.idle.front().process.fb_max_mib == 2048);
  const std::string table = report::attribution_table(a, "EUR");
  CHECK(table.find("(nobody)") != std::string::npos);
  CHECK(table.find("2048 MiB") != std::string::npos);
}

TEST_CASE("attribution: cgroups group by container, Slurm job or path", "[attribution]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  auto docker = use(0, 10, 100, "alice");
  docker.container_runtime = "docker";
  docker.container_id = "3f2a9c1b04de5e6f7a8b";
  docker.cgroup = "/system.slice/docker-3f2a9c1b04de5e6f7a8b.scope";
  auto slurm = use(1, 11, 100, "bob");
  slurm.slurm_job = "4242";
  auto plain = use(1, 12, 100, "");
  const auto a = breakeven::attribute_cost(r, reference_config(), reference_features({docker, slurm, plain}),
                                           breakeven::AttributionBy::cgroup);
  REQUIRE(a.rows.size() == 3);
  CHECK(row(a, "docker 3f2a9c1b04de").detail == "/system.slice/docker-3f2a9c1b04de5e6f7a8b.scope");
  CHECK(row(a, "slurm job 4242").local == Approx(0.913855 / 2).epsilon(1e-5));  // half of GPU 1
  CHECK(row(a, "unknown").local == Approx(0.913855 / 2).epsilon(1e-5));
}

TEST_CASE("attribution: without pmon nothing is split, and says why", "[attribution]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  const auto none =
      breakeven::attribute_cost(r, reference_config(), reference_features({}), breakeven::AttributionBy::user);
  CHECK(none.rows.empty());
  CHECK(none.reason.find("neither nvidia-smi pmon nor") != std::string::npos);
  // The scan alone: who held the GPUs, not how much they computed.
  const auto scan = breakeven::attribute_cost(r, reference_config(), reference_features({use(0, 10, {}, "alice")}),
                                              breakeven::AttributionBy::user);
  CHECK(scan.rows.empty());
  CHECK(scan.reason.find("no nvidia-smi pmon") != std::string::npos);
  REQUIRE(scan.idle.size() == 1);
  CHECK(scan.idle.front().computed_unknown);
  CHECK(report::attribution_table(scan, "EUR").find("not split") != std::string::npos);
}

TEST_CASE("attribution: without the scan users are unknown, and a note says why", "[attribution]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  const auto a = breakeven::attribute_cost(r, reference_config(), reference_features({use(0, 10, 100, "")}),
                                           breakeven::AttributionBy::user);
  REQUIRE(a.rows.size() == 1);
  CHECK(a.rows.front().key == "unknown");
  REQUIRE(a.notes.size() == 1);
  CHECK(a.notes.front().find("gpu_handle") != std::string::npos);
  CHECK(breakeven::parse_attribution_by("users").has_value() == false);
  CHECK(*breakeven::parse_attribution_by("cgroup") == breakeven::AttributionBy::cgroup);
}

// ---- waiting and exposed communication (docs/cost-model.md) -------------------------------

TEST_CASE("trace jobs: waiting and exposed communication as shares of the cost, by hand", "[attribution][ranks]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  extract::Features f = reference_features({});
  extract::TraceJob job;  // the worked example of docs/formats.md: 1.2 ms waiting of 7.497 ms
  job.world_size = 3;
  job.span_ns = 7'497'000;
  job.wait_ns = 1'200'000;
  job.comm_ns = 2'999'000;
  job.exposed_comm_ns = 2'500'000;
  job.ranks.resize(3);
  f.trace_jobs.push_back(job);
  const auto costs = breakeven::trace_job_costs(r, f);
  REQUIRE(costs.size() == 1);
  // 1.2 / 7.497 = 0.160064; x C_L 1.863710 = 0.298313; x C_C 3.166667 = 0.506869
  CHECK(costs[0].wait_local == Approx(0.298313).epsilon(1e-5));
  CHECK(costs[0].wait_cloud == Approx(0.506869).epsilon(1e-5));
  // 2.5 / 7.497 = 0.333467; x C_L = 0.621486
  CHECK(costs[0].exposed_local == Approx(0.621486).epsilon(1e-5));
  CHECK(costs[0].job.overlap_fraction() == Approx(499.0 / 2999.0));
}

TEST_CASE("findings: the straggler's wait and exposed communication, by hand", "[attribution][ranks][findings]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  extract::Features f = reference_features({});
  extract::TraceJob job;  // as above: 1.2 ms waiting and 2.5 ms exposed of 7.497 ms, rank 1 last in 2 of 3 steps
  job.world_size = 3;
  job.span_ns = 7'497'000;
  job.wait_ns = 1'200'000;
  job.comm_ns = 2'999'000;
  job.exposed_comm_ns = 2'500'000;
  job.straggler_rank = 1;
  job.straggler_step_share = 2.0 / 3.0;
  job.ranks.resize(3);
  f.trace_jobs.push_back(job);
  const auto found = breakeven::findings(r, reference_config(), f, std::nullopt);
  const auto find = [&](const char* kind) -> const breakeven::Finding* {
    for (const auto& one : found)
      if (one.kind == kind) return &one;
    return nullptr;
  };
  // T = 0.396 + 0.978474 + 0.489237 = 1.863711 (no incident)
  const auto* wait = find("straggler_wait");
  REQUIRE(wait != nullptr);
  CHECK(wait->saving == Approx(0.160064 * 1.863711).epsilon(1e-5));  // 0.298314
  CHECK(wait->title.find("for rank 1") != std::string::npos);
  const auto* exposed = find("exposed_comm");
  REQUIRE(exposed != nullptr);
  CHECK(exposed->saving == Approx((0.333467 - 0.160064) * 1.863711).epsilon(1e-5));  // 0.323173
  // Below the thresholds nothing fires: 4 % waiting, 12 % exposed of which 4 % waiting.
  f.trace_jobs.front().wait_ns = 299'880;
  f.trace_jobs.front().exposed_comm_ns = 899'640;
  const auto quiet = breakeven::findings(r, reference_config(), f, std::nullopt);
  for (const auto& one : quiet) CHECK(one.kind != std::string("straggler_wait"));
  for (const auto& one : quiet) CHECK(one.kind != std::string("exposed_comm"));
}

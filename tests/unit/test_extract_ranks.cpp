// The rank indicators (F043, F089, F091, F096; docs/indicators.md, "Trace jobs"), from jobs
// built by hand, and what merge makes of jobs split over documents.
#include <catch2/catch.hpp>

#include "extract/rank_indicators.hpp"

#include <gpucost/extract/features.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace gpucost;
using gpucost::extract::IndicatorSet;

extract::RankRow rank_row(int rank, std::int64_t span, std::int64_t wait, std::int64_t straggler_steps,
                          std::int64_t comm, std::int64_t exposed) {
  extract::RankRow r;
  r.rank = rank;
  r.span_ns = span;
  r.wait_ns = wait;
  r.straggler_steps = straggler_steps;
  r.comm_ns = comm;
  r.exposed_comm_ns = exposed;
  return r;
}

/// A job of `rows`, its sums and straggler as the analysis gives them.
extract::TraceJob job_of(int world_size, std::vector<extract::RankRow> rows, std::int64_t steps, int straggler) {
  extract::TraceJob j;
  j.world_size = world_size;
  j.backend = "nccl";
  j.steps = steps;
  j.straggler_rank = straggler;
  for (const extract::RankRow& r : rows) {
    j.span_ns += r.span_ns;
    j.wait_ns += r.wait_ns;
    j.comm_ns += r.comm_ns;
    j.exposed_comm_ns += r.exposed_comm_ns;
    if (r.rank == straggler && steps > 0)
      j.straggler_step_share = static_cast<double>(r.straggler_steps) / static_cast<double>(steps);
  }
  j.ranks = std::move(rows);
  return j;
}

double value(const IndicatorSet& s, const std::string& key) {
  REQUIRE(s.at(key).value.has_value());
  return *s.at(key).value;
}

std::string reason(const IndicatorSet& s, const std::string& key) {
  REQUIRE_FALSE(s.at(key).value.has_value());
  return s.at(key).reason;
}

/// Two ranks (waits 100 and 0 ns, rank 1 the straggler in 3 of 4 steps) and a lone rank with
/// communication: every figure by hand below.
std::vector<extract::TraceJob> two_jobs() {
  return {job_of(2, {rank_row(0, 1000, 100, 1, 400, 200), rank_row(1, 1000, 0, 3, 300, 300)}, 4, 1),
          job_of(-1, {rank_row(0, 2000, 0, 0, 500, 100)}, 0, -1)};
}

}  // namespace

TEST_CASE("rank indicators: sums over the jobs, by hand", "[ranks][indicators]") {
  IndicatorSet out;
  extract::detail::rank_indicators(two_jobs(), out);
  CHECK(value(out, "collective_wait_fraction") == Approx(100.0 / 2000));  // the lone rank's span is not in it
  CHECK(value(out, "exposed_comm_fraction") == Approx(600.0 / 4000));     // (200 + 300 + 100) / every span
  CHECK(value(out, "comm_overlap_fraction") == Approx((1200.0 - 600) / 1200));
  CHECK(value(out, "straggler_step_share") == Approx(3.0 / 4));
}

TEST_CASE("rank indicators: the worked example of docs/indicators.md", "[ranks][indicators]") {
  IndicatorSet out;
  extract::detail::rank_indicators(
      {job_of(2, {rank_row(0, 2490000, 500000, 1, 1020000, 1020000), rank_row(1, 2490000, 150000, 2, 670000, 670000)},
              3, 1)},
      out);
  CHECK(value(out, "collective_wait_fraction") == Approx(650.0 / 4980));
  CHECK(value(out, "exposed_comm_fraction") == Approx(1690.0 / 4980));
  CHECK(value(out, "comm_overlap_fraction") == 0);
  CHECK(value(out, "straggler_step_share") == Approx(2.0 / 3));
}

TEST_CASE("rank indicators: null with the reason when the traces cannot give them", "[ranks][indicators]") {
  IndicatorSet none;
  extract::detail::rank_indicators({}, none);
  for (const char* key :
       {"collective_wait_fraction", "exposed_comm_fraction", "comm_overlap_fraction", "straggler_step_share"})
    CHECK_FALSE(none.at(key).value.has_value());

  IndicatorSet lone;  // one rank with NCCL kernels: its exposure counts, nobody waits for anybody
  extract::detail::rank_indicators({job_of(-1, {rank_row(0, 2000, 0, 0, 500, 100)}, 0, -1)}, lone);
  CHECK(value(lone, "exposed_comm_fraction") == Approx(0.05));
  CHECK(reason(lone, "collective_wait_fraction") == "no job of two or more ranks among the traces");
  CHECK(reason(lone, "straggler_step_share") == "no job of two or more ranks among the traces");

  IndicatorSet quiet;  // two ranks, no communication kernel, no step both ran
  extract::detail::rank_indicators({job_of(2, {rank_row(0, 1000, 0, 0, 0, 0), rank_row(1, 1000, 0, 0, 0, 0)}, 0, -1)},
                                   quiet);
  CHECK(reason(quiet, "exposed_comm_fraction") == "no communication kernel (NCCL, RCCL) in the traces");
  CHECK(value(quiet, "collective_wait_fraction") == 0);
  CHECK(reason(quiet, "straggler_step_share") == "no collective that every rank ran");
}

TEST_CASE("rank indicators: merge recomputes them, and not the waits of a job split over documents",
          "[ranks][indicators][merge]") {
  const auto doc = [](const std::string& host, std::int64_t from_s, std::vector<extract::TraceJob> jobs) {
    extract::Features f;
    f.host = host;
    f.from_ns = from_s * 1'000'000'000;
    f.to_ns = (from_s + 60) * 1'000'000'000;
    f.trace_jobs = std::move(jobs);
    return f;
  };
  auto whole = extract::merge_features({doc("a", 0, two_jobs()), doc("b", 0, {})});
  REQUIRE(whole.has_value());
  CHECK(whole->trace_jobs.size() == 2);
  CHECK(value(whole->host_indicators, "collective_wait_fraction") == Approx(100.0 / 2000));
  CHECK(value(whole->host_indicators, "straggler_step_share") == Approx(3.0 / 4));

  // Ranks 0-1 and 2-3 of one job of four, each host's trace job alone: the waits were matched
  // within each half only.
  auto half = [](int first) {
    return job_of(4, {rank_row(first, 1000, 50, 2, 100, 50), rank_row(first + 1, 1000, 0, 0, 100, 50)}, 2, first);
  };
  auto split = extract::merge_features({doc("a", 0, {half(0)}), doc("b", 0, {half(2)})});
  REQUIRE(split.has_value());
  CHECK(reason(split->host_indicators, "collective_wait_fraction").starts_with("not mergeable from summaries"));
  CHECK(reason(split->host_indicators, "straggler_step_share").starts_with("not mergeable from summaries"));
  CHECK(value(split->host_indicators, "exposed_comm_fraction") == Approx(200.0 / 4000));  // per rank: exact
  CHECK(value(split->host_indicators, "comm_overlap_fraction") == Approx(0.5));
}

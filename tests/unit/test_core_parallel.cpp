// core/parallel: -j's thread count and the loop that spreads independent items over threads.
#include <gpucost/core/parallel.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <vector>

using namespace gpucost;

TEST_CASE("parallel_for: every item once, on any number of threads", "[core][parallel]") {
  for (const unsigned jobs : {0U, 1U, 2U, 3U, 64U}) {
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      INFO("jobs " << jobs << ", items " << count);
      std::vector<std::atomic<int>> seen(count);
      parallel_for(jobs, count, [&](std::size_t i) { ++seen[i]; });
      for (std::size_t i = 0; i < count; ++i) CHECK(seen[i] == 1);
    }
  }
}

TEST_CASE("parallel_for: an item's exception reaches the caller after every thread stopped", "[core][parallel]") {
  for (const unsigned jobs : {1U, 4U}) {
    std::atomic<int> done{0};
    CHECK_THROWS_AS(parallel_for(jobs, 100,
                                 [&](std::size_t i) {
                                   if (i == 10) throw std::runtime_error("item 10");
                                   ++done;
                                 }),
                    std::runtime_error);
    CHECK(done < 100);
  }
}

TEST_CASE("default_jobs: GPUCOST_JOBS when it is a number from 1 to 1024, else the cores", "[core][parallel]") {
  CHECK(available_cores() >= 1);
  ::setenv("GPUCOST_JOBS", "3", 1);
  CHECK(default_jobs() == 3);
  for (const char* bad : {"0", "-2", "two", "3x", "5000", ""}) {
    INFO(bad);
    ::setenv("GPUCOST_JOBS", bad, 1);
    CHECK(default_jobs() == available_cores());
  }
  ::unsetenv("GPUCOST_JOBS");
  CHECK(default_jobs() == available_cores());
}

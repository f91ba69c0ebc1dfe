// extract: the sample store keeps memory bounded by writing sorted runs to a temporary file,
// and reads every GPU back in time order, ties in arrival order (a stable sort).
#include <gpucost/extract/sample_store.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

using gpucost::extract::Sample;
using gpucost::extract::SampleStore;

namespace {

std::vector<Sample> read_all(const SampleStore& store, int gpu, std::int64_t from = INT64_MIN, std::int64_t to = INT64_MAX) {
  std::vector<Sample> out;
  store.for_each(gpu, from, to, [&](const Sample& s) { out.push_back(s); });
  return out;
}

}  // namespace

TEST_CASE("sample store: spilled runs read back as a stable sort of the arrival order", "[extract][store]") {
  std::mt19937 rng(42);
  for (const std::size_t budget : {std::size_t{16}, std::size_t{100}, std::size_t{100000}}) {
    INFO("budget " << budget);
    SampleStore store(budget);
    std::vector<Sample> expected[3];
    for (int i = 0; i < 5000; ++i) {
      Sample s;
      const int gpu = static_cast<int>(rng() % 3);
      // Mostly increasing, with jumps back and many equal instants (power tells them apart).
      s.ts_ns = (i / 3) * 1'000'000'000LL - static_cast<std::int64_t>(rng() % 4 == 0 ? (rng() % 50) * 1'000'000'000LL : 0);
      s.power_w = i;
      store.add(gpu, s);
      expected[gpu].push_back(s);
    }
    CHECK(store.size() == 5000);
    CHECK(store.status());
    if (budget < 5000) CHECK(store.runs() > 0);
    else CHECK(store.runs() == 0);
    for (int gpu = 0; gpu < 3; ++gpu) {
      std::stable_sort(expected[gpu].begin(), expected[gpu].end(),
                       [](const Sample& a, const Sample& b) { return a.ts_ns < b.ts_ns; });
      const auto got = read_all(store, gpu);
      REQUIRE(got.size() == expected[gpu].size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        INFO("gpu " << gpu << " sample " << k);
        CHECK(got[k].ts_ns == expected[gpu][k].ts_ns);
        CHECK(got[k].power_w == expected[gpu][k].power_w);
      }
    }
    // A second read gives the same (the tail was sorted in place on the first).
    CHECK(read_all(store, 1).size() == expected[1].size());
  }
}

TEST_CASE("sample store: the window, the extremes and an unknown GPU", "[extract][store]") {
  SampleStore store(16);
  for (int t = 100; t >= 1; --t) {
    Sample s;
    s.ts_ns = t;
    store.add(0, s);
  }
  CHECK(store.min_ts() == 1);
  CHECK(store.max_ts() == 100);
  const auto w = read_all(store, 0, 10, 20);
  REQUIRE(w.size() == 11);
  CHECK(w.front().ts_ns == 10);
  CHECK(w.back().ts_ns == 20);
  CHECK(read_all(store, 7).empty());
  CHECK(store.gpus() == std::vector<int>{0});
}

TEST_CASE("sample store: without a writable TMPDIR it keeps the samples in memory and says so", "[extract][store]") {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/nonexistent/gpucost-test", 1);
  {
    SampleStore store(16);
    for (int t = 0; t < 100; ++t) {
      Sample s;
      s.ts_ns = t;
      store.add(0, s);
    }
    CHECK_FALSE(store.status());
    CHECK(store.status().error().message.find("cannot create a temporary file") != std::string::npos);
    CHECK(read_all(store, 0).size() == 100);  // nothing lost
  }
  if (old != nullptr) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
}

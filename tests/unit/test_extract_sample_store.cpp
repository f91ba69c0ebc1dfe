// extract: the sample store keeps memory bounded by writing sorted runs to a temporary file,
// and reads every GPU back in time order, ties in arrival order (a stable sort).
#include <gpucost/extract/sample_store.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

using gpucost::extract::Sample;
using gpucost::extract::SampleStore;

namespace {

std::vector<Sample> read_all(const SampleStore& store, int gpu, std::int64_t from = INT64_MIN,
                             std::int64_t to = INT64_MAX) {
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
      s.ts_ns =
          (i / 3) * 1'000'000'000LL - static_cast<std::int64_t>(rng() % 4 == 0 ? (rng() % 50) * 1'000'000'000LL : 0);
      s.power_w = i;
      store.add(gpu, s);
      expected[gpu].push_back(s);
    }
    CHECK(store.size() == 5000);
    CHECK(store.status());
    if (budget < 5000)
      CHECK(store.runs() > 0);
    else
      CHECK(store.runs() == 0);
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

TEST_CASE("sample store: the stores of several hosts spend one budget, each reads back whole", "[extract][store]") {
  // Budget 100 over three hosts' stores of 2 GPUs each: 3 x 2 x 400 samples, never more than
  // 100 held in memory together (before the budget was per store: 300).
  SampleStore first(100);
  std::vector<std::unique_ptr<SampleStore>> others;
  others.push_back(std::make_unique<SampleStore>(first.shared_budget()));
  others.push_back(std::make_unique<SampleStore>(first.shared_budget()));
  SampleStore* stores[3] = {&first, others[0].get(), others[1].get()};
  std::size_t most_held = 0;
  for (int i = 0; i < 400; ++i)
    for (SampleStore* store : stores)
      for (int gpu = 0; gpu < 2; ++gpu) {
        Sample s;
        s.ts_ns = (400 - i) * 1'000'000'000LL;  // arriving backwards: every read is a merge
        s.power_w = i;
        store->add(gpu, s);
        most_held = std::max(most_held, first.shared_budget()->in_memory);
      }
  CHECK(most_held <= 100);
  CHECK(first.shared_budget()->series == 6);
  for (SampleStore* store : stores) {
    CHECK(store->size() == 800);
    CHECK(store->runs() > 0);
    for (int gpu = 0; gpu < 2; ++gpu) {
      const auto got = read_all(*store, gpu);
      REQUIRE(got.size() == 400);
      CHECK(std::is_sorted(got.begin(), got.end(), [](const Sample& a, const Sample& b) { return a.ts_ns < b.ts_ns; }));
      CHECK(got.front().power_w == 399);
    }
  }
  others.clear();  // a store that goes gives back what it held
  CHECK(first.shared_budget()->series == 2);
  CHECK(first.shared_budget()->stores.size() == 1);
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
  if (old != nullptr)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

#include <gpucost/core/event.hpp>
#include <gpucost/extract/extract.hpp>

TEST_CASE("extract: a store that spills gives the same features document, byte for byte", "[extract][store]") {
  using namespace gpucost;
  // Three GPUs at 1 Hz for 40 minutes with a gap, sent in shuffled blocks (rotated logs given
  // out of order), with Xids and a hot stretch for the chain.
  std::mt19937 rng(7);
  std::vector<std::vector<Event>> blocks;
  for (int block = 0; block < 40; ++block) {
    std::vector<Event> b;
    for (int t = block * 60; t < block * 60 + 60; ++t) {
      if (t >= 900 && t < 960) continue;  // a gap
      for (int gpu = 0; gpu < 3; ++gpu) {
        Event ev;
        ev.ts_ns = t * 1'000'000'000LL + gpu * 1'000'000LL;
        ev.kind = "sample";
        ev.gpu = gpu;
        ev.set(Metric::power_w, 100 + static_cast<double>(rng() % 30000) / 100);
        ev.set(Metric::sm_pct, static_cast<double>(rng() % 101));
        ev.set(Metric::temp_c, t > 1200 && t < 1500 ? 85 : 60 + static_cast<double>(rng() % 10));
        if (t % 7 != 0) ev.set(Metric::pclk_mhz, 1400 + static_cast<double>(rng() % 300));
        b.push_back(ev);
      }
    }
    blocks.push_back(std::move(b));
  }
  std::shuffle(blocks.begin(), blocks.end(), rng);
  const auto features = [&](std::size_t budget) {
    extract::SampleCollector c(budget);
    for (const auto& b : blocks)
      for (const Event& ev : b) c.on_event(ev);
    for (const int t : {1250, 1300, 2000}) {
      Event x;
      x.ts_ns = t * 1'000'000'000LL;
      x.kind = "xid";
      x.add_text("bucket", "restart_app");
      c.on_event(x);
    }
    INFO("budget " << budget << ": " << c.store().runs() << " runs");
    if (budget < 1000) CHECK(c.store().runs() > 10);
    auto f = extract::compute_features(c, {});
    REQUIRE(f);
    return extract::features_to_json(*f);
  };
  const std::string in_memory = features(extract::SampleStore::kDefaultBudget);
  CHECK(features(64) == in_memory);
  CHECK(features(500) == in_memory);
}

TEST_CASE("extract: a reading beyond 10^12 is not a reading, so the document reads back (found by fuzzing)",
          "[extract]") {
  using namespace gpucost;
  extract::SampleCollector c;
  for (const std::int64_t t : {0, 1, 2}) {
    Event ev;
    ev.ts_ns = t * 1'000'000'000LL;
    ev.kind = "sample";
    ev.set(Metric::power_w, t == 1 ? 1e300 : 100);
    ev.set(Metric::mem_temp_c, 1e300);  // does not fit a float either
    c.on_event(ev);
  }
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(*f->gpus[0].indicators.at("power_max_w").value == 100);
  CHECK_FALSE(f->gpus[0].indicators.at("mem_temp_max_c").value.has_value());
  CHECK(extract::features_from_json(extract::features_to_json(*f), "f.json"));
}

TEST_CASE("extract: absurd clock readings still give a document that reads back (found by fuzzing)", "[extract]") {
  // Memory clocks of 2.61e10 MHz (below the 10^12 cut) make a sum of squares of 1.4e21, which
  // was written as 22 plain digits that the reader refused as an integer beyond 64 bits.
  using namespace gpucost;
  extract::SampleCollector c;
  for (const std::int64_t t : {0, 1, 2, 3}) {
    Event ev;
    ev.ts_ns = t * 1'000'000'000LL;
    ev.kind = "sample";
    ev.set(Metric::power_w, 100);
    ev.set(Metric::mclk_mhz, t == 2 ? 26100000000.0 : 2619);
    c.on_event(ev);
  }
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  const auto back = extract::features_from_json(extract::features_to_json(*f), "absurd.json");
  INFO((back ? std::string() : back.error().message));
  CHECK(back);
}

TEST_CASE("extract: large record buffers are 2 MiB-aligned (huge pages), small ones plain", "[extract][store]") {
  using gpucost::allocate_large_buffer;
  using gpucost::free_large_buffer;
  constexpr std::size_t kTwoMiB = std::size_t{2} << 20;
  for (const std::size_t bytes : {std::size_t{100}, kTwoMiB - 1, kTwoMiB, 3 * kTwoMiB + 17}) {
    INFO(bytes << " bytes");
    auto* p = static_cast<unsigned char*>(allocate_large_buffer(bytes));
    REQUIRE(p != nullptr);
    if (bytes >= kTwoMiB) CHECK(reinterpret_cast<std::uintptr_t>(p) % kTwoMiB == 0);
    std::fill(p, p + bytes, static_cast<unsigned char>(0xab));  // every byte is usable
    CHECK(p[bytes - 1] == 0xab);
    free_large_buffer(p, bytes);
  }
  // A vector on this allocator behaves as any other (the store's buffers grow and are swapped).
  std::vector<int, gpucost::LargeBufferAllocator<int>> v;
  for (int i = 0; i < 1'000'000; ++i) v.push_back(i);
  CHECK(v[999'999] == 999'999);
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % kTwoMiB == 0);
}

TEST_CASE("extract: a spilled series keeps its buffer while it never held more than its share, else frees it",
          "[extract][store]") {
  struct Rec {
    std::int64_t ts_ns = 0;
  };
  gpucost::extract::SpillFile file;
  gpucost::extract::SpillSeries<Rec> series;
  const auto fill = [&](int n) {
    for (int i = 0; i < n; ++i) series.add(Rec{i});
  };
  fill(50);
  REQUIRE(series.spill(file, 100));
  CHECK(series.sorted_tail().capacity() >= 50);  // kept: refilling it costs no page faults
  fill(150);
  REQUIRE(series.spill(file, 100));
  CHECK(series.sorted_tail().capacity() == 0);  // held 150 > 100: its memory goes back
  // A new buffer starts over: once it has held no more than the share, it is kept again (the
  // most a freed buffer held does not count against the next one).
  fill(10);
  REQUIRE(series.spill(file, 100));
  CHECK(series.sorted_tail().capacity() >= 10);
  CHECK(series.runs().size() == 3);
}

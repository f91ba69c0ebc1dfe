// extract: the mergeable quantile sketch (src/extract/quantile_sketch.cpp): exact quantiles by
// hand, the relative error of the buckets against exact quantiles, merge order, the bounds, its
// state's validation and its round trip through the features document.
#include <catch2/catch.hpp>

#include <gpucost/core/event.hpp>
#include <gpucost/extract/extract.hpp>

#include "extract/gpu_stats.hpp"
#include "extract/quantile_sketch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace gpucost;
using extract::detail::QuantileSketch;
using Pairs = std::vector<std::pair<double, double>>;

constexpr double kAlpha = QuantileSketch::kAlpha;

/// The exact weighted quantile, as extract computed it before the sketch (sort, cumulate).
double reference_quantile(Pairs vw, double q) {
  std::sort(vw.begin(), vw.end());
  double total = 0;
  for (const auto& [v, w] : vw) total += w;
  const double target = q * total * (1 - 1e-12);
  double acc = 0;
  std::size_t i = 0;
  while (i + 1 < vw.size() && acc + vw[i].second < target) acc += vw[i++].second;
  return vw[i].first;
}

QuantileSketch sketch_of(const Pairs& vw) {
  QuantileSketch s;
  for (const auto& [v, w] : vw) s.add(v, w);
  return s;
}

bool same_state(const QuantileSketch& a, const QuantileSketch& b) {
  const auto x = a.state(), y = b.state();
  return x.exact == y.exact && x.values == y.values && x.min == y.min && x.max == y.max && x.zero == y.zero &&
         x.positive == y.positive && x.negative == y.negative;
}

void check_within_alpha(const QuantileSketch& s, const Pairs& vw) {
  for (const double q : {0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99}) {
    const double exact = reference_quantile(vw, q);
    const double got = s.quantiles({q})[0];
    INFO("q " << q << " exact " << exact << " sketch " << got);
    CHECK(std::abs(got - exact) <= kAlpha * std::abs(exact) * (1 + 1e-9));
  }
}

}  // namespace

TEST_CASE("quantile sketch: exact mode gives the weighted quantiles and medians by hand", "[extract][sketch]") {
  QuantileSketch s;
  CHECK(s.empty());
  CHECK(std::isnan(s.quantiles({0.5})[0]));
  CHECK(std::isnan(s.median()));
  // Weights 100 W: 1 + 1 s, 200 W: 1 + 1 + 1 s (the reference series): p50 reaches 2.5 s at 200.
  for (const auto& [v, w] : Pairs{{100, 1}, {200, 1}, {200, 1}, {100, 1}, {200, 1}}) s.add(v, w);
  CHECK(s.exact());
  CHECK(s.total_weight() == 5);
  const auto q = s.quantiles({0.0, 0.4, 0.5, 0.95, 1.0});
  CHECK(q == std::vector<double>{100, 100, 200, 200, 200});
  // 19 s of 20 s is exactly 95 %: the boundary does not tip to the next value on rounding.
  QuantileSketch b;
  b.add(100, 19);
  b.add(500, 1);
  CHECK(b.quantiles({0.95})[0] == 100);
  CHECK(b.quantiles({0.96})[0] == 500);
  // Medians with unit weights: the middle value, or the mean of the two middle ones.
  QuantileSketch odd, even, repeated;
  for (double v : {3.0, 1.0, 2.0}) odd.add(v);
  for (double v : {4.0, 1.0, 3.0, 2.0}) even.add(v);
  for (double v : {4.0, 4.0, 25.0, 4.0}) repeated.add(v);
  CHECK(odd.median() == 2);
  CHECK(even.median() == 2.5);
  CHECK(repeated.median() == 4);
  // Zero and negative values keep their place; a non-finite value or weight is ignored.
  QuantileSketch signs;
  for (double v : {-2.0, 0.0, 0.0, 5.0}) signs.add(v);
  signs.add(std::nan(""));
  signs.add(INFINITY);
  signs.add(7, 0);
  signs.add(7, -1);
  signs.add(7, INFINITY);
  CHECK(signs.total_weight() == 4);
  CHECK(signs.quantiles({0.25, 0.5, 1.0}) == std::vector<double>{-2, 0, 5});
  CHECK(signs.median() == 0);
}

TEST_CASE("quantile sketch: exact up to the cap, then buckets within alpha", "[extract][sketch]") {
  QuantileSketch s;
  for (std::size_t i = 0; i < QuantileSketch::kExactCap; ++i) s.add(100 + static_cast<double>(i) / 8);
  CHECK(s.exact());
  s.add(100);  // a value it already has: still exact
  CHECK(s.exact());
  s.add(99.5);
  CHECK_FALSE(s.exact());
  CHECK(s.min() == 99.5);
  CHECK(s.max() == 100 + 2047.0 / 8);
  // Bucket values: within alpha of every value of the bucket.
  for (double v : {1e-3, 0.37, 1.0, 99.99, 250.0, 1e6}) {
    const double rep = QuantileSketch::bucket_value(QuantileSketch::bucket_index(v));
    CHECK(std::abs(rep - v) <= kAlpha * v * (1 + 1e-12));
  }
}

TEST_CASE("quantile sketch: bucket quantiles are within alpha of the exact ones", "[extract][sketch]") {
  std::mt19937_64 rng(20240612);
  std::uniform_real_distribution<double> weight(0.5, 2.0);
  const auto check = [&](const char* name, auto&& draw) {
    INFO(name);
    Pairs vw;
    for (int i = 0; i < 20000; ++i) vw.emplace_back(draw(), weight(rng));
    const QuantileSketch s = sketch_of(vw);
    REQUIRE_FALSE(s.exact());
    check_within_alpha(s, vw);
    // The median of unit weights, too.
    Pairs unit = vw;
    for (auto& [v, w] : unit) w = 1;
    std::vector<double> sorted;
    for (const auto& [v, w] : unit) sorted.push_back(v);
    std::sort(sorted.begin(), sorted.end());
    const double exact = (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
    CHECK(std::abs(sketch_of(unit).median() - exact) <= kAlpha * std::abs(exact) * (1 + 1e-9));
  };
  std::uniform_real_distribution<double> power(20, 450);
  std::lognormal_distribution<double> interval(0, 0.8);
  std::exponential_distribution<double> util(0.05);
  std::normal_distribution<double> around_zero(0, 30);
  check("uniform power", [&] { return power(rng); });
  check("lognormal intervals", [&] { return interval(rng); });
  check("exponential, many at 0", [&] { return std::max(0.0, util(rng) - 10); });
  check("both signs", [&] { return around_zero(rng); });
}

TEST_CASE("quantile sketch: merge is independent of the order", "[extract][sketch]") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> whole(0, 300);
  std::uniform_real_distribution<double> fine(-50, 500);
  Pairs small, large, other;  // integer weights: sums are exact in any order
  for (int i = 0; i < 500; ++i) small.emplace_back(whole(rng), 1 + i % 3);
  for (int i = 0; i < 5000; ++i) large.emplace_back(fine(rng), 1 + i % 5);
  for (int i = 0; i < 300; ++i) other.emplace_back(whole(rng) * 2.5, 2);
  const QuantileSketch a = sketch_of(small), b = sketch_of(large), c = sketch_of(other);
  REQUIRE(a.exact());
  REQUIRE_FALSE(b.exact());
  REQUIRE(c.exact());

  // Exact with exact: exact while the union fits, and the same as one sketch of everything.
  QuantileSketch ac = a;
  ac.merge(c);
  Pairs a_and_c = small;
  a_and_c.insert(a_and_c.end(), other.begin(), other.end());
  CHECK(ac.exact());
  CHECK(same_state(ac, sketch_of(a_and_c)));
  QuantileSketch ca = c;
  ca.merge(a);
  CHECK(same_state(ac, ca));

  // With buckets: every order gives the same buckets, and the same as adding every value.
  Pairs all = a_and_c;
  all.insert(all.end(), large.begin(), large.end());
  const QuantileSketch direct = sketch_of(all);
  const std::vector<std::vector<const QuantileSketch*>> orders = {
      {&a, &b, &c}, {&c, &b, &a}, {&b, &a, &c}, {&b, &c, &a}};
  for (const auto& order : orders) {
    QuantileSketch m;
    for (const QuantileSketch* part : order) m.merge(*part);
    CHECK_FALSE(m.exact());
    CHECK(same_state(m, direct));
  }
  QuantileSketch grouped = b;  // b + (c + a)
  QuantileSketch ca2 = c;
  ca2.merge(a);
  grouped.merge(ca2);
  CHECK(same_state(grouped, direct));
  check_within_alpha(direct, all);

  // Two exact halves whose union passes the cap turn into the buckets of the whole.
  Pairs first, second;
  for (int i = 0; i < 1500; ++i) first.emplace_back(100 + i * 0.01, 1);
  for (int i = 0; i < 1500; ++i) second.emplace_back(200 + i * 0.01, 1);
  QuantileSketch halves = sketch_of(first);
  halves.merge(sketch_of(second));
  first.insert(first.end(), second.begin(), second.end());
  CHECK_FALSE(halves.exact());
  CHECK(same_state(halves, sketch_of(first)));
}

TEST_CASE("quantile sketch: at most kMaxBuckets per sign, the smallest magnitudes fold", "[extract][sketch]") {
  QuantileSketch s;
  for (int i = 0; i < 3000; ++i) s.add(100 + i * 0.1);  // buckets
  s.add(1e-200);                                        // far below: folds into the lowest kept bucket
  s.add(1e200, 1);
  s.add(-1e-200);
  s.add(-1e200);
  const auto st = s.state();
  REQUIRE_FALSE(st.exact);
  CHECK(st.positive.back().first - st.positive.front().first < QuantileSketch::kMaxBuckets);
  CHECK(st.negative.back().first - st.negative.front().first < QuantileSketch::kMaxBuckets);
  // The top keeps its accuracy; quantiles stay within [min, max] and in order.
  const auto q = s.quantiles({0.0, 0.5, 1.0});
  CHECK(q[0] == -1e200);
  CHECK(std::abs(q[2] - 1e200) <= kAlpha * 1e200);
  CHECK(q[1] > 0);
  CHECK(s.min() == -1e200);
  // Folding does not depend on the order the values came in.
  QuantileSketch reversed;
  for (double v : {-1e200, -1e-200, 1e200, 1e-200}) reversed.add(v);
  for (int i = 2999; i >= 0; --i) reversed.add(100 + i * 0.1);
  CHECK(same_state(s, reversed));
}

TEST_CASE("quantile sketch: state round trip and validation", "[extract][sketch]") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> d(100, 40);
  Pairs vw;
  for (int i = 0; i < 4000; ++i) vw.emplace_back(i % 10 == 0 ? 0.0 : d(rng), 0.5 + i % 4);
  for (const QuantileSketch& s : {sketch_of(vw), sketch_of(Pairs{{1, 2}, {3.5, 1}})}) {
    auto back = QuantileSketch::from_state(s.state(), "test");
    REQUIRE(back.has_value());
    CHECK(same_state(*back, s));
    CHECK(back->quantiles({0.5, 0.95}) == s.quantiles({0.5, 0.95}));
  }
  const auto fails = [](const QuantileSketch::State& st, const std::string& why) {
    auto r = QuantileSketch::from_state(st, "doc.json: sketch");
    REQUIRE_FALSE(r.has_value());
    INFO(r.error().message);
    CHECK(r.error().message.find(why) != std::string::npos);
    CHECK(r.error().kind == ErrorKind::schema);
  };
  QuantileSketch::State st;
  st.values = {{2, 1}, {1, 1}};
  fails(st, "not strictly ascending");
  st.values = {{1, 1}, {2, -1}};
  fails(st, "weight");
  st.values = {{1, 1}, {INFINITY, 1}};
  fails(st, "finite");
  st.values = {{1, 1e16}};
  fails(st, "total weight");
  st.values.assign(QuantileSketch::kExactCap + 1, {1, 1});
  fails(st, "more than 2048");
  QuantileSketch::State b;
  b.exact = false;
  b.min = 1;
  b.max = 10;
  b.positive = {{0, 1}, {QuantileSketch::kMaxBuckets, 1}};
  fails(b, "span more than");
  b.positive = {{5, 1}, {3, 1}};
  fails(b, "not strictly ascending");
  b.positive = {{1 << 29, 1}};
  fails(b, "outside the range");
  b.positive = {{5, 1}};
  b.min = 20;
  fails(b, "min <= max");
  b.min = 1;
  b.negative = {{5, 1}};
  fails(b, "signs");
  b.negative.clear();
  b.positive.clear();
  fails(b, "no weight");
  b.zero = NAN;
  fails(b, "zeros");
}

namespace {

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;

/// Two GPUs, a sample every 2 s each: 3000 distinct power values (buckets), integer
/// temperatures and utilisation (exact).
extract::Features features_with_sketches() {
  extract::SampleCollector c;
  for (int t = 0; t < 6000; ++t) {
    Event ev;
    ev.ts_ns = kT0 + t * 1'000'000'000LL;
    ev.kind = "sample";
    ev.gpu = t % 2;
    ev.host = "node1";
    ev.set(Metric::power_w, 100 + 0.01 * ((t * 7919) % 30011));
    ev.set(Metric::temp_c, 60 + t % 20);
    if (t % 3 != 0) ev.set(Metric::sm_pct, t % 101);
    c.on_event(ev);
  }
  auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  return *f;
}

}  // namespace

TEST_CASE("quantile sketch: the features document carries the sketches and reads them back", "[extract][sketch]") {
  const extract::Features f = features_with_sketches();
  REQUIRE(f.gpus.size() == 2);
  const auto& sk = *f.gpus[0].sketches;
  CHECK_FALSE(sk.held[0].exact());  // power
  CHECK(sk.held[2].exact());        // temperature
  CHECK(sk.intervals.exact());
  const std::string text = extract::features_to_json(f);
  CHECK(text.find("\"sketches\": {") != std::string::npos);
  CHECK(text.find("\"alpha\": 0.005") != std::string::npos);
  auto back = extract::features_from_json(text, "f.json");
  REQUIRE(back.has_value());
  for (std::size_t g = 0; g < 2; ++g) {
    REQUIRE(back->gpus[g].sketches != nullptr);
    const auto& a = *f.gpus[g].sketches;
    const auto& b = *back->gpus[g].sketches;
    for (std::size_t i = 0; i < extract::detail::kQuantiledCount; ++i) {
      CHECK(same_state(a.held[i], b.held[i]));
      CHECK(same_state(a.plain[i], b.plain[i]));
    }
    CHECK(same_state(a.intervals, b.intervals));
  }
  // Deterministic: written again, byte for byte the same.
  CHECK(extract::features_to_json(*back) == text);
}

TEST_CASE("quantile sketch: a hostile sketch in a document is a clear error", "[extract][sketch][fuzz]") {
  const std::string text = extract::features_to_json(features_with_sketches());
  const std::size_t at = text.find("\"temp_c\": {\"exact\": ");
  REQUIRE(at != std::string::npos);
  const std::size_t end = text.find('\n', at);
  const auto with = [&](const std::string& sketch) {
    std::string t = text;
    t.replace(at, end - at - (text[end - 1] == ',' ? 1 : 0), "\"temp_c\": " + sketch);
    return extract::features_from_json(t, "bad.json");
  };
  for (const auto& [sketch, why] : std::vector<std::pair<std::string, std::string>>{
           {"{\"exact\": [[1, 1], [1, 2]]}", "not strictly ascending"},
           {"{\"exact\": [[1, -3]]}", "weight"},
           {"{\"exact\": [[1]]}", "pair"},
           {"{\"exact\": \"x\"}", "not an array"},
           {"[1, 2]", "not an object"},
           {"{\"alpha\": 0.01, \"min\": 1, \"max\": 2, \"zero\": 0, \"positive\": [], \"negative\": []}",
            "relative accuracy"},
           {"{\"alpha\": 0.005, \"min\": 1, \"max\": 2, \"zero\": 0, \"positive\": [[1e12, 1]], \"negative\": []}",
            "bucket index"},
           {"{\"alpha\": 0.005, \"min\": 1, \"max\": 2, \"zero\": 0, \"positive\": [[1.5, 1]], \"negative\": []}",
            "bucket index"},
           {"{\"alpha\": 0.005, \"max\": 2, \"zero\": 0, \"positive\": [[1, 1]], \"negative\": []}",
            "min, max or zero"},
           {"{\"alpha\": 0.005, \"min\": 1, \"max\": 2, \"zero\": 0, \"positive\": [[1, 1]]}",
            "'negative' is not an array"}}) {
    INFO(sketch);
    auto r = with(sketch);
    REQUIRE_FALSE(r.has_value());
    INFO(r.error().message);
    CHECK(r.error().message.find("bad.json: GPU 0: sketch 'temp_c'") == 0);
    CHECK(r.error().message.find(why) != std::string::npos);
  }
  // A document without sketches (written before them) still reads; merge then reports the
  // quantiles null.
  std::string old = text;
  for (std::size_t s; (s = old.find(",\n      \"sketches\": {")) != std::string::npos;)
    old.erase(s, old.find("\n      }", s) + 8 - s);
  auto back = extract::features_from_json(old, "old.json");
  REQUIRE(back.has_value());
  CHECK(back->gpus[0].sketches == nullptr);
  extract::Features later = *back;
  const std::int64_t shift = later.to_ns - later.from_ns + 1'000'000'000LL;
  later.from_ns += shift;
  later.to_ns += shift;
  for (auto& g : later.gpus) {
    g.first->ts_ns += shift;
    g.last->ts_ns += shift;
  }
  auto merged = extract::merge_features({*back, later});
  REQUIRE(merged.has_value());
  CHECK(merged->gpus[0].indicators.at("power_p95_w").reason == "not mergeable from summaries");
  CHECK(merged->gpus[0].indicators.at("sample_interval_median_s").value == 2.0);  // the same in both
}

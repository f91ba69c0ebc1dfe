// extract: kernel and system incidents in bounded memory (the incident store spills sorted runs
// like the sample store), the same features whatever the budget, and bursts listed once with
// their count, each incident still priced.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/extract/incident_store.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace gpucost;
constexpr std::int64_t kSec = 1'000'000'000;

struct Arrival {
  std::int64_t ts;
  std::string kind, detail;
  int code;
};

void incident(extract::SampleCollector& c, std::int64_t ts_ns, const char* kind, const char* key = nullptr,
              const char* value = nullptr, int code = -1) {
  Event ev;
  ev.ts_ns = ts_ns;
  ev.kind = kind;
  if (key != nullptr) ev.add_text(key, value);
  if (code >= 0) ev.add_text("code", std::to_string(code), true);
  c.on_event(ev);
}

/// GPU 0 at 1 Hz from 0 to `last_s` at 200 W, its utilisation `util(t)` %.
template <typename Util>
void samples_1hz(extract::SampleCollector& c, std::int64_t last_s, Util util) {
  for (std::int64_t t = 0; t <= last_s; ++t) {
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "sample";
    ev.set(Metric::power_w, 200);
    ev.set(Metric::sm_pct, util(t));
    c.on_event(ev);
  }
}

}  // namespace

TEST_CASE("incident store: spilled runs read back as a stable sort of the arrival order", "[extract][store]") {
  std::mt19937 rng(3);
  const char* kinds[] = {"xid", "aer", "suspend", "lid"};
  const char* details[] = {"restart_app", "corrected", "", "closed", "open"};
  for (const std::size_t budget : {std::size_t{16}, std::size_t{300}, std::size_t{1} << 16}) {
    INFO("budget " << budget);
    extract::IncidentStore store(budget);
    std::vector<Arrival> expected;
    for (int i = 0; i < 4000; ++i) {
      // Mostly increasing, with jumps back (rotated logs out of order) and many equal instants.
      const std::int64_t ts = (i / 4) * kSec - static_cast<std::int64_t>(rng() % 5 == 0 ? (rng() % 60) * kSec : 0);
      Arrival e{ts, kinds[rng() % 4], details[rng() % 5], i};
      store.add(e.ts, event_kind_from_name(e.kind), e.detail, e.code);
      expected.push_back(e);
    }
    CHECK(store.size() == 4000);
    CHECK(store.status());
    if (budget < 4000)
      CHECK(store.runs() > 5);
    else
      CHECK(store.runs() == 0);
    std::stable_sort(expected.begin(), expected.end(), [](const Arrival& a, const Arrival& b) { return a.ts < b.ts; });
    std::size_t k = 0;
    bool same = true;
    store.for_each([&](const extract::Incident& i) {
      same = same && k < expected.size() && i.ts_ns == expected[k].ts && event_kind_name(i.kind) == expected[k].kind &&
             i.detail == expected[k].detail && i.code == expected[k].code;
      ++k;
    });
    CHECK(k == expected.size());
    CHECK(same);
  }
}

TEST_CASE("incident store: distinct strings are bounded", "[extract][store]") {
  extract::IncidentStore store;
  for (std::size_t i = 0; i < extract::IncidentStore::kMaxNames + 10; ++i)
    store.add(static_cast<std::int64_t>(i), EventKind::lid, "state-" + std::to_string(i), -1);
  std::string_view last;
  std::size_t n = 0;
  store.for_each([&](const extract::Incident& i) {
    last = i.detail;
    ++n;
  });
  CHECK(n == extract::IncidentStore::kMaxNames + 10);
  CHECK(last == extract::IncidentStore::kTooManyNames);
}

TEST_CASE("extract: the same features whether the incidents spill or not", "[extract][store]") {
  // Two GPUs at 1 Hz for an hour, hot stretches for the chain; an AER storm (many at one
  // instant), Xid bursts, suspends seen by several layers, lid, AC and driver events, given in
  // shuffled blocks as rotated logs are.
  std::mt19937 rng(11);
  std::vector<Event> samples;
  for (std::int64_t t = 0; t < 3600; ++t)
    for (int gpu = 0; gpu < 2; ++gpu) {
      Event ev;
      ev.ts_ns = t * kSec + gpu;
      ev.kind = "sample";
      ev.gpu = gpu;
      ev.set(Metric::power_w, 150 + static_cast<double>(rng() % 200));
      ev.set(Metric::sm_pct, (t / 300) % 4 == 3 ? 0 : static_cast<double>(rng() % 101));
      ev.set(Metric::temp_c, (t / 200) % 3 == 2 ? 84 : 65 + static_cast<double>(rng() % 8));
      samples.push_back(ev);
    }
  const auto features = [&](std::size_t incident_budget) {
    extract::SampleCollector c(extract::SampleStore::kDefaultBudget, incident_budget);
    for (const Event& ev : samples) c.on_event(ev);
    std::mt19937 order(5);
    std::vector<int> blocks(12);
    for (int b = 0; b < 12; ++b) blocks[static_cast<std::size_t>(b)] = b;
    std::shuffle(blocks.begin(), blocks.end(), order);
    for (const int b : blocks) {  // 5 minutes each
      const std::int64_t t0 = b * 300;
      for (int k = 0; k < 40; ++k) incident(c, (t0 + 100) * kSec, "aer", "severity", "corrected");
      for (int k = 0; k < 7; ++k) incident(c, (t0 + 130 + k * 5) * kSec + k, "xid", "bucket", "restart_app", 13);
      incident(c, (t0 + 140) * kSec, "thermal", "state", "hot");
      incident(c, (t0 + 150) * kSec, "modeset");
      if (b % 3 == 0) {
        incident(c, (t0 + 200) * kSec, "suspend");
        incident(c, (t0 + 201) * kSec, "suspend");  // another layer
        incident(c, (t0 + 260) * kSec, "resume");
        incident(c, (t0 + 210) * kSec, "lid", "state", "closed");
        incident(c, (t0 + 262) * kSec, "lid", "state", "open");
      }
      incident(c, (t0 + 20) * kSec, "power_source", "state", b % 2 == 0 ? "offline" : "online");
      if (b == 7) {
        incident(c, (t0 + 50) * kSec, "gpu_lost");
        incident(c, (t0 + 170) * kSec, "boot");
        incident(c, (t0 + 180) * kSec, "driver", "action", "load");
      }
    }
    INFO("incident budget " << incident_budget << ": " << c.incidents().runs() << " runs");
    if (incident_budget < 50) CHECK(c.incidents().runs() > 10);
    auto f = extract::compute_features(c, {});
    REQUIRE(f);
    return extract::features_to_json(*f);
  };
  const std::string in_memory = features(extract::IncidentStore::kDefaultBudget);
  CHECK(in_memory.find("\"count\": 7") != std::string::npos);  // each Xid burst is one entry
  CHECK(features(16) == in_memory);
  CHECK(features(97) == in_memory);
}

TEST_CASE("extract: a burst of incidents is one entry with its count and the union of its downtimes",
          "[extract][incidents]") {
  extract::SampleCollector c;
  // GPU 0 at 1 Hz, t = 0..300 s; idle (0 %) for 10 <= t < 20 and 100 <= t < 130, else busy.
  samples_1hz(c, 300, [](std::int64_t t) { return (t >= 10 && t < 20) || (t >= 100 && t < 130) ? 0 : 90; });
  // Xid 13 at 12, 15, 50 and 105 s: each within 60 s of the one before, one burst of 4. Its
  // members' downtimes: [12, 20), [15, 20), [50, 51), [105, 130): a union of 8 + 1 + 25 = 34 s.
  for (const std::int64_t t : {12, 15, 50, 105}) incident(c, t * kSec, "xid", "bucket", "restart_app", 13);
  incident(c, 200 * kSec, "xid", "bucket", "restart_app", 13);  // 95 s after: a burst of its own
  incident(c, 106 * kSec, "xid", "bucket", "reset_gpu", 79);    // another code: its own entry
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  REQUIRE(f->incidents.size() == 3);
  const auto& burst = f->incidents[0];
  CHECK(burst.code == 13);
  CHECK(burst.count == 4);
  CHECK(burst.ts_ns == 12 * kSec);
  CHECK(burst.last_ts_ns == 105 * kSec);
  REQUIRE(burst.downtime_s);
  CHECK(*burst.downtime_s == Approx(34.0));
  CHECK(f->incidents[1].code == 79);
  CHECK(f->incidents[1].count == 1);
  CHECK(*f->incidents[1].downtime_s == Approx(24.0));  // 106 .. 130
  CHECK(f->incidents[2].count == 1);
  CHECK(f->incidents[2].ts_ns == 200 * kSec);
  CHECK(*f->incidents[2].downtime_s == Approx(1.0));
  CHECK_FALSE(f->incidents[2].downtime_to_end);
  // The host's downtime is the union over every incident, as before bursts: 8 + 1 + 25 + 1.
  CHECK(*f->host_indicators.at("downtime_s").value == Approx(35.0));
  CHECK(*f->host_indicators.at("xid_count").value == 6);

  // The document round trip keeps the burst and the faults. The faults (docs/cost-model.md,
  // "Faults"): the four Xid 13 and the Xid 79 at 106 s (within 60 s of 105 s; the events name
  // no GPU: the host's) are one, priced once at its worst bucket, reset_gpu; its downtime the
  // union [12, 20) + [50, 51) + [105, 130) = 34 s. The Xid 13 at 200 s is a fault of its own.
  const auto back = extract::features_from_json(extract::features_to_json(*f), "burst.json");
  REQUIRE(back);
  REQUIRE(back->incidents.size() == 3);
  CHECK(back->incidents[0].count == 4);
  CHECK(back->incidents[0].last_ts_ns == 105 * kSec);
  REQUIRE(back->faults.size() == 2);
  CHECK(back->faults[0].count == 5);
  CHECK(back->faults[0].bucket == "reset_gpu");
  CHECK(*back->faults[0].downtime_s == Approx(34.0));
  CHECK(back->faults[0].downtime_end_ns == 130 * kSec);
  CHECK(extract::fault_members_text(back->faults[0]) == "Xid 13 \u00d74 then Xid 79");
  breakeven::CostConfig config;
  config.hourly_wage = 50;
  config.incident_restart_app_h = 0.1;
  config.incident_reset_gpu_h = 0.5;
  breakeven::JobInputs job;
  job.wall_h = 300.0 / 3600;
  job.incidents = back->incidents;
  job.faults = back->faults;
  const auto r = breakeven::evaluate(config, job, {});
  REQUIRE(r.incidents.size() == 2);
  CHECK(r.incidents[0].hours == Approx(0.5));  // once, not 4 x 0.1 + 0.5 h
  CHECK(r.incidents[0].cost == Approx(25.0));
  CHECK(r.incidents[1].cost == Approx(5.0));
}

TEST_CASE("extract: an incidents[] entry with a count needs its last time", "[extract][incidents]") {
  extract::SampleCollector c;
  samples_1hz(c, 10, [](std::int64_t) { return 90; });
  incident(c, 5 * kSec, "xid", "bucket", "restart_app", 13);
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  const std::string doc = extract::features_to_json(*f);
  const std::size_t list = doc.find("\"incidents\": [");
  REQUIRE(list != std::string::npos);
  const std::size_t end = doc.find(']', list);
  const auto with_entry = [&](const std::string& entry) {
    return extract::features_from_json(doc.substr(0, list) + "\"incidents\": [" + entry + doc.substr(end), "t.json");
  };
  REQUIRE(with_entry(
      R"({"ts_ns": 5000000000, "kind": "xid", "bucket": "restart_app", "code": 13, "count": 1, "downtime_s": 1})"));
  // A document written before bursts: one incident per entry, no count.
  const auto old =
      with_entry(R"({"ts_ns": 5000000000, "kind": "xid", "bucket": "restart_app", "code": 13, "downtime_s": 2})");
  REQUIRE(old);
  REQUIRE(old->incidents.size() == 1);
  CHECK(old->incidents[0].count == 1);
  CHECK_FALSE(old->incidents[0].downtime_to_end);  // 5 s + 2 s is before the window end, 10 s
  const auto old_to_end = with_entry(R"({"ts_ns": 5000000000, "kind": "xid", "downtime_s": 5})");
  REQUIRE(old_to_end);
  CHECK(old_to_end->incidents[0].downtime_to_end);
  const auto burst = with_entry(R"({"ts_ns": 5000000000, "kind": "xid", "count": 3, "last_ts_ns": 7000000000})");
  REQUIRE(burst);
  CHECK(burst->incidents[0].count == 3);
  CHECK_FALSE(with_entry(R"({"ts_ns": 5000000000, "kind": "xid", "count": 3})"));
  CHECK_FALSE(with_entry(R"({"ts_ns": 5000000000, "kind": "xid", "count": 3, "last_ts_ns": 4000000000})"));
  CHECK_FALSE(with_entry(R"({"ts_ns": 5000000000, "kind": "xid", "count": 0})"));
  // An absurd downtime in an earlier document: no overflow (UBSan, found by fuzzing), it runs
  // to the window end.
  const auto absurd = with_entry(R"({"ts_ns": 5000000000, "kind": "xid", "downtime_s": 7.8e124})");
  REQUIRE(absurd);
  CHECK(absurd->incidents[0].downtime_to_end);
}

TEST_CASE("extract: the utilisation after the last error counts its first sample", "[extract][chain]") {
  // GPU 0 at 1 Hz, t = 0..100 s: utilisation 100 % before t = 91, 0 % at 91, 50 % after. An Xid
  // at 90.5 s: before [77.8, 90.5) 13 samples at 100 %; after (90.5, 103.2] 91..100, ten
  // samples, (0 + 9 x 50) / 10 = 45 %: the ratio 0.45 (reading the samples streamed, the one at
  // 91 s was once left out of the last error's window, giving 0.5).
  extract::SampleCollector c;
  samples_1hz(c, 100, [](std::int64_t t) { return t < 91 ? 100 : t == 91 ? 0 : 50; });
  incident(c, 90 * kSec + kSec / 2, "xid", "bucket", "restart_app", 13);
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(*f->host_indicators.at("error_util_drop_ratio").value == Approx(0.45));
}

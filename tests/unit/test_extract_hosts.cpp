// A job on several nodes in one run: telemetry samples that name several hosts are priced host by
// host, a GPU being its host and index, read one by one or in chunks (prep -j); the document equals
// the merge of one extract per host.
#include <catch2/catch.hpp>

#include <gpucost/core/event.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/extract/features.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace gpucost;

Event sample(const char* host, int gpu, std::int64_t ts_ns, double power_w = 300) {
  Event ev;
  ev.ts_ns = ts_ns;
  ev.source = "prometheus";
  ev.host = host;
  ev.gpu = gpu;
  ev.kind = "sample";
  ev.set(Metric::power_w, power_w);
  ev.set(Metric::sm_pct, 50);
  return ev;
}

Event xid(const char* host, std::int64_t ts_ns, int code) {
  Event ev;
  ev.ts_ns = ts_ns;
  ev.source = "kern.log";
  ev.host = host;
  ev.kind = "xid";
  ev.add_number("code", code);
  ev.add_text("bucket", "app");
  ev.add_text("pci", "0000:07:00");
  return ev;
}

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kStep = 15'000'000'000;

double value(const extract::IndicatorSet& set, const char* key) {
  const auto v = extract::value_of(set, extract::IndicatorKey::of(key));
  REQUIRE(v.has_value());
  return *v;
}

/// The hosts' samples: node0K's GPU g draws 100 + 10 K + g W, `steps` samples 15 s apart.
void feed_hosts(EventSink& sink, const std::vector<const char*>& hosts, int gpus, int steps) {
  for (int k = 0; k < steps; ++k)
    for (std::size_t h = 0; h < hosts.size(); ++h)
      for (int g = 0; g < gpus; ++g)
        sink.on_event(sample(hosts[h], g, kT0 + k * kStep, 100.0 + 10.0 * static_cast<double>(h) + g));
}

}  // namespace

TEST_CASE("extract: two hosts' GPU 0 are two GPUs, each with its own host and energy", "[extract][hosts]") {
  extract::SampleCollector c;
  feed_hosts(c, {"node01", "node02"}, 1, 5);
  const auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  CHECK(f->host == "node01,node02");
  REQUIRE(f->gpus.size() == 2);
  CHECK(f->gpus[0].host == "node01");
  CHECK(f->gpus[1].host == "node02");
  CHECK(f->gpus[0].gpu == 0);
  CHECK(f->gpus[1].gpu == 0);
  // 60 s of samples at 100 W and 110 W: 6000 J and 6600 J, the host's their sum.
  CHECK(value(f->gpus[0].indicators, "energy_kwh") == Approx(6000.0 / 3.6e6));
  CHECK(value(f->gpus[1].indicators, "energy_kwh") == Approx(6600.0 / 3.6e6));
  CHECK(value(f->host_indicators, "energy_kwh") == Approx(12600.0 / 3.6e6));
  CHECK(f->merged_from == 1);  // one run, not a merge of documents
  CHECK(f->chosen_by == "samples");
}

TEST_CASE("extract: four hosts in one run equal the merge of one extract per host", "[extract][hosts]") {
  const std::vector<const char*> hosts{"node01", "node02", "node03", "node04"};
  extract::SampleCollector all;
  feed_hosts(all, hosts, 2, 9);
  all.on_event(xid("node03", kT0 + 3 * kStep, 13));
  const auto one_run = extract::compute_features(all, {});
  REQUIRE(one_run.has_value());

  std::vector<extract::Features> docs;
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    extract::SampleCollector one;
    for (int k = 0; k < 9; ++k)
      for (int g = 0; g < 2; ++g)
        one.on_event(sample(hosts[h], g, kT0 + k * kStep, 100.0 + 10.0 * static_cast<double>(h) + g));
    if (h == 2) one.on_event(xid("node03", kT0 + 3 * kStep, 13));
    auto f = extract::compute_features(one, {});
    REQUIRE(f.has_value());
    docs.push_back(std::move(*f));
  }
  auto merged = extract::merge_features(std::move(docs));
  REQUIRE(merged.has_value());
  merged->merged_from = 1;
  merged->chosen_by = "samples";
  CHECK(extract::features_to_json(*one_run) == extract::features_to_json(*merged));
  REQUIRE(one_run->gpus.size() == 8);
  CHECK(one_run->gpus[7].host == "node04");
  CHECK(one_run->gpus[7].gpu == 1);
  // The Xid is node03's: one fault, of that host.
  REQUIRE(one_run->faults.size() == 1);
  CHECK(one_run->faults[0].host == "node03");
}

TEST_CASE("extract: a second host inside one chunk (prep -j) is routed at the join", "[extract][hosts]") {
  extract::SampleCollector c;
  c.on_event(sample("node01", 0, kT0));
  const std::unique_ptr<EventSink> chunk = c.fork();
  chunk->on_event(sample("node01", 0, kT0 + kStep));
  chunk->on_event(sample("node02", 1, kT0 + kStep));
  chunk->on_event(sample("node01", 0, kT0 + 2 * kStep));
  chunk->on_event(sample("node02", 1, kT0 + 2 * kStep));
  c.join(*chunk);
  REQUIRE(c.other_hosts().size() == 1);
  CHECK(c.other_hosts()[0]->host() == "node02");
  CHECK(c.store().gpus() == std::vector<int>{0});
  CHECK(c.other_hosts()[0]->store().gpus() == std::vector<int>{1});
  const auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  REQUIRE(f->gpus.size() == 2);
  CHECK(value(f->gpus[0].indicators, "samples") == 3);
  CHECK(value(f->gpus[1].indicators, "samples") == 2);
}

TEST_CASE("extract: events are their host's, those naming none, or a host without telemetry, the first host's",
          "[extract][hosts]") {
  extract::SampleCollector c;
  feed_hosts(c, {"node01", "node02"}, 1, 5);
  c.on_event(xid("node02", kT0 + kStep, 31));
  c.on_event(xid("", kT0 + 2 * kStep, 13));
  c.on_event(xid("login01", kT0 + 3 * kStep, 43));
  REQUIRE(c.other_hosts().size() == 1);
  CHECK(c.incidents().size() == 2);
  CHECK(c.other_hosts()[0]->incidents().size() == 1);
}

TEST_CASE("extract: one host's samples, with others that name none, are one machine", "[extract][hosts]") {
  extract::SampleCollector c;
  c.on_event(sample("node01", 0, kT0));
  c.on_event(sample("", 0, kT0 + kStep));
  c.on_event(sample("node01", 0, kT0 + 2 * kStep));
  CHECK(c.other_hosts().empty());
  const auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  CHECK(f->host == "node01");
  CHECK(f->gpus.size() == 1);
}

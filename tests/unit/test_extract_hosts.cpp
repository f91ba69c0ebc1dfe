// extract prices one machine a run: telemetry samples that name two hosts are refused, read
// one by one or in chunks (prep -j), because GPUs are told apart by index alone.
#include <catch2/catch.hpp>

#include <gpucost/core/event.hpp>
#include <gpucost/extract/extract.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace {

using namespace gpucost;

Event sample(const char* host, int gpu, std::int64_t ts_ns) {
  Event ev;
  ev.ts_ns = ts_ns;
  ev.source = "prometheus";
  ev.host = host;
  ev.gpu = gpu;
  ev.kind = "sample";
  ev.set(Metric::power_w, 300);
  return ev;
}

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kStep = 15'000'000'000;

}  // namespace

TEST_CASE("extract: samples of two hosts are refused, naming both and the --match to give", "[extract][hosts]") {
  extract::SampleCollector c;
  for (int k = 0; k < 4; ++k) {
    c.on_event(sample("node01", 0, kT0 + k * kStep));
    c.on_event(sample("node02", 0, kT0 + k * kStep));
  }
  const auto f = extract::compute_features(c, {});
  REQUIRE_FALSE(f.has_value());
  CHECK(f.error().kind == ErrorKind::usage);
  CHECK(f.error().message.find("node01, node02") != std::string::npos);
  CHECK(f.error().hint.find("--match 'Hostname=\"node01\"'") != std::string::npos);
}

TEST_CASE("extract: a second host inside one chunk (prep -j) is seen at the join", "[extract][hosts]") {
  extract::SampleCollector c;
  c.on_event(sample("node01", 0, kT0));
  const std::unique_ptr<EventSink> chunk = c.fork();
  chunk->on_event(sample("node01", 0, kT0 + kStep));
  chunk->on_event(sample("node02", 1, kT0 + 2 * kStep));
  c.join(*chunk);
  const auto f = extract::compute_features(c, {});
  REQUIRE_FALSE(f.has_value());
  CHECK(f.error().message.find("node02") != std::string::npos);
}

TEST_CASE("extract: one host's samples, with others that name none, are one machine", "[extract][hosts]") {
  extract::SampleCollector c;
  c.on_event(sample("node01", 0, kT0));
  c.on_event(sample("", 0, kT0 + kStep));
  c.on_event(sample("node01", 0, kT0 + 2 * kStep));
  const auto f = extract::compute_features(c, {});
  REQUIRE(f.has_value());
  CHECK(f->host == "node01");
}

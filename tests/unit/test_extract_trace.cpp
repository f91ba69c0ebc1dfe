// extract: the trace indicators (F028-F044), the trainlog window and the --pattern sums
// (F045-F046), computed by hand from small inputs.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/extract.hpp>

namespace gpucost::test {

namespace {

constexpr std::int64_t kSec = 1'000'000'000;
constexpr std::int64_t kBase = 1700000000000000000;  // baseTimeNanoseconds of the fixture

/// prep over `text` straight into a collector (what `gpucost extract` does with raw logs).
void feed(extract::SampleCollector& c, const std::string& text, prep::PrepOptions options = {}) {
  auto reader = io::LineReader::from_string(text);
  auto clock = LocalClock::make("UTC");
  gpucost::InputStats stats;
  stats.path = "test";
  REQUIRE(prep::run_prep_input(*reader, options, *clock, c, stats));
  c.note_inputs({stats});
}

double value(const extract::IndicatorSet& set, const std::string& key) {
  INFO(key);
  const auto it = set.find(key);
  REQUIRE(it != set.end());
  INFO(it->second.reason);
  REQUIRE(it->second.value.has_value());
  return *it->second.value;
}

Event power_sample(std::int64_t ts_ns, int gpu, double watts, double util_pct) {
  Event ev;
  ev.ts_ns = ts_ns;
  ev.kind = "sample";
  ev.gpu = gpu;
  ev.set(Metric::power_w, watts);
  ev.set(Metric::sm_pct, util_pct);
  return ev;
}

}  // namespace

// The fixture's hand-computed analyses are in tests/unit/test_prep_trace.cpp (kModernTrace).
TEST_CASE("extract: trace indicators from a trace alone", "[extract][trace]") {
  extract::SampleCollector c;
  feed(c, fixture("trace/h100_rank3_modern.pt.trace.json"));
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(f->chosen_by == "trace");
  CHECK(f->from_ns == kBase + 100'000);  // first GPU op
  CHECK(f->to_ns == kBase + 402'750);    // last GPU op end
  REQUIRE(f->gpus.size() == 1);
  for (const auto* set : {&f->host_indicators, &f->gpus[0].indicators}) {
    CHECK(value(*set, "gpu_busy_s") == Approx(102250e-9));
    CHECK(value(*set, "gpu_idle_fraction_trace") == Approx(200500.0 / 302750.0));
    CHECK(value(*set, "gpu_compute_fraction") == Approx(57250.0 / 302750.0));
    // The non-compute share (45000 / 302750) is 1 - idle - compute (retired as F031 in version 2).
    CHECK(1 - value(*set, "gpu_idle_fraction_trace") - value(*set, "gpu_compute_fraction") ==
          Approx(45000.0 / 302750.0));
    CHECK(value(*set, "launch_delay_p50_us") == Approx(34.0));
    CHECK(value(*set, "launch_delay_p95_us") == Approx(85.5));
    CHECK(value(*set, "launch_delay_p99_us") == Approx(89.1));
    CHECK(value(*set, "short_kernel_fraction") == Approx(0.5));
    CHECK(value(*set, "launch_delay_over_10ms_fraction") == Approx(0.0));
    CHECK(value(*set, "kernels") == 4);
    CHECK(value(*set, "unmatched_gpu_events") == 1);
    CHECK(value(*set, "memcpy_s") == Approx(20e-6));
    CHECK(value(*set, "h2d_gbps") == Approx(100.0));
    CHECK(value(*set, "queue_length_mean") == Approx((249.0 / 230.0 + 1.0) / 2));
    CHECK(set->count("queue_length_max") == 0);  // retired (issue 21): the trace_device event keeps it
  }
  CHECK_FALSE(f->host_indicators.at("d2h_gbps").value.has_value());
  CHECK_FALSE(f->host_indicators.at("energy_kwh").value.has_value());  // no telemetry: null, not 0
  CHECK_FALSE(f->host_indicators.at("util_mean").value.has_value());
}

TEST_CASE("extract: with telemetry the window is the samples' and the cost model uses telemetry", "[extract][trace]") {
  extract::SampleCollector c;
  c.on_event(power_sample(kBase - 10 * kSec, 0, 300, 80));
  c.on_event(power_sample(kBase + 10 * kSec, 0, 300, 80));
  feed(c, fixture("trace/h100_rank3_modern.pt.trace.json"));
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(f->chosen_by == "samples");
  CHECK(value(f->gpus[0].indicators, "gpu_busy_s") == Approx(102250e-9));
  auto job = breakeven::job_inputs(*f);
  REQUIRE(job);
  CHECK(job->util_source == "telemetry");
  CHECK(job->util[0] == Approx(0.8));
  REQUIRE(job->trace_busy_fraction);
  CHECK(*job->trace_busy_fraction == Approx(102250.0 / 302750.0));
}

TEST_CASE("extract: without telemetry utilisation the cost model takes the trace's busy share", "[extract][trace]") {
  extract::SampleCollector c;
  Event ev;  // power only: energy is known, utilisation is not
  ev.kind = "sample";
  ev.gpu = 0;
  ev.ts_ns = kBase;
  ev.set(Metric::power_w, 300);
  c.on_event(ev);
  ev.ts_ns = kBase + 10 * kSec;
  c.on_event(ev);
  feed(c, fixture("trace/h100_rank3_modern.pt.trace.json"));
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  auto job = breakeven::job_inputs(*f);
  REQUIRE(job);
  CHECK(job->util_source == "trace");
  CHECK_FALSE(job->util_assumed);
  CHECK(job->util[0] == Approx(102250.0 / 302750.0));
}

TEST_CASE("extract: the training log's start and end phases choose the window", "[extract][trainlog]") {
  extract::SampleCollector c;
  // Samples from 07:59:00 to 08:40:00 UTC; the log runs 08:00:05 (start) .. 08:30:00 (end).
  const std::int64_t t0 = utc_ns(2024, 6, 12, 7, 59, 0);
  for (int i = 0; i <= 41; ++i) c.on_event(power_sample(t0 + i * 60 * kSec, 0, 200, 50));
  const std::string log =
      "2024-06-12 08:00:00,001 - train - INFO - Loading dataset from /data/imagenet\n"
      "2024-06-12 08:00:05,250 - __main__ - INFO - ***** Running training *****\n"
      "2024-06-12 08:10:05,500 - train - INFO - step 10: kernel matmul synchronized (duration: 0.012ms)\n"
      "2024-06-12 08:20:05,500 - train - INFO - step 20: kernel matmul synchronized (duration: 1.5ms)\n"
      "2024-06-12 08:30:00,000 - __main__ - INFO - Training completed. Do not forget to share your model\n";
  prep::PrepOptions options;
  options.patterns = {R"(kernel (?P<name>\w+) synchronized \(duration: (?P<dur_ms>[0-9.]+)ms\))"};
  feed(c, log, options);
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(f->chosen_by == "trainlog");
  CHECK(f->from_ns == utc_ns(2024, 6, 12, 8, 0, 5, 250));
  CHECK(f->to_ns == utc_ns(2024, 6, 12, 8, 30, 0));
  CHECK(value(f->host_indicators, "pattern_events") == 2);
  CHECK(value(f->host_indicators, "pattern_duration_s") == Approx(0.001512));  // 0.012 ms + 1.5 ms

  extract::ExtractOptions flags;  // flags win
  flags.from_ns = utc_ns(2024, 6, 12, 8, 15, 0);
  flags.to_ns = utc_ns(2024, 6, 12, 8, 40, 0);
  auto g = extract::compute_features(c, flags);
  REQUIRE(g);
  CHECK(g->chosen_by == "flags");
  CHECK(value(g->host_indicators, "pattern_events") == 1);
}

}  // namespace gpucost::test

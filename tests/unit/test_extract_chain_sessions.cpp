// extract: the temperature-anchored chain (F106-F113), power source and sessions (F114-F123),
// the trace mix and training indicators (F124-F137), each against a hand-computed case and its
// absent case.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/extract/extract.hpp>

#include <string>

namespace gpucost::test {

namespace {

constexpr std::int64_t kSec = 1'000'000'000;

void incident(extract::SampleCollector& c, std::int64_t t_s, const char* kind, const char* key = nullptr,
              const char* value = nullptr) {
  Event ev;
  ev.ts_ns = t_s * kSec;
  ev.kind = kind;
  if (key != nullptr) ev.add_text(key, value);
  c.on_event(ev);
}

double value(const extract::IndicatorSet& set, const std::string& key) {
  INFO(key);
  const auto it = set.find(key);
  REQUIRE(it != set.end());
  INFO(it->second.reason);
  REQUIRE(it->second.value.has_value());
  return *it->second.value;
}

std::string reason(const extract::IndicatorSet& set, const std::string& key) {
  INFO(key);
  const auto it = set.find(key);
  REQUIRE(it != set.end());
  CHECK_FALSE(it->second.value.has_value());
  return it->second.reason;
}

/// GPU 0 at 1 Hz, t = 0..100 s. Temperature 80 °C for 20 <= t < 50 and t >= 70, else 70 °C:
/// the 15 s rolling median (15 samples, t-14..t) first exceeds 78 °C when 8 of them read 80,
/// at t = 27 and t = 77. Utilisation 50 % for 31 <= t <= 42, else 100 %.
void chain_fixture(extract::SampleCollector& c, bool with_temperature = true) {
  for (std::int64_t t = 0; t <= 100; ++t) {
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "sample";
    ev.gpu = 0;
    ev.set(Metric::power_w, 300);
    ev.set(Metric::sm_pct, t >= 31 && t <= 42 ? 50 : 100);
    if (with_temperature) ev.set(Metric::temp_c, (t >= 20 && t < 50) || t >= 70 ? 80 : 70);
    c.on_event(ev);
  }
}

/// testdata/journal-text/short_thinkpad_p16_lid_ac.txt through prep into `c` (2024, CEST).
gpucost::InputStats read_thinkpad_journal(extract::SampleCollector& c) {
  auto reader = io::LineReader::from_string(fixture("journal-text/short_thinkpad_p16_lid_ac.txt"));
  auto clock = LocalClock::make("Europe/Berlin");
  REQUIRE(clock);
  prep::PrepOptions options;
  options.year = 2024;
  gpucost::InputStats stats;
  REQUIRE(prep::run_prep_input(*reader, options, *clock, c, stats));
  c.note_inputs({stats});
  return stats;
}

}  // namespace

TEST_CASE("extract: the temperature-anchored chain, by hand", "[extract][chain]") {
  extract::SampleCollector c;
  chain_fixture(c);
  incident(c, 5, "xid", "bucket", "restart_app");   // before any crossing
  incident(c, 30, "aer", "severity", "corrected");  // 3 s after the crossing at 27
  incident(c, 35, "modeset");                       // 8 s after it
  incident(c, 90, "thermal", "state", "hot");       // 13 s after the crossing at 77
  incident(c, 95, "thermal", "state", "normal");    // not an error
  incident(c, 60, "oom");                           // not a chain error either
  extract::ExtractOptions o;
  o.chain_window_s = 20;
  auto f = extract::compute_features(c, o);
  REQUIRE(f);
  const auto& h = f->host_indicators;
  CHECK(value(f->gpus[0].indicators, "temp_rolling_crossings") == 2);
  CHECK(value(h, "chain_errors_after_crossing") == 3);  // 30, 35 and 90
  CHECK(value(h, "chain_error_share") == 0.75);         // 3 of 4 errors
  CHECK(value(h, "chain_lag_mean_s") == Approx(8));     // (3 + 13) / 2
  // After / before, 12 samples each side: error 30: 50/100; error 35: before t=23..34 is
  // (8x100 + 4x50)/12, after t=36..47 is (7x50 + 5x100)/12, ratio 850/1000; error 90: 1.
  CHECK(value(h, "chain_util_drop_ratio") == Approx((0.5 + 0.85 + 1.0) / 3));
  CHECK(value(h, "error_util_drop_ratio") == Approx((1.0 + 0.5 + 0.85 + 1.0) / 4));

  SECTION("a wider window chains the error at 90 to the first crossing too") {
    o.chain_window_s = 300;
    auto g = extract::compute_features(c, o);
    REQUIRE(g);
    CHECK(value(g->host_indicators, "chain_errors_after_crossing") == 3);
  }
  SECTION("a higher threshold: no crossing, nothing chained") {
    o.temp_threshold_c = 85;
    auto g = extract::compute_features(c, o);
    REQUIRE(g);
    const auto& gh = g->host_indicators;
    CHECK(value(gh, "chain_errors_after_crossing") == 0);
    CHECK(value(gh, "chain_error_share") == 0);
    CHECK(reason(gh, "chain_lag_mean_s") == "the rolling-median temperature never crossed the threshold upward");
    CHECK(reason(gh, "chain_util_drop_ratio") == "no error followed a crossing within the chain window");
    CHECK(value(gh, "error_util_drop_ratio") == Approx((1.0 + 0.5 + 0.85 + 1.0) / 4));
  }
}

TEST_CASE("extract: the chain's absent cases", "[extract][chain]") {
  SECTION("no kernel log") {
    extract::SampleCollector c;
    chain_fixture(c);
    auto f = extract::compute_features(c, {});
    REQUIRE(f);
    for (const char* k : {"chain_errors_after_crossing", "chain_error_share", "error_util_drop_ratio"})
      CHECK(reason(f->host_indicators, k) == "no kernel log, dmesg, journal or bug report among the inputs");
  }
  SECTION("no temperature: the crossings are unknown, the error baseline is not") {
    extract::SampleCollector c;
    chain_fixture(c, false);
    incident(c, 30, "xid", "bucket", "reset_gpu");
    auto f = extract::compute_features(c, {});
    REQUIRE(f);
    CHECK(reason(f->host_indicators, "chain_errors_after_crossing") == "no temperature samples in the window");
    CHECK(value(f->host_indicators, "error_util_drop_ratio") == Approx(0.5));
  }
  SECTION("a log without errors") {
    extract::SampleCollector c;
    chain_fixture(c);
    incident(c, 10, "lid", "state", "open");
    auto f = extract::compute_features(c, {});
    REQUIRE(f);
    CHECK(value(f->host_indicators, "chain_errors_after_crossing") == 0);
    CHECK(reason(f->host_indicators, "chain_error_share") == "no Xid, AER, modeset or thermal error in the window");
    CHECK(reason(f->host_indicators, "error_util_drop_ratio") == "no Xid, AER, modeset or thermal error in the window");
  }
}

TEST_CASE("extract: power source and sessions, by hand", "[extract][sessions]") {
  extract::SampleCollector c;
  for (std::int64_t t : {0, 1000}) {  // the window is 0..1000 s
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "sample";
    ev.set(Metric::power_w, 100);
    c.on_event(ev);
  }
  incident(c, -100, "power_source", "state", "online");  // before the window: sets the state
  incident(c, 100, "power_source", "state", "offline");
  incident(c, 300, "power_source", "state", "online");
  incident(c, 900, "power_source", "state", "offline");  // on battery to the window end
  incident(c, 400, "suspend");                           // two layers report one suspend ...
  incident(c, 401, "suspend");
  incident(c, 450, "resume");  // ... and one resume
  incident(c, 452, "resume");
  incident(c, 620, "suspend");  // a suspend that failed: 3 s lost, and no resume
  incident(c, 623, "resume", "failed", "true");
  incident(c, 390, "lid", "state", "closed");
  incident(c, 460, "lid", "state", "open");
  incident(c, 600, "gpu_lost");
  incident(c, 690, "shutdown", "action", "reboot");
  incident(c, 700, "boot");
  incident(c, 800, "driver", "action", "unload");
  incident(c, 850, "driver", "action", "load");
  incident(c, 950, "driver", "action", "reset");
  incident(c, 20, "segfault");
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  const auto& h = f->host_indicators;
  const double hours = 1000.0 / 3600;
  CHECK(value(h, "battery_s") == 300);  // 100..300 and 900..1000
  CHECK(value(h, "suspend_s") == 53);   // 400..450, 620..623
  CHECK(value(h, "suspend_count") == 2);
  CHECK(value(h, "interruptions_per_hour") == Approx(5 / hours));  // 2 suspends, boot, GPU lost, reset
  CHECK(value(h, "boot_count") == 1);
  CHECK(value(h, "gpu_unavailable_s") == 150);  // 600..700 (boot) and 800..850 (load)

  SECTION("merge recomputes the rates from the summed partials") {
    auto back = extract::features_from_json(extract::features_to_json(*f), "a.json");
    REQUIRE(back);
    auto m = extract::merge_features({*back});
    REQUIRE(m);
    CHECK(value(m->host_indicators, "interruptions_per_hour") == Approx(5 / hours));
  }
}

TEST_CASE("extract: sessions without a kernel log are absent, a state opened before the window counts from its start",
          "[extract][sessions]") {
  extract::SampleCollector c;
  for (std::int64_t t : {100, 200}) {
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "sample";
    ev.set(Metric::power_w, 100);
    c.on_event(ev);
  }
  {
    auto f = extract::compute_features(c, {});
    REQUIRE(f);
    for (const char* k : {"battery_s", "suspend_s", "interruptions_per_hour"})
      CHECK(reason(f->host_indicators, k) == "no kernel log, dmesg, journal or bug report among the inputs");
  }
  incident(c, 50, "power_source", "state", "offline");  // the first message only sets the state
  incident(c, 150, "power_source", "state", "online");
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(value(f->host_indicators, "battery_s") == 50);  // 100..150
  CHECK(value(f->host_indicators, "suspend_s") == 0);
}

TEST_CASE("extract: trace mix and step indicators of the hand-made trace", "[extract][trace]") {
  // testdata/trace/h100_rank3_modern.pt.trace.json: on GPU 0 a 50 us GEMM, a 5 us clamp, a
  // 2.25 us Triton kernel, a 40 us NCCL all-reduce and a 20 us HtoD memcpy (117.25 us of ops);
  // span 302.75 us with 135 us host wait and 10 us short gaps; launch delays up to 90 us;
  // ProfilerStep#7 150 us and #8 300 us.
  extract::SampleCollector c;
  auto reader = io::LineReader::from_string(fixture("trace/h100_rank3_modern.pt.trace.json"));
  auto clock = LocalClock::make("UTC");
  gpucost::InputStats stats;
  stats.path = "trace.json";
  REQUIRE(prep::run_prep_input(*reader, prep::PrepOptions{}, *clock, c, stats));
  c.note_inputs({stats});
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  REQUIRE(f->gpus.size() == 1);
  for (const auto* set : {&f->host_indicators, &f->gpus[0].indicators}) {
    CHECK(value(*set, "comm_kernel_fraction") == Approx(40 / 117.25));
    CHECK(value(*set, "top_kernel_share") == Approx(50 / 117.25));
    CHECK(value(*set, "host_wait_fraction") == Approx(135 / 302.75));
    CHECK(value(*set, "short_gap_fraction") == Approx(10 / 302.75));
  }
  const auto& h = f->host_indicators;
  CHECK(value(h, "trace_steps") == 2);
  CHECK(value(h, "step_time_mean_s") == Approx(225e-6));
  CHECK(value(h, "step_time_p95_s") == Approx(150e-6 + 0.95 * 150e-6));  // numpy linear
  CHECK(f->gpus[0].indicators.count("trace_steps") == 0);                // host only
  CHECK_FALSE(h.at("samples_per_s").value.has_value());
}

TEST_CASE("extract: training throughput from the training log, evaluation left out", "[extract][trainlog]") {
  extract::SampleCollector c;
  for (std::int64_t t : {0, 100}) {
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "sample";
    ev.set(Metric::power_w, 100);
    c.on_event(ev);
  }
  const auto train = [&](std::int64_t t, const char* phase, const char* key, const char* v) {
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "train";
    ev.add_text("phase", phase);
    ev.fields.push_back(Field{key, v, true, false});
    c.on_event(ev);
  };
  train(10, "step", "it_per_s", "2.0");
  train(20, "step", "it_per_s", "4.0");
  train(30, "step", "it_per_s", "3.5");
  train(40, "eval", "it_per_s", "20.0");            // an evaluation bar
  train(50, "eval", "samples_per_second", "61.5");  // eval_samples_per_second
  train(90, "end", "samples_per_second", "32.5");   // train_samples_per_second
  train(200, "step", "it_per_s", "9.0");            // after the window
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(value(f->host_indicators, "samples_per_s") == 32.5);
  CHECK(value(f->host_indicators, "iterations_per_s") == 3.5);  // median of 2, 3.5, 4
  // No trace: the trace indicators are absent.
  const auto& h = f->host_indicators;
  CHECK(reason(h, "trace_steps") == "no Kineto trace among the inputs");
  CHECK(reason(h, "step_time_mean_s") == "no Kineto trace among the inputs");
  for (const char* k :
       {"kernels", "comm_kernel_fraction", "top_kernel_share", "host_wait_fraction", "short_gap_fraction"}) {
    CHECK(reason(h, k) == "no Kineto trace with GPU ops among the inputs");
    CHECK(reason(f->gpus[0].indicators, k) == "no Kineto trace with GPU ops among the inputs");
  }
}

TEST_CASE("extract: throughput absent without a training log", "[extract][trainlog]") {
  extract::SampleCollector c;
  Event ev;
  ev.kind = "sample";
  ev.set(Metric::power_w, 100);
  c.on_event(ev);
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(reason(f->host_indicators, "samples_per_s") ==
        "no training summary with samples per second (HF Trainer train_samples_per_second) in the window");
  CHECK(reason(f->host_indicators, "iterations_per_s") ==
        "no training progress bar with a rate (tqdm it/s or s/it) in the window");
}

TEST_CASE("extract: sessions from a real-shaped journal through prep (lid, AC, an overnight suspend)",
          "[extract][session]") {
  // testdata/journal-text/short_thinkpad_p16_lid_ac.txt (journalctl short, CEST = UTC+2): AC
  // off-line 18:41:37, lid closed and "The system will suspend now!" 19:05:11, PM: suspend exit
  // and AC on-line 07:58:40, lid opened 07:58:41, reboot 08:30. Telemetry every 10 s at 50 %
  // from 18:30:00 to 19:05:10 and from 07:58:50 to 08:20:00 (none while asleep).
  extract::SampleCollector c;
  const gpucost::InputStats stats = read_thinkpad_journal(c);
  const auto samples = [&](std::int64_t from, std::int64_t to) {
    for (std::int64_t t = from; t <= to; t += 10 * kSec) {
      Event ev;
      ev.ts_ns = t;
      ev.kind = "sample";
      ev.set(Metric::power_w, 60);
      ev.set(Metric::sm_pct, 50);
      c.on_event(ev);
    }
  };
  samples(utc_ns(2024, 9, 2, 16, 30, 0), utc_ns(2024, 9, 2, 17, 5, 10));
  samples(utc_ns(2024, 9, 3, 5, 58, 50), utc_ns(2024, 9, 3, 6, 20, 0));
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  const auto& h = f->host_indicators;
  CHECK(value(h, "wall_s") == 49800);     // 18:30:00 .. 08:20:00
  CHECK(value(h, "battery_s") == 47823);  // 18:41:37 .. 07:58:40
  CHECK(value(h, "suspend_s") == 46409);  // 19:05:11 (logind) .. 07:58:40 (kernel resume)
  CHECK(value(h, "suspend_count") == 1);  // logind, NVIDIA's unit, systemd-sleep, kernel: one
  CHECK(value(h, "ac_offline_count") == 1);
  CHECK(value(h, "lid_close_count") == 1);
  CHECK(value(h, "interruptions_per_hour") == Approx(1 / (49800.0 / 3600)));
  CHECK(value(h, "boot_count") == 0);
  // Downtime: AC off-line 18:41:37 .. the sample at 18:41:40, 3 s; the suspend 19:05:11 .. the
  // first sample after it, 07:58:50, 46419 s.
  CHECK(value(h, "downtime_s") == 46422);
  REQUIRE(f->incidents.size() == 2);
  CHECK(f->incidents[0].kind == "ac_offline");
  CHECK(*f->incidents[0].downtime_s == 3);
  CHECK(f->incidents[1].kind == "suspend");
  CHECK(*f->incidents[1].downtime_s == 46419);
}

TEST_CASE("extract: kernel and system logs alone give the host's event indicators, no GPU", "[extract][session]") {
  // The same journal without telemetry: the window runs from its first incident (AC off-line,
  // 18:41:37 CEST) to its last (the driver loaded after the reboot, 08:30:52).
  extract::SampleCollector c;
  const gpucost::InputStats stats = read_thinkpad_journal(c);
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(f->chosen_by == "events");
  CHECK(f->gpus.empty());
  CHECK(f->from_ns == utc_ns(2024, 9, 2, 16, 41, 37));
  CHECK(f->to_ns == utc_ns(2024, 9, 3, 6, 30, 52));
  const auto& h = f->host_indicators;
  CHECK(value(h, "gpu_count") == 0);
  CHECK(value(h, "battery_s") == 47823);  // 18:41:37 .. 07:58:40
  CHECK(value(h, "suspend_s") == 46409);  // 19:05:11 .. 07:58:40
  CHECK(value(h, "boot_count") == 1);
  CHECK(value(h, "xid_count") == 0);
  CHECK(reason(h, "energy_kwh") == "no GPU telemetry in the input (kernel or system logs only)");
  CHECK(reason(h, "downtime_s") == "no utilisation samples to tell when work resumed");
  // The document reads back; with --from/--to the flags give the window even with no incident.
  CHECK(extract::features_from_json(extract::features_to_json(*f), "alone.json"));
  extract::SampleCollector quiet;
  quiet.note_inputs({stats});
  extract::ExtractOptions window;
  window.from_ns = utc_ns(2024, 9, 2, 0, 0, 0);
  window.to_ns = utc_ns(2024, 9, 3, 0, 0, 0);
  auto q = extract::compute_features(quiet, window);
  REQUIRE(q);
  CHECK(q->chosen_by == "flags");
  CHECK(value(q->host_indicators, "xid_count") == 0);
  CHECK_FALSE(extract::compute_features(quiet, {}));  // nothing to set a window from
}

TEST_CASE("extract: the training log's checkpoints in the window, and their median interval", "[extract][trainlog]") {
  extract::SampleCollector c;
  for (std::int64_t t : {0, 3000}) {
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "sample";
    ev.set(Metric::power_w, 100);
    c.on_event(ev);
  }
  const auto checkpoint = [&](std::int64_t t) {
    Event ev;
    ev.ts_ns = t * kSec;
    ev.kind = "train";
    ev.add_text("phase", "checkpoint");
    c.on_event(ev);
  };
  // Intervals 780, 780 and 3 s (a save at the end right after the last checkpoint): median 780 s.
  for (std::int64_t t : {100, 880, 1660, 1663, 9000}) checkpoint(t);  // 9000: after the window
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  REQUIRE(f->checkpoints.has_value());
  CHECK(f->checkpoints->count == 4);
  REQUIRE(f->checkpoints->interval_median_s.has_value());
  CHECK(*f->checkpoints->interval_median_s == Approx(780));
  // Written and read back.
  auto back = extract::features_from_json(extract::features_to_json(*f), "f.json");
  REQUIRE(back);
  REQUIRE(back->checkpoints.has_value());
  CHECK(back->checkpoints->count == 4);
  CHECK(*back->checkpoints->interval_median_s == Approx(780));
}

TEST_CASE("extract: no checkpoint line, no checkpoints, one line, no interval", "[extract][trainlog]") {
  extract::SampleCollector c;
  Event ev;
  ev.kind = "sample";
  ev.ts_ns = 0;
  ev.set(Metric::power_w, 100);
  c.on_event(ev);
  ev.ts_ns = 100 * kSec;
  c.on_event(ev);
  auto none = extract::compute_features(c, {});
  REQUIRE(none);
  CHECK_FALSE(none->checkpoints.has_value());
  Event cp;
  cp.ts_ns = 50 * kSec;
  cp.kind = "train";
  cp.add_text("phase", "checkpoint");
  c.on_event(cp);
  auto one = extract::compute_features(c, {});
  REQUIRE(one);
  REQUIRE(one->checkpoints.has_value());
  CHECK(one->checkpoints->count == 1);
  CHECK_FALSE(one->checkpoints->interval_median_s.has_value());
}

}  // namespace gpucost::test

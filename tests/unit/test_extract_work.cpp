// extract: the work a job did (steps, samples, tokens, epochs from its training log), the energy
// per unit of it, DCGM's profiling fields ("Useful work") and the processes of nvidia-smi pmon
// (docs/indicators.md, "Work", "Useful work", "Processes"). Every expected value is worked out by
// hand in the comment beside it.
#include <catch2/catch.hpp>

#include "indicator_checks.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/extract/features.hpp>

#include "extract/process_list.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace gpucost;
using gpucost::extract::Features;
using gpucost::extract::IndicatorSet;
using gpucost::testing::absent_reason;
using gpucost::testing::value;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;  // 2023-11-14T22:13:20Z

std::int64_t at(double t_s) { return kT0 + static_cast<std::int64_t>(std::llround(t_s * 1e9)); }

/// Samples every 10 s from 0 to 100 s at 200 W and 100 % utilisation: 200 W x 100 s = 20 000 J
/// = 5.5556 Wh.
void feed_power(extract::SampleCollector& c) {
  for (int t = 0; t <= 100; t += 10) {
    Event ev;
    ev.ts_ns = at(t);
    ev.source = "query-csv";
    ev.host = "node1";
    ev.gpu = 0;
    ev.kind = "sample";
    ev.set(Metric::power_w, 200);
    ev.set(Metric::sm_pct, 100);
    c.on_event(ev);
  }
}

/// A `train` event as prep writes it: `phase` text, the rest numbers.
void feed_train(extract::SampleCollector& c, double t_s, const std::string& phase,
                const std::vector<std::pair<std::string, double>>& numbers) {
  Event ev;
  ev.ts_ns = at(t_s);
  ev.source = "trainlog";
  ev.host = "node1";
  ev.kind = "train";
  ev.add_text("phase", ev.own(phase));
  for (const auto& [key, v] : numbers)
    ev.fields.push_back(Field{ev.own(key), ev.own(fmt::format("{}", v)), true, false});
  c.on_event(ev);
}

Features compute(const extract::SampleCollector& c, extract::ExtractOptions options = {}) {
  auto f = extract::compute_features(c, options);
  REQUIRE(f.has_value());
  return *f;
}

}  // namespace

TEST_CASE("extract: work counts what the log shows in the window less what it showed before", "[extract][work]") {
  extract::SampleCollector c;
  feed_power(c);
  // Before the window (t < 0): step 10, epoch 0.1, 1000 tokens. In it: step 30 and 60, epoch 0.3
  // and 0.6, 3000 and 6000 tokens; an evaluation line's step 999 is not training.
  feed_train(c, -5, "step", {{"step", 10}, {"epoch", 0.1}, {"num_input_tokens_seen", 1000}});
  feed_train(c, 10, "step", {{"step", 30}, {"epoch", 0.3}, {"num_input_tokens_seen", 3000}});
  feed_train(c, 50, "step", {{"step", 60}, {"epoch", 0.6}, {"num_input_tokens_seen", 6000}});
  feed_train(c, 60, "eval", {{"step", 999}, {"epoch", 9}});
  extract::ExtractOptions o;
  o.from_ns = at(0);
  o.to_ns = at(100);
  o.samples_per_step = 8;
  const Features f = compute(c, o);
  const IndicatorSet& h = f.host_indicators;
  CHECK(value(h, "work_steps") == Approx(50));                         // 60 - 10
  CHECK(value(h, "work_tokens") == Approx(5000));                      // 6000 - 1000
  CHECK(value(h, "work_epochs") == Approx(0.5));                       // 0.6 - 0.1
  CHECK(value(h, "work_samples") == Approx(400));                      // no summary: 50 steps x 8
  CHECK(value(h, "tokens_per_s") == Approx(50));                       // 5000 / 100 s
  const double wh = 200.0 * 100 / 3600;                                // 5.5556 Wh; [0, 100) holds 100 s of samples
  CHECK(value(h, "energy_per_step_wh") == Approx(wh / 50));            // 0.1111 Wh
  CHECK(value(h, "energy_per_1k_tokens_wh") == Approx(wh / 5));        // 1.1111 Wh
  CHECK(value(h, "energy_per_1k_samples_wh") == Approx(wh / 0.4));     // 13.889 Wh
  CHECK(value(h, "energy_per_epoch_kwh") == Approx(wh / 1000 / 0.5));  // 0.011111 kWh
}

TEST_CASE("extract: an HF summary gives the work of a run that began in the window", "[extract][work]") {
  extract::SampleCollector c;
  feed_power(c);
  // The run starts at 5 s and its summary at 90 s: 80 s x 2.5 samples/s = 200 samples,
  // x 0.5 steps/s = 40 steps, x 100 tokens/s = 8000 tokens.
  feed_train(c, 5, "start", {});
  feed_train(c, 90, "end",
             {{"train_runtime_s", 80},
              {"samples_per_second", 2.5},
              {"steps_per_second", 0.5},
              {"train_tokens_per_second", 100},
              {"epoch", 2}});
  const Features f = compute(c);
  const IndicatorSet& h = f.host_indicators;
  CHECK(value(h, "work_samples") == Approx(200));
  CHECK(value(h, "work_steps") == Approx(40));
  CHECK(value(h, "work_tokens") == Approx(8000));
  CHECK(value(h, "work_epochs") == Approx(2));  // the summary's epoch, nothing before
}

TEST_CASE("extract: a summary of a run that began before the window counts nothing", "[extract][work]") {
  extract::SampleCollector c;
  feed_power(c);
  feed_train(c, -50, "step", {{"epoch", 0.5}});
  feed_train(c, 90, "end", {{"train_runtime_s", 200}, {"samples_per_second", 2.5}, {"epoch", 1}});
  extract::ExtractOptions o;
  o.from_ns = at(0);
  const Features f = compute(c, o);
  CHECK(absent_reason(f.host_indicators, "work_samples").find("--samples-per-step") != std::string::npos);
  CHECK(value(f.host_indicators, "work_epochs") == Approx(0.5));  // 1 - 0.5
  CHECK(absent_reason(f.host_indicators, "energy_per_1k_samples_wh").find("HF summary") != std::string::npos);
}

TEST_CASE("extract: a Lightning epoch bar counts batches within its epoch", "[extract][work]") {
  extract::SampleCollector c;
  feed_power(c);
  // Epoch 1: 50% 469/938: global step 1 x 938 + 469 = 1407, progress 1 + 469/938 = 1.5.
  feed_train(c, 20, "epoch", {{"epoch", 1}, {"step", 469}, {"total_steps", 938}});
  // A checkpoint line names the epoch running (1), not the epochs done: no progress from it.
  feed_train(c, 30, "checkpoint", {{"epoch", 1}, {"step", 1407}});
  const Features f = compute(c);
  CHECK(value(f.host_indicators, "work_steps") == Approx(1407));
  CHECK(value(f.host_indicators, "work_epochs") == Approx(1.5));
  CHECK(absent_reason(f.host_indicators, "work_tokens").find("--tokens-per-step") != std::string::npos);
}

TEST_CASE("extract: a step count lower than before the window is a restart", "[extract][work]") {
  extract::SampleCollector c;
  feed_power(c);
  feed_train(c, -5, "step", {{"step", 500}});
  feed_train(c, 40, "step", {{"step", 100}});
  extract::ExtractOptions o;
  o.from_ns = at(0);
  o.tokens_per_step = 2048;
  const Features f = compute(c, o);
  CHECK(value(f.host_indicators, "work_steps") == Approx(100));
  CHECK(value(f.host_indicators, "work_tokens") == Approx(204800));  // 100 x 2048
}

TEST_CASE("extract: no training log leaves the work null, saying so", "[extract][work]") {
  extract::SampleCollector c;
  feed_power(c);
  const Features f = compute(c);
  CHECK(absent_reason(f.host_indicators, "work_steps") == "no training log with steps among the inputs");
  CHECK(absent_reason(f.host_indicators, "energy_per_step_wh") == "no training log with steps among the inputs");
}

namespace {

/// A sample with utilisation and DCGM's profiling fields as dcgmi prints them (ratios; bytes/s).
void feed_profiled(extract::SampleCollector& c, double t_s, double util, const std::string& smact,
                   const std::string& nvltx = "") {
  Event ev;
  ev.ts_ns = at(t_s);
  ev.source = "dcgmi";
  ev.host = "node1";
  ev.gpu = 0;
  ev.kind = "sample";
  ev.set(Metric::sm_pct, util);
  ev.fields.push_back(Field{"smact", ev.own(smact), true, false});
  if (!nvltx.empty()) ev.fields.push_back(Field{"nvltx", ev.own(nvltx), true, false});
  c.on_event(ev);
}

}  // namespace

TEST_CASE("extract: SM active says how much of the busy time did work", "[extract][profiling]") {
  extract::SampleCollector c;
  // Intervals [0, 1] (util 100 %, smact 0.5) and [1, 2] (util 0 %, smact 0.0); the last sample
  // only closes the second.
  feed_profiled(c, 0, 100, "0.5", "2000000000");
  feed_profiled(c, 1, 0, "0.0", "0");
  feed_profiled(c, 2, 100, "0.8", "0");
  const Features f = compute(c);
  const IndicatorSet& g = f.gpus.at(0).indicators;
  CHECK(value(g, "sm_active_mean") == Approx(0.25));       // (0.5 x 1 + 0 x 1) / 2
  CHECK(value(g, "sm_active_busy") == Approx(0.5));        // 0.5 x 1 / 1: the busy interval only
  CHECK(value(g, "nvlink_tx_mean_mb_s") == Approx(1000));  // (2e9 x 1 + 0 x 1) / 2 / 1e6
  CHECK(absent_reason(g, "tensor_active_mean").find("dcgmi dmon -e 1002") != std::string::npos);
  CHECK(value(f.host_indicators, "sm_active_mean") == Approx(0.25));
}

TEST_CASE("extract: a profiling value outside 0-1 is not read", "[extract][profiling]") {
  extract::SampleCollector c;
  feed_profiled(c, 0, 100, "1.5");
  feed_profiled(c, 1, 100, "0.4");
  feed_profiled(c, 2, 100, "0.4");
  const Features f = compute(c);
  CHECK(value(f.gpus.at(0).indicators, "sm_active_mean") == Approx(0.4));  // one interval [1, 2]
}

namespace {

/// A pmon row: sm % and fb MiB, NaN for pmon's "-"; its command and type when `command` is given.
void feed_pmon(extract::SampleCollector& c, double t_s, int gpu, std::int64_t pid, double sm, double fb,
               const std::string& command = {}) {
  Event ev;
  ev.ts_ns = at(t_s);
  ev.source = "pmon";
  ev.host = "node1";
  ev.gpu = gpu;
  ev.kind = "process";
  if (!std::isnan(sm)) ev.set(Metric::sm_pct, sm);
  if (!std::isnan(fb)) ev.set(Metric::fb_mib, fb);
  ev.set(Metric::pid, static_cast<double>(pid));
  if (!command.empty()) {
    ev.add_text("process_type", "C");
    ev.add_text("command", ev.own(command));
  }
  c.on_event(ev);
}

}  // namespace

TEST_CASE("extract: pmon rows give the processes on each GPU and those holding it idle", "[extract][processes]") {
  constexpr double kDash = std::numeric_limits<double>::quiet_NaN();
  extract::SampleCollector c;
  feed_power(c);
  // GPU 0: pid 10 computes (sm 60, 40; fb 8000), pid 20 holds 500 then 700 MiB at sm 0 and "-".
  feed_pmon(c, 0, 0, 10, 60, 8000);
  feed_pmon(c, 0, 0, 20, 0, 500);
  feed_pmon(c, 10, 0, 10, 40, 8000);
  feed_pmon(c, 10, 0, 20, kDash, 700);
  // GPU 1: pid 10 again (one process on two GPUs), sm 100.
  feed_pmon(c, 0, 1, 10, 100, 4000);
  const Features f = compute(c);
  const IndicatorSet& g0 = f.gpus.at(0).indicators;
  CHECK(value(g0, "processes") == 2);
  CHECK(value(g0, "processes_max") == 2);
  CHECK(value(g0, "top_process_share") == Approx(1.0));  // (60 + 40) / 100
  CHECK(value(g0, "idle_processes") == 1);
  CHECK(value(g0, "idle_process_fb_mib") == Approx(700));  // pid 20's largest fb
  const IndicatorSet& h = f.host_indicators;
  CHECK(value(h, "processes") == 2);                    // pids 10 and 20, 10 once
  CHECK(value(h, "top_process_share") == Approx(1.0));  // pid 10: 200 of 200
  CHECK(value(h, "idle_processes") == 1);
  CHECK(absent_reason(h, "handle_holders").find("gpu_handle") != std::string::npos);
}

TEST_CASE("extract: no pmon leaves the process indicators null", "[extract][processes]") {
  extract::SampleCollector c;
  feed_power(c);
  const Features f = compute(c);
  CHECK(absent_reason(f.host_indicators, "processes") == "no nvidia-smi pmon among the inputs");
  CHECK(absent_reason(f.gpus.at(0).indicators, "idle_processes") == "no nvidia-smi pmon among the inputs");
}

TEST_CASE("extract: the share of energy spent idle", "[extract][energy]") {
  extract::SampleCollector c;
  // Power 100, 200, 200, 100 W at utilisation 0, 50, 0, 100 %, 1 s apart: intervals [0, 1]
  // idle (100 + 200) / 2 = 150 J, [1, 2] busy 200 J, [2, 3] idle 150 J: 300 of 500 J idle.
  const double power[] = {100, 200, 200, 100}, util[] = {0, 50, 0, 100};
  for (int i = 0; i < 4; ++i) {
    Event ev;
    ev.ts_ns = at(i);
    ev.kind = "sample";
    ev.gpu = 0;
    ev.set(Metric::power_w, power[i]);
    ev.set(Metric::sm_pct, util[i]);
    c.on_event(ev);
  }
  const Features f = compute(c);
  CHECK(value(f.gpus.at(0).indicators, "idle_energy_share") == Approx(0.6));
  CHECK(value(f.host_indicators, "idle_energy_share") == Approx(0.6));
  CHECK(value(f.host_indicators, "energy_per_busy_hour_kwh") == Approx(500.0 / 3.6e6 / (1.0 / 3600)));  // 1 s busy
}

TEST_CASE("extract: without a trace, the profiler table's device total is the host's GPU busy time",
          "[extract][trace]") {
  extract::SampleCollector c;
  feed_power(c);
  Event ev;
  ev.ts_ns = at(50);
  ev.source = "torch-table";
  ev.kind = "profiler_total";
  ev.fields.push_back(Field{"self_device_total_ns", "2900000", true, false});  // Self CUDA time total: 2.900ms
  c.on_event(ev);
  const Features f = compute(c);
  CHECK(value(f.host_indicators, "gpu_busy_s") == Approx(0.0029));
  CHECK_FALSE(f.gpus.at(0).indicators.at("gpu_busy_s").value.has_value());  // per GPU: a trace only
}

TEST_CASE("merge: work counts add over windows, a version-1 document leaves the new indicators null",
          "[extract][merge][work]") {
  extract::SampleCollector c;
  feed_power(c);
  feed_train(c, 10, "step", {{"step", 30}, {"num_input_tokens_seen", 3000}});
  feed_train(c, 70, "step", {{"step", 90}, {"num_input_tokens_seen", 9000}});
  const auto half = [&](double from, double to) {
    extract::ExtractOptions o;
    o.from_ns = at(from);
    o.to_ns = at(to);
    return compute(c, o);
  };
  // [0, 50): steps 30 - 0; [50, 100): 90 - 30 = 60; merged 90, the whole window's count.
  auto merged = extract::merge_features({half(0, 50), half(50, 100)});
  REQUIRE(merged.has_value());
  CHECK(value(merged->host_indicators, "work_steps") == Approx(90));
  CHECK(value(merged->host_indicators, "work_tokens") == Approx(9000));
  CHECK(value(merged->host_indicators, "tokens_per_s") == Approx(90));  // 9000 / 100 s
  CHECK(value(merged->host_indicators, "energy_per_step_wh") == Approx(200.0 * 100 / 3600 / 90));

  // The same document as version 1 wrote it: read back, merged, the new indicators say why.
  std::string json = extract::features_to_json(half(0, 50));
  const auto at_version = json.find("\"version\": 2");
  REQUIRE(at_version != std::string::npos);
  json.replace(at_version, 12, "\"version\": 1");
  auto old = extract::features_from_json(json, "old.json");
  REQUIRE(old.has_value());
  CHECK(old->version == 1);
  auto m = extract::merge_features({*old, half(50, 100)});
  REQUIRE(m.has_value());
  CHECK(absent_reason(m->host_indicators, "work_steps").find("version 1") != std::string::npos);
  CHECK(absent_reason(m->gpus.at(0).indicators, "sm_active_mean").find("version 1") != std::string::npos);
  CHECK(value(m->host_indicators, "energy_kwh") == Approx(200.0 * 100 / 3.6e6));  // the rest merges as before
}

namespace {

/// What every gpu_handle event has, as record writes it (docs/formats.md): pid a metric, the rest fields.
void handle_base(Event& ev, double t_s, int gpu, std::int64_t pid, const std::string& state) {
  ev.ts_ns = at(t_s);
  ev.source = "procs";
  ev.host = "node1";
  ev.gpu = gpu;
  ev.kind = "gpu_handle";
  ev.set(Metric::pid, static_cast<double>(pid));
  ev.add_text("state", ev.own(state));
  ev.add_number("start_ns", 1000 + pid);
}

void feed_handle(extract::SampleCollector& c, double t_s, int gpu, std::int64_t pid, const std::string& state,
                 const std::string& role, double last_seen_s = -1) {
  Event ev;
  handle_base(ev, t_s, gpu, pid, state);
  if (!role.empty()) ev.add_text("role", ev.own(role));
  if (last_seen_s >= 0) ev.add_number("last_seen_ns", at(last_seen_s));
  c.on_event(ev);
}

}  // namespace

TEST_CASE("extract: the processes record saw holding the GPU's device files", "[extract][processes]") {
  extract::SampleCollector c;
  feed_power(c);                                   // the window: 0 .. 100 s
  feed_handle(c, -20, 0, 100, "held", "command");  // the job, from before the window
  feed_handle(c, 110, 0, 100, "still_held", "command");
  feed_handle(c, 30, 0, 200, "held", "other");  // another user's notebook: 30 .. 60 s
  feed_handle(c, 65, 0, 200, "released", "other", 60);
  feed_handle(c, -50, 0, 300, "held", "other");  // let go before the window: -50 .. -10 s
  feed_handle(c, -5, 0, 300, "released", "other", -10);
  feed_handle(c, 40, -1, 400, "held", "gpucost");  // nvidia-smi: control files only
  feed_handle(c, 41, -1, 400, "released", "gpucost", 40);
  const Features f = compute(c);
  const IndicatorSet& g0 = f.gpus.at(0).indicators;
  CHECK(value(g0, "handle_holders") == 2);                 // pids 100 and 200; 300 let go before
  CHECK(value(g0, "other_handle_holders") == 1);           // pid 200
  CHECK(value(f.host_indicators, "handle_holders") == 3);  // and nvidia-smi's control files
  CHECK(value(f.host_indicators, "other_handle_holders") == 1);
}

TEST_CASE("extract: a scan of another /proc tree has no roles", "[extract][processes]") {
  extract::SampleCollector c;
  feed_power(c);
  feed_handle(c, 10, 0, 100, "held", "");
  const Features f = compute(c);
  CHECK(value(f.gpus.at(0).indicators, "handle_holders") == 1);
  CHECK(absent_reason(f.gpus.at(0).indicators, "other_handle_holders").find("--proc-root") != std::string::npos);
}

// ---- the per-process list (docs/indicators.md, "Per-process list") ------------------------

namespace {

/// A held gpu_handle event with who the process is.
void feed_identity(extract::SampleCollector& c, double t_s, int gpu, std::int64_t pid, const std::string& state,
                   const std::string& user, const std::string& command) {
  Event ev;
  handle_base(ev, t_s, gpu, pid, state);
  ev.add_number("uid", 1000 + pid);
  ev.add_text("user", ev.own(user));
  ev.add_text("command", ev.own(command));
  ev.add_text("cgroup", "/user.slice/user-1010.slice/session-2.scope");
  ev.add_text("role", "other");
  c.on_event(ev);
}

const extract::ProcessUse& process(const Features& f, int gpu, std::int64_t pid) {
  for (const extract::ProcessUse& p : f.processes)
    if (p.gpu == gpu && p.pid == pid) return p;
  FAIL("no process " << pid << " on GPU " << gpu);
  return f.processes.front();
}

}  // namespace

TEST_CASE("extract: the per-process list joins pmon's SM time with the scan's identities", "[extract][processes]") {
  constexpr double kDash = std::numeric_limits<double>::quiet_NaN();
  extract::SampleCollector c;
  feed_power(c);  // the window: 0 .. 100 s
  // pmon every 10 s from 0 to 100 s (cycle 10 s). A row reports the cycle before it, so the row
  // at 0 s covers nothing of the window: pid 10 at sm 50 % computes 10 rows x 0.5 x 10 s = 50 s.
  for (int t = 0; t <= 100; t += 10) {
    feed_pmon(c, t, 0, 10, 50, 8000, "python");
    feed_pmon(c, t, 0, 20, kDash, 700, "python");  // holds 700 MiB, computes nothing
  }
  feed_pmon(c, 120, 0, 10, 90, 9000, "python");  // after the window: not counted
  feed_identity(c, -30, 0, 10, "held", "alice", "python train.py");
  feed_identity(c, 110, 0, 10, "still_held", "alice", "python train.py");
  feed_identity(c, 50, 0, 30, "held", "carol", "python notebook.py");  // not in pmon: no context
  const Features f = compute(c);
  REQUIRE(f.processes.size() == 3);

  const extract::ProcessUse& alice = process(f, 0, 10);
  CHECK(alice.rows == 11);
  CHECK(*alice.busy_s == Approx(50.0));
  CHECK(*alice.fb_max_mib == Approx(8000));  // 9000 is after the window
  CHECK(alice.held);
  CHECK(alice.user == "alice");
  CHECK(*alice.uid == 1010);
  CHECK(alice.command == "python train.py");  // the scan's full command line over pmon's name
  CHECK(*alice.start_ns == 1010);
  CHECK(alice.cgroup == "/user.slice/user-1010.slice/session-2.scope");

  const extract::ProcessUse& idle = process(f, 0, 20);
  CHECK(*idle.busy_s == 0.0);
  CHECK(*idle.fb_max_mib == Approx(700));
  CHECK_FALSE(idle.held);  // the scan never saw it
  CHECK(idle.user.empty());
  CHECK(idle.command == "python");  // pmon's name

  const extract::ProcessUse& carol = process(f, 0, 30);
  CHECK(carol.rows == 0);
  CHECK(*carol.busy_s == 0.0);  // pmon ran and did not list it on GPU 0
  CHECK_FALSE(carol.fb_max_mib.has_value());
  CHECK(carol.first_ns == at(50));
  CHECK(carol.last_ns == at(50));  // seen once, never released: its last scan
}

TEST_CASE("extract: a pmon cycle is the median gap between its times", "[extract][processes]") {
  CHECK(extract::detail::pmon_cycle_s({at(0), at(2), at(4), at(5), at(7)}) == Approx(2.0));  // gaps 2 2 1 2
  CHECK(extract::detail::pmon_cycle_s({at(0)}) == Approx(1.0));  // one cycle: pmon's default -d 1
  CHECK(extract::detail::pmon_cycle_s({}) == Approx(1.0));
}

TEST_CASE("extract: the process list survives the document and merges over windows and hosts",
          "[extract][processes][merge]") {
  extract::SampleCollector c;
  feed_power(c);
  for (int t = 0; t <= 100; t += 10) feed_pmon(c, t, 0, 10, 20, 4000, "python");
  feed_identity(c, 0, 0, 10, "held", "alice", "python train.py");
  Features f = compute(c);
  f.host = "node1";
  auto back = extract::features_from_json(extract::features_to_json(f), "f.json");
  REQUIRE(back.has_value());
  REQUIRE(back->processes.size() == 1);
  const extract::ProcessUse& p = back->processes.front();
  CHECK(p.host == "node1");
  CHECK(*p.busy_s == Approx(20.0));  // 10 rows x 0.2 x 10 s
  CHECK(p.user == "alice");
  CHECK(*p.uid == 1010);
  CHECK(p.type == "C");

  // The same process in the next window adds up; another host's stays apart.
  Features next = *back;
  next.from_ns = f.to_ns;
  next.to_ns = f.to_ns + (f.to_ns - f.from_ns);
  next.processes.front().first_ns += next.from_ns - f.from_ns;
  next.processes.front().last_ns += next.from_ns - f.from_ns;
  next.processes.front().fb_max_mib = 5000;
  Features other = *back;
  other.host = "node2";
  for (extract::ProcessUse& q : other.processes) q.host = "node2";
  const std::vector<const std::vector<extract::ProcessUse>*> lists = {&back->processes, &next.processes,
                                                                      &other.processes};
  const auto merged = extract::detail::merge_processes(lists);
  REQUIRE(merged.size() == 2);
  CHECK(merged[0].host == "node1");
  CHECK(*merged[0].busy_s == Approx(40.0));
  CHECK(merged[0].rows == 22);
  CHECK(*merged[0].fb_max_mib == Approx(5000));
  CHECK(merged[0].last_ns == next.processes.front().last_ns);
  CHECK(merged[1].host == "node2");
  CHECK(*merged[1].busy_s == Approx(20.0));
}

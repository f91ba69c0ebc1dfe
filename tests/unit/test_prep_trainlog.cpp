// prep: Python training logs (docs/formats.md, "Python training logs") and --pattern. Fixtures in testdata/trainlog are
// hand-written in the byte shape of the tools (tqdm's '\r' redraws, HF Trainer dicts padded to
// the terminal width, worker prefixes, CRLF); expected events are computed by hand.
#include <catch2/catch.hpp>

#include "support.hpp"

#include "prep/user_patterns.hpp"

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::OwnedEvent;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

namespace {

std::vector<std::string> phases(const PrepRun& r) {
  std::vector<std::string> out;
  for (const auto& e : r.events) out.push_back(field(e, "phase"));
  return out;
}

void check_counts(const PrepRun& r, std::uint64_t lines, std::uint64_t events, std::uint64_t ignored,
                  std::uint64_t malformed) {
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::trainlog);
  CHECK(r.stats.lines == lines);
  CHECK(r.stats.events == events);
  CHECK(r.stats.ignored == ignored);
  CHECK(r.stats.malformed == malformed);
}

void check_train(const OwnedEvent& e) {
  CHECK(e.source == "trainlog");
  CHECK(e.kind == "train");
  CHECK(e.gpu == -1);
}

prep::PrepOptions with_patterns(std::vector<std::string> patterns) {
  prep::PrepOptions o;
  o.patterns = std::move(patterns);
  return o;
}

}  // namespace

TEST_CASE("prep::trainlog: HF accelerate example with tqdm bars redrawn with carriage returns", "[prep][trainlog]") {
  // America/New_York is UTC-4 in June: 14:22:25 local = 18:22:25Z.
  const PrepRun r = run_prep_text(fixture("trainlog/hf_accelerate_tqdm_cr.log"), {}, "America/New_York");
  // 17 lines: 7 event lines (line 7 holds a bar and a glued log line: two events), 1 bad date.
  check_counts(r, 17, 8, 9, 1);
  CHECK(r.stats.event_lines == 7);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::local);
  REQUIRE(r.events.size() == 8);
  for (const auto& e : r.events) check_train(e);
  CHECK(phases(r) ==
        std::vector<std::string>{"start", "step", "epoch", "step", "epoch", "step", "epoch", "checkpoint"});

  const auto& start = r.events[0];
  CHECK(start.ts_ns == utc_ns(2024, 6, 12, 18, 22, 25));
  CHECK(field(start, "level") == "INFO");
  CHECK(field(start, "logger") == "__main__");
  CHECK(field(start, "message") == "***** Running training *****");
  CHECK(field(start, "time_from") == "<absent>");

  // The last of the three bars of line 7; no time of its own: that of line 6.
  const auto& bar1 = r.events[1];
  CHECK(field(bar1, "step") == "100");
  CHECK(field(bar1, "total_steps") == "300");
  CHECK(field(bar1, "it_per_s") == "1.42");
  CHECK(field(bar1, "elapsed_s") == "70");
  CHECK(field(bar1, "time_from") == "preceding line");
  CHECK(bar1.ts_ns == utc_ns(2024, 6, 12, 18, 22, 25));

  const auto& epoch0 = r.events[2];  // glued after the bar on line 7
  CHECK(epoch0.ts_ns == utc_ns(2024, 6, 12, 18, 23, 36));
  CHECK(field(epoch0, "epoch") == "0");
  CHECK(field(epoch0, "perplexity") == "512.25");
  CHECK(field(epoch0, "eval_loss") == "6.2388");

  CHECK(field(r.events[3], "step") == "200");
  CHECK(field(r.events[3], "elapsed_s") == "141");
  CHECK(r.events[3].ts_ns == utc_ns(2024, 6, 12, 18, 23, 36));
  CHECK(r.events[4].ts_ns == utc_ns(2024, 6, 12, 18, 24, 47));  // " 06/12/2024 ...": stray space
  CHECK(field(r.events[4], "eval_loss") == "5.995");
  CHECK(field(r.events[5], "step") == "300");
  CHECK(field(r.events[5], "elapsed_s") == "211");    // 03:31
  CHECK(field(r.events[6], "accuracy") == "0.8125");  // "epoch 2: {'accuracy': 0.8125, 'f1': 0.79}"
  CHECK(field(r.events[6], "f1") == "0.79");
  CHECK(field(r.events[7], "path") == "out/step_300");
  CHECK(field(r.events[7], "logger") == "accelerate.accelerator");

  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 17);
  CHECK(r.stats.examples[0].reason == "bad date or time in the timestamp");
  CHECK(r.stats.clock == "local time in America/New_York");
}

TEST_CASE("prep::trainlog: Ray Train worker prefixes around HF Trainer output", "[prep][trainlog]") {
  const PrepRun r = run_prep_text(fixture("trainlog/ray_trainworker_hf_trainer.log"));
  check_counts(r, 11, 6, 5, 0);
  REQUIRE(r.events.size() == 6);
  CHECK(phases(r) == std::vector<std::string>{"start", "step", "eval", "checkpoint", "end", "end"});
  // Ray's own "2024-06-12 10:00:01,120\tINFO worker.py:1724 -- ..." line sets the time.
  const std::int64_t t0 = utc_ns(2024, 6, 12, 10, 0, 1, 120);
  for (const auto& e : r.events) {
    check_train(e);
    CHECK(e.ts_ns == t0);
    CHECK(field(e, "time_from") == "preceding line");
  }
  CHECK(field(r.events[0], "worker") == "RayTrainWorker pid=2315");
  CHECK(field(r.events[5], "worker") == "RayTrainWorker pid=2316");

  const auto& step = r.events[1];
  CHECK(field(step, "loss") == "0.6931");
  CHECK(field(step, "grad_norm") == "1.25");
  CHECK(field(step, "learning_rate") == "4.8e-05");
  CHECK(field(step, "epoch") == "0.2");

  const auto& eval = r.events[2];
  CHECK(field(eval, "eval_loss") == "0.5123");
  CHECK(field(eval, "eval_accuracy") == "0.75");
  CHECK(field(eval, "eval_runtime_s") == "2.5");
  CHECK(field(eval, "samples_per_second") == "80.0");
  CHECK(field(eval, "steps_per_second") == "10.0");

  CHECK(field(r.events[3], "step") == "250");  // checkpoint-250
  CHECK(field(r.events[3], "path") == "/tmp/ray/checkpoint-250");

  const auto& end = r.events[4];
  CHECK(field(end, "train_runtime_s") == "61.5");
  CHECK(field(end, "samples_per_second") == "32.52");
  CHECK(field(end, "steps_per_second") == "4.065");
  CHECK(field(end, "train_loss") == "0.55");
}

TEST_CASE("prep::trainlog: bracketed custom format and HF Trainer dicts padded with spaces", "[prep][trainlog]") {
  const PrepRun r = run_prep_text(fixture("trainlog/bracketed_hf_trainer_dicts.log"));
  check_counts(r, 11, 8, 2, 1);
  REQUIRE(r.events.size() == 8);
  CHECK(phases(r) == std::vector<std::string>{"start", "step", "step", "eval", "end", "step", "end", "checkpoint"});
  const std::int64_t started = utc_ns(2024, 3, 5, 9, 15, 2, 10);
  CHECK(r.events[0].ts_ns == started);
  CHECK(field(r.events[0], "logger") == "model_trainer");
  CHECK(field(r.events[0], "message") == "Starting model training...");
  for (std::size_t i = 1; i <= 5; ++i) {
    CHECK(r.events[i].ts_ns == started);
    CHECK(field(r.events[i], "time_from") == "preceding line");
  }
  CHECK(field(r.events[1], "loss") == "3.1416");
  CHECK(field(r.events[2], "learning_rate") == "4e-05");
  CHECK(field(r.events[3], "eval_loss") == "2.5");
  CHECK(field(r.events[4], "train_runtime_s") == "120.5");
  CHECK(field(r.events[5], "step") == "500");
  CHECK(field(r.events[5], "it_per_s") == "4.15");
  CHECK(r.events[6].ts_ns == utc_ns(2024, 3, 5, 9, 17, 3, 120));
  CHECK(field(r.events[6], "message") == "Model training completed successfully.");
  CHECK(field(r.events[7], "path") == "artifacts/model/checkpoint-500");  // the closing ']' is the format's
  CHECK(field(r.events[7], "step") == "500");
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 10);  // {'loss': 2.0 'epoch': 1.0}: a comma lost
}

TEST_CASE("prep::trainlog: traiNNer %y-%m-%d stamps, CRLF, Windows paths and TABs", "[prep][trainlog]") {
  const PrepRun r = run_prep_text(fixture("trainlog/trainner_yy_mm_dd.log"));
  check_counts(r, 10, 6, 4, 0);
  REQUIRE(r.events.size() == 6);
  CHECK(phases(r) == std::vector<std::string>{"start", "step", "step", "eval", "checkpoint", "end"});
  CHECK(r.events[0].ts_ns == utc_ns(2024, 5, 12, 14, 22, 25));  // "24-05-12": 2024
  const auto& s1 = r.events[1];
  CHECK(s1.ts_ns == utc_ns(2024, 5, 12, 14, 25, 30, 250));
  CHECK(field(s1, "epoch") == "1");
  CHECK(field(s1, "step") == "1000");  // "1,000"
  CHECK(field(s1, "learning_rate") == "1.000e-04");
  CHECK(field(s1, "l_g_pix") == "1.2345e-02");
  CHECK(field(s1, "level") == "INFO");
  CHECK(field(r.events[2], "step") == "2000");
  CHECK(field(r.events[3], "psnr") == "2.6512e+01");  // "<epoch: 2, iter: 2,000> psnr": validation
  CHECK(field(r.events[3], "learning_rate") == "<absent>");
}

TEST_CASE("prep::trainlog: BasicSR's own format", "[prep][trainlog]") {
  const std::string text =
      "2020-08-15 15:50:00,001 INFO: Start training from epoch: 0, iter: 0\n"
      "2020-08-15 15:50:30,390 INFO: [ESRGAN..][epoch:207, iter:  20,100, lr:(1.000e-04,)] [eta: 1 day, 18:13:17, "
      "time (data): 0.365 (0.002)] l_g_pix: 3.1516e-04 l_g_percep: 5.2308e-01\n";
  const PrepRun r = run_prep_text(text);
  check_counts(r, 2, 2, 0, 0);
  REQUIRE(r.events.size() == 2);
  const auto& s = r.events[1];
  CHECK(field(s, "phase") == "step");
  CHECK(field(s, "epoch") == "207");
  CHECK(field(s, "step") == "20100");
  CHECK(field(s, "learning_rate") == "1.000e-04");
  CHECK(field(s, "l_g_percep") == "5.2308e-01");
  CHECK(s.ts_ns == utc_ns(2020, 8, 15, 15, 50, 30, 390));
}

TEST_CASE("prep::trainlog: logging asctime default format in --tz, a bad date", "[prep][trainlog]") {
  const PrepRun r = run_prep_text(fixture("trainlog/asctime_default.log"), {}, "Europe/Berlin");
  check_counts(r, 8, 5, 2, 1);  // no final newline: still 8 lines
  REQUIRE(r.events.size() == 5);
  CHECK(phases(r) == std::vector<std::string>{"start", "epoch", "checkpoint", "epoch", "end"});
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 12, 6, 0, 5, 250));  // CEST = UTC+2
  CHECK(field(r.events[0], "logger") == "train");
  const auto& e0 = r.events[1];
  CHECK(field(e0, "train_loss") == "1.2345");
  CHECK(field(e0, "eval_loss") == "1.4567");     // val_loss
  CHECK(field(e0, "learning_rate") == "0.001");  // lr
  CHECK(field(r.events[2], "path") == "/ckpt/epoch_0.pt");
  CHECK(field(r.events[2], "logger") == "train.ckpt");
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 7);  // 2024-02-30
}

TEST_CASE("prep::trainlog: PyTorch Lightning bars, no timestamps: --start or relative", "[prep][trainlog]") {
  const std::string text = fixture("trainlog/lightning_epoch_bars.log");
  const PrepRun rel = run_prep_text(text);
  check_counts(rel, 16, 5, 11, 0);
  CHECK(rel.stats.time_basis == gpucost::TimeBasis::relative);
  for (const auto& e : rel.events) {
    CHECK(e.ts_ns == 0);
    CHECK(field(e, "time_from") == "none");
  }

  prep::PrepOptions o;
  o.start = gpucost::parse_iso8601("2024-06-12T10:00:00Z");
  const PrepRun r = run_prep_text(text, o);
  check_counts(r, 16, 5, 11, 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(r.events.size() == 5);
  CHECK(phases(r) == std::vector<std::string>{"epoch", "eval", "epoch", "checkpoint", "end"});
  for (const auto& e : r.events) {
    check_train(e);
    CHECK(e.ts_ns == utc_ns(2024, 6, 12, 10, 0, 0));
    CHECK(field(e, "time_from") == "--start");
  }
  const auto& e0 = r.events[0];  // the last of the bars redrawn on line 12
  CHECK(field(e0, "epoch") == "0");
  CHECK(field(e0, "step") == "938");
  CHECK(field(e0, "total_steps") == "938");
  CHECK(field(e0, "it_per_s") == "61.24");
  CHECK(field(e0, "train_loss") == "0.123");
  CHECK(field(r.events[1], "total_steps") == "157");  // Validation DataLoader 0
  CHECK(field(r.events[2], "eval_loss") == "0.110");  // val_loss in the postfix
  CHECK(field(r.events[3], "step") == "1876");
  CHECK(field(r.events[3], "epoch") == "1");
  CHECK(field(r.events[3], "path") == "/runs/lightning_logs/version_0/checkpoints/epoch=1-step=1876.ckpt");
}

TEST_CASE("prep::trainlog: SageMaker prefixes and TRL keys with '/'", "[prep][trainlog]") {
  const PrepRun r = run_prep_text(fixture("trainlog/sagemaker_trl_dpo.log"));
  check_counts(r, 7, 6, 1, 0);
  REQUIRE(r.events.size() == 6);
  CHECK(phases(r) == std::vector<std::string>{"start", "step", "step", "eval", "end", "end"});
  CHECK(field(r.events[0], "worker") == "1,mpirank:0,algo-1");
  CHECK(field(r.events[1], "worker") == "1,mpirank:1,algo-1");
  CHECK(field(r.events[1], "step") == "0");
  CHECK(field(r.events[1], "it_per_s") == "<absent>");  // "?it/s"
  CHECK(field(r.events[2], "rewards/chosen") == "0.0");
  CHECK(field(r.events[2], "logps/chosen") == "-250.5");
  CHECK(field(r.events[3], "eval_rewards/margins") == "0.025");
  CHECK(r.events[4].ts_ns == utc_ns(2024, 6, 12, 9, 0, 0));
  CHECK(r.events[5].ts_ns == utc_ns(2024, 6, 12, 9, 6, 45, 500));
  CHECK(field(r.events[5], "time_from") == "<absent>");
}

TEST_CASE("prep::trainlog: untimed lines before the first stamp take the following stamp", "[prep][trainlog]") {
  const std::string text =
      "{'loss': 1.5, 'learning_rate': 1e-05, 'epoch': 0.1}\n"
      "06/12/2024 14:00:00 - INFO - __main__ - ***** Running training *****\n";
  const PrepRun r = run_prep_text(text);
  check_counts(r, 2, 2, 0, 0);
  REQUIRE(r.events.size() == 2);
  CHECK(field(r.events[0], "time_from") == "following line");
  CHECK(r.events[0].ts_ns == utc_ns(2024, 6, 12, 14, 0, 0));
  CHECK(field(r.events[1], "phase") == "start");
}

TEST_CASE("prep::trainlog: HF Trainer's eval bar is told from the training bar by its total", "[prep][trainlog]") {
  const std::string text =
      "06/12/2024 14:00:00 - INFO - __main__ - ***** Running training *****\n"
      " 50%|█████     | 50/100 [00:10<00:10,  5.00it/s]\n"
      "\n"
      "  0%|          | 0/4 [00:00<?, ?it/s]\r 50%|█████     | 2/4 [00:00<00:00, 11.20it/s]\n"
      "{'eval_loss': 0.4, 'epoch': 1.0}\n"
      " 51%|█████     | 51/100 [00:11<00:10,  5.00it/s]\n";
  const PrepRun r = run_prep_text(text);
  check_counts(r, 6, 5, 1, 0);
  CHECK(phases(r) == std::vector<std::string>{"start", "step", "eval", "eval", "step"});
}

TEST_CASE("prep::trainlog: noise is ignored, never malformed", "[prep][trainlog]") {
  const std::string text =
      "06/12/2024 14:00:00 - INFO - __main__ - ***** Running training *****\n"
      "/usr/lib/python3/site-packages/transformers/optimization.py:306: FutureWarning: This implementation of "
      "AdamW is deprecated\n"
      "  warnings.warn(\n"
      "wandb: Tracking run with wandb version 0.16.4\n"
      " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): 210753280\n"
      "Map: 100%|██████████| 1000/1000 [00:00<00:00, 12345.67 examples/s]\n"
      "Downloading data: 100%|██████████| 1.2M/1.2M [00:00<00:00, 3.4MB/s]\n"
      "{'model_name': 'gpt2', 'seed': 42}\n"
      "{'model_name': 'gpt2',\n"
      "Traceback (most recent call last):\n";
  const PrepRun r = run_prep_text(text);
  check_counts(r, 10, 1, 9, 0);
}

TEST_CASE("prep::trainlog: detection does not take other formats' inputs", "[prep][trainlog][detect]") {
  const prep::PrepOptions none;
  CHECK(prep::detect_format("hello world\nthis is not a GPU log\n", none) == gpucost::Format::unknown);
  CHECK(prep::detect_format(fixture("trainlog/lightning_epoch_bars.log"), none) == gpucost::Format::trainlog);
  CHECK(prep::detect_format(fixture("trainlog/asctime_default.log"), none) == gpucost::Format::trainlog);
  // dmesg --time-format=iso with a kernel "INFO:" message stays dmesg (its stamp has an offset).
  CHECK(prep::detect_format("2024-11-15T05:39:15,491363+00:00 INFO: task kworker/0:1 blocked for more than 120 "
                            "seconds.\n",
                            none) == gpucost::Format::dmesg);
  // logging.basicConfig's default format has no time; Lightning logs through it too.
  const std::string basic =
      "INFO:lightning.pytorch.utilities.rank_zero:GPU available: True (cuda), used: True\n"
      "INFO:__main__:***** Running training *****\n";
  CHECK(prep::detect_format(basic, none) == gpucost::Format::trainlog);
  const PrepRun r = run_prep_text(basic);
  check_counts(r, 2, 1, 1, 0);
  REQUIRE(r.events.size() == 1);
  CHECK(field(r.events[0], "phase") == "start");
  CHECK(field(r.events[0], "logger") == "__main__");
  CHECK(field(r.events[0], "level") == "INFO");

  gpucost::Format f = gpucost::Format::unknown;
  REQUIRE(format_from_name("trainlog", f));
  CHECK(f == gpucost::Format::trainlog);
  CHECK(format_name(gpucost::Format::trainlog) == "trainlog");
}

// ---- --pattern -------------------------------------------------------------------------------

TEST_CASE("prep::trainlog --pattern: durations in ms become dur_ns, summed by hand", "[prep][trainlog][pattern]") {
  const std::string text =
      "2024-06-12 10:00:00,000 - INFO - prof - profiling started\n"
      "kernel matmul synchronized (duration: 0.012ms)\n"
      "kernel softmax synchronized (duration: 1.5ms)\n"
      "some other line\n"
      "kernel matmul synchronized (duration: 2.25ms)\n"
      "kernel broken synchronized (duration: 1.2.3ms)\n";
  const auto opts = with_patterns({R"(kernel (?P<name>\w+) synchronized \(duration: (?P<dur_ms>[0-9.]+)ms\))"});
  const PrepRun r = run_prep_text(text, opts);
  check_counts(r, 6, 3, 2, 1);
  REQUIRE(r.events.size() == 3);
  std::int64_t total = 0;
  for (const auto& e : r.events) {
    CHECK(e.kind == "pattern");
    CHECK(e.source == "trainlog");
    CHECK(field(e, "pattern") == "0");
    CHECK(field(e, "time_from") == "preceding line");
    CHECK(e.ts_ns == utc_ns(2024, 6, 12, 10, 0, 0));
    total += std::stoll(field(e, "dur_ns"));
  }
  CHECK(field(r.events[0], "dur_ns") == "12000");
  CHECK(field(r.events[0], "name") == "matmul");
  CHECK(total == 12'000 + 1'500'000 + 2'250'000);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].reason == "pattern 0: group dur_ms '1.2.3' is not a duration");
}

TEST_CASE("prep::trainlog --pattern: a file of no known format is read through its pattern",
          "[prep][trainlog][pattern]") {
  const std::string text = "kernel matmul synchronized (duration: 0.012ms)\n";
  const PrepRun without = run_prep_text(text);
  CHECK_FALSE(without.status);
  const PrepRun r =
      run_prep_text(text, with_patterns({R"(kernel (?P<name>\w+) synchronized \(duration: (?P<dur_ms>[0-9.]+)ms\))"}));
  check_counts(r, 1, 1, 0, 0);
  REQUIRE(r.events.size() == 1);
  CHECK(field(r.events[0], "dur_ns") == "12000");
  CHECK(field(r.events[0], "time_from") == "none");
}

TEST_CASE("prep::trainlog --pattern: ts, step, loss, phase and other groups, the second pattern",
          "[prep][trainlog][pattern]") {
  const std::string text =
      "2024-06-12T10:00:00Z step=10 loss=0.5 took 1.25s on gpu3\n"
      "1718186400.5 phase=eval\n";
  auto opts = with_patterns(
      {R"(^(?P<ts>\S+) step=(?P<step>\d+) loss=(?P<loss>[0-9.]+) took (?P<dur_s>[0-9.]+)s on (?P<device>\w+))",
       R"(^(?P<ts>[0-9.]+) phase=(?P<phase>\w+))"});
  // An ISO stamp with a zone at the start: a kernel log shape (dmesg --time-format=iso); forced here.
  CHECK(prep::detect_format(text, opts) == gpucost::Format::dmesg);
  opts.forced = gpucost::Format::trainlog;
  const PrepRun r = run_prep_text(text, opts);
  check_counts(r, 2, 2, 0, 0);
  REQUIRE(r.events.size() == 2);
  const auto& a = r.events[0];
  CHECK(a.ts_ns == utc_ns(2024, 6, 12, 10, 0, 0));
  CHECK(field(a, "step") == "10");
  CHECK(field(a, "loss") == "0.5");
  CHECK(field(a, "dur_ns") == "1250000000");
  CHECK(field(a, "device") == "gpu3");
  CHECK(field(a, "time_from") == "<absent>");
  const auto& b = r.events[1];
  CHECK(field(b, "pattern") == "1");
  CHECK(field(b, "phase") == "eval");
  CHECK(b.ts_ns == 1'718'186'400'500'000'000);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
}

TEST_CASE("prep::trainlog --pattern: an invalid regex is a usage error with a hint", "[prep][trainlog][pattern]") {
  const gpucost::Status st = prep::check_patterns({"kernel (?P<name>\\w+"});
  REQUIRE_FALSE(st);
  CHECK(st.error().kind == gpucost::ErrorKind::usage);
  CHECK(st.error().message.find("--pattern") != std::string::npos);
  CHECK(st.error().message.find("missing )") != std::string::npos);
  CHECK(st.error().hint.find("(?P<name>") != std::string::npos);
  CHECK(prep::check_patterns({}));
  CHECK_FALSE(prep::check_patterns({""}));

  prep::PrepOptions forced = with_patterns({"a(b"});
  forced.forced = gpucost::Format::trainlog;
  const PrepRun r = run_prep_text("a(b\n", forced);
  REQUIRE_FALSE(r.status);
  CHECK(r.status.error().kind == gpucost::ErrorKind::usage);
}

TEST_CASE("prep::trainlog --pattern: decimal durations scale exactly", "[prep][trainlog][pattern]") {
  std::int64_t ns = 0;
  CHECK(prep::decimal_to_ns("0.012", 6, ns));
  CHECK(ns == 12'000);
  CHECK(prep::decimal_to_ns("1.5", 9, ns));
  CHECK(ns == 1'500'000'000);
  CHECK(prep::decimal_to_ns("42", 0, ns));
  CHECK(ns == 42);
  CHECK(prep::decimal_to_ns("0.0000005", 6, ns));  // half a ns rounds up
  CHECK(ns == 1);
  CHECK(prep::decimal_to_ns("2.5e-3", 9, ns));
  CHECK(ns == 2'500'000);
  CHECK_FALSE(prep::decimal_to_ns("1.2.3", 6, ns));
  CHECK_FALSE(prep::decimal_to_ns("-1", 6, ns));
  CHECK_FALSE(prep::decimal_to_ns("", 6, ns));
  CHECK_FALSE(prep::decimal_to_ns("99999999999999999999", 9, ns));
}

TEST_CASE("prep::trainlog: hand-written epoch/step messages and a coloured Ray prefix", "[prep][trainlog]") {
  const std::string text =
      "2024-06-12 08:00:00,001 - __main__ - INFO - Epoch [1/10], Step [100/600], Loss: 0.2345\n"
      "2024-06-12 08:00:01,001 - __main__ - INFO - Epoch 2/10 - loss: 0.5 - LR: 0.01\n"
      "2024-06-12 08:00:02,001 - __main__ - INFO - Epoch 3 started\n"
      "\x1b[36m(RayTrainWorker pid=7)\x1b[0m Saving model checkpoint to /tmp/checkpoint-30\n";
  const PrepRun r = run_prep_text(text);
  check_counts(r, 4, 3, 1, 0);
  REQUIRE(r.events.size() == 3);
  CHECK(phases(r) == std::vector<std::string>{"step", "epoch", "checkpoint"});
  CHECK(field(r.events[0], "epoch") == "1");
  CHECK(field(r.events[0], "total_epochs") == "10");
  CHECK(field(r.events[0], "step") == "100");
  CHECK(field(r.events[0], "total_steps") == "600");
  CHECK(field(r.events[0], "loss") == "0.2345");  // "Loss"
  CHECK(field(r.events[1], "loss") == "0.5");
  CHECK(field(r.events[1], "learning_rate") == "0.01");  // "LR"
  CHECK(field(r.events[2], "worker") == "RayTrainWorker pid=7");
  CHECK(field(r.events[2], "step") == "30");
}

TEST_CASE("prep::trainlog: one event without a timestamp is named in the singular", "[prep][trainlog]") {
  const PrepRun r = run_prep_text(
      "2024-06-12 10:00:01,120\tINFO worker.py:1724 -- Started a local Ray instance.\n"
      "{'loss': 0.6931, 'grad_norm': 1.25, 'learning_rate': 4.8e-05, 'epoch': 0.2}\n");
  std::string notes;
  for (const auto& n : r.stats.notes) notes += n + "\n";
  INFO(notes);
  CHECK(notes.find("1 event from lines without a timestamp (HF Trainer dicts, tqdm bars, plain messages) takes the "
                   "time of the nearest timestamped line before it") != std::string::npos);
}

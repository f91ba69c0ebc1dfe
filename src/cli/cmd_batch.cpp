// gpucost batch: for cron, prices only what is new in rotated logs since the last run.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/pipeline/batch.hpp>

#include <fmt/format.h>

#include <memory>

namespace gpucost::cli {

namespace {

struct BatchArgs {
  ModelArgs model;
  std::string state;
  bool wait = false;
};

void print_batch_inputs(const std::vector<pipeline::BatchInput>& inputs, const std::vector<InputStats>& stats) {
  std::uint64_t lines = 0, events = 0;
  for (std::size_t i = 0; i < inputs.size() && i < stats.size(); ++i) {
    const auto& in = inputs[i];
    fmt::print(stderr, "gpucost: batch: {}: {}, lines {}-{} (bytes {}-{}): {} new lines, {} events\n",
               text::printable(in.path), in.how, in.from_line, in.to_line, in.from_offset, in.to_offset, stats[i].lines,
               stats[i].events);
    lines += stats[i].lines;
    events += stats[i].events;
  }
  fmt::print(stderr, "gpucost: batch: total: {} inputs, {} new lines, {} events\n", inputs.size(), lines, events);
}

int run_batch(const BatchArgs& args) {
  const ModelArgs& a = args.model;
  auto lock = pipeline::BatchLock::acquire(args.state, args.wait);
  if (!lock) return fail(lock.error());
  auto state = pipeline::BatchState::load(args.state);
  if (!state) return fail(state.error());
  auto run = model_setup(a);
  if (!run) return fail(run.error());
  Inputs& inputs = run->inputs;
  extract::SampleCollector samples;
  std::vector<InputStats> stats;
  const std::int64_t now = wall_clock_ns();
  auto read = pipeline::read_new_data(inputs.probed, *state, inputs.prep, inputs.clock, samples, stats, now);
  if (!read) {
    report_inputs(stats, true);
    return fail(read.error());
  }
  const int status = finish_inputs(stats, a.in, inputs.clock);
  if (!a.in.quiet) print_batch_inputs(*read, stats);
  state->forget_old(now);
  if (samples.store().empty()) {
    // Nothing to price: the state still moves on, so these lines are never read again.
    if (!a.in.quiet) fmt::print(stderr, "{} batch: no new telemetry samples: nothing priced\n", prefix(Level::note));
    if (auto st = state->save(args.state); !st) return fail(st.error());
    return status;
  }
  samples.note_inputs(stats);
  pipeline::continue_window(*state, samples.store().min_ts(), run->window);
  auto features = extract::compute_features(samples, run->window);
  if (!features) return fail(features.error());
  if (features->wall_s() <= 0) {
    // One new sample is no window: the state stays, and the next run prices it with what follows.
    if (!a.in.quiet)
      fmt::print(stderr, "{} batch: a single new sample time: nothing priced yet\n", prefix(Level::note));
    return status;
  }
  if (run->config.tariff_tz.empty()) run->config.tariff_tz = inputs.clock.name();
  const int rc = price_and_write(a, std::move(run->config), run->offer, *features, stats, status);
  if (rc == kError) return rc;  // the state stays: the next run reads the same data again
  state->priced_to_ns = features->to_ns;
  if (auto st = state->save(args.state); !st) return fail(st.error());
  return rc;
}

}  // namespace

Runner define_batch(CLI::App& cmd) {
  auto args = std::make_shared<BatchArgs>();
  add_input_options(&cmd, args->model.in);
  add_model_options(&cmd, args->model);
  add_output_options(&cmd, args->model);
  cmd.add_option("--state", args->state, "where batch remembers how far each file was read (JSON)")
      ->type_name("FILE")
      ->required();
  cmd.add_flag("--wait", args->wait, "wait for a running batch on the same state instead of exiting 2");
  cmd.footer(
      "Example: gpucost batch --state /var/lib/gpucost/batch.json --ledger runs.sqlite --prom "
      "gpucost.prom '/var/log/kern.log*' '/var/log/gpu/*.csv'\nSee docs/cron.md.\n" +
      std::string(kExitFooter));
  return [args] { return run_batch(*args); };
}

}  // namespace gpucost::cli

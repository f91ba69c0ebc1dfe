// gpucost trace: the analyses of PyTorch profiler traces as tables; --diff puts two runs side by side.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/outputs/ledger.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/report/trace_diff.hpp>
#include <gpucost/report/trace_price.hpp>
#include <gpucost/report/trace_report.hpp>

#include <fmt/format.h>

#include <limits>
#include <memory>

namespace gpucost::cli {

namespace {

struct TraceArgs {
  InputArgs in;
  std::string output = "-";
  bool diff = false, json = false, wide = false;
  ModelArgs model;                   ///< --config, --set, --cloud: prices a step on each side of --diff
  std::int64_t steps_per_epoch = 0;  ///< --steps-per-epoch: prices the annotated regions per epoch (0: not given)
};

/// Reads `in`'s inputs into `events`; the inputs' accounting is printed as for any command.
Expected<std::vector<InputStats>> read_traces(const InputArgs& in, report::TraceEventCollector& events, int& status) {
  auto inputs = open_inputs(in);
  if (!inputs) return inputs.error();
  std::vector<InputStats> stats;
  // Inputs one after the other (not merged by time): each trace's events stay together.
  if (auto st = pipeline::feed_inputs(inputs->probed, inputs->prep, inputs->clock, events, stats); !st) {
    report_inputs(stats, true);
    return st.error();
  }
  status = std::max(status, finish_inputs(stats, in, inputs->clock));
  return stats;
}

using StepSpan = std::optional<std::pair<std::int64_t, std::int64_t>>;

/// --steps as the span of step numbers whose marks are timed (empty: every step).
Expected<StepSpan> step_span(const TraceArgs& args) {
  if (args.in.settings.steps.empty()) return StepSpan{};
  auto range = pipeline::parse_step_range(args.in.settings.steps);
  if (!range) return range.error();
  return StepSpan{std::pair{range->first, range->last}};
}

bool priced(const TraceArgs& args) { return !args.model.config.empty() || !args.model.cloud.empty(); }

int run_trace(const TraceArgs& args) {
  auto steps = step_span(args);
  if (!steps) return fail(steps.error());
  report::TraceEventCollector events;
  int status = kOk;
  auto stats = read_traces(args.in, events, status);
  if (!stats) return fail(stats.error());
  std::optional<breakeven::CostConfig> config;
  std::optional<report::TracePrice> price;
  if (priced(args)) {
    const auto jobs = events.jobs();
    std::size_t ranks = 1;
    for (const auto& job : jobs) ranks = std::max(ranks, job.ranks.size());
    auto c = step_pricing_config(args.model, static_cast<int>(ranks), outputs::merge_fingerprints(*stats).gpus);
    if (!c) return fail(c.error());
    config = std::move(*c);
    price = report::price_traces(events.events(), *config, *steps);
    if (args.steps_per_epoch > 0) price->steps_per_epoch = args.steps_per_epoch;
  }
  const report::TracePrice* p = price ? &*price : nullptr;
  const std::string out =
      args.json
          ? report::trace_json(events.events(), events.jobs(), p)
          : printable_text(report::trace_table(events.events(), args.wide, p) + report::ranks_table(events.jobs()));
  return write_result(args.output, out, status);
}

/// One side of --diff: its argument (a trace, a directory of ranks' traces, a quoted glob) read alone.
Expected<report::RunFigures> read_side(const TraceArgs& args, const std::string& side, const StepSpan& steps,
                                       int& status) {
  InputArgs in = args.in;
  in.inputs = {side};
  in.settings.top_kernels = std::numeric_limits<std::size_t>::max();  // every kernel, to find the changed ones
  in.settings.trace_operators = true;                                 // and every CPU operator
  report::TraceEventCollector events;
  auto stats = read_traces(in, events, status);
  if (!stats) return stats.error();
  report::TraceRun run{side, events.events(), events.jobs(), outputs::merge_fingerprints(*stats)};
  return report::run_figures(run, steps);
}

int run_diff(const TraceArgs& args) {
  if (args.in.inputs.size() != 2)
    return fail(make_error(ErrorKind::usage, fmt::format("--diff compares two runs: {} given", args.in.inputs.size()),
                           "gpucost trace --diff before.pt.trace.json after.pt.trace.json (each side a trace, a "
                           "directory of a job's rank traces, or a quoted glob such as 'runA/rank-*.json')"));
  auto steps = step_span(args);
  if (!steps) return fail(steps.error());
  int status = kOk;
  auto a = read_side(args, args.in.inputs[0], *steps, status);
  if (!a) return fail(a.error());
  auto b = read_side(args, args.in.inputs[1], *steps, status);
  if (!b) return fail(b.error());
  std::optional<breakeven::CostConfig> config;
  if (priced(args)) {
    const int gpus = static_cast<int>(std::max(a->ranks.size(), b->ranks.size()));
    auto c = step_pricing_config(args.model, gpus, a->fingerprint.gpus);
    if (!c) return fail(c.error());
    config = std::move(*c);
  }
  const std::size_t top = args.in.settings.top_kernels;
  const breakeven::CostConfig* priced = config ? &*config : nullptr;
  const std::string out = args.json ? report::trace_diff_json(*a, *b, top, priced)
                                    : printable_text(report::trace_diff_table(*a, *b, top, priced, args.wide));
  return write_result(args.output, out, status);
}

}  // namespace

Runner define_trace(CLI::App& cmd) {
  auto args = std::make_shared<TraceArgs>();
  add_input_options(&cmd, args->in);
  cmd.add_option("-o,--output", args->output, "output file, - = stdout")->type_name("FILE")->group("Output");
  cmd.add_flag("--diff", args->diff,
               "compare two runs: exactly two inputs, each a trace, a directory of a job's rank traces or a quoted "
               "glob")
      ->group("Compare");
  cmd.add_flag("--critical-path", args->in.settings.critical_path,
               "the critical path of each ProfilerStep (else of the whole trace) as HolisticTraceAnalysis defines it: "
               "its length, what bounds it, its top operators")
      ->group("Output");
  cmd.add_flag("--json", args->json, "the analyses (or with --diff the comparison) as JSON")->group("Output");
  cmd.add_flag("--wide", args->wide,
               "kernel names in full (else longer ones are cut in the middle to 56 characters, keeping their end)")
      ->group("Output")
      ->excludes("--json");
  cmd.add_option("-c,--config", args->model.config,
                 "the cost config that prices a step (with --diff: a step on each side)")
      ->type_name("FILE")
      ->group("Cost");
  cmd.add_option("--set", args->model.sets, "override a config key of --config (section.key=value), repeatable")
      ->type_name("KEY=VALUE")
      ->group("Cost");
  cmd.add_option("--cloud", args->model.cloud, "price the cloud's step with this catalogue offer")
      ->type_name("OFFER")
      ->group("Cost");
  cmd.add_option("--steps-per-epoch", args->steps_per_epoch,
                 "the training steps in one epoch: prices each annotated region per epoch (with -c or --cloud)")
      ->type_name("N")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1'000'000'000}))
      ->group("Cost");
  cmd.footer(
      "Example: gpucost trace --steps 5-7 --top-kernels 5 rank0.pt.trace.json.gz\n"
      "         gpucost trace --json rank0.pt.trace.json.gz | jq '.traces[].gpus[].top_kernels[].name'\n"
      "         gpucost trace -c costs.toml --cloud aws-p4d.24xlarge runs/after/\n"
      "         gpucost trace --diff -c costs.toml runs/before/ runs/after/\n"
      "The same figures as events: gpucost prep rank0.pt.trace.json.gz\n" +
      std::string(kExitFooter));
  return [args] {
    if (!args->model.sets.empty() && !priced(*args))
      return fail(make_error(ErrorKind::usage, "--set overrides a key of --config: give -c (or --cloud)",
                             "gpucost trace -c costs.toml --set cloud.rate_per_hour=2.5 rank0.pt.trace.json"));
    if (args->steps_per_epoch > 0 && (!priced(*args) || args->diff))
      return fail(
          make_error(ErrorKind::usage,
                     "--steps-per-epoch prices the annotated regions of a run: give -c (or --cloud), without --diff",
                     "gpucost trace -c costs.toml --steps-per-epoch 1250 rank0.pt.trace.json"));
    if (args->diff && args->in.settings.critical_path)
      return fail(make_error(ErrorKind::usage, "--critical-path does not go with --diff",
                             "gpucost trace --critical-path [--steps A-B] TRACE"));
    args->model.in.quiet = args->in.quiet;
    return args->diff ? run_diff(*args) : run_trace(*args);
  };
}

}  // namespace gpucost::cli

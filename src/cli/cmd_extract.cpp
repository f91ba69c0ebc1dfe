// gpucost extract: the indicator catalogue per GPU and host, as a gpucost.features document.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/report/listings.hpp>

#include <fmt/format.h>

#include <memory>

namespace gpucost::cli {

namespace {

struct ExtractArgs {
  InputArgs in;
  std::string output = "-", from, to;
  bool list = false, json = false, follow = false;
  double temp_threshold_c = 78.0, chain_window_s = 300.0;
  std::string every = "60s", live_window;
};

/// The window and indicator options of the flags, for the inputs' clock.
Expected<extract::ExtractOptions> extract_window(const ExtractArgs& args, Inputs& inputs) {
  auto window = pipeline::window_options(args.from, args.to, inputs.clock);
  if (!window) return window.error();
  window->temp_threshold_c = args.temp_threshold_c;
  window->chain_window_s = args.chain_window_s;
  window->jobs = inputs.prep.jobs;
  window->slurm_job = args.in.slurm_job;
  apply_work_options(args.in, *window);
  return window;
}

/// extract --follow (docs/live.md): the features document of the window so far, rewritten
/// atomically every --every (-o FILE; on stdout, the last one only), until a signal, --to or a
/// training log's end.
int run_extract_follow(const ExtractArgs& args) {
  const auto timing = live_timing(args.every, args.live_window);
  if (!timing) return fail(timing.error());
  auto inputs = open_follow_inputs(args.in);
  if (!inputs) return fail(inputs.error());
  auto window = extract_window(args, *inputs);
  if (!window) return fail(window.error());
  bool said_waiting = false;
  const auto update = [&](const Expected<extract::Features>& features, const std::vector<InputStats>&,
                          bool last) -> int {
    if (!features) {
      if (!said_waiting || last)
        fmt::print(stderr, "{} no features {}: {}\n", prefix(last ? Level::warning : Level::note),
                   last ? "at the end" : "yet", text::printable(features.error().message));
      said_waiting = true;
      return last ? kError : kOk;
    }
    if (args.output == "-" && !last) return kOk;  // stdout takes one document: the last
    // An error is said on stderr; the next update tries again.
    return write_result(args.output, extract::features_to_json(*features), kOk);
  };
  return follow_and_update(LiveLoop{args.in, *inputs, *window, timing->every_ns, timing->window_ns}, update);
}

int run_extract(const ExtractArgs& args) {
  if (args.follow && !args.list) return run_extract_follow(args);
  if (args.list) {
    fmt::print("{}", args.json ? report::indicator_catalogue_json() : report::indicator_catalogue_table());
    return kOk;
  }
  auto inputs = open_inputs(args.in, args.from, args.to);
  if (!inputs) return fail(inputs.error());
  auto window = extract_window(args, *inputs);
  if (!window) return fail(window.error());
  extract::SampleCollector samples;
  std::vector<InputStats> stats;
  if (auto st = pipeline::collect_inputs(inputs->probed, inputs->prep, inputs->clock, samples, stats); !st) {
    report_inputs(stats, true);
    return fail(st.error());
  }
  const int status = finish_inputs(stats, args.in, inputs->clock);
  samples.note_inputs(stats);
  auto features = extract::compute_features(samples, *window);
  if (!features) return fail(features.error());
  if (const std::string w = extract::slurm_host_warning(*features); !w.empty())
    fmt::print(stderr, "{} {}\n", prefix(Level::warning), text::printable(w));
  return write_result(args.output, extract::features_to_json(*features), status);
}

}  // namespace

Runner define_extract(CLI::App& cmd) {
  auto args = std::make_shared<ExtractArgs>();
  add_input_options(&cmd, args->in);
  add_prometheus_options(&cmd, args->in);
  cmd.add_option("--from", args->from, "window start (ISO 8601; local in --tz unless Z/offset)")
      ->type_name("TIME")
      ->group("Window");
  cmd.add_option("--to", args->to, "window end, exclusive")->type_name("TIME")->group("Window");
  add_slurm_option(&cmd, args->in);
  add_work_options(&cmd, args->in);
  cmd.add_option("--temp-threshold", args->temp_threshold_c,
                 "GPU temperature threshold of F012, F064, F067 and the chain, °C (default 78)")
      ->check(CLI::Range(-50.0, 150.0))
      ->type_name("C")
      ->group("Indicators");
  cmd.add_option("--chain-window", args->chain_window_s,
                 "errors this long after a hot crossing count in the chain, s (default 300)")
      ->check(CLI::Range(0.001, 86400.0))
      ->type_name("S")
      ->group("Indicators");
  cmd.add_flag("--follow", args->follow,
               "after reading the files, keep reading what is appended (as prep --follow) and rewrite -o FILE "
               "with the window so far every --every (on stdout: the last document only); SIGTERM, SIGINT, --to "
               "or the training log's end ends it (docs/live.md)")
      ->group("Live");
  cmd.add_option("--every", args->every, "--follow: how often -o is rewritten, e.g. 60s, 5m (default 60s)")
      ->type_name("DURATION")
      ->group("Live");
  cmd.add_option("--window", args->live_window,
                 "--follow: a sliding window of this length ending at the latest sample (e.g. 1h)")
      ->type_name("DURATION")
      ->group("Live");
  cmd.add_flag("--list", args->list, "print the indicator catalogue and exit");
  cmd.add_flag("--json", args->json, "with --list: as JSON");
  cmd.add_option("-o,--output", args->output, "output file, - = stdout")->type_name("FILE")->group("Output");
  cmd.footer(footer_with_example("gpucost prep dmon.log | gpucost extract - > features.json"));
  return [args] { return run_extract(*args); };
}

}  // namespace gpucost::cli

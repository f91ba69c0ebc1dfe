// The option groups of the subcommands, each defined once, and the steps every subcommand that
// reads logs takes before and after reading them (setup, input summary, pricing notices).
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/price_job.hpp>
#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/pipeline/follow.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/pipeline/prometheus.hpp>
#include <gpucost/pipeline/settings.hpp>
#include <gpucost/prep/prep.hpp>
#include <gpucost/prices/offer_catalogue.hpp>
#include <gpucost/record/slurm.hpp>

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::cli {

inline constexpr std::string_view kExitFooter =
    "Exit status: 0 success (warnings may be printed), 1 --strict and malformed or cut-short input,\n"
    "2 usage or operational error (unreadable file, unknown format, bad config),\n"
    "3 breakeven --fail-above and the premium is above the line. See README.md.";

/// "Example: ...\n" followed by the exit-status footer.
std::string footer_with_example(std::string_view example);

/// The options of every subcommand that reads logs.
struct InputArgs {
  std::vector<std::string> inputs;
  pipeline::InputSettings settings;
  pipeline::PrometheusSettings prometheus;  ///< --prometheus, --match, --step (empty url: none)
  bool strict = false, quiet = false;
  int verbose = 0;
  std::string slurm_job;  ///< --slurm-job: the job's sacct record is an input and its window the window
  /// --tokens-per-step / --samples-per-step: a step's work when the training log counts none.
  std::optional<double> tokens_per_step, samples_per_step;
};

/// The input files and every input option (prep, extract, trace, breakeven, report, batch).
void add_input_options(CLI::App* app, InputArgs& a);
/// --slurm-job (prep, extract, breakeven).
void add_slurm_option(CLI::App* app, InputArgs& a);
/// --tokens-per-step and --samples-per-step (extract, breakeven, report).
void add_work_options(CLI::App* app, InputArgs& a);
/// The window's work options from the flags.
void apply_work_options(const InputArgs& a, extract::ExtractOptions& window);
/// --tz, --host, -q and -v alone (record, which reads the logs it writes itself).
void add_clock_and_verbosity_options(CLI::App* app, InputArgs& a);
/// --prometheus, --match and --step (prep, extract, breakeven, report): telemetry from a
/// Prometheus server over the command's --from/--to.
void add_prometheus_options(CLI::App* app, InputArgs& a);

/// The options of the cost model, its window and its outputs: breakeven's, shared by report,
/// batch and record.
struct ModelArgs {
  InputArgs in;
  std::string output = "-", from, to, config, cloud, prom, ledger, suggest, mode;
  std::vector<std::string> sets;
  std::vector<std::string> clouds;  ///< --clouds FILE: private catalogues (TOML or SkyPilot vms.csv)
  std::string compare_kinds = "on-demand";
  bool json = false, list_clouds = false, compare_clouds = false, fail_above = false, explain = false;
  bool full = false;  ///< --full: the whole table, not the one-screen answer
  double speed_ratio = std::numeric_limits<double>::quiet_NaN();  // NaN = not given
  std::string fill = "mean";
  std::string faults;  ///< --faults: both-sides, hardware-only or all-local; empty: the config's
  std::string by;      ///< breakeven --by: process, user or cgroup; empty: no split
  bool ledger_append = false;
  bool follow = false;                     ///< breakeven --follow
  std::string every = "60s", live_window;  ///< --every, --window (--follow)
  std::size_t mc = 0;
  std::uint64_t seed = 1;
  /// Without telemetry, the estimate's GPU, count and busy share (docs/cost-model.md, "Estimated
  /// energy"); --estimate: the model beside the measurement.
  std::string gpu, util;
  int gpus = 0;  ///< 0: not given
  bool estimate = false;
};

/// The cloud catalogue of this run: built-in, the user catalogue, --clouds files (loaded once per
/// process; its notes printed then unless quiet).
Expected<const prices::Catalogue*> run_catalogue(const std::vector<std::string>& clouds, bool quiet);
/// Today's date (UTC, YYYY-MM-DD) that price ages count to; GPUCOST_TODAY overrides it (tests).
std::string today_date();
/// --compare-kinds: "on-demand,spot", or "all".
Expected<std::vector<breakeven::OfferKind>> parse_offer_kinds(std::string_view list);

/// -c, --set, --from/--to, --cloud, --clouds, --speed-ratio, --fill, --faults.
void add_model_options(CLI::App* app, ModelArgs& a);
/// --json, --full, -o, --fail-above, --explain, --suggest, --prom, --mode, --ledger, --ledger-append.
void add_output_options(CLI::App* app, ModelArgs& a);
/// --by process|user|cgroup (breakeven, record): the cost split over who computed.
void add_attribution_option(CLI::App* app, ModelArgs& a);

/// The inputs of one run, checked, with the options to read them.
struct Inputs {
  prep::PrepOptions prep;
  LocalClock clock = LocalClock::utc();
  std::vector<std::string> paths;
  std::vector<pipeline::ProbedInput> probed;  ///< the paths, each looked at once (pipeline::probe_inputs)
  std::shared_ptr<record::SacctFile> sacct;   ///< --slurm-job: sacct's answer, one of the paths while this lives
};

/// Turns on logging, checks the options, expands the globs and refuses unreadable inputs before
/// anything is written; with --prometheus, fetches the series of the window `from`/`to` (the
/// command's --from/--to) as one more input, first; starts the progress line.
Expected<Inputs> open_inputs(const InputArgs& a, const std::string& from = {}, const std::string& to = {});
/// --follow: the settings and the inputs as named (files and globs, looked at while followed:
/// they may not exist yet); refuses --prometheus, --slurm-job and no input.
Expected<Inputs> open_follow_inputs(const InputArgs& a);
/// --follow's timing: GPUCOST_FOLLOW_POLL_MS (how often files are looked at without inotify;
/// default 1000) and GPUCOST_FOLLOW_INOTIFY=0 (poll only), for tests and odd filesystems.
pipeline::FollowSettings follow_settings();

/// Prints the input summary; returns kStrictFailed under --strict when a line was malformed or
/// an input cut short, else kOk.
int finish_inputs(const std::vector<InputStats>& stats, const InputArgs& a, const LocalClock& clock);

/// What breakeven, report and batch set up before reading their inputs: the config, the offer
/// it names, the inputs and the window.
struct ModelRun {
  breakeven::CostConfig config;
  std::optional<breakeven::CloudOffer> offer;
  Inputs inputs;
  extract::ExtractOptions window;
};
Expected<ModelRun> model_setup(const ModelArgs& a);
/// The same for --follow: the inputs as named (open_follow_inputs). Run again on SIGHUP, it
/// re-reads the config.
Expected<ModelRun> follow_model_setup(const ModelArgs& a);
/// The config (and the catalogue offer it or --cloud names, for a job on `gpus` GPUs of the
/// models `gpu_names`) for pricing a step alone: `trace --diff --config`.
Expected<breakeven::CostConfig> step_pricing_config(const ModelArgs& a, int gpus,
                                                    const std::vector<std::string>& gpu_names);
/// The config and offer checks of model_setup alone: record runs them before it starts the
/// command, so that a typo in the config does not cost a training run.
Status check_model(const ModelArgs& a);

/// The pricing options of the model flags, and the GPU models the inputs name.
Expected<breakeven::PriceOptions> price_options(const ModelArgs& a, const extract::Features& features);

/// Notes and warnings of the pricing, on stderr (warnings even with -q: they doubt the answer).
void print_notices(const std::vector<breakeven::Notice>& notices, bool quiet);

}  // namespace gpucost::cli

// gpucost breakeven: the job priced locally and in the cloud, the break-even and what drives it.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/breakeven/attribution.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/outputs/ledger.hpp>
#include <gpucost/outputs/prom_textfile.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/report/breakeven_report.hpp>
#include <gpucost/report/findings_report.hpp>
#include <gpucost/report/listings.hpp>
#include <gpucost/report/priced_views.hpp>

#include <fmt/format.h>

#include <memory>

namespace gpucost::cli {

namespace {

/// Records the run in the ledger opened before any output was written.
Status record_in_ledger(outputs::Ledger& ledger, const breakeven::PricedJob& priced, const extract::Features& features,
                        const std::vector<InputStats>& stats, bool replace) {
  auto run = outputs::make_run_record(priced.result, priced.config, features, outputs::merge_fingerprints(stats),
                                      wall_clock_ns(), GPUCOST_VERSION);
  std::vector<std::string> identities;
  for (const auto& s : stats) identities.push_back(outputs::input_identity(s.path));
  run.run_key = outputs::run_key(run, identities);
  GPUCOST_TRY(ledger.append(run, replace));
  return {};
}

}  // namespace

int run_breakeven(const ModelArgs& a) {
  if (a.follow) return run_breakeven_follow(a);
  if (a.list_clouds) {
    auto catalogue = run_catalogue(a.clouds, a.in.quiet);
    if (!catalogue) return fail(catalogue.error());
    const std::string today = today_date();
    fmt::print("{}", a.json ? report::cloud_offers_json((*catalogue)->offers, today)
                            : report::cloud_offers_table((*catalogue)->offers, today));
    return kOk;
  }
  if (auto fill = breakeven::parse_fill_rule(a.fill); !fill) return fail(fill.error());
  if (!a.by.empty())
    if (auto by = breakeven::parse_attribution_by(a.by); !by) return fail(by.error());
  auto run = model_setup(a);
  if (!run) return fail(run.error());
  Inputs& inputs = run->inputs;
  std::vector<InputStats> stats;
  auto features = pipeline::load_features(inputs.probed, inputs.prep, inputs.clock, run->window, stats);
  const int status = finish_inputs(stats, a.in, inputs.clock);
  if (!features) return fail(features.error());
  // Time-of-use windows are read in the logs' zone: --tz, else the zone a features document's logs were
  // read in (one zone), else this machine's.
  if (run->config.tariff_tz.empty())
    run->config.tariff_tz =
        a.in.settings.tz.empty() && !features->logs_tz.empty() && features->logs_tz.find(',') == std::string::npos
            ? features->logs_tz
            : inputs.clock.name();
  return price_and_write(a, std::move(run->config), run->offer, *features, stats, status);
}

int price_and_write(const ModelArgs& a, breakeven::CostConfig config, const std::optional<breakeven::CloudOffer>& offer,
                    const extract::Features& features, const std::vector<InputStats>& stats, int status,
                    const std::string& prom_extra, bool notices) {
  io::WriteOptions mode;
  if (!a.mode.empty()) {
    mode.mode = io::parse_file_mode(a.mode);
    if (!mode.mode)
      return fail(make_error(ErrorKind::usage, fmt::format("--mode: '{}' is not a file mode in octal", a.mode),
                             "e.g. --mode 0644 (owner writes, everyone reads)"));
  }
  auto options = price_options(a, features);
  if (!options) return fail(options.error());
  auto priced = breakeven::price_job(std::move(config), offer, features, *options);
  if (!priced) return fail(priced.error());
  if (notices) print_notices(priced->notices, a.in.quiet);
  const breakeven::Result& result = priced->result;
  const breakeven::CostConfig& config_used = priced->config;
  report::BreakevenExtras extras = report::extras_of(*priced, features.logs_tz);
  extras.explain = a.explain;
  if (!a.by.empty())
    if (auto by = breakeven::parse_attribution_by(a.by))
      extras.attribution = breakeven::attribute_cost(result, config_used, features, *by);
  // Checked and opened before anything is written, so that a bad target leaves every output untouched.
  for (const std::string* target : {&a.output, &a.prom, &a.suggest})
    if (auto st = io::check_output_target(*target); !st) return fail(st.error());
  std::optional<outputs::Ledger> ledger;
  if (!a.ledger.empty()) {
    auto opened = outputs::Ledger::open(a.ledger, outputs::Ledger::Mode::create, 10000, mode.mode);
    if (!opened) return fail(opened.error());
    ledger.emplace(std::move(*opened));
  }
  const std::string text = a.json ? report::breakeven_json(result, config_used, features, extras)
                           : a.full || a.explain
                               ? printable_text(report::breakeven_table(result, config_used, features, extras))
                               : printable_text(report::breakeven_summary(result, config_used, features, extras));
  if (auto st = io::write_file_atomically(a.output, text, mode); !st) return fail(st.error());
  if (ledger)
    if (auto st = record_in_ledger(*ledger, *priced, features, stats, !a.ledger_append); !st) return fail(st.error());
  if (!a.prom.empty())
    if (auto st = io::write_file_atomically(
            a.prom, outputs::prometheus_textfile(result, config_used, features) + prom_extra, mode);
        !st)
      return fail(st.error());
  if (!a.suggest.empty()) {
    const std::string note = printable_text(
        report::findings_markdown(result, config_used, features, extras.findings ? &*extras.findings : nullptr));
    if (auto st = io::write_file_atomically(a.suggest, note, mode); !st) return fail(st.error());
  }
  return a.fail_above && result.above_line ? kAboveLine : status;
}

Runner define_breakeven(CLI::App& cmd) {
  auto args = std::make_shared<ModelArgs>();
  add_input_options(&cmd, args->in);
  add_prometheus_options(&cmd, args->in);
  add_model_options(&cmd, *args);
  add_slurm_option(&cmd, args->in);
  add_work_options(&cmd, args->in);
  cmd.add_flag("--list-clouds", args->list_clouds,
               "list the cloud catalogue (with --json: as JSON) and exit; gpucost offers list filters it")
      ->group("Model");
  cmd.add_flag("--compare-clouds", args->compare_clouds,
               "price the job on every catalogue offer that can run it (GPU count and memory), cheapest first")
      ->group("Model");
  cmd.add_option("--compare-kinds", args->compare_kinds,
                 "the kinds of offer --compare-clouds ranks: on-demand (default), spot, reserved-1y, reserved-3y, "
                 "savings-plan, comma-separated, or all")
      ->type_name("KINDS")
      ->group("Model");
  add_attribution_option(&cmd, *args);
  cmd.add_flag("--follow", args->follow,
               "after reading the files, keep reading what is appended (as prep --follow) and price the window so "
               "far every --every, rewriting -o and --prom; SIGTERM, SIGINT, --to or the training log's end ends "
               "it with the last update and the --ledger row (docs/live.md)")
      ->group("Live");
  cmd.add_option("--every", args->every, "--follow: how often the answer is updated, e.g. 60s, 5m (default 60s)")
      ->type_name("DURATION")
      ->group("Live");
  cmd.add_option("--window", args->live_window,
                 "--follow: price a sliding window of this length ending at the latest sample (e.g. 1h), not "
                 "everything since the start")
      ->type_name("DURATION")
      ->group("Live");
  cmd.add_option("--mc", args->mc, "Monte-Carlo draws over the config's [ranges]")->type_name("N")->group("Model");
  cmd.add_option("--seed", args->seed, "seed of the Monte-Carlo draws (default 1)")->type_name("N")->group("Model");
  add_output_options(&cmd, *args);
  cmd.footer(footer_with_example("gpucost breakeven --config my.toml dmon.log"));
  return [args] { return run_breakeven(*args); };
}

}  // namespace gpucost::cli

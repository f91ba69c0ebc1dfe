// gpucost report: the verdict, charts, timelines and indicators as one HTML file.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/pipeline/report_sources.hpp>
#include <gpucost/report/html_report.hpp>
#include <gpucost/report/priced_views.hpp>

#include <memory>

namespace gpucost::cli {

int run_report(const ReportArgs& args) {
  const ModelArgs& a = args.model;
  auto run = model_setup(a);
  if (!run) return fail(run.error());
  breakeven::CostConfig& config = run->config;
  Inputs& inputs = run->inputs;
  std::vector<InputStats> stats;
  auto sources = pipeline::load_report_sources(inputs.probed, inputs.prep, inputs.clock, run->window, stats);
  const int status = finish_inputs(args.diagnostics ? stats : std::vector<InputStats>{}, a.in, inputs.clock);
  if (!sources) return fail(sources.error());
  if (config.tariff_tz.empty()) config.tariff_tz = inputs.clock.name();
  auto options = price_options(a, sources->features);
  if (!options) return fail(options.error());
  options->explain = true;  // the report always lists the findings
  options->sensitivity = false;
  auto priced = breakeven::price_job(std::move(config), run->offer, sources->features, *options);
  if (!priced) return fail(priced.error());
  if (args.diagnostics) print_notices(priced->notices, a.in.quiet);
  const breakeven::Result& result = priced->result;
  const report::BreakevenExtras extras = report::extras_of(*priced, sources->features.logs_tz);
  const auto findings = report::report_findings(*priced->findings, priced->config, result.above_line);
  const std::string html = report::html_report(
      {result, priced->config, *sources, extras, findings,
       report::ReportOptions{args.temp_threshold_c, std::string("gpucost ") + GPUCOST_VERSION, args.generated_at}});
  return write_result(a.output, html, status);
}

Runner define_report(CLI::App& cmd) {
  auto args = std::make_shared<ReportArgs>();
  add_input_options(&cmd, args->model.in);
  add_prometheus_options(&cmd, args->model.in);
  add_model_options(&cmd, args->model);
  add_work_options(&cmd, args->model.in);
  cmd.add_option("--temp-threshold", args->temp_threshold_c,
                 "temperature drawn as the threshold line, \u00b0C (default 78)")
      ->type_name("C")
      ->check(CLI::Range(0.0, 150.0))
      ->group("Output");
  cmd.add_option("--generated-at", args->generated_at,
                 "text for the footer, e.g. \"$(date -Is)\" (the report never reads the clock)")
      ->type_name("TEXT")
      ->group("Output");
  cmd.add_option("-o,--output", args->model.output, "output file (written atomically), - = stdout")
      ->type_name("FILE")
      ->group("Output");
  cmd.footer(footer_with_example("gpucost report --config my.toml -o report.html query.csv kern.log"));
  return [args] { return run_report(*args); };
}

}  // namespace gpucost::cli

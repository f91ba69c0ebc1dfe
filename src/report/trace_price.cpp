#include <gpucost/breakeven/config.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/report/trace_diff.hpp>
#include <gpucost/report/trace_price.hpp>

#include <fmt/format.h>

namespace gpucost::report {

TracePrice price_traces(const std::vector<TraceEventCopy>& events, const breakeven::CostConfig& config,
                        std::optional<std::pair<std::int64_t, std::int64_t>> steps) {
  // The figures a side of --diff has; the jobs' waits and the fingerprint do not enter the price.
  const RunFigures f = run_figures(TraceRun{"", events, {}, {}}, steps);
  TracePrice p;
  p.config = &config;
  p.steps = f.steps;
  p.step_ns = f.step_ns;
  p.busy_share = f.busy_share.value_or(1.0);
  if (f.step_ns) p.step = breakeven::step_cost(config, *f.step_ns / 1e9, p.busy_share);
  return p;
}

std::string trace_price_text(const TracePrice& p) {
  if (p.config == nullptr) return {};
  const breakeven::CostConfig& c = *p.config;
  if (!p.step) return "\ncost per step: no step marks (ProfilerStep#N) in the traces: nothing to price\n";
  const std::string cloud = c.cloud_name.empty() ? "the config's offer" : c.cloud_name;
  std::string t = fmt::format("\ncost per step ({} step{} of {}, GPU busy {:.1f} %; cloud: {})\n", p.steps,
                              p.steps == 1 ? "" : "s", human_ns(*p.step_ns), 100.0 * p.busy_share, cloud);
  t += fmt::format("  local, without GPU energy  {:.4g} {}\n", p.step->local, c.currency);
  t += fmt::format("  cloud                      {:.4g} {}  (billed share of the step {:.3f})\n", p.step->cloud,
                   c.currency, p.step->q);
  t += "  the GPUs' energy is left out: a trace has no power samples (breakeven with the run's telemetry has it)\n";
  return t;
}

void trace_price_json(io::JsonWriter& w, const TracePrice& p) {
  w.key("cost_per_step");
  if (p.config == nullptr || !p.step) {
    w.null();
    return;
  }
  w.object().key("currency").str(p.config->currency).key("cloud_offer").str(p.config->cloud_name);
  w.key("steps").integer(p.steps).key("step_ns").num(*p.step_ns).key("busy_share").num(p.busy_share);
  w.key("local").num(p.step->local).key("cloud").num(p.step->cloud).key("q").num(p.step->q);
  w.key("gpu_energy").str("not included: the traces have no power samples");
  w.close();
}

}  // namespace gpucost::report

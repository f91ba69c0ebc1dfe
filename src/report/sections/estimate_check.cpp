// --estimate beside a measurement: the GPU model's energy bounds against what each GPU measured
// (docs/cost-model.md, "Estimated energy").
#include "report/sections/sections.hpp"

#include <gpucost/breakeven/energy_estimate.hpp>

#include <fmt/format.h>

namespace gpucost::report::sections {

/// --estimate: the GPU model beside the measured energy, per GPU.
void estimate_check_json(io::JsonWriter& w, const Answer& a) {
  if (!a.extras.beside) return;
  const breakeven::EstimateBeside& m = *a.extras.beside;
  w.line("  ").key("estimate_check").object().key("table_entry").str(m.estimate.model);
  w.key("gpu_source").str(m.estimate.gpu_source).key("idle_w").num(m.estimate.power.idle_w);
  w.key("idle_basis").str(m.estimate.power.idle_basis).key("tdp_w").num(m.estimate.power.tdp_w);
  w.key("gpus").array();
  for (const breakeven::EstimateCheck& c : m.gpus) {
    w.line("    ").item().object().key("gpu").integer(c.gpu).key("busy").num(c.busy);
    w.key("measured_kwh").num(c.measured_kwh).key("estimated_kwh").num(c.estimated_kwh);
    w.key("low_kwh").num(c.low_kwh).key("high_kwh").num(c.high_kwh).key("inside").boolean(c.inside()).close();
  }
  w.close(m.gpus.empty() ? "" : "\n  ").close();
}

/// --estimate: the model's bounds beside the measured energy, per GPU.
std::string estimate_check_full(const Answer& a) {
  if (!a.extras.beside) return {};
  const breakeven::EstimateBeside& m = *a.extras.beside;
  std::string b = fmt::format("\nestimate beside the measurement ({}, idle {:.0f} W {}, board {:.0f} W)\n",
                              m.estimate.model, m.estimate.power.idle_w,
                              m.estimate.power.idle_measured ? "measured" : "assumed", m.estimate.power.tdp_w);
  b += fmt::format("  {:<5}{:>8}{:>14}{:>14}{:>22}  {}\n", "gpu", "busy", "measured kWh", "model kWh", "bounds kWh",
                   "measured");
  for (const breakeven::EstimateCheck& c : m.gpus)
    b += fmt::format("  {:<5}{:>7.1f}%{:>14.4f}{:>14.4f}{:>22}  {}\n", c.gpu, c.busy * 100, c.measured_kwh,
                     c.estimated_kwh, fmt::format("{:.4f} .. {:.4f}", c.low_kwh, c.high_kwh),
                     c.inside()                   ? "inside the bounds"
                     : c.measured_kwh < c.low_kwh ? "BELOW the lower bound"
                                                  : "ABOVE the upper bound");
  return b;
}

}  // namespace gpucost::report::sections

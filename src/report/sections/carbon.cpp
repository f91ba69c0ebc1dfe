// Carbon (docs/cost-model.md, "Carbon"): each side's kg CO2e with the energy, overhead and grid
// intensity it rests on; the cloud's is an estimate.
#include "report/sections/sections.hpp"

#include <gpucost/breakeven/carbon.hpp>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// One side's carbon, its object left open: the cloud's adds what its estimate rests on.
void json_carbon_side(io::JsonWriter& w, const breakeven::CarbonSide& s) {
  w.object().key("kg_co2e").num(s.kg).key("kwh").num(s.kwh).key("it_kwh").num(s.it_kwh);
  w.key("overhead").num(s.overhead).key("overhead_basis").str(s.overhead_basis);
  w.key("intensity_g_per_kwh").num(s.intensity_g_per_kwh).key("intensity_basis").str(s.intensity_basis);
  w.key("country").str_or_null(s.country).key("time_of_use").boolean(s.time_of_use);
  if (!s.kg) w.key("reason").str(s.reason);
}

// "0.123 kg CO2e: 0.3075 kWh (x1.20 cooling) at 400 g/kWh (carbon.intensity_g_per_kwh (config))".
std::string carbon_side_text(const breakeven::CarbonSide& s, const std::string& overhead) {
  if (!s.kg) return "unknown: " + s.reason;
  return fmt::format("{} kg CO2e: {:.4f} kWh (x{:.2f} {}) at {:.5g} g/kWh ({})", breakeven::kg_text(*s.kg), s.kwh,
                     s.overhead, overhead, *s.intensity_g_per_kwh, s.intensity_basis);
}

}  // namespace

void carbon_json(io::JsonWriter& w, const Answer& a) {
  const breakeven::CarbonResult& c = a.result.carbon;
  if (!c.computed) return;
  w.line("  ").key("carbon").object().key("unit").str("kg CO2e").key("local");
  json_carbon_side(w, c.local);
  w.close().line("    ").key("cloud");
  json_carbon_side(w, c.cloud);
  w.key("estimate").boolean(true).key("energy_basis").str(c.cloud_energy_basis).close().close();
}

std::string carbon_full(const Answer& a) {
  const breakeven::CarbonResult& c = a.result.carbon;
  if (!c.computed) return {};
  std::string b = fmt::format("carbon    local  {}\n", carbon_side_text(c.local, "cooling"));
  b += fmt::format("          cloud  {}{}\n", carbon_side_text(c.cloud, c.cloud.overhead_basis),
                   c.cloud.kg ? "; an estimate: the cloud GPUs at the local mean power" : "");
  return b;
}

}  // namespace gpucost::report::sections

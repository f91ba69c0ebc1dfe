// The cost per unit of work (docs/cost-model.md, "Cost per unit of work"): per step, 1 k samples,
// 1 M tokens and epoch on each side, and the break-even in work.
#include "report/sections/sections.hpp"

#include <gpucost/breakeven/carbon.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <initializer_list>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// The first unit of `order` (nouns) that has a count; null when none.
const breakeven::UnitCost* first_counted(const breakeven::WorkCosts& w, std::initializer_list<std::string_view> order) {
  for (const std::string_view noun : order)
    if (const auto* u = w.find(noun); u != nullptr && u->count) return u;
  return nullptr;
}

void json_work_unit(io::JsonWriter& w, const breakeven::UnitCost& u) {
  w.key(u.unit->noun).object().key("per").num(u.unit->per).key("per_label").str(u.unit->per_label);
  w.key("count").num(u.count);
  if (!u.count) {
    w.key("reason").str(u.reason).close();
    return;
  }
  w.key("per_hour").num(u.per_hour).key("local").num(u.local).key("cloud").num(u.cloud);
  w.key("local_kg_co2e").num(u.local_kg).key("cloud_kg_co2e").num(u.cloud_kg);
  w.key("breakeven_use_per_year").num(u.breakeven_per_year).key("breakeven_use_per_month").num(u.breakeven_per_month);
  if (!u.breakeven_per_year) w.key("breakeven_use_reason").str(u.use_reason);
  w.key("breakeven_job").num(u.breakeven_job);
  if (!u.breakeven_job) w.key("breakeven_job_reason").str(u.job_reason);
  w.close();
}

/// kg CO2e per unit of work, when a side's grid intensity is known (docs/cost-model.md, "Carbon").
std::string table_work_carbon(const breakeven::WorkCosts& w) {
  std::string b;
  for (const breakeven::UnitCost& u : w.units) {
    if (!u.count || (!u.local_kg && !u.cloud_kg)) continue;
    const auto co2e = [](const std::optional<double>& v) { return v ? breakeven::co2e_text(*v) : "unknown"; };
    b += fmt::format("  {:<14}  {:>16}  {:>16}  CO2e (the cloud's an estimate)\n", u.unit->per_label, co2e(u.local_kg),
                     co2e(u.cloud_kg));
  }
  return b;
}

}  // namespace

void work_json(io::JsonWriter& w, const Answer& a) {
  const breakeven::WorkCosts costs = breakeven::work_costs(a.result, a.features.host_indicators);
  w.line("  ").key("work").object().key("window_h").num(costs.window_h);
  for (const breakeven::UnitCost& u : costs.units) json_work_unit(w.line("    "), u);
  w.close("\n  ");
}

/// "per unit of work": shown when the features count any work (steps, samples, tokens, epochs).
std::string work_full(const Answer& a) {
  const breakeven::Result& r = a.result;
  const std::string& cur = a.config.currency;
  const breakeven::WorkCosts w = breakeven::work_costs(r, a.features.host_indicators);
  if (!w.any()) return {};
  std::string b =
      fmt::format("\nper unit of work  {:>16}  {:>16}  in the job window ({})\n", "local", "cloud", hours(w.window_h));
  for (const breakeven::UnitCost& u : w.units) {
    if (!u.count || !u.local || !u.cloud) continue;
    b += fmt::format("  {:<14}  {:>16}  {:>16}  {} {}, {} an hour\n", u.unit->per_label,
                     breakeven::unit_money(*u.local) + " " + cur, breakeven::unit_money(*u.cloud) + " " + cur,
                     breakeven::work_amount(*u.count), u.unit->noun, breakeven::work_amount(*u.per_hour));
  }
  for (const breakeven::UnitCost& u : w.units)
    if (u.count && !u.local) b += fmt::format("  {:<14}  none: {}\n", u.unit->per_label, u.reason);
  b += table_work_carbon(w);
  b += "break-even in work\n";
  for (const auto& [label, text] : work_breakeven_texts(r, w)) b += fmt::format("  {:<14}{}\n", label, text);
  return b + "\n";
}

}  // namespace gpucost::report::sections

namespace gpucost::report {

using sections::first_counted;
using sections::hours;

std::vector<std::pair<std::string, std::string>> work_breakeven_texts(const breakeven::Result& r,
                                                                      const breakeven::WorkCosts& w) {
  std::vector<std::pair<std::string, std::string>> out;
  // The use in the unit of the largest count (tokens a month), the job in the most familiar one (steps).
  if (const auto* u = first_counted(w, {"tokens", "samples", "steps", "epochs"})) {
    const std::string_view noun = u->unit->noun;
    if (u->breakeven_per_month)
      out.emplace_back(
          "use",
          fmt::format("owning pays above {} {} a month ({:.0f} h/year at {} {} an hour){}",
                      breakeven::work_amount(*u->breakeven_per_month), noun, *r.use_hours_per_year.value,
                      breakeven::work_amount(*u->per_hour), noun,
                      *r.use_hours_per_year.value > 8760 ? ": more than a year holds, renting wins at any use" : ""));
    else if (u->per_hour)
      out.emplace_back("use", "none: " + u->use_reason);
  }
  if (const auto* u = first_counted(w, {"steps", "epochs", "samples", "tokens"})) {
    if (u->breakeven_job && *u->breakeven_job > 0)
      out.emplace_back("job",
                       fmt::format("local is cheaper for jobs of fewer than {} {} (break-even job length {})",
                                   breakeven::work_amount(*u->breakeven_job), u->unit->noun, hours(r.job_hours)));
    else if (u->breakeven_job)
      out.emplace_back("job", "the cloud is cheaper at every job length");
    else if (u->per_hour)
      out.emplace_back("job", "none: " + u->job_reason);
  }
  return out;
}

}  // namespace gpucost::report

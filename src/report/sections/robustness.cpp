// How robust the verdict is: the premium's range over what is not known exactly, the Monte Carlo
// draws and the sensitivity to each parameter (docs/cost-model.md, "Robustness").
#include "report/sections/sections.hpp"

#include <fmt/ranges.h>
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// The one-screen answer names this many parameters that move the premium most.
constexpr std::size_t kDriversShown = 3;

/// The sensitivity table's parameters in a user's words.
std::string parameter_words(std::string_view parameter) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kWords = {{
      {"rate_per_hour", "cloud rate"},
      {"use_hours_per_year", "use per year"},
      {"speed_ratio", "cloud GPU speed"},
      {"lifetime_years", "GPU lifetime"},
      {"hardware_price", "hardware price"},
      {"hourly_wage", "hourly wage"},
      {"maintenance_hours_per_year", "maintenance hours"},
      {"price_per_kwh, cooling_factor", "electricity price"},
      {"residual_fraction", "resale value"},
      {"billing_increment_s", "billing step"},
      {"billing_minimum_s", "minimum billed time"},
      {"cold_start_s", "cloud start-up time"},
      {"system_power_w", "system power"},
      {"idle_power_w", "idle power"},
      {"fixed_per_job", "fixed cost per job"},
      {"cooling_factor", "cooling overhead"},
  }};
  for (const auto& [name, words] : kWords)
    if (name == parameter) return std::string(words);
  if (parameter.starts_with("incident_hours.")) return "hours per incident";
  return std::string(parameter);
}

}  // namespace

void robustness_json(io::JsonWriter& w, const Answer& a) {
  const BreakevenExtras& x = a.extras;
  w.line("  ").key("premium_range").object().key("low").num(x.range.low).key("high").num(x.range.high);
  if (!x.range.low) {
    w.key("reason").str(x.range.reason);
  } else {
    w.key("job_hours_low").num(x.range.job_hours_low).key("job_hours_high").num(x.range.job_hours_high);
    w.key("use_hours_per_year_low").num(x.range.use_hours_low);
    w.key("use_hours_per_year_high").num(x.range.use_hours_high);
  }
  w.key("parts").array();
  for (const auto& part : x.range.parts) {
    w.item().object().key("input").str(part.name).key("span").str(part.span);
    w.key("low").num(part.low).key("high").num(part.high).close();
  }
  w.close().key("not_bounded").array();
  for (const std::string& m : x.range.missing) w.item().str(m);
  w.close().close();
  w.line("  ").key("sensitivity").array();
  for (const auto& sw : x.sensitivity) {
    w.line("    ").item().object().key("parameter").str(sw.parameter).key("value").num(sw.base);
    w.key("premium_at_0_8").num(sw.premium_low).key("premium_at_1_2").num(sw.premium_high);
    w.key("premium_min").num(sw.premium_min).key("premium_max").num(sw.premium_max);
    w.key("swing").num(sw.swing()).close();
  }
  w.close(x.sensitivity.empty() ? "" : "\n  ");
  if (!x.monte_carlo_reason.empty())
    w.line("  ").key("monte_carlo").object().key("draws").integer(0).key("reason").str(x.monte_carlo_reason).close();
  if (x.monte_carlo) {
    const auto& m = *x.monte_carlo;
    w.line("  ").key("monte_carlo").object().key("draws").count(m.draws).key("seed").count(m.seed);
    w.key("probability_local_cheaper").num(m.probability_local_cheaper);
    w.key("probability_above_line").num(m.probability_above_line);
    w.key("premium_p05").num(m.premium_p05).key("premium_p50").num(m.premium_p50);
    w.key("premium_p95").num(m.premium_p95).close();
  }
}

std::string robustness_full(const Answer& a) {
  const BreakevenExtras& x = a.extras;
  const breakeven::JobInputs& job = a.result.job;
  std::string b;
  // The counters' increase is exact: only the time they do not cover is bounded.
  const bool by_counter = job.energy_method == extract::kEnergyByCounter;
  if (x.range.low && x.range.high) {
    b += fmt::format("premium range          {} .. {}, over every combination of:\n", pct(*x.range.low),
                     pct(*x.range.high));
    for (const auto& part : x.range.parts)
      b += fmt::format("  {:<21}{} .. {}  ({}{})\n", part.name, pct(part.low), pct(part.high), part.span,
                       part.name != "energy"                          ? ""
                       : job.energy_method == extract::kEnergyByModel ? ": the GPU model's bounds"
                       : by_counter                                   ? ": the counters, the time they miss"
                                                                      : ": sums of the samples, +-5 W, gaps");
    for (const auto& m : x.range.missing) b += fmt::format("  not bounded          {}\n", m);
  } else {
    b += fmt::format("premium range          unknown: {}\n", x.range.reason);
  }
  if (!x.monte_carlo_reason.empty()) b += fmt::format("monte carlo            none: {}\n", x.monte_carlo_reason);
  if (x.monte_carlo) {
    const auto& m = *x.monte_carlo;
    b += fmt::format(
        "monte carlo            {} draws (seed {}): P(local cheaper) {:.1f} %, P(above line) {:.1f} %, "
        "premium p5 {} p50 {} p95 {}\n",
        m.draws, m.seed, m.probability_local_cheaper * 100, m.probability_above_line * 100, pct(m.premium_p05),
        pct(m.premium_p50), pct(m.premium_p95));
  }
  if (!x.sensitivity.empty()) {
    b += "\nsensitivity (premium with each parameter from 0.8x to 1.2x, largest swing first)\n";
    b += fmt::format("  {:<32}{:>12}  {:>9}  {:>9}  {:>19}  {:>8}\n", "parameter", "value", "at 0.8x", "at 1.2x",
                     "lowest .. highest", "swing");
    std::vector<std::string> still;
    for (const auto& s : x.sensitivity) {
      // A swing that prints as 0.0 pp says nothing: listed by name under the table.
      if (s.swing() < 0.0005) {
        still.push_back(s.parameter);
        continue;
      }
      b += fmt::format("  {:<32}{:>12.6g}  {:>9}  {:>9}  {:>19}  {:>6.1f} pp\n", s.parameter, s.base,
                       pct(s.premium_low), pct(s.premium_high),
                       fmt::format("{} .. {}", pct(s.premium_min), pct(s.premium_max)), s.swing() * 100);
    }
    if (!still.empty()) b += fmt::format("  no effect: {}\n", fmt::join(still, ", "));
  }
  return b;
}

/// The parameters that move the premium most, in words, with the size of their swing.
std::string robustness_summary(const Answer& a) {
  const std::vector<breakeven::Swing>& sensitivity = a.extras.sensitivity;
  std::string parts;
  std::size_t shown = 0;
  for (const auto& s : sensitivity) {
    if (shown == kDriversShown || s.swing() < 0.0005) break;
    parts += fmt::format("{}{} {:.1f} pp", shown == 0 ? "" : ", ", parameter_words(s.parameter), s.swing() * 100);
    ++shown;
  }
  if (shown == 0) return {};
  return wrapped("moved most   " + parts + " (from 0.8x to 1.2x)", 13);
}

}  // namespace gpucost::report::sections

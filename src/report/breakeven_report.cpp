#include <gpucost/report/breakeven_report.hpp>

#include <gpucost/breakeven/carbon.hpp>
#include <gpucost/breakeven/speed_projection.hpp>
#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/report/attribution_report.hpp>
#include <gpucost/report/findings_report.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>

namespace gpucost::report {

namespace {

// The step projected from the trace (speed_ratio_source "trace"), or why a split gave none;
// nothing without a trace's split, so documents without one keep their shape.
void append_speed_projection(io::JsonWriter& w, const breakeven::CostConfig& c) {
  w.text_if("speed_projection_missing", c.speed_projection_missing);
  if (!c.speed_projection) return;
  const breakeven::SpeedProjection& p = *c.speed_projection;
  w.key("speed_projection").object().key("local_model").str(p.local_model).key("cloud_model").str(p.cloud_model);
  w.key("steps").integer(p.steps).key("step_marks").boolean(p.marked);
  for (const auto& [key, v] :
       {std::pair{"ratio", p.ratio()}, std::pair{"step_ratio", p.step_ratio()},
        std::pair{"local_step_s", p.local_step_s}, std::pair{"projected_step_s", p.projected_step_s},
        std::pair{"tensor_s", p.tensor_s}, std::pair{"tensor_projected_s", p.tensor_projected_s},
        std::pair{"tensor_ratio", p.tensor_ratio}, std::pair{"memory_s", p.memory_s},
        std::pair{"memory_projected_s", p.memory_projected_s}, std::pair{"memory_ratio", p.memory_ratio},
        std::pair{"unknown_s", p.unknown_s}, std::pair{"unknown_projected_s", p.unknown_projected_s},
        std::pair{"unknown_kernel_share", p.unknown_kernel_share}, std::pair{"exposed_comm_s", p.comm_s},
        std::pair{"exposed_comm_projected_s", p.comm_projected_s},
        std::pair{"interconnect_ratio", p.interconnect_ratio}, std::pair{"unchanged_s", p.rest_s}})
    w.key(key).num(v);
  w.close();
}

/// One break-even on a line of its own, and why there is none.
void solution(io::JsonWriter& w, const std::string& key, const breakeven::Solution& s) {
  w.line("    ").key(key).num(s.value);
  if (!s.value) w.key(key + "_reason").str(s.reason);
}

/// Defaults that drive the answer: printed as "default" when the config did not set them.
constexpr std::array<std::string_view, 2> kDrivingDefaults = {"local.lifetime_years", "local.use_hours_per_year"};

std::string default_mark(const breakeven::CostConfig& c, std::string_view key) {
  return c.is_set(key) ? std::string() : std::string(" (default)");
}

// Every crossing of one break-even, in order: "hours" and on which side of it the local machine
// fares better (`side_key`: "local_cheaper" for T*, "below_line" for T_λ).
void crossings_json(io::JsonWriter& w, const std::string& key, std::string_view side_key,
                    const breakeven::Crossings& c) {
  w.line("    ").key(key).array();
  for (const auto& point : c.points)
    w.item()
        .object()
        .key("hours")
        .num(point.hours)
        .key(side_key)
        .str(point.local_cheaper_below ? "below" : "above")
        .close();
  w.close();
  if (c.omitted > 0) w.line("    ").key(key + "_omitted").integer(static_cast<std::int64_t>(c.omitted));
}

std::string money(double v, const std::string& cur) { return fmt::format("{:.2f} {}", v, cur); }

std::string hours(double h) { return text::duration_hours(h); }

std::string hours(const breakeven::Solution& s) { return s.value ? hours(*s.value) : "none"; }

// The stretches on the local side after the first crossing, in words ("between 1.00 h and
// 1.50 h and beyond 3.00 h"; a long run of rounding flips as a count), then where the other side
// holds for good ("; <settled> beyond 3.00 h"). Empty with a single crossing.
std::string later_stretches(const breakeven::Crossings& c, std::string_view settled) {
  auto stretches = breakeven::local_side_stretches(c);
  if (!stretches.empty() && stretches.front().from == 0) stretches.erase(stretches.begin());
  if (stretches.empty()) return {};
  const std::size_t count = stretches.size() + c.omitted / 2;
  std::string out;
  if (count <= 3) {
    for (std::size_t i = 0; i < stretches.size(); ++i) {
      const auto& s = stretches[i];
      out += i == 0 ? "" : i + 1 == stretches.size() ? " and " : ", ";
      out += s.to < 0 ? "beyond " + hours(s.from) : fmt::format("between {} and {}", hours(s.from), hours(s.to));
    }
  } else {
    out = fmt::format("in {} stretches between {} and {} (just after each billing step)", count,
                      hours(stretches.front().from), hours(stretches.back().to));
  }
  if (stretches.back().to >= 0) out += fmt::format("; {} beyond {}", settled, hours(stretches.back().to));
  return out;
}

/// One fault (or interruption): kind and code of its first member (as one Xid was listed before
/// faults), count = member events, and what it is made of.
void json_fault(io::JsonWriter& w, const breakeven::IncidentCost& ic) {
  const extract::WindowFault& f = ic.fault;
  const extract::FaultMember first = f.members.empty() ? extract::FaultMember{} : f.members.front();
  w.object().key("ts").str(format_utc(f.ts_ns)).key("last_ts").str(format_utc(f.last_ts_ns));
  w.key("kind").str(first.kind).key("device").str(f.device).key("bucket").str(f.bucket);
  if (!ic.priced_on.empty()) w.key("cause").str(f.cause).key("priced_on").str(ic.priced_on);  // a fault
  w.key("code").integer(first.code).key("count").integer(f.count).key("members").array();
  for (const extract::FaultMember& m : f.members)
    w.item().object().key("kind").str(m.kind).key("code").integer(m.code).key("count").integer(m.count).close();
  w.close().key("what").str(extract::fault_members_text(f)).key("operator_hours").num(ic.hours);
  w.key("cost").num(ic.cost).key("downtime_s").num(f.downtime_s).close();
}

void json_incidents(io::JsonWriter& w, const breakeven::Result& r) {
  w.line("  ").key("incidents").array();
  for (const breakeven::IncidentCost& ic : r.incidents) json_fault(w.line("    ").item(), ic);
  w.close(r.incidents.empty() ? "" : "\n  ");
  w.line("  ").key("faults").object().key("rule").str(breakeven::fault_rule_name(r.fault_rule));
  w.key("application_count").integer(static_cast<std::int64_t>(r.application_faults));
  w.key("application_cost").num(r.application_fault_cost).key("cloud_cost").num(r.cloud_fault_cost);
  w.key("hardware_count").integer(static_cast<std::int64_t>(r.hardware_faults));
  w.key("hardware_cost").num(r.hardware_fault_cost).key("window_from_faults").boolean(r.job.window_from_faults);
  w.close();
  if (!r.fault_note.empty()) w.line("  ").key("fault_note").str(r.fault_note);
}

void json_electricity(io::JsonWriter& w, const breakeven::Result& r, const breakeven::CostConfig& c,
                      const BreakevenExtras& x) {
  // The zone matters only to time-of-use windows: a flat tariff reports none.
  w.line("  ").key("electricity").object().key("time_of_use").boolean(!c.tou.empty());
  w.key("tz");
  if (c.tou.empty())
    w.null();
  else
    w.str(x.tariff_tz);
  w.key("flat_price_per_kwh").num(c.price_per_kwh).key("mean_price_per_kwh").num(r.prices.mean);
  w.key("gpu_price_per_kwh").num(r.prices.gpu).key("system_price_per_kwh").num(r.prices.system);
  w.key("gpu_kwh").num(r.energy_kwh).key("system_kwh").num(r.system_kwh).key("cooling_factor").num(c.cooling_factor);
  w.close();
}

void json_cloud(io::JsonWriter& w, const CloudRank& k, std::size_t rank) {
  w.object().key("rank").count(rank).key("name").str(k.name);
  w.key("provider").str(k.provider).key("instance").str(k.instance).key("gpu_model").str(k.gpu_model);
  w.key("gpus").integer(k.gpus).key("rate_per_hour").num(k.rate_per_hour).key("offer_currency").str(k.currency);
  w.key("exchange_rate").num(k.exchange_rate).key("speed_ratio").num(k.speed_ratio);
  w.key("speed_ratio_source").str(k.speed_ratio_source).key("speed_ratio_basis").str(k.speed_ratio_basis);
  w.key("speed_ratio_low").num(k.speed_ratio_low).key("speed_ratio_high").num(k.speed_ratio_high);
  w.key("billed_s").num(k.billed_s).key("total").num(k.total).key("premium").num(k.premium);
  w.key("date_seen").str(k.date_seen).key("kind").str(breakeven::offer_kind_name(k.kind));
  w.key("rate_basis").str(k.rate_basis).key("confirmed").boolean(k.confirmed);
  w.key("price_age_days");
  if (k.age_days)
    w.integer(*k.age_days);
  else
    w.null();
  w.close();
}

// Where the offer's price comes from and how old it is: the verdict is only as good as the price.
std::string table_price_line(const breakeven::CostConfig& c) {
  std::string age = c.offer_age_days ? fmt::format(", {} days old{}", *c.offer_age_days,
                                                   *c.offer_age_days > breakeven::kStalePriceDays ? " (OLD)" : "")
                                     : std::string();
  std::string line = fmt::format("  {:<12}{:>14}  {} price seen {}{}{}, {}\n", "price", "", c.offer_kind,
                                 c.offer_date_seen, age, c.offer_confirmed ? "" : ", UNCONFIRMED", c.offer_source);
  if (!c.offer_rate_basis.empty()) line += fmt::format("  {:<12}{:>14}  {}\n", "", "", c.offer_rate_basis);
  return line;
}

// Offers that fit, ranked; those that cannot run the job apart, with the reason, never ranked.
void json_clouds(io::JsonWriter& w, const std::vector<CloudRank>& clouds, const std::string& fit_basis) {
  w.line("  ").key("fit_basis").str(fit_basis).line("  ").key("compare_clouds").array();
  std::size_t rank = 0;
  for (const CloudRank& k : clouds)
    if (k.unfit.empty()) json_cloud(w.line("    ").item(), k, ++rank);
  w.close(rank == 0 ? "" : "\n  ");
  w.line("  ").key("unfit_clouds").array();
  bool any = false;
  for (const CloudRank& k : clouds) {
    if (k.unfit.empty()) continue;
    w.line("    ").item().object().key("name").str(k.name).key("gpu_model").str(k.gpu_model).key("reason").str(k.unfit);
    w.close();
    any = true;
  }
  w.close(any ? "\n  " : "");
}

// What gave the priced energy: the GPUs' energy counters, their power samples or both, and the
// power integral beside the counters' (docs/cost-model.md, "Which energy is priced").
void json_energy_method(io::JsonWriter& w, const breakeven::JobInputs& j) {
  w.key("method").str(j.energy_method);
  if (j.energy_method == extract::kEnergyMixed) {
    w.key("gpu_methods").array();
    for (const auto& [gpu, method] : j.gpu_energy_method)
      w.item().object().key("gpu").integer(gpu).key("method").str(method).close();
    w.close();
  }
  w.key("from_power_kwh").num(j.energy_from_power_kwh).key("power_vs_counter_pct").num(j.power_vs_counter_pct);
}

using breakeven::verdict_word;

/// --estimate: the GPU model beside the measured energy, per GPU.
void json_beside(io::JsonWriter& w, const breakeven::EstimateBeside& m) {
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

/// The model behind an estimated energy: the GPU, count and busy share with their sources.
void json_estimate_model(io::JsonWriter& w, const breakeven::EnergyEstimate& e) {
  w.key("low_kwh").num(e.low_kwh).key("high_kwh").num(e.high_kwh);
  w.line("    ").key("model").object().key("gpu").str(e.gpu_name).key("table_entry").str(e.model);
  w.key("gpu_source").str(e.gpu_source).key("gpus").integer(e.gpus).key("gpus_source").str(e.count_source);
  w.key("busy").num(e.busy).key("busy_source").str(e.busy_source).key("idle_w").num(e.power.idle_w);
  w.key("idle_low_w").num(e.power.idle_low_w).key("idle_basis").str(e.power.idle_basis);
  w.key("tdp_w").num(e.power.tdp_w).key("busy_draw_low").num(breakeven::kBusyDrawLow).close();
}

void json_energy_basis(io::JsonWriter& w, const breakeven::JobInputs& j,
                       const std::optional<breakeven::EnergyEstimate>& estimate) {
  const breakeven::EnergyBasis& e = j.energy_basis;
  // Without coverage in the features every figure of the split is unknown: null.
  const auto known = [&e](double v) { return e.known ? std::optional<double>(v) : std::nullopt; };
  w.line("  ").key("coverage").num(known(e.coverage));
  w.line("  ").key("energy").object().key("measured_kwh").num(known(e.measured_kwh));
  w.key("estimated_kwh").num(known(e.estimated_kwh)).key("fill_rule").str(breakeven::fill_rule_name(e.rule));
  w.key("covered_h").num(known(e.covered_h)).key("uncovered_h").num(known(e.uncovered_h));
  w.key("fill_power_w").num(known(e.fill_power_w)).key("window_h").num(e.window_h);
  json_energy_method(w, j);
  if (estimate) json_estimate_model(w, *estimate);
  if (!e.known) w.key("reason").str("the features give no coverage (re-run gpucost extract)");
  w.close();
}

void json_robustness(io::JsonWriter& w, const BreakevenExtras& x) {
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
  if (!x.clouds.empty()) json_clouds(w, x.clouds, x.fit_basis);
}

std::string pct(double v) { return fmt::format("{:+.1f} %", v * 100); }

/// ", until 2024-06-12T10:04:17Z" for a fault of several events (docs/cost-model.md, "Faults").
std::string span_of(const extract::WindowFault& f) {
  if (f.last_ts_ns == f.ts_ns) return {};
  return fmt::format(", until {}", format_utc(f.last_ts_ns));
}

std::string table_incidents(const breakeven::Result& r, const std::string& cur) {
  std::string b;
  if (r.incidents.empty()) return b;
  // One line per fault, in time order, at most kIncidentsShown (the costliest); the rest as one
  // line with their cost and operator time: an Xid storm must not bury the verdict.
  const std::vector<std::size_t> shown = incidents_shown(r);
  b += shown.size() < r.incidents.size()
           ? fmt::format(
                 "incidents (a fault is priced once, at its most severe member's bucket; the {} costliest "
                 "of {}, in time order)\n",
                 shown.size(), r.incidents.size())
           : std::string("incidents (a fault is priced once, at its most severe member's bucket)\n");
  for (const std::size_t i : shown) {
    const auto& ic = r.incidents[i];
    const auto& f = ic.fault;
    const std::string what =
        extract::fault_members_text(f) + (f.bucket.empty() ? "" : " (" + f.bucket + ", " + f.cause + ")");
    b += fmt::format("  {}  {:<26}{:>12}  {} operator time{}{}{}\n", format_utc(f.ts_ns), what, money(ic.cost, cur),
                     hours(ic.hours), span_of(f), f.device.empty() ? std::string() : ", GPU " + f.device,
                     f.downtime_s ? fmt::format(", down {:.0f} s", *f.downtime_s) : std::string(", downtime unknown"));
  }
  if (shown.size() < r.incidents.size()) {
    double cost = 0, operator_h = 0;
    for (std::size_t i = 0; i < r.incidents.size(); ++i)
      if (!std::binary_search(shown.begin(), shown.end(), i)) {
        cost += r.incidents[i].cost;
        operator_h += r.incidents[i].hours;
      }
    b += fmt::format("  \u2026 and {} more (see --json): {}, {} operator time\n", r.incidents.size() - shown.size(),
                     money(cost, cur), hours(operator_h));
  }
  if (r.application_faults + r.hardware_faults > 0) {
    const std::string_view application_side = r.fault_rule == breakeven::FaultRule::both_sides      ? "both sides"
                                              : r.fault_rule == breakeven::FaultRule::hardware_only ? "left out"
                                                                                                    : "local only";
    b += fmt::format("  faults: {} application ({}) {}, {} hardware or unknown (local only) {}\n", r.application_faults,
                     application_side, money(r.application_fault_cost, cur), r.hardware_faults,
                     money(r.hardware_fault_cost, cur));
    if (r.job.window_from_faults)
      b += "  note: the window runs from the first kernel or system event to the last (no telemetry bounds it): "
           "the faults make their own window, so T* and H* take no fault cost per job hour from it\n";
  }
  if (!r.fault_note.empty()) b += "  note: " + r.fault_note + "\n";
  return b;
}

std::string speed_source(const CloudRank& k) {
  if (k.speed_ratio_source == "table" && k.speed_ratio_low && k.speed_ratio_high &&
      *k.speed_ratio_low != *k.speed_ratio_high)
    return fmt::format("table {:.2f}-{:.2f}", *k.speed_ratio_low, *k.speed_ratio_high);
  return k.speed_ratio_source;
}

std::string table_clouds(const std::vector<CloudRank>& clouds, const std::string& cur, const std::string& fit_basis) {
  std::string b = "\ncloud offers that can run this job (cheapest first; list prices as seen on the date shown)\n";
  if (!fit_basis.empty()) b += fmt::format("  {}\n", fit_basis);
  b += fmt::format("  {:>2}  {:<30}{:<14}{:>5}{:>10}{:>7}  {:<19}{:>12}{:>10}  {}\n", "#", "offer", "GPU", "GPUs",
                   fmt::format("{}/h", cur), "speed", "speed from", "job cost", "premium", "seen");
  std::size_t rank = 0;
  std::string converted;
  std::map<std::string_view, std::string> kinds_basis;  // how each kind's listed price became its rate
  for (const CloudRank& k : clouds) {
    if (!k.unfit.empty()) continue;
    b += fmt::format(
        "  {:>2}  {:<30}{:<14}{:>5}{:>10.2f}{:>7.2f}  {:<19}{:>12}{:>10}  {}{}{}\n", ++rank, k.name, k.gpu_model,
        k.gpus, k.rate_per_hour, k.speed_ratio, speed_source(k), money(k.total, cur), pct(k.premium), k.date_seen,
        std::string(k.age_days && *k.age_days > breakeven::kStalePriceDays ? " (old)" : "") +
            (k.confirmed ? "" : " unconfirmed"),
        k.kind == breakeven::OfferKind::on_demand ? "" : fmt::format(" ({})", breakeven::offer_kind_name(k.kind)));
    if (!k.rate_basis.empty()) kinds_basis.emplace(breakeven::offer_kind_name(k.kind), k.rate_basis);
    if (k.currency != cur && converted.find(k.currency) == std::string::npos)
      converted += fmt::format("{}{} x {:g}", converted.empty() ? "" : ", ", k.currency, k.exchange_rate);
  }
  if (rank == 0) b += "  none\n";
  for (const auto& [kind, basis] : kinds_basis) b += fmt::format("  {}: {}\n", kind, basis);
  bool header = false;
  for (const CloudRank& k : clouds) {
    if (k.unfit.empty()) continue;
    if (!header) b += "  cannot run this job (not ranked):\n";
    header = true;
    b += fmt::format("      {:<30}{:<15}{}\n", k.name, k.gpu_model, k.unfit);
  }
  b += fmt::format(
      "  Amounts in {}{}.\n  A speed ratio from the table is the middle of a range (memory-bound to "
      "compute-bound, shown);\n"
      "  measure your job on the cloud GPU and give --speed-ratio.\n",
      cur, converted.empty() ? std::string() : " (offer prices converted: " + converted + ")");
  return b;
}

/// What gave the energy when the GPUs' energy counters did, wholly or in part: "from the GPUs'
/// energy counters; power integral 0.2553 kWh, -1.6 %". Empty for the power samples' integral,
/// the energy every line means unless it says otherwise.
std::string energy_method_text(const breakeven::JobInputs& j) {
  const std::size_t n = j.gpu_energy_method.size();
  if (j.energy_method == extract::kEnergyMixed) {
    std::vector<int> counted, integrated;
    for (const auto& [gpu, method] : j.gpu_energy_method)
      (method == extract::kEnergyByCounter ? counted : integrated).push_back(gpu);
    return fmt::format("from the energy counters of GPU {} and the power samples of GPU {}", fmt::join(counted, ", "),
                       fmt::join(integrated, ", "));
  }
  if (j.energy_method != extract::kEnergyByCounter) return {};
  const std::string source = n == 1 ? "from the GPU's energy counter" : "from the GPUs' energy counters";
  if (!j.energy_from_power_kwh || !j.power_vs_counter_pct)
    return source + (j.energy_from_power_kwh ? "" : "; no power samples to cross-check");
  return fmt::format("{}; power integral {:.4f} kWh, {:+.1f} %", source, *j.energy_from_power_kwh,
                     *j.power_vs_counter_pct);
}

/// "measured  energy 0.2594 kWh" when every sample interval was measured; else the split:
/// "energy    1.5565 kWh (0.2594 measured over 40.2 min, 1.2971 estimated for 3.33 h without samples at 389 W mean)".
/// When energy counters gave it, the line says so in the parentheses (energy_method_text).
std::string energy_line(const breakeven::JobInputs& j, double kwh) {
  const breakeven::EnergyBasis& e = j.energy_basis;
  const std::string method = energy_method_text(j);
  const std::string also = method.empty() ? "" : "; " + method;
  if (!e.known)
    return fmt::format("energy    {:.4f} kWh (how much was measured is unknown: no coverage in the features{})", kwh,
                       also);
  if (e.rule == breakeven::FillRule::none && e.uncovered_h > 0)
    return fmt::format(
        "measured  energy {:.4f} kWh over {} with samples (--fill none: {} without samples "
        "not priced{})",
        kwh, hours(e.covered_h), hours(e.uncovered_h), also);
  if (e.estimated_kwh < 0.00005)  // invisible at 4 decimals
    return method.empty() ? fmt::format("measured  energy {:.4f} kWh", kwh)
                          : fmt::format("measured  energy {:.4f} kWh ({})", kwh, method);
  return fmt::format(
      "energy    {:.4f} kWh ({:.4f} measured over {}, {:.4f} estimated for {} without samples "
      "at {:.0f} W {}{})",
      kwh, e.measured_kwh, hours(e.covered_h), e.estimated_kwh, hours(e.uncovered_h), e.fill_power_w,
      e.rule == breakeven::FillRule::idle ? "idle" : "mean", also);
}

// --- carbon (docs/cost-model.md, "Carbon"): one self-contained block in each output ---

/// One side's carbon, its object left open: the cloud's adds what its estimate rests on.
void json_carbon_side(io::JsonWriter& w, const breakeven::CarbonSide& s) {
  w.object().key("kg_co2e").num(s.kg).key("kwh").num(s.kwh).key("it_kwh").num(s.it_kwh);
  w.key("overhead").num(s.overhead).key("overhead_basis").str(s.overhead_basis);
  w.key("intensity_g_per_kwh").num(s.intensity_g_per_kwh).key("intensity_basis").str(s.intensity_basis);
  w.key("country").str_or_null(s.country).key("time_of_use").boolean(s.time_of_use);
  if (!s.kg) w.key("reason").str(s.reason);
}

void json_carbon(io::JsonWriter& w, const breakeven::CarbonResult& c) {
  if (!c.computed) return;
  w.line("  ").key("carbon").object().key("unit").str("kg CO2e").key("local");
  json_carbon_side(w, c.local);
  w.close().line("    ").key("cloud");
  json_carbon_side(w, c.cloud);
  w.key("estimate").boolean(true).key("energy_basis").str(c.cloud_energy_basis).close().close();
}

// "0.123 kg CO2e: 0.3075 kWh (x1.20 cooling) at 400 g/kWh (carbon.intensity_g_per_kwh (config))".
std::string carbon_side_text(const breakeven::CarbonSide& s, const std::string& overhead) {
  if (!s.kg) return "unknown: " + s.reason;
  return fmt::format("{} kg CO2e: {:.4f} kWh (x{:.2f} {}) at {:.5g} g/kWh ({})", breakeven::kg_text(*s.kg), s.kwh,
                     s.overhead, overhead, *s.intensity_g_per_kwh, s.intensity_basis);
}

std::string table_carbon(const breakeven::CarbonResult& c) {
  if (!c.computed) return {};
  std::string b = fmt::format("carbon    local  {}\n", carbon_side_text(c.local, "cooling"));
  b += fmt::format("          cloud  {}{}\n", carbon_side_text(c.cloud, c.cloud.overhead_basis),
                   c.cloud.kg ? "; an estimate: the cloud GPUs at the local mean power" : "");
  return b;
}

/// Without telemetry: the estimated energy, labelled, with the model it came from.
std::string estimate_lines(const breakeven::EnergyEstimate& e) {
  std::string b =
      fmt::format("energy    {:.4f} kWh ESTIMATED from the GPU model, not measured (bounds {:.4f} .. {:.4f} kWh)\n",
                  e.estimated_kwh, e.low_kwh, e.high_kwh);
  b += fmt::format("  gpu       {} x {} (table entry {}; the GPU from {}, {})\n", e.gpus, e.gpu_name, e.model,
                   e.gpu_source,
                   e.count_source == "assumed" ? std::string("the count assumed") : "the count from " + e.count_source);
  b += fmt::format("  busy      {:.1f} % of the window ({})\n", e.busy * 100,
                   e.busy_source == "assumed" ? std::string("assumed: nothing in the inputs says; give --util")
                                              : "from " + e.busy_source);
  b += fmt::format(
      "  power     per GPU {:.0f} W estimated, {:.0f} .. {:.0f} W bounds: idle {:.0f} W ({}), board {:.0f} W\n\n",
      e.power.central_w(e.busy), e.power.low_w(e.busy), e.power.high_w(), e.power.idle_w,
      e.power.idle_measured ? "measured" : "assumed", e.power.tdp_w);
  return b;
}

/// " (74.3 min at the lower energy bound, 9.8 min at the upper)" for job lengths, or
/// " (range 12.1 min .. 19.0 min)" for job lengths, " (range 2889 .. 3948 h/year)" for uses per
/// year: the least and the most over the premium range's combinations; empty when they are one
/// value or neither has one.
std::string bound_range(const std::optional<double>& low, const std::optional<double>& high, bool per_year) {
  if (!low && !high) return {};
  const auto v = [per_year](const std::optional<double>& x) {
    return !x ? std::string("none") : per_year ? fmt::format("{:.0f}", *x) : hours(*x);
  };
  if (v(low) == v(high)) return {};
  return fmt::format(" (range {} .. {}{})", v(low), v(high), per_year ? " h/year" : "");
}

/// What the premium's side of the line means for the job.
const char* verdict_text(const breakeven::Result& r) {
  return r.above_line ? "ABOVE the line, renting is cheaper for this job"
                      : "below the line, the local GPU holds its own";
}

/// The premium, its range and the verdict: one only when the whole range is on one side of the
/// line; none against an offer that cannot run the job.
std::string premium_line(const breakeven::Result& r, const breakeven::PremiumRange& range, bool estimated) {
  const std::string span = range.low && range.high ? fmt::format("range {} .. {}; ", pct(*range.low), pct(*range.high))
                           : estimated             ? std::string("no range; ")
                                                   : std::string();
  std::string b = fmt::format("premium   {:+.1f} % local over cloud{} ({}line {:.1f} %): ", r.premium * 100,
                              estimated ? ", ESTIMATED" : "", span, r.line * 100);
  if (r.unfit) return b + "NO VERDICT, the offer cannot run this job as logged\n";
  if (r.undecided) {
    b += fmt::format("UNDECIDED, {}\n", r.verdict_reason);
    if (estimated)
      b += "          log telemetry to decide: nvidia-smi --query-gpu=timestamp,index,name,power.draw,utilization.gpu "
           "--format=csv -l 5 > gpu.csv\n";
    return b;
  }
  return b + fmt::format("{}{}\n", verdict_text(r), range.low && range.high ? " over the whole range" : "");
}

/// --estimate: the model's bounds beside the measured energy, per GPU.
std::string beside_table(const breakeven::EstimateBeside& m) {
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

std::string table_robustness(const BreakevenExtras& x, const breakeven::JobInputs& job, const std::string& cur) {
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
  if (!x.clouds.empty()) b += table_clouds(x.clouds, cur, x.fit_basis);
  return b;
}

}  // namespace

namespace {

/// The Slurm energy beside the telemetry's: Slurm's plugin measures the nodes (CPUs and more with
/// IPMI or RAPL), the telemetry the GPUs alone; their ratio is shown, never taken for the energy.
std::string slurm_energy_text(const extract::JobRecord& j, double telemetry_kwh) {
  if (!j.energy_j) return "energy not measured by Slurm (no energy plugin)";
  const double kwh = *j.energy_j / 3.6e6;
  return fmt::format("energy {:.4f} kWh measured by Slurm ({}), the GPUs' telemetry {:.4f} kWh ({:.0f} % of it)", kwh,
                     j.energy_source.empty() ? "job" : j.energy_source, telemetry_kwh,
                     kwh > 0 ? telemetry_kwh / kwh * 100 : 0.0);
}

/// "slurm     job 4242 (finetune) of alice on gpu01, 2 GPUs (a100), COMPLETED, exit 0; energy ..."
std::string slurm_lines(const extract::Features& f, const breakeven::Result& r) {
  std::string b;
  for (const extract::JobRecord& j : f.jobs) {
    std::string exit;
    if (j.exit_code) exit = fmt::format(", exit {}", *j.exit_code);
    if (j.exit_signal && *j.exit_signal != 0) exit += fmt::format(" (signal {})", *j.exit_signal);
    b += fmt::format("slurm     job {}{} of {} on {}, {}{}, {}{}{}\n", j.id, j.name.empty() ? "" : " (" + j.name + ")",
                     j.user.empty() ? "?" : j.user, j.nodelist.empty() ? "?" : j.nodelist,
                     j.gpus ? text::counted(*j.gpus, "GPU") : "no GPU in AllocTRES",
                     j.gpu_types.empty() ? "" : " (" + j.gpu_types + ")", j.state.empty() ? "state ?" : j.state, exit,
                     j.end_ns ? "" : " (running: the window ends at the last sample)");
    if (f.jobs.size() == 1) b += fmt::format("          {}\n", slurm_energy_text(j, r.energy_kwh));
  }
  return b;
}

void json_slurm(io::JsonWriter& w, const extract::Features& f, const breakeven::Result& r) {
  if (f.jobs.empty()) return;
  w.line("  ").key("slurm_jobs").array();
  for (const extract::JobRecord& j : f.jobs) {
    w.line("    ").item().object().key("id").str(j.id).key("name").str(j.name).key("user").str(j.user);
    w.key("nodelist").str(j.nodelist).key("state").str(j.state).key("nodes").array();
    for (const std::string& n : j.nodes) w.item().str(n);
    w.close().key("gpus").integer(j.gpus).key("exit_code").integer(j.exit_code);
    w.key("energy_kwh").num(j.energy_j ? std::optional<double>(*j.energy_j / 3.6e6) : std::nullopt);
    w.key("energy_source").str_or_null(j.energy_j ? std::string_view(j.energy_source) : std::string_view());
    w.close();
  }
  w.close("\n  ").line("  ").key("slurm_gpus_seen").count(r.job.energy_kwh.size());
}

// ---- waiting and exposed communication (docs/cost-model.md) ------------------------------

void json_trace_jobs(io::JsonWriter& w, const breakeven::Result& r, const extract::Features& f) {
  const auto costs = breakeven::trace_job_costs(r, f);
  if (costs.empty()) return;
  w.line("  ").key("trace_jobs").array();
  for (const breakeven::TraceJobCost& c : costs) {
    w.line("    ").item().object().key("ranks").count(c.job.ranks.size()).key("world_size").integer(c.job.world_size);
    w.key("backend").str(c.job.backend).key("straggler_rank");
    if (c.job.straggler_rank >= 0)
      w.integer(c.job.straggler_rank);
    else
      w.null();
    w.key("straggler_step_share").num(c.job.straggler_step_share).key("wait_fraction").num(c.job.wait_fraction());
    w.key("wait_local").num(c.wait_local).key("wait_cloud").num(c.wait_cloud);
    w.key("exposed_comm_fraction").num(c.job.exposed_comm_fraction());
    w.key("exposed_comm_local").num(c.exposed_local).key("exposed_comm_cloud").num(c.exposed_cloud);
    w.key("overlap_fraction").num(c.job.overlap_fraction()).close();
  }
  w.close("\n  ");
}

/// "distributed job": what the ranks' waiting and exposed communication cost.
std::string table_trace_jobs(const breakeven::Result& r, const extract::Features& f, const std::string& cur) {
  std::string b;
  for (const breakeven::TraceJobCost& c : breakeven::trace_job_costs(r, f)) {
    const extract::TraceJob& j = c.job;
    b += fmt::format("\ndistributed job  {} of {} ranks ({}), shares of the GPU time in the traces' steps\n",
                     j.ranks.size(), j.world_size, j.backend.empty() ? "backend unknown" : j.backend);
    if (j.ranks.size() >= 2) {
      b += fmt::format("  waiting        {:>5.1f} %  {} {} locally, {} {} in the cloud", j.wait_fraction() * 100,
                       breakeven::unit_money(c.wait_local), cur, breakeven::unit_money(c.wait_cloud), cur);
      b += j.straggler_rank >= 0 ? fmt::format(": for rank {} in {:.0f} % of {} steps\n", j.straggler_rank,
                                               j.straggler_step_share * 100, j.steps)
                                 : std::string(": no single straggler\n");
    }
    b += fmt::format(
        "  exposed comm   {:>5.1f} %  {} {} locally, {} {} in the cloud ({:.1f} % of the communication "
        "overlapped by compute; it includes the waiting: do not add the two)\n",
        j.exposed_comm_fraction() * 100, breakeven::unit_money(c.exposed_local), cur,
        breakeven::unit_money(c.exposed_cloud), cur, j.overlap_fraction() * 100);
    for (const std::string& n : j.notes) b += fmt::format("  note: {}\n", n);
  }
  return b;
}

// ---- cost per unit of work (docs/cost-model.md, "Cost per unit of work") ------------------

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

/// "work": the job's cost per step, 1 k samples, 1 M tokens and epoch, and the break-even in work.
void json_work(io::JsonWriter& w, const breakeven::Result& r, const extract::Features& f) {
  const breakeven::WorkCosts costs = breakeven::work_costs(r, f.host_indicators);
  w.line("  ").key("work").object().key("window_h").num(costs.window_h);
  for (const breakeven::UnitCost& u : costs.units) json_work_unit(w.line("    "), u);
  w.close("\n  ");
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

/// "per unit of work": shown when the features count any work (steps, samples, tokens, epochs).
std::string table_work(const breakeven::Result& r, const extract::Features& f, const std::string& cur) {
  const breakeven::WorkCosts w = breakeven::work_costs(r, f.host_indicators);
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

/// The busy share of q when it is not the utilisation, or when SM active was asked and is missing.
std::string table_busy_share(const breakeven::Result& r, const breakeven::CostConfig& c) {
  if (r.job.busy_source == breakeven::kBusyShareSmActive)
    return fmt::format("  {:<12}{:>14}  SM active {:.1f} % (cloud.busy_share = sm_active; utilisation {:.1f} %)\n",
                       "busy share", "", r.busy_share * 100, r.util_mean * 100);
  if (c.busy_share == breakeven::kBusyShareSmActive)
    return fmt::format(
        "  {:<12}{:>14}  utilisation {:.1f} %: cloud.busy_share = sm_active, but the features have no SM active\n",
        "busy share", "", r.busy_share * 100);
  return {};
}

}  // namespace

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

std::vector<std::size_t> incidents_shown(const breakeven::Result& r, std::size_t limit) {
  std::vector<std::size_t> out(r.incidents.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  if (out.size() <= limit) return out;
  std::stable_sort(out.begin(), out.end(),
                   [&r](std::size_t a, std::size_t b) { return r.incidents[a].cost > r.incidents[b].cost; });
  out.resize(limit);
  std::sort(out.begin(), out.end());
  return out;
}

std::string assumed_host_note(const extract::Features& f) {
  if (f.host_basis != "machine" || f.host.empty()) return {};
  return fmt::format("host {}: this machine's name, no input names a host; --host sets it", f.host);
}

namespace {

void json_job(io::JsonWriter& w, const breakeven::Result& r, const extract::Features& f, const BreakevenExtras& x) {
  w.line("  ").key("job").object().key("from").str(format_utc(f.from_ns)).key("to").str(format_utc(f.to_ns));
  w.key("host").str(f.host).key("host_basis").str_or_null(f.host_basis).key("logs_tz").str_or_null(x.logs_tz);
  w.key("wall_h").num(r.job.wall_h).key("gpus").count(r.job.energy_kwh.size()).key("energy_kwh").num(r.energy_kwh);
  w.key("util_mean").num(r.util_mean).key("util_assumed").boolean(r.job.util_assumed);
  w.key("util_source").str(r.job.util_source).key("trace_busy_fraction").num(r.job.trace_busy_fraction);
  w.key("downtime_h").num(r.downtime_h).key("downtime_share").num(r.downtime_share);
  if (!r.downtime_h) w.key("downtime_reason").str(r.job.downtime_reason);
  w.close();
}

void json_local(io::JsonWriter& w, const breakeven::Result& r, const breakeven::CostConfig& c) {
  w.line("  ").key("local").object().key("electricity").num(r.electricity).key("amortisation").num(r.amortisation);
  w.key("maintenance").num(r.maintenance).key("total").num(r.local_total);
  w.key("maintenance_routine").num(r.maintenance_routine).key("incidents").num(r.incident_cost);
  w.key("defaults").array();
  for (const std::string_view key : kDrivingDefaults)
    if (!c.is_set(key)) w.item().str(key);
  w.close().key("always_on").boolean(c.always_on).key("idle_cost_per_hour").num(r.idle_cost_per_hour);
  w.key("idle_cost_per_year").num(r.idle_cost_per_year).close();
}

/// The offer's price: where it comes from, how old, and in which currency.
void json_offer(io::JsonWriter& w, const breakeven::CostConfig& c) {
  w.key("offer_currency").str(c.offer_currency.empty() ? c.currency : c.offer_currency);
  w.key("exchange_rate").num(c.offer_exchange_rate);
  // The day of the rate used: the config's own, or the reference rates' (exchange_source).
  const std::string& day = c.offer_exchange_source == "config" || c.offer_exchange_source.empty()
                               ? c.exchange_date
                               : c.reference_exchange_date;
  const bool converted = !c.offer_currency.empty() && c.offer_currency != c.currency;
  w.key("exchange_date").str_or_null(converted ? std::string_view(day) : std::string_view());
  if (converted) w.text_if("exchange_source", c.offer_exchange_source);
  w.key("offer").str(c.cloud_offer);
  if (!c.cloud_offer.empty()) {
    w.key("offer_kind").str(c.offer_kind).key("offer_rate_basis").str(c.offer_rate_basis);
    w.key("price_date_seen").str(c.offer_date_seen).key("price_age_days");
    if (c.offer_age_days)
      w.integer(*c.offer_age_days);
    else
      w.null();
    w.key("price_confirmed").boolean(c.offer_confirmed).key("price_source").str(c.offer_source);
  }
  w.key("offer_fits").boolean(c.cloud_unfit.empty()).text_if("offer_unfit_reason", c.cloud_unfit);
}

void json_cloud_side(io::JsonWriter& w, const breakeven::Result& r, const breakeven::CostConfig& c) {
  w.line("  ").key("cloud").object().key("name").str(c.cloud_name).key("rate_per_hour").num(c.rate_per_hour);
  w.key("speed_ratio").num(c.speed_ratio).key("speed_ratio_source").str(c.speed_ratio_source);
  w.key("speed_ratio_basis").str(c.speed_ratio_basis);
  append_speed_projection(w, c);
  w.key("speed_ratio_low").num(c.speed_ratio_low).key("speed_ratio_high").num(c.speed_ratio_high);
  json_offer(w, c);
  w.key("cold_start_s").num(c.cold_start_s).key("billing_increment_s").num(c.billing_increment_s);
  w.key("billing_minimum_s").num(c.billing_minimum_s).key("busy_share").num(r.busy_share);
  w.key("busy_source").str(r.job.busy_source).key("busy_share_config").str(c.busy_share).key("q").num(r.q);
  w.key("billed_s").num(r.billed_s).key("faults").num(r.cloud_fault_cost).key("total").num(r.cloud_total).close();
}

void json_verdict(io::JsonWriter& w, const breakeven::Result& r) {
  w.line("  ").key("premium").num(r.premium).line("  ").key("line").num(r.line);
  // An offer that cannot run the job gives no side of the line: null, not false.
  w.line("  ").key("above_line");
  if (r.unfit)
    w.null();
  else
    w.boolean(r.above_line);
  w.line("  ").key("verdict").str(verdict_word(r)).text_if("verdict_reason", r.verdict_reason);
  w.line("  ").key("breakeven").object();
  solution(w, "job_hours", r.job_hours);
  crossings_json(w, "job_hours_crossings", "local_cheaper", r.job_crossings);
  solution(w, "line_job_hours", r.line_job_hours);
  crossings_json(w, "line_job_hours_crossings", "below_line", r.line_crossings);
  solution(w, "use_hours_per_year", r.use_hours_per_year);
  w.close("\n  ");
}

}  // namespace

std::string breakeven_json(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                           const BreakevenExtras& x) {
  std::string b;
  io::JsonWriter w(b);
  w.object().line("  ").key("schema").str("gpucost.breakeven").line("  ").key("version").integer(1);
  w.line("  ").key("currency").str(c.currency);
  json_job(w, r, f, x);
  json_energy_basis(w, r.job, x.estimate);
  json_local(w, r, c);
  json_cloud_side(w, r, c);
  json_verdict(w, r);
  json_work(w, r, f);
  json_trace_jobs(w, r, f);
  if (x.attribution) attribution_json(b, *x.attribution, c.currency);
  json_electricity(w, r, c, x);
  json_carbon(w, r.carbon);
  json_slurm(w, f, r);
  json_incidents(w, r);
  json_robustness(w, x);
  if (x.beside) json_beside(w, *x.beside);
  if (x.findings) append_findings_json(b, *x.findings);
  w.close("\n");
  b.append("\n");
  return b;
}

std::string breakeven_table(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f,
                            const BreakevenExtras& x) {
  const std::string& cur = c.currency;
  std::string b;
  b += fmt::format("job       {} .. {}  ({}, {}{}{})\n", format_utc(f.from_ns), format_utc(f.to_ns),
                   hours(r.job.wall_h), text::counted(static_cast<long long>(r.job.energy_kwh.size()), "GPU"),
                   f.host.empty() ? "" : ", host " + f.host, x.logs_tz.empty() ? "" : ", log times in " + x.logs_tz);
  if (const std::string note = assumed_host_note(f); !note.empty()) b += fmt::format("          {}\n", note);
  if (x.estimate)
    b += estimate_lines(*x.estimate);
  else
    b += fmt::format(
        "{}, mean utilisation {:.1f} %{}\n\n", energy_line(r.job, r.energy_kwh), r.util_mean * 100,
        r.job.util_assumed             ? " (utilisation not measured: 100 % assumed)"
        : r.job.util_source == "trace" ? " (from the profiler trace's busy share: no telemetry utilisation)"
        : r.job.trace_busy_fraction
            ? fmt::format(" (telemetry; the profiler trace's busy share is {:.1f} %)", *r.job.trace_busy_fraction * 100)
            : std::string());
  if (!f.jobs.empty()) b.insert(b.size() - 1, slurm_lines(f, r));  // before the blank line
  b += "local\n";
  if (c.tou.empty())
    b += fmt::format("  {:<12}{:>14}  {:.4f} kWh GPU + {:.0f} W system, x{:.2f} cooling, {} {}/kWh\n", "electricity",
                     money(r.electricity, cur), r.energy_kwh, c.system_power_w, c.cooling_factor, c.price_per_kwh, cur);
  else
    b += fmt::format(
        "  {:<12}{:>14}  {:.4f} kWh GPU + {:.0f} W system, x{:.2f} cooling, time of use in {}: "
        "mean {:.4f} {}/kWh\n",
        "electricity", money(r.electricity, cur), r.energy_kwh, c.system_power_w, c.cooling_factor,
        x.tariff_tz.empty() ? "UTC" : x.tariff_tz, r.prices.mean, cur);
  b += fmt::format("  {:<12}{:>14}  {} {}{} over {} y{} x {} h/y{}\n", "amortisation", money(r.amortisation, cur),
                   c.hardware_price, cur,
                   c.residual_fraction > 0 ? fmt::format(" less {:g} % resale", c.residual_fraction * 100) : "",
                   c.lifetime_years, default_mark(c, "local.lifetime_years"), c.use_hours_per_year,
                   default_mark(c, "local.use_hours_per_year"));
  b += fmt::format(
      "  {:<12}{:>14}  {} h/y at {} {}/h{}\n", "maintenance", money(r.maintenance, cur), c.maintenance_hours_per_year,
      c.hourly_wage, cur,
      r.incidents.empty() ? std::string() : fmt::format(", incidents {} (listed below)", money(r.incident_cost, cur)));
  b += fmt::format("  {:<12}{:>14}\n", "total", money(r.local_total, cur));
  b += fmt::format("{}{}\n", "cloud", c.cloud_name.empty() ? "" : "  " + c.cloud_name);
  if (r.cloud_fault_cost > 0)
    b += fmt::format(
        "  {:<12}{:>14}  {} the application caused: the same labour as on the local side "
        "(--faults both-sides)\n",
        "faults", money(r.cloud_fault_cost, cur), text::counted(static_cast<long long>(r.application_faults), "fault"));
  b += fmt::format(
      "  {:<12}{:>14}  {:.0f} s at {:.6g} {}/h (speed x{:.6g}{} from {}, billed share {:.3f}, cold start {} s)\n",
      "total", money(r.cloud_total, cur), r.billed_s, c.rate_per_hour, cur, c.speed_ratio,
      c.speed_ratio_low && c.speed_ratio_high && *c.speed_ratio_low != *c.speed_ratio_high
          ? fmt::format(", the middle of x{:.3g} \u2026 x{:.3g},", *c.speed_ratio_low, *c.speed_ratio_high)
          : std::string(),
      c.speed_ratio_source, r.q, c.cold_start_s);
  if (c.speed_projection)
    b += fmt::format("  {:<12}{:>14}  {}\n", "speed", "", breakeven::speed_projection_text(*c.speed_projection));
  b += table_busy_share(r, c);
  if (!c.cloud_offer.empty()) b += table_price_line(c);
  if (const std::string conversion = breakeven::exchange_text(c); !conversion.empty())
    b += fmt::format("  {:<12}{:>14}  {:.6g} {}/h list price, {}\n", "exchange", "",
                     c.rate_per_hour / c.offer_exchange_rate, c.offer_currency, conversion);
  b += table_incidents(r, cur);
  if (r.downtime_h)
    b += fmt::format("downtime  {} ({:.1f} % of the window) after incidents and interruptions\n", hours(*r.downtime_h),
                     *r.downtime_share * 100);
  b += table_carbon(r.carbon);
  b += "\n";
  b += premium_line(r, x.range, x.estimate.has_value());
  if (r.cloud_fault_cost > 0)
    b += fmt::format("          of the totals without the {} of application faults both sides pay\n",
                     money(r.cloud_fault_cost, cur));
  if (!c.cloud_unfit.empty())
    b += fmt::format(
        "          ({}): the comparison is not a verdict;\n"
        "          choose an offer that fits (--compare-clouds lists them)\n",
        c.cloud_unfit);
  if (r.job_hours.value) {
    const std::string later = later_stretches(r.job_crossings, "the cloud is cheaper");
    // A T* that prints as 0.0 min: "cheaper for jobs shorter than 0.0 min" would say nothing.
    const bool from_start = hours(*r.job_hours.value) == hours(0.0);
    b += fmt::format(
        "break-even job length  {}{}{}\n",
        from_start ? fmt::format("{:.1f} s: the cloud is cheaper from the shortest job on", *r.job_hours.value * 3600)
                   : hours(r.job_hours) + ": local is cheaper for jobs shorter than this",
        later.empty() ? "" : ", again " + later, bound_range(x.range.job_hours_low, x.range.job_hours_high, false));
  } else {
    b += fmt::format("break-even job length  none: {}\n", r.job_hours.reason);
  }
  if (r.line_job_hours.value) {
    const std::string later = later_stretches(r.line_crossings, "above the line for good");
    b += fmt::format("line crossed at        {}: beyond it the premium exceeds {:.1f} %{}\n", hours(r.line_job_hours),
                     r.line * 100, later.empty() ? "" : ", but not " + later);
  } else
    b += fmt::format("line crossed at        none: {}\n", r.line_job_hours.reason);
  if (r.use_hours_per_year.value) {
    const double h = *r.use_hours_per_year.value;
    b += fmt::format("break-even use         {:.0f} h/year{}{}\n", h,
                     h > 8760 ? " (more than a year has: renting wins at any use)"
                              : fmt::format(" ({:.1f} % of the year): owning pays above it", h / 87.60),
                     bound_range(x.range.use_hours_low, x.range.use_hours_high, true));
  } else {
    b += fmt::format("break-even use         none: {}\n", r.use_hours_per_year.reason);
  }
  if (c.always_on)
    b += fmt::format("always on              idle {:.0f} W costs {} per idle hour, {} a year at {} h/y of use\n",
                     c.idle_power_w, money(r.idle_cost_per_hour, cur), money(r.idle_cost_per_year, cur),
                     c.use_hours_per_year);
  b += table_work(r, f, cur);
  b += table_trace_jobs(r, f, cur);
  if (x.attribution) b += attribution_table(*x.attribution, cur);
  b += table_robustness(x, r.job, cur);
  if (x.beside) b += beside_table(*x.beside);
  if (x.findings) b += findings_table(*x.findings, cur, x.explain);
  return b;
}

}  // namespace gpucost::report

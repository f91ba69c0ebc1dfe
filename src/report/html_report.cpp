#include <gpucost/report/html_report.hpp>

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/breakeven/work_units.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/report/breakeven_report.hpp>
#include <gpucost/report/html.hpp>
#include <gpucost/report/section.hpp>
#include <gpucost/report/svg_chart.hpp>
#include <gpucost/report/trace_memory.hpp>
#include <gpucost/report/trace_report.hpp>

#include "report/sections/sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

namespace gpucost::report {

namespace {

using breakeven::Result;
using breakeven::Solution;

// Plain CSS: system fonts only, so the page looks the same offline and in a mail client.
constexpr std::string_view kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0 auto;max-width:1240px;
padding:16px 20px;color:#1d1d1f;background:#fff;font-size:14px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 4px}.sub{color:#555;margin:0}
.verdict{border-radius:8px;padding:12px 16px;margin-top:14px;border:2px solid}
.verdict.below{background:#e8f5e9;border-color:#2e7d32}.verdict.above{background:#fdecea;border-color:#b00020}.verdict.undecided{background:#fff8e1;border-color:#b26a00}
.verdict .big{font-size:20px;font-weight:600;margin:0 0 6px}
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.na{color:#888;font-size:12px}.note{color:#555;font-size:13px}
svg.chart{display:block;max-width:100%;height:auto;margin:2px 0}
svg .ct{font-size:13px;font-weight:600;fill:#1d1d1f}svg .tl,svg .lg{font-size:11px;fill:#444}
svg .rl{font-size:12px;fill:#1d1d1f}svg .ml{font-size:10px;font-weight:600}
svg .gr{stroke:#e6e6e6}svg .ax{stroke:#999}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
li.critical{color:#b00020}li.warning,td.warning{color:#8a5300}
)";

constexpr std::string_view kLocalColour = "#1f6fb2", kCloudColour = "#e07b00", kLineColour = "#b00020";

std::string esc(std::string_view s) { return html_escape(s); }

std::string money(double v, const std::string& currency) { return fmt::format("{:.2f} {}", v, currency); }

std::string percent(double ratio) { return fmt::format("{:+.1f} %", ratio * 100); }

std::string duration_h(double h) { return text::duration_hours(h); }

std::string solution_text(const Solution& s) { return s.value ? duration_h(*s.value) : "none: " + s.reason; }

// The first crossing, then how many there are when the bill's steps make several.
std::string crossings_text(const Solution& s, const breakeven::Crossings& c) {
  const std::size_t n = c.points.size() + c.omitted;
  if (!s.value || n < 2) return solution_text(s);
  return fmt::format("{} (the first of {} crossings as the bill rounds up to whole increments; the last at {})",
                     solution_text(s), n, duration_h(c.points.back().hours));
}

/// A configured figure or an indicator: 6 significant digits, 0 when zero up to rounding.
std::string number(double v) { return text::short_number(v); }

struct Marker {
  std::string_view kind, colour, legend;
};

// The event markers of the timelines: kind, colour, legend text.
constexpr Marker kMarkers[] = {
    {"xid", "#b00020", "Xid"},         {"gpu_lost", "#5c0011", "GPU lost"},     {"aer", "#c2185b", "PCIe AER"},
    {"thermal", "#e65100", "thermal"}, {"power_source", "#6d4c41", "AC power"}, {"lid", "#607d8b", "lid"},
    {"suspend", "#00838f", "suspend"}, {"resume", "#00838f", "resume"},
};

std::string_view marker_colour(std::string_view kind) {
  for (const Marker& m : kMarkers)
    if (m.kind == kind) return m.colour;
  return "#444";
}

// ---- header and verdict -----------------------------------------------------------------

std::string page_title(const ReportContent& c) {
  const auto& f = c.sources.features;
  return fmt::format("gpucost report{}{}", f.host.empty() ? "" : ": ", f.host);
}

std::string header(const ReportContent& c) {
  const auto& f = c.sources.features;
  const Result& r = c.result;
  const std::string host_note = assumed_host_note(f);
  return fmt::format(
      "<header><h1>{}</h1><p class=\"sub\">{} .. {} UTC{} ({}), {}, {:.4f} kWh GPU energy, mean "
      "utilisation {:.1f} %{}</p>{}</header>\n",
      esc(page_title(c)), esc(format_utc(f.from_ns)), esc(format_utc(f.to_ns)),
      c.extras.logs_tz.empty() ? "" : esc(" (log times in " + c.extras.logs_tz + ")"), duration_h(r.job.wall_h),
      text::counted(static_cast<long long>(r.job.energy_kwh.size()), "GPU"), r.energy_kwh, r.util_mean * 100,
      r.job.util_assumed             ? " (not measured: 100 % assumed)"
      : r.job.util_source == "trace" ? " (from the profiler trace)"
                                     : "",
      host_note.empty() ? "" : "<p class=\"sub\">" + esc(host_note) + "</p>");
}

// Without telemetry: the energy estimated from the GPU model, and whether a verdict holds.
std::string estimate_row(const breakeven::EnergyEstimate& e, const breakeven::Result& r) {
  return fmt::format(
      "<tr><th>energy ESTIMATED</th><td>{:.4f} kWh from the GPU model, not measured (bounds {:.4f} .. {:.4f} kWh): "
      "{} x {} ({}), busy {:.1f} % ({}){}</td></tr>\n",
      e.estimated_kwh, e.low_kwh, e.high_kwh, e.gpus, esc(e.gpu_name), esc(e.gpu_source), e.busy * 100,
      esc(e.busy_source), r.undecided ? "; log telemetry to narrow the range" : "");
}

// What of the energy was measured and what estimated (docs/cost-model.md).
std::string energy_basis_row(const breakeven::EnergyBasis& e) {
  if (!e.known) return "<tr><th>energy measured</th><td>unknown: the features give no coverage</td></tr>\n";
  if (e.estimated_kwh < 0.00005 && e.rule != breakeven::FillRule::none)
    return fmt::format("<tr><th>energy measured</th><td>{:.4f} kWh, all of it</td></tr>\n", e.measured_kwh);
  if (e.rule == breakeven::FillRule::none)
    return fmt::format(
        "<tr><th>energy measured</th><td>{:.4f} kWh over {}; {} without samples not priced "
        "(--fill none)</td></tr>\n",
        e.measured_kwh, duration_h(e.covered_h), duration_h(e.uncovered_h));
  return fmt::format(
      "<tr><th>energy measured</th><td>{:.4f} kWh over {}; {:.4f} kWh ({:.0f} %) estimated for "
      "{} without samples at {:.0f} W ({})</td></tr>\n",
      e.measured_kwh, duration_h(e.covered_h), e.estimated_kwh, e.estimated_share() * 100, duration_h(e.uncovered_h),
      e.fill_power_w, e.rule == breakeven::FillRule::idle ? "idle power" : "mean power");
}

// What gave the energy when the GPUs' energy counters did (the power integral otherwise, unsaid).
std::string energy_method_row(const breakeven::JobInputs& j) {
  if (j.energy_method != extract::kEnergyByCounter && j.energy_method != extract::kEnergyMixed) return {};
  std::string text = j.energy_method == extract::kEnergyMixed
                         ? "energy counters of some GPUs, power samples of the others"
                         : "the GPUs' energy counters";
  if (j.energy_from_power_kwh && j.power_vs_counter_pct)
    text += fmt::format("; power integral {:.4f} kWh, {:+.1f} %", *j.energy_from_power_kwh, *j.power_vs_counter_pct);
  return fmt::format("<tr><th>energy from</th><td>{}</td></tr>\n", esc(text));
}

// The offer's price: kind, when and where it was seen, its age; old or unconfirmed prices are marked.
std::string price_row(const breakeven::CostConfig& c) {
  const bool old = c.offer_age_days && *c.offer_age_days > breakeven::kStalePriceDays;
  std::string text = fmt::format("{} price seen {}", c.offer_kind, c.offer_date_seen);
  if (c.offer_age_days) text += fmt::format(", {} days old", *c.offer_age_days);
  if (old) text += ": it may have changed (gpucost offers update)";
  if (!c.offer_confirmed) text += "; not confirmed against its source";
  text += ". Source: " + c.offer_source;
  if (!c.offer_rate_basis.empty()) text += ". " + c.offer_rate_basis;
  return fmt::format("<tr><th>cloud price</th><td{}>{}</td></tr>\n",
                     old || !c.offer_confirmed ? " class=\"warning\"" : "", esc(text));
}

// "energy +11.5 % .. +12.0 %, billing rounding +11.8 % .. +13.8 %": what the range is made of.
std::string range_parts_text(const breakeven::PremiumRange& range) {
  std::string out;
  for (const auto& p : range.parts)
    out += fmt::format("{}{} {} .. {}", out.empty() ? "" : ", ", p.name, percent(p.low), percent(p.high));
  return out;
}

std::string verdict(const ReportContent& c) {
  const Result& r = c.result;
  const std::string& cur = c.config.currency;
  // An unfit offer's comparison takes the undecided colour: it is no verdict either.
  const char* side = breakeven::verdict_word(r);
  std::string b = fmt::format("<section id=\"verdict\" class=\"verdict {}\">\n", r.unfit ? "undecided" : side);
  b += fmt::format(
      "<p class=\"big\">{}</p>\n",
      esc(r.unfit         ? std::string("No verdict: the cloud offer cannot run this job as logged")
          : r.undecided   ? "Undecided: the premium's range lies on both sides of the line (" + r.verdict_reason + ")"
          : r.above_line  ? std::string("Renting is cheaper for this job: the premium is above the line")
          : r.premium < 0 ? std::string("The local GPU is cheaper than the cloud for this job")
                          : std::string("The local GPU holds its own: the premium is below the line")));
  b += "<table>\n";
  b += fmt::format("<tr><th>local cost</th><td class=\"num\">{}</td></tr>\n", esc(money(r.local_total, cur)));
  b += fmt::format("<tr><th>cloud cost{}</th><td class=\"num\">{}</td></tr>\n",
                   esc(c.config.cloud_name.empty() ? "" : " (" + c.config.cloud_name + ")"),
                   esc(money(r.cloud_total, cur)));
  b += fmt::format(
      "<tr><th>premium (local over cloud)</th><td class=\"num\">{} against the line of {:.1f} %: "
      "{}</td></tr>\n",
      esc(percent(r.premium)), r.line * 100, side);
  b += fmt::format("<tr><th>break-even job length T*</th><td>{}{}</td></tr>\n",
                   esc(crossings_text(r.job_hours, r.job_crossings)),
                   r.job_hours.value ? " (local is cheaper for shorter jobs)" : "");
  b += fmt::format("<tr><th>line crossed at T&#955;</th><td>{}</td></tr>\n",
                   esc(crossings_text(r.line_job_hours, r.line_crossings)));
  if (r.use_hours_per_year.value)
    b += fmt::format(
        "<tr><th>break-even use per year</th><td>{:.0f} h/year ({:.1f} % of the year): owning pays "
        "above it</td></tr>\n",
        *r.use_hours_per_year.value, *r.use_hours_per_year.value / 87.60);
  else
    b += fmt::format("<tr><th>break-even use per year</th><td>none: {}</td></tr>\n", esc(r.use_hours_per_year.reason));
  if (c.extras.range.low && c.extras.range.high)
    b += fmt::format("<tr><th>premium range</th><td>{} .. {} ({})</td></tr>\n", esc(percent(*c.extras.range.low)),
                     esc(percent(*c.extras.range.high)), esc(range_parts_text(c.extras.range)));
  if (c.extras.estimate)
    b += estimate_row(*c.extras.estimate, r);
  else
    b += energy_basis_row(r.job.energy_basis);
  b += energy_method_row(r.job);
  if (const std::string x = breakeven::exchange_text(c.config); !x.empty())
    b += fmt::format("<tr><th>exchange</th><td>{}</td></tr>\n", esc(x));
  if (!c.config.cloud_offer.empty()) b += price_row(c.config);
  b += "</table>\n";
  if (!c.config.cloud_unfit.empty())
    b += fmt::format(
        "<p class=\"warning\">The cloud offer cannot run this job as logged ({}): the comparison is not "
        "a verdict. Choose an offer that fits (gpucost breakeven --compare-clouds lists them).</p>\n",
        esc(c.config.cloud_unfit));
  b += "</section>\n";
  return b;
}

// ---- cost breakdown ---------------------------------------------------------------------

// The busy share of q when SM active gave it, or was asked for and missing (never silently).
std::string busy_share_text(const Result& r, const breakeven::CostConfig& c) {
  if (r.job.busy_source == breakeven::kBusyShareSmActive)
    return fmt::format(" of a busy share {:.3f} from SM active", r.busy_share);
  if (c.busy_share == breakeven::kBusyShareSmActive)
    return fmt::format(
        " of a busy share {:.3f} from the utilisation: cloud.busy_share = sm_active, but the features "
        "have no SM active",
        r.busy_share);
  return {};
}

std::string cost_section(const ReportContent& c) {
  const Result& r = c.result;
  const std::string& cur = c.config.currency;
  BarChart chart;
  chart.title = "Cost of this job";
  chart.unit = cur;
  chart.rows.push_back(BarRow{"local",
                              {{"electricity", r.electricity, "#1f6fb2"},
                               {"amortisation", r.amortisation, "#5b9bd5"},
                               {"maintenance", r.maintenance_routine, "#9dc3e6"},
                               {"incidents", r.incident_cost, "#c00000"}}});
  chart.rows.push_back(BarRow{"cloud",
                              {{"cloud", r.cloud_total - r.cloud_fault_cost, std::string(kCloudColour)},
                               {"application faults", r.cloud_fault_cost, "#c00000"}}});
  // The line applies to what differs: the application faults both sides pay stand beside it.
  chart.reference = (r.cloud_total - r.cloud_fault_cost) * (1 + r.line) + r.cloud_fault_cost;
  chart.reference_label = fmt::format("line: cloud + {:.0f} %", r.line * 100);
  std::string b = "<section id=\"costs\"><h2>Cost breakdown</h2>\n" + render_bar_chart(chart);
  b += "<table><tr><th>component</th><th>cost</th><th>basis</th></tr>\n";
  const auto row = [&](std::string_view name, double v, const std::string& basis) {
    b +=
        fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n", name, esc(money(v, cur)), esc(basis));
  };
  row("electricity", r.electricity,
      fmt::format("{:.4f} kWh GPU + {:.4f} kWh system, x{:.2f} cooling, {:.4f} {}/kWh", r.energy_kwh, r.system_kwh,
                  c.config.cooling_factor, r.prices.mean, cur));
  // Every figure of C_a = price x (1 - residual) / (years x use h/y) x W (docs/cost-model.md): the
  // per-hour rate times the job's length in the header gives the cost.
  const breakeven::CostConfig& k = c.config;
  row("amortisation", r.amortisation,
      fmt::format("{} {} less {} % resale value ({} {}), over {} years of {} h of use: {:.4f} {} per job hour",
                  number(k.hardware_price), cur, number(k.residual_fraction * 100),
                  number(k.hardware_price * k.residual_fraction), cur, number(k.lifetime_years),
                  number(k.use_hours_per_year),
                  k.hardware_price * (1 - k.residual_fraction) / (k.lifetime_years * k.use_hours_per_year), cur));
  row("maintenance", r.maintenance_routine,
      fmt::format("{} h/year at {} {}/h", number(c.config.maintenance_hours_per_year), number(c.config.hourly_wage),
                  cur));
  std::int64_t faults = 0, events = 0;
  for (const auto& ic : r.incidents)
    if (!ic.fault.bucket.empty()) {
      ++faults;
      events += ic.fault.count;
    }
  row("incidents", r.incident_cost,
      fmt::format("{} of {} in the window; {} the application caused ({}), {} hardware or unknown (local only)",
                  text::counted(faults, "fault"), text::counted(events, "event"),
                  static_cast<long long>(r.application_faults), breakeven::fault_rule_name(r.fault_rule),
                  static_cast<long long>(r.hardware_faults)));
  row("local total", r.local_total, "");
  row("cloud total", r.cloud_total,
      fmt::format("{:.0f} s billed at {} {}/h (speed x{}{}, billed share {:.3f}{}, cold start {} s)", r.billed_s,
                  number(c.config.rate_per_hour), cur, number(c.config.speed_ratio),
                  c.config.speed_projection ? " projected from this job's trace" : "", r.q,
                  busy_share_text(r, c.config), number(c.config.cold_start_s)) +
          (r.cloud_fault_cost > 0
               ? fmt::format(", and {} of application faults as locally", money(r.cloud_fault_cost, cur))
               : std::string()));
  b += "</table>\n</section>\n";
  return b;
}

// ---- cost per unit of work (docs/cost-model.md, "Cost per unit of work") ------------------

std::string work_section(const ReportContent& c) {
  const Result& r = c.result;
  const breakeven::WorkCosts w = breakeven::work_costs(r, c.sources.features.host_indicators);
  if (!w.any()) return {};
  const std::string& cur = c.config.currency;
  std::string b = "<section id=\"work\"><h2>Cost per unit of work</h2>\n";
  b += "<table><tr><th>per</th><th>local</th><th>cloud</th><th>in the job window</th></tr>\n";
  for (const breakeven::UnitCost& u : w.units) {
    if (!u.count) continue;
    if (!u.local || !u.cloud) {
      b += fmt::format("<tr><td>{}</td><td colspan=\"3\" class=\"na\">none: {}</td></tr>\n", esc(u.unit->per_label),
                       esc(u.reason));
      continue;
    }
    b += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{} {} in {}, {} an hour</td></tr>\n",
        esc(u.unit->per_label), esc(breakeven::unit_money(*u.local) + " " + cur),
        esc(breakeven::unit_money(*u.cloud) + " " + cur), esc(breakeven::work_amount(*u.count)), esc(u.unit->noun),
        duration_h(w.window_h), esc(breakeven::work_amount(*u.per_hour)));
  }
  b += "</table>\n";
  for (const breakeven::UnitCost& u : w.units)
    if (u.count && (u.local_kg || u.cloud_kg))
      b += fmt::format("<p class=\"note\">Per {}: {} CO2e locally, {} in the cloud (an estimate).</p>\n",
                       esc(u.unit->per_label), u.local_kg ? esc(breakeven::co2e_text(*u.local_kg)) : "unknown",
                       u.cloud_kg ? esc(breakeven::co2e_text(*u.cloud_kg)) : "unknown");
  for (const auto& [label, text] : work_breakeven_texts(r, w))
    b += fmt::format("<p class=\"note\">Break-even {}: {}.</p>\n", label == "use" ? "use" : "job size", esc(text));
  b += "<p class=\"note\">The cloud's cost per unit is this job's bill (cold start, minimum and fixed costs "
       "included) divided by its work.</p>\n</section>\n";
  return b;
}

// ---- break-even chart -------------------------------------------------------------------

/// The model's lines: local c_L x T, and the cloud's rate x q x T + k of the note (the chart draws the
/// cloud as billed, minimum and increments included).
struct CostLines {
  double local_per_h = 0, cloud_per_h = 0, cloud_fixed = 0;
  [[nodiscard]] double local(double t) const { return local_per_h * t; }
};

CostLines cost_lines(const Result& r, const breakeven::CostConfig& c) {
  CostLines l;
  l.local_per_h = r.job.wall_h > 0 ? r.local_total / r.job.wall_h : 0;
  l.cloud_per_h = c.rate_per_hour * r.q;
  l.cloud_fixed = c.rate_per_hour * c.cold_start_s / 3600.0 + c.fixed_per_job;
  return l;
}

/// Long enough to show the job, T* and the line crossing; at most 50 job lengths.
double chart_hours(const Result& r) {
  const double w = std::max(r.job.wall_h, 1e-3);
  double t = 1.5 * w;
  if (r.job_hours.value) t = std::max(t, 2 * *r.job_hours.value);
  if (r.line_job_hours.value) t = std::max(t, 1.25 * *r.line_job_hours.value);
  return std::min(t, 50 * w);
}

ChartSeries line_series(std::string name, std::string_view colour, double t_max, bool dashed,
                        const std::function<double(double)>& cost) {
  ChartSeries s{std::move(name), std::string(colour), {}, {}, dashed};
  s.points = {Point{0, cost(0)}, Point{t_max, cost(t_max)}};
  return s;
}

// The cloud as billed, times `factor`: flat at the minimum, then one step per increment, drawn
// exactly up to kMaxDrawnSteps steps; finer billing (per second) is drawn as its line, which lies
// less than one increment's price below the bill.
ChartSeries billed_series(std::string name, std::string_view colour, double t_max, bool dashed,
                          const breakeven::Billing& b, double factor) {
  constexpr double kMaxDrawnSteps = 200;
  const auto cost = [&](double t) { return factor * breakeven::cloud_cost(b, t); };
  const auto step_cost = [&](double n) {
    return factor * (b.rate_per_hour * std::max(b.minimum_s, n * b.increment_s) / 3600.0 + b.fixed);
  };
  const auto hours_at = [&](double x) { return (x - b.cold_start_s) / (b.q * 3600.0); };
  const double x_end = b.q * t_max * 3600.0 + b.cold_start_s;
  ChartSeries s{std::move(name), std::string(colour), {Point{0, cost(0)}}, {}, dashed};
  if ((x_end - b.cold_start_s) / b.increment_s > kMaxDrawnSteps) {
    const double t_min = hours_at(b.minimum_s);
    if (t_min > 0 && t_min < t_max) s.points.push_back(Point{t_min, cost(t_min)});
  } else {
    for (double n = std::floor(b.cold_start_s / b.increment_s) + 1; n * b.increment_s < x_end; n += 1) {
      const double t = hours_at(n * b.increment_s);
      if (t <= 0 || step_cost(n + 1) == step_cost(n)) continue;
      s.points.push_back(Point{t, step_cost(n)});
      s.points.push_back(Point{t, step_cost(n + 1)});
    }
  }
  s.points.push_back(Point{t_max, cost(t_max)});
  return s;
}

// ---- carbon ------------------------------------------------------------------------------

std::string carbon_row(std::string_view side, const breakeven::CarbonSide& s, std::string_view overhead_word) {
  if (!s.kg)
    return fmt::format("<tr><td>{}</td><td colspan=\"4\"><span class=\"na\">unknown: {}</span></td></tr>\n", side,
                       esc(s.reason));
  return fmt::format(
      "<tr><td>{}</td><td class=\"num\">{} kg</td><td class=\"num\">{:.4f} kWh</td><td>x{:.2f} {}</td>"
      "<td>{:.5g} g/kWh ({})</td></tr>\n",
      side, breakeven::kg_text(*s.kg), s.kwh, s.overhead, esc(overhead_word), *s.intensity_g_per_kwh,
      esc(s.intensity_basis));
}

/// kg CO2e of the job on both sides (docs/cost-model.md, "Carbon"); none for a Result priced
/// without it.
std::string carbon_section(const ReportContent& c) {
  const breakeven::CarbonResult& k = c.result.carbon;
  if (!k.computed) return {};
  std::string b =
      "<section id=\"carbon\"><h2>Carbon</h2>\n<table><tr><th>side</th><th>CO2e</th><th>energy</th>"
      "<th>facility overhead</th><th>grid intensity</th></tr>\n";
  b += carbon_row("local", k.local, "cooling");
  b += carbon_row("cloud (estimate)", k.cloud, k.cloud.overhead_basis);
  b += "</table>\n";
  return b +
         fmt::format("<p class=\"note\">Cloud energy, an estimate: {}.</p>\n</section>\n", esc(k.cloud_energy_basis));
}

std::string breakeven_section(const ReportContent& c) {
  const Result& r = c.result;
  const CostLines lines = cost_lines(r, c.config);
  XYChart chart;
  chart.title = "Cost against job length";
  chart.y_unit = c.config.currency;
  chart.x_caption = "job length, h";
  chart.height = 300;
  chart.x1 = chart_hours(r);
  chart.series.push_back(line_series("local", kLocalColour, chart.x1, false, [&](double t) { return lines.local(t); }));
  const breakeven::Billing billing = breakeven::billing_of(c.config, r.q);
  chart.series.push_back(billed_series("cloud", kCloudColour, chart.x1, false, billing, 1.0));
  chart.series.push_back(billed_series(fmt::format("cloud + {:.0f} % (the line)", r.line * 100), kLineColour, chart.x1,
                                       true, billing, 1 + r.line));
  const double y_max = std::max({lines.local(chart.x1), (1 + r.line) * breakeven::cloud_cost(billing, chart.x1), 1e-9});
  const auto y_ticks = nice_ticks(0, y_max, 5);
  chart.y1 = std::max(y_max, y_ticks.back());
  for (double v : y_ticks) chart.y_ticks.push_back(AxisTick{v, tick_label(v)});
  if (chart.x1 < text::kMinutesBelowHours) {  // the axis in minutes, as the job lengths on it read
    chart.x_caption = "job length, min";
    for (double v : nice_ticks(0, chart.x1 * 60, 8)) chart.x_ticks.push_back(AxisTick{v / 60, tick_label(v)});
  } else {
    for (double v : nice_ticks(0, chart.x1, 8)) chart.x_ticks.push_back(AxisTick{v, tick_label(v)});
  }
  chart.markers.push_back(
      ChartMarker{r.job.wall_h, "this job", fmt::format("this job: {}", duration_h(r.job.wall_h)), "#333"});
  if (r.job_hours.value && *r.job_hours.value <= chart.x1)
    chart.dots.push_back(ChartDot{Point{*r.job_hours.value, lines.local(*r.job_hours.value)},
                                  "T* = " + duration_h(*r.job_hours.value), "#333"});
  if (r.line_job_hours.value && *r.line_job_hours.value <= chart.x1)
    chart.dots.push_back(ChartDot{Point{*r.line_job_hours.value, lines.local(*r.line_job_hours.value)},
                                  "T\u03bb = " + duration_h(*r.line_job_hours.value), std::string(kLineColour), true});
  std::string b = "<section id=\"breakeven\"><h2>Break-even</h2>\n" + render_xy_chart(chart);
  b += fmt::format(
      "<p class=\"note\">Local cost grows by {:.4f} {cur}/h of job; the cloud's by {:.4f} {cur}/h after "
      "{:.4f} {cur} of cold start and fixed cost, billed in whole increments of {:g} s and at least "
      "{:g} s. T* (local = cloud): {}. T&#955; (local = cloud + {:.0f} %): {}.</p>\n</section>\n",
      lines.local_per_h, lines.cloud_per_h, lines.cloud_fixed, c.config.billing_increment_s, c.config.billing_minimum_s,
      esc(crossings_text(r.job_hours, r.job_crossings)), r.line * 100,
      esc(crossings_text(r.line_job_hours, r.line_crossings)), fmt::arg("cur", esc(c.config.currency)));
  return b;
}

// ---- ways of paying: cost per year against use -----------------------------------------

std::string_view way_colour(std::string_view way) {
  if (way == "owning") return kLocalColour;
  if (way == "on-demand") return kCloudColour;
  if (way == "spot") return "#7a7a7a";
  if (way == "reserved-1y") return "#2a9d8f";
  if (way == "reserved-3y") return "#264653";
  return "#8e44ad";  // savings-plan
}

// A curve's corners over [0, 8760]: its ends and its capacity; a term nothing prices past its
// capacity ends there.
ChartSeries paying_series(const breakeven::PayingCurve& c) {
  ChartSeries s{c.offer.empty() ? c.way : fmt::format("{} ({})", c.way, c.offer),
                std::string(way_colour(c.way)),
                {},
                {},
                c.way == "spot"};
  const double end = std::min(breakeven::kHoursPerYear, c.end_h());
  for (double u : {0.0, c.capacity_job_h.value_or(end), end})
    if (u <= end && (s.points.empty() || u > s.points.back().x)) s.points.push_back(Point{u, *c.cost(u)});
  return s;
}

std::string paying_section(const ReportContent& c) {
  if (!c.extras.paying) return {};
  const breakeven::PayingComparison& p = *c.extras.paying;
  XYChart chart;
  chart.title = "Cost per year against use";
  chart.y_unit = c.config.currency;
  chart.x_caption = "job hours a year";
  chart.height = 300;
  chart.x1 = breakeven::kHoursPerYear;
  double y_max = 1e-9;
  for (const breakeven::PayingCurve& curve : p.curves) {
    chart.series.push_back(paying_series(curve));
    for (const Point& pt : chart.series.back().points) y_max = std::max(y_max, pt.y);
  }
  const auto y_ticks = nice_ticks(0, y_max, 5);
  chart.y1 = std::max(y_max, y_ticks.back());
  for (double v : y_ticks) chart.y_ticks.push_back(AxisTick{v, tick_label(v)});
  for (double v : nice_ticks(0, chart.x1, 8)) chart.x_ticks.push_back(AxisTick{v, tick_label(v)});
  chart.markers.push_back(
      ChartMarker{p.planned_h, "your use",
                  fmt::format("your use: {:g} h/year{}", p.planned_h, p.planned_assumed ? " (assumed)" : ""), "#333"});
  for (std::size_t i = 0; i + 1 < p.ranges.size(); ++i) {
    const double at = p.ranges[i].to_h;
    chart.dots.push_back(ChartDot{Point{at, p.curves[p.ranges[i].curve].cost(at).value_or(0)},
                                  fmt::format("{:.0f} h", at), "#333", i % 2 == 1});
  }
  std::string b = "<section id=\"paying\"><h2>Ways of paying</h2>\n" + render_xy_chart(chart);
  b += fmt::format("<p class=\"note\">{}: cheapest {}. At {:g} h/year{}: {}.", esc(p.instance),
                   esc(sections::paying_ranges_words(p)), p.planned_h, p.planned_assumed ? " (assumed)" : "",
                   esc(p.curves[p.cheapest_at(p.planned_h)].way));
  for (const std::string& m : p.missing) b += " Not compared: " + esc(m) + ".";
  return b + "</p>\n</section>\n";
}

// ---- per-GPU timelines ------------------------------------------------------------------

struct TimelineChartSpec {
  std::string title, unit, colour;
  const TimelineSeries* series;
  double y_min, y_max;
};

std::vector<AxisTick> value_ticks(double lo, double hi) {
  std::vector<AxisTick> out;
  for (double v : nice_ticks(lo, hi, 4)) out.push_back(AxisTick{v, tick_label(v)});
  return out;
}

/// The largest value of a series (0 when empty).
double series_max(const TimelineSeries& s) {
  double m = 0;
  for (const Point& p : s.points) m = std::max(m, p.y);
  return m;
}

double series_min(const TimelineSeries& s, double fallback) {
  double m = fallback;
  for (const Point& p : s.points) m = std::min(m, p.y);
  return m;
}

XYChart timeline_chart(const TimelineChartSpec& spec, const ReportContent& c, const GpuTimeline& t) {
  const auto& f = c.sources.features;
  XYChart chart;
  chart.title = spec.title;
  chart.y_unit = spec.unit;
  chart.height = 140;
  chart.x1 = f.wall_s();
  chart.y0 = spec.y_min;
  chart.y1 = spec.y_max > spec.y_min ? spec.y_max : spec.y_min + 1;
  chart.x_ticks = time_ticks(f.from_ns, f.wall_s(), 10);
  chart.x_caption = "UTC";
  chart.y_ticks = value_ticks(chart.y0, chart.y1);
  chart.series.push_back(ChartSeries{"", spec.colour, spec.series->points, spec.series->break_before, false});
  for (const TimeSpan& s : t.throttled)
    chart.bands.push_back(ChartBand{static_cast<double>(s.from_ns - f.from_ns) / 1e9,
                                    static_cast<double>(s.to_ns - f.from_ns) / 1e9, "throttled (SM clock)"});
  for (const TimelineEvent& e : c.sources.events)
    chart.markers.push_back(ChartMarker{static_cast<double>(e.ts_ns - f.from_ns) / 1e9, e.label,
                                        fmt::format("{} {}: {}", format_utc(e.ts_ns), e.label, e.message),
                                        std::string(marker_colour(e.kind))});
  return chart;
}

std::string gpu_timeline(const ReportContent& c, const GpuTimeline& t, bool label_events) {
  const double threshold = c.options.temp_threshold_c;
  const double clock_top =
      std::max(series_max(t.sm_clock_mhz), std::isnan(t.reference_clock_mhz) ? 0 : t.reference_clock_mhz);
  std::string b = fmt::format("<h3>{}GPU {}</h3>\n", t.host.empty() ? "" : esc(t.host) + " ", t.gpu);
  if (!std::isnan(t.reference_clock_mhz))
    b += fmt::format(
        "<p class=\"note\">Throttled {:.0f} s of the window (SM clock below {:.0f} MHz while busy; "
        "reference {:.0f} MHz, {}).</p>\n",
        t.throttled_s, 0.85 * t.reference_clock_mhz, t.reference_clock_mhz,
        t.reference_reported ? "the reported maximum SM clock" : "p99 of the busy SM clock");
  XYChart power = timeline_chart({"Power", "W", "#1f6fb2", &t.power_w, 0, series_max(t.power_w) * 1.05}, c, t);
  XYChart temp = timeline_chart({"Temperature", "\u00b0C", "#d62728", &t.temp_c,
                                 std::floor(std::min(series_min(t.temp_c, threshold), threshold - 10)),
                                 std::max(series_max(t.temp_c), threshold + 5)},
                                c, t);
  temp.rules.push_back(ChartRule{threshold, fmt::format("threshold {} \u00b0C", number(threshold)), "#d62728"});
  XYChart util = timeline_chart({"Utilisation", "%", "#2ca02c", &t.util_pct, 0, 100}, c, t);
  XYChart clock = timeline_chart({"SM clock", "MHz", "#7b1fa2", &t.sm_clock_mhz, 0, clock_top * 1.05}, c, t);
  if (!std::isnan(t.reference_clock_mhz))
    clock.rules.push_back(ChartRule{0.85 * t.reference_clock_mhz, "throttle limit", "#8a5300"});
  // Event labels and tooltips once, above the first chart of the first GPU; the other charts
  // carry bare lines (the events are the host's: the same on every GPU).
  power.marker_label_rows = 0;
  for (XYChart* chart : {&temp, &util, &clock}) chart->marker_label_rows = 0;
  if (label_events && !c.sources.events.empty()) {
    power.marker_label_rows = 3;
    power.height += 3 * 12;
  }
  for (const XYChart* chart : {&power, &temp, &util, &clock}) b += render_xy_chart(*chart);
  return b;
}

std::string marker_legend() {
  std::string b = "<p class=\"legend\">";
  for (const Marker& m : kMarkers)
    if (m.kind != "resume") b += fmt::format("<span style=\"color:{}\">&#9474; {}</span>", m.colour, esc(m.legend));
  b += "<span style=\"color:#00838f\">&#9474; resume</span><span "
       "style=\"background:#f4a26155\">&#160;shaded&#160;</span> "
       "throttled</p>\n";
  return b;
}

/// The events of the timelines with their messages; the first kEventRows of them.
std::string events_table(const std::vector<TimelineEvent>& events) {
  constexpr std::size_t kEventRows = 300;
  if (events.empty()) return {};
  std::string b =
      "<h3>Kernel and system events</h3>\n<table><tr><th>time (UTC)</th><th>event</th><th>message</th></tr>\n";
  for (std::size_t i = 0; i < events.size() && i < kEventRows; ++i)
    b +=
        fmt::format("<tr><td>{}</td><td style=\"color:{}\">{}</td><td>{}</td></tr>\n", esc(format_utc(events[i].ts_ns)),
                    marker_colour(events[i].kind), esc(events[i].label), esc(events[i].message));
  b += "</table>\n";
  if (events.size() > kEventRows)
    b += fmt::format("<p class=\"note\">... and {} more (gpucost prep lists them all).</p>\n",
                     events.size() - kEventRows);
  return b;
}

std::string timelines_section(const ReportContent& c) {
  std::string b = "<section id=\"timelines\"><h2>GPU timelines</h2>\n";
  if (c.sources.from_features_document)
    return b +
           "<p class=\"note\">The input was a features document: it holds no telemetry series to "
           "draw.</p>\n</section>\n";
  if (c.sources.timelines.empty()) return b + "<p class=\"note\">No telemetry samples in the inputs.</p>\n</section>\n";
  b += fmt::format(
      "<p class=\"note\">{} in the window, marked on every GPU (kernel "
      "messages name no GPU index), labelled above {}GPU {}'s first chart and listed below. Lines are "
      "downsampled to at most {} points each (LTTB); hover a labelled marker or a band for details.</p>\n",
      text::counted(static_cast<long long>(c.sources.events.size()), "kernel and system event"),
      c.sources.timelines.front().host.empty() ? "" : esc(c.sources.timelines.front().host) + " ",
      c.sources.timelines.front().gpu, kTimelinePoints);
  b += marker_legend();
  for (const GpuTimeline& t : c.sources.timelines) b += gpu_timeline(c, t, &t == &c.sources.timelines.front());
  return b + events_table(c.sources.events) + "</section>\n";
}

// ---- trace, findings, incidents ---------------------------------------------------------

std::string trace_device_label(const extract::TraceRecord& r) {
  const double rank = r.get("rank");
  return std::isnan(rank) ? fmt::format("GPU {}", r.gpu) : fmt::format("rank {} GPU {}", number(rank), r.gpu);
}

/// Σ busy / Σ span of the traces' GPUs (1 when unknown): the cloud's billed share of a region's time.
double traces_busy_share(const std::vector<extract::TraceRecord>& devices) {
  double busy = 0, span = 0;
  for (const auto& d : devices)
    if (!std::isnan(d.get("busy_ns")) && !std::isnan(d.get("span_ns"))) {
      busy += d.get("busy_ns");
      span += d.get("span_ns");
    }
  return span > 0 ? busy / span : 1.0;
}

/// The annotated regions (docs/formats.md, "Annotated regions") per step, priced with the
/// report's config as `gpucost trace -c` prices them: the step's wall time inside the region.
std::string regions_table(const ReportContent& c) {
  const auto& regions = c.sources.trace_regions;
  if (regions.empty()) return {};
  const double busy = traces_busy_share(c.sources.trace_devices);
  std::string b =
      "<h3>Annotated regions</h3>\n<table><tr><th>rank</th><th>region</th><th>calls</th><th>CPU time</th>"
      "<th>GPU time</th><th>share of the step</th><th>local</th><th>cloud</th></tr>\n";
  for (const auto& r : regions) {
    const double steps = std::max(1.0, std::isnan(r.get("steps")) ? 1.0 : r.get("steps"));
    const double cpu_ns = r.get("cpu_ns") / steps, gpu_ns = r.get("gpu_ns");
    const breakeven::StepCost cost = breakeven::step_cost(c.config, cpu_ns / 1e9, busy);
    const double rank = r.get("rank"), depth = std::isnan(r.get("depth")) ? 0 : r.get("depth");
    std::string indent;
    for (int i = 0; i < static_cast<int>(depth); ++i) indent += "&nbsp;&nbsp;";
    b += fmt::format(
        "<tr><td>{}</td><td>{}{}</td><td class=\"num\">{:.3g}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.4g} {}</td><td class=\"num\">{:.4g} "
        "{}</td></tr>\n",
        std::isnan(rank) ? std::string("-") : number(rank), indent, esc(r.detail), r.get("calls") / steps,
        esc(human_ns(cpu_ns)), std::isnan(gpu_ns) ? std::string("-") : esc(human_ns(gpu_ns / steps)),
        std::isnan(r.get("step_share")) ? std::string("-") : fmt::format("{:.1f} %", 100 * r.get("step_share")),
        cost.local, esc(c.config.currency), cost.cloud, esc(c.config.currency));
  }
  const bool per_step = std::any_of(regions.begin(), regions.end(), [](const auto& r) { return r.get("steps") > 0; });
  return b + fmt::format(
                 "</table>\n<p class=\"note\">Per {} of each trace; times inclusive (a nested region's time is also "
                 "its parent's, so shares do not add up). GPU time: the region's gpu_user_annotation ranges, else "
                 "the ops launched while it was open. Money: the {}'s wall time inside the region, priced as a "
                 "step of that length (local without the GPUs' energy; cloud at the GPUs' busy share {:.1f} %); "
                 "<code>gpucost trace -c</code> prices it per epoch.</p>\n",
                 per_step ? "step" : "trace", per_step ? "step" : "trace", 100 * busy);
}

std::string trace_section(const ReportContent& c) {
  const auto& devices = c.sources.trace_devices;
  if (devices.empty()) return {};
  BarChart chart;
  chart.title = "Profiler trace: where the GPU time went";
  chart.unit = "ms";
  // The GPU memory peaks of the `[memory]` events (docs/formats.md), a column only when a trace has them.
  const bool memory = std::any_of(devices.begin(), devices.end(),
                                  [](const extract::TraceRecord& d) { return !std::isnan(d.get("mem_events")); });
  std::string table = "<table><tr><th>device</th><th>span</th><th>compute</th><th>non-compute</th><th>idle</th>";
  table += memory ? "<th>memory peak allocated / reserved</th></tr>\n" : "</tr>\n";
  for (const auto& d : devices) {
    const double span = d.get("span_ns"), compute = d.get("compute_ns"), other = d.get("noncompute_ns"),
                 idle = d.get("idle_ns");
    chart.rows.push_back(BarRow{trace_device_label(d),
                                {{"compute", compute / 1e6, "#2e7d32"},
                                 {"non-compute", other / 1e6, "#f9a825"},
                                 {"idle", idle / 1e6, "#bdbdbd"}}});
    const auto share = [&](double v) { return span > 0 ? fmt::format("{:.1f} %", v / span * 100) : std::string("-"); };
    table += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td class=\"num\">{}</td>",
        esc(trace_device_label(d)), esc(human_ns(span)), share(compute), share(other), share(idle));
    const auto bytes = [&](const char* key) {
      return std::isnan(d.get(key)) ? std::string("-") : human_bytes_binary(d.get(key));
    };
    if (memory)
      table += fmt::format("<td class=\"num\">{} / {}</td>", esc(bytes("mem_peak_allocated_bytes")),
                           esc(bytes("mem_peak_reserved_bytes")));
    table += "</tr>\n";
  }
  return "<section id=\"trace\"><h2>Trace breakdown</h2>\n" + render_bar_chart(chart) + table +
         "</table>\n<p class=\"note\">Compute: compute kernels; non-compute: memory copies and sets, communication "
         "kernels; idle: no GPU op on any stream.</p>\n" +
         regions_table(c) + "</section>\n";
}

// ---- a distributed job's ranks (docs/report.md, "Distributed job: ranks over time") -------

std::string rank_label(const extract::TraceJob& j, const extract::RankRow& r) {
  return fmt::format("rank {}{}", r.rank, r.rank == j.straggler_rank ? " (straggler)" : "");
}

/// The ranks' strips on one axis in ms from the earliest rank's start; empty when no rank has one
/// (features written before the strips).
std::string rank_strips(const extract::TraceJob& j) {
  std::int64_t from = 0, to = 0;
  bool any = false;
  for (const extract::RankRow& r : j.ranks) {
    if (r.strip.empty()) continue;
    from = any ? std::min(from, r.start_ns) : r.start_ns;
    to = any ? std::max(to, r.start_ns + r.span_ns) : r.start_ns + r.span_ns;
    any = true;
  }
  if (!any) return {};
  StripChart chart;
  chart.title = "GPU activity of each rank";
  chart.x_caption = "ms from the job's start";
  chart.x1 = static_cast<double>(to - from) / 1e6;
  for (const double v : nice_ticks(0, chart.x1, 8))
    if (v <= chart.x1) chart.x_ticks.push_back(AxisTick{v, tick_label(v)});
  chart.states = {{trace::kStripCompute, "compute", "#2e7d32"},
                  {trace::kStripOverlapped, "communication overlapped by compute", "#1565c0"},
                  {trace::kStripExposed, "exposed communication", "#c62828"},
                  {trace::kStripIdle, "idle", "#bdbdbd"}};
  for (const extract::RankRow& r : j.ranks) {
    if (r.strip.empty()) continue;
    const double x0 = static_cast<double>(r.start_ns - from) / 1e6;
    chart.rows.push_back(StripRow{rank_label(j, r), x0, x0 + static_cast<double>(r.span_ns) / 1e6, r.strip});
  }
  return render_strip_chart(chart);
}

std::string share_text(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f} %", static_cast<double>(part) / static_cast<double>(whole) * 100)
                   : std::string("-");
}

std::string rank_table(const extract::TraceJob& j) {
  std::string b =
      "<table><tr><th>rank</th><th>span</th><th>wait</th><th>wait share</th><th>straggler steps</th>"
      "<th>exposed comm</th><th>overlap</th></tr>\n";
  for (const extract::RankRow& r : j.ranks)
    b += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{} of {}</td><td class=\"num\">{} ({} of the span)</td><td class=\"num\">{}</td></tr>\n",
        esc(rank_label(j, r)), esc(human_ns(static_cast<double>(r.span_ns))),
        esc(human_ns(static_cast<double>(r.wait_ns))), share_text(r.wait_ns, r.span_ns), r.straggler_steps, j.steps,
        esc(human_ns(static_cast<double>(r.exposed_comm_ns))), share_text(r.exposed_comm_ns, r.span_ns),
        r.comm_ns > 0 ? fmt::format("{:.1f} %", r.overlap_fraction() * 100) : std::string("-"));
  return b + "</table>\n";
}

/// The waiting and the exposed communication priced, worded as breakeven's table words them.
std::string rank_costs(const breakeven::TraceJobCost& c, const std::string& cur) {
  const extract::TraceJob& j = c.job;
  const std::string straggler =
      j.straggler_rank >= 0
          ? fmt::format("for rank {} in {:.0f} % of {} steps", j.straggler_rank, j.straggler_step_share * 100, j.steps)
          : std::string("no single straggler");
  std::string b =
      "<table><tr><th>of the GPU time in the traces</th><th>share</th><th>local</th><th>cloud</th>"
      "<th></th></tr>\n";
  b += fmt::format(
      "<tr><td>waiting for the straggler</td><td class=\"num\">{:.1f} %</td><td class=\"num\">{} {}</td>"
      "<td class=\"num\">{} {}</td><td>{}</td></tr>\n",
      j.wait_fraction() * 100, esc(breakeven::unit_money(c.wait_local)), esc(cur),
      esc(breakeven::unit_money(c.wait_cloud)), esc(cur), esc(straggler));
  b += fmt::format(
      "<tr><td>exposed communication</td><td class=\"num\">{:.1f} %</td><td class=\"num\">{} {}</td>"
      "<td class=\"num\">{} {}</td><td>{:.1f} % of the communication overlapped by compute; it includes the "
      "waiting: do not add the two</td></tr>\n",
      j.exposed_comm_fraction() * 100, esc(breakeven::unit_money(c.exposed_local)), esc(cur),
      esc(breakeven::unit_money(c.exposed_cloud)), esc(cur), j.overlap_fraction() * 100);
  return b + "</table>\n";
}

std::string rank_job(const breakeven::TraceJobCost& c, const std::string& cur) {
  const extract::TraceJob& j = c.job;
  std::string b = fmt::format("<h3>{} of {} ranks ({})</h3>\n", j.ranks.size(), j.world_size,
                              esc(j.backend.empty() ? "backend unknown" : j.backend));
  const std::string strips = rank_strips(j);
  b += strips.empty() ? "<p class=\"note\">No strip of the ranks to draw: features written before gpucost kept them "
                        "(extract them again), or GPU ops that span no time.</p>\n"
                      : strips;
  b += rank_table(j) + rank_costs(c, cur);
  for (const std::string& n : j.notes) b += fmt::format("<p class=\"note\">Note: {}</p>\n", esc(n));
  return b;
}

std::string ranks_section(const ReportContent& c) {
  std::string b;
  for (const breakeven::TraceJobCost& cost : breakeven::trace_job_costs(c.result, c.sources.features))
    if (cost.job.ranks.size() >= 2) b += rank_job(cost, c.config.currency);
  if (b.empty()) return {};
  return "<section id=\"ranks\"><h2>Distributed job: ranks over time</h2>\n" + b +
         "<p class=\"note\">Each rank's span (its first GPU op to its last) in 120 equal bins, each coloured by the "
         "state of most of its time: exposed communication (a communication kernel without a compute kernel on "
         "its device), communication overlapped by compute, compute, or idle (memory copies and sets included); "
         "of equal times exposed wins, then overlapped, then compute. Wait: the time a rank spent in collectives "
         "waiting for the last rank to join, its share of the rank's span. The costs are those shares of the "
         "job's local and cloud cost (docs/cost-model.md).</p>\n</section>\n";
}

std::string findings_section(const std::vector<ReportFinding>& findings) {
  if (findings.empty()) return {};
  std::string b = "<section id=\"findings\"><h2>Findings</h2>\n<ul>\n";
  for (const ReportFinding& f : findings)
    b += fmt::format("<li class=\"{}\"><strong>{}</strong>{}{}</li>\n", esc(f.severity), esc(f.title),
                     f.detail.empty() ? "" : ": ", esc(f.detail));
  return b + "</ul>\n</section>\n";
}

std::string incidents_section(const ReportContent& c) {
  const Result& r = c.result;
  if (r.incidents.empty()) return {};
  // One row per fault, in time order, at most kIncidentsShown (the costliest) as in the table;
  // the rest summed in a note: a storm of Xids must not bury the page.
  std::string b =
      "<section id=\"incidents\"><h2>Incidents</h2>\n<table><tr><th>time (UTC)</th><th>what</th>"
      "<th>operator time</th><th>cost</th><th>downtime</th></tr>\n";
  const std::vector<std::size_t> shown = incidents_shown(r);
  for (const std::size_t n : shown) {
    const auto& ic = r.incidents[n];
    const auto& i = ic.fault;
    std::string what =
        extract::fault_members_text(i) + (i.bucket.empty() ? "" : " (" + i.bucket + ", " + i.cause + ")");
    if (i.last_ts_ns != i.ts_ns) what += fmt::format(", until {}", format_utc(i.last_ts_ns));
    if (!i.device.empty()) what += ", GPU " + i.device;
    b += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td></tr>\n",
        esc(format_utc(i.ts_ns)), esc(what), duration_h(ic.hours), esc(money(ic.cost, c.config.currency)),
        i.downtime_s ? fmt::format("{:.0f} s", *i.downtime_s) : std::string("unknown"));
  }
  b += "</table>\n";
  if (const HiddenIncidents hidden = incidents_hidden(r, shown); hidden.count > 0) {
    b += fmt::format(
        "<p class=\"note\">The {} costliest of {} incidents. \u2026 and {} more: {}, {} operator "
        "time (gpucost breakeven --json lists them all). All {} together: {}.</p>\n",
        shown.size(), r.incidents.size(), hidden.count, esc(money(hidden.cost, c.config.currency)),
        duration_h(hidden.operator_h), r.incidents.size(), esc(money(r.incident_cost, c.config.currency)));
  }
  return b + "</section>\n";
}

// ---- indicators -------------------------------------------------------------------------

std::string indicator_cell(const extract::IndicatorSet& set, std::string_view key) {
  const auto it = set.find(std::string(key));
  if (it == set.end()) return "<td></td>";
  if (it->second.value) return fmt::format("<td class=\"num\">{}</td>", number(*it->second.value));
  return fmt::format("<td><span class=\"na\">null: {}</span></td>", esc(it->second.reason));
}

// Without a profiler trace every trace indicator is null for the same reason in every column:
// one row says so instead of a row per indicator.
constexpr std::string_view kNoTraceReason = "no Kineto trace";

bool trace_given(const extract::Features& f) {
  const auto kernels = extract::value_of(f.host_indicators, "kernels");
  return kernels.has_value();
}

/// Null in every column it has a cell in, for want of a trace.
bool null_for_no_trace(const extract::Features& f, const extract::IndicatorDef& d) {
  bool any = false;
  const auto cell = [&](const extract::IndicatorSet& set) {
    const auto it = set.find(std::string(d.key));
    if (it == set.end()) return true;  // an empty cell
    any = true;
    return !it->second.value && it->second.reason.starts_with(kNoTraceReason);
  };
  if (d.scope != extract::Scope::gpu_only && !cell(f.host_indicators)) return false;
  if (d.scope != extract::Scope::host_only)
    for (const auto& g : f.gpus)
      if (!cell(g.indicators)) return false;
  return any;
}

/// "F028–F044, F124–F134": runs of neighbours in the catalogue as ranges.
std::string id_ranges(const std::vector<std::size_t>& rows) {
  const auto cat = extract::catalogue();
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1] == rows[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ", ", cat[rows[i]].id);
    if (j > i) out += fmt::format("\u2013{}", cat[rows[j]].id);
    i = j + 1;
  }
  return out;
}

std::string indicators_section(const extract::Features& f) {
  std::string b =
      "<section id=\"indicators\"><h2>Indicators</h2>\n<table><tr><th>id</th><th>key</th><th>unit</th>"
      "<th>host</th>";
  for (const auto& g : f.gpus) b += fmt::format("<th>{}GPU {}</th>", g.host.empty() ? "" : esc(g.host) + " ", g.gpu);
  b += "</tr>\n";
  const auto cat = extract::catalogue();
  std::vector<std::size_t> no_trace;
  if (!trace_given(f))
    for (std::size_t i = 0; i < cat.size(); ++i)
      if (null_for_no_trace(f, cat[i])) no_trace.push_back(i);
  for (std::size_t i = 0; i < cat.size(); ++i) {
    const auto& d = cat[i];
    if (std::find(no_trace.begin(), no_trace.end(), i) != no_trace.end()) {
      if (i != no_trace.front()) continue;
      std::string keys;
      for (std::size_t k : no_trace) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", cat[k].key);
      b += fmt::format(
          "<tr><td>{}</td><td colspan=\"{}\" title=\"{}\"><span class=\"na\">{}: no trace given "
          "(a PyTorch profiler trace among the inputs fills them in)</span></td></tr>\n",
          esc(id_ranges(no_trace)), 3 + f.gpus.size(), esc(keys),
          esc(text::counted(static_cast<long long>(no_trace.size()), "trace indicator")));
      continue;
    }
    b += fmt::format("<tr><td>{}</td><td title=\"{}\">{}</td><td>{}</td>", esc(d.id), esc(d.definition), esc(d.key),
                     esc(d.unit));
    b += d.scope == extract::Scope::gpu_only ? "<td></td>" : indicator_cell(f.host_indicators, d.key);
    for (const auto& g : f.gpus)
      b += d.scope == extract::Scope::host_only ? "<td></td>" : indicator_cell(g.indicators, d.key);
    b += "</tr>\n";
  }
  return b + "</table>\n</section>\n";
}

std::string footer(const ReportOptions& o) {
  std::string b = "<footer><p class=\"note\">Written by " + esc(o.generator.empty() ? "gpucost" : o.generator);
  if (!o.generated_at.empty()) b += ", " + esc(o.generated_at);
  return b + ". The formulas: docs/cost-model.md; the indicators: docs/indicators.md.</p></footer>\n";
}

/// The drawing of each section the report shows, by the name of the answer's section it draws
/// (section.hpp): the report walks the sections in their one order and draws those named here.
using Drawing = std::string (*)(const ReportContent&);
constexpr std::array<std::pair<std::string_view, Drawing>, 12> kDrawings = {{
    {"verdict", verdict},
    {"costs", cost_section},
    {"faults", incidents_section},
    {"carbon", carbon_section},
    {"break-evens", breakeven_section},
    {"paying", paying_section},
    {"work", work_section},
    {"timelines", timelines_section},
    {"trace", trace_section},
    {"trace jobs", ranks_section},
    {"findings", [](const ReportContent& c) { return findings_section(c.findings); }},
    {"indicators", [](const ReportContent& c) { return indicators_section(c.sources.features); }},
}};

}  // namespace

std::vector<std::string_view> html_section_names() {
  std::vector<std::string_view> names;
  for (const auto& [name, drawing] : kDrawings) names.push_back(name);
  return names;
}

std::string html_report(const ReportContent& c) {
  std::string b =
      "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
      "<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n";
  b += fmt::format("<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n", esc(page_title(c)), kStyle);
  b += header(c);
  for (const Section& section : answer_sections())
    for (const auto& [name, drawing] : kDrawings)
      if (name == section.name) b += drawing(c);
  b += footer(c.options);
  b += "</body>\n</html>\n";
  return b;
}

}  // namespace gpucost::report

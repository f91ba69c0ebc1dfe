// What each side cost: the local electricity, amortisation and maintenance, the cloud's billed
// time with its speed, price and currency (docs/cost-model.md).
#include "report/sections/sections.hpp"

#include <array>
#include <gpucost/breakeven/speed_projection.hpp>
#include <gpucost/breakeven/spot.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/core/text.hpp>
#include <utility>

#include <fmt/format.h>

namespace gpucost::report::sections {

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

/// Defaults that drive the answer: printed as "default" when the config did not set them.
constexpr std::array<std::string_view, 2> kDrivingDefaults = {"local.lifetime_years", "local.use_hours_per_year"};

std::string default_mark(const breakeven::CostConfig& c, std::string_view key) {
  return c.is_set(key) ? std::string() : std::string(" (default)");
}

/// A spot offer's expected run: its terms (each "config" or "assumed") and what they give.
void json_spot(io::JsonWriter& w, const breakeven::CostConfig& c, const breakeven::JobInputs& job,
               const breakeven::SpotExpectation& e) {
  const breakeven::SpotTerms t = breakeven::spot_terms(c, job.checkpoint_interval_s);
  const auto basis = [&c](std::string_view key) { return c.is_set(key) ? "config" : "assumed"; };
  w.key("spot").object().key("interruptions_per_hour").num(t.interruptions_per_hour);
  w.key("interruptions_per_hour_basis").str(basis("cloud.spot_interruptions_per_hour"));
  w.key("checkpoint_interval_s").num(t.checkpoint_interval_s);
  const breakeven::CheckpointBasis from = breakeven::checkpoint_basis(c, job.checkpoint_interval_s);
  w.key("checkpoint_interval_basis")
      .str(from == breakeven::CheckpointBasis::training_log ? "training log"
           : from == breakeven::CheckpointBasis::config     ? "config"
                                                            : "assumed");
  if (from == breakeven::CheckpointBasis::training_log) w.key("checkpoints_in_log").integer(job.checkpoints);
  w.key("restart_s").num(t.restart_s);
  w.key("restart_basis").str(c.is_set("cloud.spot_restart_s") ? "config" : "cold start");
  w.key("work_h").num(e.work_h).key("expected_h").num(e.expected_h).key("factor").num(e.factor);
  w.key("interruptions_expected").num(e.interruptions).close();
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

/// The unit of work the answer shows (tokens when counted: they compare across models), or none.
const breakeven::UnitCost* headline_unit(const breakeven::WorkCosts& w) {
  const breakeven::UnitCost* first = nullptr;
  for (const breakeven::UnitCost& u : w.units) {
    if (!u.count) continue;
    if (u.unit->noun == "tokens") return &u;
    if (first == nullptr) first = &u;
  }
  return first;
}

}  // namespace

void costs_json(io::JsonWriter& w, const Answer& a) {
  const breakeven::Result& r = a.result;
  const breakeven::CostConfig& c = a.config;
  w.line("  ").key("local").object().key("electricity").num(r.electricity).key("amortisation").num(r.amortisation);
  w.key("maintenance").num(r.maintenance).key("total").num(r.local_total);
  w.key("maintenance_routine").num(r.maintenance_routine).key("incidents").num(r.incident_cost);
  w.key("defaults").array();
  for (const std::string_view key : kDrivingDefaults)
    if (!c.is_set(key)) w.item().str(key);
  w.close().key("always_on").boolean(c.always_on).key("idle_cost_per_hour").num(r.idle_cost_per_hour);
  w.key("idle_cost_per_year").num(r.idle_cost_per_year).close();

  w.line("  ").key("cloud").object().key("name").str(c.cloud_name).key("rate_per_hour").num(c.rate_per_hour);
  w.key("speed_ratio").num(c.speed_ratio).key("speed_ratio_source").str(c.speed_ratio_source);
  w.key("speed_ratio_basis").str(c.speed_ratio_basis);
  append_speed_projection(w, c);
  w.key("speed_ratio_low").num(c.speed_ratio_low).key("speed_ratio_high").num(c.speed_ratio_high);
  json_offer(w, c);
  w.key("cold_start_s").num(c.cold_start_s).key("billing_increment_s").num(c.billing_increment_s);
  w.key("billing_minimum_s").num(c.billing_minimum_s).key("busy_share").num(r.busy_share);
  w.key("busy_source").str(r.job.busy_source).key("busy_share_config").str(c.busy_share).key("q").num(r.q);
  w.key("billed_s").num(r.billed_s);
  if (r.spot) json_spot(w, c, r.job, *r.spot);
  w.key("faults").num(r.cloud_fault_cost).key("total").num(r.cloud_total).close();

  // The zone matters only to time-of-use windows: a flat tariff reports none.
  w.line("  ").key("electricity").object().key("time_of_use").boolean(!c.tou.empty());
  w.key("tz");
  if (c.tou.empty())
    w.null();
  else
    w.str(a.extras.tariff_tz);
  w.key("flat_price_per_kwh").num(c.price_per_kwh).key("mean_price_per_kwh").num(r.prices.mean);
  w.key("gpu_price_per_kwh").num(r.prices.gpu).key("system_price_per_kwh").num(r.prices.system);
  w.key("gpu_kwh").num(r.energy_kwh).key("system_kwh").num(r.system_kwh).key("cooling_factor").num(c.cooling_factor);
  w.close();
}

namespace {

std::string local_lines(const breakeven::Result& r, const breakeven::CostConfig& c, const BreakevenExtras& x) {
  const std::string& cur = c.currency;
  std::string b = "local\n";
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
  return b + fmt::format("  {:<12}{:>14}\n", "total", money(r.local_total, cur));
}

std::string cloud_lines(const breakeven::Result& r, const breakeven::CostConfig& c) {
  const std::string& cur = c.currency;
  std::string b = fmt::format("{}{}\n", "cloud", c.cloud_name.empty() ? "" : "  " + c.cloud_name);
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
  if (r.spot)
    b += fmt::format("  {:<12}{:>14}  {}\n", "spot", "",
                     breakeven::spot_text(c, *r.spot, r.job.checkpoint_interval_s, r.job.checkpoints));
  b += table_busy_share(r, c);
  if (!c.cloud_offer.empty()) b += table_price_line(c);
  if (const std::string conversion = breakeven::exchange_text(c); !conversion.empty())
    b += fmt::format("  {:<12}{:>14}  {:.6g} {}/h list price, {}\n", "exchange", "",
                     c.rate_per_hour / c.offer_exchange_rate, c.offer_currency, conversion);
  return b;
}

}  // namespace

std::string costs_full(const Answer& a) {
  return "\n" + local_lines(a.result, a.config, a.extras) + cloud_lines(a.result, a.config);
}

std::string costs_summary(const Answer& a) {
  const breakeven::Result& r = a.result;
  const breakeven::CostConfig& c = a.config;
  const extract::Features& f = a.features;
  const std::string& cur = c.currency;
  const auto row = [&](std::string_view label, std::string_view owning, std::string_view renting,
                       std::string_view note = {}) {
    std::string line = fmt::format("  {:<15}{:>14}{:>14}", label, owning, renting);
    if (!note.empty()) line += fmt::format("  {}", note);
    return std::string(text::rtrim(line)) + "\n";
  };
  std::string b = row("", "owning", "renting");
  b += row("electricity", money(r.electricity, cur), "");
  b += row("amortisation", money(r.amortisation, cur), "");
  b += row("maintenance", money(r.maintenance - r.incident_cost, cur), "");  // faults on their own row
  if (r.incident_cost > 0)
    b += row("faults", money(r.incident_cost, cur), r.cloud_fault_cost > 0 ? money(r.cloud_fault_cost, cur) : "");
  const std::string billing =
      c.billing_increment_s > 1 ? fmt::format(", billed per {:g} s", c.billing_increment_s) : "";
  const std::string spot =
      r.spot ? fmt::format(", {:.2g} spot interruptions expected", r.spot->interruptions) : std::string();
  b += row("cloud time", "", money(r.cloud_total - r.cloud_fault_cost, cur),
           fmt::format("{} at {:.6g} {}/h{}{}", text::duration_hours(r.billed_s / 3600), c.rate_per_hour, cur, billing,
                       spot));
  b += row("total", money(r.local_total, cur), money(r.cloud_total, cur));
  const breakeven::WorkCosts work = breakeven::work_costs(r, f.host_indicators);
  if (const breakeven::UnitCost* u = headline_unit(work); u && u->local && u->cloud)
    b += row(fmt::format("per {}", u->unit->per_label), breakeven::unit_money(*u->local) + " " + cur,
             breakeven::unit_money(*u->cloud) + " " + cur,
             fmt::format("{} {} in the job", breakeven::work_amount(*u->count), u->unit->noun));
  if (r.carbon.computed && r.carbon.local.kg && r.carbon.cloud.kg)
    b += row("carbon", breakeven::kg_text(*r.carbon.local.kg) + " kg", breakeven::kg_text(*r.carbon.cloud.kg) + " kg",
             "CO2e (the cloud's estimated)");
  return b + "\n";
}

}  // namespace gpucost::report::sections

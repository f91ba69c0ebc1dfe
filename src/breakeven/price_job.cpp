#include <gpucost/breakeven/price_job.hpp>
#include <gpucost/breakeven/reference_rates.hpp>
#include <gpucost/breakeven/work_units.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/extract/extract.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace gpucost::breakeven {

namespace {

void note(PricedJob& p, std::string text) { p.notices.push_back(Notice{false, std::move(text)}); }
void warn(PricedJob& p, std::string text) { p.notices.push_back(Notice{true, std::move(text)}); }

// A share of the energy estimated, or of the window unsampled, that the verdict must say aloud.
constexpr double kEstimatedShareWarn = 0.10;
constexpr double kCoverageWarn = 0.90;

void check_energy_basis(PricedJob& p) {
  const EnergyBasis& b = p.job.energy_basis;
  if (!b.known) {
    warn(p, "the features give no coverage: how much of the energy was measured is unknown (re-run gpucost extract)");
    return;
  }
  if (b.rule == FillRule::none) {
    if (b.uncovered_h > 0)
      note(p, fmt::format("--fill none: priced over the {} with samples; {} of the window without samples "
                          "left out",
                          text::duration_hours(b.covered_h), text::duration_hours(b.uncovered_h)));
    return;
  }
  // A counter's coverage is the time between its readings; the power samples' the covered intervals.
  const char* cover = p.job.energy_method == extract::kEnergyByCounter ? "the energy counters cover" : "samples cover";
  if (b.estimated_share() > kEstimatedShareWarn || b.coverage < kCoverageWarn)
    warn(p, fmt::format("{} {:.1f} % of the window: {:.4f} of {:.4f} kWh ({:.0f} %) is estimated at {} "
                        "({:.0f} W) for {} without samples; narrow --from/--to to the job, or --fill none to "
                        "price the measured time only",
                        cover, b.coverage * 100, b.estimated_kwh, b.measured_kwh + b.estimated_kwh,
                        b.estimated_share() * 100, b.rule == FillRule::idle ? "idle power" : "mean power",
                        b.fill_power_w, text::duration_hours(b.uncovered_h)));
}

// The power integral is a cross-check of the energy counters: a wide gap says the power samples
// miss the draw (too sparse for the load's swings, or averaged readings), or the counter is off.
constexpr double kCounterDisagreePct = 5.0;

void check_energy_method(PricedJob& p) {
  const JobInputs& j = p.job;
  if (j.energy_method == extract::kEnergyMixed)
    note(p,
         "the GPU energy comes from the energy counters of some GPUs and from the power samples of the others "
         "(energy_method per GPU in the features)");
  if (!j.power_vs_counter_pct || std::abs(*j.power_vs_counter_pct) <= kCounterDisagreePct) return;
  warn(p, fmt::format("the power samples' integral ({:.4f} kWh) is {:+.1f} % off the GPUs' energy counters; the "
                      "counters' energy is priced: sample power more often, or check the counter readings",
                      j.energy_from_power_kwh.value_or(0.0), *j.power_vs_counter_pct));
}

// A profiler trace taken on another GPU model than the telemetry's describes another machine (or
// another run): its busy share and launch delays then say nothing about this job.
void check_trace_device(PricedJob& p, const PriceOptions& o) {
  if (o.gpu_names.empty()) return;
  for (const std::string& traced : o.trace_gpu_names)
    if (std::find(o.gpu_names.begin(), o.gpu_names.end(), traced) == o.gpu_names.end())
      warn(p, fmt::format("the profiler trace ran on {}, the telemetry's GPU is {}: is the trace from this job?",
                          traced, fmt::join(o.gpu_names, ", ")));
}

// A verdict is only as good as the price it compares with: an old or unconfirmed one is said.
void check_price_age(PricedJob& p, const CloudOffer& offer, std::string_view today) {
  p.config.offer_age_days = price_age_days(offer, today);
  if (p.config.offer_age_days && *p.config.offer_age_days > kStalePriceDays)
    warn(p, fmt::format("the price of offer '{}' was seen on {}, {} days ago: prices change; run gpucost offers "
                        "update, or check {}",
                        offer.name, offer.date_seen, *p.config.offer_age_days, offer.source));
  if (!offer.confirmed)
    warn(p, fmt::format("the price of offer '{}' ({:g} {}/h) could not be confirmed against its source{}", offer.name,
                        offer.price_per_hour, offer.currency, offer.note.empty() ? "" : ": " + offer.note));
  if (!p.config.offer_rate_basis.empty()) note(p, fmt::format("offer '{}': {}", offer.name, p.config.offer_rate_basis));
  // A rate of long ago (the config's, an update's or the built-in one) converts with a rate of long ago.
  if (std::string stale = stale_exchange_warning(p.config, today); !stale.empty()) warn(p, std::move(stale));
}

// Fits the chosen offer to the job (count and memory), converts its price and picks its speed ratio.
Status fit_chosen_offer(PricedJob& p, const CloudOffer& offer, std::string_view today) {
  const std::string unfit = unfit_reason(offer, p.shape, p.config.memory_margin);
  if (!unfit.empty()) warn(p, fmt::format("offer '{}' cannot run this job as logged: {}", offer.name, unfit));
  if (offer.fits(p.shape.gpus) && offer.billed_gpus(p.shape.gpus) > p.shape.gpus)
    warn(p, fmt::format("a {}-GPU job priced against offer '{}' of {} GPUs: the whole instance is paid", p.shape.gpus,
                        offer.name, offer.billed_gpus(p.shape.gpus)));
  auto with = config_for_offer(p.config, offer, p.shape);
  if (!with) return with.error();
  p.config = std::move(*with);
  p.config.cloud_unfit = unfit;
  check_price_age(p, offer, today);
  if (const std::string x = exchange_text(p.config); !x.empty()) note(p, "exchange " + x);
  if (!p.config.speed_projection_missing.empty()) note(p, p.config.speed_projection_missing);
  if (p.config.speed_ratio_source == "table")
    note(p, fmt::format("speed ratio {:.3g} from the {}", p.config.speed_ratio, p.config.speed_ratio_basis));
  return {};
}

/// Faults priced at nothing because the wage is 0: say so, or the faults would vanish unnoticed.
void check_unpaid_faults(PricedJob& p) {
  if (p.result.incidents.empty() || p.config.hourly_wage > 0) return;
  warn(p, fmt::format("{} in the window cost nothing: local.hourly_wage is 0, so the operator's time is free; set it "
                      "to price the faults",
                      text::counted(static_cast<long long>(p.result.incidents.size()), "fault")));
}

void price_analyses(PricedJob& p, const extract::Features& f, const PriceOptions& o) {
  if (o.sensitivity) p.sensitivity = sensitivity(p.config, p.job, p.prices);
  p.range = premium_range(p.config, p.job, p.prices);
  decide_verdict(p.result, p.range, p.config.cloud_unfit);
  if (o.mc_draws > 0) {
    if (p.config.ranges.empty()) {
      p.monte_carlo_reason = "nothing varies: give [ranges] in the config (docs/cost-model.md, Uncertainty)";
      warn(p, "--mc: " + p.monte_carlo_reason);
    } else {
      p.monte_carlo = monte_carlo(p.config, p.job, p.prices, o.mc_draws, o.mc_seed);
    }
  }
  // Advice to rent only where the comparison is a verdict: not against an offer that cannot run
  // the job (findings still list what the job wasted, with --explain).
  const bool want_findings = p.result.above_line || o.explain;
  if (o.compare_clouds || want_findings) {
    std::vector<CloudOffer> ranked;
    for (const CloudOffer& offer : o.offers != nullptr ? *o.offers : cloud_offers())
      if (std::find(o.compare_kinds.begin(), o.compare_kinds.end(), offer.kind) != o.compare_kinds.end())
        ranked.push_back(offer);
    std::vector<OfferPrice> offers = price_offers(p.config, p.job, p.prices, p.shape, ranked);
    for (OfferPrice& offer : offers) offer.age_days = days_between(offer.date_seen, o.today);
    if (want_findings) {
      p.findings = findings(p.result, p.config, f, cheapest_of(offers));
    }
    if (o.compare_clouds) p.clouds = std::move(offers);
  }
}

/// A Slurm job allotted another number of GPUs than the telemetry shows is priced for the GPUs
/// measured: said, since the job's cost is then that of part of it (or of GPUs it did not hold).
void check_slurm_gpus(PricedJob& p, const extract::Features& f) {
  if (f.jobs.size() != 1 || !f.jobs.front().gpus) return;
  const extract::JobRecord& j = f.jobs.front();
  const std::size_t seen = p.job.energy_kwh.size();
  if (static_cast<std::int64_t>(seen) == *j.gpus) return;
  warn(p,
       fmt::format("Slurm job {} was allotted {} on {}, the telemetry shows {}: priced for the {} measured; give "
                   "the telemetry of every GPU of the job (every node's, in one run or merged)",
                   j.id, text::counted(*j.gpus, "GPU"), text::counted(static_cast<long long>(j.nodes.size()), "node"),
                   seen, text::counted(static_cast<long long>(seen), "GPU")));
}

/// The job's inputs: measured, or, without GPU energy (a training log or a trace alone),
/// estimated from the GPU model; kernel and system logs alone estimate only with --gpu.
Expected<JobInputs> measured_or_estimated(PricedJob& p, const extract::Features& f, const PriceOptions& o) {
  if (!lacks_gpu_energy(f) || (f.chosen_by == "events" && o.estimate.gpu.empty())) {
    auto job = job_inputs(f);
    if (job && o.estimate.beside) {
      auto beside = estimate_beside(f, *job, o.estimate, o.gpu_names, o.trace_gpu_names);
      if (!beside) return beside.error();
      p.beside = std::move(*beside);
    }
    return job;
  }
  auto e = estimate_energy(f, o.estimate, o.gpu_names, o.trace_gpu_names);
  if (!e) return e.error();
  warn(p, fmt::format("no GPU telemetry: the energy is estimated from the GPU model, {:.4f} kWh ({:.4f} .. {:.4f}); "
                      "log telemetry to measure it (docs/cost-model.md, \"Estimated energy\")",
                      e->estimated_kwh, e->low_kwh, e->high_kwh));
  for (const std::string& n : e->notes) warn(p, n);
  p.estimate = *e;
  return estimated_job_inputs(f, *e);
}

/// The hosts a document names (comma-separated when it holds several).
int host_count(const extract::Features& f) {
  return f.host.empty() ? 1 : 1 + static_cast<int>(std::count(f.host.begin(), f.host.end(), ','));
}

/// A job on several hosts: the config's machine figures describe `local.machines` machines, and
/// scale to the job's hosts (identical machines); when the config does not say, they are priced as
/// given, which is one machine's when the config was written for one, and the warning says so.
void scale_to_hosts(PricedJob& p, const extract::Features& f) {
  const int hosts = host_count(f);
  CostConfig& c = p.config;
  if (c.machines == 0) {
    if (hosts > 1)
      warn(p, fmt::format("the job ran on {} hosts ({}): the config's machine figures (hardware_price {}, "
                          "system_power_w, idle_power_w, maintenance) are priced once, as given; set local.machines "
                          "to the number of machines they describe (1: one of {} alike, scaled to all; {}: already "
                          "their sum)",
                          hosts, f.host, text::short_number(c.hardware_price), hosts, hosts));
    return;
  }
  if (static_cast<double>(hosts) == c.machines) return;
  const double scale = hosts / c.machines;
  c.hardware_price *= scale;
  c.system_power_w *= scale;
  c.idle_power_w *= scale;
  c.maintenance_hours_per_year *= scale;
  note(p, fmt::format("the config describes {} machine{}, the job ran on {} host{}: hardware_price, system_power_w, "
                      "idle_power_w and maintenance x{}",
                      text::short_number(c.machines), c.machines == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s",
                      text::short_number(scale)));
}

}  // namespace

Expected<PricedJob> price_job(CostConfig config, const std::optional<CloudOffer>& offer,
                              const extract::Features& features, const PriceOptions& o) {
  PricedJob p;
  p.config = std::move(config);
  scale_to_hosts(p, features);
  auto job = measured_or_estimated(p, features, o);
  if (!job) return job.error();
  p.job = std::move(*job);
  if (features.checkpoints) {  // a spot offer's checkpoint interval, unless the config sets one
    p.job.checkpoints = features.checkpoints->count;
    p.job.checkpoint_interval_s = features.checkpoints->interval_median_s;
  }
  if (!p.estimate) apply_fill(p.job, o.fill, p.config.idle_power_w);
  if (const std::string why = apply_busy_share(p.job, features, p.config.busy_share); !why.empty()) warn(p, why);
  if (o.fill == FillRule::none && !(p.job.wall_h > 0))
    return make_error(ErrorKind::usage, "--fill none: no time of the window has samples: nothing to price",
                      "give telemetry that covers the job, or use --fill mean");
  p.shape = job_shape(features, o.gpu_names);
  if (p.estimate) {
    p.shape.gpus = p.estimate->gpus;
    p.shape.local_model = p.estimate->gpu_name;
  } else {
    check_slurm_gpus(p, features);
  }
  if (std::string w = extract::slurm_host_warning(features); !w.empty()) warn(p, std::move(w));
  for (const std::string& w : implausible_values(p.config)) warn(p, w);
  check_trace_device(p, o);
  if (offer) GPUCOST_TRY(fit_chosen_offer(p, *offer, o.today));
  GPUCOST_TRY(check_job(p.config, p.job));
  if (!p.estimate) check_energy_basis(p);
  check_energy_method(p);
  p.prices = price_energy(p.config, p.job);
  p.result = evaluate(p.config, p.job, p.prices);
  p.result.carbon = carbon_of(p.config, p.job, p.result.q);
  check_unpaid_faults(p);
  price_analyses(p, features, o);
  if (offer && p.config.cloud_unfit.empty()) {
    const std::vector<CloudOffer>& catalogue = o.offers != nullptr ? *o.offers : cloud_offers();
    if (wants_paying(*offer, catalogue, o.compare_kinds))
      p.paying = paying_comparison(p.config, p.result, p.job, p.prices, p.shape, *offer, catalogue);
  }
  if (o.fill != FillRule::mean) {
    const std::string why =
        fmt::format("the energy bounds include the time without samples; none with --fill {}", fill_rule_name(o.fill));
    for (std::string& m : p.range.missing)
      if (m.starts_with("energy:")) m = "energy: " + why;
    if (!p.range.low) p.range.reason = why;
  }
  return p;
}

}  // namespace gpucost::breakeven

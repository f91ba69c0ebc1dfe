#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/crossings.hpp>
#include <gpucost/core/fault_cause.hpp>
#include <gpucost/core/xid_bucket.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>

namespace gpucost::breakeven {

namespace {

/// A rule and its name, as the options and the documents spell it; the first row is the default.
template <class Rule>
struct RuleName {
  Rule rule;
  std::string_view name;
};
constexpr RuleName<FillRule> kFillRules[] = {
    {FillRule::mean, "mean"}, {FillRule::idle, "idle"}, {FillRule::none, "none"}};
constexpr RuleName<FaultRule> kFaultRules[] = {{FaultRule::both_sides, "both-sides"},
                                               {FaultRule::hardware_only, "hardware-only"},
                                               {FaultRule::all_local, "all-local"}};

template <class Rule, std::size_t N>
std::string_view name_of(const RuleName<Rule> (&names)[N], Rule rule) {
  for (const RuleName<Rule>& r : names)
    if (r.rule == rule) return r.name;
  return names[0].name;
}

template <class Rule, std::size_t N>
std::optional<Rule> rule_named(const RuleName<Rule> (&names)[N], std::string_view name) {
  for (const RuleName<Rule>& r : names)
    if (r.name == name) return r.rule;
  return std::nullopt;
}

// Measured and filled energy per GPU from coverage (F002) and energy_filled_fraction (F004).
void measure_basis(const extract::Features& f, JobInputs& in) {
  EnergyBasis& b = in.energy_basis;
  b.window_h = in.wall_h;
  double coverage_sum = 0;
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    // A counter's energy is measured wherever the counter covers, gaps between samples included.
    const bool by_counter = f.gpus[i].energy_method == extract::kEnergyByCounter;
    const auto coverage =
        extract::value_of(f.gpus[i].indicators, by_counter ? extract::IndicatorKey("energy_counter_coverage")
                                                           : extract::IndicatorKey("coverage"));
    const double e = in.energy_kwh[i];
    // energy_filled_fraction is absent only when the energy is 0: nothing was filled then.
    const double filled_share =
        e > 0 ? extract::value_of(f.gpus[i].indicators, "energy_filled_fraction").value_or(-1.0) : 0.0;
    if (!coverage || filled_share < 0) {
      in.measured_kwh.clear();
      in.uncovered_h.clear();
      b = EnergyBasis{};
      b.window_h = in.wall_h;
      return;  // an old document: the split is unknown
    }
    // extract's sums carry rounding noise (a coverage of 0.9999999999999997): within 1e-9 of
    // whole, a GPU was sampled throughout and nothing was filled.
    const double share = filled_share < 1e-9 ? 0.0 : filled_share;
    const double covered = *coverage > 1.0 - 1e-9 ? 1.0 : std::max(0.0, *coverage);
    in.measured_kwh.push_back(e * (1.0 - share));
    in.uncovered_h.push_back((1.0 - covered) * in.wall_h);
    coverage_sum += covered;
  }
  b.known = !f.gpus.empty();
  b.coverage = b.known ? coverage_sum / static_cast<double>(f.gpus.size()) : 1.0;
  for (std::size_t i = 0; i < in.measured_kwh.size(); ++i) {
    b.measured_kwh += in.measured_kwh[i];
    b.estimated_kwh += in.energy_kwh[i] - in.measured_kwh[i];
  }
  b.covered_h = b.coverage * in.wall_h;
  b.uncovered_h = in.wall_h - b.covered_h;
  b.fill_power_w = b.uncovered_h > 0 ? b.estimated_kwh / b.uncovered_h * 1000.0 : 0.0;
}

}  // namespace

std::string_view fill_rule_name(FillRule rule) { return name_of(kFillRules, rule); }

Expected<FillRule> parse_fill_rule(std::string_view text) {
  if (const auto rule = rule_named(kFillRules, text)) return *rule;
  return make_error(ErrorKind::usage, fmt::format("--fill: unknown rule '{}'", text),
                    "mean (uncovered time at the GPU's mean power), idle (at local.idle_power_w) or none (price the "
                    "measured time only)");
}

void apply_fill(JobInputs& job, FillRule rule, double idle_power_w) {
  EnergyBasis& b = job.energy_basis;
  b.rule = rule;
  if (rule == FillRule::mean || !b.known) return;
  const double before = std::accumulate(job.energy_kwh.begin(), job.energy_kwh.end(), 0.0);
  const double per_gpu_w = job.energy_kwh.empty() ? 0.0 : idle_power_w / static_cast<double>(job.energy_kwh.size());
  b.estimated_kwh = 0;
  for (std::size_t i = 0; i < job.energy_kwh.size(); ++i) {
    const double fill = rule == FillRule::idle ? per_gpu_w * job.uncovered_h[i] / 1000.0 : 0.0;
    job.energy_kwh[i] = job.measured_kwh[i] + fill;
    b.estimated_kwh += fill;
  }
  b.fill_power_w = rule == FillRule::idle ? idle_power_w : 0.0;
  // extract's bounds (F049/F050) include the uncovered time at its own assumption: they no longer apply.
  job.energy_low_kwh.reset();
  job.energy_high_kwh.reset();
  if (rule == FillRule::none) {
    // Only the measured time is priced: W shrinks to it, and so does the system energy.
    job.wall_h = b.covered_h;
    b.uncovered_h = b.window_h - b.covered_h;
  }
  // The profile keeps its shape (the time-of-use weights) and takes the new total.
  const double after = std::accumulate(job.energy_kwh.begin(), job.energy_kwh.end(), 0.0);
  if (before > 0)
    for (auto& [minute, kwh] : job.profile.kwh_by_minute) kwh *= after / before;
}

void window_inputs(const extract::Features& f, JobInputs& in) {
  in.from_ns = f.from_ns;
  in.to_ns = f.to_ns;
  in.incidents = f.incidents;
  in.faults = f.faults;
  in.fault_window_s = f.fault_window_s;
  in.faults_listed = f.faults_listed;
  in.window_from_faults = f.chosen_by == "events";
  in.downtime_s = extract::value_of(f.host_indicators, "downtime_s");
  if (const extract::IndicatorValue* entry = extract::entry_of(f.host_indicators, "downtime_s"); entry == nullptr)
    in.downtime_reason = "the features document has no downtime_s (re-run gpucost extract)";
  else if (!entry->value)
    in.downtime_reason = entry->reason;
}

Expected<JobInputs> job_inputs(const extract::Features& f) {
  JobInputs in;
  in.wall_h = f.wall_s() / 3600.0;
  if (!(in.wall_h > 0))
    return make_error(ErrorKind::usage, "the job window is 0 s long: there is nothing to price",
                      "give a log with at least two samples at different times, or widen --from/--to");
  for (const auto& g : f.gpus) {
    const extract::IndicatorValue* e = extract::entry_of(g.indicators, "energy_kwh");
    if (e == nullptr || !e->value)
      return make_error(ErrorKind::format,
                        fmt::format("GPU {}: energy unknown ({})", g.gpu, e == nullptr ? "no indicator" : e->reason),
                        "the telemetry must include power (dmon -s p, or power.draw in --query-gpu)");
    in.energy_kwh.push_back(*e->value);
    in.gpu_energy_method.emplace_back(g.gpu,
                                      g.energy_method.empty() ? std::string(extract::kEnergyByPower) : g.energy_method);
    const auto u = extract::value_of(g.indicators, "util_mean");
    const auto idle = extract::value_of(g.indicators, "gpu_idle_fraction_trace");
    if (u) {
      in.util.push_back(*u);
    } else if (idle) {
      // A profiler trace covers a few steps; without telemetry its busy share stands for u_g.
      in.util.push_back(1.0 - *idle);
      in.util_source = "trace";
    } else {
      in.util.push_back(1.0);  // unknown: assume the GPU was busy throughout
      in.util_assumed = true;
    }
  }
  if (in.util_assumed) in.util_source = "assumed";
  if (const auto idle = extract::value_of(f.host_indicators, "gpu_idle_fraction_trace"))
    in.trace_busy_fraction = 1.0 - *idle;
  if (in.energy_kwh.empty())
    return make_error(ErrorKind::format, "no GPU in the features",
                      f.chosen_by == "events" ? "they come from kernel or system logs alone: give the GPU telemetry "
                                                "(nvidia-smi dmon or --query-gpu output) beside them to price the job"
                                              : "give extract GPU telemetry (nvidia-smi dmon or --query-gpu output)");
  window_inputs(f, in);
  in.profile = f.energy_profile;
  const auto host = [&](const extract::IndicatorKey& key) { return extract::value_of(f.host_indicators, key); };
  in.energy_low_kwh = host("energy_low_kwh");
  in.energy_high_kwh = host("energy_high_kwh");
  in.energy_method = f.energy_method.empty() ? std::string(extract::kEnergyByPower) : f.energy_method;
  in.energy_from_power_kwh = host("energy_kwh_from_power");
  in.power_vs_counter_pct = host("energy_power_vs_counter_pct");
  measure_basis(f, in);
  return in;
}

Status check_job(const CostConfig& c, const JobInputs& job) {
  if (!c.tou.empty() && job.profile.empty())
    return make_error(ErrorKind::usage,
                      "a time-of-use tariff needs the energy profile, which this features document lacks",
                      "re-run `gpucost extract` with this version, or give breakeven the raw logs");
  return {};
}

EnergyPrices price_energy(const CostConfig& c, const JobInputs& job) {
  double gpu_kwh = 0;
  for (double e : job.energy_kwh) gpu_kwh += e;
  const double system_kwh = c.system_power_w * job.wall_h / 1000.0;
  auto tariff = Tariff::make(c.price_per_kwh, c.tou, c.tariff_tz);
  if (!tariff) return EnergyPrices{c.price_per_kwh, c.price_per_kwh, c.price_per_kwh};  // checked at load
  return energy_prices(*tariff, job.profile, job.from_ns, job.to_ns, gpu_kwh, system_kwh);
}

Result compute(const CostConfig& c, const JobInputs& job) { return evaluate(c, job, price_energy(c, job)); }

namespace {

double incident_hours(const CostConfig& c, std::string_view bucket) {
  if (bucket.empty()) return 0;  // interruptions cost downtime, not operator time
  switch (xid_bucket_from_name(bucket)) {
    case XidBucket::ignore: return 0;
    case XidBucket::restart_app: return c.incident_restart_app_h;
    case XidBucket::reset_gpu: return c.incident_reset_gpu_h;
    case XidBucket::reboot: return c.incident_reboot_h;
    case XidBucket::contact_support: return c.incident_contact_support_h;
    case XidBucket::unknown:
    case XidBucket::count_: break;
  }
  return c.incident_unknown_h;
}

/// A suspend or AC loss listed beside the faults: one member, no bucket, no operator time.
extract::WindowFault interruption(const extract::WindowIncident& i) {
  extract::WindowFault f;
  f.ts_ns = i.ts_ns;
  f.last_ts_ns = i.last();
  f.members.push_back(extract::FaultMember{i.kind, -1, i.count});
  f.count = i.count;
  f.downtime_s = i.downtime_s;
  f.downtime_to_end = i.downtime_to_end;
  return f;
}

void price_incidents(const CostConfig& c, const JobInputs& job, Result& r) {
  r.fault_rule = fault_rule_of(c.faults);
  // A fault costs its most severe bucket's operator time once, however many lines it printed.
  // One the application caused costs the same on a rented GPU (the same bug crashes the job
  // there and someone restarts it): by default it goes on both sides, so it cannot decide
  // between them. Hardware, driver and unknown faults are the owner's alone.
  for (auto& f : faults_at(c, job, &r.fault_note)) {
    IncidentCost ic{std::move(f), 0, 0, "local"};
    ic.hours = incident_hours(c, ic.fault.bucket);
    ic.cost = c.hourly_wage * ic.hours;
    if (fault_cause_from_name(ic.fault.cause) == FaultCause::application) {
      ++r.application_faults;
      if (r.fault_rule == FaultRule::both_sides) ic.priced_on = "both";
      if (r.fault_rule == FaultRule::hardware_only) {
        ic.priced_on = "neither";
        ic.cost = 0;
      }
      r.application_fault_cost += ic.cost;
      if (ic.priced_on == "both") r.cloud_fault_cost += ic.cost;
    } else {
      ++r.hardware_faults;
      r.hardware_fault_cost += ic.cost;
    }
    r.incident_cost += ic.cost;
    r.incidents.push_back(std::move(ic));
  }
  for (const auto& i : job.incidents)
    if (i.kind == "suspend" || i.kind == "ac_offline") r.incidents.push_back(IncidentCost{interruption(i), 0, 0, {}});
  std::stable_sort(r.incidents.begin(), r.incidents.end(),
                   [](const IncidentCost& a, const IncidentCost& b) { return a.fault.ts_ns < b.fault.ts_ns; });
  if (job.downtime_s) {
    r.downtime_h = *job.downtime_s / 3600.0;
    r.downtime_share = job.wall_h > 0 ? *r.downtime_h / job.wall_h : 0.0;
  }
}

// Why no use per year breaks even, naming the per-hour terms that cause it: the costs that come
// with every job hour (electricity, incident labour) against the cloud's cost per job hour.
std::string no_use_breakeven_reason(const CostConfig& c, const Result& r, double W, double I, double i) {
  const double e = r.electricity / W, rr = (r.cloud_total - r.cloud_fault_cost) / W;
  const auto amount = [&c](double x) { return fmt::format("{:.2f} {}", x, c.currency); };
  std::string terms;
  if (i >= rr + I && i > 0)
    terms = fmt::format("incident labour {} per job hour alone exceeds", amount(i));
  else if (e >= rr + I)
    terms = fmt::format("electricity {} per job hour alone exceeds", amount(e));
  else
    terms = fmt::format("electricity {} and incident labour {} per job hour together exceed", amount(e), amount(i));
  return fmt::format("{} the cloud's {} per job hour{}: no use per year breaks even", terms, amount(rr),
                     c.always_on ? fmt::format(" plus the idle power's {}", amount(I)) : std::string());
}

}  // namespace

std::string_view fault_rule_name(FaultRule rule) { return name_of(kFaultRules, rule); }

FaultRule fault_rule_of(std::string_view text) { return rule_named(kFaultRules, text).value_or(FaultRule::both_sides); }

std::vector<extract::WindowFault> faults_at(const CostConfig& c, const JobInputs& job, std::string* note) {
  std::string text;
  if (!job.faults_listed)
    text =
        "faults rebuilt from the incident bursts of a features document written before faults were listed, "
        "bursts of every GPU within the window joined (re-run gpucost extract for faults per GPU)";
  if (c.fault_window_s < job.fault_window_s)
    text += fmt::format(
        "{}faults grouped within {:g} s by extract, longer than local.fault_window_s = {:g} s: "
        "re-run breakeven on the logs to group them within {:g} s",
        text.empty() ? "" : "; ", job.fault_window_s, c.fault_window_s, c.fault_window_s);
  if (note != nullptr) *note = text;
  if (c.fault_window_s <= job.fault_window_s) return job.faults;
  return extract::regroup_faults(job.faults, c.fault_window_s);
}

Result evaluate(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices) {
  Result r;
  r.job = job;
  r.prices = prices;
  const double W = job.wall_h;
  for (double e : job.energy_kwh) r.energy_kwh += e;
  // ū: mean over GPUs; with no utilisation at all the GPUs count as busy throughout (ū = 1),
  // which bills the whole job at the cloud's speed-up rather than inventing idle time.
  for (double u : job.util) r.util_mean += u;
  r.util_mean = job.util.empty() ? 1.0 : r.util_mean / static_cast<double>(job.util.size());

  // Local: electricity at the energy-weighted price, amortisation, maintenance and incidents.
  r.system_kwh = c.system_power_w * W / 1000.0;
  r.electricity = c.cooling_factor * prices.mean * (r.energy_kwh + r.system_kwh);
  const double capital_per_year = c.hardware_price * (1.0 - c.residual_fraction) / c.lifetime_years;
  r.amortisation = capital_per_year / c.use_hours_per_year * W;
  r.maintenance_routine = c.hourly_wage * c.maintenance_hours_per_year / c.use_hours_per_year * W;
  price_incidents(c, job, r);
  r.maintenance = r.maintenance_routine + r.incident_cost;
  r.local_total = r.electricity + r.amortisation + r.maintenance;

  // Cloud: the busy share of the job runs speed_ratio times faster; billing rounds up. The busy
  // share is the utilisation unless cloud.busy_share took it from SM active (job.busy).
  r.busy_share = r.util_mean;
  if (!job.busy.empty())
    r.busy_share = std::accumulate(job.busy.begin(), job.busy.end(), 0.0) / static_cast<double>(job.busy.size());
  r.q = (1.0 - r.busy_share) + r.busy_share / c.speed_ratio;
  if (spot_modelled(c)) {  // on spot the run grows by the work lost at interruptions and the restarts
    r.spot = spot_expectation(r.q * W, spot_terms(c, job.checkpoint_interval_s));
    r.q *= r.spot->factor;
  }
  const Billing billing = billing_of(c, r.q);
  r.billed_s = billed_seconds(billing, W);
  r.cloud_total = c.rate_per_hour * r.billed_s / 3600.0 + c.fixed_per_job + r.cloud_fault_cost;

  // C_A is in both totals: a cost both sides pay alike says nothing about which is cheaper, and
  // in the ratio it would pull the premium towards 0 (and below the line). The comparison is
  // of the totals without it.
  const double local_own = r.local_total - r.cloud_fault_cost, cloud_own = r.cloud_total - r.cloud_fault_cost;
  r.line = c.line;
  r.premium = local_own / cloud_own - 1.0;
  r.above_line = r.premium > c.line;

  // The faults the local side pays alone, per job hour. From a window the faults themselves
  // bound (a kernel log alone) there is no such rate: T* and H* then leave them out.
  const double local_fault_per_h = job.window_from_faults ? 0.0 : (r.incident_cost - r.cloud_fault_cost) / W;

  // Break-even job lengths: local c_L·T against the cloud's billing of a job of length T.
  const double c_L = (r.local_total - r.incident_cost) / W + local_fault_per_h;
  r.job_crossings = solve_crossings(c_L, billing, 1.0);
  r.line_crossings = solve_crossings(c_L, billing, 1.0 + c.line);
  if (!r.job_crossings.points.empty())
    r.job_hours.value = r.job_crossings.points.front().hours;
  else
    r.job_hours.reason = "local costs no more per hour than cloud: local is cheaper at every job length";
  if (!r.line_crossings.points.empty())
    r.line_job_hours.value = r.line_crossings.points.front().hours;
  else
    r.line_job_hours.reason = "the premium stays below the line at every job length";

  // Break-even use per year: fixed yearly cost F against the hourly margin r - v (r: this job's
  // cloud cost per job hour, its minimum and increments included); an always-on
  // machine also burns I per idle hour, (8760 - H) x I a year.
  const double F = capital_per_year + c.hourly_wage * c.maintenance_hours_per_year;
  const double v = r.electricity / W + local_fault_per_h;
  const double rr = cloud_own / W;
  const double I = c.always_on ? c.idle_power_w / 1000.0 * c.cooling_factor * prices.mean : 0.0;
  r.idle_cost_per_hour = I;
  r.fixed_per_year = F;
  r.local_per_job_h = v;
  r.cloud_per_job_h = rr;
  r.idle_cost_per_year = c.always_on ? std::max(0.0, 8760.0 - c.use_hours_per_year) * I : 0.0;
  if (rr - v + I > 0 && (rr > v || c.always_on))
    r.use_hours_per_year.value = (F + 8760.0 * I) / (rr - v + I);
  else
    r.use_hours_per_year.reason = no_use_breakeven_reason(c, r, W, I, local_fault_per_h);
  return r;
}

CostConfig scaled(const CostConfig& c, std::string_view parameter, double factor) {
  CostConfig out = c;
  for (const Parameter& p : parameters())
    if (p.name == parameter) out.*(p.field) = c.*(p.field) * factor;
  out.residual_fraction = std::min(out.residual_fraction, 1.0);  // a resale above the price is not a value
  if (parameter == "price_per_kwh")
    for (TouWindow& w : out.tou) w.price_per_kwh *= factor;
  return out;
}

namespace {

EnergyPrices times(const EnergyPrices& p, double f) { return {p.gpu * f, p.system * f, p.mean * f}; }

// The premium with `parameter` at `factor` x its value (prices scale with price_per_kwh).
double premium_with(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices, std::string_view parameter,
                    double factor) {
  const EnergyPrices p = parameter == "price_per_kwh" ? times(prices, factor) : prices;
  return evaluate(scaled(c, parameter, factor), job, p).premium;
}

}  // namespace

std::vector<Swing> sensitivity(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices) {
  std::vector<Swing> out;
  for (const Parameter& p : parameters()) {
    // C_e and the idle cost are proportional to price x cooling: the two always swing alike,
    // so they share one row.
    if (p.name == "cooling_factor") continue;
    Swing s{std::string(p.name), c.*(p.field), 0, 0, 0, 0};
    for (int i = 0; i <= kSensitivitySteps; ++i) {
      const double factor = 0.8 + 0.4 * static_cast<double>(i) / kSensitivitySteps;
      const double premium = premium_with(c, job, prices, p.name, factor);
      if (i == 0) s.premium_low = s.premium_min = s.premium_max = premium;
      if (i == kSensitivitySteps) s.premium_high = premium;
      s.premium_min = std::min(s.premium_min, premium);
      s.premium_max = std::max(s.premium_max, premium);
    }
    if (p.name == "price_per_kwh") s.parameter = "price_per_kwh, cooling_factor";
    out.push_back(std::move(s));
  }
  std::stable_sort(out.begin(), out.end(), [](const Swing& a, const Swing& b) { return a.swing() > b.swing(); });
  return out;
}

const char* verdict_word(const Result& r) {
  return r.unfit ? "unfit" : r.undecided ? "undecided" : r.above_line ? "above" : "below";
}

namespace {

/// One end of each uncertain input: the GPU energy (kWh; none = as measured), the speed ratio and
/// the billing increment (s).
struct Corner {
  std::optional<double> energy_kwh;
  double speed_ratio = 1, increment_s = 1;
};

/// The job priced at one corner: every GPU's energy scaled to the corner's total, the GPU part
/// still priced at the GPU price (the mean price moves with the energy mix).
Result evaluate_at(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices, const Corner& k) {
  CostConfig ck = c;
  ck.speed_ratio = k.speed_ratio;
  ck.billing_increment_s = k.increment_s;
  if (!k.energy_kwh) return evaluate(ck, job, prices);
  const double bound = *k.energy_kwh;
  double e = 0;
  for (double x : job.energy_kwh) e += x;
  JobInputs j = job;
  for (double& x : j.energy_kwh) x = e > 0 ? x * bound / e : bound / static_cast<double>(j.energy_kwh.size());
  const double sys = c.system_power_w * job.wall_h / 1000.0;
  EnergyPrices p = prices;
  p.mean = bound + sys > 0 ? (prices.gpu * bound + prices.system * sys) / (bound + sys) : prices.mean;
  return evaluate(ck, j, p);
}

void widen(std::optional<double>& low, std::optional<double>& high, const std::optional<double>& x) {
  if (!x) return;
  low = low ? std::min(*low, *x) : *x;
  high = high ? std::max(*high, *x) : *x;
}

std::string ratio_span(double low, double high) { return fmt::format("x{:.3g} .. x{:.3g}", low, high); }

}  // namespace

PremiumRange premium_range(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices) {
  PremiumRange pr;
  const Corner point{std::nullopt, c.speed_ratio, c.billing_increment_s};
  // Each input's ends; the point value is always one of the choices.
  std::vector<std::optional<double>> energies{std::nullopt};
  std::vector<double> speeds{c.speed_ratio}, increments{c.billing_increment_s};
  const auto part = [&](std::string name, std::string span, const std::vector<Corner>& ends) {
    PremiumRange::Part p{std::move(name), std::move(span), 0, 0};
    std::optional<double> lo, hi;
    for (const Corner& k : ends) widen(lo, hi, evaluate_at(c, job, prices, k).premium);
    p.low = *lo;
    p.high = *hi;
    pr.parts.push_back(std::move(p));
  };
  if (job.energy_low_kwh && job.energy_high_kwh) {
    energies = {job.energy_low_kwh, job.energy_high_kwh};
    part("energy", fmt::format("{:.4f} .. {:.4f} kWh", *job.energy_low_kwh, *job.energy_high_kwh),
         {Corner{job.energy_low_kwh, c.speed_ratio, c.billing_increment_s},
          Corner{job.energy_high_kwh, c.speed_ratio, c.billing_increment_s}});
  } else {
    pr.missing.push_back("energy: no bounds (energy_low_kwh/energy_high_kwh) in the features, re-run gpucost extract");
  }
  if (c.speed_ratio_low && c.speed_ratio_high && *c.speed_ratio_high > *c.speed_ratio_low) {
    speeds = {*c.speed_ratio_low, c.speed_ratio, *c.speed_ratio_high};
    part("speed ratio", ratio_span(*c.speed_ratio_low, *c.speed_ratio_high),
         {Corner{std::nullopt, *c.speed_ratio_low, c.billing_increment_s},
          Corner{std::nullopt, *c.speed_ratio_high, c.billing_increment_s}});
  }
  if (c.billing_increment_s > 1) {
    increments = {1.0, c.billing_increment_s};
    part("billing rounding", fmt::format("by the second .. by {:g} s", c.billing_increment_s),
         {Corner{std::nullopt, c.speed_ratio, 1.0}, point});
  }
  if (pr.parts.empty()) {
    pr.reason = pr.missing.empty() ? "nothing uncertain is bounded" : pr.missing.front();
    return pr;
  }
  widen(pr.low, pr.high, evaluate(c, job, prices).premium);  // the point itself, whatever the bounds
  // Every combination of the ends: T* need not be monotone in the increment.
  for (const auto& e : energies)
    for (double s : speeds)
      for (double inc : increments) {
        const Result r = evaluate_at(c, job, prices, Corner{e, s, inc});
        widen(pr.low, pr.high, r.premium);
        widen(pr.job_hours_low, pr.job_hours_high, r.job_hours.value);
        widen(pr.use_hours_low, pr.use_hours_high, r.use_hours_per_year.value);
      }
  return pr;
}

void decide_verdict(Result& r, const PremiumRange& range, const std::string& unfit_reason) {
  if (!unfit_reason.empty()) {
    r.unfit = true;
    r.above_line = false;
    return;
  }
  if (!range.spans(r.line)) return;
  r.undecided = true;
  r.above_line = false;
  std::vector<std::string> alone, together;
  for (const PremiumRange::Part& part : range.parts) {
    if ((part.low > r.line) != (part.high > r.line))
      alone.push_back(part.name);
    else if (part.high > part.low)
      together.push_back(part.name);
  }
  r.verdict_reason =
      !alone.empty()
          ? fmt::format("{} alone move{} it across the line", fmt::join(alone, " or "), alone.size() == 1 ? "s" : "")
          : fmt::format("{} together put it on both sides of the line", fmt::join(together, " and "));
}

namespace {

// A uniform draw in [0, 1) from 53 bits of a 64-bit Mersenne Twister: the same on every platform.
double unit_draw(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto at = static_cast<std::size_t>(
      std::min<double>(static_cast<double>(v.size() - 1), q * static_cast<double>(v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at), v.end());
  return v[at];
}

}  // namespace

MonteCarlo monte_carlo(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices, std::size_t draws,
                       std::uint64_t seed) {
  MonteCarlo mc;
  mc.draws = draws;
  mc.seed = seed;
  std::mt19937_64 rng(seed);
  std::vector<double> premiums;
  premiums.reserve(draws);
  std::size_t cheaper = 0, above = 0;
  for (std::size_t n = 0; n < draws; ++n) {
    CostConfig d = c;
    EnergyPrices p = prices;
    for (const auto& [name, range] : c.ranges) {  // std::map: a fixed order of draws
      const double x = range.first + (range.second - range.first) * unit_draw(rng);
      if (name == "price_per_kwh") {
        // The flat price moves to x; every time-of-use price moves in proportion.
        const double f = c.price_per_kwh > 0 ? x / c.price_per_kwh : 1.0;
        p = c.price_per_kwh > 0 ? times(prices, f) : EnergyPrices{x, x, x};
        d = scaled(d, name, c.price_per_kwh > 0 ? f : 0.0);
        d.price_per_kwh = x;
        continue;
      }
      for (const Parameter& param : parameters())
        if (param.name == name) d.*(param.field) = x;
    }
    const double premium = evaluate(d, job, p).premium;
    premiums.push_back(premium);
    cheaper += premium < 0 ? 1 : 0;
    above += premium > c.line ? 1 : 0;
  }
  if (draws > 0) {
    mc.probability_local_cheaper = static_cast<double>(cheaper) / static_cast<double>(draws);
    mc.probability_above_line = static_cast<double>(above) / static_cast<double>(draws);
    mc.premium_p05 = quantile(premiums, 0.05);
    mc.premium_p50 = quantile(premiums, 0.50);
    mc.premium_p95 = quantile(premiums, 0.95);
  }
  return mc;
}

}  // namespace gpucost::breakeven

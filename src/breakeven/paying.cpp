#include <gpucost/breakeven/paying.hpp>

#include <gpucost/breakeven/spot.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace gpucost::breakeven {

std::optional<double> PayingCurve::cost(double use_h) const {
  if (!capacity_job_h || use_h <= *capacity_job_h) return fixed_per_year + per_job_h * use_h;
  if (!overflow_per_job_h) return std::nullopt;
  return fixed_per_year + per_job_h * *capacity_job_h + *overflow_per_job_h * (use_h - *capacity_job_h);
}

double PayingCurve::end_h() const {
  return capacity_job_h && !overflow_per_job_h ? *capacity_job_h : std::numeric_limits<double>::infinity();
}

namespace {

// 0, the year's end and every capacity and end inside: between two of them each curve is one line.
std::vector<double> breakpoints(const std::vector<PayingCurve>& curves, double max_h) {
  std::vector<double> at{0.0, max_h};
  for (const PayingCurve& c : curves)
    if (c.capacity_job_h && *c.capacity_job_h > 0 && *c.capacity_job_h < max_h) at.push_back(*c.capacity_job_h);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  return at;
}

// Where two curves that are lines on [a, b] cross strictly inside it.
std::optional<double> crossing(const PayingCurve& x, const PayingCurve& y, double a, double b) {
  if (x.end_h() < b || y.end_h() < b) return std::nullopt;
  const double da = *x.cost(a) - *y.cost(a), db = *x.cost(b) - *y.cost(b);
  if (!((da < 0 && db > 0) || (da > 0 && db < 0))) return std::nullopt;
  return a + da / (da - db) * (b - a);
}

// The curve cheapest at `use_h` among those that price it; the first listed on a tie.
std::optional<std::size_t> cheapest_curve(const std::vector<PayingCurve>& curves, double use_h) {
  std::optional<std::size_t> best;
  double best_cost = 0;
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const auto c = curves[i].cost(use_h);
    if (c && (!best || *c < best_cost)) {
      best = i;
      best_cost = *c;
    }
  }
  return best;
}

}  // namespace

std::vector<CheapestRange> cheapest_ranges(const std::vector<PayingCurve>& curves, double max_h) {
  const std::vector<double> pieces = breakpoints(curves, max_h);
  std::vector<double> at = pieces;
  for (std::size_t p = 0; p + 1 < pieces.size(); ++p)
    for (std::size_t i = 0; i < curves.size(); ++i)
      for (std::size_t j = i + 1; j < curves.size(); ++j)
        if (const auto x = crossing(curves[i], curves[j], pieces[p], pieces[p + 1])) at.push_back(*x);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  // No two curves change order between neighbouring points: the middle's cheapest holds throughout.
  std::vector<CheapestRange> out;
  for (std::size_t k = 0; k + 1 < at.size(); ++k) {
    const auto best = cheapest_curve(curves, (at[k] + at[k + 1]) / 2);
    if (!best) continue;
    if (!out.empty() && out.back().curve == *best && out.back().to_h == at[k])
      out.back().to_h = at[k + 1];
    else
      out.push_back(CheapestRange{at[k], at[k + 1], *best});
  }
  return out;
}

std::size_t PayingComparison::cheapest_at(double use_h) const {
  for (const CheapestRange& r : ranges)
    if (use_h >= r.from_h && use_h <= r.to_h) return r.curve;
  return 0;
}

std::vector<std::size_t> PayingComparison::never_cheapest() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < curves.size(); ++i)
    if (std::none_of(ranges.begin(), ranges.end(), [i](const CheapestRange& r) { return r.curve == i; }))
      out.push_back(i);
  return out;
}

namespace {

constexpr std::array kTermKinds{OfferKind::reserved_1y, OfferKind::reserved_3y, OfferKind::savings_plan};

bool same_instance(const CloudOffer& a, const CloudOffer& b) {
  return a.provider == b.provider && a.instance == b.instance && a.region == b.region;
}

// The instance's first offer of `kind` in catalogue order (the chosen one for its own kind).
const CloudOffer* offer_of_kind(const CloudOffer& chosen, const std::vector<CloudOffer>& offers, OfferKind kind) {
  if (chosen.kind == kind) return &chosen;
  for (const CloudOffer& o : offers)
    if (o.kind == kind && same_instance(o, chosen)) return &o;
  return nullptr;
}

PayingCurve owning_curve(const CostConfig& c, const Result& r) {
  const double idle = r.idle_cost_per_hour;
  PayingCurve curve;
  curve.way = "owning";
  curve.fixed_per_year = r.fixed_per_year + kHoursPerYear * idle;
  curve.per_job_h = r.local_per_job_h - idle;
  curve.basis =
      fmt::format("{:.2f} {} a year (amortisation, maintenance{}) and {:.4f} {} per job hour (electricity{}{})",
                  curve.fixed_per_year, c.currency, c.always_on ? ", the idle power all year" : "", curve.per_job_h,
                  c.currency, r.incident_cost > 0 ? ", incidents" : "", c.always_on ? ", less the idle power" : "");
  return curve;
}

// An offer priced for the job as the premium prices it: its cost per job hour (r) and the
// instance hours a job hour takes (its billed share, cold start and rounding).
struct JobHourPrice {
  double per_job_h = 0, instance_h_per_job_h = 0, exchange_rate = 1;
  std::string spot;  ///< a spot offer's terms and expectation, each said assumed where it is
};

std::optional<JobHourPrice> price_per_job_hour(const CostConfig& c, const JobInputs& job, const EnergyPrices& prices,
                                               const JobShape& shape, const CloudOffer& o) {
  auto with = config_for_offer(c, o, shape);
  if (!with || !(job.wall_h > 0)) return std::nullopt;
  const Result r = evaluate(*with, job, prices);
  JobHourPrice p{r.cloud_per_job_h, r.billed_s / 3600.0 / job.wall_h, with->offer_exchange_rate, {}};
  if (r.spot) p.spot = spot_text(*with, *r.spot, job.checkpoint_interval_s, job.checkpoints);
  return p;
}

PayingCurve rented_curve(const CloudOffer& o, const JobHourPrice& p, const std::string& currency) {
  PayingCurve curve;
  curve.way = std::string(offer_kind_name(o.kind));
  curve.offer = o.name;
  curve.per_job_h = p.per_job_h;
  curve.basis = fmt::format("{:.4f} {} per job hour{}, as this job is billed ({:.3f} instance hours a job hour){}",
                            p.per_job_h, currency, p.spot.empty() ? "" : " expected", p.instance_h_per_job_h,
                            p.spot.empty() ? "" : "; spot: " + p.spot);
  return curve;
}

// A term: its listed price for every hour of the year plus the upfront payment over the term's
// years; the jobs' per-job fee on top; past the instance's 8760 h the rest on demand.
PayingCurve term_curve(const CostConfig& c, const JobInputs& job, const CloudOffer& o, const JobHourPrice& p,
                       int job_gpus, const std::optional<double>& on_demand_per_job_h) {
  PayingCurve curve;
  curve.way = std::string(offer_kind_name(o.kind));
  curve.offer = o.name;
  curve.commitment = true;
  const double hourly = o.rate_for(job_gpus) * p.exchange_rate;
  curve.upfront_per_year = o.upfront_for(job_gpus) * p.exchange_rate / o.term_length_years();
  curve.fixed_per_year = hourly * kHoursPerYear + curve.upfront_per_year;
  curve.per_job_h = c.fixed_per_job / job.wall_h;
  if (p.instance_h_per_job_h > 0) curve.capacity_job_h = kHoursPerYear / p.instance_h_per_job_h;
  curve.overflow_per_job_h = on_demand_per_job_h;
  const std::string upfront =
      o.upfront > 0 ? fmt::format(" + {:.2f} {} upfront over {:g} y{}", o.upfront_for(job_gpus) * p.exchange_rate,
                                  c.currency, o.term_length_years(), o.term_years ? "" : " (term assumed)")
                    : " (no upfront payment in the catalogue)";
  curve.basis = fmt::format(
      "{:.4f} {}/h x 8760 h{} = {:.2f} {} a year, for up to {:.0f} job hours ({:.3f} instance "
      "hours each); past them {}",
      hourly, c.currency, upfront, curve.fixed_per_year, c.currency, curve.capacity_job_h.value_or(0),
      p.instance_h_per_job_h,
      on_demand_per_job_h ? fmt::format("on demand at {:.4f} {} per job hour", *on_demand_per_job_h, c.currency)
                          : std::string("not priced: no on-demand offer of the instance"));
  return curve;
}

std::string instance_words(const CloudOffer& o) {
  return o.region.empty() ? fmt::format("{} {}", o.provider, o.instance)
                          : fmt::format("{} {} ({})", o.provider, o.instance, o.region);
}

// "no reserved-3y or savings-plan offer in the catalogue for AWS p4d.24xlarge (us-east-1)".
std::string missing_words(const std::vector<std::string_view>& kinds, const std::string& instance) {
  std::string list;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    list += fmt::format("{}{}", i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ", kinds[i]);
  return fmt::format("no {} offer in the catalogue for {}", list, instance);
}

}  // namespace

bool wants_paying(const CloudOffer& chosen, const std::vector<CloudOffer>& offers,
                  const std::vector<OfferKind>& asked) {
  for (OfferKind kind : kTermKinds)
    if (offer_of_kind(chosen, offers, kind) != nullptr || std::find(asked.begin(), asked.end(), kind) != asked.end())
      return true;
  return false;
}

PayingComparison paying_comparison(const CostConfig& c, const Result& r, const JobInputs& job,
                                   const EnergyPrices& prices, const JobShape& shape, const CloudOffer& chosen,
                                   const std::vector<CloudOffer>& offers) {
  PayingComparison out;
  out.instance = instance_words(chosen);
  out.planned_h = c.use_hours_per_year;
  out.planned_assumed = !c.is_set("local.use_hours_per_year");
  out.curves.push_back(owning_curve(c, r));
  std::optional<double> on_demand;
  std::vector<std::string_view> lacking;
  for (OfferKind kind : {OfferKind::on_demand, OfferKind::spot}) {
    const CloudOffer* o = offer_of_kind(chosen, offers, kind);
    if (o == nullptr) continue;
    const auto p = price_per_job_hour(c, job, prices, shape, *o);
    if (!p) {
      out.missing.push_back(fmt::format("{}: no exchange rate exchange.{} for its price", o->name, o->currency));
      continue;
    }
    if (kind == OfferKind::on_demand) on_demand = p->per_job_h;
    out.curves.push_back(rented_curve(*o, *p, c.currency));
  }
  if (!on_demand)
    out.missing.push_back(
        fmt::format("no on-demand offer in the catalogue for {}: use past a term's hours is not priced", out.instance));
  for (OfferKind kind : kTermKinds) {
    const CloudOffer* o = offer_of_kind(chosen, offers, kind);
    if (o == nullptr) {
      lacking.push_back(offer_kind_name(kind));
      continue;
    }
    const auto p = price_per_job_hour(c, job, prices, shape, *o);
    if (!p) {
      out.missing.push_back(fmt::format("{}: no exchange rate exchange.{} for its price", o->name, o->currency));
      continue;
    }
    out.curves.push_back(term_curve(c, job, *o, *p, shape.gpus, on_demand));
  }
  if (!lacking.empty()) out.missing.push_back(missing_words(lacking, out.instance));
  out.ranges = cheapest_ranges(out.curves);
  return out;
}

}  // namespace gpucost::breakeven

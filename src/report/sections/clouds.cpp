// --compare-clouds: the offers that can run the job, priced for it and ranked, and those that
// cannot, with the reason (docs/cost-model.md, "Comparing offers").
#include "report/sections/sections.hpp"

#include <algorithm>
#include <cstddef>
#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/text.hpp>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// The one-screen answer lists this many offers that fit, cheapest first.
constexpr std::size_t kOffersShown = 3;

/// A commitment ranked beside its instance's on-demand offer (the same provider, instance and
/// region). Its job cost is the term's price for every hour of the year spread over the planned
/// use U, so it scales as 1/U: it pays from U* = U x (commitment - fee) / (on demand - fee), the
/// per-job fee being the same on both.
struct CommitmentCheck {
  const CloudRank* on_demand = nullptr;  ///< the same provider's instance on demand; none: not in the ranking
  double pays_from_h = 0;                ///< the yearly use from which it costs no more than on demand
};

/// The ranked on-demand offer of `k`'s instance (the same provider, instance and region); none
/// when the ranking has none.
const CloudRank* on_demand_twin(const std::vector<CloudRank>& clouds, const CloudRank& k) {
  for (const CloudRank& o : clouds)
    if (o.unfit.empty() && o.kind == breakeven::OfferKind::on_demand && o.provider == k.provider &&
        o.instance == k.instance && o.region == k.region)
      return &o;
  return nullptr;
}

CommitmentCheck commitment_check(const std::vector<CloudRank>& clouds, const CloudRank& k, const Answer& a) {
  CommitmentCheck c;
  if (!breakeven::is_commitment(k.kind)) return c;
  c.on_demand = on_demand_twin(clouds, k);
  if (c.on_demand == nullptr) return c;
  const double fee = a.config.fixed_per_job;
  c.pays_from_h = a.config.use_hours_per_year * (k.total - fee) / (c.on_demand->total - fee);
  return c;
}

/// A spot offer priced by its interruptions beside its instance on demand: the price ratio, and
/// from which hours of work on the instance the interruptions make it the dearer.
struct SpotCheck {
  const CloudRank* on_demand = nullptr;
  double price_ratio = 0;               ///< on-demand rate / spot rate, per hour of the instance
  std::optional<double> dearer_from_h;  ///< none: cheaper at every length searched
};

SpotCheck spot_check(const std::vector<CloudRank>& clouds, const CloudRank& k) {
  SpotCheck c;
  if (!k.spot || k.rate_per_hour <= 0) return c;
  c.on_demand = on_demand_twin(clouds, k);
  if (c.on_demand == nullptr) return c;
  c.price_ratio = c.on_demand->rate_per_hour / k.rate_per_hour;
  c.dearer_from_h = breakeven::spot_dearer_from_h(*k.spot, c.price_ratio);
  return c;
}

/// `on_demand_twin`: its name, or null; true when there is one.
bool json_twin(io::JsonWriter& w, const CloudRank* on_demand) {
  w.key("on_demand_twin").str_or_null(on_demand != nullptr ? on_demand->name : std::string());
  return on_demand != nullptr;
}

void json_spot(io::JsonWriter& w, const SpotCheck& c) {
  if (!json_twin(w, c.on_demand)) {
    w.key("price_ratio").null().key("dearer_from_work_h").null();
    return;
  }
  w.key("price_ratio").num(c.price_ratio).key("dearer_from_work_h").num(c.dearer_from_h);
}

void json_commitment(io::JsonWriter& w, const CommitmentCheck& c, const Answer& a) {
  if (!json_twin(w, c.on_demand)) {
    w.key("pays_from_h").null().key("justified").null();
    return;
  }
  w.key("pays_from_h").num(c.pays_from_h).key("justified").boolean(c.pays_from_h <= a.config.use_hours_per_year);
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
}

/// --full's lines on the spot offers ranked: against their instance on demand, from which length
/// of a job on the instance the interruptions expected make spot the dearer.
std::string spot_lines(const std::vector<CloudRank>& clouds) {
  std::string b;
  for (const CloudRank& k : clouds) {
    if (!k.unfit.empty() || !k.spot) continue;
    const SpotCheck c = spot_check(clouds, k);
    if (c.on_demand == nullptr) continue;  // nothing to weigh it against
    const std::string against =
        fmt::format("    {:<30}against {} (x{:.2f} its price): ", k.name, c.on_demand->name, c.price_ratio);
    if (!c.dearer_from_h)
      b += against + fmt::format("cheaper at every job length up to ten years (long jobs expect x{:.4f})\n",
                                 breakeven::spot_expectation(breakeven::kSpotSearchMaxH, *k.spot).factor);
    else if (*c.dearer_from_h == 0)
      b += against + "dearer at every job length\n";
    else
      b += against +
           fmt::format("dearer for jobs of more than {} on the instance\n", text::duration_hours(*c.dearer_from_h));
  }
  return b.empty() ? b : "  spot against on demand (the interruptions expected, by the job's length):\n" + b;
}

/// --full's lines on the commitments ranked: from which yearly use each pays against its
/// instance on demand, and whether the planned use justifies it.
std::string commitment_lines(const std::vector<CloudRank>& clouds, const Answer& a) {
  std::string b;
  const double planned = a.config.use_hours_per_year;
  for (const CloudRank& k : clouds) {
    if (!k.unfit.empty() || !breakeven::is_commitment(k.kind)) continue;
    const CommitmentCheck c = commitment_check(clouds, k, a);
    if (c.on_demand == nullptr) {
      b += fmt::format("    {:<30}no on-demand offer of {} ranked to weigh it against\n", k.name, k.instance);
      continue;
    }
    const bool justified = c.pays_from_h <= planned;
    b += fmt::format("    {:<30}pays against {} from {}: {} ({} against {} for this job)\n", k.name, c.on_demand->name,
                     c.pays_from_h > breakeven::kHoursPerYear
                         ? fmt::format("{:.0f} h/year, more than a year holds", c.pays_from_h)
                         : fmt::format("{:.0f} h/year", c.pays_from_h),
                     justified ? "justified" : "not justified", money(k.total, a.config.currency),
                     money(c.on_demand->total, a.config.currency));
  }
  if (b.empty()) return b;
  return fmt::format("  commitments at {:.0f} h/year of use ({}):\n", planned,
                     a.config.is_set("local.use_hours_per_year") ? "local.use_hours_per_year"
                                                                 : "the default of local.use_hours_per_year, assumed") +
         b;
}

std::string speed_source(const CloudRank& k) {
  if (k.speed_ratio_source == "table" && k.speed_ratio_low && k.speed_ratio_high &&
      *k.speed_ratio_low != *k.speed_ratio_high)
    return fmt::format("table {:.2f}-{:.2f}", *k.speed_ratio_low, *k.speed_ratio_high);
  return k.speed_ratio_source;
}

}  // namespace

// Offers that fit, ranked; those that cannot run the job apart, with the reason, never ranked.
void clouds_json(io::JsonWriter& w, const Answer& a) {
  const std::vector<CloudRank>& clouds = a.extras.clouds;
  if (clouds.empty()) return;
  const std::string& fit_basis = a.extras.fit_basis;
  w.line("  ").key("fit_basis").str(fit_basis).line("  ").key("compare_clouds").array();
  std::size_t rank = 0;
  for (const CloudRank& k : clouds) {
    if (!k.unfit.empty()) continue;
    json_cloud(w.line("    ").item(), k, ++rank);
    if (breakeven::is_commitment(k.kind)) json_commitment(w, commitment_check(clouds, k, a), a);
    if (k.spot) json_spot(w, spot_check(clouds, k));
    w.close();
  }
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

std::string clouds_full(const Answer& a) {
  const std::vector<CloudRank>& clouds = a.extras.clouds;
  if (clouds.empty()) return {};
  const std::string& cur = a.config.currency;
  const std::string& fit_basis = a.extras.fit_basis;
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
  b += commitment_lines(clouds, a);
  b += spot_lines(clouds);
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

std::string clouds_summary(const Answer& a) {
  const std::vector<CloudRank>& clouds = a.extras.clouds;
  const std::string& cur = a.config.currency;
  std::size_t fit = 0;
  for (const auto& k : clouds) fit += k.unfit.empty() ? 1u : 0u;
  if (fit == 0) return {};
  std::string b = fmt::format("\ncheapest of {} that fit\n", text::counted(static_cast<long long>(fit), "offer"));
  for (std::size_t i = 0; i < std::min(fit, kOffersShown); ++i)
    b += fmt::format("  {}. {:<36} {:>12}  ({})\n", i + 1, clouds[i].name, money(clouds[i].total, cur),
                     premium_words(clouds[i].premium));
  return b;
}

}  // namespace gpucost::report::sections

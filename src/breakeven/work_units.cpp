#include <gpucost/breakeven/work_units.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpucost::breakeven {

namespace {

/// A count the indicator gives, or why there is none.
std::optional<double> work_count(const extract::IndicatorSet& host, const WorkUnit& u, std::string& reason) {
  const auto it = host.find(std::string(u.key));
  if (it == host.end()) {
    reason = fmt::format("the features count no {} (no {}: give the training log, or re-run gpucost extract)", u.noun,
                         u.key);
    return std::nullopt;
  }
  if (!it->second.value) {
    reason = it->second.reason.empty() ? fmt::format("{} is unknown", u.key) : it->second.reason;
    return std::nullopt;
  }
  const double n = *it->second.value;
  if (!std::isfinite(n) || n <= 0) {
    reason = fmt::format("no {} in the job window ({} = {:g}): nothing to divide the cost by", u.noun, u.key, n);
    return std::nullopt;
  }
  return n;
}

// H* and T* in units of work at the job's rate (docs/cost-model.md, "Cost per unit of work").
void breakeven_in_work(const Result& r, UnitCost& uc) {
  const double rate = *uc.per_hour;
  if (r.use_hours_per_year.value) {
    uc.breakeven_per_year = *r.use_hours_per_year.value * rate;
    uc.breakeven_per_month = *uc.breakeven_per_year / 12.0;
  } else {
    uc.use_reason = r.use_hours_per_year.reason;
  }
  if (r.job_hours.value)
    uc.breakeven_job = *r.job_hours.value * rate;
  else
    uc.job_reason = r.job_hours.reason;
}

}  // namespace

const std::array<WorkUnit, 4>& work_units() {
  static const std::array<WorkUnit, 4> kUnits = {
      WorkUnit{"work_steps", "steps", "step", 1, "step", "step"},
      WorkUnit{"work_samples", "samples", "sample", 1e3, "1k samples", "1k_samples"},
      WorkUnit{"work_tokens", "tokens", "token", 1e6, "1M tokens", "1M_tokens"},
      WorkUnit{"work_epochs", "epochs", "epoch", 1, "epoch", "epoch"},
  };
  return kUnits;
}

bool WorkCosts::any() const {
  for (const UnitCost& u : units)
    if (u.count) return true;
  return false;
}

const UnitCost* WorkCosts::find(std::string_view noun) const {
  for (const UnitCost& u : units)
    if (u.unit != nullptr && u.unit->noun == noun) return &u;
  return nullptr;
}

WorkCosts work_costs(const Result& r, const extract::IndicatorSet& host) {
  WorkCosts w;
  const EnergyBasis& basis = r.job.energy_basis;
  w.window_h = r.job.wall_h;
  // --fill none prices the sampled time only, while the work counts are the whole window's: a
  // cost per unit would mix the two.
  const bool part_priced = basis.rule == FillRule::none && basis.uncovered_h > 0;
  for (std::size_t i = 0; i < w.units.size(); ++i) {
    const WorkUnit& u = work_units()[i];
    UnitCost& uc = w.units[i];
    uc.unit = &u;
    uc.count = work_count(host, u, uc.reason);
    if (uc.count && part_priced) {
      uc.reason = fmt::format(
          "--fill none priced {:.4g} h with samples of the {:.4g} h window, the {} are the whole window's: no cost "
          "per unit",
          basis.covered_h, basis.window_h, u.noun);
      uc.count.reset();
    }
    if (!uc.count || !(r.job.wall_h > 0)) continue;
    uc.per_hour = *uc.count / r.job.wall_h;
    uc.local = r.local_total / *uc.count * u.per;
    uc.cloud = r.cloud_total / *uc.count * u.per;
    if (r.carbon.local.kg) uc.local_kg = *r.carbon.local.kg / *uc.count * u.per;
    if (r.carbon.cloud.kg) uc.cloud_kg = *r.carbon.cloud.kg / *uc.count * u.per;
    breakeven_in_work(r, uc);
  }
  return w;
}

std::string work_amount(double units) {
  static constexpr std::array<std::string_view, 5> kPrefixes = {"", " k", " M", " B", " T"};
  std::size_t p = 0;
  double x = units;
  // 999.5 rounds to "1e+03" at 3 digits: it reads 1 k.
  while (std::abs(x) >= 999.5 && p + 1 < kPrefixes.size()) {
    x /= 1000;
    ++p;
  }
  return fmt::format("{:.3g}{}", x, kPrefixes[p]);
}

std::string unit_money(double value) {
  if (std::abs(value) >= 0.995 || value == 0) return fmt::format("{:.2f}", value);
  return fmt::format("{:#.3g}", value);
}

std::string apply_busy_share(JobInputs& job, const extract::Features& f, std::string_view busy_share) {
  job.busy.clear();
  job.busy_source = std::string(kBusyShareUtil);
  if (busy_share != kBusyShareSmActive) return {};
  // Per GPU when every GPU has its own; else the host's for all (a merged or older document).
  std::vector<double> per_gpu;
  for (const auto& g : f.gpus)
    if (const auto v = extract::value_of(g.indicators, "sm_active_mean")) per_gpu.push_back(*v);
  if (!f.gpus.empty() && per_gpu.size() == f.gpus.size() && per_gpu.size() == job.energy_kwh.size()) {
    job.busy = std::move(per_gpu);
  } else if (const auto host = extract::value_of(f.host_indicators, "sm_active_mean")) {
    job.busy.assign(job.energy_kwh.size(), *host);
  } else {
    const extract::IndicatorValue* entry = extract::entry_of(f.host_indicators, "sm_active_mean");
    const std::string why = entry != nullptr && !entry->reason.empty()
                                ? entry->reason
                                : "the telemetry has no DCGM SM-active field (DCGM_FI_PROF_SM_ACTIVE, 1002)";
    return fmt::format(
        "cloud.busy_share = sm_active, but the features give no sm_active_mean ({}): the busy share is the "
        "utilisation",
        why);
  }
  for (double& b : job.busy) b = std::clamp(b, 0.0, 1.0);
  job.busy_source = std::string(kBusyShareSmActive);
  return {};
}

}  // namespace gpucost::breakeven

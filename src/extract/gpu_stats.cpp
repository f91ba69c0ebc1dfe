#include "gpu_stats.hpp"

#include <gpucost/core/throttle_reasons.hpp>
#include <gpucost/core/time.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace gpucost::extract::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kNearLimit = 0.95;  // "at or near the enforced power limit": within 5 %
constexpr double kStarvedUtilPct = 80, kStarvedMemPct = 50;
constexpr double kPowerErrorW = 5.0;  // power reading uncertainty (energy_low/high_kwh), W per sample

// The reasons that slow a busy GPU down (an onset is a change from none of them to any).
constexpr std::uint64_t kSlowdownBits = throttle::kSwPowerCap | throttle::kHwSlowdown | throttle::kSwThermalSlowdown |
                                        throttle::kHwThermalSlowdown | throttle::kHwPowerBrakeSlowdown;

struct Reason {
  const char* name;
  std::uint64_t bits;
  std::uint8_t slot;  // Special of its time
  bool indicator;     // has a throttle_NAME_fraction (sync boost and idle down-clocking keep their partials only)
};
// HW slowdown includes the power brake, as nvidia-smi -q's "HW Slowdown" line does.

constexpr std::array<const char*, kHeldCount> kHeldNames = {
    "power",       "util",         "temp",          "pclk",        "mem_temp",    "mem_util",
    "mclk",        "fb",           "enc",           "dec",         "rx",          "tx",
    "sm_active",   "sm_occupancy", "tensor_active", "dram_active", "fp64_active", "fp32_active",
    "fp16_active", "nvlink_tx",    "nvlink_rx"};
// The generic slots of a held metric, in GpuWalker::m_held order.
enum Slot : std::uint8_t { n, plain_sum, cov_s, held, right, trap, held2, zero_s, plain_zero, above_s };
constexpr std::array<const char*, 10> kSlotNames = {"n",    "sum",   "cov_s",  "held",       "right",
                                                    "trap", "held2", "zero_s", "plain_zero", "above_s"};

// The specials of GpuWalker::m_special, named in kSpecialNames.
// clang-format off
enum Special : std::uint8_t {
  k_samples, k_interval_max, k_interval_covered_s, k_interval_gaps, k_temp_crossings, k_idle_power_s, k_idle_energy_j, k_limit_cov_s, k_limit_near_s, k_limit_share_sum, k_limit_share_n, k_pcie_n, k_pcie_gen_ratio_sum, k_pcie_width_ratio_sum, k_pclk_rated_max, k_mclk_rated_max, k_fb_total_max, k_fb_free_min, k_throttle_n, k_throttle_cov_s, k_throttle_onsets, k_throttle_power_cap_s, k_throttle_hw_slowdown_s, k_throttle_hw_thermal_s, k_throttle_sw_thermal_s, k_throttle_sync_boost_s, k_throttle_idle_s, k_starved_s, k_starved_cov_s, k_busy_clock_held, k_busy_clock_s, k_counter_n, k_counter_cov_s, k_counter_j, k_counter_resets, k_busy_smact_held, k_busy_smact_s, k_util_energy_j,
  kSpecialCount
};
constexpr std::array<const char*, kSpecialCount> kSpecialNames = {
    "samples", "interval.max", "interval.covered_s", "interval.gaps", "temp.crossings", "idle.power_s", "idle.energy_j", "limit.cov_s", "limit.near_s", "limit.share_sum", "limit.share_n", "pcie.n", "pcie.gen_ratio_sum", "pcie.width_ratio_sum", "pclk_rated.max", "mclk_rated.max", "fb_total.max", "fb_free.min", "throttle.n", "throttle.cov_s", "throttle.onsets", "throttle.power_cap_s", "throttle.hw_slowdown_s", "throttle.hw_thermal_s", "throttle.sw_thermal_s", "throttle.sync_boost_s", "throttle.idle_s", "starved.s", "starved.cov_s", "busy_clock.held", "busy_clock.s", "counter.n", "counter.cov_s", "counter.j", "counter.resets", "busy_smact.held", "busy_smact.s", "util_known.energy_j"};
// clang-format on

constexpr std::array<Reason, 6> kReasons = {
    {{"power_cap", throttle::kSwPowerCap, k_throttle_power_cap_s, true},
     {"hw_slowdown", throttle::kHwSlowdown | throttle::kHwPowerBrakeSlowdown, k_throttle_hw_slowdown_s, true},
     {"hw_thermal", throttle::kHwThermalSlowdown, k_throttle_hw_thermal_s, true},
     {"sw_thermal", throttle::kSwThermalSlowdown, k_throttle_sw_thermal_s, true},
     {"sync_boost", throttle::kSyncBoost, k_throttle_sync_boost_s, false},
     {"idle", throttle::kGpuIdle, k_throttle_idle_s, false}}};

static_assert(kSpecialCount == 38, "GpuWalker::m_special holds every Special");

double wide(float v) { return static_cast<double>(v); }

double value_of(const Sample& s, Held m) {
  switch (m) {
    case Held::power: return s.power_w;
    case Held::util: return s.util_pct;
    case Held::temp: return s.temp_c;
    case Held::pclk: return s.pclk_mhz;
    case Held::mem_temp: return s.mem_temp_c;
    case Held::mem_util: return s.mem_pct;
    case Held::mclk: return s.mclk_mhz;
    case Held::fb: return s.fb_mib;
    case Held::enc: return s.enc_pct;
    case Held::dec: return s.dec_pct;
    case Held::rx: return s.rxpci_mb_s;
    case Held::tx: return s.txpci_mb_s;
    case Held::sm_active: return s.sm_active;
    case Held::sm_occupancy: return s.sm_occupancy;
    case Held::tensor_active: return s.tensor_active;
    case Held::dram_active: return s.dram_active;
    case Held::fp64_active: return s.fp64_active;
    case Held::fp32_active: return s.fp32_active;
    case Held::fp16_active: return s.fp16_active;
    case Held::nvlink_tx: return s.nvlink_tx_mb_s;
    case Held::nvlink_rx: return s.nvlink_rx_mb_s;
    case Held::count_: break;
  }
  return kNaN;
}

std::string slot_name(std::size_t metric, std::size_t slot) {
  return fmt::format("{}.{}", kHeldNames[metric], kSlotNames[slot]);
}

// NaN is "nothing yet" for the maxima and minima.
void keep_max(double& into, double v) {
  if (!std::isnan(v) && (std::isnan(into) || v > into)) into = v;
}
void keep_min(double& into, double v) {
  if (!std::isnan(v) && (std::isnan(into) || v < into)) into = v;
}

}  // namespace

double partial(const Partials& p, const std::string& name) {
  const auto it = p.find(name);
  return it == p.end() ? kNaN : it->second;
}

void EnergyProfileBuilder::power_sample(std::int64_t ts_ns) {
  if (!m_any) m_first_ns = ts_ns;
  m_any = true;
  m_last_ns = ts_ns;
}

void EnergyProfileBuilder::covered(std::int64_t from_ns, double joules) {
  m_profile.add(from_ns, joules / kJoulesPerKwh);
}

void EnergyProfileBuilder::gap(std::int64_t from_ns, double dt_s) {
  m_gap_s[EnergyProfile::minute_of(from_ns)] += dt_s;
}

void EnergyProfileBuilder::finish(std::int64_t from_ns, std::int64_t to_ns, double mean_w) {
  if (!m_any) return;
  m_profile.add(from_ns, mean_w * seconds_of(m_first_ns - from_ns) / kJoulesPerKwh);  // before the first sample
  for (const auto& [minute, dt] : m_gap_s) m_profile.add_minute(minute, mean_w * dt / kJoulesPerKwh);
  m_profile.add(m_last_ns, mean_w * seconds_of(to_ns - m_last_ns) / kJoulesPerKwh);  // after the last
}

GpuWalker::GpuWalker(double gap_limit_s, double threshold_c, EnergyProfileBuilder* profile,
                     EnergyProfileBuilder* counter_profile)
    : m_limit_s(gap_limit_s), m_threshold_c(threshold_c), m_profile(profile), m_counter_profile(counter_profile) {
  m_max.fill(kNaN);
  m_min.fill(kNaN);
  m_special.fill(0);
  for (const Special k : {k_interval_max, k_pclk_rated_max, k_mclk_rated_max, k_fb_total_max, k_fb_free_min})
    m_special[k] = kNaN;
}

void GpuWalker::add_held_interval(Held m, const Sample& prev, const Sample& cur, double dt) {
  const double pv = value_of(prev, m), v = value_of(cur, m);
  auto& h = m_held[static_cast<std::size_t>(m)];
  if (static_cast<std::size_t>(m) < kQuantiledCount) m_sketches.held[static_cast<std::size_t>(m)].add(pv, dt);
  h[cov_s] += dt;
  h[held] += pv * dt;
  h[right] += v * dt;
  const double trapezoid = (pv + v) / 2 * dt;  // energy for power: the one integration of extract and merge
  h[trap] += trapezoid;
  h[held2] += pv * pv * dt;
  if (pv == 0) h[zero_s] += dt;
  if (m == Held::temp && pv > m_threshold_c) h[above_s] += dt;
  if (m == Held::power) {
    if (m_profile != nullptr) m_profile->covered(prev.ts_ns, trapezoid);
    if (prev.util_pct == 0) {  // NaN compares false: no utilisation, no idle time
      m_special[k_idle_power_s] += dt;
      m_special[k_idle_energy_j] += trapezoid;
    }
    if (!std::isnan(prev.util_pct)) m_special[k_util_energy_j] += trapezoid;  // idle_energy_share's whole
    if (!std::isnan(prev.power_limit_w)) {
      m_special[k_limit_cov_s] += dt;
      if (pv >= kNearLimit * wide(prev.power_limit_w)) m_special[k_limit_near_s] += dt;
    }
  } else if (m == Held::util && !std::isnan(prev.mem_pct)) {
    m_special[k_starved_cov_s] += dt;
    if (pv >= kStarvedUtilPct && wide(prev.mem_pct) < kStarvedMemPct) m_special[k_starved_s] += dt;
  } else if (m == Held::pclk && prev.util_pct > 0) {
    m_special[k_busy_clock_held] += pv * dt;
    m_special[k_busy_clock_s] += dt;
  } else if (m == Held::sm_active && prev.util_pct > 0) {
    m_special[k_busy_smact_held] += pv * dt;
    m_special[k_busy_smact_s] += dt;
  }
}

void GpuWalker::add_interval(double dt) {
  keep_max(m_special[k_interval_max], dt);
  if (dt <= m_limit_s)
    m_special[k_interval_covered_s] += dt;
  else
    m_special[k_interval_gaps] += 1;
}

void GpuWalker::add(const Sample& s, bool count_sample) {
  if (count_sample) {
    m_special[k_samples] += 1;
    if (s.power_limit_w > 0 && s.power_default_limit_w > 0) {
      m_special[k_limit_share_sum] += wide(s.power_limit_w) / wide(s.power_default_limit_w);
      m_special[k_limit_share_n] += 1;
    }
    if (s.pcie_gen > 0 && s.pcie_gen_max > 0 && s.pcie_width > 0 && s.pcie_width_max > 0) {
      m_special[k_pcie_n] += 1;
      m_special[k_pcie_gen_ratio_sum] += static_cast<double>(s.pcie_gen) / s.pcie_gen_max;
      m_special[k_pcie_width_ratio_sum] += static_cast<double>(s.pcie_width) / s.pcie_width_max;
    }
    keep_max(m_special[k_pclk_rated_max], s.pclk_max_mhz);
    keep_max(m_special[k_mclk_rated_max], s.mclk_max_mhz);
    keep_max(m_special[k_fb_total_max], s.fb_total_mib);
    keep_min(m_special[k_fb_free_min], wide(s.fb_total_mib) - wide(s.fb_mib));
    if (!std::isnan(s.throttle_mask)) m_special[k_throttle_n] += 1;
  }
  if (m_has_last) {
    const double dt = seconds_of(s.ts_ns - m_last.ts_ns);
    if (dt > 0) add_interval(dt);
  }
  for (std::size_t i = 0; i < kHeldCount; ++i) {
    const auto m = static_cast<Held>(i);
    const double v = value_of(s, m);
    if (std::isnan(v)) continue;
    if (count_sample) {
      ++m_held[i][n];
      m_held[i][plain_sum] += v;
      if (v == 0) ++m_held[i][plain_zero];
      if (std::isnan(m_max[i]) || v > m_max[i]) m_max[i] = v;
      if (std::isnan(m_min[i]) || v < m_min[i]) m_min[i] = v;
      if (i < kQuantiledCount && m_sketches.held[i].empty()) m_sketches.plain[i].add(v);  // the fallback
    }
    if (m == Held::power && m_profile != nullptr) m_profile->power_sample(s.ts_ns);
    if (const Sample* p = prev_with(m)) {
      const double dt = seconds_of(s.ts_ns - p->ts_ns);
      if (dt > 0 && dt <= m_limit_s)
        add_held_interval(m, *p, s, dt);
      else if (dt > 0 && m == Held::power && m_profile != nullptr)
        m_profile->gap(p->ts_ns, dt);
      if (m == Held::temp && p->temp_c <= m_threshold_c && v > m_threshold_c) m_special[k_temp_crossings] += 1;
    }
  }
  if (!std::isnan(s.throttle_mask)) add_throttle(s);
  if (!std::isnan(s.energy_mj)) add_counter(s, count_sample);
  remember(s);
}

// The energy counter counts through gaps: the increase between two readings is the energy of
// the interval however long it is. A decrease is a reset (driver reload, GPU reset): the
// energy of that interval is unknown, and it stays uncovered. A second reading at the same
// instant adds nothing.
void GpuWalker::add_counter(const Sample& s, bool count_sample) {
  if (count_sample) m_special[k_counter_n] += 1;
  if (m_has_counter) {
    const double dt = seconds_of(s.ts_ns - m_counter_prev.ts_ns);
    if (dt <= 0) return;
    if (s.energy_mj >= m_counter_prev.energy_mj) {
      const double joules = (s.energy_mj - m_counter_prev.energy_mj) / 1000.0;
      m_special[k_counter_cov_s] += dt;
      m_special[k_counter_j] += joules;
      if (m_counter_profile != nullptr) m_counter_profile->covered(m_counter_prev.ts_ns, joules);
    } else {
      m_special[k_counter_resets] += 1;
      if (m_counter_profile != nullptr) m_counter_profile->gap(m_counter_prev.ts_ns, dt);
    }
  }
  if (m_counter_profile != nullptr) m_counter_profile->power_sample(s.ts_ns);
  m_counter_prev = s;
  m_has_counter = true;
}

const Sample* GpuWalker::prev_with(Held m) const {
  const auto i = static_cast<std::size_t>(m);
  if (m_has_last && !std::isnan(value_of(m_last, m))) return &m_last;
  return m_has_older[i] ? &m_older[i] : nullptr;
}

// Keeps `s` as the previous sample; a metric it lacks keeps its own last sample.
void GpuWalker::remember(const Sample& s) {
  if (m_has_last) {
    for (std::size_t i = 0; i < kHeldCount; ++i) {
      const auto m = static_cast<Held>(i);
      if (!std::isnan(value_of(s, m)))
        m_has_older[i] = false;
      else if (!std::isnan(value_of(m_last, m))) {
        m_older[i] = m_last;
        m_has_older[i] = true;
      }
    }
    if (!std::isnan(s.throttle_mask))
      m_has_older_throttle = false;
    else if (!std::isnan(m_last.throttle_mask)) {
      m_older_throttle = m_last;
      m_has_older_throttle = true;
    }
  }
  m_last = s;
  m_has_last = true;
}

void GpuWalker::add_throttle(const Sample& s) {
  const Sample* p = m_has_last && !std::isnan(m_last.throttle_mask) ? &m_last
                    : m_has_older_throttle                          ? &m_older_throttle
                                                                    : nullptr;
  if (p != nullptr) {
    const auto was = static_cast<std::uint64_t>(p->throttle_mask), now = static_cast<std::uint64_t>(s.throttle_mask);
    if ((was & kSlowdownBits) == 0 && (now & kSlowdownBits) != 0) m_special[k_throttle_onsets] += 1;
    const double dt = seconds_of(s.ts_ns - p->ts_ns);
    if (dt > 0 && dt <= m_limit_s) {
      m_special[k_throttle_cov_s] += dt;
      for (const Reason& r : kReasons)
        if ((was & r.bits) != 0) m_special[r.slot] += dt;
    }
  }
}

Partials GpuWalker::partials() const {
  Partials p;
  for (std::size_t k = 0; k < kSpecialCount; ++k)
    if (m_special[k] != 0 && !std::isnan(m_special[k])) p[kSpecialNames[k]] = m_special[k];
  p["gap_limit_s"] = m_limit_s;
  p["temp.threshold_c"] = m_threshold_c;
  for (std::size_t i = 0; i < kHeldCount; ++i) {
    for (std::size_t k = 0; k < kSlotNames.size(); ++k)
      if (m_held[i][k] != 0) p[slot_name(i, k)] = m_held[i][k];
    if (!std::isnan(m_max[i])) p[fmt::format("{}.max", kHeldNames[i])] = m_max[i];
    if (!std::isnan(m_min[i])) p[fmt::format("{}.min", kHeldNames[i])] = m_min[i];
  }
  return p;
}

GpuSketches GpuWalker::take_sketches() {
  GpuSketches out = std::move(m_sketches);
  m_sketches = GpuSketches();
  out.settle();
  return out;
}

void GpuSketches::merge(const GpuSketches& other) {
  for (std::size_t i = 0; i < kQuantiledCount; ++i) {
    held[i].merge(other.held[i]);
    plain[i].merge(other.plain[i]);
  }
  intervals.merge(other.intervals);
  settle();
}

void GpuSketches::settle() {
  for (std::size_t i = 0; i < kQuantiledCount; ++i)
    if (!held[i].empty()) plain[i].clear();
}

GpuSketches bridge_sketches(const Sample& last, const Sample& first, double gap_limit_s) {
  GpuWalker w(gap_limit_s, kNaN);
  w.add(last, false);
  w.add(first, false);
  GpuSketches out = w.take_sketches();
  const double dt = seconds_of(first.ts_ns - last.ts_ns);
  if (dt > 0) out.intervals.add(dt);
  return out;
}

Partials bridge_partials(const Sample& last, const Sample& first, double gap_limit_s, double threshold_c) {
  GpuWalker w(gap_limit_s, threshold_c);
  w.add(last, false);
  w.add(first, false);
  Partials p = w.partials();
  p.erase("gap_limit_s");
  p.erase("temp.threshold_c");
  return p;
}

void combine_partials(Partials& into, const Partials& from) {
  for (const auto& [name, v] : from) {
    const auto [it, fresh] = into.emplace(name, v);
    if (fresh) continue;
    if (name.ends_with(".max") || name == "gap_limit_s" || name == "temp.threshold_c")
      it->second = std::max(it->second, v);
    else if (name.ends_with(".min"))
      it->second = std::min(it->second, v);
    else
      it->second += v;
  }
}

namespace {

/// Sets `key` to num / den, or absent with `reason` when den is not positive.
void ratio(IndicatorSet& out, const IndicatorKey& key, double num, double den, const std::string& reason) {
  if (den > 0 && !std::isnan(num))
    set_value(out, key, num / den);
  else
    set_absent(out, key, reason);
}

/// The view of one held metric's partials.
struct HeldView {
  const Partials& p;
  const char* name;
  [[nodiscard]] double get(const char* slot) const {
    const double v = partial(p, fmt::format("{}.{}", name, slot));
    return std::isnan(v) ? 0.0 : v;
  }
  [[nodiscard]] double max() const { return partial(p, fmt::format("{}.max", name)); }
  [[nodiscard]] double min() const { return partial(p, fmt::format("{}.min", name)); }
  [[nodiscard]] double count() const { return get("n"); }
  [[nodiscard]] double cov() const { return get("cov_s"); }
  /// Time-weighted mean over covered intervals, else the plain mean of the samples.
  [[nodiscard]] double mean() const { return cov() > 0 ? get("held") / cov() : get("sum") / count(); }
};

/// A series' mean and the indicator it gives.
struct MetricMean {
  const char* metric;
  IndicatorKey key;
};

/// An indicator read off a series' statistics (HeldView::max, HeldView::mean).
struct HeldStat {
  IndicatorKey key;
  double (HeldView::*of)() const;
};

/// The indicators of a series, or all of them absent for `none` when it has no samples.
void held_stats(const HeldView& h, std::initializer_list<HeldStat> stats, const char* none, IndicatorSet& out) {
  for (const HeldStat& s : stats)
    if (h.count() == 0)
      set_absent(out, s.key, none);
    else
      set_value(out, s.key, (h.*s.of)());
}

double sum_of(const Partials& p, const std::string& name) {
  const double v = partial(p, name);
  return std::isnan(v) ? 0.0 : v;
}

void job_indicators(const Partials& p, double wall_s, IndicatorSet& out) {
  set_value(out, "wall_s", wall_s);
  set_value(out, "samples", sum_of(p, "samples"));
  if (wall_s > 0)
    set_value(out, "coverage", std::min(1.0, sum_of(p, "interval.covered_s") / wall_s));
  else
    set_absent(out, "coverage", "the window is empty (wall time 0 s)");
  const double longest = partial(p, "interval.max");
  if (std::isnan(longest))
    set_absent(out, "sample_interval_max_s", "fewer than two samples at distinct times");
  else
    set_value(out, "sample_interval_max_s", longest);
  set_value(out, "gap_count", sum_of(p, "interval.gaps"));
}

void energy_bounds(const HeldView& pw, double uncovered, IndicatorSet& out) {
  const double left_j = pw.get("held"), right_j = pw.get("right");
  const double err_j = kPowerErrorW * pw.cov();
  const double low = std::min(left_j, right_j) - err_j + pw.min() * uncovered;
  const double high = std::max(left_j, right_j) + err_j + pw.max() * uncovered;
  set_value(out, "energy_low_kwh", std::max(0.0, low) / kJoulesPerKwh);
  set_value(out, "energy_high_kwh", high / kJoulesPerKwh);
}

constexpr const char* kNoUtilisation = "no utilisation samples (MIG mode prints none)";

void energy_per_busy_hour(const Partials& p, double energy_j, IndicatorSet& out) {
  const HeldView ut{p, "util"};
  if (ut.count() == 0) {
    set_absent(out, "energy_per_busy_hour_kwh", kNoUtilisation);
    return;
  }
  const double busy_h = (ut.cov() - ut.get("zero_s")) / 3600;
  ratio(out, "energy_per_busy_hour_kwh", energy_j / kJoulesPerKwh, busy_h, "no busy time (utilisation > 0 %)");
}

void power_extras(const Partials& p, const HeldView& pw, const HeldView& ut, double energy_j, IndicatorSet& out) {
  set_value(out, "power_min_w", pw.min());
  const double cov = pw.cov();
  if (cov > 0 && pw.get("held") > 0) {
    const double mean = pw.get("held") / cov;
    const double var = std::max(0.0, pw.get("held2") / cov - mean * mean);
    set_value(out, "power_cv", std::sqrt(var) / mean);
  } else {
    set_absent(out, "power_cv", cov > 0 ? "mean power is 0" : "no covered power interval");
  }
  if (ut.count() == 0) {
    set_absent(out, {"idle_power_w", "idle_energy_kwh", "idle_energy_share"}, kNoUtilisation);
  } else {
    ratio(out, "idle_power_w", sum_of(p, "idle.energy_j"), sum_of(p, "idle.power_s"),
          "no covered power interval at 0 % utilisation");
    set_value(out, "idle_energy_kwh", sum_of(p, "idle.energy_j") / kJoulesPerKwh);
    ratio(out, "idle_energy_share", sum_of(p, "idle.energy_j"), sum_of(p, "util_known.energy_j"),
          "no covered power interval with a utilisation reading, or its energy is 0");
  }
  energy_per_busy_hour(p, energy_j, out);
  if (sum_of(p, "limit.cov_s") > 0)
    set_value(out, "power_limit_time_s", sum_of(p, "limit.near_s"));
  else
    set_absent(out, "power_limit_time_s", "no enforced power limit in the power samples");
  ratio(out, "power_limit_share", sum_of(p, "limit.share_sum"), sum_of(p, "limit.share_n"),
        "no sample gives both the enforced and the default power limit");
}

GpuEnergy power_indicators(const Partials& p, double wall_s, IndicatorSet& out) {
  const HeldView pw{p, "power"}, ut{p, "util"};
  if (pw.count() == 0) {
    set_absent(out,
               {"energy_kwh", "energy_filled_fraction", "power_mean_w", "power_max_w", "energy_low_kwh",
                "energy_high_kwh", "power_min_w", "power_cv", "idle_power_w", "idle_energy_kwh", "idle_energy_share",
                "energy_per_busy_hour_kwh", "power_limit_time_s", "power_limit_share", "energy_kwh_from_power"},
               "no power samples");
    return {};
  }
  // Mean power = covered trapezoid energy / covered time, so that filling uncovered time
  // with it extends the measured energy at the measured rate.
  const double mean = pw.cov() > 0 ? pw.get("trap") / pw.cov() : pw.get("sum") / pw.count();
  const double uncovered = std::max(0.0, wall_s - pw.cov());
  const double filled = mean * uncovered;
  const double e = pw.get("trap") + filled;
  set_value(out, "energy_kwh", e / kJoulesPerKwh);
  set_value(out, "energy_kwh_from_power", e / kJoulesPerKwh);
  if (e > 0)
    set_value(out, "energy_filled_fraction", filled / e);
  else
    set_absent(out, "energy_filled_fraction", "energy is 0");
  set_value(out, "power_mean_w", mean);
  set_value(out, "power_max_w", pw.max());
  energy_bounds(pw, uncovered, out);
  power_extras(p, pw, ut, e, out);
  return {filled, e, kEnergyByPower, mean};
}

// The counter gives the energy when it covers the window at least as well as the samples do,
// less 1 % of the window: a reset or a reading missing at an end costs an interval, not the
// method; a counter read over part of the window only leaves the energy to the power samples.
constexpr double kCounterSlack = 0.01;
constexpr const char* kNoCounter =
    "no energy counter in the samples (DCGM field 156: dcgmi dmon -e 156, "
    "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION)";

/// The counter's energy in place of the power integral: its increase over the covered time,
/// plus its mean power over the time it does not cover (the window's ends, reset intervals).
GpuEnergy counter_energy(const Partials& p, double wall_s, const GpuEnergy& power, IndicatorSet& out) {
  const double cov = sum_of(p, "counter.cov_s"), measured = sum_of(p, "counter.j");
  const double mean_w = measured / cov, uncovered = std::max(0.0, wall_s - cov);
  const double filled = mean_w * uncovered, e = measured + filled;
  set_value(out, "energy_kwh", e / kJoulesPerKwh);
  if (e > 0)
    set_value(out, "energy_filled_fraction", filled / e);
  else
    set_absent(out, "energy_filled_fraction", "energy is 0");
  // The counter's increase is exact: only the uncovered time is bounded, by the power samples'
  // extremes and the counter's mean power (the fill), whichever lies further out.
  const double p_min = partial(p, "power.min"), p_max = partial(p, "power.max");
  const double low_w = std::isnan(p_min) ? mean_w : std::min(p_min, mean_w);
  const double high_w = std::isnan(p_max) ? mean_w : std::max(p_max, mean_w);
  set_value(out, "energy_low_kwh", (measured + low_w * uncovered) / kJoulesPerKwh);
  set_value(out, "energy_high_kwh", (measured + high_w * uncovered) / kJoulesPerKwh);
  energy_per_busy_hour(p, e, out);
  if (power.method.empty())
    set_absent(out, "energy_power_vs_counter_pct", "no power samples");
  else if (e > 0)
    set_value(out, "energy_power_vs_counter_pct", (power.energy_j - e) / e * 100);
  else
    set_absent(out, "energy_power_vs_counter_pct", "energy is 0");
  return {filled, e, kEnergyByCounter, mean_w};
}

/// The energy counter's indicators, and the GPU's energy from it when it covers the window.
GpuEnergy energy_from_counter_or_power(const Partials& p, double wall_s, const GpuEnergy& power, IndicatorSet& out) {
  if (sum_of(p, "counter.n") == 0) {
    set_absent(out, {"energy_power_vs_counter_pct", "energy_counter_coverage", "energy_counter_resets"}, kNoCounter);
    return power;
  }
  const double cov = sum_of(p, "counter.cov_s");
  if (wall_s > 0)
    set_value(out, "energy_counter_coverage", std::min(1.0, cov / wall_s));
  else
    set_absent(out, "energy_counter_coverage", "the window is empty (wall time 0 s)");
  set_value(out, "energy_counter_resets", sum_of(p, "counter.resets"));
  if (cov > 0 && cov >= sum_of(p, "interval.covered_s") - kCounterSlack * wall_s)
    return counter_energy(p, wall_s, power, out);
  const std::string partly = cov > 0 ? "the energy counter covers less of the window than the samples"
                                     : "fewer than two energy counter readings without a reset between them";
  set_absent(out, "energy_power_vs_counter_pct", partly + ": energy from the power samples");
  if (power.method.empty())
    set_absent(
        out, {"energy_kwh", "energy_filled_fraction", "energy_low_kwh", "energy_high_kwh", "energy_per_busy_hour_kwh"},
        "no power samples, and " + partly);
  return power;
}

void util_indicators(const Partials& p, IndicatorSet& out) {
  const HeldView u{p, "util"};
  const std::string none = "no utilisation samples (MIG mode prints none)";
  if (u.count() == 0) {
    set_absent(out, {"util_mean", "idle_fraction"}, none);
  } else {
    set_value(out, "util_mean", u.mean() / 100);
    set_value(out, "idle_fraction", u.cov() > 0 ? u.get("zero_s") / u.cov() : u.get("plain_zero") / u.count());
  }
  const auto mean_pct = [&](const char* metric, const IndicatorKey& key, const char* reason) {
    const HeldView h{p, metric};
    if (h.count() == 0)
      set_absent(out, key, reason);
    else
      set_value(out, key, h.mean() / 100);
  };
  mean_pct("mem_util", "mem_util_mean", "no memory utilisation samples (dmon mem, query utilization.memory)");
  held_stats(HeldView{p, "fb"}, {{"fb_used_max_mib", &HeldView::max}, {"fb_used_mean_mib", &HeldView::mean}},
             "no framebuffer samples (dmon fb, query memory.used)", out);
  for (const MetricMean& m : {MetricMean{"rx", "pcie_rx_mean_mb_s"}, MetricMean{"tx", "pcie_tx_mean_mb_s"}})
    held_stats(HeldView{p, m.metric}, {{m.key, &HeldView::mean}},
               "no PCIe throughput samples (dmon -s t: rxpci, txpci)", out);
  const double links = sum_of(p, "pcie.n");
  const std::string no_link = "no sample gives the PCIe link generation and width with their maxima";
  ratio(out, "pcie_gen_ratio", sum_of(p, "pcie.gen_ratio_sum"), links, no_link);
  ratio(out, "pcie_width_ratio", sum_of(p, "pcie.width_ratio_sum"), links, no_link);
}

void thermal_indicators(const Partials& p, IndicatorSet& out) {
  const HeldView t{p, "temp"};
  if (t.count() == 0) {
    set_absent(out, {"temp_mean_c", "temp_max_c", "time_above_78c_s"}, "no temperature samples");
  } else {
    set_value(out, "temp_mean_c", t.mean());
    set_value(out, "temp_max_c", t.max());
    set_value(out, "time_above_78c_s", t.get("above_s"));
  }
  held_stats(HeldView{p, "mem_temp"}, {{"mem_temp_mean_c", &HeldView::mean}, {"mem_temp_max_c", &HeldView::max}},
             "no memory temperature samples (dmon mtemp, query temperature.memory)", out);
}

void clock_indicators(const Partials& p, IndicatorSet& out) {
  const HeldView c{p, "pclk"}, mc{p, "mclk"};
  const double rated = partial(p, "pclk_rated.max");
  if (c.count() == 0 || !(c.max() > 0)) {
    set_absent(out, {"sm_clock_ratio", "throttle_work_lost_fraction"}, "no SM clock samples");
  } else {
    set_value(out, "sm_clock_ratio", c.mean() / c.max());
    const double reference = rated > 0 ? std::max(rated, c.max()) : c.max();
    const double busy_s = sum_of(p, "busy_clock.s");
    if (busy_s > 0)
      set_value(out, "throttle_work_lost_fraction", 1 - sum_of(p, "busy_clock.held") / (reference * busy_s));
    else
      set_absent(out, "throttle_work_lost_fraction", "no covered SM clock interval at utilisation > 0 %");
  }
  if (mc.count() == 0 || !(mc.max() > 0)) {
    set_absent(out, "mclk_ratio", "no memory clock samples (dmon mclk, query clocks.mem)");
  } else {
    const double mrated = partial(p, "mclk_rated.max");
    set_value(out, "mclk_ratio", mc.mean() / (mrated > 0 ? std::max(mrated, mc.max()) : mc.max()));
  }
}

void throttle_indicators(const Partials& p, IndicatorSet& out) {
  const double cov = sum_of(p, "throttle.cov_s");
  const std::string none =
      sum_of(p, "throttle.n") > 0
          ? "no covered interval between throttle-reason samples"
          : "no throttle reasons in the samples (query clocks_event_reasons.active, nvidia-smi -q)";
  for (const Reason& r : kReasons)
    if (r.indicator)
      ratio(out, IndicatorKey::of(fmt::format("throttle_{}_fraction", r.name)),
            sum_of(p, fmt::format("throttle.{}_s", r.name)), cov, none);
  if (sum_of(p, "throttle.n") > 0)
    set_value(out, "throttle_onsets", sum_of(p, "throttle.onsets"));
  else
    set_absent(out, "throttle_onsets", none);
}

/// p50 and p95 of one metric: time-weighted, else (no covered interval) per sample.
/// The time-weighted 95th percentile of power, else (no covered interval) per sample.
void power_p95(const GpuSketches& s, IndicatorSet& out) {
  const auto i = static_cast<std::size_t>(Held::power);
  const QuantileSketch& q = !s.held[i].empty() ? s.held[i] : s.plain[i];
  if (q.empty())
    set_absent(out, "power_p95_w", "no power samples");
  else
    set_value(out, "power_p95_w", q.quantiles({0.95})[0]);
}

constexpr const char* kNoProfiling =
    "no DCGM profiling fields in the samples (dcgmi dmon -e 1002,1003,1004,1005,1006,1007,1008, "
    "DCGM_FI_PROF_*)";

/// DCGM's profiling fields: how much of the busy time did work (docs/indicators.md, "Useful work").

void profiling_indicators(const Partials& p, IndicatorSet& out) {
  constexpr std::array<MetricMean, 9> kMeans = {{{"sm_active", "sm_active_mean"},
                                                 {"sm_occupancy", "sm_occupancy_mean"},
                                                 {"tensor_active", "tensor_active_mean"},
                                                 {"dram_active", "dram_active_mean"},
                                                 {"fp64_active", "fp64_active_mean"},
                                                 {"fp32_active", "fp32_active_mean"},
                                                 {"fp16_active", "fp16_active_mean"},
                                                 {"nvlink_tx", "nvlink_tx_mean_mb_s"},
                                                 {"nvlink_rx", "nvlink_rx_mean_mb_s"}}};
  for (const auto& [metric, key] : kMeans) {
    const HeldView h{p, metric};
    if (h.count() == 0)
      set_absent(out, key, kNoProfiling);
    else
      set_value(out, key, h.mean());
  }
  if (HeldView{p, "sm_active"}.count() == 0)
    set_absent(out, "sm_active_busy", kNoProfiling);
  else
    ratio(out, "sm_active_busy", sum_of(p, "busy_smact.held"), sum_of(p, "busy_smact.s"),
          "no covered SM-active interval whose sample reads utilisation > 0 %");
}

}  // namespace

void finish_quantiles(const GpuSketches& s, IndicatorSet& out) {
  power_p95(s, out);
  if (s.intervals.empty())
    set_absent(out, "sample_interval_median_s", "fewer than two samples at distinct times");
  else
    set_value(out, "sample_interval_median_s", s.intervals.median());
}

GpuEnergy finish_gpu(const Partials& p, double wall_s, IndicatorSet& out) {
  job_indicators(p, wall_s, out);
  const GpuEnergy e = energy_from_counter_or_power(p, wall_s, power_indicators(p, wall_s, out), out);
  util_indicators(p, out);
  thermal_indicators(p, out);
  clock_indicators(p, out);
  throttle_indicators(p, out);
  profiling_indicators(p, out);
  return e;
}

}  // namespace gpucost::extract::detail

// The mergeable statistics of one GPU: a walk over its samples accumulates partial sums
// (Partials), and every mergeable indicator is computed from those sums alone, so that extract
// and merge share one formula (docs/indicators.md, Merging).
#pragma once

#include <gpucost/extract/features.hpp>

#include "quantile_sketch.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>

namespace gpucost::extract::detail {

/// The metrics with generic time-weighted partials (count, plain sum, min, max, covered time,
/// held sum, ...).
/// The last nine are DCGM's profiling fields (docs/indicators.md, "Useful work").
enum class Held : std::uint8_t {
  power,
  util,
  temp,
  pclk,
  mem_temp,
  mem_util,
  mclk,
  fb,
  enc,
  dec,
  rx,
  tx,
  sm_active,
  sm_occupancy,
  tensor_active,
  dram_active,
  fp64_active,
  fp32_active,
  fp16_active,
  nvlink_tx,
  nvlink_rx,
  count_
};
inline constexpr std::size_t kHeldCount = static_cast<std::size_t>(Held::count_);
/// The metrics with quantile indicators: the first three of Held (power, util, temp).
inline constexpr std::size_t kQuantiledCount = 3;
static_assert(static_cast<std::size_t>(Held::power) < kQuantiledCount &&
              static_cast<std::size_t>(Held::util) < kQuantiledCount &&
              static_cast<std::size_t>(Held::temp) < kQuantiledCount);

/// The quantile sketches of one GPU (docs/indicators.md, Merging), indexed by Held.
struct GpuSketches {
  /// Time-weighted: each covered interval adds its left sample's value with weight dt.
  std::array<QuantileSketch, kQuantiledCount> held;
  /// Every sample weighs 1: the fallback when a metric has no covered interval. Kept only while
  /// `held` is empty, since a covered interval, once seen, stays in every merge.
  std::array<QuantileSketch, kQuantiledCount> plain;
  /// The positive intervals between consecutive samples (any metrics), s.
  QuantileSketch intervals;

  /// Adds the values of `other` (another window or the bridge between two).
  void merge(const GpuSketches& other);
  /// Drops the fallbacks that a covered interval made useless.
  void settle();
};

/// The host's energy profile (EnergyProfile) from one GPU's walk: GpuWalker hands it each
/// covered power interval's trapezoid energy, the very term energy_kwh sums, and each gap; the
/// gaps and the uncovered ends of the window are filled at the GPU's mean power once it is known.
class EnergyProfileBuilder {
 public:
  explicit EnergyProfileBuilder(EnergyProfile& profile) : m_profile(profile) {}
  /// A sample that reads power: the first and the last bound the fills at the window's ends.
  void power_sample(std::int64_t ts_ns);
  /// A covered power interval that starts at `from_ns`: its energy lands in that minute.
  void covered(std::int64_t from_ns, double joules);
  /// An interval over the gap limit that starts at `from_ns`, `dt_s` long.
  void gap(std::int64_t from_ns, double dt_s);
  /// Adds the fills at `mean_w` (the covered energies are already in the profile).
  void finish(std::int64_t from_ns, std::int64_t to_ns, double mean_w);

 private:
  EnergyProfile& m_profile;
  bool m_any = false;
  std::int64_t m_first_ns = 0, m_last_ns = 0;
  std::map<std::int64_t, double> m_gap_s;  // seconds of intervals over the gap limit, by the minute they start in
};

/// Accumulates the partials of one GPU from its samples in time order.
class GpuWalker {
 public:
  /// `profile`, when given, receives the walk's power intervals (extract; not merge's bridges);
  /// `counter_profile` the energy counter's intervals.
  GpuWalker(double gap_limit_s, double threshold_c, EnergyProfileBuilder* profile = nullptr,
            EnergyProfileBuilder* counter_profile = nullptr);
  /// Adds a sample: counted (count_sample) and the interval from the previous sample of each metric.
  void add(const Sample& s, bool count_sample = true);
  [[nodiscard]] Partials partials() const;
  /// The last sample added (after at least one add).
  [[nodiscard]] const Sample& last() const { return m_last; }
  /// The time-weighted and per-sample sketches (settled); `intervals` is left empty: extract
  /// fills it before the walk, since the gap limit needs the median interval.
  [[nodiscard]] GpuSketches take_sketches();

 private:
  void add_interval(double dt);
  void add_held_interval(Held m, const Sample& prev, const Sample& cur, double dt);
  double m_limit_s, m_threshold_c;
  EnergyProfileBuilder* m_profile;
  EnergyProfileBuilder* m_counter_profile;
  std::array<double, 38> m_special{};  // the partials that are not per metric (Special in the .cpp)
  std::array<std::array<double, 10>, kHeldCount> m_held{};
  std::array<double, kHeldCount> m_max{}, m_min{};
  // The previous sample, copied (a reader's buffer does not outlive the next read); and, per
  // metric, the last sample that carried it when the previous one did not (rare).
  [[nodiscard]] const Sample* prev_with(Held m) const;
  void remember(const Sample& s);
  void add_throttle(const Sample& s);
  void add_counter(const Sample& s, bool count_sample);
  Sample m_last;
  Sample m_counter_prev;  // the last sample that read the energy counter
  bool m_has_counter = false;
  bool m_has_last = false;
  std::array<Sample, kHeldCount> m_older{};
  std::array<bool, kHeldCount> m_has_older{};
  Sample m_older_throttle;
  bool m_has_older_throttle = false;
  GpuSketches m_sketches;
};

/// The interval between two consecutive documents of one GPU: the partials that the last sample
/// of the earlier and the first sample of the later one add (merge).
Partials bridge_partials(const Sample& last, const Sample& first, double gap_limit_s, double threshold_c);

/// The sketches that the interval between two consecutive documents of one GPU adds (merge):
/// its time-weighted values when covered, and the interval itself.
GpuSketches bridge_sketches(const Sample& last, const Sample& first, double gap_limit_s);

/// The positive intervals between consecutive samples (fed in time order), s.
class IntervalWalker {
 public:
  void add(const Sample& s) {
    if (m_any && s.ts_ns > m_prev_ns) m_sketch.add(static_cast<double>(s.ts_ns - m_prev_ns) / 1e9);
    m_prev_ns = s.ts_ns;
    m_any = true;
  }
  [[nodiscard]] QuantileSketch take() { return std::move(m_sketch); }

 private:
  QuantileSketch m_sketch;
  std::int64_t m_prev_ns = 0;
  bool m_any = false;
};

/// The quantile indicators (F006, F014) from the sketches.
void finish_quantiles(const GpuSketches& s, IndicatorSet& out);

/// Combines two partial sets (sum, or max/min by name).
void combine_partials(Partials& into, const Partials& from);

/// Energy totals of one GPU, for the host's filled fraction, and what gave them: the energy
/// counter, the power samples, or nothing (empty: no energy).
struct GpuEnergy {
  double filled_j = 0, energy_j = 0;
  std::string_view method;
  double fill_w = 0;  ///< the power uncovered time was filled at (the energy profile's fills)
};

/// Every mergeable per-GPU indicator from the partials and the window's wall time.
GpuEnergy finish_gpu(const Partials& p, double wall_s, IndicatorSet& out);

double partial(const Partials& p, const std::string& name);  ///< NaN when absent

}  // namespace gpucost::extract::detail

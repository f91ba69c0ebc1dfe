// A walk over one GPU's samples in time order that keeps only a bounded window of them: the
// upward crossings of the temperature threshold by the rolling median (F067, the chain's crossings). It takes samples one by one, so extract
// reads a GPU once whatever the length of its log.
#pragma once

#include <gpucost/extract/features.hpp>

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace gpucost::extract::detail {

/// The upward crossings of the threshold by the 15 s rolling median (docs/indicators.md, F067).
class ThermalShapeWalker {
 public:
  explicit ThermalShapeWalker(double threshold_c) : m_threshold(threshold_c) {}
  void add(const Sample& s);
  /// Sets F067 and appends the crossing times to `crossings`.
  void finish(IndicatorSet& out, std::vector<std::int64_t>& crossings);
  [[nodiscard]] bool any() const { return m_n > 0; }

 private:
  struct Point {
    std::int64_t ts_ns;
    double v;
  };
  void add_rolling(const Point& p);

  double m_threshold;
  std::size_t m_n = 0;
  std::int64_t m_t0 = 0;
  // rolling median: the samples of the trailing 15 s, in time order and sorted by value (an
  // insert and an erase per sample instead of a selection over the window)
  std::deque<Point> m_recent;
  std::vector<double> m_sorted;
  double m_prev_median = std::numeric_limits<double>::quiet_NaN();
  double m_rolling_crossings = 0;
  std::vector<std::int64_t> m_crossings;
};

}  // namespace gpucost::extract::detail

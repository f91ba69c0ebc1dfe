// A walk over one GPU's samples in time order that keeps only a bounded window of them: the
// thermal shape (F065-F067 and the chain's crossings). It takes samples one by one, so extract
// reads a GPU once whatever the length of its log.
#pragma once

#include <gpucost/extract/features.hpp>

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace gpucost::extract::detail {

/// Temperature slope over the first 5 minutes, time to the thermal steady state, and the upward
/// crossings of the threshold by the 15 s rolling median (docs/indicators.md, F065-F067).
class ThermalShapeWalker {
 public:
  explicit ThermalShapeWalker(double threshold_c) : m_threshold(threshold_c) {}
  void add(const Sample& s);
  /// Sets F065-F067 and appends the crossing times to `crossings`.
  void finish(IndicatorSet& out, std::vector<std::int64_t>& crossings);
  [[nodiscard]] bool any() const { return m_n > 0; }

 private:
  struct Point {
    std::int64_t ts_ns;
    double v;
    std::size_t seq;
  };
  void add_slope(double t, double v);
  void add_rolling(const Point& p);
  void add_steady(const Point& p);
  bool settle(std::int64_t until_ns, bool ended);  // judges the steady-state candidates whose band is complete

  double m_threshold;
  std::size_t m_n = 0;
  std::int64_t m_t0 = 0;
  // slope: least squares over the first 300 s
  double m_sn = 0, m_st = 0, m_sv = 0, m_stt = 0, m_stv = 0;
  // rolling median: the samples of the trailing 15 s, in time order and sorted by value (an
  // insert and an erase per sample instead of a selection over the window)
  std::deque<Point> m_recent;
  std::vector<double> m_sorted;
  double m_prev_median = std::numeric_limits<double>::quiet_NaN();
  double m_rolling_crossings = 0;
  std::vector<std::int64_t> m_crossings;
  // steady state: candidate starts not yet judged, and the max/min of their band
  std::deque<Point> m_candidates, m_hi, m_lo;
  bool m_steady_found = false;
  double m_steady_s = 0;
};

}  // namespace gpucost::extract::detail

#include "series_passes.hpp"

#include <gpucost/core/time.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucost::extract::detail {

namespace {

constexpr double kRollingSpanS = 15;  // temp_rolling_crossings: trailing median window

/// The median of sorted values: the middle one, or the mean of the two middle ones.
double median_of_sorted(const std::vector<double>& v) {
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

}  // namespace

// ---- thermal shape ------------------------------------------------------------------------

void ThermalShapeWalker::add(const Sample& s) {
  if (std::isnan(s.temp_c)) return;
  if (m_n == 0) m_t0 = s.ts_ns;
  const Point p{s.ts_ns, s.temp_c};
  ++m_n;
  add_rolling(p);
}

// The median of the samples in (t - 15 s, t]; an upward crossing is a median above the
// threshold after one at or below it.
void ThermalShapeWalker::add_rolling(const Point& p) {
  const double t = seconds_of(p.ts_ns - m_t0);
  m_recent.push_back(p);
  m_sorted.insert(std::upper_bound(m_sorted.begin(), m_sorted.end(), p.v), p.v);
  while (seconds_of(m_recent.front().ts_ns - m_t0) <= t - kRollingSpanS) {
    m_sorted.erase(std::lower_bound(m_sorted.begin(), m_sorted.end(), m_recent.front().v));
    m_recent.pop_front();
  }
  const double m = median_of_sorted(m_sorted);
  if (m_prev_median <= m_threshold && m > m_threshold) {
    ++m_rolling_crossings;
    m_crossings.push_back(p.ts_ns);
  }
  m_prev_median = m;
}

void ThermalShapeWalker::finish(IndicatorSet& out, std::vector<std::int64_t>& crossings) {
  if (m_n == 0) {
    set_absent(out, "temp_rolling_crossings", "no temperature samples");
    return;
  }
  set_value(out, "temp_rolling_crossings", m_rolling_crossings);
  crossings.insert(crossings.end(), m_crossings.begin(), m_crossings.end());
}

}  // namespace gpucost::extract::detail

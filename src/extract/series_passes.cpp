#include "series_passes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucost::extract::detail {

namespace {

constexpr double kSlopeSpanS = 300;   // temp_slope_5min: the first 5 minutes
constexpr double kSteadySpanS = 300;  // temp_steady_s: the band must hold this long
constexpr double kSteadyBandC = 2;    // ... within this many °C (max - min)
constexpr double kRollingSpanS = 15;  // temp_rolling_crossings: trailing median window

double secs(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

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
  const Point p{s.ts_ns, s.temp_c, m_n++};
  add_slope(secs(p.ts_ns - m_t0), p.v);
  add_rolling(p);
  add_steady(p);
}

void ThermalShapeWalker::add_slope(double t, double v) {
  if (t > kSlopeSpanS) return;
  m_sn += 1;
  m_st += t;
  m_sv += v;
  m_stt += t * t;
  m_stv += t * v;
}

// The median of the samples in (t - 15 s, t]; an upward crossing is a median above the
// threshold after one at or below it.
void ThermalShapeWalker::add_rolling(const Point& p) {
  const double t = secs(p.ts_ns - m_t0);
  m_recent.push_back(p);
  m_sorted.insert(std::upper_bound(m_sorted.begin(), m_sorted.end(), p.v), p.v);
  while (secs(m_recent.front().ts_ns - m_t0) <= t - kRollingSpanS) {
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

// Every sample is a candidate start; a candidate is judged once the samples of its 300 s band
// have all come, and the first whose band stays within 2 °C is the steady state.
void ThermalShapeWalker::add_steady(const Point& p) {
  if (m_steady_found) return;
  if (settle(p.ts_ns, false)) return;
  m_candidates.push_back(p);
  while (!m_hi.empty() && m_hi.back().v <= p.v) m_hi.pop_back();
  while (!m_lo.empty() && m_lo.back().v >= p.v) m_lo.pop_back();
  m_hi.push_back(p);
  m_lo.push_back(p);
}

// Judges the candidates whose band is complete: a later sample lies past its end, or, once the
// data has ended (`ended`), the last sample reaches its end.
bool ThermalShapeWalker::settle(std::int64_t until_ns, bool ended) {
  const double until = secs(until_ns - m_t0);
  while (!m_candidates.empty()) {
    const Point& c = m_candidates.front();
    const double start = secs(c.ts_ns - m_t0);
    const bool complete = ended ? !(until < start + kSteadySpanS) : until > start + kSteadySpanS;
    if (!complete) return false;  // its band may still grow, or the data ends inside it
    while (m_hi.front().seq < c.seq) m_hi.pop_front();
    while (m_lo.front().seq < c.seq) m_lo.pop_front();
    if (m_hi.front().v - m_lo.front().v <= kSteadyBandC) {
      m_steady_found = true;
      m_steady_s = start;
      m_candidates.clear();
      m_hi.clear();
      m_lo.clear();
      return true;
    }
    m_candidates.pop_front();
  }
  return false;
}

void ThermalShapeWalker::finish(IndicatorSet& out, std::vector<std::int64_t>& crossings) {
  if (m_n == 0) {
    for (auto k : {"temp_slope_5min_c_per_min", "temp_steady_s", "temp_rolling_crossings"})
      set_absent(out, k, "no temperature samples");
    return;
  }
  const double den = m_sn * m_stt - m_st * m_st;
  if (m_sn < 2 || !(den > 0))
    set_absent(out, "temp_slope_5min_c_per_min",
               "fewer than two temperature samples at distinct times in the first 5 minutes");
  else
    set_value(out, "temp_slope_5min_c_per_min", (m_sn * m_stv - m_st * m_sv) / den * 60);
  if (!m_steady_found) settle(m_recent.back().ts_ns, true);
  if (m_steady_found)
    set_value(out, "temp_steady_s", m_steady_s);
  else
    set_absent(out, "temp_steady_s", "the temperature never stays within 2 °C for 300 s");
  set_value(out, "temp_rolling_crossings", m_rolling_crossings);
  crossings.insert(crossings.end(), m_crossings.begin(), m_crossings.end());
}

}  // namespace gpucost::extract::detail

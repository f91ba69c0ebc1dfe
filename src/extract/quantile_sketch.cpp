#include "quantile_sketch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucost::extract::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kGamma = (1 + QuantileSketch::kAlpha) / (1 - QuantileSketch::kAlpha);
const double kLogGamma = std::log(kGamma);
// The tolerance of weighted_quantiles before the sketch: an exact hand-computed boundary (19 s
// of 20 s at q = 0.95) must not tip to the next value on the rounding of 0.95 x 20.
constexpr double kTargetTolerance = 1e-12;

bool positive_finite(double w) { return w > 0 && std::isfinite(w); }

}  // namespace

std::int32_t QuantileSketch::bucket_index(double magnitude) {
  return static_cast<std::int32_t>(std::ceil(std::log(magnitude) / kLogGamma));
}

double QuantileSketch::bucket_value(std::int32_t index) { return 2 * std::exp(index * kLogGamma) / (kGamma + 1); }

void QuantileSketch::Store::add(std::int32_t index, double weight) {
  if (w.empty()) {
    offset = index;
    w.assign(1, weight);
    return;
  }
  if (index > top()) {
    // The window moves up: what falls below it folds into its lowest bucket.
    const std::int32_t low = index - kMaxBuckets + 1;
    if (low > offset) {
      double folded = 0;
      const auto cut = std::min(static_cast<std::size_t>(low - offset), w.size());
      for (std::size_t k = 0; k < cut; ++k) folded += w[k];
      w.erase(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(cut));
      if (w.empty()) w.push_back(0.0);
      w[0] += folded;
      offset = low;
    }
    w.resize(static_cast<std::size_t>(index - offset) + 1, 0.0);
  } else if (index < offset) {
    const std::int32_t low = std::max(index, top() - kMaxBuckets + 1);  // below it: fold into it
    if (low < offset) {
      w.insert(w.begin(), static_cast<std::size_t>(offset - low), 0.0);
      offset = low;
    }
    index = low;
  }
  w[static_cast<std::size_t>(index - offset)] += weight;
}

void QuantileSketch::add(double v, double w) {
  if (!std::isfinite(v) || !positive_finite(w)) return;
  if (m_empty) {
    m_min = m_max = v;
    m_empty = false;
  } else {
    m_min = std::min(m_min, v);
    m_max = std::max(m_max, v);
  }
  if (m_exact)
    add_exact(v, w);
  else
    add_bucket(v, w);
}

void QuantileSketch::add_exact(double v, double w) {
  // Telemetry repeats itself: the entry of the previous value is the likely one.
  if (m_last < m_values.size() && m_values[m_last].first == v) {
    m_values[m_last].second += w;
    return;
  }
  const auto it = std::lower_bound(m_values.begin(), m_values.end(), v,
                                   [](const std::pair<double, double>& e, double x) { return e.first < x; });
  if (it != m_values.end() && it->first == v) {
    it->second += w;
    m_last = static_cast<std::size_t>(it - m_values.begin());
    return;
  }
  if (m_values.size() >= kExactCap) {
    to_buckets();
    add_bucket(v, w);
    return;
  }
  m_last = static_cast<std::size_t>(m_values.insert(it, {v, w}) - m_values.begin());
}

void QuantileSketch::to_buckets() {
  if (!m_exact) return;
  m_exact = false;
  for (const auto& [v, w] : m_values) add_bucket(v, w);
  m_values.clear();
  m_values.shrink_to_fit();
  m_last = 0;
}

void QuantileSketch::add_bucket(double v, double w) {
  if (v > 0)
    m_positive.add(bucket_index(v), w);
  else if (v < 0)
    m_negative.add(bucket_index(-v), w);
  else
    m_zero += w;
}

void QuantileSketch::merge(const QuantileSketch& other) {
  if (other.m_empty) return;
  if (m_empty) {
    *this = other;
    return;
  }
  m_min = std::min(m_min, other.m_min);
  m_max = std::max(m_max, other.m_max);
  if (m_exact && other.m_exact) {
    std::vector<std::pair<double, double>> both;
    both.reserve(m_values.size() + other.m_values.size());
    auto a = m_values.cbegin(), b = other.m_values.cbegin();
    while (a != m_values.cend() || b != other.m_values.cend()) {
      if (b == other.m_values.cend() || (a != m_values.cend() && a->first < b->first)) {
        both.push_back(*a++);
      } else if (a == m_values.cend() || b->first < a->first) {
        both.push_back(*b++);
      } else {
        both.emplace_back(a->first, a->second + b->second);
        ++a;
        ++b;
      }
    }
    m_values = std::move(both);
    m_last = 0;
    if (m_values.size() <= kExactCap) return;
    to_buckets();
    return;
  }
  to_buckets();
  if (other.m_exact) {
    for (const auto& [v, w] : other.m_values) add_bucket(v, w);
    return;
  }
  m_zero += other.m_zero;
  for (const auto& [store, from] :
       {std::pair{&m_positive, &other.m_positive}, std::pair{&m_negative, &other.m_negative}})
    for (std::size_t k = 0; k < from->w.size(); ++k)
      if (from->w[k] > 0) store->add(from->offset + static_cast<std::int32_t>(k), from->w[k]);
}

template <typename F>
void QuantileSketch::for_each_ascending(F&& f) const {
  if (m_exact) {
    for (const auto& [v, w] : m_values)
      if (f(v, w)) return;
    return;
  }
  for (std::size_t k = m_negative.w.size(); k-- > 0;)  // the largest magnitude is the lowest value
    if (m_negative.w[k] > 0 && f(-bucket_value(m_negative.offset + static_cast<std::int32_t>(k)), m_negative.w[k]))
      return;
  if (m_zero > 0 && f(0.0, m_zero)) return;
  for (std::size_t k = 0; k < m_positive.w.size(); ++k)
    if (m_positive.w[k] > 0 && f(bucket_value(m_positive.offset + static_cast<std::int32_t>(k)), m_positive.w[k]))
      return;
}

double QuantileSketch::total_weight() const {
  double total = 0;
  for_each_ascending([&](double, double w) {
    total += w;
    return false;
  });
  return total;
}

double QuantileSketch::clamp(double v) const { return m_exact ? v : std::clamp(v, m_min, m_max); }

double QuantileSketch::value_at(double target, bool strict) const {
  double acc = 0, found = kNaN, last = kNaN;
  for_each_ascending([&](double v, double w) {
    last = v;
    acc += w;
    if (strict ? acc > target : acc >= target) {
      found = v;
      return true;
    }
    return false;
  });
  return clamp(std::isnan(found) ? last : found);  // rounding left the target unreached: the largest
}

std::vector<double> QuantileSketch::quantiles(std::initializer_list<double> qs) const {
  std::vector<double> out;
  out.reserve(qs.size());
  const double total = total_weight();
  for (const double q : qs) out.push_back(m_empty ? kNaN : value_at(q * total * (1 - kTargetTolerance), false));
  return out;
}

double QuantileSketch::median() const {
  if (m_empty) return kNaN;
  const double half = total_weight() / 2;
  return (value_at(half, false) + value_at(half, true)) / 2;
}

QuantileSketch::State QuantileSketch::state() const {
  State s;
  s.exact = m_exact;
  if (m_exact) {
    s.values = m_values;
    return s;
  }
  s.min = m_min;
  s.max = m_max;
  s.zero = m_zero;
  for (const auto& [store, out] : {std::pair{&m_positive, &s.positive}, std::pair{&m_negative, &s.negative}})
    for (std::size_t k = 0; k < store->w.size(); ++k)
      if (store->w[k] > 0) out->emplace_back(store->offset + static_cast<std::int32_t>(k), store->w[k]);
  return s;
}

namespace {

Error invalid(const std::string& what, std::string_view why) {
  return make_error(ErrorKind::schema, fmt::format("{}: {}", what, why),
                    "the document was not written by `gpucost extract` or was edited: re-run extract");
}

Status check_buckets(const std::vector<std::pair<std::int32_t, double>>& buckets, const std::string& what,
                     double& total) {
  static const std::int32_t lowest = QuantileSketch::bucket_index(std::numeric_limits<double>::denorm_min());
  static const std::int32_t highest = QuantileSketch::bucket_index(std::numeric_limits<double>::max());
  for (std::size_t k = 0; k < buckets.size(); ++k) {
    const auto [index, w] = buckets[k];
    if (index < lowest || index > highest)
      return invalid(what,
                     fmt::format("bucket index {} is outside the range of doubles ({} .. {})", index, lowest, highest));
    if (k > 0 && index <= buckets[k - 1].first) return invalid(what, "bucket indices are not strictly ascending");
    if (!positive_finite(w)) return invalid(what, "a bucket weight is not a positive number");
    total += w;
  }
  if (!buckets.empty() && buckets.back().first - buckets.front().first >= QuantileSketch::kMaxBuckets)
    return invalid(what, fmt::format("the buckets span more than {} indices", QuantileSketch::kMaxBuckets));
  return {};
}

}  // namespace

Expected<QuantileSketch> QuantileSketch::from_state(const State& s, const std::string& what) {
  QuantileSketch out;
  double total = 0;
  if (s.exact) {
    if (s.values.size() > kExactCap)
      return invalid(what, fmt::format("{} exact values, more than {}", s.values.size(), kExactCap));
    for (std::size_t k = 0; k < s.values.size(); ++k) {
      const auto [v, w] = s.values[k];
      if (!std::isfinite(v)) return invalid(what, "a value is not a finite number");
      if (k > 0 && !(v > s.values[k - 1].first)) return invalid(what, "values are not strictly ascending");
      if (!positive_finite(w)) return invalid(what, "a weight is not a positive number");
      total += w;
    }
    out.m_values = s.values;
    out.m_empty = s.values.empty();
    if (!out.m_empty) {
      out.m_min = s.values.front().first;
      out.m_max = s.values.back().first;
    }
  } else {
    GPUCOST_TRY(check_buckets(s.positive, what, total));
    GPUCOST_TRY(check_buckets(s.negative, what, total));
    if (!(s.zero >= 0) || !std::isfinite(s.zero)) return invalid(what, "the weight of zeros is not a number >= 0");
    total += s.zero;
    if (!(total > 0)) return invalid(what, "the buckets hold no weight");
    if (!std::isfinite(s.min) || !std::isfinite(s.max) || s.min > s.max)
      return invalid(what, "min and max are not finite numbers with min <= max");
    if ((!s.negative.empty() && !(s.min < 0)) || (!s.positive.empty() && !(s.max > 0)) ||
        (s.zero > 0 && !(s.min <= 0 && s.max >= 0)))
      return invalid(what, "min and max do not cover the buckets' signs");
    out.m_exact = false;
    out.m_empty = false;
    out.m_min = s.min;
    out.m_max = s.max;
    out.m_zero = s.zero;
    for (const auto& [index, w] : s.positive) out.m_positive.add(index, w);
    for (const auto& [index, w] : s.negative) out.m_negative.add(index, w);
  }
  if (!(total <= kMaxTotalWeight)) return invalid(what, fmt::format("the total weight exceeds {:g}", kMaxTotalWeight));
  return out;
}

}  // namespace gpucost::extract::detail

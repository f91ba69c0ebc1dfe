// A mergeable weighted quantile sketch (docs/indicators.md, Merging): exact while the values are
// few, then logarithmic buckets of bounded relative error (DDSketch, Masson et al., VLDB 2019).
// Its size is bounded whatever the number of samples, and two sketches merge into the sketch of
// the union of their values, whatever the order.
#pragma once

#include <gpucost/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::extract::detail {

class QuantileSketch {
 public:
  /// Distinct values kept exactly; one more turns the sketch into buckets.
  static constexpr std::size_t kExactCap = 2048;
  /// Relative accuracy of a bucket: the value returned is within kAlpha x |v| of a value v of it.
  static constexpr double kAlpha = 0.005;
  /// Buckets per sign at most (an index span; 4096 buckets cover 17 decades). Beyond, the
  /// buckets of the smallest magnitudes fold into the smallest one kept.
  static constexpr std::int32_t kMaxBuckets = 4096;
  /// The largest total weight a sketch may carry (read_state refuses more): 3 x 10^7 years in
  /// seconds, and far below where summing doubles loses whole units.
  static constexpr double kMaxTotalWeight = 1e15;

  /// Adds v with weight w; a non-finite v or a weight that is not positive and finite is ignored.
  void add(double v, double w = 1.0);
  /// Adds the values of `other`: exact when both are and their union has at most kExactCap
  /// distinct values, else buckets.
  void merge(const QuantileSketch& other);
  void clear() { *this = QuantileSketch(); }

  [[nodiscard]] bool empty() const { return m_empty; }
  [[nodiscard]] bool exact() const { return m_exact; }
  [[nodiscard]] double total_weight() const;
  [[nodiscard]] double min() const { return m_min; }
  [[nodiscard]] double max() const { return m_max; }

  /// For each q of `qs` (ascending): the smallest value v such that the values <= v hold at least
  /// q of the total weight, with a relative tolerance of 1e-12 on the target (so that 19 s of 20
  /// s reaches q = 0.95 despite rounding). Exact in exact mode; in bucket mode the representative
  /// of the bucket that holds that value, within kAlpha relatively and clamped to [min, max].
  /// NaN each when empty.
  [[nodiscard]] std::vector<double> quantiles(std::initializer_list<double> qs) const;
  /// The mean of the lower and upper median (the smallest values whose cumulative weight reaches,
  /// and exceeds, half the total): with unit weights the usual median, the mean of the two
  /// middle values for an even count. In bucket mode each of the two is a bucket's value (within
  /// kAlpha). NaN when empty.
  [[nodiscard]] double median() const;

  /// The sketch as plain data, for the features document: exact (value, weight) pairs in
  /// ascending value order, or the buckets (index, weight) in ascending index order per sign.
  struct State {
    bool exact = true;
    std::vector<std::pair<double, double>> values;                    ///< exact mode
    double min = 0, max = 0, zero = 0;                                ///< bucket mode: extremes, weight of the zeros
    std::vector<std::pair<std::int32_t, double>> positive, negative;  ///< bucket mode, by |v|
  };
  [[nodiscard]] State state() const;
  /// Rebuilds a sketch from a State, validating it (sorted and finite, weights positive, bucket
  /// indices within the range of doubles and within kMaxBuckets, total <= kMaxTotalWeight);
  /// `what` names it in the error.
  static Expected<QuantileSketch> from_state(const State& s, const std::string& what);

  /// The bucket index of |v| > 0: ceil(log|v| / log gamma), gamma = (1 + kAlpha) / (1 - kAlpha).
  static std::int32_t bucket_index(double magnitude);
  /// The value a bucket stands for: 2 gamma^i / (gamma + 1).
  static double bucket_value(std::int32_t index);

 private:
  /// Weights of consecutive bucket indices, for one sign (dense: telemetry spans few decades).
  struct Store {
    std::int32_t offset = 0;  ///< index of w[0]
    std::vector<double> w;
    void add(std::int32_t index, double weight);
    [[nodiscard]] std::int32_t top() const { return offset + static_cast<std::int32_t>(w.size()) - 1; }
  };

  void add_exact(double v, double w);
  void to_buckets();
  void add_bucket(double v, double w);
  /// Calls f(value, weight) for every entry in ascending value order; stops when f returns true.
  template <typename F>
  void for_each_ascending(F&& f) const;
  /// The smallest value whose cumulative weight reaches `target` (or exceeds it when `strict`).
  [[nodiscard]] double value_at(double target, bool strict) const;
  [[nodiscard]] double clamp(double v) const;

  bool m_empty = true;
  bool m_exact = true;
  double m_min = 0, m_max = 0;
  std::vector<std::pair<double, double>> m_values;  // exact mode: (value, weight), ascending
  std::size_t m_last = 0;                           // exact mode: the entry last added to
  Store m_positive, m_negative;                     // bucket mode
  double m_zero = 0;                                // bucket mode: weight of the zeros
};

}  // namespace gpucost::extract::detail

#include <gpucost/breakeven/crossings.hpp>

#include <algorithm>
#include <cmath>

namespace gpucost::breakeven {

namespace {

// Counts of billing increments within 1e-9 (relative) of a whole number are that number. W
// arrives in hours (wall_s / 3600), so q x W x 3600 may land a rounding error above a whole
// count: a 57 s job gives 57.000000000000007 s, which a bare ceil() would bill as 58 s.
bool near_whole(double n, double nearest) { return std::fabs(n - nearest) <= 1e-9 * std::max(1.0, std::fabs(nearest)); }

double ceil_increments(double n) {
  const double nearest = std::round(n);
  return near_whole(n, nearest) ? nearest : std::ceil(n);
}

double floor_increments(double n) {
  const double nearest = std::round(n);
  return near_whole(n, nearest) ? nearest : std::floor(n);
}

// The job lengths where the local side is beaten (c_L T > factor x C_C(T)), as ascending
// intervals (lo, hi]; touching intervals are joined.
class BeatenSet {
 public:
  static constexpr double kNoEnd = -1;

  void add(double lo, double hi) {
    if (hi != kNoEnd && !(lo < hi)) return;
    if (!spans_.empty() && spans_.back().hi != kNoEnd && lo <= spans_.back().hi) {
      spans_.back().hi = hi;
      return;
    }
    spans_.push_back({lo, hi});
  }
  void omit(std::size_t n) { omitted_ += n; }

  [[nodiscard]] Crossings crossings() const {
    Crossings out;
    out.omitted = omitted_;
    for (const Span& s : spans_) {
      out.points.push_back({s.lo, true});
      if (s.hi != kNoEnd) out.points.push_back({s.hi, false});
    }
    return out;
  }

 private:
  struct Span {
    double lo, hi;
  };
  std::vector<Span> spans_;
  std::size_t omitted_ = 0;
};

class Solver {
 public:
  Solver(double local_per_hour, const Billing& billing, double factor)
      : c_L_(local_per_hour), b_(billing), a_(factor) {}

  [[nodiscard]] Crossings solve() {
    if (!(c_L_ > 0) || !(b_.q > 0) || !(a_ > 0)) return {};  // a free local side is never beaten
    if (b_.increment_s <= 1.0) {
      minimum_zone(b_.minimum_s);
      continuous_beyond_minimum();
    } else {
      minimum_zone(floor_increments(b_.minimum_s / b_.increment_s) * b_.increment_s);
      steps_beyond_minimum();
    }
    return set_.crossings();
  }

 private:
  // T (hours) at which the job's billable seconds q T 3600 + cold start reach x.
  [[nodiscard]] double hours_at(double x) const { return (x - b_.cold_start_s) / (b_.q * 3600.0); }
  // T at which the local cost reaches factor x `cloud`.
  [[nodiscard]] double threshold(double cloud) const { return a_ * cloud / c_L_; }
  [[nodiscard]] double cost_of(double billed_s) const { return b_.rate_per_hour * billed_s / 3600.0 + b_.fixed; }

  // Up to billable seconds `zone_end_x` the cloud bills the minimum: one flat cost.
  void minimum_zone(double zone_end_x) {
    if (!(zone_end_x > b_.cold_start_s)) return;
    zone_end_h_ = hours_at(zone_end_x);
    set_.add(std::max(0.0, threshold(cost_of(b_.minimum_s))), zone_end_h_);
  }

  // Increments of 1 s or less: C_C = rate x q x T + k past the minimum, the closed forms.
  void continuous_beyond_minimum() {
    const double k = b_.rate_per_hour * b_.cold_start_s / 3600.0 + b_.fixed;
    const double denom = c_L_ - a_ * b_.rate_per_hour * b_.q;
    if (denom > 0) set_.add(std::max(zone_end_h_, a_ * k / denom), BeatenSet::kNoEnd);
  }

  // Step n bills n increments over billable seconds ((n - 1) i, n i]: flat cost C_n, so the
  // local side is beaten in (max(start, t_n), T_n] with t_n = factor C_n / c_L. The gap
  // g(n) = T_n - t_n is linear in n with slope i (1/q - factor rate / c_L) / 3600: when that is
  // not positive no step past the minimum is beaten (at a step's end the cloud bills exactly its
  // line rate q T + k >= c_L T / factor); when it is, the steps with 0 < g(n) < L (the step's
  // length) are beaten in part and every later step in whole, so only those are walked.
  void steps_beyond_minimum() {
    const double i = b_.increment_s;
    const double slope = i * (1.0 / b_.q - a_ * b_.rate_per_hour / c_L_) / 3600.0;
    if (!(slope > 0)) return;
    const double kappa = b_.cold_start_s / (b_.q * 3600.0) + a_ * b_.fixed / c_L_;
    const double step_h = i / (b_.q * 3600.0);
    const double first = std::max(floor_increments(b_.minimum_s / i), floor_increments(b_.cold_start_s / i)) + 1;
    // One step of slack on each side absorbs the rounding of n_lo and n_full.
    const double n_lo = std::max(first, std::floor(kappa / slope));
    const double n_full = std::max(first, std::ceil((kappa + step_h) / slope));
    if (!std::isfinite(n_full)) return;  // a slope below what doubles resolve: no length to report
    const double count = n_full - n_lo + 1;
    if (count <= static_cast<double>(kMaxFlipSteps)) {
      walk(n_lo, static_cast<std::size_t>(count));
    } else {
      const std::size_t half = kMaxFlipSteps / 2;
      walk(n_lo, half);
      walk(n_full - static_cast<double>(half) + 1, half);
      // Each skipped step is beaten in part: a crossing in and one out.
      set_.omit(2 * static_cast<std::size_t>(std::min(count - static_cast<double>(2 * half), 1e15)));
    }
    set_.add(hours_at(n_full * i), BeatenSet::kNoEnd);  // every later step is beaten whole
  }

  // `steps` steps from step n: each is beaten from max(its start, t_n) to its end T_n.
  void walk(double n, std::size_t steps) {
    const double i = b_.increment_s;
    for (std::size_t k = 0; k < steps; ++k, n += 1) {
      const double start = std::max(0.0, hours_at((n - 1) * i));
      set_.add(std::max(start, threshold(cost_of(n * i))), hours_at(n * i));
    }
  }

  double c_L_;
  Billing b_;
  double a_;
  double zone_end_h_ = 0;
  BeatenSet set_;
};

}  // namespace

Billing billing_of(const CostConfig& c, double q) {
  return Billing{c.rate_per_hour, q, c.cold_start_s, c.billing_increment_s, c.billing_minimum_s, c.fixed_per_job};
}

double billed_seconds(const Billing& b, double job_hours) {
  const double raw_s = b.q * job_hours * 3600.0 + b.cold_start_s;
  return std::max(b.minimum_s, ceil_increments(raw_s / b.increment_s) * b.increment_s);
}

double cloud_cost(const Billing& b, double job_hours) {
  return b.rate_per_hour * billed_seconds(b, job_hours) / 3600.0 + b.fixed;
}

Crossings solve_crossings(double local_per_hour, const Billing& billing, double factor) {
  return Solver(local_per_hour, billing, factor).solve();
}

std::vector<Stretch> local_side_stretches(const Crossings& c) {
  std::vector<Stretch> out;
  if (c.points.empty() || c.points.front().hours > 0) out.push_back({0, -1});
  for (const Crossing& p : c.points) {
    if (p.local_cheaper_below) {
      if (!out.empty() && out.back().to < 0) out.back().to = p.hours;
    } else {
      out.push_back({p.hours, -1});
    }
  }
  return out;
}

}  // namespace gpucost::breakeven

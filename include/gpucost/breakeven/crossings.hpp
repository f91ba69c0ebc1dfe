// The cloud's billing of one job, and the job lengths at which the local cost crosses it
// (T* and T_λ). Method and its termination: docs/cost-model.md, "Break-even job length T*".
#pragma once

#include <gpucost/breakeven/config.hpp>

#include <cstddef>
#include <vector>

namespace gpucost::breakeven {

/// What the cloud bills for a job of the kind priced: the offer's terms and the billed share q.
struct Billing {
  double rate_per_hour = 0;  ///< currency per billed hour
  double q = 1;              ///< billed share of the job's wall time, > 0
  double cold_start_s = 0;
  double increment_s = 1;
  double minimum_s = 0;
  double fixed = 0;  ///< fixed_per_job, currency
};
Billing billing_of(const CostConfig& config, double q);

/// Seconds billed for a job of `job_hours`: max(minimum, ceil((q T 3600 + cold start) / increment)
/// x increment), a count within 1e-9 (relative) of a whole number taken as that number.
double billed_seconds(const Billing& billing, double job_hours);
/// rate x billed_seconds / 3600 + fixed.
double cloud_cost(const Billing& billing, double job_hours);

/// A job length where the sign of c_L T - factor x C_C(T) changes.
struct Crossing {
  double hours = 0;
  /// true: local is cheaper (below factor x cloud) for jobs just shorter, dearer just longer;
  /// false: the reverse.
  bool local_cheaper_below = true;
};

struct Crossings {
  std::vector<Crossing> points;  ///< ascending; points alternate in direction, the first has local_cheaper_below
  /// Crossings left out of `points` in the middle of a long run of rounding flips (an even number,
  /// so the directions still alternate); 0 when every crossing is listed.
  std::size_t omitted = 0;
};

/// At most this many steps of a run of rounding flips are listed (half at each end of the run).
inline constexpr std::size_t kMaxFlipSteps = 64;

/// Every job length T > 0 at which local_per_hour x T - factor x cloud_cost(billing, T) changes
/// sign (factor 1: T*, 1 + line: T_λ), solved on the same billing function as the premium. With
/// an increment of 1 s or less the rounding to increments is left out (it moves a crossing by less
/// than a billed second): the closed forms. A cloud that is dearer from T = 0 on gives a crossing at 0.
Crossings solve_crossings(double local_per_hour, const Billing& billing, double factor);

/// The stretches of job length on the local side of the crossings (local cheaper, or premium
/// below the line): [from, to), `to` < 0 for no end.
struct Stretch {
  double from = 0, to = -1;
};
std::vector<Stretch> local_side_stretches(const Crossings& crossings);

}  // namespace gpucost::breakeven

// `gpucost trace -c/--cloud`: one run's training step priced by its length (docs/cost-model.md,
// "Cost per step"), the same pricing as each side of `trace --diff`.
#pragma once

#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/report/trace_report.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::io {
class JsonWriter;
}

namespace gpucost::report {

/// The priced step of the traces one `gpucost trace` read; `config` also prices any other span
/// of them (breakeven::step_cost over that span's seconds).
struct TracePrice {
  const breakeven::CostConfig* config = nullptr;
  std::int64_t steps = 0;                       ///< distinct steps timed (0: no ProfilerStep marks)
  std::optional<double> step_ns;                ///< mean over the steps of the longest rank's step
  double busy_share = 1;                        ///< Σ busy / Σ span over the traces' GPUs (1 when unknown)
  std::optional<breakeven::StepCost> step;      ///< empty without step marks
  std::optional<std::int64_t> steps_per_epoch;  ///< --steps-per-epoch: prices the regions per epoch
};

/// The step of `events` priced with `config` (which must outlive the result); `steps`: --steps.
TracePrice price_traces(const std::vector<TraceEventCopy>& events, const breakeven::CostConfig& config,
                        std::optional<std::pair<std::int64_t, std::int64_t>> steps);

/// "cost per step (cloud: ...)" lines for the table.
std::string trace_price_text(const TracePrice& p);
/// The `cost_per_step` member of `gpucost trace --json` (null without step marks).
void trace_price_json(io::JsonWriter& w, const TracePrice& p);

}  // namespace gpucost::report

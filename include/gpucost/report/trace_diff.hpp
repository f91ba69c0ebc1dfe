// `gpucost trace --diff A B`: two runs' profiler traces side by side (docs/formats.md, "Two runs
// side by side"). Each side is one trace or the ranks of a job; its figures come from the same
// trace_* events the trace table reads, so raw traces and prep'd streams compare alike.
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/extract/trace_jobs.hpp>
#include <gpucost/report/trace_report.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::report {

/// What one side read: its trace events, the jobs its ranks form and its inputs' fingerprint.
struct TraceRun {
  std::string label;  ///< the argument that named the side
  std::vector<TraceEventCopy> events;
  std::vector<extract::TraceJob> jobs;
  Fingerprint fingerprint;
};

/// A kernel's time on one side, summed over its traces and GPUs.
struct KernelTime {
  std::string name, cls;
  double total_ns = 0, count = 0;
};

/// A CPU operator's (or runtime call's) calls and inclusive time on one side, over its traces.
struct OperatorTime {
  std::string name, kind;  ///< kind: cpu_op, runtime or annotation
  double total_ns = 0, calls = 0;
};

/// One side's figures, totals over its traces. The comparison divides the totals by units: the
/// steps analysed (summed over the ranks) when both sides have ProfilerStep marks, else the traces.
struct RunFigures {
  std::string label;
  std::size_t traces = 0;
  std::vector<int> ranks;  ///< the traces' ranks, ascending (absent ranks not listed)
  int world_size = -1;
  double step_units = 0;                               ///< Σ analysed steps over the traces; 0 when a trace has none
  std::int64_t steps = 0;                              ///< distinct steps timed
  std::optional<double> step_ns;                       ///< mean over the steps of the longest rank's step
  std::optional<double> busy_share;                    ///< Σ busy / Σ span over the traces' GPUs
  std::optional<double> launch_p50_ns, launch_p95_ns;  ///< the trace's; with several, their median
  double compute_ns = 0, communication_ns = 0, memory_ns = 0;  ///< kernel time by class, totals
  std::optional<double> exposed_comm_fraction;  ///< Σ exposed / Σ span of the traces' trace_comm (0: no comm)
  std::optional<double> wait_fraction;          ///< of the jobs of two ranks or more
  std::vector<KernelTime> kernels;              ///< every kernel the events list, by name
  std::vector<OperatorTime> operators;          ///< every CPU operator, runtime call, annotation (trace_op)
  Fingerprint fingerprint;
  std::vector<std::string> notes;
  /// The events carried trace_op (raw traces do; prep'd streams may not).
  [[nodiscard]] bool has_operators() const { return !operators.empty(); }
  /// The units totals are divided by: steps when `per_step`, else traces.
  [[nodiscard]] double units(bool per_step) const { return per_step ? step_units : static_cast<double>(traces); }
};

/// `steps`: --steps, whose step marks alone are timed.
RunFigures run_figures(const TraceRun& run, std::optional<std::pair<std::int64_t, std::int64_t>> steps);

/// Whether the two sides compare per step (both have step marks) or per trace.
bool compare_per_step(const RunFigures& a, const RunFigures& b);

/// A kernel's time per unit on each side.
struct KernelChange {
  std::string name, cls;
  double a_ns = 0, b_ns = 0;
  [[nodiscard]] double change_ns() const { return b_ns - a_ns; }
};

/// The kernels whose time per unit changed most (by |B − A|, then name), at most `top`.
std::vector<KernelChange> top_changed_kernels(const RunFigures& a, const RunFigures& b, std::size_t top);

/// A CPU operator's calls and time per unit on each side (0 calls: absent there).
struct OperatorChange {
  std::string name, kind;
  double a_calls = 0, b_calls = 0, a_ns = 0, b_ns = 0;
  [[nodiscard]] double change_ns() const { return b_ns - a_ns; }
  /// "new", "gone", "slower" / "faster" (time per call changed by more than kOperatorChangeShare),
  /// else "more calls" / "fewer calls", else "same".
  [[nodiscard]] std::string_view verdict() const;
};
/// An operator is slower or faster when its time per call changed by more than this share.
inline constexpr double kOperatorChangeShare = 0.05;

/// Every operator of either side, by |B − A| time per unit, then kind and name.
std::vector<OperatorChange> operator_changes(const RunFigures& a, const RunFigures& b);

/// The comparison as a table for people; `config` prices a step on each side; `wide`: kernel
/// names are not cut.
std::string trace_diff_table(const RunFigures& a, const RunFigures& b, std::size_t top,
                             const breakeven::CostConfig* config, bool wide = false);
/// The same as JSON (docs/formats.md, "Two runs side by side").
std::string trace_diff_json(const RunFigures& a, const RunFigures& b, std::size_t top,
                            const breakeven::CostConfig* config);

}  // namespace gpucost::report

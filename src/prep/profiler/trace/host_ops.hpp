// The CPU side of a trace by operator (`trace --diff`'s operator comparison): calls and inclusive
// time per operator name, within the chosen steps.
#pragma once

#include "trace.hpp"

#include <optional>
#include <vector>

namespace gpucost::prep::trace {

/// Every operator name of `data.host_ops` (cpu_op records, runtime calls, annotations), each by total
/// time descending (then name); with `steps` given only the calls starting inside one of them.
/// Times are inclusive: an operator's time holds the operators it called.
std::vector<OperatorRow> operator_table(const TraceData& data, const std::optional<std::vector<StepMark>>& steps);

}  // namespace gpucost::prep::trace

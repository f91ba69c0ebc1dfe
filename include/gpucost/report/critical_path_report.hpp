// `gpucost trace --critical-path`: the trace_critical_path / trace_critical_op events of one
// trace as lines of the table (docs/formats.md, "Critical path").
#pragma once

#include <gpucost/report/trace_price.hpp>
#include <gpucost/report/trace_report.hpp>

#include <string>
#include <vector>

namespace gpucost::report {

/// The critical path rows of the trace whose events are events[from, to); nothing without them.
/// With `price` (-c/--cloud), each window's cost and the cost of its launch overhead on the path.
void critical_path_rows(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to, bool wide,
                        const TracePrice* price, std::string& b);

/// A window's path time that is launch overhead: its launch calls (CPU) and launch delays, ns.
double launch_overhead_ns(const TraceEventCopy& path);

/// The `cost` member of a critical_path item of --json: the window and its launch overhead priced.
void critical_path_cost_json(io::JsonWriter& w, const TraceEventCopy& path, const TracePrice& price);

}  // namespace gpucost::report

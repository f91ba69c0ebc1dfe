// `gpucost trace --critical-path`: the trace_critical_path / trace_critical_op events of one
// trace as lines of the table (docs/formats.md, "Critical path").
#pragma once

#include <gpucost/report/trace_report.hpp>

#include <string>
#include <vector>

namespace gpucost::report {

/// The critical path rows of the trace whose events are events[from, to); nothing without them.
void critical_path_rows(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to, bool wide,
                        std::string& b);

}  // namespace gpucost::report

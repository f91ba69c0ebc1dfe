// --critical-path: the critical path of each ProfilerStep (within --steps), else of the whole
// trace, as trace_critical_path and trace_critical_op events (docs/formats.md, "Critical path").
#pragma once

#include "prep/line_parser.hpp"
#include "trace.hpp"

#include <functional>

namespace gpucost::prep {

/// `at` puts a trace time on the events' clock.
void emit_critical_paths(const trace::TraceData& data, const std::function<std::int64_t(std::int64_t)>& at,
                         ParseContext& ctx);

}  // namespace gpucost::prep

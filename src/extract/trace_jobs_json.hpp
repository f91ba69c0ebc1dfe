// The features document's "trace_jobs": the jobs the profiler traces' ranks form (docs/formats.md,
// "A job of ranks"; docs/indicators.md, "Trace jobs").
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/extract/trace_jobs.hpp>

#include <simdjson.h>

#include <string>
#include <vector>

namespace gpucost::extract::detail {

/// ",\n  \"trace_jobs\": [...]"; nothing when there is none.
void write_trace_jobs(std::string& b, const std::vector<extract::TraceJob>& jobs);
/// Reads "trace_jobs" (absent: none).
Status read_trace_jobs(simdjson::dom::element doc, std::vector<extract::TraceJob>& out, const std::string& path);

}  // namespace gpucost::extract::detail

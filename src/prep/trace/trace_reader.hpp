// What the trace reader offers its unit tests besides the public read_trace().
#pragma once

#include <gpucost/prep/trace.hpp>

#include <cstddef>
#include <string_view>

namespace gpucost::prep::trace {

/// read_trace() over text in memory; a small `chunk_bytes` exercises the chunk boundaries.
TraceData read_trace_text(std::string_view text, std::size_t chunk_bytes = kTraceChunkBytes);

}  // namespace gpucost::prep::trace

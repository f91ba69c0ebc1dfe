// `gpucost trace`: a GPU's memory from the trace's `[memory]` instants (docs/formats.md, "GPU memory
// from [memory] events"), as lines of the table and members of the JSON.
#pragma once

#include <gpucost/report/trace_report.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::io {
class JsonWriter;
}

namespace gpucost::report {

/// Bytes in binary units as breakeven states memory: "812 B", "34.0 KiB", "6.17 GiB".
std::string human_bytes_binary(double bytes);

/// A memory total over time as one character per 3 bins: ' ' for 0, then '.:-=+*#%' by eighths of `peak`.
std::string memory_sparkline(std::string_view bins, std::int64_t peak);

/// The table's lines of GPU `d`'s memory: its trace_device's mem_* fields and its trace_step_memory
/// events among events[from, to); nothing when the trace has no memory events for it.
void gpu_memory_rows(const TraceEventCopy& d, const std::vector<TraceEventCopy>& events, std::size_t from,
                     std::size_t to, std::string& b);

}  // namespace gpucost::report

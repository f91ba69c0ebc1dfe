// `gpucost trace`: the annotated regions of each trace (trace_region events, docs/formats.md
// "Annotated regions") as a table and as the `regions` array of --json, priced per step and
// per epoch when the step is priced (-c/--cloud).
#pragma once

#include <gpucost/report/trace_report.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace gpucost::io {
class JsonWriter;
}

namespace gpucost::report {

struct TracePrice;  // trace_price.hpp

/// Rows the table shows per trace (--json has every region).
inline constexpr std::size_t kRegionRows = 24;

/// The "regions" block of the trace whose events are [from, to); empty when it has none.
std::string trace_regions_text(const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to, bool wide,
                               const TracePrice* price);
/// `"regions":[...]` of that trace: each trace_region's fields, and its `cost` when priced.
void trace_regions_json(io::JsonWriter& w, const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to,
                        const TracePrice* price);

}  // namespace gpucost::report

// Renders breakeven --by: the job's cost by process, user or cgroup, and the idle holders.
#pragma once

#include <gpucost/breakeven/attribution.hpp>

#include <gpucost/io/json_out.hpp>

#include <string>

namespace gpucost::report {

/// The block the table prints after the per-unit costs (docs/cost-model.md, "Cost by process,
/// user or cgroup").
std::string attribution_table(const breakeven::Attribution& a, const std::string& currency);
/// The JSON member `"attribution": {...}` on a line of its own, in `w`'s open object.
void attribution_json(io::JsonWriter& w, const breakeven::Attribution& a, const std::string& currency);

}  // namespace gpucost::report

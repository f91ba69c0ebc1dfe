// The --query-gpu properties gpucost maps to event metrics, with the aliases nvidia-smi
// accepts (--help-query-gpu) and their units. Internal to prep.
#pragma once

#include <gpucost/core/event.hpp>

#include <string_view>

namespace gpucost::prep {

enum class QueryRole { timestamp, index, bus_id, uuid, name, text, metric, pstate, hex_mask, other };

struct QueryField {
  std::string_view name;     ///< canonical property name, as printed in the CSV header
  std::string_view aliases;  ///< other names accepted by --query-gpu, comma-separated
  std::string_view unit;     ///< unit of the values ("" when unitless)
  QueryRole role = QueryRole::other;
  Metric metric = Metric::count_;
  int priority = 0;  ///< when several properties feed one metric, the lowest wins
};

/// Looks a property up by canonical name or alias (case-sensitive, as nvidia-smi).
const QueryField* find_query_field(std::string_view name);
/// Number of properties in the table (data/nvidia-smi-query-gpu-fields.tsv).
std::size_t query_field_count();

}  // namespace gpucost::prep

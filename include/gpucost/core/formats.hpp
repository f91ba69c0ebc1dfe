// The formats' table as every stage may know it: names, aliases and traits of each Format
// (input_stats.hpp). How each is detected and parsed is prep's (src/prep/formats.hpp: the
// parser of each row); the summary, extract and init read only this.
#pragma once

#include <gpucost/core/input_stats.hpp>

#include <array>
#include <span>
#include <string>
#include <string_view>

namespace gpucost {

/// What an input of a format holds.
struct FormatTraits {
  bool telemetry = false;        ///< GPU samples at a fixed interval: a clock step back or an hour's gap is an anomaly
  bool host_log = false;         ///< the host's kernel or system log, checked against the telemetry's span
  bool host_log_inside = false;  ///< holds host log lines (a host log, or a bug report's sections)
  bool year_less = false;        ///< stamps without a year: read after the telemetry and dated against it
  bool profiler = false;         ///< profiler output: the GPUs it names are those of the profiled run
  bool whole_document = false;   ///< read whole, in one step, not line by line (a trace)
};

/// One row of the format table (src/core/formats.cpp).
struct FormatInfo {
  Format format;
  std::string_view name;                    ///< for --input-format and the summary
  std::array<std::string_view, 3> aliases;  ///< other names --input-format accepts
  FormatTraits traits;
};

/// Every format, in the order format_names() lists them.
std::span<const FormatInfo> format_infos();
/// The row of `f` in a table of the formats (core's, prep's parsers); nullptr when it has none.
template <class Row>
const Row* find_format_row(std::span<const Row> rows, Format f) {
  for (const Row& row : rows)
    if (row.format == f) return &row;
  return nullptr;
}
/// The row of `f`; nullptr for Format::unknown.
const FormatInfo* format_info(Format f);

/// "dmon", "query-csv", ...; "unknown" for Format::unknown.
std::string_view format_name(Format f);
/// "dmon", "pmon", "query-csv" (also "query_csv", "csv"); false when unknown.
bool format_from_name(std::string_view name, Format& out);
/// Names accepted by --input-format, for help text and hints.
std::string format_names();
/// All false for Format::unknown.
FormatTraits format_traits(Format f);

}  // namespace gpucost

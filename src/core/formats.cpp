// The format table (core/formats.hpp): one row per input format. Adding a format is a row here,
// its parser in prep's table (src/prep/formats.cpp) and its detector (src/prep/detect.cpp).
#include <gpucost/core/formats.hpp>

namespace gpucost {

namespace {

constexpr FormatTraits kTelemetry{.telemetry = true};
constexpr FormatTraits kHostLog{.host_log = true, .host_log_inside = true};
constexpr FormatTraits kYearLessHostLog{.host_log = true, .host_log_inside = true, .year_less = true};
constexpr FormatTraits kProfiler{.profiler = true};

constexpr FormatInfo kFormats[] = {
    {Format::dmon, "dmon", {}, kTelemetry},
    {Format::pmon, "pmon", {}, kTelemetry},
    {Format::query_csv, "query-csv", {"query_csv", "csv"}, kTelemetry},
    {Format::journal_json, "journal-json", {}, kHostLog},
    {Format::dcgmi, "dcgmi", {}, kTelemetry},
    {Format::smi_q, "smi-q", {}, kTelemetry},
    {Format::smi_xml, "smi-xml", {}, kTelemetry},
    {Format::syslog, "syslog", {}, kYearLessHostLog},
    {Format::dmesg, "dmesg", {}, kHostLog},
    {Format::journal_text, "journal-text", {}, kYearLessHostLog},
    // Sections of the formats above, each read by its own parser; the report as a whole is
    // neither, but it holds the host's kernel log.
    {Format::bug_report, "bug-report", {}, {.host_log_inside = true}},
    {Format::kineto, "kineto-trace", {"trace", "kineto", "chrome-trace"}, {.profiler = true, .whole_document = true}},
    {Format::torch_table, "torch-table", {"torch_table"}, kProfiler},
    {Format::nsys, "nsys", {}, kProfiler},
    {Format::trainlog, "trainlog", {}, {}},
    {Format::prometheus_json, "prometheus-json", {"prometheus"}, {.telemetry = true, .whole_document = true}},
    {Format::sacct, "sacct", {"slurm"}, {}},
    {Format::exposition, "exposition", {"metrics", "openmetrics"}, kTelemetry},
};

bool named(const FormatInfo& row, std::string_view name) {
  if (row.name == name) return true;
  for (const std::string_view alias : row.aliases)
    if (!alias.empty() && alias == name) return true;
  return false;
}

}  // namespace

std::span<const FormatInfo> format_infos() { return kFormats; }

const FormatInfo* format_info(Format f) { return find_format_row(format_infos(), f); }

std::string_view format_name(Format f) {
  const FormatInfo* row = format_info(f);
  return row != nullptr ? row->name : "unknown";
}

bool format_from_name(std::string_view name, Format& out) {
  for (const auto& row : kFormats) {
    if (named(row, name)) {
      out = row.format;
      return true;
    }
  }
  return false;
}

std::string format_names() {
  std::string out;
  for (const auto& row : kFormats) {
    if (!out.empty()) out += ", ";
    out += row.name;
  }
  return out;
}

FormatTraits format_traits(Format f) {
  const FormatInfo* row = format_info(f);
  return row != nullptr ? row->traits : FormatTraits{};
}

}  // namespace gpucost

// The format table (formats.hpp) and the name functions of prep.hpp that read it.
#include "formats.hpp"

namespace gpucost::prep {

namespace {

constexpr FormatTraits kTelemetry{.telemetry = true};
constexpr FormatTraits kHostLog{.host_log = true, .host_log_inside = true};
constexpr FormatTraits kYearLessHostLog{.host_log = true, .host_log_inside = true, .year_less = true};
constexpr FormatTraits kProfiler{.profiler = true};

constexpr FormatRow kFormats[] = {
    {Format::dmon, "dmon", {}, kTelemetry, make_dmon_parser},
    {Format::pmon, "pmon", {}, kTelemetry, make_pmon_parser},
    {Format::query_csv, "query-csv", {"query_csv", "csv"}, kTelemetry, make_query_csv_parser},
    {Format::journal_json, "journal-json", {}, kHostLog, make_journal_json_parser},
    {Format::dcgmi, "dcgmi", {}, kTelemetry, make_dcgmi_parser},
    {Format::smi_q, "smi-q", {}, kTelemetry, make_smi_q_parser},
    {Format::smi_xml, "smi-xml", {}, kTelemetry, make_smi_xml_parser},
    {Format::syslog, "syslog", {}, kYearLessHostLog, make_syslog_parser},
    {Format::dmesg, "dmesg", {}, kHostLog, make_dmesg_parser},
    {Format::journal_text, "journal-text", {}, kYearLessHostLog, make_journal_text_parser},
    // Sections of the formats above, each read by its own parser; the report as a whole is
    // neither, but it holds the host's kernel log.
    {Format::bug_report, "bug-report", {}, {.host_log_inside = true}, make_bug_report_parser},
    {Format::kineto,
     "kineto-trace",
     {"trace", "kineto", "chrome-trace"},
     {.profiler = true, .whole_document = true},
     make_kineto_parser},
    {Format::torch_table, "torch-table", {"torch_table"}, kProfiler, make_torch_table_parser},
    {Format::nsys, "nsys", {}, kProfiler, make_nsys_parser},
    {Format::trainlog, "trainlog", {}, {}, make_trainlog_parser},
    {Format::prometheus_json,
     "prometheus-json",
     {"prometheus"},
     {.telemetry = true, .whole_document = true},
     make_prometheus_json_parser},
    {Format::sacct, "sacct", {"slurm"}, {}, make_sacct_parser},
};

bool named(const FormatRow& row, std::string_view name) {
  if (row.name == name) return true;
  for (const std::string_view alias : row.aliases)
    if (!alias.empty() && alias == name) return true;
  return false;
}

}  // namespace

std::span<const FormatRow> format_table() { return kFormats; }

const FormatRow* format_row(Format f) {
  for (const auto& row : kFormats)
    if (row.format == f) return &row;
  return nullptr;
}

std::string_view format_name(Format f) {
  const FormatRow* row = format_row(f);
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
  const FormatRow* row = format_row(f);
  return row != nullptr ? row->traits : FormatTraits{};
}

}  // namespace gpucost::prep

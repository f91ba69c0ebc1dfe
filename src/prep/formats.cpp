// prep's half of the format table: the parser of each format (the names and traits are core's,
// src/core/formats.cpp).
#include "formats.hpp"

namespace gpucost::prep {

namespace {

constexpr FormatRow kParsers[] = {
    {Format::dmon, make_dmon_parser},
    {Format::pmon, make_pmon_parser},
    {Format::query_csv, make_query_csv_parser},
    {Format::journal_json, make_journal_json_parser},
    {Format::dcgmi, make_dcgmi_parser},
    {Format::smi_q, make_smi_q_parser},
    {Format::smi_xml, make_smi_xml_parser},
    {Format::syslog, make_syslog_parser},
    {Format::dmesg, make_dmesg_parser},
    {Format::journal_text, make_journal_text_parser},
    {Format::bug_report, make_bug_report_parser},
    {Format::kineto, make_kineto_parser},
    {Format::torch_table, make_torch_table_parser},
    {Format::nsys, make_nsys_parser},
    {Format::trainlog, make_trainlog_parser},
    {Format::prometheus_json, make_prometheus_json_parser},
    {Format::sacct, make_sacct_parser},
    {Format::exposition, make_exposition_parser},
};

}  // namespace

std::span<const FormatRow> format_table() { return kParsers; }

const FormatRow* format_row(Format f) { return find_format_row(format_table(), f); }

}  // namespace gpucost::prep

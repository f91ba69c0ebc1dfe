// Factories of the per-format line parsers. Internal to prep.
#pragma once

#include <gpucost/prep/prep.hpp>

#include <memory>

namespace gpucost::prep {

std::unique_ptr<LineParser> make_dmon_parser(ParseContext& ctx);
std::unique_ptr<LineParser> make_pmon_parser(ParseContext& ctx);
/// Fails when the CSV has no header and no usable --fields list.
Expected<std::unique_ptr<LineParser>> make_query_csv_parser(ParseContext& ctx, std::string_view first_line);
/// Fails, with a hint naming --fields, when a query CSV starting with `first_line` has no header
/// and no --fields was given.
Status check_query_csv_head(std::string_view first_line, const PrepOptions& options, const std::string& path);
/// journalctl -o json / json-pretty (parse_journal_json.cpp).
std::unique_ptr<LineParser> make_journal_json_parser(ParseContext& ctx);
/// dcgmi dmon (parse_dcgmi.cpp).
std::unique_ptr<LineParser> make_dcgmi_parser(ParseContext& ctx);

}  // namespace gpucost::prep

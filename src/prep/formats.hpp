// The format table: one row per input format, with all that is said of a format outside its
// parser's code and detection (detect.cpp, where the order of the checks matters). Adding a
// format is a row in formats.cpp, its parser and its detector. Internal to prep.
#pragma once

#include "parsers.hpp"

#include <gpucost/prep/prep.hpp>

#include <array>
#include <span>
#include <string_view>

namespace gpucost::prep {

struct FormatRow {
  Format format;
  std::string_view name;                    ///< for --input-format and the summary
  std::array<std::string_view, 3> aliases;  ///< other names --input-format accepts
  FormatTraits traits;
  ParserFactory make;
};

/// Every format, in the order format_names() lists them.
std::span<const FormatRow> format_table();
/// The row of `f`; nullptr for Format::unknown.
const FormatRow* format_row(Format f);

}  // namespace gpucost::prep

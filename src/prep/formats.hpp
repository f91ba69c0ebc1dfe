// prep's format table: the parser of each input format. Its name, aliases and traits are core's
// (gpucost/core/formats.hpp); detection is detect.cpp, where the order of the checks matters.
// Adding a format is a row in src/core/formats.cpp, one here, its parser and its detector.
// Internal to prep.
#pragma once

#include "parsers.hpp"

#include <gpucost/prep/prep.hpp>

#include <array>
#include <span>
#include <string_view>

namespace gpucost::prep {

struct FormatRow {
  Format format;
  ParserFactory make;
};

/// Every format, in the order format_names() lists them.
std::span<const FormatRow> format_table();
/// The row of `f`; nullptr for Format::unknown.
const FormatRow* format_row(Format f);

}  // namespace gpucost::prep

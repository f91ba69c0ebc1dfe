// The only code that writes user-facing text to stderr: errors, warnings, input summaries.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/prep/prep.hpp>

#include <vector>

namespace gpucost::cli {

enum ExitCode : int { kOk = 0, kStrictFailed = 1, kError = 2, kAboveLine = 3 };

/// Prints "gpucost: error: ..." and the hint; returns kError.
int fail(const Error& e);
/// Prints warnings for malformed lines (first examples as file:line: reason: excerpt),
/// truncation and notes. Returns the number of malformed lines over all inputs.
std::uint64_t report_inputs(const std::vector<prep::InputStats>& stats, bool quiet);

}  // namespace gpucost::cli

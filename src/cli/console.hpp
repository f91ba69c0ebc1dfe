// The only code that writes user-facing text to stderr: errors, warnings, input summaries.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/io/http.hpp>
#include <gpucost/prep/prep.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::cli {

enum ExitCode : int { kOk = 0, kStrictFailed = 1, kError = 2, kAboveLine = 3 };

enum class Level { error, warning, note };
/// "gpucost: error:" / "gpucost: warning:" / "gpucost: note:", in colour only when stderr is a
/// terminal and NO_COLOR is not set (https://no-color.org).
std::string prefix(Level level);

/// The progress line: on a terminal, when not --quiet, work longer than a second shows
/// "gpucost: read 1.2 GB of 4.0 GB (30 %), 310 MB/s, ETA 9 s" on stderr, refreshed 4 times a
/// second; never on pipes. `total_bytes` 0 = unknown (compressed or stdin inputs: no % or ETA).
void start_progress(std::uint64_t total_bytes, bool quiet);
/// Erases the progress line (before any other stderr output, and at the end).
void clear_progress();

/// A human table or text for a terminal: each line through text::printable (a kernel, job or host
/// name from the inputs cannot move the cursor or recolour the screen), the newlines kept.
std::string printable_text(std::string_view text);

/// Prints "gpucost: error: ..." and the hint; returns kError.
int fail(const Error& e);
/// Writes a command's result to `path` (atomically; - = stdout): `status` once written, else
/// fail() of the error.
int write_result(const std::string& path, std::string_view text, int status);
/// Prints warnings for malformed lines (first examples as file:line: reason: excerpt),
/// truncation and notes. Returns the number of malformed lines over all inputs.
std::uint64_t report_inputs(const std::vector<InputStats>& stats, bool quiet);

/// The variable's value, empty when it is not set.
std::string env_or_empty(const char* name);
/// GPUCOST_HTTP_BACKOFF_MS (tests make the retries' wait small) over `http`'s backoff.
void apply_http_backoff_env(io::HttpOptions& http);

}  // namespace gpucost::cli

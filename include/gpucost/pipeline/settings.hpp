// The settings a user gives as text (flags, scripts) turned into the options of the stages, with
// one-line errors that name the flag. Kept out of the CLI so that every parser is unit-tested.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/prep/prep.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::pipeline {

/// How to read the logs, as given: the input flags of prep, extract, breakeven, report, batch.
struct InputSettings {
  std::string input_format, tz, date, start, fields, host, boot_time, steps, max_line, sacct_format, sacct_delimiter;
  std::vector<std::string> patterns;
  double interval_s = 0;
  int year = 0;
  std::size_t top_kernels = 10;
  unsigned jobs = 0;             ///< -j; 0: default_jobs() (core/parallel.hpp)
  bool trace_operators = false;  ///< set by trace --diff, not a flag: trace_op events per CPU operator
  bool critical_path = false;    ///< gpucost trace --critical-path
};

/// Checks every setting and fills in the host name (this machine's when none is given).
Expected<prep::PrepOptions> prep_options(const InputSettings& settings);

/// --boot-time: "1718194938[.5]" (or "@1718194938") seconds since the epoch, or ISO 8601, local
/// in `tz` unless it carries Z or an offset.
Expected<std::int64_t> parse_boot_time(const std::string& text, const std::string& tz);

/// "4M", "512K", "1G" (1024-based) or plain bytes; none when not a size up to 1 TiB.
std::optional<std::uint64_t> parse_size(std::string_view text);

/// --steps: "5" or "4-6", the numbers of ProfilerStep#N annotations.
struct StepRange {
  std::int64_t first = 0, last = 0;
};
Expected<StepRange> parse_step_range(const std::string& text);

/// An ISO 8601 instant given to `flag`: UTC when it carries Z or an offset, else local in `clock`.
Expected<std::int64_t> parse_instant(std::string_view flag, const std::string& text, LocalClock& clock);

/// The window of --from/--to (either may be empty).
Expected<extract::ExtractOptions> window_options(const std::string& from, const std::string& to, LocalClock& clock);

}  // namespace gpucost::pipeline

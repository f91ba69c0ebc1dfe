// What `--prometheus` (pipeline) and the prometheus-json reader (prep) agree on when a window is
// read in time slices.
#pragma once

#include <string_view>

namespace gpucost::prep {

/// The key of the line `--prometheus` writes after each time slice's answer,
/// {"gpucost_slice_end_ms":N}: every point before N (ms since the epoch) has been given, so the
/// prometheus-json reader emits the samples before N and forgets them instead of holding the
/// whole window. A saved answer has no such line and is joined whole.
inline constexpr std::string_view kPrometheusSliceEndKey = "gpucost_slice_end_ms";

}  // namespace gpucost::prep

// Developer and operator logging (spdlog), off by default: the library logs through log(),
// which has no sink until the CLI installs one (-v, GPUCOST_LOG). Diagnostics that users must
// see (malformed lines, errors) never go through here.
#pragma once

#include <spdlog/logger.h>

#include <string_view>

namespace gpucost {

/// The "gpucost" logger; silent unless enable_stderr_log() was called.
spdlog::logger& log();

/// Sends log() to stderr at `level` ("info", "debug", "trace", ...). Unknown names: info.
void enable_stderr_log(std::string_view level);

}  // namespace gpucost

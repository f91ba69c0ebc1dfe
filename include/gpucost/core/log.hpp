// Developer and operator logging, off by default: the library logs through log(), which writes
// nothing until the CLI turns it on (-v, GPUCOST_LOG). Diagnostics that users must see (malformed
// lines, errors) never go through here. spdlog writes the lines; it is compiled into log.cpp alone
// (header-only), so that no libspdlog is loaded at every start (docs/performance.md, round 3).
#pragma once

#include <fmt/format.h>

#include <atomic>
#include <string_view>
#include <utility>

namespace gpucost {

/// A message is formatted only when its level is on.
class Logger {
 public:
  /// spdlog's levels, in its order.
  enum class Level : int { trace, debug, info, warn, error, critical, off };

  template <typename... Args>
  void debug(fmt::format_string<Args...> format, Args&&... args) {
    put(Level::debug, format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void info(fmt::format_string<Args...> format, Args&&... args) {
    put(Level::info, format, std::forward<Args>(args)...);
  }

  [[nodiscard]] bool enabled(Level level) const {
    const Level on = m_level.load(std::memory_order_relaxed);
    return on != Level::off && level >= on;
  }
  void set_level(Level level) { m_level.store(level, std::memory_order_relaxed); }

 private:
  template <typename... Args>
  void put(Level level, fmt::format_string<Args...> format, Args&&... args) {
    if (enabled(level)) write(level, fmt::format(format, std::forward<Args>(args)...));
  }
  void write(Level level, std::string_view message);

  std::atomic<Level> m_level{Level::off};
};

/// The "gpucost" logger; silent unless enable_stderr_log() was called.
Logger& log();

/// Sends log() to stderr at `level` ("info", "debug", "trace", ...). Unknown names: info.
void enable_stderr_log(std::string_view level);

}  // namespace gpucost

#include <gpucost/core/log.hpp>

#include <spdlog/logger.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <memory>
#include <string>

namespace gpucost {

namespace {

static_assert(static_cast<int>(Logger::Level::trace) == spdlog::level::trace &&
              static_cast<int>(Logger::Level::warn) == spdlog::level::warn &&
              static_cast<int>(Logger::Level::off) == spdlog::level::off);

/// The stderr logger once enable_stderr_log() made it; set before any thread starts.
std::shared_ptr<spdlog::logger>& stderr_logger() {
  static std::shared_ptr<spdlog::logger> logger;
  return logger;
}

}  // namespace

Logger& log() {
  static Logger logger;
  return logger;
}

void Logger::write(Level level, std::string_view message) {
  if (const std::shared_ptr<spdlog::logger>& logger = stderr_logger())
    logger->log(static_cast<spdlog::level::level_enum>(static_cast<int>(level)), "{}", message);
}

void enable_stderr_log(std::string_view level) {
  auto logger = std::make_shared<spdlog::logger>("gpucost", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("gpucost: %l: %v");
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") lvl = spdlog::level::info;
  logger->set_level(lvl);
  stderr_logger() = logger;
  log().set_level(static_cast<Logger::Level>(static_cast<int>(lvl)));
}

}  // namespace gpucost

#include <gpucost/core/log.hpp>

#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <memory>
#include <string>

namespace gpucost {

namespace {

std::shared_ptr<spdlog::logger>& instance() {
  static std::shared_ptr<spdlog::logger> logger =
      std::make_shared<spdlog::logger>("gpucost", std::make_shared<spdlog::sinks::null_sink_st>());
  return logger;
}

}  // namespace

spdlog::logger& log() { return *instance(); }

void enable_stderr_log(std::string_view level) {
  auto logger = std::make_shared<spdlog::logger>("gpucost", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("gpucost: %l: %v");
  auto lvl = spdlog::level::from_str(std::string(level));
  if (lvl == spdlog::level::off && level != "off") lvl = spdlog::level::info;
  logger->set_level(lvl);
  instance() = logger;
}

}  // namespace gpucost

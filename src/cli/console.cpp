#include "console.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <cstdio>

namespace gpucost::cli {

namespace {

// Control characters and bytes that are not UTF-8 in excerpts would garble the terminal.
std::string printable(std::string_view s) { return text::printable(s); }

}  // namespace

int fail(const Error& e) {
  fmt::print(stderr, "gpucost: error: {}\n", e.message);
  if (!e.hint.empty()) fmt::print(stderr, "  hint: {}\n", e.hint);
  return kError;
}

std::uint64_t report_inputs(const std::vector<prep::InputStats>& stats, bool quiet) {
  std::uint64_t malformed = 0;
  for (const auto& s : stats) {
    malformed += s.malformed;
    if (!s.truncated.empty()) fmt::print(stderr, "gpucost: warning: {}: {}; lines before it are kept\n", s.path, s.truncated);
    if (s.malformed > 0) {
      fmt::print(stderr, "gpucost: warning: {}: {} malformed line{} of {} ({})\n", s.path, s.malformed,
                 s.malformed == 1 ? "" : "s", s.lines, prep::format_name(s.format));
      for (const auto& ex : s.examples)
        fmt::print(stderr, "{}:{}: {}: {}\n", s.path, ex.line, ex.reason, printable(ex.excerpt));
    }
    if (!quiet)
      for (const auto& n : s.notes) fmt::print(stderr, "gpucost: note: {}: {}\n", s.path, n);
  }
  return malformed;
}

}  // namespace gpucost::cli

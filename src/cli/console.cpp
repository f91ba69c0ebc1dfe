#include "console.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <gpucost/io/atomic_file.hpp>
#include <gpucost/io/line_reader.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace gpucost::cli {

namespace {

// Everything printed here may hold text from outside (log lines, file names, server bodies):
// escaped, a line cannot move the cursor, set the title or forge a "gpucost: error:" line.
std::string printable(std::string_view s) { return text::printable(s); }

}  // namespace

namespace {

bool colour_on_stderr() {
  static const bool on = [] {
    const char* no_color = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return ::isatty(STDERR_FILENO) == 1 && (no_color == nullptr || *no_color == '\0') &&
           (term == nullptr || std::string_view(term) != "dumb");
  }();
  return on;
}

struct ProgressState {
  bool active = false;
  bool shown = false;
  std::uint64_t total = 0, done = 0;
  std::chrono::steady_clock::time_point start, last;
};
ProgressState g_progress;

std::string human_bytes(double b) {
  if (b < 1e6) return fmt::format("{:.0f} kB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

void on_bytes_read(std::size_t bytes) {
  ProgressState& p = g_progress;
  p.done += bytes;
  const auto now = std::chrono::steady_clock::now();
  if (now - p.start < std::chrono::seconds(1) || now - p.last < std::chrono::milliseconds(250)) return;
  p.last = now;
  const double secs = std::chrono::duration<double>(now - p.start).count();
  const double rate = static_cast<double>(p.done) / secs;
  std::string line = fmt::format("gpucost: read {}", human_bytes(static_cast<double>(p.done)));
  if (p.total > 0 && p.done <= p.total) {
    const double left = static_cast<double>(p.total - p.done) / std::max(rate, 1.0);
    line += fmt::format(" of {} ({:.0f} %), {}/s, ETA {:.0f} s", human_bytes(static_cast<double>(p.total)),
                        100.0 * static_cast<double>(p.done) / static_cast<double>(p.total), human_bytes(rate), left);
  } else {
    line += fmt::format(", {}/s", human_bytes(rate));
  }
  fmt::print(stderr, "\r{}\033[K", line);
  std::fflush(stderr);
  p.shown = true;
}

}  // namespace

std::string prefix(Level level) {
  const char* word = level == Level::error ? "error" : level == Level::warning ? "warning" : "note";
  if (!colour_on_stderr()) return fmt::format("gpucost: {}:", word);
  const char* colour = level == Level::error ? "\033[1;31m" : level == Level::warning ? "\033[1;33m" : "\033[36m";
  return fmt::format("gpucost: {}{}:\033[0m", colour, word);
}

void start_progress(std::uint64_t total_bytes, bool quiet) {
  if (quiet || ::isatty(STDERR_FILENO) != 1) return;
  g_progress = ProgressState{true, false, total_bytes, 0, std::chrono::steady_clock::now(), {}};
  io::set_read_observer(on_bytes_read);
}

void clear_progress() {
  if (g_progress.shown) {
    fmt::print(stderr, "\r\033[K");
    std::fflush(stderr);
    g_progress.shown = false;
  }
}

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    out += text::printable(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(nl + 1);
  }
  return out;
}

int fail(const Error& e) {
  clear_progress();
  fmt::print(stderr, "{} {}\n", prefix(Level::error), printable(e.message));
  if (!e.hint.empty()) fmt::print(stderr, "  hint: {}\n", printable(e.hint));
  return kError;
}

int write_result(const std::string& path, std::string_view text, int status) {
  if (auto st = io::write_file_atomically(path, text); !st) return fail(st.error());
  return status;
}

std::uint64_t report_inputs(const std::vector<InputStats>& stats, bool quiet) {
  clear_progress();
  std::uint64_t malformed = 0;
  for (const auto& s : stats) {
    malformed += s.malformed;
    if (!s.truncated.empty())
      fmt::print(stderr, "{} {}: {}; lines before it are kept\n", prefix(Level::warning), printable(s.path),
                 printable(s.truncated));
    if (s.malformed > 0) {
      fmt::print(stderr, "{} {}: {} malformed line{} of {} ({})\n", prefix(Level::warning), printable(s.path),
                 s.malformed, s.malformed == 1 ? "" : "s", s.lines, format_name(s.format));
      for (const auto& ex : s.examples)
        fmt::print(stderr, "{}:{}: {}: {}\n", printable(s.path), ex.line, printable(ex.reason), printable(ex.excerpt));
    }
    for (const auto& w : s.warnings)
      fmt::print(stderr, "{} {}: {}\n", prefix(Level::warning), printable(s.path), printable(w));
    if (quiet) continue;
    for (const auto& n : s.notes)
      fmt::print(stderr, "{} {}: {}\n", prefix(Level::note), printable(s.path), printable(n));
    if (s.duplicates > 0)
      fmt::print(stderr,
                 "{} {}: {} event{} repeated from another input at the same time, counted once (overlapping "
                 "rotated copies?)\n",
                 prefix(Level::note), printable(s.path), s.duplicates, s.duplicates == 1 ? "" : "s");
  }
  return malformed;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

void apply_http_backoff_env(io::HttpOptions& http) {
  if (const auto ms = text::parse_double(env_or_empty("GPUCOST_HTTP_BACKOFF_MS")); ms && *ms >= 0)
    http.backoff_ms = static_cast<int>(*ms);
}

}  // namespace gpucost::cli

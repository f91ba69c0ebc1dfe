#include <gpucost/pipeline/settings.hpp>

#include <gpucost/core/parallel.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <unistd.h>

namespace gpucost::pipeline {

namespace {

std::string this_host() {
  char buf[256] = {};
  return ::gethostname(buf, sizeof buf - 1) == 0 && buf[0] != '\0' ? buf : "localhost";
}

Status apply_times(const InputSettings& s, prep::PrepOptions& o) {
  if (!s.date.empty()) {
    o.date = parse_civil_date(s.date);
    if (!o.date)
      return make_error(ErrorKind::usage, fmt::format("--date: '{}' is not a date", s.date), "use YYYY-MM-DD");
  }
  if (!s.start.empty()) {
    o.start = parse_iso8601(s.start);
    if (!o.start)
      return make_error(ErrorKind::usage, fmt::format("--start: '{}' is not an ISO 8601 time", s.start),
                        "e.g. 2024-06-12T14:22:18 (local in --tz) or 2024-06-12T12:22:18Z");
  }
  if (s.interval_s != 0) {
    if (!(s.interval_s > 0))
      return make_error(ErrorKind::usage, "--interval: must be a positive number of seconds",
                        "e.g. --interval 1 or 0.5");
    o.interval_s = s.interval_s;
  }
  if (!s.boot_time.empty()) {
    auto boot = parse_boot_time(s.boot_time, s.tz);
    if (!boot) return boot.error();
    o.boot_time_ns = *boot;
  }
  if (s.year != 0) {
    if (s.year < 1970 || s.year > 9999)
      return make_error(ErrorKind::usage, fmt::format("--year: {} is out of range", s.year), "e.g. --year 2024");
    o.year = s.year;
  }
  return {};
}

Status apply_reading(const InputSettings& s, prep::PrepOptions& o) {
  if (!s.steps.empty()) {
    auto steps = parse_step_range(s.steps);
    if (!steps) return steps.error();
    o.step_first = steps->first;
    o.step_last = steps->last;
  }
  o.top_kernels = s.top_kernels;
  o.trace_operators = s.trace_operators;
  o.critical_path = s.critical_path;
  if (!s.max_line.empty()) {
    const auto bytes = parse_size(s.max_line);
    if (!bytes || *bytes < io::LineReader::kMinMaxLineBytes || *bytes > (std::uint64_t{1} << 30))
      return make_error(ErrorKind::usage, fmt::format("--max-line: '{}' is not a size from 64K to 1G", s.max_line),
                        "e.g. --max-line 16M (lines longer than that are reported, not read)");
    o.max_line = static_cast<std::size_t>(*bytes);
  }
  GPUCOST_TRY(prep::check_patterns(s.patterns));
  o.patterns = s.patterns;
  o.fields = s.fields;
  o.sacct_format = s.sacct_format;
  o.sacct_delimiter = s.sacct_delimiter;
  return {};
}

}  // namespace

Expected<prep::PrepOptions> prep_options(const InputSettings& settings) {
  prep::PrepOptions o;
  if (!settings.input_format.empty() && !format_from_name(settings.input_format, o.forced))
    return make_error(ErrorKind::usage, fmt::format("--input-format: unknown format '{}'", settings.input_format),
                      "one of: " + format_names());
  GPUCOST_TRY(apply_times(settings, o));
  GPUCOST_TRY(apply_reading(settings, o));
  o.host = settings.host;
  o.host_given = !settings.host.empty();
  if (o.host.empty()) o.host = this_host();
  o.host_basis = o.host_given ? "option" : "machine";
  o.jobs = settings.jobs != 0 ? settings.jobs : default_jobs();
  return o;
}

Expected<std::int64_t> parse_boot_time(const std::string& text, const std::string& tz) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '@') s.remove_prefix(1);
  const std::size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  const bool digits = !whole.empty() && whole.size() <= 12 && frac.size() <= 9 &&
                      s.find_first_not_of("0123456789.") == std::string_view::npos &&
                      frac.find('.') == std::string_view::npos;
  if (digits && (whole.size() >= 9 || dot != std::string_view::npos)) {  // "20240612" is a date
    std::int64_t ns = *text::parse_int(whole) * kNsPerSecond;
    std::int64_t scale = kNsPerSecond / 10;
    for (const char c : frac) {
      ns += (c - '0') * scale;
      scale /= 10;
    }
    return ns;
  }
  const auto iso = parse_iso8601(s);
  if (!iso)
    return make_error(ErrorKind::usage, fmt::format("--boot-time: '{}' is neither ISO 8601 nor epoch seconds", text),
                      "e.g. --boot-time 2024-06-12T08:01:30Z, or --boot-time \"$(date -d \"$(uptime -s)\" +%s)\"");
  if (iso->offset_s) return iso->civil.as_utc_ns() - *iso->offset_s * kNsPerSecond;
  auto clock = LocalClock::make(tz);
  if (!clock) return clock.error();
  return clock->to_utc_ns(iso->civil.as_utc_ns());
}

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::uint64_t scale = 1;
  if (!text.empty()) {
    const char u = static_cast<char>(text.back() | 0x20);
    if (u == 'k' || u == 'm' || u == 'g') {
      scale = u == 'k' ? 1024 : u == 'm' ? 1024 * 1024 : 1024ULL * 1024 * 1024;
      text.remove_suffix(1);
    }
  }
  const auto n = text::parse_int(text);
  if (!n || *n <= 0 || static_cast<std::uint64_t>(*n) > (std::uint64_t{1} << 40) / scale) return std::nullopt;
  return static_cast<std::uint64_t>(*n) * scale;
}

Expected<StepRange> parse_step_range(const std::string& text) {
  const std::string_view s = text;
  const std::size_t dash = s.find('-', 1);
  const auto first = text::parse_int(s.substr(0, dash));
  const auto last = dash == std::string_view::npos ? first : text::parse_int(s.substr(dash + 1));
  if (!first || !last || *first < 0 || *last < *first)
    return make_error(ErrorKind::usage, fmt::format("--steps: '{}' is not a step or a range of steps", text),
                      "e.g. --steps 5 or --steps 4-6 (the numbers of ProfilerStep#N annotations)");
  return StepRange{*first, *last};
}

Expected<std::int64_t> parse_instant(std::string_view flag, const std::string& text, LocalClock& clock) {
  const auto iso = parse_iso8601(text);
  if (!iso)
    return make_error(ErrorKind::usage, fmt::format("{}: '{}' is not an ISO 8601 time", flag, text),
                      "e.g. 2024-06-12T14:22:18Z or 2024-06-12T16:22:18 (local in --tz)");
  if (iso->offset_s) return iso->civil.as_utc_ns() - *iso->offset_s * kNsPerSecond;
  return clock.to_utc_ns(iso->civil.as_utc_ns());
}

Expected<extract::ExtractOptions> window_options(const std::string& from, const std::string& to, LocalClock& clock) {
  extract::ExtractOptions o;
  if (!from.empty()) {
    auto t = parse_instant("--from", from, clock);
    if (!t) return t.error();
    o.from_ns = *t;
  }
  if (!to.empty()) {
    auto t = parse_instant("--to", to, clock);
    if (!t) return t.error();
    o.to_ns = *t;
  }
  return o;
}

}  // namespace gpucost::pipeline

// gpucost: the command line. Parses arguments with CLI11, calls gpucost_core, prints.
// Exit status: 0 ok, 1 --strict and malformed lines, 2 usage/operational error.
#include "console.hpp"

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/config.hpp>
#include <gpucost/core/log.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/breakeven/price_job.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/outputs/ledger.hpp>
#include <gpucost/outputs/prom_textfile.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/pipeline/merge.hpp>
#include <gpucost/pipeline/batch.hpp>
#include <gpucost/record/record.hpp>
#include <gpucost/prep/prep.hpp>
#include <gpucost/report/breakeven_report.hpp>
#include <gpucost/report/html_report.hpp>
#include <gpucost/report/findings_report.hpp>
#include <gpucost/report/trace_report.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <chrono>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace gpucost::cli {

namespace {

constexpr const char* kExitFooter =
    "Exit status: 0 success (warnings may be printed), 1 --strict and malformed or cut-short input,\n"
    "2 usage or operational error (unreadable file, unknown format, bad config),\n"
    "3 breakeven --fail-above and the premium is above the line. See README.md.";

/// Options shared by every subcommand that reads logs.
struct InputArgs {
  std::vector<std::string> inputs;
  std::string input_format, tz, date, start, fields, host, boot_time, steps;
  std::size_t top_kernels = 10;
  std::string max_line;
  std::vector<std::string> patterns;
  double interval_s = 0;
  int year = 0;
  bool strict = false, quiet = false;
  int verbose = 0;
};

void add_input_options(CLI::App* app, InputArgs& a) {
  app->add_option("inputs", a.inputs, "log files, globs or - for stdin (.gz/.zst read transparently)")
      ->type_name("FILE...");
  app->add_option("--input-format", a.input_format, "force the format: " + prep::format_names())
      ->type_name("NAME")->group("Input");
  app->add_option("--tz", a.tz, "IANA zone of local times in the logs (default: this machine's zone)")
      ->type_name("ZONE")->group("Input");
  app->add_option("--date", a.date, "date of dmon -o T output (time of day only)")->type_name("YYYY-MM-DD")->group("Input");
  app->add_option("--start", a.start, "time of the first row for logs without times (ISO 8601; local unless Z/offset)")
      ->type_name("TIME")->group("Input");
  app->add_option("--interval", a.interval_s, "seconds between cycles for logs without times (dmon -d, -l)")
      ->type_name("SECONDS")->group("Input");
  app->add_option("--boot-time", a.boot_time,
                  "boot time for kernel uptime stamps (dmesg, journalctl -o short-monotonic): ISO 8601 "
                  "(local unless Z/offset) or seconds since the epoch")
      ->type_name("TIME")->group("Input");
  app->add_option("--year", a.year, "year of the first syslog/journalctl stamp without a year (default: inferred "
                                    "from the file's modification time)")
      ->type_name("YYYY")->group("Input");
  app->add_option("--fields", a.fields, "the --query-gpu field list, for CSV written with noheader")
      ->type_name("LIST")->group("Input");
  app->add_option("--steps", a.steps, "trace analyses on ProfilerStep#A (or #A to #B) only; default the whole trace")
      ->type_name("A[-B]")->group("Input");
  app->add_option("--max-line", a.max_line,
                  "lines longer than this are reported as malformed with their length, never held in memory "
                  "(default 4M; suffixes K, M, G: 1024-based; at least 64K)")
      ->type_name("BYTES")->group("Input");
  app->add_option("--top-kernels", a.top_kernels, "kernels listed per GPU from a trace (default 10)")
      ->type_name("N")->group("Input");
  app->add_option("--pattern", a.patterns,
                  "RE2 regex with named groups (ts, dur_ms, dur_us, dur_s, dur_ns, step, phase, loss, name, ...): "
                  "matching lines of a training log become `pattern` events (repeatable)")
      ->type_name("REGEX")->allow_extra_args(false)->group("Input");
  app->add_option("--host", a.host, "host name for every event, over the names in the logs (default: the line's host, else this machine's)")
      ->type_name("NAME")->group("Input");
  app->add_flag("--strict", a.strict, "exit with status 1 when any input line is malformed or an input is cut short")
      ->group("Input");
  app->add_flag("-q,--quiet", a.quiet, "do not print notes (warnings and errors still go to stderr)");
  app->add_flag("-v,--verbose", a.verbose, "log progress to stderr (-v info, -vv debug); also GPUCOST_LOG=LEVEL");
}

/// --boot-time: "1718194938[.5]" (or "@1718194938") seconds since the epoch, or ISO 8601, local in
/// --tz unless it carries Z or an offset.
Expected<std::int64_t> parse_boot_time(const std::string& text, const std::string& tz) {
  std::string_view s = text;
  if (!s.empty() && s.front() == '@') s.remove_prefix(1);
  const std::size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  const bool digits = !whole.empty() && whole.size() <= 12 && frac.size() <= 9 &&
                      s.find_first_not_of("0123456789.") == std::string_view::npos && frac.find('.') == std::string_view::npos;
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

/// "4M", "512K", "1G" (1024-based) or plain bytes.
std::optional<std::uint64_t> parse_size(std::string_view s) {
  std::uint64_t scale = 1;
  if (!s.empty()) {
    const char u = static_cast<char>(s.back() | 0x20);
    if (u == 'k' || u == 'm' || u == 'g') {
      scale = u == 'k' ? 1024 : u == 'm' ? 1024 * 1024 : 1024ULL * 1024 * 1024;
      s.remove_suffix(1);
    }
  }
  const auto n = text::parse_int(s);
  if (!n || *n <= 0 || static_cast<std::uint64_t>(*n) > (std::uint64_t{1} << 40) / scale) return std::nullopt;
  return static_cast<std::uint64_t>(*n) * scale;
}

Expected<prep::PrepOptions> prep_options(const InputArgs& a) {
  prep::PrepOptions o;
  if (!a.input_format.empty() && !prep::format_from_name(a.input_format, o.forced))
    return make_error(ErrorKind::usage, fmt::format("--input-format: unknown format '{}'", a.input_format),
                      "one of: " + prep::format_names());
  if (!a.date.empty()) {
    o.date = parse_civil_date(a.date);
    if (!o.date) return make_error(ErrorKind::usage, fmt::format("--date: '{}' is not a date", a.date), "use YYYY-MM-DD");
  }
  if (!a.start.empty()) {
    o.start = parse_iso8601(a.start);
    if (!o.start)
      return make_error(ErrorKind::usage, fmt::format("--start: '{}' is not an ISO 8601 time", a.start),
                        "e.g. 2024-06-12T14:22:18 (local in --tz) or 2024-06-12T12:22:18Z");
  }
  if (a.interval_s != 0) {
    if (!(a.interval_s > 0))
      return make_error(ErrorKind::usage, "--interval: must be a positive number of seconds", "e.g. --interval 1 or 0.5");
    o.interval_s = a.interval_s;
  }
  if (!a.boot_time.empty()) {
    auto boot = parse_boot_time(a.boot_time, a.tz);
    if (!boot) return boot.error();
    o.boot_time_ns = *boot;
  }
  if (a.year != 0) {
    if (a.year < 1970 || a.year > 9999)
      return make_error(ErrorKind::usage, fmt::format("--year: {} is out of range", a.year), "e.g. --year 2024");
    o.year = a.year;
  }
  if (!a.steps.empty()) {
    const std::string_view s = a.steps;
    const std::size_t dash = s.find('-', 1);
    const auto first = text::parse_int(s.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : text::parse_int(s.substr(dash + 1));
    if (!first || !last || *first < 0 || *last < *first)
      return make_error(ErrorKind::usage, fmt::format("--steps: '{}' is not a step or a range of steps", a.steps),
                        "e.g. --steps 5 or --steps 4-6 (the numbers of ProfilerStep#N annotations)");
    o.step_first = *first;
    o.step_last = *last;
  }
  o.top_kernels = a.top_kernels;
  if (!a.max_line.empty()) {
    const auto bytes = parse_size(a.max_line);
    if (!bytes || *bytes < io::LineReader::kMinMaxLineBytes || *bytes > (std::uint64_t{1} << 30))
      return make_error(ErrorKind::usage, fmt::format("--max-line: '{}' is not a size from 64K to 1G", a.max_line),
                        "e.g. --max-line 16M (lines longer than that are reported, not read)");
    o.max_line = static_cast<std::size_t>(*bytes);
  }
  if (auto st = prep::check_patterns(a.patterns); !st) return st.error();
  o.patterns = a.patterns;
  o.fields = a.fields;
  o.host = a.host;
  o.host_given = !a.host.empty();
  if (o.host.empty()) {
    char buf[256] = {};
    o.host = ::gethostname(buf, sizeof buf - 1) == 0 && buf[0] != '\0' ? buf : "localhost";
  }
  return o;
}

Expected<std::int64_t> parse_instant(const std::string& flag, const std::string& text, LocalClock& clock) {
  const auto iso = parse_iso8601(text);
  if (!iso)
    return make_error(ErrorKind::usage, fmt::format("{}: '{}' is not an ISO 8601 time", flag, text),
                      "e.g. 2024-06-12T14:22:18Z or 2024-06-12T16:22:18 (local in --tz)");
  if (iso->offset_s) return iso->civil.as_utc_ns() - *iso->offset_s * kNsPerSecond;
  return clock.to_utc_ns(iso->civil.as_utc_ns());
}

struct Common {
  prep::PrepOptions prep;
  LocalClock clock = LocalClock::utc();
  std::vector<std::string> paths;
};

/// The bytes the inputs hold when every one is an uncompressed file (the progress line's total);
/// 0 when any is compressed or stdin: its decompressed size is unknown until read.
std::uint64_t plain_input_bytes(const std::vector<std::string>& paths) {
  std::uint64_t total = 0;
  for (const std::string& p : paths) {
    struct stat st {};
    if (p == "-" || ::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    unsigned char magic[4] = {};
    if (std::FILE* f = std::fopen(p.c_str(), "rb")) {
      const std::size_t n = std::fread(magic, 1, sizeof magic, f);
      std::fclose(f);
      if ((n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) ||
          (n == 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd))
        return 0;
    }
    total += static_cast<std::uint64_t>(st.st_size);
  }
  return total;
}

Expected<Common> common_setup(const InputArgs& a) {
  if (a.verbose > 0) enable_stderr_log(a.verbose == 1 ? "info" : "debug");
  else if (const char* env = std::getenv("GPUCOST_LOG"); env != nullptr && *env != '\0') enable_stderr_log(env);
  Common c;
  auto po = prep_options(a);
  if (!po) return po.error();
  c.prep = std::move(*po);
  auto clock = LocalClock::make(a.tz);
  if (!clock) return clock.error();
  c.clock = *clock;
  auto paths = pipeline::expand_inputs(a.inputs.empty() ? std::vector<std::string>{"-"} : a.inputs);
  if (!paths) return paths.error();
  c.paths = std::move(*paths);
  if (c.paths.empty()) c.paths.emplace_back("-");
  // Refuse unreadable inputs before any output is written.
  if (auto st = pipeline::check_inputs(c.paths, c.prep); !st) return st.error();
  c.prep = pipeline::with_journal_boot_time(c.paths, std::move(c.prep));
  start_progress(plain_input_bytes(c.paths), a.quiet);
  return c;
}

int finish_inputs(const std::vector<prep::InputStats>& stats, const InputArgs& a, const LocalClock& clock) {
  if (clock.fell_back_to_utc() && !a.quiet)
    fmt::print(stderr, "{} this machine has no time zone set: local times are read as UTC (use --tz)\n", prefix(Level::note));
  const std::uint64_t malformed = report_inputs(stats, a.quiet);
  bool truncated = false;
  for (const auto& s : stats) truncated = truncated || !s.truncated.empty();
  return a.strict && (malformed > 0 || truncated) ? kStrictFailed : kOk;
}

// ---- prep ---------------------------------------------------------------------------------

struct PrepArgs {
  InputArgs in;
  std::string output = "-", output_format = "jsonl";
};

int run_prep(const PrepArgs& args) {
  auto common = common_setup(args.in);
  if (!common) return fail(common.error());
  auto out = io::OutputFile::open(args.output);
  if (!out) return fail(out.error());
  io::EventWriter writer(out->stream(), args.output_format == "tsv" ? io::StreamFormat::tsv : io::StreamFormat::jsonl);
  writer.write_header(common->clock.name(), GPUCOST_VERSION);
  std::vector<prep::InputStats> stats;
  // One input streams straight through in its own order; several are merged by time.
  const Status st = common->paths.size() == 1
                        ? pipeline::feed_inputs(common->paths, common->prep, common->clock, writer, stats)
                        : pipeline::merge_inputs(common->paths, common->prep, common->clock, writer, stats);
  writer.write_summary(stats);
  writer.flush();
  if (!st) return fail(st.error());
  if (writer.failed() && errno != EPIPE)
    return fail(make_error(ErrorKind::io, fmt::format("{}: write failed: {}", args.output, std::strerror(errno)),
                           "check the free space of the output's disk"));
  if (auto c = out->commit(); !c) return fail(c.error());
  return finish_inputs(stats, args.in, common->clock);
}

// ---- extract ------------------------------------------------------------------------------

struct ExtractArgs {
  InputArgs in;
  std::string output = "-", from, to;
  bool list = false, json = false;
  double temp_threshold_c = 78.0, chain_window_s = 300.0;
};

int print_catalogue(bool json) {
  if (json) {
    std::string b = "[\n";
    bool first = true;
    for (const auto& d : extract::catalogue()) {
      b += first ? "" : ",\n";
      first = false;
      b += fmt::format("  {{\"id\": \"{}\", \"key\": \"{}\", \"unit\": \"{}\", \"category\": \"{}\", \"name\": \"{}\", "
                       "\"definition\": \"{}\"}}",
                       d.id, d.key, d.unit, d.category, d.name, d.definition);
    }
    fmt::print("{}\n]\n", b);
    return kOk;
  }
  for (const auto& d : extract::catalogue())
    fmt::print("{}  {:<27} {:<6} {:<12} {}\n", d.id, d.key, d.unit, d.category, d.definition);
  return kOk;
}

Expected<extract::ExtractOptions> extract_options(const std::string& from, const std::string& to, LocalClock& clock) {
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

int run_extract(const ExtractArgs& args) {
  if (args.list) return print_catalogue(args.json);
  auto common = common_setup(args.in);
  if (!common) return fail(common.error());
  auto eo = extract_options(args.from, args.to, common->clock);
  if (!eo) return fail(eo.error());
  eo->temp_threshold_c = args.temp_threshold_c;
  eo->chain_window_s = args.chain_window_s;
  extract::SampleCollector samples;
  std::vector<prep::InputStats> stats;
  if (auto st = pipeline::collect_inputs(common->paths, common->prep, common->clock, samples, stats); !st) {
    report_inputs(stats, true);
    return fail(st.error());
  }
  const int status = finish_inputs(stats, args.in, common->clock);
  samples.note_inputs(stats);
  auto features = extract::compute_features(samples, *eo);
  if (!features) return fail(features.error());
  auto out = io::OutputFile::open(args.output);
  if (!out) return fail(out.error());
  const std::string text = extract::features_to_json(*features);
  std::fwrite(text.data(), 1, text.size(), out->stream());
  if (auto c = out->commit(); !c) return fail(c.error());
  return status;
}

// ---- merge --------------------------------------------------------------------------------

struct MergeArgs {
  std::vector<std::string> files;
  std::string output = "-";
};

int run_merge(const MergeArgs& args) {
  // Globs are expanded here too (as for the log inputs), so scripts and cron can quote them.
  auto paths = pipeline::expand_inputs(args.files);
  if (!paths) return fail(paths.error());
  std::vector<extract::Features> docs;
  for (const std::string& path : *paths) {
    auto f = extract::read_features_file(path);
    if (!f) return fail(f.error());
    docs.push_back(std::move(*f));
  }
  auto merged = extract::merge_features(std::move(docs));
  if (!merged) return fail(merged.error());
  auto out = io::OutputFile::open(args.output);
  if (!out) return fail(out.error());
  const std::string text = extract::features_to_json(*merged);
  std::fwrite(text.data(), 1, text.size(), out->stream());
  if (auto c = out->commit(); !c) return fail(c.error());
  return kOk;
}

// ---- trace --------------------------------------------------------------------------------

struct TraceArgs {
  InputArgs in;
  std::string output = "-";
};

int run_trace(const TraceArgs& args) {
  auto common = common_setup(args.in);
  if (!common) return fail(common.error());
  report::TraceEventCollector events;
  std::vector<prep::InputStats> stats;
  // Inputs one after the other (not merged by time): each trace's events stay together.
  if (auto st = pipeline::feed_inputs(common->paths, common->prep, common->clock, events, stats); !st) {
    report_inputs(stats, true);
    return fail(st.error());
  }
  const int status = finish_inputs(stats, args.in, common->clock);
  auto out = io::OutputFile::open(args.output);
  if (!out) return fail(out.error());
  const std::string text = report::trace_table(events.events());
  std::fwrite(text.data(), 1, text.size(), out->stream());
  if (auto c = out->commit(); !c) return fail(c.error());
  return status;
}

// ---- breakeven ----------------------------------------------------------------------------

struct BreakevenArgs {
  InputArgs in;
  std::string output = "-", from, to, config, cloud, prom, ledger, suggest;
  std::vector<std::string> sets;
  bool json = false, list_clouds = false, compare_clouds = false, fail_above = false, explain = false;
  double speed_ratio = std::numeric_limits<double>::quiet_NaN();  // NaN = not given
  std::string fill = "mean";
  bool ledger_append = false;
  std::size_t mc = 0;
  std::uint64_t seed = 1;
};

int print_cloud_offers(bool json) {
  const auto& offers = breakeven::cloud_offers();
  if (json) {
    std::string b = "[";
    for (std::size_t i = 0; i < offers.size(); ++i) {
      const auto& o = offers[i];
      b += fmt::format("{}\n  {{\"name\": \"{}\", \"provider\": \"{}\", \"instance\": \"{}\", \"gpu_model\": \"{}\", "
                       "\"gpus\": {}, \"per_gpu\": {}, \"price_per_hour\": {}, \"currency\": \"{}\", "
                       "\"billing_increment_s\": {}, \"billing_minimum_s\": {}, \"cold_start_s\": {}, "
                       "\"date_seen\": \"{}\", \"source\": \"{}\"}}",
                       i == 0 ? "" : ",", o.name, o.provider, o.instance, o.gpu_model, o.gpus,
                       o.per_gpu ? "true" : "false", o.price_per_hour, o.currency, o.billing_increment_s,
                       o.billing_minimum_s, o.cold_start_s, o.date_seen, o.source);
    }
    fmt::print("{}\n]\n", b);
    return kOk;
  }
  fmt::print("{:<26}{:<26}{:<12}{:>6}  {:>14}  {:>12}  {:<10}  {}\n", "name", "provider", "GPU", "GPUs", "price/h",
             "billing", "seen", "source");
  for (const auto& o : offers)
    fmt::print("{:<26}{:<26}{:<12}{:>6}  {:>14}  {:>12}  {:<10}  {}\n", o.name, o.provider, o.gpu_model,
               o.per_gpu ? fmt::format("1-{}", o.gpus) : fmt::format("{}", o.gpus),
               fmt::format("{:.4g} {}{}", o.price_per_hour, o.currency, o.per_gpu ? "/GPU" : ""),
               fmt::format("{:g} s, min {:g} s", o.billing_increment_s, o.billing_minimum_s), o.date_seen, o.source);
  fmt::print("\nList prices as seen on the date shown (on-demand, the region named in data/cloud-offers.toml);\n"
             "check the source before relying on them. Use one with --cloud NAME.\n");
  return kOk;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Writes `text` to `path` atomically (temporary file in the same directory, then rename).
Status write_file_atomically(const std::string& path, const std::string& text) {
  auto out = io::OutputFile::open(path);
  if (!out) return out.error();
  std::fwrite(text.data(), 1, text.size(), out->stream());
  return out->commit();
}

Expected<breakeven::CostConfig> breakeven_config(const BreakevenArgs& args) {
  auto config = breakeven::load_config(args.config.empty() ? std::nullopt : std::optional<std::string>(args.config),
                                       args.sets, !args.cloud.empty());
  if (!config) return config.error();
  if (!std::isnan(args.speed_ratio)) {
    if (!(args.speed_ratio > 0) || args.speed_ratio > 1000)
      return make_error(ErrorKind::usage, fmt::format("--speed-ratio: {} is out of range", args.speed_ratio),
                        "it must be in (0, 1000]: cloud GPU speed / local GPU speed on this job, e.g. 1.6");
    config->speed_ratio = args.speed_ratio;
    config->speed_ratio_source = "flag";
  }
  if (!args.cloud.empty()) config->cloud_offer = args.cloud;
  return config;
}

/// The catalogue offer the config or --cloud names; none when it names none.
Expected<std::optional<breakeven::CloudOffer>> chosen_offer(const breakeven::CostConfig& config) {
  if (config.cloud_offer.empty()) return std::optional<breakeven::CloudOffer>{};
  auto found = breakeven::find_cloud_offer(config.cloud_offer);
  if (!found) return found.error();
  return std::optional<breakeven::CloudOffer>{*found};
}

/// What breakeven, report and batch set up before reading their inputs: the config, the offer
/// it names, the inputs and the window.
struct ModelRun {
  breakeven::CostConfig config;
  std::optional<breakeven::CloudOffer> offer;
  Common common;
  extract::ExtractOptions window;
};

Expected<ModelRun> model_setup(const BreakevenArgs& args) {
  auto config = breakeven_config(args);
  if (!config) return config.error();
  auto chosen = chosen_offer(*config);
  if (!chosen) return chosen.error();
  auto common = common_setup(args.in);
  if (!common) return common.error();
  auto window = extract_options(args.from, args.to, common->clock);
  if (!window) return window.error();
  window->fault_window_s = config->fault_window_s;  // logs read here group faults as the config says
  return ModelRun{std::move(*config), *chosen, std::move(*common), *window};
}

int price_and_write(const BreakevenArgs& args, breakeven::CostConfig config,
                    const std::optional<breakeven::CloudOffer>& offer, const extract::Features& features,
                    const std::vector<prep::InputStats>& stats, int status);

/// The pricing options of the model flags, and the GPU models the inputs name.
Expected<breakeven::PriceOptions> price_options(const BreakevenArgs& args, const std::vector<prep::InputStats>& stats) {
  breakeven::PriceOptions o;
  auto fill = breakeven::parse_fill_rule(args.fill);
  if (!fill) return fill.error();
  o.fill = *fill;
  o.explain = args.explain;
  o.mc_draws = args.mc;
  o.mc_seed = args.seed;
  // The telemetry's GPU models price the speed ratio; a profiler trace's are checked against them.
  for (const auto& st : stats)
    for (const auto& name : st.fingerprint.gpus)
      prep::Fingerprint::add(st.format == prep::Format::kineto ? o.trace_gpu_names : o.gpu_names, name);
  return o;
}

/// Notes and warnings of the pricing, on stderr (warnings even with -q: they doubt the answer).
void print_notices(const std::vector<breakeven::Notice>& notices, bool quiet) {
  for (const auto& n : notices)
    if (n.warning || !quiet) fmt::print(stderr, "{} {}\n", prefix(n.warning ? Level::warning : Level::note), n.text);
}

report::BreakevenExtras extras_of(const breakeven::PricedJob& p) {
  report::BreakevenExtras x;
  x.tariff_tz = p.config.tariff_tz;
  x.sensitivity = p.sensitivity;
  x.range = p.range;
  x.monte_carlo = p.monte_carlo;
  x.monte_carlo_reason = p.monte_carlo_reason;
  x.clouds = p.clouds;
  x.fit_basis = breakeven::fit_basis(p.shape, p.config.memory_margin);
  x.findings = p.findings;
  return x;
}

int run_breakeven(const BreakevenArgs& args) {
  if (args.list_clouds) return print_cloud_offers(args.json);
  if (auto fill = breakeven::parse_fill_rule(args.fill); !fill) return fail(fill.error());
  auto run = model_setup(args);
  if (!run) return fail(run.error());
  Common& common = run->common;
  std::vector<prep::InputStats> stats;
  auto features = pipeline::load_features(common.paths, common.prep, common.clock, run->window, stats);
  const int status = finish_inputs(stats, args.in, common.clock);
  if (!features) return fail(features.error());
  if (run->config.tariff_tz.empty()) run->config.tariff_tz = common.clock.name();  // the logs' zone
  return price_and_write(args, std::move(run->config), run->offer, *features, stats, status);
}

/// breakeven's second half, shared with batch and record: prices the features and writes the
/// table or JSON, the ledger row, the textfile and the note. Returns the exit status.
int price_and_write(const BreakevenArgs& args, breakeven::CostConfig config,
                    const std::optional<breakeven::CloudOffer>& offer, const extract::Features& features,
                    const std::vector<prep::InputStats>& stats, int status) {
  auto options = price_options(args, stats);
  if (!options) return fail(options.error());
  options->compare_clouds = args.compare_clouds;
  auto priced = breakeven::price_job(std::move(config), offer, features, *options);
  if (!priced) return fail(priced.error());
  print_notices(priced->notices, args.in.quiet);
  const breakeven::Result& result = priced->result;
  const breakeven::CostConfig& config_used = priced->config;
  const report::BreakevenExtras extras = extras_of(*priced);
  // Opened before anything is written, so that a bad ledger leaves every output untouched.
  std::optional<outputs::Ledger> ledger;
  if (!args.ledger.empty()) {
    auto opened = outputs::Ledger::open(args.ledger);
    if (!opened) return fail(opened.error());
    ledger.emplace(std::move(*opened));
  }
  auto out = io::OutputFile::open(args.output);
  if (!out) return fail(out.error());
  const std::string text = args.json ? report::breakeven_json(result, config_used, features, extras)
                                     : report::breakeven_table(result, config_used, features, extras);
  std::fwrite(text.data(), 1, text.size(), out->stream());
  if (auto c = out->commit(); !c) return fail(c.error());
  if (ledger) {
    auto run = outputs::make_run_record(result, config_used, features, outputs::merge_fingerprints(stats), now_ns(),
                                        GPUCOST_VERSION);
    std::vector<std::string> identities;
    for (const auto& s : stats) identities.push_back(outputs::input_identity(s.path));
    run.run_key = outputs::run_key(run, identities);
    if (auto id = ledger->append(run, !args.ledger_append); !id) return fail(id.error());
  }
  if (!args.prom.empty())
    if (auto st = write_file_atomically(args.prom, outputs::prometheus_textfile(result, config_used, features)); !st)
      return fail(st.error());
  if (!args.suggest.empty()) {
    const std::string note =
        report::findings_markdown(result, config_used, features, extras.findings ? &*extras.findings : nullptr);
    if (auto st = write_file_atomically(args.suggest, note); !st) return fail(st.error());
  }
  return args.fail_above && result.above_line ? kAboveLine : status;
}

/// The options that shape the cost model and the window: breakeven's, shared by report.
void add_model_options(CLI::App* app, BreakevenArgs& a) {
  app->add_option("-c,--config", a.config, "cost configuration (TOML)")->type_name("FILE")->group("Model");
  app->add_option("--set", a.sets, "override a config key, e.g. --set cloud.rate_per_hour=2.5")
      ->type_name("KEY=VALUE")->allow_extra_args(false)->group("Model");
  app->add_option("--from", a.from, "window start (ISO 8601)")->type_name("TIME")->group("Window");
  app->add_option("--to", a.to, "window end, exclusive")->type_name("TIME")->group("Window");
  app->add_option("--cloud", a.cloud, "price the cloud side with a catalogue offer (see --list-clouds)")
      ->type_name("NAME")->group("Model");
  app->add_option("--speed-ratio", a.speed_ratio,
                  "cloud GPU speed / local GPU speed on this job (wins over config, offer and speed table)")
      ->type_name("X")->group("Model");
  app->add_option("--fill", a.fill,
                  "energy of time without samples: mean (at the GPU's mean power, default), idle (at "
                  "local.idle_power_w) or none (price the measured time only)")
      ->type_name("RULE")->group("Model");
}

/// The output options of breakeven that batch and record share.
void add_output_options(CLI::App* app, BreakevenArgs& a) {
  app->add_flag("--json", a.json, "print JSON instead of the table")->group("Output");
  app->add_option("-o,--output", a.output, "output file, - = stdout")->type_name("FILE")->group("Output");
  app->add_flag("--fail-above", a.fail_above, "exit with status 3 when the premium is above the line")->group("Output");
  app->add_flag("--explain", a.explain, "list the findings even below the line")->group("Output");
  app->add_option("--suggest", a.suggest, "also write the findings as a Markdown note (atomically)")
      ->type_name("FILE.md")->group("Output");
  app->add_option("--prom", a.prom, "also write the figures as a Prometheus textfile (atomically)")
      ->type_name("FILE")->group("Output");
  app->add_option("--ledger", a.ledger, "also record the run in this SQLite ledger (created when missing; the same "
                                        "inputs, window and config replace their earlier row)")
      ->type_name("FILE")->group("Output");
  app->add_flag("--ledger-append", a.ledger_append, "keep an earlier row of the same run in the ledger")->group("Output");
}

// ---- batch --------------------------------------------------------------------------------

struct BatchArgs {
  BreakevenArgs model;
  std::string state;
  bool wait = false;
};

void print_batch_inputs(const std::vector<pipeline::BatchInput>& inputs, const std::vector<prep::InputStats>& stats) {
  std::uint64_t lines = 0, events = 0;
  for (std::size_t i = 0; i < inputs.size() && i < stats.size(); ++i) {
    const auto& in = inputs[i];
    fmt::print(stderr, "gpucost: batch: {}: {}, lines {}-{} (bytes {}-{}): {} new lines, {} events\n", in.path, in.how,
               in.from_line, in.to_line, in.from_offset, in.to_offset, stats[i].lines, stats[i].events);
    lines += stats[i].lines;
    events += stats[i].events;
  }
  fmt::print(stderr, "gpucost: batch: total: {} inputs, {} new lines, {} events\n", inputs.size(), lines, events);
}

bool has_samples(const extract::SampleCollector& samples) {
  return !samples.store().empty();
}

/// Each run prices its new samples; the window starts where the previous run's ended when the
/// new samples follow on (within 10 min), so that consecutive runs tile time without gaps.
void continue_window(const pipeline::BatchState& state, const extract::SampleCollector& samples,
                     extract::ExtractOptions& eo) {
  if (eo.from_ns || state.priced_to_ns == 0) return;
  const std::int64_t first = samples.store().min_ts();
  if (first >= state.priced_to_ns && first - state.priced_to_ns <= pipeline::BatchState::kContinueWindowNs)
    eo.from_ns = state.priced_to_ns;
}

int run_batch(const BatchArgs& args) {
  const BreakevenArgs& a = args.model;
  auto lock = pipeline::BatchLock::acquire(args.state, args.wait);
  if (!lock) return fail(lock.error());
  auto state = pipeline::BatchState::load(args.state);
  if (!state) return fail(state.error());
  auto run = model_setup(a);
  if (!run) return fail(run.error());
  breakeven::CostConfig& config = run->config;
  const std::optional<breakeven::CloudOffer>& offer = run->offer;
  Common& common = run->common;
  extract::ExtractOptions& window = run->window;  // continued from the last run
  extract::SampleCollector samples;
  std::vector<prep::InputStats> stats;
  const std::int64_t now = now_ns();
  auto inputs = pipeline::read_new_data(common.paths, *state, common.prep, common.clock, samples, stats, now);
  if (!inputs) {
    report_inputs(stats, true);
    return fail(inputs.error());
  }
  const int status = finish_inputs(stats, a.in, common.clock);
  if (!a.in.quiet) print_batch_inputs(*inputs, stats);
  state->forget_old(now);
  if (!has_samples(samples)) {
    // Nothing to price: the state still moves on, so these lines are never read again.
    if (!a.in.quiet) fmt::print(stderr, "{} batch: no new telemetry samples: nothing priced\n", prefix(Level::note));
    if (auto st = state->save(args.state); !st) return fail(st.error());
    return status;
  }
  samples.note_inputs(stats);
  continue_window(*state, samples, window);
  auto features = extract::compute_features(samples, window);
  if (!features) return fail(features.error());
  if (features->wall_s() <= 0) {
    // One new sample is no window: the state stays, and the next run prices it with what follows.
    if (!a.in.quiet) fmt::print(stderr, "{} batch: a single new sample time: nothing priced yet\n", prefix(Level::note));
    return status;
  }
  if (config.tariff_tz.empty()) config.tariff_tz = common.clock.name();
  const int rc = price_and_write(a, std::move(config), offer, *features, stats, status);
  if (rc == kError) return rc;  // the state stays: the next run reads the same data again
  state->priced_to_ns = features->to_ns;
  if (auto st = state->save(args.state); !st) return fail(st.error());
  return rc;
}

// ---- record -------------------------------------------------------------------------------

struct ReportArgs {
  BreakevenArgs model;
  double temp_threshold_c = 78.0;
  std::string generated_at;
};

int run_report(const ReportArgs& args);

struct RecordArgs {
  BreakevenArgs model;
  std::vector<std::string> command;
  std::string run_dir, report;
  int interval_ms = 1000;
};

void print_notes(const std::vector<std::string>& notes, bool quiet) {
  if (quiet) return;
  for (const std::string& n : notes) fmt::print(stderr, "{} record: {}\n", prefix(Level::note), n);
}

/// Exit status: the command's when it failed; else breakeven's over the run folder.
int run_record(RecordArgs& args) {
  BreakevenArgs& a = args.model;
  auto po = prep_options(a.in);  // checks the shared options and fills in the host name
  if (!po) return fail(po.error());
  record::RecordOptions o;
  o.command = args.command;
  o.run_dir = args.run_dir.empty() ? record::default_run_dir(now_ns()) : args.run_dir;
  o.interval_ms = args.interval_ms;
  o.host = po->host;
  o.version = GPUCOST_VERSION;
  o.quiet = a.in.quiet;
  auto run = record::record_run(o);
  if (!run) return fail(run.error());
  std::vector<std::string> notes = run->notes;
  const std::vector<std::string> files = record::priceable_files(*run, notes);
  print_notes(notes, a.in.quiet);
  if (!a.in.quiet)
    fmt::print(stderr, "gpucost: record: the command exited with status {}; run folder {}\n", run->exit_status,
               run->run_dir);
  if (files.empty()) {
    fmt::print(stderr, "gpucost: record: nothing in {} to price (no telemetry, kernel messages or training log)\n",
               run->run_dir);
    return run->exit_status != 0 ? run->exit_status : kError;
  }
  a.in.inputs = files;
  // The job is the command's run: samples taken before it started or after it ended are not priced.
  if (a.from.empty()) a.from = format_utc(run->start_ns);
  if (a.to.empty()) a.to = format_utc(run->end_ns);
  const int priced = run_breakeven(a);
  int reported = kOk;
  if (!args.report.empty()) {  // --report: the same run as one HTML file
    ReportArgs r;
    r.model = a;
    r.model.output = args.report;
    r.model.prom.clear();
    r.model.ledger.clear();
    r.model.suggest.clear();
    r.generated_at = fmt::format("{} by gpucost record", format_utc(run->end_ns));
    reported = run_report(r);
  }
  if (run->exit_status != 0) return run->exit_status;
  return priced != kOk ? priced : reported;
}

// ---- history ------------------------------------------------------------------------------

struct HistoryArgs {
  std::string ledger, host, since, tz, output = "-";
  bool json = false, csv = false;
};

int run_history(const HistoryArgs& args) {
  outputs::HistoryFilter filter;
  filter.host = args.host;
  if (!args.since.empty()) {
    auto clock = LocalClock::make(args.tz);
    if (!clock) return fail(clock.error());
    auto since = parse_instant("--since", args.since, *clock);
    if (!since) return fail(since.error());
    filter.since_ns = *since;
  }
  auto ledger = outputs::Ledger::open(args.ledger, outputs::Ledger::Mode::existing);
  if (!ledger) return fail(ledger.error());
  auto runs = ledger->runs(filter);
  if (!runs) return fail(runs.error());
  const std::string text = args.json  ? outputs::history_json(*runs)
                           : args.csv ? outputs::history_csv(*runs)
                                      : outputs::history_table(*runs);
  if (auto st = write_file_atomically(args.output, text); !st) return fail(st.error());
  return kOk;
}

// ---- report -------------------------------------------------------------------------------

/// The findings the report lists (always, as with breakeven --explain), largest saving first.
std::vector<report::ReportFinding> report_findings(const std::vector<breakeven::Finding>& found,
                                                   const breakeven::CostConfig& config, bool above_line) {
  std::vector<report::ReportFinding> out;
  for (const auto& f : found) {
    std::string evidence;
    for (const auto& e : f.evidence)
      evidence += fmt::format("{}{}{} = {:g}", evidence.empty() ? "" : "; ", e.id.empty() ? "" : e.id + " ", e.key, e.value);
    out.push_back(report::ReportFinding{
        above_line ? "warning" : "info", f.title,
        fmt::format("Estimated saving ~{:.2f} {} ({}). Evidence: {}. {}", f.saving, config.currency, f.saving_basis,
                    evidence, f.suggestion)});
  }
  return out;
}

int run_report(const ReportArgs& args) {
  const BreakevenArgs& a = args.model;
  auto run = model_setup(a);
  if (!run) return fail(run.error());
  breakeven::CostConfig& config = run->config;
  const std::optional<breakeven::CloudOffer>& offer = run->offer;
  Common& common = run->common;
  const extract::ExtractOptions& window = run->window;
  std::vector<prep::InputStats> stats;
  auto sources = report::load_report_sources(common.paths, common.prep, common.clock, window, stats);
  const int status = finish_inputs(stats, a.in, common.clock);
  if (!sources) return fail(sources.error());
  if (config.tariff_tz.empty()) config.tariff_tz = common.clock.name();
  auto options = price_options(a, stats);
  if (!options) return fail(options.error());
  options->explain = true;  // the report always lists the findings
  options->sensitivity = false;
  auto priced = breakeven::price_job(std::move(config), offer, sources->features, *options);
  if (!priced) return fail(priced.error());
  print_notices(priced->notices, a.in.quiet);
  const breakeven::Result& result = priced->result;
  const report::BreakevenExtras extras = extras_of(*priced);
  const auto findings = report_findings(*priced->findings, priced->config, result.above_line);
  const std::string html = report::html_report(
      {result, priced->config, *sources, extras, findings,
       report::ReportOptions{args.temp_threshold_c, std::string("gpucost ") + GPUCOST_VERSION, args.generated_at}});
  if (auto st = write_file_atomically(a.output, html); !st) return fail(st.error());
  return status;
}

}  // namespace

int main_impl(int argc, char** argv) {
  CLI::App app{"gpucost: the true cost of a GPU job from the logs the machine already writes,\n"
               "and whether renting would have been cheaper.",
               "gpucost"};
  app.footer(kExitFooter);
  app.set_version_flag("--version", std::string("gpucost ") + GPUCOST_VERSION);
  app.require_subcommand(1);

  PrepArgs prep_args;
  auto* prep_cmd = app.add_subcommand("prep", "normalise raw GPU logs into a gpucost.events stream");
  add_input_options(prep_cmd, prep_args.in);
  prep_cmd->add_option("-o,--output", prep_args.output, "output file (written atomically), - = stdout")
      ->type_name("FILE")->group("Output");
  prep_cmd->add_option("--output-format", prep_args.output_format, "jsonl (default) or tsv")
      ->check(CLI::IsMember({"jsonl", "tsv"}))->type_name("FMT")->group("Output");
  prep_cmd->footer("Example: gpucost prep dmon.log query.csv.gz > events.jsonl\n" + std::string(kExitFooter));

  ExtractArgs extract_args;
  auto* extract_cmd = app.add_subcommand("extract", "compute cost indicators per GPU and host over the job window");
  add_input_options(extract_cmd, extract_args.in);
  extract_cmd->add_option("--from", extract_args.from, "window start (ISO 8601; local in --tz unless Z/offset)")
      ->type_name("TIME")->group("Window");
  extract_cmd->add_option("--to", extract_args.to, "window end, exclusive")->type_name("TIME")->group("Window");
  extract_cmd->add_option("--temp-threshold", extract_args.temp_threshold_c,
                          "GPU temperature threshold of F012, F064, F067 and the chain, °C (default 78)")
      ->check(CLI::Range(-50.0, 150.0))->type_name("C")->group("Indicators");
  extract_cmd->add_option("--chain-window", extract_args.chain_window_s,
                          "errors this long after a hot crossing count in the chain, s (default 300)")
      ->check(CLI::Range(0.001, 86400.0))->type_name("S")->group("Indicators");
  extract_cmd->add_flag("--list", extract_args.list, "print the indicator catalogue and exit");
  extract_cmd->add_flag("--json", extract_args.json, "with --list: as JSON");
  extract_cmd->add_option("-o,--output", extract_args.output, "output file, - = stdout")->type_name("FILE")->group("Output");
  extract_cmd->footer("Example: gpucost prep dmon.log | gpucost extract - > features.json\n" + std::string(kExitFooter));

  MergeArgs merge_args;
  auto* merge_cmd = app.add_subcommand("merge", "combine features documents of several hosts or consecutive windows");
  merge_cmd->add_option("files", merge_args.files, "gpucost.features documents, globs or - for stdin")->required()->type_name("FEATURES");
  merge_cmd->add_option("-o,--output", merge_args.output, "output file, - = stdout")->type_name("FILE")->group("Output");
  merge_cmd->footer("Example: gpucost merge host1.json host2.json > fleet.json\n" + std::string(kExitFooter));

  BreakevenArgs be_args;
  auto* be_cmd = app.add_subcommand("breakeven", "price the job locally and in the cloud; solve the break-even");
  add_input_options(be_cmd, be_args.in);
  add_model_options(be_cmd, be_args);
  be_cmd->add_flag("--json", be_args.json, "print JSON instead of the table")->group("Output");
  be_cmd->add_flag("--list-clouds", be_args.list_clouds, "list the cloud catalogue (with --json: as JSON) and exit")
      ->group("Model");
  be_cmd->add_flag("--compare-clouds", be_args.compare_clouds,
                   "price the job on every catalogue offer that can run it (GPU count and memory), cheapest first")->group("Model");
  be_cmd->add_option("--mc", be_args.mc, "Monte-Carlo draws over the config's [ranges]")->type_name("N")->group("Model");
  be_cmd->add_option("--seed", be_args.seed, "seed of the Monte-Carlo draws (default 1)")->type_name("N")->group("Model");
  be_cmd->add_flag("--fail-above", be_args.fail_above, "exit with status 3 when the premium is above the line")
      ->group("Output");
  be_cmd->add_option("-o,--output", be_args.output, "output file, - = stdout")->type_name("FILE")->group("Output");
  be_cmd->add_flag("--explain", be_args.explain,
                   "list the findings (what drives the premium, what to change) even below the line")
      ->group("Output");
  be_cmd->add_option("--suggest", be_args.suggest, "also write the findings as a Markdown note (atomically)")
      ->type_name("FILE.md")->group("Output");
  be_cmd->add_option("--prom", be_args.prom,
                     "also write the figures as a Prometheus textfile (atomically, for node_exporter's textfile "
                     "collector)")
      ->type_name("FILE")->group("Output");
  be_cmd->footer("Example: gpucost breakeven --config my.toml dmon.log\n" + std::string(kExitFooter));

  be_cmd->add_option("--ledger", be_args.ledger,
                     "also record the run and its indicators in this SQLite ledger (created when missing; the same "
                     "inputs, window and config replace their earlier row)")
      ->type_name("FILE")->group("Output");
  be_cmd->add_flag("--ledger-append", be_args.ledger_append, "keep an earlier row of the same run in the ledger")
      ->group("Output");

  HistoryArgs history_args;
  auto* history_cmd = app.add_subcommand("history", "list the runs of a ledger and the trend per host");
  history_cmd->add_option("--ledger", history_args.ledger, "the SQLite ledger written by breakeven --ledger")
      ->type_name("FILE")->required();
  history_cmd->add_option("--host", history_args.host, "only the runs of this host")->type_name("NAME");
  history_cmd->add_option("--since", history_args.since,
                          "only runs whose job window starts at or after this time (ISO 8601; local in --tz unless Z/offset)")
      ->type_name("TIME");
  history_cmd->add_option("--tz", history_args.tz, "IANA zone of --since (default: this machine's zone)")
      ->type_name("ZONE");
  auto* json_flag = history_cmd->add_flag("--json", history_args.json, "print JSON (schema gpucost.history)");
  history_cmd->add_flag("--csv", history_args.csv, "print CSV, one row per run")->excludes(json_flag);
  history_cmd->add_option("-o,--output", history_args.output, "output file, - = stdout")->type_name("FILE");
  history_cmd->footer("Example: gpucost history --ledger runs.sqlite --host gpu01 --since 2024-06-01\n" +
                      std::string(kExitFooter));

  ReportArgs report_args;
  auto* report_cmd = app.add_subcommand("report", "write the verdict, charts, timelines and indicators as one HTML file");
  add_input_options(report_cmd, report_args.model.in);
  add_model_options(report_cmd, report_args.model);
  report_cmd->add_option("--temp-threshold", report_args.temp_threshold_c,
                         "temperature drawn as the threshold line, \u00b0C (default 78)")
      ->type_name("C")->check(CLI::Range(0.0, 150.0))->group("Output");
  report_cmd->add_option("--generated-at", report_args.generated_at,
                         "text for the footer, e.g. \"$(date -Is)\" (the report never reads the clock)")
      ->type_name("TEXT")->group("Output");
  report_cmd->add_option("-o,--output", report_args.model.output, "output file (written atomically), - = stdout")
      ->type_name("FILE")->group("Output");
  report_cmd->footer("Example: gpucost report --config my.toml -o report.html query.csv kern.log\n" +
                     std::string(kExitFooter));

  BatchArgs batch_args;
  auto* batch_cmd = app.add_subcommand("batch", "for cron: price only what is new in rotated logs since the last run");
  add_input_options(batch_cmd, batch_args.model.in);
  add_model_options(batch_cmd, batch_args.model);
  add_output_options(batch_cmd, batch_args.model);
  batch_cmd->add_option("--state", batch_args.state, "where batch remembers how far each file was read (JSON)")
      ->type_name("FILE")->required();
  batch_cmd->add_flag("--wait", batch_args.wait, "wait for a running batch on the same state instead of exiting 2");
  batch_cmd->footer("Example: gpucost batch --state /var/lib/gpucost/batch.json --ledger runs.sqlite --prom "
                    "gpucost.prom '/var/log/kern.log*' '/var/log/gpu/*.csv'\nSee docs/cron.md.\n" +
                    std::string(kExitFooter));

  RecordArgs record_args;
  auto* record_cmd = app.add_subcommand("record", "run a training command, collect its GPU telemetry and logs, then "
                                                  "price it");
  add_model_options(record_cmd, record_args.model);
  add_output_options(record_cmd, record_args.model);
  record_cmd->add_option("command", record_args.command, "the training command and its arguments, after --")
      ->type_name("CMD [ARGS...]")->required();
  record_cmd->add_option("--report", record_args.report, "also write the HTML report of the run (see gpucost report)")
      ->type_name("FILE.html")->group("Output");
  record_cmd->add_option("--run-dir", record_args.run_dir, "folder for the run (default ./gpucost-run-YYYYmmdd-HHMMSS)")
      ->type_name("DIR")->group("Record");
  record_cmd->add_option("--interval-ms", record_args.interval_ms, "nvidia-smi sampling interval (default 1000)")
      ->type_name("MS")->check(CLI::Range(10, 3600000))->group("Record");
  record_cmd->add_option("--host", record_args.model.in.host, "host name (default: this machine's name)")
      ->type_name("NAME")->group("Input");
  record_cmd->add_option("--tz", record_args.model.in.tz, "IANA zone of local times (default: this machine's zone)")
      ->type_name("ZONE")->group("Input");
  record_cmd->add_flag("-q,--quiet", record_args.model.in.quiet, "do not print notes");
  record_cmd->add_flag("-v,--verbose", record_args.model.in.verbose, "log progress to stderr (-v info, -vv debug)");
  record_cmd->footer("Example: gpucost record --ledger runs.sqlite -- python train.py --epochs 3\n"
                     "Exit status: the command's when it failed, else breakeven's. See README.md.");

  TraceArgs trace_args;
  auto* trace_cmd = app.add_subcommand("trace", "print the analyses of PyTorch profiler traces as tables");
  add_input_options(trace_cmd, trace_args.in);
  trace_cmd->add_option("-o,--output", trace_args.output, "output file, - = stdout")->type_name("FILE")->group("Output");
  trace_cmd->footer("Example: gpucost trace --steps 5-7 --top-kernels 5 rank0.pt.trace.json.gz\n"
                    "The same figures as events: gpucost prep rank0.pt.trace.json.gz\n" +
                    std::string(kExitFooter));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return kOk;
  } catch (const CLI::CallForAllHelp&) {
    fmt::print("{}", app.help("", CLI::AppFormatMode::All));
    return kOk;
  } catch (const CLI::CallForVersion&) {
    fmt::print("gpucost {}\n", GPUCOST_VERSION);
    return kOk;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "gpucost: error: {}\n  hint: run 'gpucost --help' or 'gpucost <command> --help'\n", e.what());
    return kError;
  }
  if (prep_cmd->parsed()) return run_prep(prep_args);
  if (extract_cmd->parsed()) return run_extract(extract_args);
  if (merge_cmd->parsed()) return run_merge(merge_args);
  if (trace_cmd->parsed()) return run_trace(trace_args);
  if (history_cmd->parsed()) return run_history(history_args);
  if (report_cmd->parsed()) return run_report(report_args);
  if (batch_cmd->parsed()) return run_batch(batch_args);
  if (record_cmd->parsed()) return run_record(record_args);
  return run_breakeven(be_args);
}

}  // namespace gpucost::cli

int main(int argc, char** argv) {
  std::atexit(gpucost::cli::clear_progress);  // never leave a half-drawn progress line behind
  // Past a file-size limit (ulimit -f) writes then fail with EFBIG and are reported like a full
  // disk, instead of the process being killed before it can remove its temporary file.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return gpucost::cli::main_impl(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpucost: internal error: {}\n", e.what());
    return gpucost::cli::kError;
  }
}

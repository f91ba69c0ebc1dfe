#include <gpucost/pipeline/inputs.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/merge.hpp>
#include <gpucost/prep/clock_check.hpp>

#include "parse_ahead.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include <glob.h>
#include <sys/stat.h>

namespace gpucost::pipeline {

Expected<std::vector<std::string>> expand_inputs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    struct stat st {};
    const bool pattern = a.find_first_of("*?[") != std::string::npos;
    if (a == "-" || !pattern || ::stat(a.c_str(), &st) == 0) {
      out.push_back(a);
      continue;
    }
    glob_t g{};
    const int rc = ::glob(a.c_str(), 0, nullptr, &g);
    if (rc != 0 || g.gl_pathc == 0) {
      globfree(&g);
      return make_error(ErrorKind::io, fmt::format("{}: no file matches this pattern", a),
                        "check the pattern and the directory");
    }
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
    globfree(&g);
  }
  return out;
}

Expected<std::vector<std::string>> expand_trace_directories(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    std::error_code ec;
    if (a == "-" || !std::filesystem::is_directory(a, ec)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> traces;
    namespace fs = std::filesystem;
    for (auto it = fs::directory_iterator(a, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string name = it->path().filename().string();
      const bool trace = name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".json.zst");
      std::error_code file_ec;
      if (trace && !name.starts_with('.') && it->is_regular_file(file_ec)) traces.push_back(it->path().string());
    }
    if (ec)
      return make_error(ErrorKind::io, fmt::format("{}: {}", a, ec.message()), "check the directory's permissions");
    if (traces.empty())
      return make_error(ErrorKind::io, fmt::format("{}: no profiler trace in this directory", a),
                        "a directory stands for its profiler traces (*.json, *.json.gz, *.json.zst); name other "
                        "files one by one or by a glob, e.g. 'dir/*.log'");
    std::sort(traces.begin(), traces.end());
    out.insert(out.end(), traces.begin(), traces.end());
  }
  return out;
}

namespace {

/// The bytes of an input held in memory, shared with its ProbedInput (read without a copy).
class SharedSource final : public io::ByteSource {
 public:
  explicit SharedSource(std::shared_ptr<const std::string> s) : m_s(std::move(s)) {}
  std::size_t read(char* buf, std::size_t n) override {
    const std::size_t k = std::min(n, m_s->size() - m_pos);
    std::copy_n(m_s->data() + m_pos, k, buf);
    m_pos += k;
    return k;
  }

 private:
  std::shared_ptr<const std::string> m_s;
  std::size_t m_pos = 0;
};

/// A stream shared with its ProbedInput: one reader reads it, once.
class StreamSource final : public io::ByteSource {
 public:
  explicit StreamSource(std::shared_ptr<io::ByteSource> s) : m_s(std::move(s)) {}
  std::size_t read(char* buf, std::size_t n) override {
    const std::size_t got = m_s->read(buf, n);
    if (got == 0) m_error = m_s->error();
    return got;
  }

 private:
  std::shared_ptr<io::ByteSource> m_s;
};

}  // namespace

Expected<std::unique_ptr<io::LineReader>> open_reader(const ProbedInput& input) {
  if (input.stream)
    return std::make_unique<io::LineReader>(std::make_unique<StreamSource>(input.stream), io::Compression::none);
  if (!input.content) return io::LineReader::open(input.path);
  const std::size_t capacity =
      std::clamp<std::size_t>(input.content->size() + 1, io::LineReader::kMinBufferBytes, io::LineReader::kBlockBytes);
  return std::make_unique<io::LineReader>(std::make_unique<SharedSource>(input.content), io::Compression::none,
                                          capacity);
}

namespace {

/// Events parsed only to see the hosts their lines name.
class DroppedEvents final : public EventSink {
 public:
  void on_event(const Event&) override {}
};

/// The hosts the lines of a host log's start name, read by its own parser (the same host fields,
/// --no-hostname shapes and _HOSTNAME as the real parse); its events and counts are dropped.
std::vector<std::string> hosts_named_at_start(const std::string& path, std::string_view head, Format format,
                                              const prep::PrepOptions& options) {
  const std::size_t last_newline = head.rfind('\n');
  if (options.host_given || !format_traits(format).host_log || last_newline == std::string_view::npos) return {};
  auto whole_lines = std::make_shared<const std::string>(head.substr(0, last_newline + 1));
  io::LineReader reader(
      std::make_unique<SharedSource>(whole_lines), io::Compression::none,
      std::clamp<std::size_t>(whole_lines->size() + 1, io::LineReader::kMinBufferBytes, io::LineReader::kBlockBytes));
  prep::PrepOptions one_thread = options;
  one_thread.jobs = 1;
  one_thread.look_ahead = true;
  LocalClock clock = LocalClock::utc();  // only the hosts are kept, not the times
  DroppedEvents dropped;
  InputStats stats;
  stats.path = path;
  (void)prep::run_prep_input(reader, one_thread, clock, dropped, stats, format);
  return stats.hosts;
}

/// Opens a file that can be opened again and looks at its start: the only detection of its format.
Expected<ProbedInput> probe_file(const std::string& path, const prep::PrepOptions& options) {
  ProbedInput in;
  in.path = path;
  auto reader = io::LineReader::open(path);  // same checks and messages as the real open
  if (!reader) return reader.error();
  in.compression = (*reader)->compression();
  if (struct stat st{}; ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    in.size = static_cast<std::uint64_t>(st.st_size);
  const std::string_view head = (*reader)->peek(64 * 1024);
  in.format = options.forced;
  if (in.format == Format::unknown) {
    in.format = prep::detect_format(head, options);
    ++in.detections;
  }
  if (options.forced == Format::unknown && io::is_event_stream(head))
    in.kind = ProbedInput::Kind::event_stream;
  else if (extract::is_features_document(head))
    in.kind = ProbedInput::Kind::features_document;
  if (options.forced == Format::unknown && in.kind == ProbedInput::Kind::raw_log)
    GPUCOST_TRY(prep::check_format(head, in.format, options, path));
  if (in.kind == ProbedInput::Kind::raw_log) in.named_hosts = hosts_named_at_start(path, head, in.format, options);
  return in;
}

}  // namespace

Expected<std::vector<ProbedInput>> probe_inputs(const std::vector<std::string>& paths,
                                                const prep::PrepOptions& options) {
  std::vector<ProbedInput> out;
  out.reserve(paths.size());
  for (const std::string& p : paths) {
    if (io::read_once(p)) {
      if (p == "-") GPUCOST_TRY(io::check_stdin_open());
      ProbedInput pipe;
      pipe.path = p;
      pipe.read_once = true;
      pipe.format = options.forced;
      out.push_back(std::move(pipe));
      continue;
    }
    auto probed = probe_file(p, options);
    if (!probed) return probed.error();
    out.push_back(std::move(*probed));
  }
  return out;
}

bool is_readable_input(std::string_view head) {
  return prep::detect_format(head, prep::PrepOptions{}) != Format::unknown;
}

Status read_input_as(io::LineReader& reader, Format format, LocalClock& clock, EventSink& sink, InputStats& stats) {
  prep::PrepOptions options;
  options.forced = format;
  return prep::run_prep_input(reader, options, clock, sink, stats);
}

std::uint64_t plain_input_bytes(const std::vector<ProbedInput>& inputs) {
  std::uint64_t total = 0;
  for (const ProbedInput& in : inputs) {
    if (!in.size || in.compression != io::Compression::none) return 0;
    total += *in.size;
  }
  return total;
}

namespace {

// The quoted value after `"key"` and its colon on this line ("1718194938123456"); empty if absent.
std::string_view json_string_value(std::string_view line, std::string_view key) {
  std::size_t at = line.find(key);
  if (at == std::string_view::npos) return {};
  at = line.find(':', at + key.size());
  if (at == std::string_view::npos) return {};
  const std::size_t open = line.find('"', at);
  if (open == std::string_view::npos) return {};
  const std::size_t close = line.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

// Boot time (ns) of the last boot a journal JSON export covers: for every entry, realtime minus
// monotonic; per boot the smallest (later entries drift up by the time spent suspended).
std::optional<std::pair<std::int64_t, std::string>> journal_boot_time(const std::string& path) {
  auto reader = io::LineReader::open(path);
  if (!reader) return std::nullopt;
  std::string boot, last_boot;
  std::int64_t realtime = -1, monotonic = -1;  // -1: not seen yet in this entry
  std::int64_t best = -1;
  io::Line line;
  while ((*reader)->next(line)) {
    const std::string_view t = line.text;
    if (const auto v = json_string_value(t, "\"__REALTIME_TIMESTAMP\""); !v.empty())
      realtime = text::parse_int(v).value_or(-1);
    if (const auto v = json_string_value(t, "\"__MONOTONIC_TIMESTAMP\""); !v.empty())
      monotonic = text::parse_int(v).value_or(-1);
    if (const auto v = json_string_value(t, "\"_BOOT_ID\""); !v.empty()) boot.assign(v);
    if (realtime < 0 || monotonic < 0 || boot.empty()) continue;  // json-pretty: fields on several lines
    if (boot != last_boot) {
      last_boot = boot;
      best = -1;
    }
    const std::int64_t b = (realtime - monotonic) * 1000;
    if (best < 0 || b < best) best = b;
    realtime = monotonic = -1;
    boot.clear();
  }
  if (best < 0) return std::nullopt;
  return std::make_pair(best, last_boot);
}

}  // namespace

prep::PrepOptions with_journal_boot_time(const std::vector<ProbedInput>& inputs, prep::PrepOptions options) {
  if (options.boot_time_ns) return options;
  bool dmesg = false;
  std::vector<std::string> journals;
  for (const ProbedInput& in : inputs) {
    if (in.read_once) continue;  // stdin or a pipe can be read once only
    dmesg = dmesg || in.format == Format::dmesg;
    if (in.format == Format::journal_json) journals.push_back(in.path);
  }
  if (!dmesg) return options;
  for (const std::string& j : journals) {
    if (const auto found = journal_boot_time(j)) {
      options.boot_time_ns = found->first;
      options.boot_time_origin = "journal " + j + " (boot " + found->second + ")";
      break;
    }
  }
  return options;
}

prep::PrepOptions with_host_from_inputs(const std::vector<ProbedInput>& inputs, prep::PrepOptions options) {
  if (options.host_given) return options;
  std::vector<std::string> named;
  for (const ProbedInput& in : inputs)
    for (const std::string& h : in.named_hosts)
      if (std::find(named.begin(), named.end(), h) == named.end()) named.push_back(h);
  if (named.size() == 1) {
    options.host = named.front();
    options.host_basis = "logs";
  }
  return options;
}

namespace {

std::string display_path(const std::string& path) { return path == "-" ? "<stdin>" : path; }

auto refuse_features(const std::string& shown) {
  return make_error(ErrorKind::usage, fmt::format("{}: is a gpucost.features document", shown),
                    "features are breakeven's input; give extract the logs or an events stream");
}

/// Opens one input of a stage and looks at its start: a gpucost.events stream is read into
/// `sink` at once (the reader comes back null), a features document is refused; anything else
/// is a raw log, handed back unread. Sets the InputStats' path. A probed file's kind is known:
/// only an events stream is opened here; a raw log comes back null too, opened when it is read.
Expected<std::unique_ptr<io::LineReader>> open_input(const ProbedInput& in, const prep::PrepOptions& options,
                                                     EventSink& sink, InputStats& st) {
  st.path = display_path(in.path);
  if (!in.read_once && in.kind == ProbedInput::Kind::features_document) return refuse_features(st.path);
  if (!in.read_once && in.kind == ProbedInput::Kind::raw_log) return std::unique_ptr<io::LineReader>();
  auto reader = open_reader(in);
  if (!reader) return reader.error();
  (*reader)->set_max_line(options.max_line);
  const std::string_view head = (*reader)->peek(64 * 1024);
  if (options.forced == Format::unknown && io::is_event_stream(head)) {
    st.compression = std::string(io::to_string((*reader)->compression()));
    GPUCOST_TRY(io::read_event_stream(**reader, sink, st));
    return std::unique_ptr<io::LineReader>();
  }
  if (extract::is_features_document(head)) return refuse_features(st.path);
  return std::move(*reader);
}

/// A probed raw log, opened to be read (its second open).
Expected<std::unique_ptr<io::LineReader>> open_raw_log(const ProbedInput& input, const prep::PrepOptions& options) {
  auto reader = open_reader(input);
  if (!reader) return reader.error();
  (*reader)->set_max_line(options.max_line);
  return std::move(*reader);
}

/// A probed input that -j N may parse ahead: a profiler trace in a file (not a pipe, not in memory).
bool can_parse_ahead(const ProbedInput& in, const prep::PrepOptions& options) {
  return !in.read_once && !in.content && !in.stream && in.kind == ProbedInput::Kind::raw_log &&
         detail::parsed_whole(in.known_format(), options);
}

/// -j N: the traces from inputs[first] on, a few per thread, parsed side by side into `ahead`
/// (none when there is only one: it is read in turn).
void parse_next_traces(const std::vector<ProbedInput>& inputs, std::size_t first, const prep::PrepOptions& options,
                       const LocalClock& clock, std::vector<std::unique_ptr<detail::ParsedAhead>>& ahead) {
  std::vector<detail::AheadInput> batch;
  for (std::size_t i = first; i < inputs.size() && batch.size() < detail::ahead_batch(options); ++i)
    if (can_parse_ahead(inputs[i], options))
      batch.push_back({i, inputs[i].path, display_path(inputs[i].path), inputs[i].known_format()});
  detail::parse_ahead(batch, options, clock, ahead);
}

}  // namespace

Status feed_inputs(const std::vector<ProbedInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                   EventSink& sink, std::vector<InputStats>& stats) {
  std::vector<std::unique_ptr<detail::ParsedAhead>> ahead(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ProbedInput& in = inputs[i];
    if (!ahead[i] && options.jobs >= 2 && can_parse_ahead(in, options))
      parse_next_traces(inputs, i, options, clock, ahead);
    stats.emplace_back();
    if (ahead[i]) {  // parsed on another thread: its events in turn
      std::unique_ptr<detail::ParsedAhead> parsed = std::move(ahead[i]);
      stats.back() = std::move(parsed->stats);
      clock.add_fall_backs(parsed->clock);
      parsed->events.replay(sink);
      GPUCOST_TRY(parsed->status);
      continue;
    }
    auto reader = open_input(in, options, sink, stats.back());
    if (!reader) return reader.error();
    if (!*reader && !in.read_once && in.kind == ProbedInput::Kind::raw_log) reader = open_raw_log(in, options);
    if (!reader) return reader.error();
    if (!*reader) continue;  // an events stream, read
    GPUCOST_TRY(prep::run_prep_input(**reader, options, clock, sink, stats.back(), in.known_format()));
  }
  return {};
}

namespace {

void widen(std::optional<prep::TelemetrySpan>& span, std::int64_t first_ns, std::int64_t last_ns) {
  if (!span) span = prep::TelemetrySpan{first_ns, last_ns};
  span->first_ns = std::min(span->first_ns, first_ns);
  span->last_ns = std::max(span->last_ns, last_ns);
}

/// A chunk's events on their way to a fork of the sink after a TelemetrySpanSink, with their span.
class SpanFork final : public EventSink {
 public:
  explicit SpanFork(std::unique_ptr<EventSink> to) : inner(std::move(to)) {}
  void on_event(const Event& event) override {
    if (event.kind == "sample") widen(span, event.ts_ns, event.ts_ns);
    inner->on_event(event);
  }
  std::unique_ptr<EventSink> inner;
  std::optional<prep::TelemetrySpan> span;
};

}  // namespace

void TelemetrySpanSink::on_event(const Event& event) {
  if (event.kind == "sample") widen(m_span, event.ts_ns, event.ts_ns);
  m_sink.on_event(event);
}

std::unique_ptr<EventSink> TelemetrySpanSink::fork() { return std::make_unique<SpanFork>(m_sink.forkable()->fork()); }

void TelemetrySpanSink::join(EventSink& forked) {
  auto& chunk = static_cast<SpanFork&>(forked);
  if (chunk.span) widen(m_span, chunk.span->first_ns, chunk.span->last_ns);
  chunk.span.reset();
  m_sink.forkable()->join(*chunk.inner);
}

void TelemetrySpanSink::discard(EventSink& forked) {
  auto& chunk = static_cast<SpanFork&>(forked);
  chunk.span.reset();
  m_sink.forkable()->discard(*chunk.inner);
}

namespace {

void warn_outside(InputStats& st, const prep::TelemetrySpan& span) {
  if (!format_traits(st.format).host_log || st.events == 0) return;
  const std::string shift = prep::describe_shift(st.first_ts_ns, st.last_ts_ns, span);
  if (shift.empty()) return;
  st.warnings.push_back(
      fmt::format("its {} event{} {} {} (telemetry {} to {}): not priced; check --year, "
                  "--boot-time, --tz or the machine's clock",
                  st.events, st.events == 1 ? "" : "s", st.events == 1 ? "falls" : "fall", shift,
                  format_utc(span.first_ns), format_utc(span.last_ns)));
}

/// The telemetry of several hosts is priced host by host (a GPU is its host and index); the
/// incidents of a host that no telemetry names are priced with the first host's GPUs, so a host
/// log naming one is warned of.
void warn_several_hosts(std::span<InputStats> stats) {
  const auto gives_samples = [](const InputStats& st) {
    if (format_traits(st.format).telemetry) return true;
    Format f = Format::unknown;  // an events stream: the formats prep read
    return std::any_of(st.upstream_formats.begin(), st.upstream_formats.end(), [&f](const std::string& name) {
      return format_from_name(name, f) && format_traits(f).telemetry;
    });
  };
  std::vector<std::string> hosts, sampled;
  InputStats* second = nullptr;  // the input that names the second host
  for (InputStats& st : stats)
    for (const std::string& h : st.hosts) {
      if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
      if (hosts.size() == 2 && second == nullptr) second = &st;
      if (gives_samples(st) && std::find(sampled.begin(), sampled.end(), h) == sampled.end()) sampled.push_back(h);
    }
  if (second == nullptr) return;
  InputStats* stranger = nullptr;  // the first input naming a host no telemetry names
  std::string name;
  for (InputStats& st : stats)
    for (const std::string& h : st.hosts)
      if (stranger == nullptr && std::find(sampled.begin(), sampled.end(), h) == sampled.end()) {
        stranger = &st;
        name = h;
      }
  if (stranger == nullptr) return;
  if (sampled.empty()) {
    second->warnings.push_back(fmt::format(
        "the host logs of this run name {} hosts ({}): their incidents are priced as one machine's; give each "
        "host's telemetry beside its logs (each host is then priced apart), or --host if they are one machine",
        hosts.size(), text::join(hosts, ", ")));
    return;
  }
  stranger->warnings.push_back(
      fmt::format("the host logs name {}, which no telemetry of this run names: its incidents are priced with "
                  "{}'s GPUs; give {}'s telemetry too (each host is then priced apart), or --host if they are one "
                  "machine",
                  name, sampled.front(), name));
}

/// Reads one group of raw logs of the same format into `sink`: merged by time when there are
/// several, else straight through.
Status read_group(std::vector<MergeInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                  EventSink& sink) {
  if (inputs.size() > 1) return merge_into(inputs, options, clock, sink);
  MergeInput& in = inputs[0];
  if (!in.reader) {
    auto reader = io::LineReader::open(in.path);
    if (!reader) return reader.error();
    (*reader)->set_max_line(options.max_line);
    in.reader = std::move(*reader);
  }
  return prep::run_prep_input(*in.reader, options, clock, sink, *in.stats, in.format);
}

}  // namespace

void check_clocks_and_hosts(std::span<InputStats> stats, const std::optional<prep::TelemetrySpan>& span) {
  if (span)
    for (InputStats& st : stats) warn_outside(st, *span);
  warn_several_hosts(stats);
}

Status collect_inputs(const std::vector<ProbedInput>& probed_inputs, const prep::PrepOptions& options,
                      LocalClock& clock, EventSink& out, std::vector<InputStats>& stats) {
  // A parse keeps a reference to its InputStats: no reallocation from here on.
  stats.reserve(stats.size() + probed_inputs.size());
  const std::size_t first_stats = stats.size();
  TelemetrySpanSink sink(out);
  // Raw logs by format, in command-line order: only logs of one format can repeat each other's
  // events (an event's source is its format), so only those are merged.
  std::vector<std::pair<Format, std::vector<MergeInput>>> groups;
  for (const ProbedInput& probed : probed_inputs) {
    stats.emplace_back();
    InputStats& st = stats.back();
    auto reader = open_input(probed, options, sink, st);
    if (!reader) return reader.error();
    const bool unread_file = !probed.read_once && probed.kind == ProbedInput::Kind::raw_log;
    if (!*reader && !unread_file) continue;  // an events stream, read
    // A pipe's format is detected here, from the reader that reads it, and handed on to its parse.
    const Format format = unread_file || options.forced != Format::unknown
                              ? probed.format
                              : prep::detect_format((*reader)->peek(64 * 1024), options);
    auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == format; });
    if (group == groups.end()) {
      groups.emplace_back(format, std::vector<MergeInput>{});
      group = std::prev(groups.end());
    }
    MergeInput in{probed.path, nullptr, &st, format};
    if (probed.read_once) in.reader = std::move(*reader);  // else opened when read
    if (probed.content || probed.stream) {                 // in memory or fetched: "opened" now, read in its turn
      auto held = open_raw_log(probed, options);
      if (!held) return held.error();
      in.reader = std::move(*held);
    }
    group->second.push_back(std::move(in));
  }
  // The telemetry first, then the logs without a year, dated against it.
  for (auto& [format, inputs] : groups)
    if (!format_traits(format).year_less) GPUCOST_TRY(read_group(inputs, options, clock, sink));
  prep::PrepOptions dated = options;
  dated.telemetry_span = sink.span();
  for (auto& [format, inputs] : groups)
    if (format_traits(format).year_less) GPUCOST_TRY(read_group(inputs, dated, clock, sink));
  check_clocks_and_hosts(std::span(stats).subspan(first_stats), sink.span());
  return {};
}

Expected<extract::Features> collect_features(const std::vector<ProbedInput>& inputs, const prep::PrepOptions& options,
                                             LocalClock& clock, EventSink& sink, extract::SampleCollector& samples,
                                             const extract::ExtractOptions& extract_options,
                                             std::vector<InputStats>& stats) {
  GPUCOST_TRY(collect_inputs(inputs, options, clock, sink, stats));
  samples.note_inputs(stats);
  return extract::compute_features(samples, extract_options);
}

namespace {

/// A features document, read whole from `reader`.
Expected<extract::Features> read_features_document(io::LineReader& reader, const std::string& path) {
  std::string text;
  io::Line line;
  while (reader.next(line)) {
    text.append(line.text);
    text.push_back('\n');
  }
  return extract::features_from_json(text, display_path(path));
}

}  // namespace

Expected<extract::Features> load_features(const std::vector<ProbedInput>& inputs, const prep::PrepOptions& options,
                                          LocalClock& clock, const extract::ExtractOptions& extract_options,
                                          std::vector<InputStats>& stats) {
  if (inputs.size() == 1 && !inputs[0].read_once && inputs[0].kind == ProbedInput::Kind::features_document) {
    auto reader = io::LineReader::open(inputs[0].path);
    if (!reader) return reader.error();
    return read_features_document(**reader, inputs[0].path);
  }
  if (inputs.size() == 1 && inputs[0].read_once) {
    const std::string& path = inputs[0].path;
    auto reader = io::LineReader::open(path);
    if (!reader) return reader.error();
    if (extract::is_features_document((*reader)->peek(4096))) return read_features_document(**reader, path);
    // stdin or a pipe cannot be reopened: feed this reader directly.
    extract::SampleCollector samples;
    stats.emplace_back();
    InputStats& st = stats.back();
    st.path = display_path(path);
    if (io::is_event_stream((*reader)->peek(4096))) {
      GPUCOST_TRY(io::read_event_stream(**reader, samples, st));
    } else if (auto s = prep::run_prep_input(**reader, options, clock, samples, st); !s) {
      return s.error();
    }
    check_clocks_and_hosts(stats, std::nullopt);  // one input: its own hosts only
    samples.note_inputs(stats);
    return extract::compute_features(samples, extract_options);
  }
  extract::SampleCollector samples;
  return collect_features(inputs, options, clock, samples, samples, extract_options, stats);
}

}  // namespace gpucost::pipeline

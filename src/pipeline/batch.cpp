#include <gpucost/pipeline/batch.hpp>

#include <gpucost/extract/extract.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/inputs.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gpucost::pipeline {

std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

// ---- the state file -------------------------------------------------------------------------

namespace {

Error corrupt_state(const std::string& path, std::string_view why) {
  return make_error(ErrorKind::usage, fmt::format("{}: not a usable batch state file: {}", path, why),
                    fmt::format("move it aside (mv {0} {0}.bad) to start over: the next run then reads every "
                                "input from the start, so give it only logs not priced before",
                                path));
}

bool read_u64(simdjson::dom::element e, const char* key, std::uint64_t& out) {
  return e[key].get_uint64().get(out) == simdjson::SUCCESS;
}

Expected<FileRecord> record_from_json(simdjson::dom::element e, const std::string& path) {
  FileRecord r;
  std::string_view name, hash;
  std::int64_t seen = 0;
  if (e["path"].get_string().get(name) != simdjson::SUCCESS ||
      e["head_fnv1a64"].get_string().get(hash) != simdjson::SUCCESS ||
      e["seen_ns"].get_int64().get(seen) != simdjson::SUCCESS || !read_u64(e, "device", r.device) ||
      !read_u64(e, "inode", r.inode) || !read_u64(e, "size", r.size) || !read_u64(e, "head_bytes", r.head_bytes) ||
      !read_u64(e, "offset", r.offset) || !read_u64(e, "lines", r.lines))
    return corrupt_state(path, "a file entry lacks a field or has one of the wrong type");
  if (hash.size() != 16 || r.head_bytes == 0 || r.head_bytes > kHeadBytes || r.head_bytes > r.offset)
    return corrupt_state(path, fmt::format("the entry of {} is inconsistent", name));
  r.path = std::string(name);
  r.head_hash = std::string(hash);
  r.seen_ns = seen;
  return r;
}

}  // namespace

Expected<BatchState> BatchState::load(const std::string& path) {
  BatchState state;
  auto reader = io::LineReader::open(path);
  if (!reader) {
    if (errno == ENOENT || ::access(path.c_str(), F_OK) != 0) return state;  // the first run
    return reader.error();
  }
  std::string text;
  std::vector<char> buf(64 * 1024);
  for (std::size_t got = 0; (got = (*reader)->read_bytes(buf.data(), buf.size())) > 0;) text.append(buf.data(), got);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text.data(), text.size()).get(doc) != simdjson::SUCCESS)
    return corrupt_state(path, "not valid JSON");
  std::string_view schema;
  std::int64_t version = 0;
  if (doc["schema"].get_string().get(schema) != simdjson::SUCCESS || schema != kBatchStateSchema)
    return corrupt_state(path, fmt::format("its schema is not {}", kBatchStateSchema));
  if (doc["version"].get_int64().get(version) != simdjson::SUCCESS || version != kBatchStateVersion)
    return corrupt_state(
        path, fmt::format("version {} is not the version this gpucost writes ({})", version, kBatchStateVersion));
  if (doc["priced_to_ns"].get_int64().get(state.priced_to_ns) != simdjson::SUCCESS)
    return corrupt_state(path, "no \"priced_to_ns\" number");
  simdjson::dom::array files;
  if (doc["files"].get_array().get(files) != simdjson::SUCCESS) return corrupt_state(path, "no \"files\" list");
  for (simdjson::dom::element e : files) {
    auto r = record_from_json(e, path);
    if (!r) return r.error();
    state.files.push_back(std::move(*r));
  }
  return state;
}

std::string BatchState::to_json() const {
  std::string out;
  io::JsonWriter w(out);
  w.object().line("  ").key("schema").str(kBatchStateSchema).line("  ").key("version").integer(kBatchStateVersion);
  w.line("  ").key("priced_to_ns").integer(priced_to_ns).line("  ").key("files").array();
  for (const FileRecord& r : files) {  // one file a line
    w.line("    ").item().object().key("path").str(r.path).key("device").count(r.device).key("inode").count(r.inode);
    w.key("size").count(r.size).key("head_bytes").count(r.head_bytes).key("head_fnv1a64").str(r.head_hash);
    w.key("offset").count(r.offset).key("lines").count(r.lines).key("seen_ns").integer(r.seen_ns).close();
  }
  w.close(files.empty() ? "" : "\n  ").close("\n");
  out.push_back('\n');
  return out;
}

Status BatchState::save(const std::string& path) const {
  auto out = io::OutputFile::open(path);
  if (!out) return out.error();
  const std::string text = to_json();
  std::fwrite(text.data(), 1, text.size(), out->stream());
  return out->commit();
}

void BatchState::forget_old(std::int64_t now_ns) {
  std::erase_if(files, [now_ns](const FileRecord& r) { return r.seen_ns < now_ns - kForgetAfterNs; });
}

// ---- the lock -------------------------------------------------------------------------------

Expected<BatchLock> BatchLock::acquire(const std::string& state_path, bool wait) {
  const std::string lock_path = state_path + ".lock";
  // Never through a link or into a FIFO planted at the name (docs/security.md).
  auto opened = io::open_own_file(lock_path, true, io::Readers::private_);
  if (!opened)
    return make_error(ErrorKind::io, fmt::format("cannot open the lock file: {}", opened.error().message),
                      "the state file's directory must be writable, and the lock a regular file (or absent)");
  const int fd = *opened;
  int rc = 0;
  while ((rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK)
      return make_error(ErrorKind::io, fmt::format("{}: another gpucost batch run holds this state's lock", lock_path),
                        "it is still running (overlapping cron runs); this run did nothing. Use --wait to queue "
                        "behind it instead");
    return make_error(ErrorKind::io, fmt::format("{}: cannot lock: {}", lock_path, std::strerror(err)));
  }
  return BatchLock(fd);
}

BatchLock::BatchLock(BatchLock&& other) noexcept : m_fd(other.m_fd) { other.m_fd = -1; }

BatchLock::~BatchLock() {
  if (m_fd >= 0) ::close(m_fd);  // closing releases the flock
}

// ---- reading what is new ----------------------------------------------------------------------

namespace {

/// Forwards events only while open: the lines replayed to restore a parser's state (headers)
/// must not count again. After a resume it opens with the first new line: what a parser emits
/// before one (at the end of an input with nothing new) comes from the replayed lines.
class GateSink final : public EventSink {
 public:
  explicit GateSink(EventSink& sink) : m_sink(sink) {}
  void on_event(const Event& event) override {
    if (m_open || (m_new_lines != nullptr && *m_new_lines > 0)) m_sink.on_event(event);
  }
  void open_at_new_line(const std::uint64_t& new_lines) { m_new_lines = &new_lines; }
  void close() {
    m_open = false;
    m_new_lines = nullptr;
  }

 private:
  EventSink& m_sink;
  bool m_open = true;
  const std::uint64_t* m_new_lines = nullptr;  ///< the input's line count since the resume point
};

/// The facts a file is recognised by.
struct Candidate {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::string head;  ///< up to kHeadBytes decompressed bytes
};

bool same_content(const FileRecord& r, const Candidate& c) {
  return r.head_bytes > 0 && r.head_bytes <= c.head.size() &&
         fnv1a64_hex(std::string_view(c.head).substr(0, r.head_bytes)) == r.head_hash;
}

/// The record this file continues: the same inode with the same first bytes (appended to, or
/// renamed), else any record with the same first bytes (a compressed copy of a rotation),
/// preferring the longest hashed prefix, then the furthest read.
FileRecord* find_record(BatchState& state, const Candidate& c) {
  FileRecord* best = nullptr;
  for (FileRecord& r : state.files) {
    if (!same_content(r, c)) continue;
    if (r.device == c.device && r.inode == c.inode) return &r;
    if (best == nullptr || r.head_bytes > best->head_bytes ||
        (r.head_bytes == best->head_bytes && r.offset > best->offset))
      best = &r;
  }
  return best;
}

/// The counts of the lines replayed before the resume point are not this run's.
void forget_replayed_lines(InputStats& st) {
  st.lines = st.events = st.ignored = st.malformed = st.event_lines = 0;
  st.first_ts_ns = st.last_ts_ns = 0;
  st.examples.clear();
  st.clock_anomalies = {};
  st.repeated_hours.clear();
}

/// Replays the first lines (for the parser's headers, events dropped, also those the parser
/// holds back until a later line dates them), then skips to `from`.
bool resume(prep::InputParse& parse, io::LineReader& reader, GateSink& gate, const FileRecord& from, InputStats& st) {
  gate.close();
  const std::uint64_t replay_to = std::min(from.offset, kHeadBytes);
  while (reader.position() < replay_to && parse.step()) {
  }
  parse.end_replay();
  const bool reached = reader.skip_to(from.offset, from.lines);
  forget_replayed_lines(st);
  gate.open_at_new_line(st.lines);
  return reached;
}

struct OneInput {
  BatchInput input;
  FileRecord record;
  bool recorded = false;  ///< a new record to add (false: an empty file, or its own record was updated)
};

Expected<OneInput> read_one(const ProbedInput& probed, BatchState& state, const prep::PrepOptions& options,
                            LocalClock& clock, EventSink& sink, InputStats& st, std::int64_t now_ns) {
  const std::string& path = probed.path;
  auto opened = io::LineReader::open(path);
  if (!opened) return opened.error();
  io::LineReader& reader = **opened;
  reader.hold_back_unterminated_line();
  reader.set_max_line(options.max_line);
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0)
    return make_error(ErrorKind::io, fmt::format("{}: cannot stat: {}", path, std::strerror(errno)));
  Candidate c{static_cast<std::uint64_t>(sb.st_dev), static_cast<std::uint64_t>(sb.st_ino),
              static_cast<std::uint64_t>(sb.st_size), std::string(reader.peek(kHeadBytes))};
  if (io::is_event_stream(c.head) || extract::is_features_document(c.head))
    return make_error(ErrorKind::usage, fmt::format("{}: batch reads raw logs, not gpucost documents", path),
                      "give batch the logs themselves (kern.log, telemetry CSVs, journal exports)");
  FileRecord* known = find_record(state, c);
  // A rotated copy keeps the record it continues alive, so that later copies still match it.
  if (known != nullptr) known->seen_ns = now_ns;
  // This file's own record is updated in place; a copy's, or a reused inode's, is left as it is.
  FileRecord* own = known != nullptr && known->device == c.device && known->inode == c.inode ? known : nullptr;
  OneInput out;
  out.input.path = path;
  out.input.how = known == nullptr                                       ? "new"
                  : known->device == c.device && known->inode == c.inode ? "resumed"
                                                                         : "rotated copy of " + known->path;
  GateSink gate(sink);
  prep::InputParse parse(reader, options, clock, gate, st);
  GPUCOST_TRY(parse.start(probed.known_format()));
  if (known != nullptr && format_traits(st.format).whole_document) {
    out.input.how = "read before (a whole document is read once)";
    return out;
  }
  if (known != nullptr && reader.compression() == io::Compression::none && c.size < known->offset) {
    out.input.how = "shorter than when read: read from the start";
    known = nullptr;
  }
  if (known != nullptr) {
    out.input.from_offset = known->offset;
    out.input.from_line = known->lines;
    if (!resume(parse, reader, gate, *known, st)) {
      out.input.how = "ends before the recorded offset: not read";
      return out;
    }
  }
  while (parse.step()) {
  }
  // Nothing new after the resume point: the events a parser still let go at the end (a record
  // or held events of the replayed lines) were the gate's to drop, and are no new events.
  if (known != nullptr && st.lines == 0) forget_replayed_lines(st);
  out.input.to_offset = reader.position();
  out.input.to_line = out.input.from_line + st.lines;
  if (out.input.to_offset == out.input.from_offset && known != nullptr && out.input.how == "resumed")
    out.input.how = "unchanged";
  const std::uint64_t head_bytes =
      std::min({kHeadBytes, out.input.to_offset, static_cast<std::uint64_t>(c.head.size())});
  out.record = FileRecord{path,
                          c.device,
                          c.inode,
                          c.size,
                          head_bytes,
                          fnv1a64_hex(std::string_view(c.head).substr(0, head_bytes)),
                          out.input.to_offset,
                          out.input.to_line,
                          now_ns};
  out.recorded = head_bytes > 0;
  if (own != nullptr && out.recorded) {
    *own = std::move(out.record);
    out.recorded = false;
  }
  return out;
}

}  // namespace

Expected<std::vector<BatchInput>> read_new_data(const std::vector<ProbedInput>& inputs, BatchState& state,
                                                const prep::PrepOptions& options, LocalClock& clock, EventSink& sink,
                                                std::vector<InputStats>& stats, std::int64_t now_ns) {
  for (const ProbedInput& in : inputs) {
    const std::string& path = in.path;
    if (path == "-")
      return make_error(ErrorKind::usage, "batch: stdin cannot be resumed",
                        "give batch files, e.g. /var/log/kern.log*");
    if (in.read_once)
      return make_error(ErrorKind::usage, fmt::format("batch: {} is a pipe or a device, it cannot be resumed", path),
                        "give batch files, e.g. /var/log/kern.log*");
  }
  const std::size_t first = stats.size();
  for (const ProbedInput& in : inputs) stats.emplace_back().path = in.path;
  std::vector<BatchInput> out(inputs.size());
  TelemetrySpanSink spans(sink);
  prep::PrepOptions dated = options;
  // The telemetry first, then the logs without a year, dated against it (as collect_inputs).
  for (const bool year_less : {false, true}) {
    if (year_less) dated.telemetry_span = spans.span();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (format_traits(inputs[i].format).year_less != year_less) continue;
      auto one = read_one(inputs[i], state, dated, clock, spans, stats[first + i], now_ns);
      if (!one) return one.error();
      if (one->recorded) state.files.push_back(std::move(one->record));
      out[i] = std::move(one->input);
    }
  }
  check_clocks_and_hosts(std::span(stats).subspan(first), spans.span());
  return out;
}

void continue_window(const BatchState& state, std::int64_t first_sample_ns, extract::ExtractOptions& window) {
  if (window.from_ns || state.priced_to_ns == 0) return;
  if (first_sample_ns >= state.priced_to_ns && first_sample_ns - state.priced_to_ns <= BatchState::kContinueWindowNs)
    window.from_ns = state.priced_to_ns;
}

}  // namespace gpucost::pipeline

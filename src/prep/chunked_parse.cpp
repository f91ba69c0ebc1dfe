// prep -j N on one input: chunks of lines parsed side by side, joined in input order.
//
// The reading thread (this one) cuts the lines into chunks and hands each to a worker with a copy
// of the parser, the clock and empty accounting. A worker's events go to a fork of the sink and
// their times are written down, not checked against the events before (ParseContext::time_marks).
// Joining a chunk, in input order, is what one thread would have done at its lines: the parser
// takes the chunk's end state, the clock checks run over the chunk's times, the accounting is
// added, and the fork's events are handed on. A chunk whose start state was not the true one is
// parsed again here. So the output is byte for byte that of -j 1 (tests/cli/jobs_identical.sh).
#include "chunked_parse.hpp"

#include <gpucost/core/log.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

namespace gpucost::prep {

namespace {

/// The lines parsed on this thread before any is handed out: they hold a table's header.
constexpr std::uint64_t kFirstBytes = 64u << 10;
/// A chunk: large enough that handing it out costs little next to its parse, small enough that
/// the few in flight (their lines and their formatted events) stay in the cores' caches.
constexpr std::size_t kChunkBytes = 128u << 10;
/// A chunk a worker reads from the file itself: fewer hand-overs (each wakes a thread: a few
/// microseconds on a VM), still within the core's L2 from the read to the parse.
constexpr std::size_t kDirectChunkBytes = 256u << 10;

/// A chunk that the parser would not let end (a json-pretty object that never closes) ends at
/// this many chunks' bytes all the same (16 MiB): the next one then starts inside a record, and
/// is parsed again when joined.
constexpr std::size_t kLargestChunkFactor = 128;

struct ChunkSizes {
  std::uint64_t first = kFirstBytes;
  std::size_t chunk = kChunkBytes;
  std::size_t largest = kChunkBytes * kLargestChunkFactor;
  std::size_t direct = kDirectChunkBytes;
};

/// GPUCOST_CHUNK_BYTES=N (tests: tests/cli/jobs_identical.sh) cuts after N bytes from the start,
/// so that the small inputs of the tests are cut into many chunks too.
ChunkSizes chunk_sizes() {
  const char* v = std::getenv("GPUCOST_CHUNK_BYTES");
  const auto n = v != nullptr ? text::parse_int(v) : std::nullopt;
  if (!n || *n < 1 || *n > (1 << 30)) return {};
  const auto bytes = static_cast<std::size_t>(*n);
  return {bytes, bytes, bytes * kLargestChunkFactor, bytes};
}

/// The first line numbers of chunks read straight from the file (direct reads). Chunk k's first
/// line is known once chunk k - 1 has counted its lines: each worker counts its own chunk's,
/// waits for the number of its first line and hands on the sum. One slot per chunk, in a ring
/// larger than the chunks in flight: a slot is written again only long after it was read.
class LineNumbers {
 public:
  explicit LineNumbers(std::size_t in_flight) : m_count(2 * in_flight + 2), m_slots(new Slot[m_count]) {}
  void publish(std::uint64_t seq, std::uint64_t first_line) {
    Slot& s = m_slots[seq % m_count];
    s.line = first_line;
    s.seq.store(seq + 1, std::memory_order_release);
    s.seq.notify_all();
  }
  std::uint64_t wait(std::uint64_t seq) {
    Slot& s = m_slots[seq % m_count];
    for (;;) {
      const std::uint64_t have = s.seq.load(std::memory_order_acquire);
      if (have == seq + 1) return s.line;
      s.seq.wait(have, std::memory_order_acquire);
    }
  }

 private:
  struct Slot {
    std::atomic<std::uint64_t> seq{0};  // the chunk's sequence number + 1 once `line` is set
    std::uint64_t line = 0;
  };
  std::size_t m_count;
  std::unique_ptr<Slot[]> m_slots;
};

/// What the workers of direct reads share.
struct DirectRead {
  io::DirectFile file;
  std::size_t max_line = 0;
  LineNumbers* numbers = nullptr;
};

struct Chunk {
  // Filled by the reading thread.
  std::string text;                                               // the lines, as read_chunk() stores them
  std::vector<std::pair<std::uint64_t, std::uint64_t>> overlong;  // line number, full length
  std::uint64_t first_line = 0, line_count = 0;
  // The chunk's parse, on a worker.
  std::optional<LocalClock> clock;
  InputStats stats;
  std::unique_ptr<EventSink> sink;  // a fork, kept for the next chunk (its buffer too)
  std::unique_ptr<ParseContext> ctx;
  std::unique_ptr<LineParser> parser;
  std::vector<ParseContext::TimeMark> marks;
  std::uint64_t skim_round = 0;  // the skimmer's corrections before this chunk was copied from it
  std::exception_ptr error;
  bool done = false;  // guarded by the workers' mutex
  // A direct read: the worker reads the lines starting in [from, to) of the input itself.
  const DirectRead* direct = nullptr;
  std::uint64_t seq = 0, from = 0, to = 0;
  std::uint64_t end = 0;        // set by the worker: the input's offset just after the chunk's last line
  bool last = false;            // the input (as it stood) ends inside or just after this chunk
  bool stop = false;            // a line the chunk cannot take whole (overlong, a read error): the lines
                                // from its start on are read on one thread
  std::unique_ptr<char[]> raw;  // the bytes read, [from - 1, ...)
  std::size_t raw_cap = 0, raw_len = 0;
  std::string_view lines;  // the chunk's lines in `raw` (a direct read) or `text`
};

/// The last line of the chunk's text, as the reader handed it out.
std::string_view last_line(const std::string& text) {
  std::string_view t(text);
  t.remove_suffix(1);               // its '\n'
  t = t.substr(t.rfind('\n') + 1);  // npos + 1 == 0
  if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
  return t;
}

/// Shows each line of `text` (whole lines, each ending in '\n', as append_lines() copies them) to
/// `skimmer`, as next() would hand it out (one '\r' taken off).
void skim_lines(LineParser& skimmer, std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    std::string_view line = text.substr(at, nl - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    skimmer.skim(line);
    at = nl + 1;
  }
}

/// Reads lines until the chunk holds sizes.chunk bytes and `parser` may cut after the last one
/// (or it holds sizes.largest), showing each to `skimmer` if there is one; false when the input
/// had none left. The lines are copied as read, many at once (with the '\r' next() would take
/// off); a line read with next() (one too long to take whole, or one past the chunk's bytes while
/// the parser may not cut yet) is stored with "\r\n".
/// for_each_line() takes one '\r' off each, which gives every line as next() hands it out.
bool read_chunk(io::LineReader& reader, Chunk& chunk, const ChunkSizes& sizes, const LineParser& parser,
                LineParser* skimmer) {
  chunk.text.clear();
  chunk.overlong.clear();
  chunk.line_count = 0;
  io::Line line;
  bool cut = false;
  while (!(cut && chunk.text.size() >= sizes.chunk) && chunk.text.size() < sizes.largest) {
    const std::size_t before = chunk.text.size();
    if (const std::size_t n = reader.append_lines(chunk.text, sizes.chunk); n > 0) {
      if (chunk.line_count == 0) chunk.first_line = reader.lines_read() - n + 1;
      chunk.line_count += n;
      if (skimmer != nullptr) skim_lines(*skimmer, std::string_view(chunk.text).substr(before));
      cut = parser.may_cut_after(last_line(chunk.text));
      continue;
    }
    if (!reader.next(line)) break;  // a line too long to take whole, one more line before a cut, or the end
    if (chunk.line_count++ == 0) chunk.first_line = line.number;
    chunk.text.append(line.text);
    chunk.text += "\r\n";  // for_each_line() takes the '\r' off: the text is the line's as handed out
    cut = line.overlong || parser.may_cut_after(line.text);
    if (line.overlong)
      chunk.overlong.emplace_back(line.number, line.full_length);
    else if (skimmer != nullptr)
      skimmer->skim(line.text);
  }
  chunk.lines = chunk.text;
  return chunk.line_count > 0;
}

/// Calls `f` with each line of the chunk, as the reader handed it out. With `skip` (the
/// prefilter, LineParser::skip_ignored), lines it skips are counted as ignored instead. A direct
/// read's line longer than the reader takes whole stops the chunk (Chunk::stop).
template <class F>
void for_each_line(Chunk& chunk, F&& f, LineParser* skip = nullptr, InputStats* stats = nullptr) {
  const std::string_view text = chunk.lines;
  const std::size_t max_line = chunk.direct != nullptr ? chunk.direct->max_line : text.size();
  std::size_t at = 0, next_overlong = 0;
  for (std::uint64_t i = 0; i < chunk.line_count; ++i) {
    if (skip != nullptr) {
      // An overlong line is stored cut, with "\r\n": the parser skips no line ending in '\r'.
      std::uint64_t skipped = 0;
      const std::size_t bytes = skip->skip_ignored(text.substr(at), skipped);
      if (skipped > 0) {
        at += bytes;
        i += skipped - 1;
        stats->lines += skipped;
        stats->ignored += skipped;
        continue;
      }
    }
    const std::size_t nl = text.find('\n', at);  // every line is followed by one
    if (nl - at > max_line) {
      chunk.stop = true;
      return;
    }
    std::string_view t = text.substr(at, nl - at);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    io::Line line{t, chunk.first_line + i, 0, false};
    if (next_overlong < chunk.overlong.size() && chunk.overlong[next_overlong].first == line.number) {
      line.full_length = chunk.overlong[next_overlong++].second;
      line.overlong = true;
    }
    f(line);
    at = nl + 1;
  }
}

/// Reads bytes of the direct file from the input's offset `at` into `dst`, up to `n` (fewer at
/// its end, or on a read error).
std::size_t read_at(const io::DirectFile& file, std::uint64_t at, char* dst, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t k = ::pread(file.fd, dst + got, n - got, static_cast<off_t>(file.offset + at + got));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += static_cast<std::size_t>(k);
  }
  return got;
}

/// A direct read's bytes, [base, base + raw_len) of the input, read on as far as needed.
class ChunkBytes {
 public:
  ChunkBytes(Chunk& chunk, std::uint64_t base) : m_chunk(chunk), m_base(base) { m_chunk.raw_len = 0; }
  /// The input's offset of the first '\n' at or after `at`, reading on while the line it ends
  /// could still be taken whole; nullopt at the end of the input (as it stood) or past that.
  std::optional<std::uint64_t> newline_at(std::uint64_t at, std::size_t longest) {
    std::uint64_t searched = at;
    for (;;) {
      const std::uint64_t have = m_base + m_chunk.raw_len;
      if (searched < have) {
        const char* p = m_chunk.raw.get() + (searched - m_base);
        const void* nl = std::memchr(p, '\n', have - searched);
        if (nl != nullptr) return searched + static_cast<std::uint64_t>(static_cast<const char*>(nl) - p);
        searched = have;
      }
      if (have > at + longest || !read_more()) return std::nullopt;
    }
  }
  [[nodiscard]] std::uint64_t read_to() const { return m_base + m_chunk.raw_len; }

  bool read_more() {
    const io::DirectFile& file = m_chunk.direct->file;
    const std::uint64_t have = m_base + m_chunk.raw_len;
    if (have >= file.size) return false;
    // The first read reaches a little past `to` (for the line that crosses it), each later one a little further.
    const std::uint64_t until = std::min<std::uint64_t>(file.size, std::max(m_chunk.to, have) + kSlack);
    const auto want = static_cast<std::size_t>(until - have);
    if (m_chunk.raw_cap - m_chunk.raw_len < want) {
      const std::size_t cap = std::max(m_chunk.raw_len + want, 2 * m_chunk.raw_cap);
      std::unique_ptr<char[]> grown(new char[cap]);
      if (m_chunk.raw_len > 0) std::memcpy(grown.get(), m_chunk.raw.get(), m_chunk.raw_len);
      m_chunk.raw = std::move(grown);
      m_chunk.raw_cap = cap;
    }
    const std::size_t got = read_at(file, have, m_chunk.raw.get() + m_chunk.raw_len, want);
    m_chunk.raw_len += got;
    return got == want;  // short: the file shrank, or a read error (the one thread reports it)
  }

 private:
  static constexpr std::uint64_t kSlack = 4u << 10;  // read past `to` for the line that crosses it
  Chunk& m_chunk;
  std::uint64_t m_base;
};

/// A direct read on its worker: finds the chunk's lines (those that start in [from, to)), counts
/// them, and takes the number of its first line from the chunk before.
void read_direct(Chunk& chunk) {
  const DirectRead& direct = *chunk.direct;
  const std::uint64_t base = chunk.seq == 0 ? chunk.from : chunk.from - 1;
  ChunkBytes bytes(chunk, base);
  const std::size_t longest = direct.max_line + 1;
  std::uint64_t start = chunk.from;
  if (chunk.seq != 0) {  // the line after the first '\n' at or after from - 1
    const auto nl = bytes.newline_at(chunk.from - 1, longest);
    // None: the chunk before looked for the same '\n' as its end, found none either and was the
    // last joined; this one is never joined.
    chunk.last = !nl;
    start = nl ? *nl + 1 : chunk.from;
  }
  std::uint64_t end = start;
  if (!chunk.last && start < chunk.to) {
    const auto nl = bytes.newline_at(chunk.to - 1, longest);
    if (nl) {
      end = *nl + 1;
    } else {  // its lines up to the last '\n' (the one thread reads on from there), or a long line
      chunk.stop = bytes.read_to() < chunk.direct->file.size;
      chunk.last = true;
      const std::string_view read(chunk.raw.get() + (start - base), bytes.read_to() - start);
      const std::size_t last_nl = read.rfind('\n');
      end = last_nl == std::string_view::npos ? start : start + last_nl + 1;
    }
  }
  chunk.end = end;
  chunk.lines = end > start ? std::string_view(chunk.raw.get() + (start - base), end - start) : std::string_view();
  chunk.line_count = io::count_newlines(chunk.lines);
  chunk.first_line = direct.numbers->wait(chunk.seq);
  direct.numbers->publish(chunk.seq + 1, chunk.first_line + chunk.line_count);
}

void parse_chunk(Chunk& chunk) {
  if (chunk.direct != nullptr) {
    try {
      read_direct(chunk);
    } catch (...) {  // the chunk after waits for its first line number: hand it on all the same
      chunk.direct->numbers->publish(chunk.seq + 1, 0);
      throw;
    }
    if (chunk.stop) return;
  }
  LineParser* prefilter = chunk.parser->has_prefilter() ? chunk.parser.get() : nullptr;
  for_each_line(
      chunk, [&](const io::Line& line) { parse_line(*chunk.parser, *chunk.ctx, line); }, prefilter, &chunk.stats);
}

/// Threads that parse the chunks handed to them, in the order handed.
class ChunkWorkers {
 public:
  explicit ChunkWorkers(unsigned count) {
    for (unsigned i = 0; i < count; ++i) m_threads.emplace_back([this] { work(); });
  }
  ~ChunkWorkers() {
    {
      const std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_work.notify_all();
    for (std::thread& t : m_threads) t.join();
  }
  ChunkWorkers(const ChunkWorkers&) = delete;
  ChunkWorkers& operator=(const ChunkWorkers&) = delete;

  void submit(Chunk& chunk) {
    {
      const std::lock_guard lock(m_mutex);
      chunk.done = false;
      m_queue.push_back(&chunk);
    }
    m_work.notify_one();
  }
  void wait(Chunk& chunk) {
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [&] { return chunk.done; });
  }
  /// Waits for `chunk`, parsing the chunks queued meanwhile on this thread: with one thread
  /// fewer than -j asks, none of them waits for a core.
  void wait_helping(Chunk& chunk) {
    for (;;) {
      Chunk* next = nullptr;
      {
        std::unique_lock lock(m_mutex);
        if (chunk.done) return;
        if (m_queue.empty()) {
          m_done.wait(lock, [&] { return chunk.done; });
          return;
        }
        next = m_queue.front();
        m_queue.pop_front();
      }
      run(*next);
    }
  }

 private:
  void work() {
    for (;;) {
      Chunk* chunk = nullptr;
      {
        std::unique_lock lock(m_mutex);
        m_work.wait(lock, [&] { return m_stop || !m_queue.empty(); });
        if (m_queue.empty()) return;
        chunk = m_queue.front();
        m_queue.pop_front();
      }
      run(*chunk);
    }
  }

  void run(Chunk& chunk) {
    try {
      parse_chunk(chunk);
    } catch (...) {
      chunk.error = std::current_exception();
    }
    {
      const std::lock_guard lock(m_mutex);
      chunk.done = true;
    }
    m_done.notify_all();
  }

  std::mutex m_mutex;
  std::condition_variable m_work, m_done;
  std::deque<Chunk*> m_queue;
  bool m_stop = false;
  std::vector<std::thread> m_threads;
};

/// Gives a chunk what its parse needs: copies of the parser and clock as they stand now.
void prepare_chunk(Chunk& chunk, const LineParser& parser, const ParseContext& ctx, ForkableSink& sink) {
  chunk.clock.emplace(ctx.clock);
  chunk.stats = InputStats{};
  chunk.stats.path = ctx.stats.path;
  chunk.stats.format = ctx.stats.format;
  chunk.stats.time_basis = ctx.stats.time_basis;
  chunk.marks.clear();
  chunk.error = nullptr;
  if (!chunk.sink) chunk.sink = sink.fork();
  chunk.ctx = std::make_unique<ParseContext>(
      ParseContext{ctx.options, *chunk.clock, *chunk.sink, chunk.stats, Event{}, {}, {}, ctx.reference_ns, 0});
  chunk.ctx->check_clock = ctx.check_clock;
  chunk.ctx->time_marks = &chunk.marks;
  chunk.parser = parser.clone(*chunk.ctx);
}

/// A chunk joined before (its buffers stay allocated), else a new one.
std::unique_ptr<Chunk> reuse_or_new(std::vector<std::unique_ptr<Chunk>>& spare) {
  if (spare.empty()) return std::make_unique<Chunk>();
  std::unique_ptr<Chunk> chunk = std::move(spare.back());
  spare.pop_back();
  return chunk;
}

/// Adds a joined chunk's accounting to the input's, as if its lines had been counted here.
void add_chunk_stats(ParseContext& ctx, const Chunk& chunk) {
  InputStats& into = ctx.stats;
  const InputStats& from = chunk.stats;
  if (static_cast<int>(from.time_basis) > static_cast<int>(into.time_basis)) into.time_basis = from.time_basis;
  if (from.events > 0) {
    into.first_ts_ns = into.events == 0 ? from.first_ts_ns : std::min(into.first_ts_ns, from.first_ts_ns);
    into.last_ts_ns = into.events == 0 ? from.last_ts_ns : std::max(into.last_ts_ns, from.last_ts_ns);
  }
  for (const ParseContext::TimeMark& mark : chunk.marks) {  // counts on into.events: one by one
    ctx.note_time(mark.ts_ns, mark.line);
    ++into.events;
  }
  into.lines += from.lines;
  into.event_lines += from.event_lines;
  into.ignored += from.ignored;
  into.malformed += from.malformed;
  for (const MalformedExample& e : from.examples)
    if (into.examples.size() < InputStats::kMaxExamples) into.examples.push_back(e);
  for (const std::string& note : from.notes) add_note(into, note);
  into.warnings.insert(into.warnings.end(), from.warnings.begin(), from.warnings.end());
  for (const std::string& v : from.fingerprint.drivers) Fingerprint::add(into.fingerprint.drivers, v);
  for (const std::string& v : from.fingerprint.cuda) Fingerprint::add(into.fingerprint.cuda, v);
  for (const std::string& v : from.fingerprint.gpus) Fingerprint::add(into.fingerprint.gpus, v);
  into.fingerprint.gpu_count = std::max(into.fingerprint.gpu_count, from.fingerprint.gpu_count);
  for (const std::string& host : from.hosts) ParseContext::note_host(host, into);
  if (!from.clock.empty()) into.clock = from.clock;
}

/// Joins the next chunk in input order (see the top of this file). True when its parse stood.
bool join_chunk(Chunk& chunk, LineParser& parser, ParseContext& ctx, ForkableSink& sink) {
  if (chunk.error) std::rethrow_exception(chunk.error);
  if (!parser.continue_with(*chunk.parser)) {
    sink.discard(*chunk.sink);
    for_each_line(chunk, [&](const io::Line& line) { parse_line(parser, ctx, line); });
    return false;
  }
  ctx.clock.add_fall_backs(*chunk.clock);
  add_chunk_stats(ctx, chunk);
  sink.join(*chunk.sink);
  return true;
}

/// The rest of a plain file, read by the workers themselves (see the top of this file): this
/// thread only hands out byte ranges and joins. It ends at the input's end as it stood when it
/// began, or before a chunk with a line too long to take whole; this thread's reader reads on
/// from there.
void parse_direct(io::LineReader& reader, const io::DirectFile& file, LineParser& parser, ParseContext& ctx,
                  ForkableSink& sink, unsigned jobs, const ChunkSizes& sizes) {
  const std::size_t max_in_flight = 2 * static_cast<std::size_t>(jobs);
  LineNumbers numbers(max_in_flight);
  const DirectRead direct{file, reader.max_line(), &numbers};
  std::uint64_t joined_end = reader.position(), joined_lines = reader.lines_read();
  numbers.publish(0, joined_lines + 1);
  std::deque<std::unique_ptr<Chunk>> in_flight;
  std::vector<std::unique_ptr<Chunk>> spare;
  ChunkWorkers workers(jobs - 1);  // and this thread: after the chunks, its threads stop before they go
  std::uint64_t seq = 0, next_from = joined_end, chunks = 0, parsed_again = 0;
  bool ended = false;
  while (!ended) {
    while (next_from < file.size && in_flight.size() < max_in_flight) {
      std::unique_ptr<Chunk> chunk = reuse_or_new(spare);
      prepare_chunk(*chunk, parser, ctx, sink);  // the state before its lines
      chunk->direct = &direct;
      chunk->seq = seq++;
      chunk->from = next_from;
      chunk->to = std::min<std::uint64_t>(next_from + sizes.direct, file.size);
      chunk->last = chunk->stop = false;
      next_from = chunk->to;
      workers.submit(*chunk);
      in_flight.push_back(std::move(chunk));
    }
    if (in_flight.empty()) break;
    Chunk& chunk = *in_flight.front();
    workers.wait_helping(chunk);
    if (chunk.stop) break;  // its lines are read on one thread, from its start (joined_end)
    ++chunks;
    if (!join_chunk(chunk, parser, ctx, sink)) ++parsed_again;
    io::report_read(static_cast<std::size_t>(chunk.end - joined_end));
    joined_end = chunk.end;
    joined_lines += chunk.line_count;
    ended = chunk.last;
    spare.push_back(std::move(in_flight.front()));
    in_flight.pop_front();
  }
  for (const std::unique_ptr<Chunk>& chunk : in_flight) {  // parsed past the end: not joined
    workers.wait_helping(*chunk);
    sink.discard(*chunk->sink);
  }
  log().debug("{}: {} chunks read directly on {} threads, {} parsed again; one thread from byte {}", ctx.stats.path,
              chunks, jobs, parsed_again, joined_end);
  if (!reader.seek(joined_end, joined_lines))
    throw std::runtime_error(fmt::format("{}: cannot seek to byte {}", ctx.stats.path, joined_end));
  io::Line line;
  while (reader.next(line)) parse_line(parser, ctx, line);
}

}  // namespace

bool parse_in_chunks(io::LineReader& reader, LineParser& parser, ParseContext& ctx, ForkableSink& sink, unsigned jobs) {
  // A plain file is read by the workers themselves (no copy on this thread): that pays from -j 2.
  const std::optional<io::DirectFile> file =
      parser.skims() || !parser.cuts_anywhere() ? std::nullopt : reader.direct_file();
  if (jobs < (file ? 2 : parser.chunks_from_jobs()) || !parser.clone(ctx)) return false;
  const ChunkSizes sizes = chunk_sizes();
  io::Line line;
  while (reader.position() < sizes.first) {
    if (!reader.next(line)) return true;
    parse_line(parser, ctx, line);
  }
  if (file) {
    parse_direct(reader, *file, parser, ctx, sink, jobs, sizes);
    return true;
  }
  const std::unique_ptr<LineParser> skimmer = parser.skims() ? parser.clone(ctx) : nullptr;
  std::deque<std::unique_ptr<Chunk>> in_flight;
  std::vector<std::unique_ptr<Chunk>> spare;
  ChunkWorkers workers(jobs);  // after the chunks: its threads stop before the chunks go
  const std::size_t max_in_flight = 2 * static_cast<std::size_t>(jobs);
  std::uint64_t chunks = 0, parsed_again = 0, skim_round = 0;
  bool more = true;
  for (;;) {
    while (more && in_flight.size() < max_in_flight) {
      std::unique_ptr<Chunk> chunk = reuse_or_new(spare);
      prepare_chunk(*chunk, skimmer ? *skimmer : parser, ctx, sink);  // the state before its lines
      chunk->skim_round = skim_round;
      if (!read_chunk(reader, *chunk, sizes, parser, skimmer.get())) {
        more = false;
        break;
      }
      workers.submit(*chunk);
      in_flight.push_back(std::move(chunk));
    }
    if (in_flight.empty()) break;
    Chunk& chunk = *in_flight.front();
    workers.wait(chunk);
    ++chunks;
    if (!join_chunk(chunk, parser, ctx, sink)) {
      ++parsed_again;
      // The skimmer is set right by what the next chunk's copy missed; a chunk copied before its
      // last correction missed that much and more: it will be parsed again, with no new correction.
      const Chunk* next = in_flight.size() > 1 ? in_flight[1].get() : nullptr;
      if (skimmer && (next == nullptr || next->skim_round == skim_round)) {
        parser.resync_skim(*skimmer, next != nullptr ? next->parser.get() : nullptr);
        ++skim_round;
      }
    }
    spare.push_back(std::move(in_flight.front()));
    in_flight.pop_front();
  }
  log().debug("{}: {} chunks on {} threads, {} parsed again", ctx.stats.path, chunks, jobs, parsed_again);
  return true;
}

}  // namespace gpucost::prep

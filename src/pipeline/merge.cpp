#include <gpucost/pipeline/merge.hpp>

#include <gpucost/core/event_buffer.hpp>
#include <gpucost/io/line_reader.hpp>

#include "parse_ahead.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <queue>

#include <sys/resource.h>

namespace gpucost::pipeline {

namespace {

/// prep's merge keeps each waiting event as its formatted line, and writes it as is.
struct LineStore {
  io::EventWriter& writer;
  using Slot = std::string;
  void keep(const Event& ev, Slot& slot) const {
    slot.clear();  // keeps the capacity: no allocation once warm
    writer.format(ev, slot);
  }
  static std::size_t hash(const Slot& slot) { return std::hash<std::string_view>{}(slot); }
  void emit(const Slot& slot) const { writer.write_line(slot); }
};

/// FNV-1a over the bytes of a value.
class ContentHash {
 public:
  void add(std::string_view s) {
    for (const char c : s) step(static_cast<unsigned char>(c));
    step(0xff);  // a separator: "ab","c" differs from "a","bc"
  }
  template <typename T>
  void add_bytes(const T& v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    for (const unsigned char c : b) step(c);
  }
  [[nodiscard]] std::uint64_t value() const { return m_h; }

 private:
  void step(unsigned char c) { m_h = (m_h ^ c) * 1099511628211ULL; }
  std::uint64_t m_h = 14695981039346656037ULL;
};

/// extract's merge keeps a copy of each waiting event and hands it to a sink. The hash covers
/// what the event's line in a gpucost.events stream would show, so that the same events are
/// duplicates as in prep's merge.
struct EventStore {
  EventSink& sink;
  using Slot = HeldEvent;
  void keep(const Event& ev, Slot& h) const { h.hold(ev); }
  static std::size_t hash(const Slot& h) {
    const Event& e = h.event;
    ContentHash hash;
    hash.add_bytes(e.ts_ns);
    hash.add_bytes(e.gpu);
    hash.add_bytes(e.present);
    hash.add(e.source);
    hash.add(e.host);
    hash.add(e.kind);
    for (std::size_t i = 0; i < kMetricCount; ++i) {
      if (!e.has(static_cast<Metric>(i))) continue;
      if (e.texts[i].empty())
        hash.add_bytes(e.values[i]);
      else
        hash.add(e.texts[i]);
    }
    for (const Field& f : e.fields) {
      hash.add(f.key);
      hash.add(f.value);
    }
    return static_cast<std::size_t>(hash.value());
  }
  void emit(const Slot& h) const { sink.on_event(h.event); }
};

/// One input: its parser runs a line at a time; the events it emits wait, kept by the store,
/// in a small min-heap until the merge takes them.
template <typename Store>
class Cursor final : public EventSink {
 public:
  Cursor(std::size_t index, std::unique_ptr<io::LineReader> reader, const Store& store)
      : m_index(index), m_reader(std::move(reader)), m_store(store) {}

  Status start(const prep::PrepOptions& options, LocalClock& clock, InputStats& stats, std::optional<Format> format) {
    m_stats = &stats;
    m_parse = std::make_unique<prep::InputParse>(*m_reader, options, clock, *this, stats);
    return m_parse->start(format);
  }

  /// An input parsed ahead (-j N): its events wait here as its parse's would; nothing is left to parse.
  void take(const EventBuffer& events, InputStats& stats) {
    m_stats = &stats;
    events.replay(*this);
    m_done = true;
  }

  void on_event(const Event& ev) override {
    if (m_seq == 0) m_first_ts = ev.ts_ns;
    std::uint32_t slot = 0;
    if (!m_free.empty()) {
      slot = m_free.back();
      m_free.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(m_slots.size());
      m_slots.emplace_back();
    }
    m_store.keep(ev, m_slots[slot]);
    m_heap.push(Pending{ev.ts_ns, m_seq++, slot});
  }

  /// Parses up to `max_steps` lines for the input's first event and returns its time (nullopt:
  /// none that early): the merge's look-ahead.
  std::optional<std::int64_t> first_event(int max_steps) {
    for (int i = 0; i < max_steps && !m_done && m_seq == 0; ++i) m_done = !m_parse->step();
    return m_seq > 0 ? std::optional(m_first_ts) : std::nullopt;
  }

  /// Parses until a full window of events is waiting or the input is done.
  void fill() {
    while (!m_done && m_heap.size() <= kReorderWindow) m_done = !m_parse->step();
  }

  [[nodiscard]] bool empty() const { return m_heap.empty(); }
  [[nodiscard]] std::int64_t next_ts() const { return m_heap.top().ts; }
  [[nodiscard]] const typename Store::Slot& next() const { return m_slots[m_heap.top().slot]; }
  [[nodiscard]] std::size_t index() const { return m_index; }
  void count_duplicate() { ++m_stats->duplicates; }

  void pop() {
    m_free.push_back(m_heap.top().slot);
    m_heap.pop();
    fill();
  }

 private:
  struct Pending {
    std::int64_t ts;
    std::uint64_t seq;  // arrival order breaks ties: equal times stay in input order
    std::uint32_t slot;
    bool operator>(const Pending& o) const { return ts != o.ts ? ts > o.ts : seq > o.seq; }
  };

  std::size_t m_index;
  std::unique_ptr<io::LineReader> m_reader;
  const Store& m_store;
  InputStats* m_stats = nullptr;
  std::unique_ptr<prep::InputParse> m_parse;
  std::deque<typename Store::Slot> m_slots;  // a deque: held events keep their address
  std::vector<std::uint32_t> m_free;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> m_heap;
  std::uint64_t m_seq = 0;
  std::int64_t m_first_ts = 0;  // the first event's time, once m_seq > 0
  bool m_done = false;
};

/// Marks an event handed on without its hash (no other input had an event of its time).
constexpr std::size_t kUnhashed = 0;

/// Lines a look-ahead reads for an input's first event before it gives up (a kernel log whose
/// first GPU message is deep inside is then simply opened at the start).
constexpr int kLookAheadLines = 20000;

/// Inputs open at once at most: half the limit on open files (the rest for the output, the
/// temporary file, libraries), between 4 and 512.
std::size_t max_open_inputs() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 512;
  return std::clamp<std::size_t>(static_cast<std::size_t>(limit.rlim_cur) / 2, 4, 512);
}

/// An input -j N may parse ahead: a profiler trace in a file (not an open pipe).
bool can_parse_ahead(const MergeInput& in, const prep::PrepOptions& options) {
  return !in.reader && detail::parsed_whole(in.format, options);
}

/// Inputs whose look-ahead keeps its reader and parse for the merge (so that each is opened once
/// after the probe); those after them are looked at ahead and opened again when their time comes.
constexpr std::size_t kHeldAhead = 16;

/// An input's cursor, its parse started: on its reader (a pipe's, opened before) or on the file,
/// opened now. Counts go to `stats`.
template <typename Store>
Expected<std::unique_ptr<Cursor<Store>>> start_cursor(MergeInput& in, std::size_t index,
                                                      const prep::PrepOptions& options, LocalClock& clock,
                                                      const Store& store, InputStats& stats) {
  std::unique_ptr<io::LineReader> reader = std::move(in.reader);
  if (!reader) {
    auto opened = io::LineReader::open(in.path);
    if (!opened) return opened.error();
    reader = std::move(*opened);
  }
  reader->set_max_line(options.max_line);
  auto cursor = std::make_unique<Cursor<Store>>(index, std::move(reader), store);
  GPUCOST_TRY(cursor->start(options, clock, stats, in.format));
  return cursor;
}

/// The k-way merge by time; an event with the same time and content as one already handed on
/// from another input is dropped and counted. Inputs are opened only when the merge reaches
/// the time of their first event and closed when they are done, so that thousands of rotated
/// logs, disjoint in time, hold a few files open and not one each.
template <typename Store>
Status merge(std::vector<MergeInput>& inputs, const prep::PrepOptions& options, LocalClock& clock, const Store& store) {
  struct Source {
    std::size_t input;
    std::optional<std::int64_t> first_ts;
    std::unique_ptr<Cursor<Store>> held;  // started by the look-ahead, kept for the merge
  };
  const std::size_t max_open = max_open_inputs();
  std::vector<Source> sources;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    MergeInput& in = inputs[i];
    Source src{i, std::nullopt, nullptr};
    // Each input is opened ahead for the time of its first event, except a pipe (it cannot be
    // opened twice) and a trace (parsed whole in one step: the look-ahead would parse it twice).
    // An input that fails to start is opened at the start of the merge, which then says why.
    const std::optional<Format> known = options.forced != Format::unknown ? options.forced : in.format;
    if (!in.reader && !(known && format_traits(*known).whole_document)) {
      const bool keep = sources.size() < std::min(kHeldAhead, max_open);
      InputStats scratch;  // a look-ahead that is not kept must not count the input's lines
      auto cursor = start_cursor(in, i, options, clock, store, keep ? *in.stats : scratch);
      if (cursor) {
        src.first_ts = (*cursor)->first_event(kLookAheadLines);
        if (keep) src.held = std::move(*cursor);
      }
    }
    sources.push_back(std::move(src));
  }
  // Unknown first times first, then by first time; ties in command-line order.
  std::stable_sort(sources.begin(), sources.end(), [](const Source& a, const Source& b) {
    if (a.first_ts.has_value() != b.first_ts.has_value()) return !a.first_ts.has_value();
    return a.first_ts.has_value() && *a.first_ts < *b.first_ts;
  });

  std::vector<std::unique_ptr<Cursor<Store>>> cursors;
  std::size_t next_source = 0;
  bool limited = false;
  // -j N: the traces (whole documents, parsed in one step) a few per thread side by side, in
  // the order the merge opens them, when it opens the first of them.
  std::vector<std::unique_ptr<detail::ParsedAhead>> ahead(inputs.size());
  const auto parse_ahead_from = [&](std::size_t source) {
    std::vector<detail::AheadInput> batch;
    for (std::size_t s = source; s < sources.size() && batch.size() < detail::ahead_batch(options); ++s) {
      const MergeInput& in = inputs[sources[s].input];
      if (can_parse_ahead(in, options)) batch.push_back({sources[s].input, in.path, in.stats->path, in.format});
    }
    detail::parse_ahead(batch, options, clock, ahead);
  };
  const auto open_next = [&]() -> Status {
    MergeInput& in = inputs[sources[next_source].input];
    const std::size_t index = sources[next_source].input;
    std::unique_ptr<Cursor<Store>> cursor = std::move(sources[next_source].held);
    if (!cursor && !ahead[index] && options.jobs >= 2 && can_parse_ahead(in, options)) parse_ahead_from(next_source);
    ++next_source;
    if (ahead[index]) {
      std::unique_ptr<detail::ParsedAhead> parsed = std::move(ahead[index]);
      *in.stats = std::move(parsed->stats);
      clock.add_fall_backs(parsed->clock);
      cursor = std::make_unique<Cursor<Store>>(index, nullptr, store);
      cursor->take(parsed->events, *in.stats);
      cursors.push_back(std::move(cursor));
      return parsed->status;
    }
    if (!cursor) {
      auto started = start_cursor(in, index, options, clock, store, *in.stats);
      if (!started) return started.error();
      cursor = std::move(*started);
    }
    cursor->fill();
    cursors.push_back(std::move(cursor));
    return {};
  };

  // Hashes of the events handed on at the current time, with the input each came from.
  std::int64_t current_ts = 0;
  std::vector<std::pair<std::size_t, std::size_t>> written_now;
  for (;;) {
    // Open every input whose first event is not later than the earliest waiting one, as far as
    // the limit on open files allows.
    for (;;) {
      const Cursor<Store>* earliest = nullptr;
      for (const auto& c : cursors)
        if (!c->empty() && (earliest == nullptr || c->next_ts() < earliest->next_ts())) earliest = c.get();
      if (next_source == sources.size()) break;
      const auto& first = sources[next_source].first_ts;
      if (earliest != nullptr && first && *first > earliest->next_ts()) break;
      if (cursors.size() >= max_open) {
        if (!limited) {
          inputs[sources[next_source].input].stats->notes.push_back(fmt::format(
              "more than {} inputs overlap in time (half the limit on open files): this one and some after it "
              "are read as others end, so their events may come out of time order and a repeated event may "
              "count twice",
              max_open));
          limited = true;
        }
        break;
      }
      GPUCOST_TRY(open_next());
    }
    // A cursor with nothing waiting is done (fill() reads until its window is full or the
    // input ends): its file is closed.
    std::erase_if(cursors, [](const auto& c) { return c->empty(); });
    Cursor<Store>* best = nullptr;  // the earliest event; ties in command-line order
    for (auto& c : cursors)
      if (best == nullptr || c->next_ts() < best->next_ts() ||
          (c->next_ts() == best->next_ts() && c->index() < best->index()))
        best = c.get();
    if (best == nullptr) break;
    if (written_now.empty() || best->next_ts() != current_ts) {
      current_ts = best->next_ts();
      written_now.clear();
    }
    // Only another input's event of this very time can be a duplicate: one handed on already,
    // or one waiting at the top of its input's window (an input's events of this time are there
    // by now, unless they come more than a window out of order). Otherwise no hash is needed.
    bool another = false;
    for (const auto& [hash, input] : written_now) another = another || input != best->index();
    for (const auto& c : cursors) another = another || (c.get() != best && c->next_ts() == current_ts);
    const std::size_t h = another ? Store::hash(best->next()) : 0;
    bool duplicate = false;
    for (const auto& [hash, input] : written_now)
      duplicate = duplicate || (another && hash == h && input != best->index());
    if (duplicate) {
      best->count_duplicate();
    } else {
      store.emit(best->next());
      if (another)
        written_now.emplace_back(h, best->index());
      else
        written_now.emplace_back(kUnhashed, best->index());
    }
    best->pop();
  }
  return {};
}

}  // namespace

namespace {

/// One MergeInput per path, with its InputStats appended to `stats`.
Expected<std::vector<MergeInput>> merge_inputs_of(const std::vector<ProbedInput>& probed,
                                                  std::vector<InputStats>& stats) {
  // InputParse keeps a reference to its InputStats: no reallocation from here on.
  stats.reserve(stats.size() + probed.size());
  std::vector<MergeInput> inputs;
  for (const ProbedInput& p : probed) {
    stats.emplace_back();
    InputStats& st = stats.back();
    st.path = p.path == "-" ? "<stdin>" : p.path;
    MergeInput in{p.path, nullptr, &st, p.known_format()};
    if (p.read_once || p.content || p.stream) {  // opened once, now, and kept (an input in memory has no file)
      auto reader = open_reader(p);
      if (!reader) return reader.error();
      in.reader = std::move(*reader);
    }
    inputs.push_back(std::move(in));
  }
  return inputs;
}

}  // namespace

Status merge_inputs(const std::vector<ProbedInput>& probed, const prep::PrepOptions& options, LocalClock& clock,
                    io::EventWriter& writer, std::vector<InputStats>& stats) {
  auto inputs = merge_inputs_of(probed, stats);
  if (!inputs) return inputs.error();
  return merge(*inputs, options, clock, LineStore{writer});
}

Status merge_inputs(const std::vector<ProbedInput>& probed, const prep::PrepOptions& options, LocalClock& clock,
                    EventSink& sink, std::vector<InputStats>& stats) {
  auto inputs = merge_inputs_of(probed, stats);
  if (!inputs) return inputs.error();
  return merge(*inputs, options, clock, EventStore{sink});
}

Status merge_into(std::vector<MergeInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                  EventSink& sink) {
  return merge(inputs, options, clock, EventStore{sink});
}

}  // namespace gpucost::pipeline

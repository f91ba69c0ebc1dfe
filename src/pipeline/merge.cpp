#include <gpucost/pipeline/merge.hpp>

#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <queue>

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

/// An event copied out of its parser's buffers: every view points into `text`.
struct HeldEvent {
  Event event;
  std::string text;
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
  prep::EventSink& sink;
  using Slot = HeldEvent;
  void keep(const Event& ev, Slot& h) const {
    std::size_t bytes = ev.source.size() + ev.host.size() + ev.kind.size();
    for (std::uint64_t bits = ev.present; bits != 0; bits &= bits - 1)
      bytes += ev.texts[static_cast<std::size_t>(__builtin_ctzll(bits))].size();
    for (const Field& f : ev.fields) bytes += f.key.size() + f.value.size();
    h.text.clear();
    h.text.reserve(bytes);  // no reallocation below: the views taken stay valid
    const auto copy = [&](std::string_view s) {
      const std::size_t at = h.text.size();
      h.text.append(s);
      return std::string_view(h.text.data() + at, s.size());
    };
    Event& e = h.event;
    e.ts_ns = ev.ts_ns;
    e.gpu = ev.gpu;
    e.present = ev.present;
    e.values = ev.values;
    e.source = copy(ev.source);
    e.host = copy(ev.host);
    e.kind = copy(ev.kind);
    for (std::uint64_t bits = ev.present; bits != 0; bits &= bits - 1) {  // the present metrics only
      const auto i = static_cast<std::size_t>(__builtin_ctzll(bits));
      e.texts[i] = copy(ev.texts[i]);
    }
    e.fields.clear();
    for (const Field& f : ev.fields) e.fields.push_back(Field{copy(f.key), copy(f.value), f.numeric, f.extra});
  }
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
      if (e.texts[i].empty()) hash.add_bytes(e.values[i]);
      else hash.add(e.texts[i]);
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
class Cursor final : public prep::EventSink {
 public:
  Cursor(std::size_t index, std::unique_ptr<io::LineReader> reader, const Store& store)
      : m_index(index), m_reader(std::move(reader)), m_store(store) {}

  Status start(const prep::PrepOptions& options, LocalClock& clock, prep::InputStats& stats) {
    m_stats = &stats;
    m_parse = std::make_unique<prep::InputParse>(*m_reader, options, clock, *this, stats);
    return m_parse->start();
  }

  void on_event(const Event& ev) override {
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
  prep::InputStats* m_stats = nullptr;
  std::unique_ptr<prep::InputParse> m_parse;
  std::deque<typename Store::Slot> m_slots;  // a deque: held events keep their address
  std::vector<std::uint32_t> m_free;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> m_heap;
  std::uint64_t m_seq = 0;
  bool m_done = false;
};

/// Marks an event handed on without its hash (no other input had an event of its time).
constexpr std::size_t kUnhashed = 0;

/// The k-way merge by time; an event with the same time and content as one already handed on
/// from another input is dropped and counted.
template <typename Store>
Status merge(std::vector<MergeInput>& inputs, const prep::PrepOptions& options, LocalClock& clock, const Store& store) {
  std::vector<std::unique_ptr<Cursor<Store>>> cursors;
  for (MergeInput& in : inputs) {
    in.reader->set_max_line(options.max_line);
    auto cursor = std::make_unique<Cursor<Store>>(cursors.size(), std::move(in.reader), store);
    if (auto s = cursor->start(options, clock, *in.stats); !s) return s;
    cursors.push_back(std::move(cursor));
  }
  for (auto& c : cursors) c->fill();

  // Hashes of the events handed on at the current time, with the input each came from.
  std::int64_t current_ts = 0;
  std::vector<std::pair<std::size_t, std::size_t>> written_now;
  for (;;) {
    Cursor<Store>* best = nullptr;
    for (auto& c : cursors)
      if (!c->empty() && (best == nullptr || c->next_ts() < best->next_ts())) best = c.get();
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
    for (const auto& c : cursors) another = another || (c.get() != best && !c->empty() && c->next_ts() == current_ts);
    const std::size_t h = another ? Store::hash(best->next()) : 0;
    bool duplicate = false;
    for (const auto& [hash, input] : written_now)
      duplicate = duplicate || (another && hash == h && input != best->index());
    if (duplicate) {
      best->count_duplicate();
    } else {
      store.emit(best->next());
      if (another) written_now.emplace_back(h, best->index());
      else written_now.emplace_back(kUnhashed, best->index());
    }
    best->pop();
  }
  return {};
}

}  // namespace

Status merge_inputs(const std::vector<std::string>& paths, const prep::PrepOptions& options, LocalClock& clock,
                    io::EventWriter& writer, std::vector<prep::InputStats>& stats) {
  // InputParse keeps a reference to its InputStats: no reallocation from here on.
  stats.reserve(stats.size() + paths.size());
  std::vector<MergeInput> inputs;
  for (const std::string& path : paths) {
    auto reader = io::LineReader::open(path);
    stats.emplace_back();
    prep::InputStats& st = stats.back();
    st.path = path == "-" ? "<stdin>" : path;
    if (!reader) return reader.error();
    inputs.push_back(MergeInput{std::move(*reader), &st});
  }
  return merge(inputs, options, clock, LineStore{writer});
}

Status merge_into(std::vector<MergeInput>& inputs, const prep::PrepOptions& options, LocalClock& clock,
                  prep::EventSink& sink) {
  return merge(inputs, options, clock, EventStore{sink});
}

}  // namespace gpucost::pipeline

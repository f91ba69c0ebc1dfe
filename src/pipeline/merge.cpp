#include <gpucost/pipeline/merge.hpp>

#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <queue>

namespace gpucost::pipeline {

namespace {

/// One input: its parser runs a line at a time; the events it emits wait, formatted, in a
/// small min-heap until the merge takes them.
class Cursor final : public prep::EventSink {
 public:
  Cursor(std::size_t index, std::unique_ptr<io::LineReader> reader, io::EventWriter& writer)
      : m_index(index), m_reader(std::move(reader)), m_writer(writer) {}

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
      m_lines[slot].clear();  // keeps the capacity: no allocation once warm
    } else {
      slot = static_cast<std::uint32_t>(m_lines.size());
      m_lines.emplace_back();
    }
    m_writer.format(ev, m_lines[slot]);
    m_heap.push(Pending{ev.ts_ns, m_seq++, slot});
  }

  /// Parses until a full window of events is waiting or the input is done.
  void fill() {
    while (!m_done && m_heap.size() <= kReorderWindow) m_done = !m_parse->step();
  }

  [[nodiscard]] bool empty() const { return m_heap.empty(); }
  [[nodiscard]] std::int64_t next_ts() const { return m_heap.top().ts; }
  [[nodiscard]] const std::string& next_line() const { return m_lines[m_heap.top().slot]; }
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
  io::EventWriter& m_writer;
  prep::InputStats* m_stats = nullptr;
  std::unique_ptr<prep::InputParse> m_parse;
  std::vector<std::string> m_lines;
  std::vector<std::uint32_t> m_free;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> m_heap;
  std::uint64_t m_seq = 0;
  bool m_done = false;
};

}  // namespace

Status merge_inputs(const std::vector<std::string>& paths, const prep::PrepOptions& options, LocalClock& clock,
                    io::EventWriter& writer, std::vector<prep::InputStats>& stats) {
  // InputParse keeps a reference to its InputStats: no reallocation from here on.
  stats.reserve(stats.size() + paths.size());
  std::vector<std::unique_ptr<Cursor>> cursors;
  for (const std::string& path : paths) {
    auto reader = io::LineReader::open(path);
    stats.emplace_back();
    prep::InputStats& st = stats.back();
    st.path = path == "-" ? "<stdin>" : path;
    if (!reader) return reader.error();
    (*reader)->set_max_line(options.max_line);
    auto cursor = std::make_unique<Cursor>(cursors.size(), std::move(*reader), writer);
    if (auto s = cursor->start(options, clock, st); !s) return s;
    cursors.push_back(std::move(cursor));
  }
  for (auto& c : cursors) c->fill();

  // Hashes of the lines written at the current time, with the input each came from.
  std::int64_t current_ts = 0;
  std::vector<std::pair<std::size_t, std::size_t>> written_now;
  const std::hash<std::string_view> hasher;
  for (;;) {
    Cursor* best = nullptr;
    for (auto& c : cursors)
      if (!c->empty() && (best == nullptr || c->next_ts() < best->next_ts())) best = c.get();
    if (best == nullptr) break;
    const std::string& line = best->next_line();
    if (written_now.empty() || best->next_ts() != current_ts) {
      current_ts = best->next_ts();
      written_now.clear();
    }
    const std::size_t h = hasher(line);
    bool duplicate = false;
    for (const auto& [hash, input] : written_now) duplicate = duplicate || (hash == h && input != best->index());
    if (duplicate) {
      best->count_duplicate();
    } else {
      writer.write_line(line);
      written_now.emplace_back(h, best->index());
    }
    best->pop();
  }
  return {};
}

}  // namespace gpucost::pipeline

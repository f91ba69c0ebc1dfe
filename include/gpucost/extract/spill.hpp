// Bounded memory for extract's record stores (samples, incidents): records beyond a budget are
// sorted by time and appended as runs to one unlinked temporary file, and read back through a
// stable k-way merge (docs/indicators.md, "Memory").
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/large_buffer.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace gpucost::extract {

/// A temporary file in $TMPDIR (or /tmp), unlinked as soon as it exists, that runs are appended
/// to. Created on the first append; the first failure is kept in status().
class SpillFile {
 public:
  SpillFile() = default;
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  /// Appends `bytes` bytes; their offset, or -1 when the file cannot be created or written.
  std::int64_t append(const void* data, std::size_t bytes);
  /// Reads `bytes` bytes at `offset`; false (and status() set) when they cannot be read. Several
  /// threads may read at once (status() is then read after they are done).
  bool read_at(std::int64_t offset, void* into, std::size_t bytes) const;
  [[nodiscard]] const Status& status() const { return m_status; }

 private:
  void fail(std::string message) const;
  int m_fd = -1;
  std::int64_t m_size = 0;
  std::string m_path;  // for messages (the file itself is unlinked at once)
  mutable Status m_status;
  mutable std::mutex m_fail_mutex;
};

/// A run of records in a SpillFile: `count` records of T from byte `offset`.
struct SpillRun {
  std::int64_t offset = 0;
  std::size_t count = 0;
};

/// Records of one series: the ones not yet spilled in memory (in arrival order), the rest in
/// sorted runs. T is trivially copyable and has `std::int64_t ts_ns`.
template <typename T>
class SpillSeries {
  static_assert(std::is_trivially_copyable_v<T>, "records are written to the spill file as bytes");

 public:
  void add(const T& x) {
    if (!m_tail.empty() && x.ts_ns < m_tail.back().ts_ns) m_tail_sorted = false;
    m_tail.push_back(x);
  }
  /// Room for `records` in memory at once: regrowing by doubling touches (and the kernel zeroes)
  /// several times the memory the records need.
  void reserve(std::size_t records) { m_tail.reserve(records); }
  [[nodiscard]] std::size_t in_memory() const { return m_tail.size(); }
  [[nodiscard]] const std::vector<SpillRun>& runs() const { return m_runs; }

  /// Writes the in-memory records as one sorted run; false (the records stay in memory) when
  /// the file fails. Their buffer is kept for the next records while it has never held more
  /// than `keep_records` (its touched pages, all the memory it holds, are then that few;
  /// refilling kept memory costs no page faults and no regrowth copies), else freed.
  bool spill(SpillFile& file, std::size_t keep_records = 0) {
    sort_tail();
    const std::int64_t at = file.append(m_tail.data(), m_tail.size() * sizeof(T));
    if (at < 0) return false;
    m_runs.push_back(SpillRun{at, m_tail.size()});
    m_high_water = std::max(m_high_water, m_tail.size());
    if (m_high_water <= keep_records) {
      m_tail.clear();
    } else {
      Buffer().swap(m_tail);  // give the memory back
      m_high_water = 0;
    }
    return true;
  }

  /// The in-memory records in time order (a stable sort, done on first read: it changes no
  /// record and no order a reader can see, since readers always get time order).
  using Buffer = std::vector<T, LargeBufferAllocator<T>>;
  [[nodiscard]] const Buffer& sorted_tail() const {
    sort_tail();
    return m_tail;
  }

 private:
  void sort_tail() const {
    if (m_tail_sorted) return;
    std::stable_sort(m_tail.begin(), m_tail.end(), [](const T& a, const T& b) { return a.ts_ns < b.ts_ns; });
    m_tail_sorted = true;
  }
  mutable Buffer m_tail;
  mutable bool m_tail_sorted = true;
  std::size_t m_high_water = 0;  // the most records the current buffer has held
  std::vector<SpillRun> m_runs;
};

/// Merges sorted sources (runs of a SpillFile, sorted spans in memory) into one stream in time
/// order; records of the same instant come from the source added first (a stable merge).
template <typename T>
class RunMerge {
 public:
  /// `chunk`: records read from a run at a time.
  RunMerge(const SpillFile& file, std::size_t chunk) : m_file(file), m_chunk(std::max<std::size_t>(chunk, 1)) {}

  /// Adds the runs of a series, then its in-memory records (which arrived after them).
  void add_series(const SpillSeries<T>& s) {
    for (const SpillRun& run : s.runs()) {
      Cursor c;
      c.offset = run.offset;
      c.left = run.count;
      m_cursors.push_back(std::move(c));  // its buffer comes with the first read
    }
    const auto& tail = s.sorted_tail();
    Cursor t;
    t.at = tail.data();
    t.end = tail.data() + tail.size();
    m_cursors.push_back(std::move(t));
  }

  /// The next record, or nullptr at the end (or when the file cannot be read: the file's
  /// status() says so); valid until the next call.
  const T* next() {
    Cursor* best = nullptr;
    for (Cursor& c : m_cursors) {
      if (c.at == c.end && c.left > 0) refill(c);
      if (c.at != c.end && (best == nullptr || c.at->ts_ns < best->at->ts_ns)) best = &c;  // ties: the earlier source
    }
    return best == nullptr ? nullptr : best->at++;
  }

 private:
  struct Cursor {
    std::int64_t offset = 0;                         // run: the next unread record's byte offset
    std::size_t left = 0;                            // run: records not yet read into `buffer`
    std::vector<T, LargeBufferAllocator<T>> buffer;  // run: the chunk being read
    const T* at = nullptr;                           // the current record
    const T* end = nullptr;
  };
  void refill(Cursor& c) {
    if (c.buffer.empty()) c.buffer.resize(std::min(m_chunk, c.left));
    const std::size_t n = std::min(c.left, c.buffer.size());
    if (!m_file.read_at(c.offset, c.buffer.data(), n * sizeof(T))) {
      c.left = 0;
      return;
    }
    c.offset += static_cast<std::int64_t>(n * sizeof(T));
    c.left -= n;
    c.at = c.buffer.data();
    c.end = c.at + n;
  }
  const SpillFile& m_file;
  std::size_t m_chunk;
  std::vector<Cursor> m_cursors;
};

}  // namespace gpucost::extract

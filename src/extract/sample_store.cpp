// The sample store: bounded memory for extract, whatever the length of the logs. Runs are
// sorted when written, and a k-way merge reads them back in time order.
#include <gpucost/extract/sample_store.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <type_traits>
#include <unistd.h>

namespace gpucost::extract {

static_assert(std::is_trivially_copyable_v<Sample>, "samples are written to the spill file as bytes");

namespace {

constexpr std::size_t kReadChunk = 4096;  // samples per read of a run (~420 KB)

bool earlier(const Sample& a, const Sample& b) { return a.ts_ns < b.ts_ns; }

}  // namespace

/// One source of the merge: a run of the file, read in chunks, or the in-memory tail.
struct SampleStore::Reader::Cursor {
  std::int64_t offset = 0;     // run: the next unread sample's byte offset
  std::size_t left = 0;        // run: samples not yet read into `buffer`
  std::vector<Sample> buffer;  // run: the chunk being read
  const Sample* at = nullptr;  // the current sample
  const Sample* end = nullptr;
};

SampleStore::SampleStore(std::size_t budget) : m_budget(std::max<std::size_t>(budget, 16)) {}

SampleStore::~SampleStore() {
  if (m_fd >= 0) ::close(m_fd);
}

void SampleStore::fail(std::string message) {
  if (m_status) m_status = make_error(ErrorKind::io, std::move(message), "set TMPDIR to a file system with room");
}

void SampleStore::add(int gpu, const Sample& s) {
  Series& series = m_series[gpu];
  if (!series.tail.empty() && s.ts_ns < series.tail.back().ts_ns) series.tail_sorted = false;
  series.tail.push_back(s);
  ++m_in_memory;
  ++m_total;
  m_min_ts = std::min(m_min_ts, s.ts_ns);
  m_max_ts = std::max(m_max_ts, s.ts_ns);
  if (m_in_memory > m_budget) spill_largest();
}

std::vector<int> SampleStore::gpus() const {
  std::vector<int> out;
  for (const auto& [gpu, s] : m_series) out.push_back(gpu);
  return out;
}

std::size_t SampleStore::runs() const {
  std::size_t n = 0;
  for (const auto& [gpu, s] : m_series) n += s.runs.size();
  return n;
}

// Writes the largest tail as one sorted run and frees its memory.
void SampleStore::spill_largest() {
  auto largest = m_series.begin();
  for (auto it = m_series.begin(); it != m_series.end(); ++it)
    if (it->second.tail.size() > largest->second.tail.size()) largest = it;
  Series& s = largest->second;
  if (!m_status) {  // the file failed before: keep the samples in memory rather than lose them
    m_budget *= 2;
    return;
  }
  if (m_fd < 0) {
    const char* dir = std::getenv("TMPDIR");
    m_path = fmt::format("{}/gpucost-extract-XXXXXX", dir != nullptr && *dir != '\0' ? dir : "/tmp");
    m_fd = ::mkstemp(m_path.data());
    if (m_fd < 0) {
      fail(fmt::format("extract: cannot create a temporary file {}: {}", m_path, std::strerror(errno)));
      m_budget *= 2;
      return;
    }
    ::unlink(m_path.c_str());  // gone when the process ends, whatever the way
  }
  if (!s.tail_sorted) std::stable_sort(s.tail.begin(), s.tail.end(), earlier);
  const std::size_t bytes = s.tail.size() * sizeof(Sample);
  const auto* data = reinterpret_cast<const char*>(s.tail.data());
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pwrite(m_fd, data + done, bytes - done, static_cast<off_t>(m_file_size + static_cast<std::int64_t>(done)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fail(fmt::format("extract: cannot write the temporary file {}: {}", m_path,
                       n < 0 ? std::strerror(errno) : "no space left"));
      m_budget *= 2;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
  s.runs.push_back(Run{m_file_size, s.tail.size()});
  m_file_size += static_cast<std::int64_t>(bytes);
  m_in_memory -= s.tail.size();
  std::vector<Sample>().swap(s.tail);  // give the memory back
  s.tail_sorted = true;
}

bool SampleStore::read_at(std::int64_t offset, Sample* into, std::size_t count) const {
  const std::size_t bytes = count * sizeof(Sample);
  auto* data = reinterpret_cast<char*>(into);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(m_fd, data + done, bytes - done, static_cast<off_t>(offset + static_cast<std::int64_t>(done)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

const std::vector<Sample>& SampleStore::sorted_tail(const Series& s) const {
  if (!s.tail_sorted) {
    // Sorting the tail changes no sample and no order a reader can see (readers always get
    // time order), so it is done here, on first read, for a const store.
    auto& tail = const_cast<Series&>(s).tail;  // NOLINT(cppcoreguidelines-pro-type-const-cast)
    std::stable_sort(tail.begin(), tail.end(), earlier);
    const_cast<Series&>(s).tail_sorted = true;  // NOLINT(cppcoreguidelines-pro-type-const-cast)
  }
  return s.tail;
}

SampleStore::Reader::Reader(const SampleStore& store, int gpu, std::int64_t from_ns, std::int64_t to_ns)
    : m_store(store), m_from(from_ns), m_to(to_ns) {
  const auto it = store.m_series.find(gpu);
  if (it == store.m_series.end()) return;
  const Series& s = it->second;
  const std::size_t chunk = std::max<std::size_t>(256, std::min(kReadChunk, store.m_budget / (s.runs.size() + 1)));
  for (const Run& run : s.runs) {
    Cursor c;
    c.offset = run.offset;
    c.left = run.count;
    c.buffer.resize(std::min(chunk, run.count));
    m_cursors.push_back(std::move(c));
  }
  const std::vector<Sample>& tail = store.sorted_tail(s);
  Cursor t;
  t.at = tail.data();
  t.end = tail.data() + tail.size();
  m_cursors.push_back(std::move(t));
}

SampleStore::Reader::~Reader() = default;

const Sample* SampleStore::Reader::next() {
  for (;;) {
    Cursor* best = nullptr;
    for (Cursor& c : m_cursors) {
      if (c.at == c.end && c.left > 0) {  // refill from the file
        const std::size_t n = std::min(c.left, c.buffer.size());
        if (!m_store.read_at(c.offset, c.buffer.data(), n)) {
          const_cast<SampleStore&>(m_store).fail(  // NOLINT(cppcoreguidelines-pro-type-const-cast)
              fmt::format("extract: cannot read back the temporary file {}", m_store.m_path));
          c.left = 0;
          continue;
        }
        c.offset += static_cast<std::int64_t>(n * sizeof(Sample));
        c.left -= n;
        c.at = c.buffer.data();
        c.end = c.at + n;
      }
      // Ties go to the earlier cursor: earlier runs arrived first (a stable merge).
      if (c.at != c.end && (best == nullptr || c.at->ts_ns < best->at->ts_ns)) best = &c;
    }
    if (best == nullptr) return nullptr;
    const Sample* s = best->at++;
    if (s->ts_ns < m_from || s->ts_ns > m_to) continue;
    return s;
  }
}

}  // namespace gpucost::extract

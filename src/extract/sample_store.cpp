// The sample store: bounded memory for extract, whatever the length of the logs. Runs are
// sorted when written (src/extract/spill.cpp), and a k-way merge reads them back in time order.
#include <gpucost/extract/sample_store.hpp>

#include <algorithm>

namespace gpucost::extract {

namespace {
constexpr std::size_t kReadChunk = 4096;      // samples per read of a run (~420 KB)
constexpr std::size_t kSettleRecords = 4096;  // samples of a GPU before its buffer is sized
}  // namespace

SampleStore::SampleStore(std::size_t budget) : m_budget(std::max<std::size_t>(budget, 16)) {}

SampleStore::~SampleStore() = default;

void SampleStore::add(int gpu, const Sample& s) {
  SpillSeries<Sample>& series = m_series[gpu];
  // Once a GPU holds a few thousand samples, every GPU of the host has shown up: its buffer then
  // gets room for its likely share (twice the budget over the GPUs, at most half the budget) and
  // need not regrow. Not before: a huge page fills whole, and a reserve made while the GPUs were
  // still being counted gave each of 64 GPUs 2 MiB for a few kB.
  if (series.in_memory() == kSettleRecords) series.reserve(std::min(m_budget / 2, 2 * m_budget / m_series.size()));
  series.add(s);
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
  for (const auto& [gpu, s] : m_series) n += s.runs().size();
  return n;
}

// Writes the largest in-memory series as one sorted run and frees its memory.
void SampleStore::spill_largest() {
  auto largest = m_series.begin();
  for (auto it = m_series.begin(); it != m_series.end(); ++it)
    if (it->second.in_memory() > largest->second.in_memory()) largest = it;
  const std::size_t n = largest->second.in_memory();
  // Each GPU may keep a buffer of twice its share of the budget, so the kept buffers together
  // stay within twice the budget, as the regrowing ones did.
  const std::size_t keep = 2 * m_budget / m_series.size();
  if (largest->second.spill(m_file, keep))
    m_in_memory -= n;
  else
    m_budget *= 2;  // the file failed: keep the samples in memory rather than lose them
}

std::size_t SampleStore::runs_of(int gpu) const {
  const auto it = m_series.find(gpu);
  return it == m_series.end() ? 0 : it->second.runs().size();
}

// Samples read from each run at a time: the readers open together share about one budget.
std::size_t SampleStore::chunk_for(std::size_t runs, std::size_t readers) const {
  return std::max<std::size_t>(64, std::min(kReadChunk, m_budget / (readers * (runs + 1))));
}

SampleStore::Reader::Reader(const SampleStore& store, int gpu, std::int64_t from_ns, std::int64_t to_ns,
                            std::size_t readers_at_once)
    : m_merge(store.m_file, store.chunk_for(store.runs_of(gpu), std::max<std::size_t>(1, readers_at_once))),
      m_from(from_ns),
      m_to(to_ns) {
  const auto it = store.m_series.find(gpu);
  if (it != store.m_series.end()) m_merge.add_series(it->second);
}

SampleStore::Reader::Reader(const SampleStore& store, std::int64_t from_ns, std::int64_t to_ns,
                            std::size_t readers_at_once)
    : m_merge(store.m_file, store.chunk_for(store.runs(), std::max<std::size_t>(1, readers_at_once))),
      m_from(from_ns),
      m_to(to_ns) {
  for (const auto& [gpu, series] : store.m_series) m_merge.add_series(series);
}

const Sample* SampleStore::Reader::next() {
  while (const Sample* s = m_merge.next())
    if (s->ts_ns >= m_from && s->ts_ns <= m_to) return s;
  return nullptr;
}

}  // namespace gpucost::extract

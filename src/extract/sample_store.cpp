// The sample store: bounded memory for extract, whatever the length of the logs. Runs are
// sorted when written (src/extract/spill.cpp), and a k-way merge reads them back in time order.
#include <gpucost/extract/sample_store.hpp>

#include <algorithm>

namespace gpucost::extract {

namespace {
constexpr std::size_t kReadChunk = 4096;      // samples per read of a run (~420 KB)
constexpr std::size_t kSettleRecords = 4096;  // samples of a GPU before its buffer is sized
}  // namespace

SampleStore::SampleStore(std::size_t budget) : m_pool(std::make_shared<SampleBudget>()) {
  m_pool->budget = std::max<std::size_t>(budget, 16);
  m_pool->stores.push_back(this);
}

SampleStore::SampleStore(std::shared_ptr<SampleBudget> shared) : m_pool(std::move(shared)) {
  m_pool->stores.push_back(this);
}

SampleStore::~SampleStore() {
  m_pool->in_memory -= m_in_memory;
  m_pool->series -= m_series.size();
  std::erase(m_pool->stores, this);
}

void SampleStore::add(int gpu, const Sample& s) {
  const auto [it, added] = m_series.try_emplace(gpu);
  if (added) ++m_pool->series;
  SpillSeries<Sample>& series = it->second;
  const std::size_t budget = m_pool->budget;
  // Once a GPU holds a few thousand samples, every GPU of the host has shown up: its buffer then
  // gets room for its likely share (twice the budget over the GPUs, at most half the budget) and
  // need not regrow. Not before: a huge page fills whole, and a reserve made while the GPUs were
  // still being counted gave each of 64 GPUs 2 MiB for a few kB.
  if (series.in_memory() == kSettleRecords) series.reserve(std::min(budget / 2, 2 * budget / m_pool->series));
  series.add(s);
  ++m_in_memory;
  ++m_pool->in_memory;
  ++m_total;
  m_min_ts = std::min(m_min_ts, s.ts_ns);
  m_max_ts = std::max(m_max_ts, s.ts_ns);
  if (m_pool->in_memory > m_pool->budget) spill_largest();
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
  SampleStore* owner = nullptr;
  int largest = 0;
  std::size_t most = 0;
  for (SampleStore* store : m_pool->stores)
    for (const auto& [gpu, series] : store->m_series)
      if (owner == nullptr || series.in_memory() > most) {
        owner = store;
        largest = gpu;
        most = series.in_memory();
      }
  if (owner == nullptr || !owner->spill(owner->m_series.find(largest)))
    m_pool->budget *= 2;  // the file failed: keep the samples in memory rather than lose them
}

bool SampleStore::spill(std::map<int, SpillSeries<Sample>>::iterator gpu) {
  const std::size_t n = gpu->second.in_memory();
  // Each GPU may keep a buffer of twice its share of the budget, so the kept buffers together
  // stay within twice the budget, as the regrowing ones did.
  const std::size_t keep = 2 * m_pool->budget / std::max<std::size_t>(1, m_pool->series);
  if (!gpu->second.spill(m_file, keep)) return false;
  m_in_memory -= n;
  m_pool->in_memory -= n;
  return true;
}

std::size_t SampleStore::runs_of(int gpu) const {
  const auto it = m_series.find(gpu);
  return it == m_series.end() ? 0 : it->second.runs().size();
}

// Samples read from each run at a time: the readers open together share about one budget.
std::size_t SampleStore::chunk_for(std::size_t runs, std::size_t readers) const {
  return std::max<std::size_t>(64, std::min(kReadChunk, m_pool->budget / (readers * (runs + 1))));
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

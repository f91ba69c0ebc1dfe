// The store that keeps extract's telemetry samples: in memory up to a budget, then in sorted
// runs of a temporary file, read back in time order (docs/indicators.md, "Memory").
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/extract/sample.hpp>
#include <gpucost/extract/spill.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpucost::extract {

class SampleStore;

/// The memory budget of the stores of one run: every host's store spends the one budget, so that
/// a run over many hosts holds what a run over one does (issue 35: 125 hosts each with its own
/// budget held 9.8 GB).
struct SampleBudget {
  std::size_t budget = 0;     ///< samples the stores hold in memory together
  std::size_t in_memory = 0;  ///< samples they hold now
  std::size_t series = 0;     ///< GPUs with samples, over the stores
  std::vector<SampleStore*> stores;
};

/// The samples of every GPU. Up to `budget` samples stay in memory; beyond it the GPU holding
/// the most is sorted by time and written as a run to an unlinked file in $TMPDIR (or /tmp),
/// so memory stays bounded whatever the length of the logs. Reading merges the runs: samples
/// come in time order, those at the same instant in arrival order (a stable sort).
class SampleStore {
 public:
  static constexpr std::size_t kDefaultBudget = std::size_t{1} << 18;  ///< samples (~39 MB)
  explicit SampleStore(std::size_t budget = kDefaultBudget);
  /// A store that spends `shared` with the other stores of the run (another host's).
  explicit SampleStore(std::shared_ptr<SampleBudget> shared);
  ~SampleStore();
  /// The budget this store spends, to share with another host's store.
  [[nodiscard]] const std::shared_ptr<SampleBudget>& shared_budget() const { return m_pool; }
  SampleStore(const SampleStore&) = delete;
  SampleStore& operator=(const SampleStore&) = delete;

  void add(int gpu, const Sample& s);
  /// The GPUs with samples, ascending.
  [[nodiscard]] std::vector<int> gpus() const;
  [[nodiscard]] std::size_t size() const { return m_total; }
  [[nodiscard]] bool empty() const { return m_total == 0; }
  [[nodiscard]] std::int64_t min_ts() const { return m_min_ts; }
  [[nodiscard]] std::int64_t max_ts() const { return m_max_ts; }
  /// Runs written to the temporary file so far (0: everything is in memory).
  [[nodiscard]] std::size_t runs() const;
  /// The first failure to write or read the temporary file (disk full, ...), if any.
  [[nodiscard]] const Status& status() const { return m_file.status(); }

  /// Reads the samples with from <= ts <= to in time order: one GPU's, or every GPU's merged
  /// (samples of the same instant then come GPU by GPU, ascending).
  class Reader {
   public:
    /// One GPU's. `readers_at_once`: how many readers are open together (-j's walks: they share
    /// the memory of one).
    Reader(const SampleStore& store, int gpu, std::int64_t from_ns, std::int64_t to_ns,
           std::size_t readers_at_once = 1);
    /// Every GPU. `readers_at_once`: how many such readers are open together (they share the
    /// memory of one).
    Reader(const SampleStore& store, std::int64_t from_ns, std::int64_t to_ns, std::size_t readers_at_once = 1);
    /// The next sample, or nullptr at the end; valid until the next call.
    const Sample* next();

   private:
    RunMerge<Sample> m_merge;
    std::int64_t m_from, m_to;
  };

  /// Calls fn(const Sample&) for each sample of `gpu` in [from, to], in time order. Threads may
  /// read different GPUs at once (`readers_at_once` of them), not one GPU: its in-memory samples
  /// are sorted in place on its first read.
  template <typename Fn>
  void for_each(int gpu, std::int64_t from_ns, std::int64_t to_ns, Fn&& fn, std::size_t readers_at_once = 1) const {
    Reader r(*this, gpu, from_ns, to_ns, readers_at_once);
    while (const Sample* s = r.next()) fn(*s);
  }

 private:
  /// Spills the GPU that holds the most samples in memory, over every store of the budget.
  void spill_largest();
  /// Spills `gpu`'s samples held in memory; false when the file failed.
  bool spill(std::map<int, SpillSeries<Sample>>::iterator gpu);
  [[nodiscard]] std::size_t chunk_for(std::size_t runs, std::size_t readers = 1) const;
  [[nodiscard]] std::size_t runs_of(int gpu) const;

  std::shared_ptr<SampleBudget> m_pool;
  std::map<int, SpillSeries<Sample>> m_series;
  std::size_t m_in_memory = 0, m_total = 0;
  std::int64_t m_min_ts = std::numeric_limits<std::int64_t>::max();
  std::int64_t m_max_ts = std::numeric_limits<std::int64_t>::min();
  SpillFile m_file;
};

}  // namespace gpucost::extract

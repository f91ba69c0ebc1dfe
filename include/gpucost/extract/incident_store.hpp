// The kernel and system incidents extract counts, kept like the samples: in memory up to a
// budget, then in sorted runs of a temporary file, read back in time order.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event_kind.hpp>
#include <gpucost/core/fault_cause.hpp>
#include <gpucost/extract/spill.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gpucost::extract {

/// A kernel or system event extract counts (xid, gpu_lost, aer, suspend, lid, power_source,
/// ...). The strings are views of the store's own copies, valid as long as the store.
struct Incident {
  std::int64_t ts_ns = 0;
  EventKind kind = EventKind::other;
  std::string_view detail;  ///< xid: bucket; aer: severity; lid, power_source: state
  int code = -1;            ///< xid: the Xid code
  /// The GPU the event names: its PCI bus id without the function ("0000:01:00") or the
  /// driver's "GPU4"; empty when it names none (the host).
  std::string_view device;
  /// xid: the event's `cause` (unknown when the event stream predates it); other kinds: unknown.
  FaultCause cause = FaultCause::unknown;
};

/// Every incident of the inputs, 16 bytes each in memory up to `budget`, beyond it in sorted
/// runs of an unlinked file in $TMPDIR: a storm of millions of AER lines costs no more memory
/// than a quiet log. Read back in time order, those of the same instant in arrival order.
class IncidentStore {
 public:
  static constexpr std::size_t kDefaultBudget = std::size_t{1} << 16;  ///< incidents (1 MiB)
  /// Distinct detail and device strings kept; beyond, one reads as kTooManyNames.
  static constexpr std::size_t kMaxNames = 4096;
  static constexpr std::string_view kTooManyNames = "(too many distinct values)";

  explicit IncidentStore(std::size_t budget = kDefaultBudget);
  /// `code` outside the 16-bit range (no Xid NVIDIA defines) is kept as -1.
  void add(std::int64_t ts_ns, EventKind kind, std::string_view detail, int code, std::string_view device = {},
           FaultCause cause = FaultCause::unknown);
  [[nodiscard]] std::size_t size() const { return m_total; }
  [[nodiscard]] bool empty() const { return m_total == 0; }
  /// The first and the last incident's time (min > max when there is none).
  [[nodiscard]] std::int64_t min_ts() const { return m_min_ts; }
  [[nodiscard]] std::int64_t max_ts() const { return m_max_ts; }
  /// Runs written to the temporary file so far (0: everything is in memory).
  [[nodiscard]] std::size_t runs() const { return m_series.runs().size(); }
  /// The first failure to write or read the temporary file, if any.
  [[nodiscard]] const Status& status() const { return m_file.status(); }

  /// Calls fn(const Incident&) for every incident, in time order.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    RunMerge<Stored> merge(m_file, kReadChunk);
    merge.add_series(m_series);
    while (const Stored* s = merge.next())
      fn(Incident{s->ts_ns, s->kind, m_names[s->detail], s->code, m_names[s->device], s->cause});
  }

 private:
  struct Stored {
    std::int64_t ts_ns;
    std::uint16_t detail, device;  // indices into m_names
    std::int16_t code;             // 16 bits keep an incident at 16 bytes
    EventKind kind;
    FaultCause cause;  // in what was padding
  };
  static_assert(sizeof(Stored) == 16);
  static constexpr std::size_t kReadChunk = 4096;  // incidents per read of a run (64 KiB)
  std::uint16_t id_of(std::string_view text);

  std::deque<std::string> m_names;  // a deque: the views handed out stay valid as it grows
  std::unordered_map<std::string_view, std::uint16_t> m_ids;
  SpillSeries<Stored> m_series;
  SpillFile m_file;
  std::size_t m_budget, m_total = 0;
  std::int64_t m_min_ts = std::numeric_limits<std::int64_t>::max();
  std::int64_t m_max_ts = std::numeric_limits<std::int64_t>::min();
};

}  // namespace gpucost::extract

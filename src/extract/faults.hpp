// Faults: the Xid, GPU-lost and fatal AER events of one GPU grouped by a burst window, each
// group priced once (docs/cost-model.md, "Faults"; docs/indicators.md, F094, F097, F098, F105, F107, F108).
#pragma once

#include <gpucost/core/fault_cause.hpp>
#include <gpucost/extract/features.hpp>
#include <gpucost/extract/incident_store.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::extract::detail {

/// True for the events a fault is made of: every Xid, a GPU lost, an uncorrected fatal AER.
bool is_fault_member(const Incident& i);

/// One member event of a fault, with its downtime when utilisation tells it.
struct FaultEvent {
  std::int64_t ts_ns = 0;
  std::string_view device;  ///< empty: the host
  std::string_view kind;    ///< xid, gpu_lost or aer
  std::string_view bucket;  ///< the member's bucket (fault_bucket)
  int code = -1;
  /// Where the member's downtime ends (the next busy sample, or the window end); none when
  /// there is no utilisation to tell.
  std::optional<std::int64_t> downtime_end_ns;
  bool downtime_to_end = false;
  FaultCause cause = FaultCause::unknown;  ///< the member's cause (fault_member_cause)
};

/// Groups member events, given in time order, into faults: per device, an event within
/// `window_s` of the previous one of its device joins that one's group; a group of `ignore`
/// members only is no fault and is dropped.
class FaultBuilder {
 public:
  explicit FaultBuilder(double window_s);
  void add(const FaultEvent& e);
  /// The faults in time order (of their first member).
  std::vector<WindowFault> finish();

 private:
  struct Group {
    WindowFault fault;
    std::int64_t covered_to = 0;  // the downtime union so far reaches here
    bool downtime_known = true;
    bool cause_decided = false;  // a member not of bucket ignore was seen
  };
  void close(Group& g);
  std::int64_t m_window_ns;
  std::map<std::string, Group, std::less<>> m_open;  // by device
  std::vector<WindowFault> m_done;
};

/// fault_count and fault_<bucket>_count (F094, F097, F098, F105, F107, F108) from f.faults; null with `reason` when no
/// host log was read.
void fault_indicators(Features& f, const std::string& reason = {});

}  // namespace gpucost::extract::detail

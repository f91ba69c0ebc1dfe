// Who caused a GPU fault (docs/cost-model.md, "Faults"): the user's application, the hardware
// or driver, or nobody can say. prep classifies each Xid from NVIDIA's possible causes
// (data/nvidia-xid-causes.tsv) and its resolution bucket, extract combines the members of a
// fault, breakeven prices an application fault on both sides of the comparison.
#pragma once

#include <gpucost/core/xid_bucket.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpucost {

/// In the order a fault's members combine: the highest member's cause is the fault's. A
/// hardware member makes the whole fault hardware (the application may have been its victim);
/// one member nobody can place makes it unknown.
enum class FaultCause : std::uint8_t { application, unknown, hardware, count_ };

inline constexpr std::size_t kFaultCauseCount = static_cast<std::size_t>(FaultCause::count_);

/// The name of every FaultCause on the wire (the `cause` of xid events and of faults).
inline constexpr std::array<std::string_view, kFaultCauseCount> kFaultCauseNames = {"application", "unknown",
                                                                                    "hardware"};

inline constexpr std::string_view fault_cause_name(FaultCause cause) {
  return kFaultCauseNames[static_cast<std::size_t>(cause)];
}

/// The cause named `name`; `unknown` for any other name (an event stream or features document
/// written before causes existed).
inline constexpr FaultCause fault_cause_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kFaultCauseCount; ++i)
    if (kFaultCauseNames[i] == name) return static_cast<FaultCause>(i);
  return FaultCause::unknown;
}

/// The cause of a fault of members `a` and `b`.
inline constexpr FaultCause combine_causes(FaultCause a, FaultCause b) { return a > b ? a : b; }

/// The cause of one Xid from NVIDIA's possible causes (`causes`: the comma-separated list of
/// data/nvidia-xid-causes.tsv, empty when none is published) and its resolution bucket.
/// - A reset, a reboot or a call to support is the operator's work on the machine whatever
///   started it: hardware.
/// - Otherwise the resolution is restarting the application (or nothing): application when the
///   user's application is among the causes (13, 31, 43), hardware when causes are published
///   without it (94: a contained ECC error is RESTART_APP yet a memory fault), unknown when none
///   are published.
inline constexpr FaultCause xid_cause(std::string_view causes, XidBucket bucket) {
  if (bucket == XidBucket::reset_gpu || bucket == XidBucket::reboot || bucket == XidBucket::contact_support)
    return FaultCause::hardware;
  if (causes.empty() || bucket == XidBucket::unknown) return FaultCause::unknown;
  for (std::size_t at = 0; at < causes.size();) {
    std::size_t comma = causes.find(',', at);
    if (comma == std::string_view::npos) comma = causes.size();
    if (causes.substr(at, comma - at) == "user_app") return FaultCause::application;
    at = comma + 1;
  }
  return FaultCause::hardware;
}

static_assert(xid_cause("hardware,driver,user_app", XidBucket::restart_app) == FaultCause::application &&
              xid_cause("driver,user_app", XidBucket::ignore) == FaultCause::application &&
              xid_cause("hardware,driver,framebuffer", XidBucket::restart_app) == FaultCause::hardware &&
              xid_cause("hardware,driver,user_app", XidBucket::reset_gpu) == FaultCause::hardware &&
              xid_cause("", XidBucket::restart_app) == FaultCause::unknown &&
              xid_cause("", XidBucket::reboot) == FaultCause::hardware &&
              combine_causes(FaultCause::application, FaultCause::unknown) == FaultCause::unknown &&
              fault_cause_from_name("") == FaultCause::unknown);

}  // namespace gpucost

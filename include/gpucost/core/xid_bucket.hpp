// NVIDIA's resolution buckets of an Xid (the `bucket` field of xid events, docs/formats.md, from
// data/nvidia-xid-catalog.tsv): one list for the indicators that count them (xid_<bucket>_count,
// fault_<bucket>_count), the fault severity order and the configuration that prices them
// (local.incident_hours.<bucket>).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpucost {

/// In order of severity, lowest first (docs/cost-model.md, "Faults"): a fault is priced at its
/// most severe member's. `unknown` (a code outside NVIDIA's catalogue) ranks above reset_gpu:
/// with the resolution unknown the operator at least resets the GPU and then looks the code up.
enum class XidBucket : std::uint8_t { ignore, restart_app, reset_gpu, unknown, reboot, contact_support, count_ };

inline constexpr std::size_t kXidBucketCount = static_cast<std::size_t>(XidBucket::count_);

/// The name of every XidBucket on the wire, indexed by the enum value.
inline constexpr std::array<std::string_view, kXidBucketCount> kXidBucketNames = {
    "ignore", "restart_app", "reset_gpu", "unknown", "reboot", "contact_support"};

inline constexpr std::string_view xid_bucket_name(XidBucket bucket) {
  return kXidBucketNames[static_cast<std::size_t>(bucket)];
}

/// The bucket named `name`; `unknown` for any other name.
inline constexpr XidBucket xid_bucket_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kXidBucketCount; ++i)
    if (kXidBucketNames[i] == name) return static_cast<XidBucket>(i);
  return XidBucket::unknown;
}

static_assert(xid_bucket_from_name("contact_support") == XidBucket::contact_support &&
              xid_bucket_from_name("reset_gpu") == XidBucket::reset_gpu &&
              xid_bucket_from_name("") == XidBucket::unknown);

}  // namespace gpucost

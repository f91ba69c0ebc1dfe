// Host indicators built from kernel and system events: the incidents of the window with their
// downtime (F051), the temperature-anchored chain (F106-F113) and power source and sessions
// (F114-F123). Definitions in docs/indicators.md. Each is one read of the incident store in
// time order (beside merged reads of every GPU's samples), so memory does not grow with the
// number of incidents, only the window's list of coalesced incidents does.
#pragma once

#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace gpucost::extract::detail {

/// Suspend events closer than this to the previous one are the same suspend seen by another
/// layer (logind, systemd-sleep, the kernel).
inline constexpr std::int64_t kSameSuspendNs = 120 * 1'000'000'000LL;

/// The first message of each suspend: suspend events within kSameSuspendNs of the previous one
/// are the same suspend. Fed every suspend event of the input in time order, the window's too
/// and those before it, so that a suspend that began before the window is not a new one in it
/// (suspend_count, the incident list and suspend_s agree, and windows that tile time merge).
class SuspendStarts {
 public:
  /// True when the suspend event at `ts_ns` starts a suspend.
  bool starts(std::int64_t ts_ns) {
    const bool same = m_last != kNone && ts_ns - m_last <= kSameSuspendNs;
    m_last = ts_ns;
    return !same;
  }

 private:
  static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  std::int64_t m_last = kNone;
};

/// Incidents of the same kind, bucket and code within this of the previous one are one burst:
/// one entry of Features::incidents with a count (an Xid storm lists as one line, each Xid still
/// priced).
inline constexpr std::int64_t kBurstNs = 60 * 1'000'000'000LL;

/// The utilisation window on either side of an error (the seed's 12.7 s).
inline constexpr double kUtilDropSpanS = 12.7;

/// What the walks of the GPUs found that the host pass needs.
struct GpuWalkSummary {
  std::vector<std::int64_t> crossings;  ///< upward rolling-median crossings of every GPU
  bool temperature = false;             ///< some GPU read a temperature in the window
  bool utilisation = false;             ///< some GPU read a utilisation in the window
};

struct WindowPassOptions {
  double chain_window_s = 300.0;
  double fault_window_s = kDefaultFaultWindowS;
};

/// Features::incidents (bursts coalesced) with their downtimes, downtime_s (F051), the faults
/// and their counts (F094, F097, F098, F105, F107, F108), and the chain (F106-F113 and error_util_drop_ratio).
void window_pass(const SampleCollector& c, GpuWalkSummary& walks, const WindowPassOptions& options, Features& f);

/// The session indicators (F115, F117-F119, F121) on the host, and the partials their rates merge from.
void session_indicators(const SampleCollector& c, Features& f);

/// The session indicators that are rates of host partials: merge recomputes them the same way.
inline constexpr std::array<std::string_view, 1> kSessionRateKeys = {"interruptions_per_hour"};

/// interruptions_per_hour from the host partials.
void session_rates_from_partials(Features& f);

}  // namespace gpucost::extract::detail

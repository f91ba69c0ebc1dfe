// Host indicators built from kernel and system events: power source and sessions (F114-F123)
// and the temperature-anchored chain (F106-F113). Definitions in docs/indicators.md.
#pragma once

#include <gpucost/extract/extract.hpp>

#include <cstdint>
#include <vector>

namespace gpucost::extract::detail {

/// Suspend events closer than this to the previous one are the same suspend seen by another
/// layer (logind, systemd-sleep, the kernel).
inline constexpr std::int64_t kSameSuspendNs = 120 * 1'000'000'000LL;

/// The utilisation samples of every GPU just before and just after one error.
struct UtilAround {
  double before_sum = 0, after_sum = 0;
  std::size_t before_n = 0, after_n = 0;
};

/// What the chain needs, gathered while each GPU's samples are walked.
struct ChainData {
  std::vector<std::int64_t> errors;     ///< error times in the window (Xid, AER, modeset, thermal), sorted
  std::vector<std::int64_t> crossings;  ///< upward rolling-median crossings of every GPU
  std::vector<UtilAround> around;       ///< one per error
  bool temperature = false;             ///< some GPU read a temperature in the window
  bool utilisation = false;             ///< some GPU read a utilisation in the window
};

/// The utilisation window on either side of an error (the seed's 12.7 s).
inline constexpr double kUtilDropSpanS = 12.7;

/// The chain's errors in the window, sorted, with their empty utilisation windows.
ChainData chain_errors(const SampleCollector& c, const Features& f);

/// Adds one GPU's utilisation samples around each error, the samples coming in time order.
class UtilAroundWalker {
 public:
  explicit UtilAroundWalker(ChainData& chain) : m_chain(chain) {}
  void add(const Sample& s);

 private:
  ChainData& m_chain;
  std::size_t m_first = 0;  // the first error whose after-window may still hold the next sample
};

/// F106-F113 on the host from the gathered data.
void chain_indicators(const SampleCollector& c, ChainData& chain, double window_s, IndicatorSet& out);

/// F114-F123 on the host, and the partials their rates merge from.
void session_indicators(const SampleCollector& c, Features& f);

/// ac_switches_per_hour and interruptions_per_hour from the host partials (merge recomputes
/// them the same way).
void session_rates_from_partials(Features& f);

}  // namespace gpucost::extract::detail

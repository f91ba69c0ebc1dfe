// The counts of the window's kernel and system incidents (F017-F027, F094-F102) and the Xid
// rate and times, on the host.
#pragma once

#include <gpucost/extract/features.hpp>
#include <gpucost/extract/sample_collector.hpp>

#include <array>
#include <string_view>

namespace gpucost::extract::detail {

/// The incident counts of the window, and the Xid partials merge recomputes the rate and times
/// from; null when no kernel or system log was read.
void incident_indicators(const SampleCollector& c, Features& f, IndicatorSet& out);

/// The Xid time, from xid_count and the host partials: merge recomputes it the same way.
inline constexpr std::array<std::string_view, 1> kXidTimeKeys = {"xid_first_s"};

/// xid_first_s from xid_count and the host partials (extract, merge).
void xid_indicators_from_partials(Features& f);

}  // namespace gpucost::extract::detail

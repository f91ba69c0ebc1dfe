// The window's incident counts from one read of the incident store in time order.
#include "incident_counts.hpp"

#include <gpucost/core/xid_bucket.hpp>

#include "host_events.hpp"

#include <algorithm>
#include <map>
#include <string_view>

namespace gpucost::extract::detail {

namespace {

// The first Xid's time from the host partials (merge recomputes it the same way).
void xid_times(const Features& f, IndicatorSet& out) {
  if (!value_of(out, "xid_count")) return;
  const auto first = f.host_partials.find("xid.first_ns.min");
  if (first == f.host_partials.end())
    set_absent(out, "xid_first_s", "no Xid in the window");
  else
    set_value(out, "xid_first_s", (first->second - static_cast<double>(f.from_ns)) / 1e9);
}

// Counts of kernel and system incidents in the window (host only): null when no kernel or
// journal log was read, since then "0 Xids" would be a guess.
constexpr IndicatorKey kIncidentKeys[] = {"xid_count",           "xid_restart_app_count",     "xid_reset_gpu_count",
                                          "xid_reboot_count",    "xid_contact_support_count", "gpu_lost_count",
                                          "aer_corrected_count", "aer_uncorrected_count",     "suspend_count",
                                          "lid_close_count",     "ac_offline_count",          "thermal_event_count",
                                          "driver_load_count",   "gpu_reset_count",           "oom_kill_count"};

/// The count an Xid of `bucket` adds to besides xid_count: the buckets NVIDIA names ("" for none).
std::string_view xid_bucket_key(XidBucket bucket) {
  switch (bucket) {
    case XidBucket::restart_app: return "xid_restart_app_count";
    case XidBucket::reset_gpu: return "xid_reset_gpu_count";
    case XidBucket::reboot: return "xid_reboot_count";
    case XidBucket::contact_support: return "xid_contact_support_count";
    case XidBucket::ignore:
    case XidBucket::unknown:
    case XidBucket::count_: break;
  }
  return "";
}

/// The count an incident adds to, besides xid_count ("" for none).
std::string_view incident_key(const Incident& i) {
  if (i.kind == EventKind::xid) return xid_bucket_key(xid_bucket_from_name(i.detail));
  if (i.kind == EventKind::gpu_lost) return "gpu_lost_count";
  if (i.kind == EventKind::aer) return i.detail == "corrected" ? "aer_corrected_count" : "aer_uncorrected_count";
  if (i.kind == EventKind::lid) return i.detail == "closed" ? "lid_close_count" : "";
  if (i.kind == EventKind::power_source) return i.detail == "offline" ? "ac_offline_count" : "";
  if (i.kind == EventKind::thermal) return i.detail == "normal" ? "" : "thermal_event_count";
  if (i.kind == EventKind::oom) return "oom_kill_count";
  if (i.kind == EventKind::driver)
    return i.detail == "load" ? "driver_load_count" : i.detail == "reset" ? "gpu_reset_count" : "";
  return "";
}

}  // namespace

void incident_indicators(const SampleCollector& c, Features& f, IndicatorSet& out) {
  if (!c.has_host_logs() && c.incidents().empty()) {
    for (const IndicatorKey k : kIncidentKeys)
      set_absent(out, k, "no kernel log, dmesg, journal or bug report among the inputs");
    for (const std::string_view k : kXidTimeKeys)
      set_absent(out, IndicatorKey::of(k), "no kernel log, dmesg, journal or bug report among the inputs");
    return;
  }
  std::map<std::string_view, double> n;
  for (auto k : kIncidentKeys) n[k] = 0;
  SuspendStarts suspends;
  c.incidents().for_each([&](const Incident& i) {  // in time order
    const bool suspend_start = i.kind == EventKind::suspend && suspends.starts(i.ts_ns);
    if (!f.contains(i.ts_ns)) return;
    if (i.kind == EventKind::xid) {
      ++n["xid_count"];
      const auto first = f.host_partials.find("xid.first_ns.min");
      if (first == f.host_partials.end() || static_cast<double>(i.ts_ns) < first->second)
        f.host_partials["xid.first_ns.min"] = static_cast<double>(i.ts_ns);
    }
    if (suspend_start) ++n["suspend_count"];  // one suspend, seen by several layers within 120 s
    const std::string_view key = incident_key(i);
    if (!key.empty()) ++n[key];
  });
  for (const auto& [key, value] : n) set_value(out, IndicatorKey::of(key), value);
  xid_times(f, out);
}

void xid_indicators_from_partials(Features& f) { xid_times(f, f.host_indicators); }

}  // namespace gpucost::extract::detail

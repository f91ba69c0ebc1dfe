// Faults (faults.hpp): grouping, the severity order, regrouping with a longer window, and the
// fault counts.
#include "faults.hpp"

#include <gpucost/core/xid_bucket.hpp>

#include <algorithm>
#include <array>
#include <tuple>

namespace gpucost::extract {

namespace {

void add_member(WindowFault& f, std::string_view kind, int code, std::int64_t count) {
  for (FaultMember& m : f.members)
    if (m.kind == kind && m.code == code) {
      m.count += count;
      return;
    }
  f.members.push_back(FaultMember{std::string(kind), code, count});
}

void raise_bucket(WindowFault& f, std::string_view bucket) {
  if (f.bucket.empty() || fault_severity(bucket) > fault_severity(f.bucket)) f.bucket = std::string(bucket);
}

/// A member that needs no action (bucket ignore) does not decide who caused the fault; `decided`
/// says whether a member that does was seen (the first one sets the cause, later ones raise it).
void raise_cause(WindowFault& f, bool& decided, std::string_view bucket, FaultCause cause) {
  if (bucket == xid_bucket_name(XidBucket::ignore)) return;
  f.cause = std::string(fault_cause_name(decided ? combine_causes(fault_cause_from_name(f.cause), cause) : cause));
  decided = true;
}

/// b (later, same device) joins a. The downtimes are unions of [t, next busy sample after t):
/// two such intervals either do not overlap or end at the same busy sample. So when a's union
/// reaches past b's first member, b's first interval lies inside a's last, and that is all the
/// overlap (b's later members end at later busy samples than a's, or at the same one).
void join(WindowFault& a, const WindowFault& b) {
  for (const FaultMember& m : b.members) add_member(a, m.kind, m.code, m.count);
  raise_bucket(a, b.bucket);
  a.cause =
      std::string(fault_cause_name(combine_causes(fault_cause_from_name(a.cause), fault_cause_from_name(b.cause))));
  a.count += b.count;
  if (a.downtime_s && b.downtime_s) {
    const double overlap = a.downtime_end_ns > b.ts_ns ? static_cast<double>(a.downtime_end_ns - b.ts_ns) / 1e9 : 0.0;
    a.downtime_s = *a.downtime_s + std::max(0.0, *b.downtime_s - overlap);
  } else {
    a.downtime_s.reset();
  }
  if (b.downtime_end_ns >= a.downtime_end_ns) {
    a.downtime_end_ns = b.downtime_end_ns;
    a.downtime_to_end = b.downtime_to_end;
  }
  a.last_ts_ns = std::max(a.last_ts_ns, b.last_ts_ns);
}

bool by_time(const WindowFault& a, const WindowFault& b) {
  return std::tie(a.ts_ns, a.host, a.device) < std::tie(b.ts_ns, b.host, b.device);
}

}  // namespace

int fault_severity(std::string_view bucket) { return static_cast<int>(xid_bucket_from_name(bucket)); }

std::string_view fault_bucket(std::string_view kind, std::string_view xid_bucket) {
  // A GPU off the bus comes back only with a reboot; the kernel recovers a fatal link error by
  // resetting the GPU.
  if (kind == "gpu_lost") return xid_bucket_name(XidBucket::reboot);
  if (kind == "aer") return xid_bucket_name(XidBucket::reset_gpu);
  return xid_bucket.empty() ? xid_bucket_name(XidBucket::unknown) : xid_bucket;
}

FaultCause fault_member_cause(std::string_view kind, FaultCause xid_cause) {
  return kind == "xid" ? xid_cause : FaultCause::hardware;
}

std::vector<WindowFault> regroup_faults(std::vector<WindowFault> faults, double window_s) {
  std::stable_sort(faults.begin(), faults.end(), [](const WindowFault& a, const WindowFault& b) {
    return std::tie(a.host, a.device, a.ts_ns) < std::tie(b.host, b.device, b.ts_ns);
  });
  const auto window_ns = static_cast<std::int64_t>(window_s * 1e9);
  std::vector<WindowFault> out;
  for (WindowFault& f : faults) {
    if (!out.empty() && out.back().host == f.host && out.back().device == f.device &&
        f.ts_ns - out.back().last_ts_ns <= window_ns)
      join(out.back(), f);
    else
      out.push_back(std::move(f));
  }
  std::stable_sort(out.begin(), out.end(), by_time);
  return out;
}

std::string fault_members_text(const WindowFault& fault) {
  std::string out;
  for (const FaultMember& m : fault.members) {
    if (!out.empty()) out += " then ";
    if (m.kind == "xid")
      out += "Xid " + std::to_string(m.code);
    else if (m.kind == "gpu_lost")
      out += "GPU lost";
    else if (m.kind == "aer")
      out += "fatal AER";
    else if (m.kind == "ac_offline")
      out += "AC offline";
    else
      out += m.kind;
    if (m.count > 1) out += " \u00d7" + std::to_string(m.count);  // "×"
  }
  return out;
}

namespace detail {

bool is_fault_member(const Incident& i) {
  return i.kind == EventKind::xid || i.kind == EventKind::gpu_lost ||
         (i.kind == EventKind::aer && i.detail == "uncorrected_fatal");
}

FaultBuilder::FaultBuilder(double window_s) : m_window_ns(static_cast<std::int64_t>(window_s * 1e9)) {}

void FaultBuilder::add(const FaultEvent& e) {
  auto it = m_open.find(e.device);
  if (it != m_open.end() && e.ts_ns - it->second.fault.last_ts_ns > m_window_ns) {
    close(it->second);
    m_open.erase(it);
    it = m_open.end();
  }
  if (it == m_open.end()) {
    Group g;
    g.fault.ts_ns = e.ts_ns;
    g.fault.device = std::string(e.device);
    g.fault.downtime_s = 0.0;
    g.covered_to = e.ts_ns;
    it = m_open.emplace(std::string(e.device), std::move(g)).first;
  }
  Group& g = it->second;
  WindowFault& f = g.fault;
  f.last_ts_ns = e.ts_ns;
  ++f.count;
  add_member(f, e.kind, e.code, 1);
  raise_bucket(f, e.bucket);
  raise_cause(f, g.cause_decided, e.bucket, e.cause);
  if (!e.downtime_end_ns) {
    g.downtime_known = false;
    return;
  }
  const std::int64_t end = *e.downtime_end_ns, start = std::max(e.ts_ns, g.covered_to);
  if (end > start) *f.downtime_s += static_cast<double>(end - start) / 1e9;
  g.covered_to = std::max(g.covered_to, end);
  if (end >= f.downtime_end_ns) {
    f.downtime_end_ns = end;
    f.downtime_to_end = e.downtime_to_end;
  }
}

void FaultBuilder::close(Group& g) {
  if (g.fault.bucket == "ignore") return;  // ignore members alone make no fault
  if (!g.downtime_known) g.fault.downtime_s.reset();
  m_done.push_back(std::move(g.fault));
}

std::vector<WindowFault> FaultBuilder::finish() {
  for (auto& [device, g] : m_open) close(g);
  m_open.clear();
  std::stable_sort(m_done.begin(), m_done.end(), by_time);
  return std::move(m_done);
}

void fault_indicators(Features& f, const std::string& reason) {
  struct BucketKey {
    XidBucket bucket;
    IndicatorKey key;
  };
  static constexpr std::array<BucketKey, 5> kByBucket = {{{XidBucket::restart_app, "fault_restart_app_count"},
                                                          {XidBucket::reset_gpu, "fault_reset_gpu_count"},
                                                          {XidBucket::unknown, "fault_unknown_count"},
                                                          {XidBucket::reboot, "fault_reboot_count"},
                                                          {XidBucket::contact_support, "fault_contact_support_count"}}};
  IndicatorSet& out = f.host_indicators;
  if (!reason.empty()) {
    set_absent(out, "fault_count", reason);
    for (const BucketKey& b : kByBucket) set_absent(out, b.key, reason);
    return;
  }
  set_value(out, "fault_count", static_cast<double>(f.faults.size()));
  for (const auto& entry : kByBucket) {  // not a structured binding: clang 14 cannot capture one
    const auto n = std::count_if(f.faults.begin(), f.faults.end(),
                                 [&](const WindowFault& w) { return xid_bucket_from_name(w.bucket) == entry.bucket; });
    set_value(out, entry.key, static_cast<double>(n));
  }
}

}  // namespace detail

}  // namespace gpucost::extract

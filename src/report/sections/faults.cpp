// The faults and interruptions of the window, priced once each at their most severe member's
// bucket, and on which side (docs/cost-model.md, "Faults").
#include "report/sections/sections.hpp"

#include <algorithm>
#include <cstdint>
#include <gpucost/core/time.hpp>
#include <vector>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// One fault (or interruption): kind and code of its first member (as one Xid was listed before
/// faults), count = member events, and what it is made of.
void json_fault(io::JsonWriter& w, const breakeven::IncidentCost& ic) {
  const extract::WindowFault& f = ic.fault;
  const extract::FaultMember first = f.members.empty() ? extract::FaultMember{} : f.members.front();
  w.object().key("ts").str(format_utc(f.ts_ns)).key("last_ts").str(format_utc(f.last_ts_ns));
  w.key("kind").str(first.kind).key("device").str(f.device).key("bucket").str(f.bucket);
  if (!ic.priced_on.empty()) w.key("cause").str(f.cause).key("priced_on").str(ic.priced_on);  // a fault
  w.key("code").integer(first.code).key("count").integer(f.count).key("members").array();
  for (const extract::FaultMember& m : f.members)
    w.item().object().key("kind").str(m.kind).key("code").integer(m.code).key("count").integer(m.count).close();
  w.close().key("what").str(extract::fault_members_text(f)).key("operator_hours").num(ic.hours);
  w.key("cost").num(ic.cost).key("downtime_s").num(f.downtime_s).close();
}

/// ", until 2024-06-12T10:04:17Z" for a fault of several events (docs/cost-model.md, "Faults").
std::string span_of(const extract::WindowFault& f) {
  if (f.last_ts_ns == f.ts_ns) return {};
  return fmt::format(", until {}", format_utc(f.last_ts_ns));
}

std::string table_incidents(const breakeven::Result& r, const std::string& cur) {
  std::string b;
  if (r.incidents.empty()) return b;
  // One line per fault, in time order, at most kIncidentsShown (the costliest); the rest as one
  // line with their cost and operator time: an Xid storm must not bury the verdict.
  const std::vector<std::size_t> shown = incidents_shown(r);
  b += shown.size() < r.incidents.size()
           ? fmt::format(
                 "incidents (a fault is priced once, at its most severe member's bucket; the {} costliest "
                 "of {}, in time order)\n",
                 shown.size(), r.incidents.size())
           : std::string("incidents (a fault is priced once, at its most severe member's bucket)\n");
  for (const std::size_t i : shown) {
    const auto& ic = r.incidents[i];
    const auto& f = ic.fault;
    const std::string what =
        extract::fault_members_text(f) + (f.bucket.empty() ? "" : " (" + f.bucket + ", " + f.cause + ")");
    b += fmt::format("  {}  {:<26}{:>12}  {} operator time{}{}{}\n", format_utc(f.ts_ns), what, money(ic.cost, cur),
                     hours(ic.hours), span_of(f), f.device.empty() ? std::string() : ", GPU " + f.device,
                     f.downtime_s ? fmt::format(", down {:.0f} s", *f.downtime_s) : std::string(", downtime unknown"));
  }
  if (const HiddenIncidents hidden = incidents_hidden(r, shown); hidden.count > 0)
    b += fmt::format("  \u2026 and {} more (see --json): {}, {} operator time\n", hidden.count, money(hidden.cost, cur),
                     hours(hidden.operator_h));
  if (r.application_faults + r.hardware_faults > 0) {
    const std::string_view application_side = r.fault_rule == breakeven::FaultRule::both_sides      ? "both sides"
                                              : r.fault_rule == breakeven::FaultRule::hardware_only ? "left out"
                                                                                                    : "local only";
    b += fmt::format("  faults: {} application ({}) {}, {} hardware or unknown (local only) {}\n", r.application_faults,
                     application_side, money(r.application_fault_cost, cur), r.hardware_faults,
                     money(r.hardware_fault_cost, cur));
    if (r.job.window_from_faults)
      b += "  note: the window runs from the first kernel or system event to the last (no telemetry bounds it): "
           "the faults make their own window, so T* and H* take no fault cost per job hour from it\n";
  }
  if (!r.fault_note.empty()) b += "  note: " + r.fault_note + "\n";
  return b;
}

}  // namespace

void faults_json(io::JsonWriter& w, const Answer& a) {
  const breakeven::Result& r = a.result;
  w.line("  ").key("incidents").array();
  for (const breakeven::IncidentCost& ic : r.incidents) json_fault(w.line("    ").item(), ic);
  w.close(r.incidents.empty() ? "" : "\n  ");
  w.line("  ").key("faults").object().key("rule").str(breakeven::fault_rule_name(r.fault_rule));
  w.key("application_count").integer(static_cast<std::int64_t>(r.application_faults));
  w.key("application_cost").num(r.application_fault_cost).key("cloud_cost").num(r.cloud_fault_cost);
  w.key("hardware_count").integer(static_cast<std::int64_t>(r.hardware_faults));
  w.key("hardware_cost").num(r.hardware_fault_cost).key("window_from_faults").boolean(r.job.window_from_faults);
  w.close();
  if (!r.fault_note.empty()) w.line("  ").key("fault_note").str(r.fault_note);
}

std::string faults_full(const Answer& a) {
  const breakeven::Result& r = a.result;
  std::string b = table_incidents(r, a.config.currency);
  if (r.downtime_h)
    b += fmt::format("downtime  {} ({:.1f} % of the window) after incidents and interruptions\n", hours(*r.downtime_h),
                     *r.downtime_share * 100);
  return b;
}

}  // namespace gpucost::report::sections

namespace gpucost::report {

std::vector<std::size_t> incidents_shown(const breakeven::Result& r, std::size_t limit) {
  std::vector<std::size_t> out(r.incidents.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
  if (out.size() <= limit) return out;
  std::stable_sort(out.begin(), out.end(),
                   [&r](std::size_t a, std::size_t b) { return r.incidents[a].cost > r.incidents[b].cost; });
  out.resize(limit);
  std::sort(out.begin(), out.end());
  return out;
}

HiddenIncidents incidents_hidden(const breakeven::Result& r, const std::vector<std::size_t>& shown) {
  HiddenIncidents out;
  for (std::size_t i = 0; i < r.incidents.size(); ++i)
    if (!std::binary_search(shown.begin(), shown.end(), i)) {
      ++out.count;
      out.cost += r.incidents[i].cost;
      out.operator_h += r.incidents[i].hours;
    }
  return out;
}

}  // namespace gpucost::report

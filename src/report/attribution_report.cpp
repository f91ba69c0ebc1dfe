// breakeven --by for people and for programs: who computed, what their share of the GPUs cost,
// and who held a GPU (and its memory) without computing.
#include <gpucost/report/attribution_report.hpp>

#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace gpucost::report {

namespace {

/// A table cell of at most `width` characters ("..." ends a cut one).
std::string fit(std::string text, std::size_t width) {
  if (text.size() > width) text.replace(width - 3, std::string::npos, "...");
  return text;
}

constexpr std::size_t kLabelWidth = 48;

// Two decimals from 1 on, else 3 significant digits: a share of a short job never reads 0.00.
std::string money(double v, const std::string& cur) { return fmt::format("{} {}", breakeven::unit_money(v), cur); }

std::string memory(const std::optional<double>& mib) {
  return mib ? fmt::format("{:.0f} MiB", *mib) : std::string("unknown");
}

std::string busy_time(double s) { return s < 3600 ? fmt::format("{:.1f} s", s) : text::duration_hours(s / 3600.0); }

std::string idle_line(const breakeven::IdleHolder& h) {
  const extract::ProcessUse& p = h.process;
  return fmt::format("  {:<4} {:>8}  {:<12} {:<32} {:>10}  {} .. {}{}\n", p.gpu, p.pid, p.user.empty() ? "?" : p.user,
                     fit(p.command.empty() ? "?" : p.command, 32), memory(p.fb_max_mib), format_utc(p.first_ns),
                     format_utc(p.last_ns), p.rows > 0 ? "" : "  (not in pmon: no context on this GPU)");
}

/// A user with their uid, a process after its user; a cgroup as its key (the path is in the JSON).
std::string row_label(const breakeven::AttributionRow& r, breakeven::AttributionBy by) {
  if (r.detail.empty() || by == breakeven::AttributionBy::cgroup) return r.key;
  if (by == breakeven::AttributionBy::process)
    return fmt::format("{} {}", r.detail, r.key);  // the user first: keys are cut
  return fmt::format("{} ({})", r.key, r.detail);
}

}  // namespace

std::string attribution_table(const breakeven::Attribution& a, const std::string& cur) {
  const std::string by(breakeven::attribution_by_name(a.by));
  std::string b = fmt::format("\ncost by {}", by);
  if (!a.reason.empty()) {
    b += fmt::format(": not split, {}\n", a.reason);
  } else {
    b += fmt::format("  (each GPU's cost shared by its processes' {}; they computed in {:.1f} % of the GPU time)\n",
                     a.basis, a.busy_share * 100);
    std::vector<std::string> labels;
    std::size_t width = by.size();
    for (const breakeven::AttributionRow& r : a.rows) {
      labels.push_back(fit(row_label(r, a.by), kLabelWidth));
      width = std::max(width, labels.back().size());
    }
    if (!a.unattributed_gpus.empty()) width = std::max(width, std::string_view("(nobody)").size());
    b += fmt::format("  {:<{}}  {:>9} {:>6} {:>10} {:>7} {:>14} {:>14} {:>11}\n", by, width, "processes", "GPUs",
                     "SM time", "share", "local", "cloud", "memory");
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
      const breakeven::AttributionRow& r = a.rows[i];
      b += fmt::format("  {:<{}}  {:>9} {:>6} {:>10} {:>5.1f} % {:>14} {:>14} {:>11}\n", labels[i], width, r.processes,
                       fmt::format("{}", fmt::join(r.gpus, ",")), busy_time(r.busy_s), r.share * 100,
                       money(r.local, cur), money(r.cloud, cur), memory(r.fb_max_mib));
    }
    if (!a.unattributed_gpus.empty())
      b += fmt::format("  {:<{}}  {:>9} {:>6} {:>10} {:>7} {:>14} {:>14}  no process computed on GPU {}\n", "(nobody)",
                       width, "", "", "", "", money(a.unattributed_local, cur), money(a.unattributed_cloud, cur),
                       fmt::join(a.unattributed_gpus, ", "));
  }
  for (const std::string& n : a.notes) b += fmt::format("  note: {}\n", n);
  if (!a.idle.empty()) {
    b += a.idle.front().computed_unknown ? "held a GPU (whether they computed is unknown without pmon)\n"
                                         : "held a GPU without computing (the memory they kept from other work)\n";
    b += fmt::format("  {:<4} {:>8}  {:<12} {:<32} {:>10}  {}\n", "gpu", "pid", "user", "command", "memory", "seen");
    for (const breakeven::IdleHolder& h : a.idle) b += idle_line(h);
  }
  return b;
}

void attribution_json(std::string& b, const breakeven::Attribution& a, const std::string& cur) {
  b.append(fmt::format(",\n  \"attribution\": {{\"by\": \"{}\", \"currency\": ", breakeven::attribution_by_name(a.by)));
  io::append_json_string(b, cur);
  b.append(", \"split\": ");
  b.append(a.reason.empty() ? "true" : "false");
  if (!a.reason.empty()) {
    b.append(", \"reason\": ");
    io::append_json_string(b, a.reason);
  } else {
    b.append(", \"basis\": ");
    io::append_json_string(b, a.basis);
    b.append(", \"busy_share\": ");
    io::append_json_number(b, a.busy_share);
  }
  b.append(",\n    \"rows\": [");
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    const breakeven::AttributionRow& r = a.rows[i];
    b.append(i == 0 ? "\n      {\"key\": " : ",\n      {\"key\": ");
    io::append_json_string(b, r.key);
    if (!r.detail.empty()) {
      b.append(", \"detail\": ");
      io::append_json_string(b, r.detail);
    }
    b.append(fmt::format(", \"processes\": {}, \"gpus\": [{}], \"busy_s\": ", r.processes, fmt::join(r.gpus, ", ")));
    io::append_json_number(b, r.busy_s);
    b.append(", \"share\": ");
    io::append_json_number(b, r.share);
    b.append(", \"local\": ");
    io::append_json_number(b, r.local);
    b.append(", \"cloud\": ");
    io::append_json_number(b, r.cloud);
    b.append(", \"fb_max_mib\": ");
    if (r.fb_max_mib)
      io::append_json_number(b, *r.fb_max_mib);
    else
      b.append("null");
    b.append("}");
  }
  b.append(a.rows.empty() ? "]" : "\n    ]");
  b.append(",\n    \"unattributed\": {\"local\": ");
  io::append_json_number(b, a.unattributed_local);
  b.append(", \"cloud\": ");
  io::append_json_number(b, a.unattributed_cloud);
  b.append(", \"gpus\": [");
  for (std::size_t i = 0; i < a.unattributed_gpus.size(); ++i) {
    if (i > 0) b.append(", ");
    io::append_json_string(b, a.unattributed_gpus[i]);
  }
  b.append("]},\n    \"idle_holders\": [");
  for (std::size_t i = 0; i < a.idle.size(); ++i) {
    const extract::ProcessUse& p = a.idle[i].process;
    b.append(i == 0 ? "\n      {\"host\": " : ",\n      {\"host\": ");
    io::append_json_string(b, p.host);
    b.append(fmt::format(", \"gpu\": {}, \"pid\": {}, \"command\": ", p.gpu, p.pid));
    io::append_json_string(b, p.command);
    b.append(", \"user\": ");
    if (p.user.empty())
      b.append("null");
    else
      io::append_json_string(b, p.user);
    b.append(", \"fb_max_mib\": ");
    if (p.fb_max_mib)
      io::append_json_number(b, *p.fb_max_mib);
    else
      b.append("null");
    b.append(fmt::format(", \"first_ns\": {}, \"last_ns\": {}, \"in_pmon\": {}, \"computed\": {}}}", p.first_ns,
                         p.last_ns, p.rows > 0 ? "true" : "false", a.idle[i].computed_unknown ? "null" : "false"));
  }
  b.append(a.idle.empty() ? "]" : "\n    ]");
  b.append(",\n    \"notes\": [");
  for (std::size_t i = 0; i < a.notes.size(); ++i) {
    if (i > 0) b.append(", ");
    io::append_json_string(b, a.notes[i]);
  }
  b.append("]}");
}

}  // namespace gpucost::report

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

/// The GPUs a row computed on, by index: "gpu 0", "gpus 0,1" (a bare "0" read as no GPU at all).
std::string gpu_ids(const std::vector<int>& gpus) {
  if (gpus.empty()) return "-";
  return fmt::format("{} {}", gpus.size() == 1 ? "gpu" : "gpus", fmt::join(gpus, ","));
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
    std::size_t gpus_width = 4;  // "GPUs"; two spaces after the count keep "1  gpu 0" apart
    for (const breakeven::AttributionRow& r : a.rows) gpus_width = std::max(gpus_width, gpu_ids(r.gpus).size());
    b += fmt::format("  {:<{}}  {:>9}  {:>{}} {:>10} {:>7} {:>14} {:>14} {:>11}\n", by, width, "processes", "GPUs",
                     gpus_width, "SM time", "share", "local", "cloud", "memory");
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
      const breakeven::AttributionRow& r = a.rows[i];
      b += fmt::format("  {:<{}}  {:>9}  {:>{}} {:>10} {:>5.1f} % {:>14} {:>14} {:>11}\n", labels[i], width,
                       r.processes, gpu_ids(r.gpus), gpus_width, busy_time(r.busy_s), r.share * 100,
                       money(r.local, cur), money(r.cloud, cur), memory(r.fb_max_mib));
    }
    if (!a.unattributed_gpus.empty())
      b += fmt::format("  {:<{}}  {:>9}  {:>{}} {:>10} {:>7} {:>14} {:>14}  no process computed on GPU {}\n",
                       "(nobody)", width, "", "", gpus_width, "", "", money(a.unattributed_local, cur),
                       money(a.unattributed_cloud, cur), fmt::join(a.unattributed_gpus, ", "));
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

namespace {

// `, "key": value` members of a JSON object under construction.
void number(std::string& b, std::string_view key, double v) {
  b.append(fmt::format(", \"{}\": ", key));
  io::append_json_number(b, v);
}

void optional_number(std::string& b, std::string_view key, const std::optional<double>& v) {
  if (v)
    number(b, key, *v);
  else
    b.append(fmt::format(", \"{}\": null", key));
}

void text(std::string& b, std::string_view key, const std::string& v) {
  b.append(fmt::format(", \"{}\": ", key));
  io::append_json_string(b, v);
}

void json_row(std::string& b, const breakeven::AttributionRow& r) {
  b.append("{\"key\": ");
  io::append_json_string(b, r.key);
  if (!r.detail.empty()) text(b, "detail", r.detail);
  b.append(fmt::format(", \"processes\": {}, \"gpus\": [{}]", r.processes, fmt::join(r.gpus, ", ")));
  number(b, "busy_s", r.busy_s);
  number(b, "share", r.share);
  number(b, "local", r.local);
  number(b, "cloud", r.cloud);
  optional_number(b, "fb_max_mib", r.fb_max_mib);
  b.append("}");
}

void json_idle(std::string& b, const breakeven::IdleHolder& h) {
  const extract::ProcessUse& p = h.process;
  b.append("{\"host\": ");
  io::append_json_string(b, p.host);
  b.append(fmt::format(", \"gpu\": {}, \"pid\": {}", p.gpu, p.pid));
  text(b, "command", p.command);
  if (p.user.empty())
    b.append(", \"user\": null");
  else
    text(b, "user", p.user);
  optional_number(b, "fb_max_mib", p.fb_max_mib);
  b.append(fmt::format(", \"first_ns\": {}, \"last_ns\": {}, \"in_pmon\": {}, \"computed\": {}}}", p.first_ns,
                       p.last_ns, p.rows > 0 ? "true" : "false", h.computed_unknown ? "null" : "false"));
}

/// `"key": [item, ...]`, one item a line, each written by `write`.
template <typename T, typename Write>
void json_list(std::string& b, std::string_view key, const std::vector<T>& items, Write write) {
  b.append(fmt::format(",\n    \"{}\": [", key));
  for (std::size_t i = 0; i < items.size(); ++i) {
    b.append(i == 0 ? "\n      " : ",\n      ");
    write(b, items[i]);
  }
  b.append(items.empty() ? "]" : "\n    ]");
}

void json_strings(std::string& b, const std::vector<std::string>& list) {
  b.append("[");
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i > 0) b.append(", ");
    io::append_json_string(b, list[i]);
  }
  b.append("]");
}

}  // namespace

void attribution_json(std::string& b, const breakeven::Attribution& a, const std::string& cur) {
  b.append(fmt::format(",\n  \"attribution\": {{\"by\": \"{}\"", breakeven::attribution_by_name(a.by)));
  text(b, "currency", cur);
  b.append(a.reason.empty() ? ", \"split\": true" : ", \"split\": false");
  if (!a.reason.empty()) {
    text(b, "reason", a.reason);
  } else {
    text(b, "basis", a.basis);
    number(b, "busy_share", a.busy_share);
  }
  json_list(b, "rows", a.rows, json_row);
  b.append(",\n    \"unattributed\": {\"local\": ");
  io::append_json_number(b, a.unattributed_local);
  number(b, "cloud", a.unattributed_cloud);
  b.append(", \"gpus\": ");
  json_strings(b, a.unattributed_gpus);
  b.append("}");
  json_list(b, "idle_holders", a.idle, json_idle);
  b.append(",\n    \"notes\": ");
  json_strings(b, a.notes);
  b.append("}");
}

}  // namespace gpucost::report

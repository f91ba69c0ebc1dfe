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

void json_row(io::JsonWriter& w, const breakeven::AttributionRow& r) {
  w.object().key("key").str(r.key).text_if("detail", r.detail).key("processes").integer(r.processes);
  w.key("gpus").array();
  for (const int gpu : r.gpus) w.item().integer(gpu);
  w.close().key("busy_s").num(r.busy_s).key("share").num(r.share).key("local").num(r.local);
  w.key("cloud").num(r.cloud).key("fb_max_mib").num(r.fb_max_mib).close();
}

void json_idle(io::JsonWriter& w, const breakeven::IdleHolder& h) {
  const extract::ProcessUse& p = h.process;
  w.object().key("host").str(p.host).key("gpu").integer(p.gpu).key("pid").integer(p.pid);
  w.key("command").str(p.command).key("user").str_or_null(p.user).key("fb_max_mib").num(p.fb_max_mib);
  w.key("first_ns").integer(p.first_ns).key("last_ns").integer(p.last_ns).key("in_pmon").boolean(p.rows > 0);
  w.key("computed");
  if (h.computed_unknown)
    w.null();
  else
    w.boolean(false);
  w.close();
}

/// `"key": [item, ...]`, one item a line, each written by `write`.
template <typename T, typename Write>
void json_list(io::JsonWriter& w, std::string_view key, const std::vector<T>& items, Write write) {
  w.line("    ").key(key).array();
  for (const T& item : items) write(w.line("      ").item(), item);
  w.close(items.empty() ? "" : "\n    ");
}

void json_strings(io::JsonWriter& w, const std::vector<std::string>& list) {
  w.array();
  for (const std::string& s : list) w.item().str(s);
  w.close();
}

}  // namespace

void attribution_json(io::JsonWriter& w, const breakeven::Attribution& a, const std::string& cur) {
  w.line("  ").key("attribution").object().key("by").str(breakeven::attribution_by_name(a.by)).key("currency").str(cur);
  w.key("split").boolean(a.reason.empty());
  if (!a.reason.empty())
    w.key("reason").str(a.reason);
  else
    w.key("basis").str(a.basis).key("busy_share").num(a.busy_share);
  json_list(w, "rows", a.rows, json_row);
  w.line("    ").key("unattributed").object().key("local").num(a.unattributed_local);
  w.key("cloud").num(a.unattributed_cloud).key("gpus");
  json_strings(w, a.unattributed_gpus);
  w.close();
  json_list(w, "idle_holders", a.idle, json_idle);
  w.line("    ").key("notes");
  json_strings(w, a.notes);
  w.close();
}

}  // namespace gpucost::report

#include <gpucost/report/trace_price.hpp>
#include <gpucost/report/trace_regions.hpp>
#include <gpucost/report/trace_report.hpp>

#include <gpucost/report/critical_path_report.hpp>
#include <gpucost/report/trace_memory.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpucost::report {

std::string TraceEventCopy::text(const std::string& key) const {
  const auto it = fields.find(key);
  return it == fields.end() ? std::string() : it->second;
}

double TraceEventCopy::number(const std::string& key, double fallback) const {
  const auto it = fields.find(key);
  if (it == fields.end()) return fallback;
  return text::parse_double(it->second).value_or(fallback);
}

void TraceEventCollector::on_event(const Event& event) {
  if (!event.kind.starts_with("trace_")) return;
  m_jobs.on_event(event);
  if (event.kind == "trace_collective") return;  // thousands a trace: the job analysis has them
  TraceEventCopy c;
  c.ts_ns = event.ts_ns;
  c.gpu = event.gpu;
  c.kind = std::string(event.kind);
  for (const Field& f : event.fields) {
    c.fields[std::string(f.key)] = std::string(f.value);
    c.numeric[std::string(f.key)] = f.numeric;
  }
  m_events.push_back(std::move(c));
}

std::string level_sparkline(std::string_view bins, std::int64_t top, std::int64_t mark_at) {
  static constexpr std::string_view kLevels = ".:-=+*#%";
  constexpr std::size_t kPerChar = 3;  // 120 bins in 40 characters, the largest of each 3
  std::string out;
  std::int64_t most = 0;
  std::size_t in_char = 0;
  const auto put = [&] {
    if (mark_at > 0 && most >= mark_at)
      out += '@';
    else if (most <= 0 || top <= 0)
      out += ' ';
    else  // (most x 8 - 1) / top: the top itself is the highest level, 1/8 of it or less the lowest
      out += kLevels[static_cast<std::size_t>(std::clamp<std::int64_t>((most * 8 - 1) / top, 0, 7))];
    most = 0;
    in_char = 0;
  };
  for (const std::int64_t bin : number_list(bins)) {
    most = std::max(most, bin);
    if (++in_char == kPerChar) put();
  }
  if (in_char > 0) put();
  return out;
}

std::string human_ns(double ns) {
  const double a = std::fabs(ns);
  if (a < 1e3) return fmt::format("{:.0f} ns", ns);
  if (a < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  if (a < 1e9) return fmt::format("{:.3f} ms", ns / 1e6);
  return fmt::format("{:.3f} s", ns / 1e9);
}

namespace {

/// `name` cut to `width` characters: its first `head`, "...", and its end.
std::string cut_middle(const std::string& name, std::size_t width, std::size_t head) {
  const std::size_t tail = width - 3 - head;
  return name.substr(0, head) + "..." + name.substr(name.size() - tail);
}

/// Whether the names read differently from each other.
bool all_distinct(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return std::adjacent_find(names.begin(), names.end()) == names.end();
}

}  // namespace

std::vector<std::int64_t> number_list(std::string_view list) {
  std::vector<std::int64_t> out;
  for (std::size_t pos = 0; pos <= list.size() && !list.empty();) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    out.push_back(text::parse_int(list.substr(pos, comma - pos)).value_or(0));
    pos = comma + 1;
  }
  return out;
}

std::vector<std::string> fit_kernel_names(const std::vector<std::string>& names, std::size_t width) {
  constexpr std::size_t kLeast = 8;          // of the head and of the end: both stay recognisable
  if (width < 3 + 2 * kLeast) return names;  // 0: no limit; or too narrow to cut
  const auto cut = [&](std::size_t head) {
    std::vector<std::string> out;
    for (const std::string& n : names) out.push_back(n.size() > width ? cut_middle(n, width, head) : n);
    return out;
  };
  const std::size_t middle = (width - 3) / 2;
  // From the middle outwards: a longer end first (template arguments differ there), then a longer head.
  for (std::size_t step = 0; step <= middle - kLeast; ++step) {
    if (auto out = cut(middle - step); all_distinct(out)) return out;
    if (auto out = cut(middle + step); middle + step <= width - 3 - kLeast && all_distinct(out)) return out;
  }
  return cut(middle);
}

namespace {

std::string human_bytes(double b) {
  if (b < 1e3) return fmt::format("{:.0f} B", b);
  if (b < 1e6) return fmt::format("{:.1f} kB", b / 1e3);
  if (b < 1e9) return fmt::format("{:.1f} MB", b / 1e6);
  return fmt::format("{:.2f} GB", b / 1e9);
}

std::string pct(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f} %", 100.0 * part / whole) : std::string("-");
}

/// "1 step", "3 steps": a count as the event writes it, and its noun.
std::string counted_text(const TraceEventCopy& e, const std::string& key, std::string_view noun) {
  const std::string n = e.text(key);
  return fmt::format("{} {}{}", n, noun, n == "1" ? "" : "s");
}

std::string header_line(const TraceEventCopy& info) {
  std::string h = "trace";
  if (info.has("trace_name")) h += fmt::format(" {}", info.text("trace_name"));
  if (info.has("rank")) h += fmt::format("  rank {}", info.text("rank"));
  if (info.has("world_size")) h += fmt::format("/{}", info.text("world_size"));
  if (info.has("backend")) h += fmt::format(" ({})", info.text("backend"));
  h += fmt::format("  {}, {}, {}", counted_text(info, "records", "record"), counted_text(info, "gpu_ops", "GPU op"),
                   counted_text(info, "steps", "step"));
  if (info.has("steps_analysed")) h += fmt::format(" ({} analysed)", info.text("steps_analysed"));
  return h + "\n";
}

/// The top kernels of GPU `d` among events[from, to), one row each.
void kernel_rows(const TraceEventCopy& d, const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to,
                 bool wide, std::string& b) {
  std::vector<const TraceEventCopy*> kernels;
  std::vector<std::string> names;
  for (std::size_t i = from; i < to; ++i)
    if (events[i].kind == "trace_kernel" && events[i].gpu == d.gpu) {
      kernels.push_back(&events[i]);
      names.push_back(events[i].text("name"));
    }
  if (kernels.empty()) return;
  names = fit_kernel_names(names, wide ? 0 : kKernelNameWidth);
  std::size_t width = kKernelNameWidth;
  for (const std::string& n : names) width = std::max(width, n.size());
  b += fmt::format("  {:<{}} {:>13} {:>7} {:>12} {:>12} {:>7}\n", "top kernels", width, "class", "count", "total",
                   "mean", "busy");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const TraceEventCopy& k = *kernels[i];
    b += fmt::format("  {:<{}} {:>13} {:>7} {:>12} {:>12} {:>7}\n", names[i], width, k.text("class"), k.text("count"),
                     human_ns(k.number("total_ns")), human_ns(k.number("mean_ns")), pct(k.number("busy_share"), 1.0));
  }
}

/// A queue length over time (level_sparkline), '@' at the launch queue's 1024 slots (the
/// launching thread stalls).
std::string queue_sparkline(std::string_view bins, std::int64_t longest) {
  return level_sparkline(bins, longest, 1024);
}

/// One line per stream with a launch queue: its length, the time launches stalled on a full
/// queue, and its length over time.
void queue_rows(const TraceEventCopy& d, const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to,
                std::string& b) {
  for (std::size_t i = from; i < to; ++i) {
    const TraceEventCopy& s = events[i];
    if (s.kind != "trace_stream" || s.gpu != d.gpu || !s.has("queue_length_max")) continue;
    b += fmt::format(
        "  queue       stream {}: mean {:.2f}, max {}, full (1024) for {}{}\n", s.text("stream"),
        s.number("queue_length_mean"), s.text("queue_length_max"), human_ns(s.number("full_queue_ns")),
        s.has("queue_max_by_bin")
            ? fmt::format("  |{}|", queue_sparkline(s.text("queue_max_by_bin"),
                                                    static_cast<std::int64_t>(s.number("queue_length_max"))))
            : std::string());
  }
}

void device_block(const TraceEventCopy& d, const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to,
                  bool wide, std::string& b) {
  const double span = d.number("span_ns");
  b += fmt::format("GPU {} {} span {}, {} on {}\n", d.gpu, d.text("device_name"), human_ns(span),
                   counted_text(d, "ops", "op"), counted_text(d, "streams", "stream"));
  b +=
      fmt::format("  busy        {:>12}  {:>7}   compute {} ({}), non-compute {} ({})\n", human_ns(d.number("busy_ns")),
                  pct(d.number("busy_ns"), span), human_ns(d.number("compute_ns")), pct(d.number("compute_ns"), span),
                  human_ns(d.number("noncompute_ns")), pct(d.number("noncompute_ns"), span));
  b += fmt::format("  idle        {:>12}  {:>7}   per stream: host wait {}, short gaps {}, other {}\n",
                   human_ns(d.number("idle_ns")), pct(d.number("idle_ns"), span),
                   human_ns(d.number("idle_host_wait_ns")), human_ns(d.number("idle_short_gap_ns")),
                   human_ns(d.number("idle_other_ns")));
  if (d.has("launch_delay_p50_ns")) {
    b += fmt::format(
        "  launch      {:.0f} of {} joined to a launch call; delay p50 {}, p95 {}, p99 {}, max {}; "
        "over 10 ms {}\n",
        d.number("launched_ops"), counted_text(d, "ops", "op"), human_ns(d.number("launch_delay_p50_ns")),
        human_ns(d.number("launch_delay_p95_ns")), human_ns(d.number("launch_delay_p99_ns")),
        human_ns(d.number("launch_delay_max_ns")), pct(d.number("launch_delays_over_10ms"), d.number("launched_ops")));
  } else {
    b += fmt::format("  launch      no op joined to a launch call ({} without one)\n", counted_text(d, "ops", "op"));
  }
  b += fmt::format("  kernels     {} ({} distinct), shorter than 10 us {}{}\n", d.text("kernels"),
                   d.text("distinct_kernels"), pct(d.number("short_kernels"), d.number("kernels")),
                   d.has("queue_length_mean") ? fmt::format("; queue length mean {:.2f}, max {}",
                                                            d.number("queue_length_mean"), d.text("queue_length_max"))
                                              : std::string());
  for (std::size_t i = from; i < to; ++i) {
    const TraceEventCopy& m = events[i];
    if (m.kind != "trace_memory" || m.gpu != d.gpu) continue;
    b += fmt::format("  {:<11} {}, {}{}{}\n",
                     m.has("direction") ? fmt::format("{} {}", m.text("op"), m.text("direction")) : m.text("op"),
                     counted_text(m, "count", "op"), human_ns(m.number("total_ns")),
                     m.has("bytes") ? fmt::format(", {}", human_bytes(m.number("bytes"))) : std::string(),
                     m.has("gbps") ? fmt::format(", {:.3g} GB/s", m.number("gbps")) : std::string());
  }
  gpu_memory_rows(d, events, from, to, b);
  queue_rows(d, events, from, to, b);
  kernel_rows(d, events, from, to, wide, b);
}

/// The trace's communication: how much of it computation hid.
void comm_line(const TraceEventCopy& c, std::string& b) {
  const double comm = c.number("comm_ns"), span = c.number("span_ns");
  b += fmt::format("communication {} in {}, {} overlapped by compute, exposed {} ({} of the span)\n", human_ns(comm),
                   counted_text(c, "collectives", "collective"), pct(c.number("comm_overlap_ns"), comm),
                   human_ns(c.number("exposed_comm_ns")), pct(c.number("exposed_comm_ns"), span));
}

}  // namespace

std::string ranks_table(const std::vector<extract::TraceJob>& jobs) {
  std::string b;
  for (const extract::TraceJob& job : jobs) {
    if (job.ranks.size() < 2) continue;
    b += fmt::format("\njob of {} ranks of {} ({}): {} collectives matched", job.ranks.size(), job.world_size,
                     job.backend.empty() ? "backend unknown" : job.backend, job.matched);
    if (job.unmatched > 0) b += fmt::format(", {} not", job.unmatched);
    b += "\n";
    if (job.straggler_rank >= 0)
      b += fmt::format("  straggler   rank {} in {:.1f} % of {} steps (it arrived last: the others waited)\n",
                       job.straggler_rank, job.straggler_step_share * 100, job.steps);
    b += fmt::format("  waiting     {} of {} GPU time ({:.1f} %)\n", human_ns(static_cast<double>(job.wait_ns)),
                     human_ns(static_cast<double>(job.span_ns)), job.wait_fraction() * 100);
    b += fmt::format(
        "  exposed     {} communication not hidden by compute ({:.1f} % of the GPU time; {:.1f} % of "
        "the communication overlapped)\n",
        human_ns(static_cast<double>(job.exposed_comm_ns)), job.exposed_comm_fraction() * 100,
        job.overlap_fraction() * 100);
    b += fmt::format("  {:>5}  {:<32} {:>12} {:>12} {:>7} {:>10} {:>12} {:>8}\n", "rank", "trace", "span", "wait",
                     "wait", "straggler", "exposed", "overlap");
    for (const extract::RankRow& r : job.ranks) {
      std::string path = r.path;
      if (path.size() > 32) path = "..." + path.substr(path.size() - 29);
      b += fmt::format("  {:>5}  {:<32} {:>12} {:>12} {:>7} {:>10} {:>12} {:>8}\n", r.rank, path,
                       human_ns(static_cast<double>(r.span_ns)), human_ns(static_cast<double>(r.wait_ns)),
                       pct(static_cast<double>(r.wait_ns), static_cast<double>(r.span_ns)), r.straggler_steps,
                       human_ns(static_cast<double>(r.exposed_comm_ns)), pct(r.overlap_fraction(), 1.0));
    }
    for (const std::string& n : job.notes) b += fmt::format("  note: {}\n", n);
  }
  return b;
}

std::string trace_table(const std::vector<TraceEventCopy>& events, bool wide, const TracePrice* price) {
  std::string b;
  // Each trace_info starts one trace; its events follow until the next trace_info.
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].kind != "trace_info") continue;
    std::size_t end = i + 1;
    while (end < events.size() && events[end].kind != "trace_info") ++end;
    if (!b.empty()) b += "\n";
    b += header_line(events[i]);
    bool any = false;
    for (std::size_t j = i + 1; j < end; ++j) {
      if (events[j].kind != "trace_device") continue;
      device_block(events[j], events, i + 1, end, wide, b);
      any = true;
    }
    if (!any) b += "  no GPU ops: nothing to analyse (see the notes)\n";
    for (std::size_t j = i + 1; j < end; ++j)
      if (events[j].kind == "trace_comm") comm_line(events[j], b);
    b += trace_regions_text(events, i + 1, end, wide, price);
    critical_path_rows(events, i + 1, end, wide, price, b);
  }
  if (b.empty()) return "no profiler trace among the inputs\n";
  if (price != nullptr) b += trace_price_text(*price);
  return b;
}

}  // namespace gpucost::report

#include <gpucost/report/trace_memory.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpucost::report {

std::string human_bytes_binary(double b) {
  const double a = std::fabs(b);
  if (a < 1024) return fmt::format("{:.0f} B", b);
  if (a < 1024.0 * 1024) return fmt::format("{:.1f} KiB", b / 1024);
  if (a < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
}

std::string memory_sparkline(std::string_view bins, std::int64_t peak) { return level_sparkline(bins, peak); }

namespace {

/// "6.17 GiB / 11.90 GiB": a step's peak allocated and reserved, "?" for a total no event gave.
std::string peak_pair(const TraceEventCopy& e, const std::string& allocated, const std::string& reserved) {
  const auto one = [&](const std::string& key) {
    return e.has(key) ? human_bytes_binary(e.number(key)) : std::string("?");
  };
  return fmt::format("{} / {}", one(allocated), one(reserved));
}

/// One line for the GPU's steps, at most kShown of them, each "#N allocated / reserved".
void step_rows(const TraceEventCopy& d, const std::vector<TraceEventCopy>& events, std::size_t from, std::size_t to,
               std::string& b) {
  constexpr std::size_t kShown = 6;
  std::string line;
  std::size_t steps = 0;
  for (std::size_t i = from; i < to; ++i) {
    const TraceEventCopy& s = events[i];
    if (s.kind != "trace_step_memory" || s.gpu != d.gpu) continue;
    if (++steps <= kShown)
      line += fmt::format("{}#{} {}", line.empty() ? "" : ", ", s.text("step"),
                          peak_pair(s, "peak_allocated_bytes", "peak_reserved_bytes"));
  }
  if (steps == 0) return;
  if (steps > kShown) line += fmt::format(", ... ({} more)", steps - kShown);
  b += fmt::format("  step peaks  allocated / reserved: {}\n", line);
}

}  // namespace

void gpu_memory_rows(const TraceEventCopy& d, const std::vector<TraceEventCopy>& events, std::size_t from,
                     std::size_t to, std::string& b) {
  if (!d.has("mem_events")) return;
  const std::string counts =
      fmt::format("{} events, {} allocs, {} frees", d.text("mem_events"), d.text("mem_allocs"), d.text("mem_frees"));
  if (!d.has("mem_peak_allocated_bytes") && !d.has("mem_peak_reserved_bytes")) {
    b += fmt::format("  gpu memory  peak unknown: {} without the allocator's totals (PyTorch 1.8 writes none)\n",
                     counts);
    return;
  }
  const double allocated = d.number("mem_peak_allocated_bytes", -1), reserved = d.number("mem_peak_reserved_bytes", -1);
  b += fmt::format(
      "  gpu memory  peak allocated {}, reserved {} ({}{}){}\n",
      allocated >= 0 ? human_bytes_binary(allocated) : std::string("?"),
      reserved >= 0 ? human_bytes_binary(reserved) : std::string("?"), counts,
      d.has("mem_events_without_totals") ? fmt::format(", {} without totals", d.text("mem_events_without_totals"))
                                         : std::string(),
      d.has("mem_allocated_max_by_bin") ? fmt::format("  |{}|", memory_sparkline(d.text("mem_allocated_max_by_bin"),
                                                                                 static_cast<std::int64_t>(allocated)))
                                        : std::string());
  step_rows(d, events, from, to, b);
}

}  // namespace gpucost::report

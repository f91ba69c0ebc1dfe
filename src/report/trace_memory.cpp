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

std::string memory_sparkline(std::string_view bins, std::int64_t peak) {
  static constexpr std::string_view kLevels = ".:-=+*#%";
  constexpr std::size_t kPerChar = 3;  // 120 bins in 40 characters, the largest of each 3
  std::string out;
  std::int64_t most = 0;
  std::size_t in_char = 0;
  const auto put = [&] {
    if (most <= 0 || peak <= 0)
      out += ' ';
    else  // (most x 8 - 1) / peak: the peak itself is the top level, 1/8 of it or less the lowest
      out += kLevels[static_cast<std::size_t>(std::clamp<long double>(
          std::floor((static_cast<long double>(most) * 8 - 1) / static_cast<long double>(peak)), 0, 7))];
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
  const std::string counts = fmt::format("{} events, {} allocs, {} frees", d.text("mem_events"),
                                         d.text("mem_allocs"), d.text("mem_frees"));
  if (!d.has("mem_peak_allocated_bytes") && !d.has("mem_peak_reserved_bytes")) {
    b += fmt::format("  gpu memory  peak unknown: {} without the allocator's totals (PyTorch 1.8 writes none)\n",
                     counts);
    return;
  }
  const double allocated = d.number("mem_peak_allocated_bytes", -1), reserved = d.number("mem_peak_reserved_bytes", -1);
  b += fmt::format("  gpu memory  peak allocated {}, reserved {} ({}{}){}\n",
                   allocated >= 0 ? human_bytes_binary(allocated) : std::string("?"),
                   reserved >= 0 ? human_bytes_binary(reserved) : std::string("?"), counts,
                   d.has("mem_events_without_totals")
                       ? fmt::format(", {} without totals", d.text("mem_events_without_totals"))
                       : std::string(),
                   d.has("mem_allocated_max_by_bin")
                       ? fmt::format("  |{}|", memory_sparkline(d.text("mem_allocated_max_by_bin"),
                                                                static_cast<std::int64_t>(allocated)))
                       : std::string());
  step_rows(d, events, from, to, b);
}

}  // namespace gpucost::report

#include <gpucost/report/timeline.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucost::report {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMessageChars = 200;

std::string_view field(const Event& ev, std::string_view key) {
  for (const Field& f : ev.fields)
    if (f.key == key) return f.value;
  return {};
}

/// The short label of a marker; empty for an event that is no marker.
std::string marker_label(const Event& ev) {
  const std::string_view k = ev.kind;
  const std::string_view state = field(ev, "state");
  if (k == "xid") return fmt::format("Xid {}", field(ev, "code"));
  if (k == "gpu_lost") return "GPU lost";
  if (k == "aer") return "AER";
  if (k == "thermal") {  // "cpu hot", "gpu temp ok"
    const std::string_view target = field(ev, "target");
    return fmt::format("{}{}{}", target, target.empty() ? "" : " ", state == "normal" ? "temp ok" : "hot");
  }
  if (k == "power_source") return state == "offline" ? "AC off" : "AC on";
  if (k == "lid") return state == "closed" ? "lid closed" : "lid open";
  if (k == "suspend") return "suspend";
  if (k == "resume") return field(ev, "failed") == "true" ? "resume (failed)" : "resume";
  return {};
}

/// At most kMessageChars bytes, cut on a character boundary.
std::string shortened(std::string_view s) {
  if (s.size() <= kMessageChars) return std::string(s);
  std::size_t cut = kMessageChars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

double median_interval_s(const std::vector<extract::Sample>& samples) {
  std::vector<double> d;
  for (std::size_t i = 1; i < samples.size(); ++i)
    if (samples[i].ts_ns > samples[i - 1].ts_ns)
      d.push_back(static_cast<double>(samples[i].ts_ns - samples[i - 1].ts_ns) / 1e9);
  if (d.empty()) return 0;
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
  return d[d.size() / 2];
}

bool busy(const extract::Sample& s, const ThrottleRule& rule) {
  return !std::isnan(s.util_pct) && s.util_pct >= rule.busy_util_pct;
}

}  // namespace

void ReportCollector::on_event(const Event& ev) {
  m_samples.on_event(ev);
  if (ev.kind == "sample") {
    if (ev.has(Metric::pclk_max_mhz)) {
      double& max = m_max_clock[ev.gpu < 0 ? 0 : ev.gpu];
      max = std::max(max, ev.get(Metric::pclk_max_mhz));
    }
    return;
  }
  std::string label = marker_label(ev);
  if (label.empty()) return;
  m_events.push_back(TimelineEvent{ev.ts_ns, std::string(ev.kind), std::move(label),
                                   text::printable(shortened(field(ev, "message")))});
}

double reference_sm_clock(const std::vector<extract::Sample>& samples, double reported_max_mhz,
                          const ThrottleRule& rule) {
  if (reported_max_mhz > 0) return reported_max_mhz;
  std::vector<double> clocks;
  for (const auto& s : samples)
    if (busy(s, rule) && !std::isnan(s.pclk_mhz)) clocks.push_back(s.pclk_mhz);
  if (clocks.empty()) return kNaN;
  std::sort(clocks.begin(), clocks.end());
  const auto at = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(clocks.size()))) - 1;
  return clocks[std::min(at, clocks.size() - 1)];
}

std::vector<TimeSpan> throttle_spans(const std::vector<extract::Sample>& samples, double reference_mhz,
                                     std::int64_t gap_ns, const ThrottleRule& rule) {
  std::vector<TimeSpan> spans;
  if (std::isnan(reference_mhz)) return spans;
  const double limit = rule.clock_fraction * reference_mhz;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (!busy(s, rule) || std::isnan(s.pclk_mhz) || s.pclk_mhz >= limit) continue;
    const std::int64_t next = i + 1 < samples.size() ? samples[i + 1].ts_ns : s.ts_ns;
    const TimeSpan span{s.ts_ns, std::min(next, s.ts_ns + gap_ns)};
    if (span.to_ns <= span.from_ns) continue;  // the last sample: no interval to shade
    if (!spans.empty() && span.from_ns <= spans.back().to_ns)
      spans.back().to_ns = std::max(spans.back().to_ns, span.to_ns);
    else
      spans.push_back(span);
  }
  return spans;
}

TimelineSeries downsample_metric(const std::vector<extract::Sample>& samples, double extract::Sample::*metric,
                                 std::int64_t from_ns, std::int64_t to_ns, std::int64_t gap_ns, std::size_t points) {
  std::vector<Point> all;
  std::vector<std::size_t> gaps_before;  // gaps_before[i]: gaps between all[0] and all[i]
  std::int64_t previous_ts = 0;
  for (const auto& s : samples) {
    const double v = s.*metric;
    if (s.ts_ns < from_ns || s.ts_ns > to_ns || std::isnan(v)) continue;
    const bool gap = !all.empty() && s.ts_ns - previous_ts > gap_ns;
    gaps_before.push_back((gaps_before.empty() ? 0 : gaps_before.back()) + (gap ? 1 : 0));
    all.push_back(Point{static_cast<double>(s.ts_ns - from_ns) / 1e9, v});
    previous_ts = s.ts_ns;
  }
  TimelineSeries out;
  out.samples = all.size();
  const auto kept = lttb_indices(all, points);
  for (std::size_t k = 0; k < kept.size(); ++k) {
    out.points.push_back(all[kept[k]]);
    out.break_before.push_back(k > 0 && gaps_before[kept[k]] != gaps_before[kept[k - 1]]);
  }
  return out;
}

std::vector<GpuTimeline> build_timelines(const extract::SampleCollector& samples,
                                         const std::map<int, double>& reported_max_sm_clock, std::int64_t from_ns,
                                         std::int64_t to_ns, std::size_t points) {
  std::vector<GpuTimeline> out;
  for (const int gpu : samples.store().gpus()) {
    const std::vector<extract::Sample> series = samples.samples_of(gpu);  // one GPU at a time
    GpuTimeline t;
    t.gpu = gpu;
    const auto gap_ns = static_cast<std::int64_t>(extract::gap_limit_s(median_interval_s(series)) * 1e9);
    t.power_w = downsample_metric(series, &extract::Sample::power_w, from_ns, to_ns, gap_ns, points);
    t.temp_c = downsample_metric(series, &extract::Sample::temp_c, from_ns, to_ns, gap_ns, points);
    t.util_pct = downsample_metric(series, &extract::Sample::util_pct, from_ns, to_ns, gap_ns, points);
    t.sm_clock_mhz = downsample_metric(series, &extract::Sample::pclk_mhz, from_ns, to_ns, gap_ns, points);
    const auto reported = reported_max_sm_clock.find(gpu);
    t.reference_reported = reported != reported_max_sm_clock.end() && reported->second > 0;
    t.reference_clock_mhz = reference_sm_clock(series, t.reference_reported ? reported->second : 0);
    for (TimeSpan s : throttle_spans(series, t.reference_clock_mhz, gap_ns)) {
      s.from_ns = std::max(s.from_ns, from_ns);
      s.to_ns = std::min(s.to_ns, to_ns);
      if (s.to_ns <= s.from_ns) continue;
      t.throttled_s += static_cast<double>(s.to_ns - s.from_ns) / 1e9;
      t.throttled.push_back(s);
    }
    out.push_back(std::move(t));
  }
  return out;
}

ReportSources report_sources(const ReportCollector& collector, extract::Features features) {
  ReportSources out;
  out.features = std::move(features);
  const auto& f = out.features;
  out.timelines = build_timelines(collector.samples(), collector.reported_max_sm_clock(), f.from_ns, f.to_ns);
  for (const auto& e : collector.events())
    if (e.ts_ns >= f.from_ns && e.ts_ns <= f.to_ns) out.events.push_back(e);
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const TimelineEvent& a, const TimelineEvent& b) { return a.ts_ns < b.ts_ns; });
  for (const auto& r : collector.samples().trace_records())
    if (r.kind == EventKind::trace_device) out.trace_devices.push_back(r);
  return out;
}

}  // namespace gpucost::report

#include <gpucost/report/timeline.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>

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

/// The exact k-th smallest of values counted by value: its memory grows with the distinct values,
/// not with their number (telemetry repeats its intervals and its clocks), so the report's
/// timelines need not hold a GPU's samples to take a median or a percentile.
template <typename T>
class ValueCounts {
 public:
  void add(T v) {
    ++m_counts[v];
    ++m_size;
  }
  [[nodiscard]] std::size_t size() const { return m_size; }
  /// The value at 0-based position k of the sorted values (k < size()).
  [[nodiscard]] T nth(std::size_t k) const {
    for (const auto& [v, n] : m_counts) {
      if (k < n) return v;
      k -= n;
    }
    return m_counts.rbegin()->first;
  }

 private:
  std::map<T, std::size_t> m_counts;
  std::size_t m_size = 0;
};

/// The median interval between consecutive samples (given in time order), seconds; 0 with none.
class IntervalMedian {
 public:
  void add(const extract::Sample& s) {
    if (m_any && s.ts_ns > m_previous_ns) m_intervals.add(s.ts_ns - m_previous_ns);
    m_previous_ns = s.ts_ns;
    m_any = true;
  }
  [[nodiscard]] double seconds() const {
    if (m_intervals.size() == 0) return 0;
    return static_cast<double>(m_intervals.nth(m_intervals.size() / 2)) / 1e9;
  }

 private:
  ValueCounts<std::int64_t> m_intervals;
  std::int64_t m_previous_ns = 0;
  bool m_any = false;
};

bool busy(const extract::Sample& s, const ThrottleRule& rule) {
  return !std::isnan(s.util_pct) && s.util_pct >= rule.busy_util_pct;
}

/// The 99th percentile of the SM clock over busy samples (ThrottleRule), given one at a time.
class BusyClockP99 {
 public:
  explicit BusyClockP99(const ThrottleRule& rule) : m_rule(rule) {}
  void add(const extract::Sample& s) {
    if (busy(s, m_rule) && !std::isnan(s.pclk_mhz)) m_clocks.add(s.pclk_mhz);
  }
  [[nodiscard]] double value() const {
    if (m_clocks.size() == 0) return kNaN;
    const auto at = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(m_clocks.size()))) - 1;
    return m_clocks.nth(std::min(at, m_clocks.size() - 1));
  }

 private:
  const ThrottleRule& m_rule;
  ValueCounts<double> m_clocks;
};

/// throttle_spans() over samples given one at a time (each waits for the next one's time).
class ThrottleSpans {
 public:
  ThrottleSpans(double reference_mhz, std::int64_t gap_ns, const ThrottleRule& rule)
      : m_limit(rule.clock_fraction * reference_mhz),
        m_gap_ns(gap_ns),
        m_rule(rule),
        m_on(!std::isnan(reference_mhz)) {}
  void add(const extract::Sample& s) {
    if (!m_on) return;
    if (m_has_pending) span_of(m_pending, s.ts_ns);
    m_pending = s;
    m_has_pending = true;
  }
  std::vector<TimeSpan> finish() {
    if (m_has_pending) span_of(m_pending, m_pending.ts_ns);  // the last sample: no interval
    m_has_pending = false;
    return std::move(m_spans);
  }

 private:
  void span_of(const extract::Sample& s, std::int64_t next_ns) {
    if (!busy(s, m_rule) || std::isnan(s.pclk_mhz) || s.pclk_mhz >= m_limit) return;
    const TimeSpan span{s.ts_ns, std::min(next_ns, s.ts_ns + m_gap_ns)};
    if (span.to_ns <= span.from_ns) return;
    if (!m_spans.empty() && span.from_ns <= m_spans.back().to_ns)
      m_spans.back().to_ns = std::max(m_spans.back().to_ns, span.to_ns);
    else
      m_spans.push_back(span);
  }
  double m_limit;
  std::int64_t m_gap_ns;
  const ThrottleRule& m_rule;
  bool m_on;
  extract::Sample m_pending;  // the sample waiting for the next one's time
  bool m_has_pending = false;
  std::vector<TimeSpan> m_spans;
};

/// One chart line of one metric, in two passes over the samples (time order): count() each,
/// then start() and add() each; the points go through LTTB as they come (docs/report.md).
class MetricLine {
 public:
  MetricLine(double extract::Sample::*metric, std::int64_t from_ns, std::int64_t to_ns)
      : m_metric(metric), m_from(from_ns), m_to(to_ns) {}
  void count(const extract::Sample& s) {
    if (inside(s)) ++m_count;
  }
  /// `gap_ns`: a longer step between points breaks the line (known once the first pass is done).
  void start(std::size_t points, std::int64_t gap_ns) {
    m_gap_ns = gap_ns;
    m_stream.emplace(m_count, points);
  }
  void add(const extract::Sample& s) {
    if (!inside(s)) return;
    if (m_any && s.ts_ns - m_previous_ts > m_gap_ns) ++m_gaps;  // a gap is not drawn across
    m_any = true;
    m_previous_ts = s.ts_ns;
    m_stream->add(Point{static_cast<double>(s.ts_ns - m_from) / 1e9, s.*m_metric}, m_gaps);
  }
  [[nodiscard]] TimelineSeries finish() const {
    TimelineSeries out;
    out.samples = m_count;
    const auto& kept = m_stream->kept();
    for (std::size_t k = 0; k < kept.size(); ++k) {
      out.points.push_back(kept[k].point);
      out.break_before.push_back(k > 0 && kept[k].tag != kept[k - 1].tag);
    }
    return out;
  }

 private:
  [[nodiscard]] bool inside(const extract::Sample& s) const {
    return s.ts_ns >= m_from && s.ts_ns <= m_to && !std::isnan(s.*m_metric);
  }
  double extract::Sample::*m_metric;
  std::int64_t m_from, m_to, m_gap_ns = 0;
  std::size_t m_count = 0, m_gaps = 0;
  std::int64_t m_previous_ts = 0;
  bool m_any = false;
  std::optional<LttbStream> m_stream;
};

}  // namespace

namespace {

/// What the collector keeps of an event besides its samples: the maximum SM clock it reports,
/// and the marker a timeline draws for it.
void note_event(const Event& ev, std::map<int, double>& max_clock, std::vector<TimelineEvent>& events) {
  if (ev.kind == "sample") {
    if (ev.has(Metric::pclk_max_mhz)) {
      double& max = max_clock[ev.gpu < 0 ? 0 : ev.gpu];
      max = std::max(max, ev.get(Metric::pclk_max_mhz));
    }
    return;
  }
  std::string label = marker_label(ev);
  if (label.empty()) return;
  events.push_back(TimelineEvent{ev.ts_ns, std::string(ev.kind), std::move(label),
                                 text::printable(shortened(field(ev, "message")))});
}

/// A chunk's share (prep -j), kept on the worker until the chunk is joined.
class ReportChunk final : public EventSink {
 public:
  explicit ReportChunk(std::unique_ptr<EventSink> to_samples) : samples(std::move(to_samples)) {}
  void on_event(const Event& ev) override {
    samples->on_event(ev);
    note_event(ev, max_clock, events);
  }
  std::unique_ptr<EventSink> samples;
  std::map<int, double> max_clock;
  std::vector<TimelineEvent> events;
};

}  // namespace

void ReportCollector::on_event(const Event& ev) {
  m_samples.on_event(ev);
  note_event(ev, m_max_clock, m_events);
}

std::unique_ptr<EventSink> ReportCollector::fork() { return std::make_unique<ReportChunk>(m_samples.fork()); }

void ReportCollector::join(EventSink& forked) {
  auto& chunk = static_cast<ReportChunk&>(forked);
  m_samples.join(*chunk.samples);
  for (const auto& [gpu, mhz] : chunk.max_clock) {
    double& max = m_max_clock[gpu];
    max = std::max(max, mhz);
  }
  m_events.insert(m_events.end(), std::make_move_iterator(chunk.events.begin()),
                  std::make_move_iterator(chunk.events.end()));
  chunk.max_clock.clear();
  chunk.events.clear();
}

void ReportCollector::discard(EventSink& forked) {
  auto& chunk = static_cast<ReportChunk&>(forked);
  m_samples.discard(*chunk.samples);
  chunk.max_clock.clear();
  chunk.events.clear();
}

double reference_sm_clock(const std::vector<extract::Sample>& samples, double reported_max_mhz,
                          const ThrottleRule& rule) {
  if (reported_max_mhz > 0) return reported_max_mhz;
  BusyClockP99 p99(rule);
  for (const auto& s : samples) p99.add(s);
  return p99.value();
}

std::vector<TimeSpan> throttle_spans(const std::vector<extract::Sample>& samples, double reference_mhz,
                                     std::int64_t gap_ns, const ThrottleRule& rule) {
  ThrottleSpans spans(reference_mhz, gap_ns, rule);
  for (const auto& s : samples) spans.add(s);
  return spans.finish();
}

TimelineSeries downsample_metric(const std::vector<extract::Sample>& samples, double extract::Sample::*metric,
                                 std::int64_t from_ns, std::int64_t to_ns, std::int64_t gap_ns, std::size_t points) {
  MetricLine line(metric, from_ns, to_ns);
  for (const auto& s : samples) line.count(s);
  line.start(points, gap_ns);
  for (const auto& s : samples) line.add(s);
  return line.finish();
}

namespace {

/// One GPU's timeline in two reads of its samples from the store, holding neither read: the
/// first counts (the median interval, the busy clock's p99, each line's points), the second
/// draws (LTTB, throttled stretches). Memory: two LTTB buckets per line and the distinct
/// intervals and clocks, not the samples.
GpuTimeline gpu_timeline(const extract::SampleStore& store, int gpu, double reported_max_mhz, std::int64_t from_ns,
                         std::int64_t to_ns, std::size_t points) {
  constexpr auto kAll = std::numeric_limits<std::int64_t>::min(), kEnd = std::numeric_limits<std::int64_t>::max();
  const ThrottleRule rule;
  GpuTimeline t;
  t.gpu = gpu;
  t.reference_reported = reported_max_mhz > 0;
  IntervalMedian interval;
  BusyClockP99 p99(rule);
  std::array<MetricLine, 4> lines = {
      MetricLine(&extract::Sample::power_w, from_ns, to_ns), MetricLine(&extract::Sample::temp_c, from_ns, to_ns),
      MetricLine(&extract::Sample::util_pct, from_ns, to_ns), MetricLine(&extract::Sample::pclk_mhz, from_ns, to_ns)};
  store.for_each(gpu, kAll, kEnd, [&](const extract::Sample& s) {
    interval.add(s);
    if (!t.reference_reported) p99.add(s);
    for (MetricLine& l : lines) l.count(s);
  });
  const auto gap_ns = static_cast<std::int64_t>(extract::gap_limit_s(interval.seconds()) * 1e9);
  t.reference_clock_mhz = t.reference_reported ? reported_max_mhz : p99.value();
  ThrottleSpans throttled(t.reference_clock_mhz, gap_ns, rule);
  for (MetricLine& l : lines) l.start(points, gap_ns);
  store.for_each(gpu, kAll, kEnd, [&](const extract::Sample& s) {
    for (MetricLine& l : lines) l.add(s);
    throttled.add(s);
  });
  t.power_w = lines[0].finish();
  t.temp_c = lines[1].finish();
  t.util_pct = lines[2].finish();
  t.sm_clock_mhz = lines[3].finish();
  for (TimeSpan s : throttled.finish()) {
    s.from_ns = std::max(s.from_ns, from_ns);
    s.to_ns = std::min(s.to_ns, to_ns);
    if (s.to_ns <= s.from_ns) continue;
    t.throttled_s += static_cast<double>(s.to_ns - s.from_ns) / 1e9;
    t.throttled.push_back(s);
  }
  return t;
}

}  // namespace

std::vector<GpuTimeline> build_timelines(const extract::SampleCollector& samples,
                                         const std::map<int, double>& reported_max_sm_clock, std::int64_t from_ns,
                                         std::int64_t to_ns, std::size_t points) {
  std::vector<GpuTimeline> out;
  std::vector<const extract::SampleCollector*> hosts{&samples};
  for (const auto& other : samples.other_hosts()) hosts.push_back(other.get());
  for (const extract::SampleCollector* host : hosts)
    for (const int gpu : host->store().gpus()) {
      // The reported maximum is kept by index: with several hosts, the largest of their GPU `gpu`.
      const auto reported = reported_max_sm_clock.find(gpu);
      const double max_mhz = reported != reported_max_sm_clock.end() ? reported->second : 0;
      out.push_back(gpu_timeline(host->store(), gpu, max_mhz, from_ns, to_ns, points));
      if (hosts.size() > 1) out.back().host = host->host();
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
  out.trace_regions = collector.samples().trace_regions();
  return out;
}

}  // namespace gpucost::report

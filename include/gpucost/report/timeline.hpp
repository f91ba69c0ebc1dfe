// What the report's per-GPU timelines draw: the telemetry series (downsampled with LTTB), the
// kernel and system events as markers, and the stretches where the SM clock was throttled.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/report/lttb.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpucost::report {

/// A kernel or system event drawn as a marker: xid, gpu_lost, aer, thermal, power_source,
/// lid, suspend or resume. Kernel messages name no GPU index: markers go on every GPU.
struct TimelineEvent {
  std::int64_t ts_ns = 0;
  std::string kind;
  std::string label;    ///< short: "Xid 79", "AER", "AC off", "lid closed", "resume"
  std::string message;  ///< the log line's text, for the tooltip
};

/// Feeds a SampleCollector (for extract) and keeps, besides, the events the timelines mark and
/// the maximum SM clock each GPU reports (clocks.max.sm), for the throttling rule.
class ReportCollector final : public EventSink, public ForkableSink {
 public:
  void on_event(const Event& event) override;
  /// prep -j: a fork keeps its chunk's share of all three; join() adds it in input order.
  ForkableSink* forkable() override { return this; }
  [[nodiscard]] std::unique_ptr<EventSink> fork() override;
  void join(EventSink& forked) override;
  void discard(EventSink& forked) override;
  [[nodiscard]] extract::SampleCollector& samples() { return m_samples; }
  [[nodiscard]] const extract::SampleCollector& samples() const { return m_samples; }
  [[nodiscard]] const std::vector<TimelineEvent>& events() const { return m_events; }
  /// GPU -> the largest reported maximum SM clock, MHz (only GPUs whose logs report one).
  [[nodiscard]] const std::map<int, double>& reported_max_sm_clock() const { return m_max_clock; }

 private:
  extract::SampleCollector m_samples;
  std::vector<TimelineEvent> m_events;
  std::map<int, double> m_max_clock;
};

/// Throttling as the report shades it: a sample is throttled when the GPU is busy
/// (utilisation >= busy_util_pct) and its SM clock is below clock_fraction x the reference
/// clock: the GPU's reported maximum SM clock, else the 99th percentile of its SM clock over
/// busy samples (a single spurious reading does not set the reference).
struct ThrottleRule {
  double busy_util_pct = 50;
  double clock_fraction = 0.85;
};

/// The reference clock of the rule; NaN without a clock reading on a busy sample.
double reference_sm_clock(const std::vector<extract::Sample>& samples, double reported_max_mhz,
                          const ThrottleRule& rule = {});

/// A stretch of time [from_ns, to_ns).
struct TimeSpan {
  std::int64_t from_ns = 0, to_ns = 0;
};

/// The throttled stretches of one GPU: each throttled sample counts until the next sample (at
/// most `gap_ns`, so a gap in the log is never shaded); neighbouring stretches merge.
std::vector<TimeSpan> throttle_spans(const std::vector<extract::Sample>& samples, double reference_mhz,
                                     std::int64_t gap_ns, const ThrottleRule& rule = {});

/// One chart's line: x in seconds since the window start; break_before[i] starts a new piece
/// (a gap in the log is not drawn across).
struct TimelineSeries {
  std::vector<Point> points;
  std::vector<bool> break_before;
  std::size_t samples = 0;  ///< before downsampling
};

struct GpuTimeline {
  int gpu = 0;
  std::string host;  ///< set when the inputs hold several hosts' telemetry
  TimelineSeries power_w, temp_c, util_pct, sm_clock_mhz;
  double reference_clock_mhz = 0;   ///< NaN when unknown (then nothing is shaded)
  bool reference_reported = false;  ///< the reference is the reported maximum, not the p99
  std::vector<TimeSpan> throttled;
  double throttled_s = 0;
};

/// Points per chart line: a day at 1 Hz on 8 GPUs stays well under 5 MB of HTML.
inline constexpr std::size_t kTimelinePoints = 600;

/// The timelines of every GPU over [from_ns, to_ns].
std::vector<GpuTimeline> build_timelines(const extract::SampleCollector& samples,
                                         const std::map<int, double>& reported_max_sm_clock, std::int64_t from_ns,
                                         std::int64_t to_ns, std::size_t points = kTimelinePoints);

/// One metric of the samples in [from_ns, to_ns] (NaN readings left out), downsampled.
TimelineSeries downsample_metric(const std::vector<extract::Sample>& samples, double extract::Sample::*metric,
                                 std::int64_t from_ns, std::int64_t to_ns, std::int64_t gap_ns, std::size_t points);

/// Everything the report reads from its inputs.
struct ReportSources {
  extract::Features features;
  std::vector<GpuTimeline> timelines;               ///< empty when the input was a features document
  std::vector<TimelineEvent> events;                ///< in the window, in time order
  std::vector<extract::TraceRecord> trace_devices;  ///< the trace_device records (per GPU of each trace)
  std::vector<extract::TraceRecord> trace_regions;  ///< the trace_region records (annotated regions), in order
  bool from_features_document = false;
};

/// The sources of inputs read through `collector`, whose samples gave `features`: the
/// timelines, events and trace records in the features' window (pipeline::load_report_sources).
ReportSources report_sources(const ReportCollector& collector, extract::Features features);

}  // namespace gpucost::report

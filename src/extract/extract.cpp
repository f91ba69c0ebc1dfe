// The extract stage: per-GPU time-weighted statistics over the job window. Every formula is
// in docs/indicators.md; the unit tests recompute them by hand.
#include <gpucost/extract/extract.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/catalogue.hpp>

#include "gpu_stats.hpp"
#include "host_events.hpp"
#include "series_passes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpucost::extract {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLargestReading = 1e12;  // larger telemetry readings are not readings
constexpr std::string_view kNoGpuTelemetry = "no GPU telemetry in the input (kernel or system logs only)";

double secs(std::int64_t ns) { return static_cast<double>(ns) / 1e9; }

/// What each GPU's walk feeds besides its own indicators.
struct HostWalks {
  detail::GpuWalkSummary& summary;
  EnergyProfile& profile;
  double filled_j = 0, energy_j = 0;
};

/// One GPU over the window, in two reads of its samples: the intervals first (the gap limit
/// needs their median), then every walk at once. False when no sample falls in the window.
bool gpu_indicators(const SampleStore& store, int gpu, const Features& window, double threshold, GpuFeatures& g,
                    HostWalks& host) {
  const std::int64_t from_ns = window.from_ns, to_ns = window.to_ns, last_ns = window.last_ns();
  detail::IntervalWalker intervals;
  bool any = false;
  store.for_each(gpu, from_ns, last_ns, [&](const Sample& x) {
    if (!any) g.first = x;
    any = true;
    intervals.add(x);
  });
  if (!any) return false;
  detail::GpuSketches sketches;
  sketches.intervals = intervals.take();
  const double limit = gap_limit_s(sketches.intervals.empty() ? 0 : sketches.intervals.median());

  detail::GpuWalker walker(limit, threshold);
  detail::EnergyProfileWalker energy(limit, host.profile);
  detail::ThermalShapeWalker thermal(threshold);
  bool utilisation = false;
  store.for_each(gpu, from_ns, last_ns, [&](const Sample& x) {
    walker.add(x);
    energy.add(x);
    thermal.add(x);
    utilisation = utilisation || !std::isnan(x.util_pct);
  });
  host.summary.utilisation = host.summary.utilisation || utilisation;
  g.last = walker.last();

  IndicatorSet& out = g.indicators;
  g.partials = walker.partials();
  detail::GpuSketches walked = walker.take_sketches();
  walked.intervals = std::move(sketches.intervals);
  detail::finish_quantiles(walked, out);
  g.sketches = std::make_shared<const detail::GpuSketches>(std::move(walked));
  const detail::GpuEnergy e = detail::finish_gpu(g.partials, secs(to_ns - from_ns), out);
  host.filled_j += e.filled_j;
  host.energy_j += e.energy_j;
  if (out["power_mean_w"].value) energy.finish(from_ns, to_ns, *out["power_mean_w"].value);
  host.summary.temperature = host.summary.temperature || thermal.any();
  thermal.finish(out, host.summary.crossings);
  return true;
}

// How the host value of a per-GPU indicator comes from the GPUs' values.
enum class HostRule { mean, sum, max, min };

HostRule host_rule(std::string_view key) {
  static constexpr std::string_view kSums[] = {
      "energy_kwh", "samples",     "energy_left_kwh", "energy_right_kwh", "energy_low_kwh",  "energy_high_kwh",
      "idle_energy_kwh", "gap_count", "temp_crossings", "throttle_onsets", "busy_s", "temp_rolling_crossings"};
  static constexpr std::string_view kMaxima[] = {"power_max_w",    "temp_max_c",      "sample_interval_max_s",
                                                 "mem_temp_max_c", "fb_used_max_mib", "pcie_rx_max_mb_s",
                                                 "pcie_tx_max_mb_s"};
  static constexpr std::string_view kMinima[] = {"power_min_w", "fb_headroom_min_mib"};
  if (std::find(std::begin(kSums), std::end(kSums), key) != std::end(kSums)) return HostRule::sum;
  if (std::find(std::begin(kMaxima), std::end(kMaxima), key) != std::end(kMaxima)) return HostRule::max;
  if (std::find(std::begin(kMinima), std::end(kMinima), key) != std::end(kMinima)) return HostRule::min;
  return HostRule::mean;
}

/// The host's ratios of summed GPU quantities (not means of the GPUs' ratios).
void host_ratios(const Features& f, double filled_j, double energy_j, IndicatorSet& out) {
  const IndicatorValue energy = out["energy_kwh"];
  if (!energy.value) set_absent(out, "energy_filled_fraction", energy.reason);
  else if (energy_j > 0) set_value(out, "energy_filled_fraction", filled_j / energy_j);
  else set_absent(out, "energy_filled_fraction", "energy is 0");
  const IndicatorValue busy = out["busy_s"];
  if (!energy.value || !busy.value)
    set_absent(out, "energy_per_busy_hour_kwh", !energy.value ? energy.reason : busy.reason);
  else if (*busy.value > 0) set_value(out, "energy_per_busy_hour_kwh", *energy.value / (*busy.value / 3600));
  else set_absent(out, "energy_per_busy_hour_kwh", "no busy time (utilisation > 0 %)");
  double lowest = kNaN;
  for (const GpuFeatures& g : f.gpus) {
    const auto it = g.indicators.find("coverage");
    if (it != g.indicators.end() && it->second.value && !(*it->second.value >= lowest)) lowest = *it->second.value;
  }
  if (std::isnan(lowest))
    set_absent(out, "coverage_min", f.gpus.empty() ? std::string(kNoGpuTelemetry)
                                               : std::string("no GPU has a coverage (empty window or only traces)"));
  else set_value(out, "coverage_min", lowest);
}

// Host values: extensive quantities are sums, maxima maxima, minima minima, the rest means over
// the GPUs that have the indicator. A sum is absent when any GPU lacks its term: a host energy
// that silently left a GPU out would look like a measurement.
void host_indicators(const Features& f, double filled_j, double energy_j, IndicatorSet& out) {
  set_value(out, "wall_s", f.wall_s());
  set_value(out, "gpu_count", static_cast<double>(f.gpus.size()));
  for (const IndicatorDef& def : catalogue()) {
    const std::string key(def.key);
    if (key == "wall_s" || def.scope == Scope::host_only || def.category == "trace") continue;  // set on their own
    const HostRule rule = host_rule(key);
    double acc = rule == HostRule::max   ? -std::numeric_limits<double>::infinity()
                 : rule == HostRule::min ? std::numeric_limits<double>::infinity()
                                         : 0;
    std::size_t n = 0;
    std::string reason, gpu_reason;  // the first missing GPU's reason, bare and naming the GPU
    for (const GpuFeatures& g : f.gpus) {
      const auto it = g.indicators.find(key);
      if (it == g.indicators.end() || !it->second.value) {
        if (reason.empty()) {
          reason = it == g.indicators.end() ? "not computed" : it->second.reason;
          gpu_reason = fmt::format("GPU {}: {}", g.gpu, reason);
        }
        continue;
      }
      const double v = *it->second.value;
      acc = rule == HostRule::max ? std::max(acc, v) : rule == HostRule::min ? std::min(acc, v) : acc + v;
      ++n;
    }
    if (rule == HostRule::sum && n < f.gpus.size()) {
      set_absent(out, key, gpu_reason);
      continue;
    }
    if (n == 0) {
      set_absent(out, key, !reason.empty()   ? reason
                       : f.gpus.empty() ? std::string(kNoGpuTelemetry)
                                        : std::string("no GPU has this indicator"));
      continue;
    }
    set_value(out, key, rule == HostRule::mean ? acc / static_cast<double>(n) : acc);
  }
  host_ratios(f, filled_j, energy_j, out);
}

}  // namespace

double gap_limit_s(double median_interval_s) { return std::max(10.0, 5.0 * median_interval_s); }

namespace {

/// The GPU an incident names, for grouping faults (docs/cost-model.md, "Faults"): the PCI bus
/// id without the function (an Xid prints "0000:01:00", "fallen off the bus" "0000:01:00.0"),
/// else the driver's "GPU4". An AER line names a GPU only when the nvidia driver reports it (a
/// pcieport is a bridge of the host). Empty: the host.
std::string_view incident_device(const Event& ev) {
  std::string_view pci, ref, driver;
  for (const Field& f : ev.fields) {
    if (f.key == "pci" || (ev.kind == "aer" && f.key == "device")) pci = f.value;
    if (f.key == "gpu_ref") ref = f.value;
    if (f.key == "driver") driver = f.value;
  }
  if (ev.kind == "aer" && driver != "nvidia") return {};
  if (!pci.empty()) {
    const std::size_t dot = pci.rfind('.'), colon = pci.rfind(':');
    return dot != std::string_view::npos && (colon == std::string_view::npos || dot > colon) ? pci.substr(0, dot) : pci;
  }
  return ref;
}

}  // namespace

void SampleCollector::on_event(const Event& ev) {
  if (ev.kind == "xid" || ev.kind == "gpu_lost" || ev.kind == "aer" || ev.kind == "suspend" || ev.kind == "lid" ||
      ev.kind == "power_source" || ev.kind == "modeset" || ev.kind == "thermal" || ev.kind == "driver" ||
      ev.kind == "oom" || ev.kind == "resume" || ev.kind == "boot" || ev.kind == "shutdown" || ev.kind == "segfault") {
    // The field that tells incidents of one kind apart: the Xid bucket, the AER severity, the
    // lid or AC state.
    std::string_view detail;
    int code = -1;
    for (const Field& f : ev.fields) {
      if (f.key == "bucket" || f.key == "severity" || f.key == "state" || f.key == "action") detail = f.value;
      if (f.key == "failed" && f.value == "true") detail = "failed";  // a resume after a failed suspend
      if (f.key == "code")
        if (const auto v = text::parse_int(f.value)) code = static_cast<int>(*v);
    }
    m_incidents.add(ev.ts_ns, ev.kind, detail, code, incident_device(ev));
    if (m_incident_host.empty() && !ev.host.empty()) m_incident_host = std::string(ev.host);
    return;
  }
  if (ev.kind == "trace_device" || ev.kind == "trace_memory" || ev.kind == "trace_launch" ||
      ev.kind == "trace_kernel" || ev.kind == "trace_step" || ev.kind == "trace_info" ||
      ev.kind == "profiler_total" || ev.kind == "nsys_kernel" || ev.kind == "nsys_memop_time") {
    TraceRecord r;
    r.ts_ns = ev.ts_ns;
    r.gpu = ev.gpu;
    r.kind = std::string(ev.kind);
    for (const Field& f : ev.fields) {
      if (f.numeric) {
        if (const auto v = text::parse_double(f.value)) r.values[std::string(f.key)] = *v;
      } else if (f.key == "op" || f.key == "direction") {
        r.detail += r.detail.empty() ? std::string(f.value) : " " + std::string(f.value);
      } else if (f.key == "name" && ev.kind == "trace_kernel") {
        r.detail = std::string(f.value);
      }
    }
    if (m_host.empty() && !ev.host.empty()) m_host = std::string(ev.host);
    m_trace.push_back(std::move(r));
    return;
  }
  if (ev.kind == "train" || ev.kind == "pattern") {
    bool eval = false;
    for (const Field& f : ev.fields) {
      if (ev.kind == "train" && f.key == "phase" && (f.value == "start" || f.value == "end"))
        m_train.emplace_back(ev.ts_ns, std::string(f.value));
      eval = eval || (f.key == "phase" && f.value == "eval");
    }
    if (ev.kind == "train" && !eval)  // evaluation throughput is not the training's
      for (const Field& f : ev.fields)
        if (f.numeric && (f.key == "samples_per_second" || f.key == "it_per_s"))
          if (const auto v = text::parse_double(f.value))
            m_rates.push_back(TrainRate{ev.ts_ns, f.key == "samples_per_second", *v});
    if (ev.kind == "pattern") {
      std::int64_t dur = -1;
      for (const Field& f : ev.fields)
        if (f.key == "dur_ns")
          if (const auto v = text::parse_int(f.value)) dur = *v;
      m_patterns.emplace_back(ev.ts_ns, dur);
    }
    return;
  }
  if (ev.kind != "sample") return;
  if (m_host.empty() && !ev.host.empty()) m_host = std::string(ev.host);
  // A reading beyond ±10^12 is no telemetry (no GPU draws a terawatt): it is taken as not read,
  // so that no sum, and no float of the sample, turns infinite.
  const auto get = [&](Metric m) {
    const double v = ev.has(m) ? ev.get(m) : kNaN;
    return std::abs(v) <= kLargestReading ? v : kNaN;
  };
  const int gpu = ev.gpu < 0 ? 0 : ev.gpu;
  const auto getf = [&](Metric m) {
    const double v = get(m);
    return std::isnan(v) ? Sample::kNoF : static_cast<float>(v);
  };
  const auto get8 = [&](Metric m) {
    return ev.has(m) && ev.get(m) > 0 && ev.get(m) < 256 ? static_cast<std::uint8_t>(ev.get(m)) : std::uint8_t{0};
  };
  Sample x{ev.ts_ns, get(Metric::power_w), get(Metric::sm_pct), get(Metric::temp_c), get(Metric::pclk_mhz)};
  x.mem_temp_c = getf(Metric::mem_temp_c);
  x.mem_pct = getf(Metric::mem_pct);
  x.mclk_mhz = getf(Metric::mclk_mhz);
  x.fb_mib = getf(Metric::fb_mib);
  x.fb_total_mib = getf(Metric::fb_total_mib);
  x.enc_pct = getf(Metric::enc_pct);
  x.dec_pct = getf(Metric::dec_pct);
  x.rxpci_mb_s = getf(Metric::rxpci_mb_s);
  x.txpci_mb_s = getf(Metric::txpci_mb_s);
  x.power_limit_w = getf(Metric::power_limit_w);
  x.power_default_limit_w = getf(Metric::power_default_limit_w);
  x.pclk_max_mhz = getf(Metric::pclk_max_mhz);
  x.mclk_max_mhz = getf(Metric::mclk_max_mhz);
  x.throttle_mask = getf(Metric::throttle_mask);
  x.pcie_gen = get8(Metric::pcie_gen);
  x.pcie_gen_max = get8(Metric::pcie_gen_max);
  x.pcie_width = get8(Metric::pcie_width);
  x.pcie_width_max = get8(Metric::pcie_width_max);
  m_store.add(gpu, x);
}

std::vector<Sample> SampleCollector::samples_of(int gpu) const {
  std::vector<Sample> out;
  m_store.for_each(gpu, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                   [&](const Sample& s) { out.push_back(s); });
  return out;
}

namespace {

/// Adds `zone` to the comma-separated `zones` unless it is empty or already there.
void add_zone(std::string& zones, const std::string& zone) {
  if (zone.empty()) return;
  std::string_view rest = zones;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (rest.substr(0, comma) == zone) return;
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  zones += zones.empty() ? zone : "," + zone;
}

}  // namespace

void SampleCollector::note_inputs(const std::vector<prep::InputStats>& inputs) {
  using prep::Format;
  for (const auto& in : inputs) {
    const Format f = in.format;
    if (f == Format::syslog || f == Format::dmesg || f == Format::journal_text || f == Format::journal_json ||
        f == Format::bug_report)
      m_host_logs = true;
    add_zone(m_logs_tz, in.logs_tz);
    for (const auto& up : in.upstream_formats)  // an events stream: the formats prep read
      m_host_logs = m_host_logs || up == "syslog" || up == "dmesg" || up == "journal-text" ||
                    up == "journal-json" || up == "bug-report";
  }
}

namespace {

// Xid rate and first/last times from the host partials (merge recomputes them the same way).
void xid_times(const Features& f, IndicatorSet& out) {
  const auto count = out.find("xid_count");
  if (count == out.end() || !count->second.value) return;
  if (f.wall_s() > 0) set_value(out, "xid_per_hour", *count->second.value / (f.wall_s() / 3600));
  else set_absent(out, "xid_per_hour", "the window is empty (wall time 0 s)");
  const auto first = f.host_partials.find("xid.first_ns.min"), last = f.host_partials.find("xid.last_ns.max");
  if (first == f.host_partials.end() || last == f.host_partials.end()) {
    set_absent(out, "xid_first_s", "no Xid in the window");
    set_absent(out, "xid_last_s", "no Xid in the window");
    return;
  }
  set_value(out, "xid_first_s", (first->second - static_cast<double>(f.from_ns)) / 1e9);
  set_value(out, "xid_last_s", (last->second - static_cast<double>(f.from_ns)) / 1e9);
}


// Counts of kernel and system incidents in the window (host only): null when no kernel or
// journal log was read, since then "0 Xids" would be a guess.
constexpr std::string_view kIncidentKeys[] = {
    "xid_count",           "xid_restart_app_count", "xid_reset_gpu_count", "xid_reboot_count",
    "xid_contact_support_count", "gpu_lost_count",  "aer_corrected_count", "aer_uncorrected_count",
    "suspend_count",       "lid_close_count",       "ac_offline_count",    "aer_fatal_count",
    "modeset_error_count", "thermal_event_count",   "driver_load_count",   "gpu_reset_count",
    "oom_kill_count"};

/// The count an incident adds to, besides xid_count ("" for none).
std::string_view incident_key(const Incident& i) {
  if (i.kind == "xid") {
    if (i.detail == "restart_app") return "xid_restart_app_count";
    if (i.detail == "reset_gpu") return "xid_reset_gpu_count";
    if (i.detail == "reboot") return "xid_reboot_count";
    if (i.detail == "contact_support") return "xid_contact_support_count";
    return "";
  }
  if (i.kind == "gpu_lost") return "gpu_lost_count";
  if (i.kind == "aer") return i.detail == "corrected" ? "aer_corrected_count" : "aer_uncorrected_count";
  if (i.kind == "lid") return i.detail == "closed" ? "lid_close_count" : "";
  if (i.kind == "power_source") return i.detail == "offline" ? "ac_offline_count" : "";
  if (i.kind == "modeset") return "modeset_error_count";
  if (i.kind == "thermal") return i.detail == "normal" ? "" : "thermal_event_count";
  if (i.kind == "oom") return "oom_kill_count";
  if (i.kind == "driver") return i.detail == "load" ? "driver_load_count" : i.detail == "reset" ? "gpu_reset_count" : "";
  return "";
}

void incident_indicators(const SampleCollector& c, Features& f, IndicatorSet& out) {
  static constexpr std::string_view kTimes[] = {"xid_per_hour", "xid_first_s", "xid_last_s"};
  if (!c.has_host_logs() && c.incidents().empty()) {
    for (auto k : kIncidentKeys) set_absent(out, k, "no kernel log, dmesg, journal or bug report among the inputs");
    for (auto k : kTimes) set_absent(out, k, "no kernel log, dmesg, journal or bug report among the inputs");
    return;
  }
  std::map<std::string_view, double> n;
  for (auto k : kIncidentKeys) n[k] = 0;
  detail::SuspendStarts suspends;
  c.incidents().for_each([&](const Incident& i) {  // in time order
    const bool suspend_start = i.kind == "suspend" && suspends.starts(i.ts_ns);
    if (!f.contains(i.ts_ns)) return;
    if (i.kind == "xid") {
      ++n["xid_count"];
      const auto first = f.host_partials.find("xid.first_ns.min");
      if (first == f.host_partials.end() || static_cast<double>(i.ts_ns) < first->second)
        f.host_partials["xid.first_ns.min"] = static_cast<double>(i.ts_ns);
      double& last = f.host_partials["xid.last_ns.max"];
      last = std::max(last, static_cast<double>(i.ts_ns));
    }
    if (i.kind == "aer" && i.detail == "uncorrected_fatal") ++n["aer_fatal_count"];
    if (suspend_start) ++n["suspend_count"];  // one suspend, seen by several layers within 120 s
    const std::string_view key = incident_key(i);
    if (!key.empty()) ++n[key];
  });
  for (const auto& [key, value] : n) set_value(out, key, value);
  xid_times(f, out);
}

// ---- profiler traces, tables and nsys summaries ---------------------------------------------

/// Sums of one set of trace_device records (one GPU, or the host).
struct TraceSums {
  double span = 0, busy = 0, idle = 0, compute = 0, noncompute = 0;
  double kernels = 0, short_kernels = 0, launched = 0, long_delays = 0, unmatched = 0;
  double queue_mean_sum = 0, queue_max = -1;
  double memcpys = 0, memsets = 0, op_ns = 0, comm_ns = 0, memory_op_ns = 0, host_wait_ns = 0, short_gap_ns = 0;
  double launch_max_ns = kNaN;
  std::map<std::string, double> top_kernel_ns;  ///< the devices' top-N kernels, time summed by name
  std::size_t queues = 0, devices = 0;
  double memcpy_ns = 0, h2d_bytes = 0, h2d_ns = 0, d2h_bytes = 0, d2h_ns = 0;
  const TraceRecord* only = nullptr;  ///< the single device record, when there is one

  void add_device(const TraceRecord& r) {
    const auto v = [&](const char* k) {
      const double x = r.get(k);
      return std::isnan(x) ? 0.0 : x;
    };
    span += v("span_ns");
    busy += v("busy_ns");
    idle += v("idle_ns");
    compute += v("compute_ns");
    noncompute += v("noncompute_ns");
    kernels += v("kernels");
    short_kernels += v("short_kernels");
    launched += v("launched_ops");
    long_delays += v("launch_delays_over_10ms");
    unmatched += v("unmatched_gpu_events");
    memcpys += v("memcpys");
    memsets += v("memsets");
    comm_ns += v("communication_kernel_ns");
    memory_op_ns += v("memory_op_ns");
    op_ns += v("compute_kernel_ns") + v("communication_kernel_ns") + v("memory_op_ns");
    host_wait_ns += v("idle_host_wait_ns");
    short_gap_ns += v("idle_short_gap_ns");
    if (const double m = r.get("launch_delay_max_ns"); !std::isnan(m) && !(m <= launch_max_ns)) launch_max_ns = m;
    if (!std::isnan(r.get("queue_length_mean"))) {
      queue_mean_sum += r.get("queue_length_mean");
      ++queues;
      queue_max = std::max(queue_max, r.get("queue_length_max"));
    }
    only = devices == 0 ? &r : nullptr;
    ++devices;
  }
  void add_kernel(const TraceRecord& r) {
    if (!std::isnan(r.get("total_ns"))) top_kernel_ns[r.detail] += r.get("total_ns");
  }
  void add_memory(const TraceRecord& r) {
    if (r.detail.rfind("memcpy", 0) != 0) return;
    const double ns = r.get("total_ns"), bytes = r.get("bytes"), timed = r.get("bytes_ns");
    if (!std::isnan(ns)) memcpy_ns += ns;
    if (std::isnan(bytes) || std::isnan(timed)) return;
    if (r.detail == "memcpy h2d") {
      h2d_bytes += bytes;
      h2d_ns += timed;
    } else if (r.detail == "memcpy d2h") {
      d2h_bytes += bytes;
      d2h_ns += timed;
    }
  }
};

/// The kinds of GPU work and the idle kinds (F124-F131) of one GPU or the host.
void trace_mix_indicators(const TraceSums& t, IndicatorSet& out) {
  set_value(out, "memcpy_count", t.memcpys);
  set_value(out, "memset_count", t.memsets);
  const auto of_ops = [&](std::string_view key, double part) {
    if (t.op_ns > 0) set_value(out, key, part / t.op_ns);
    else set_absent(out, key, "the trace's GPU ops last 0 s in total");
  };
  of_ops("comm_kernel_fraction", t.comm_ns);
  of_ops("memory_op_fraction", t.memory_op_ns);
  double top = kNaN;
  for (const auto& [name, ns] : t.top_kernel_ns)
    if (!(ns <= top)) top = ns;
  if (std::isnan(top)) set_absent(out, "top_kernel_share", "no kernels in the trace");
  else of_ops("top_kernel_share", top);
  const auto of_span = [&](std::string_view key, double part) {
    if (t.span > 0) set_value(out, key, part / t.span);
    else set_absent(out, key, "the trace's GPU span is 0 s");
  };
  of_span("host_wait_fraction", t.host_wait_ns);
  of_span("short_gap_fraction", t.short_gap_ns);
  if (std::isnan(t.launch_max_ns)) set_absent(out, "launch_delay_max_us", "no GPU op was joined to a launch call");
  else set_value(out, "launch_delay_max_us", t.launch_max_ns / 1e3);
}

/// The trace indicators of one GPU (or the host) from its sums; `launch` is the record whose
/// launch-delay percentiles apply (null when there is none or several that cannot be merged).
void trace_indicators(const TraceSums& t, const TraceRecord* launch, const std::string& launch_reason,
                      IndicatorSet& out) {
  constexpr double kUs = 1e3;
  const std::string no_trace = "no Kineto trace with GPU ops among the inputs";
  if (t.devices == 0) {
    for (const IndicatorDef& d : catalogue())
      if (d.category == "trace" && d.scope != Scope::host_only && d.key != "net_gpu_time_s")
        set_absent(out, d.key, no_trace);
    return;
  }
  set_value(out, "gpu_busy_s", t.busy / 1e9);
  const auto share = [&](std::string_view key, double part) {
    if (t.span > 0) set_value(out, key, part / t.span);
    else set_absent(out, key, "the trace's GPU span is 0 s");
  };
  share("gpu_idle_fraction_trace", t.idle);
  share("gpu_compute_fraction", t.compute);
  share("gpu_noncompute_fraction", t.noncompute);
  for (const auto& [key, field] : {std::pair{"launch_delay_p50_us", "launch_delay_p50_ns"},
                                   std::pair{"launch_delay_p95_us", "launch_delay_p95_ns"},
                                   std::pair{"launch_delay_p99_us", "launch_delay_p99_ns"}}) {
    const double v = launch != nullptr ? launch->get(field) : kNaN;
    if (!std::isnan(v)) set_value(out, key, v / kUs);
    else set_absent(out, key, launch != nullptr ? "no GPU op was joined to a launch call" : launch_reason);
  }
  if (t.kernels > 0) set_value(out, "short_kernel_fraction", t.short_kernels / t.kernels);
  else set_absent(out, "short_kernel_fraction", "no kernels in the trace");
  if (t.launched > 0) set_value(out, "launch_delay_over_10ms_fraction", t.long_delays / t.launched);
  else set_absent(out, "launch_delay_over_10ms_fraction", "no GPU op was joined to a launch call");
  set_value(out, "kernels", t.kernels);
  set_value(out, "unmatched_gpu_events", t.unmatched);
  set_value(out, "memcpy_s", t.memcpy_ns / 1e9);
  if (t.h2d_ns > 0) set_value(out, "h2d_gbps", t.h2d_bytes / t.h2d_ns);
  else set_absent(out, "h2d_gbps", "no HtoD memcpy with a byte count in the trace");
  if (t.d2h_ns > 0) set_value(out, "d2h_gbps", t.d2h_bytes / t.d2h_ns);
  else set_absent(out, "d2h_gbps", "no DtoH memcpy with a byte count in the trace");
  if (t.queues > 0) {
    set_value(out, "queue_length_mean", t.queue_mean_sum / static_cast<double>(t.queues));
    set_value(out, "queue_length_max", t.queue_max);
  } else {
    set_absent(out, "queue_length_mean", "no GPU op was joined to a launch call");
    set_absent(out, "queue_length_max", "no GPU op was joined to a launch call");
  }
  trace_mix_indicators(t, out);
}

/// net_gpu_time_s: the trace's busy time, else the profiler table's device total, else nsys.
void net_gpu_time(const SampleCollector& c, const TraceSums& host, IndicatorSet& out) {
  if (host.devices > 0) {
    set_value(out, "net_gpu_time_s", host.busy / 1e9);
    return;
  }
  double table_ns = 0, nsys_ns = 0;
  bool table = false, nsys = false;
  for (const TraceRecord& r : c.trace_records()) {
    // The legacy footer gives only "CUDA time total" (the sum of the CUDA total column).
    const double device = !std::isnan(r.get("self_device_total_ns")) ? r.get("self_device_total_ns")
                                                                      : r.get("device_total_ns");
    if (r.kind == "profiler_total" && !std::isnan(device)) {
      table_ns += device;
      table = true;
    } else if ((r.kind == "nsys_kernel" || r.kind == "nsys_memop_time") && !std::isnan(r.get("total_ns"))) {
      nsys_ns += r.get("total_ns");
      nsys = true;
    }
  }
  if (table) set_value(out, "net_gpu_time_s", table_ns / 1e9);
  else if (nsys) set_value(out, "net_gpu_time_s", nsys_ns / 1e9);
  else set_absent(out, "net_gpu_time_s", "no Kineto trace, profiler table or nsys report among the inputs");
}

/// Trace indicators per GPU (for the GPUs of the features) and for the host.
void add_trace_indicators(const SampleCollector& c, Features& f) {
  std::map<int, TraceSums> per_gpu;
  TraceSums host;
  std::vector<const TraceRecord*> launches;
  for (const TraceRecord& r : c.trace_records()) {
    if (r.kind == "trace_device") {
      per_gpu[r.gpu].add_device(r);
      host.add_device(r);
    } else if (r.kind == "trace_memory") {
      per_gpu[r.gpu].add_memory(r);
      host.add_memory(r);
    } else if (r.kind == "trace_launch") {
      launches.push_back(&r);
    } else if (r.kind == "trace_kernel") {
      per_gpu[r.gpu].add_kernel(r);
      host.add_kernel(r);
    }
  }
  for (GpuFeatures& g : f.gpus) {
    const TraceSums& t = per_gpu[g.gpu];
    trace_indicators(t, t.only, "several traces give this GPU: their percentiles cannot be merged", g.indicators);
    if (t.devices > 0) set_value(g.indicators, "net_gpu_time_s", t.busy / 1e9);
    else set_absent(g.indicators, "net_gpu_time_s", "no Kineto trace with GPU ops for this GPU");
  }
  const TraceRecord* launch = launches.size() == 1 ? launches.front() : nullptr;
  trace_indicators(host, launch,
                   launches.empty() ? "no Kineto trace among the inputs"
                                    : fmt::format("{} traces: their percentiles cannot be merged (see per-GPU values)",
                                                  launches.size()),
                   f.host_indicators);
  net_gpu_time(c, host, f.host_indicators);
}

/// numpy's default ("linear") percentile of sorted values, q in [0, 1].
double linear_percentile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

/// Profiler steps and traces (F132-F134, F137) and the training log's throughput (F135, F136),
/// on the host. Steps belong to their trace and are not cut by the window (like every trace
/// indicator); throughput lines are the window's.
void training_indicators(const SampleCollector& c, const Features& f, IndicatorSet& out) {
  std::vector<double> steps;
  double traces = 0;
  for (const TraceRecord& r : c.trace_records()) {
    if (r.kind == "trace_info") ++traces;
    if (r.kind == "trace_step" && !std::isnan(r.get("dur_ns"))) steps.push_back(r.get("dur_ns") / 1e9);
  }
  set_value(out, "traces", traces);
  if (traces == 0) set_absent(out, "trace_steps", "no Kineto trace among the inputs");
  else set_value(out, "trace_steps", static_cast<double>(steps.size()));
  if (steps.empty()) {
    const std::string why = traces == 0 ? "no Kineto trace among the inputs" : "the traces mark no ProfilerStep#N";
    set_absent(out, "step_time_mean_s", why);
    set_absent(out, "step_time_p95_s", why);
  } else {
    std::sort(steps.begin(), steps.end());
    double sum = 0;
    for (double v : steps) sum += v;
    set_value(out, "step_time_mean_s", sum / static_cast<double>(steps.size()));
    set_value(out, "step_time_p95_s", linear_percentile(steps, 0.95));
  }
  std::vector<double> samples, iterations;
  for (const TrainRate& r : c.train_rates())
    if (f.contains(r.ts_ns)) (r.samples ? samples : iterations).push_back(r.value);
  if (samples.empty()) {
    set_absent(out, "samples_per_s",
               "no training summary with samples per second (HF Trainer train_samples_per_second) in the window");
  } else {
    double sum = 0;
    for (double v : samples) sum += v;
    set_value(out, "samples_per_s", sum / static_cast<double>(samples.size()));
  }
  if (iterations.empty()) {
    set_absent(out, "iterations_per_s", "no training progress bar with a rate (tqdm it/s or s/it) in the window");
  } else {
    std::sort(iterations.begin(), iterations.end());
    set_value(out, "iterations_per_s", linear_percentile(iterations, 0.5));
  }
}

/// --pattern lines in the window: how many, and their summed durations.
void pattern_indicators(const SampleCollector& c, const Features& f, IndicatorSet& out) {
  if (c.pattern_events().empty()) {
    set_absent(out, "pattern_events", "no --pattern matched a line of the inputs");
    set_absent(out, "pattern_duration_s", "no --pattern matched a line of the inputs");
    return;
  }
  double n = 0, with_duration = 0;
  long double ns = 0;
  for (const auto& [ts, dur] : c.pattern_events()) {
    if (!f.contains(ts)) continue;
    ++n;
    if (dur >= 0) {
      ns += static_cast<long double>(dur);
      ++with_duration;
    }
  }
  set_value(out, "pattern_events", n);
  const std::string_view key = "pattern_duration_s";
  if (with_duration > 0) set_value(out, key, static_cast<double>(ns / 1e9L));
  else set_absent(out, key, "no matching line in the window has a duration group (dur_ms, dur_us, ...)");
}

/// Telemetry indicators of a GPU that only a trace gives: absent, with the reason.
void no_telemetry(IndicatorSet& out) {
  for (const IndicatorDef& d : catalogue())
    if (d.category != "trace" && d.scope != Scope::host_only && d.key != "wall_s")
      set_absent(out, d.key, "no telemetry samples for this GPU (only a profiler trace)");
}

}  // namespace

namespace detail {
void host_from_gpus(Features& f, double filled_j, double energy_j) {
  host_indicators(f, filled_j, energy_j, f.host_indicators);
}
void xid_indicators_from_partials(Features& f) { xid_times(f, f.host_indicators); }
}  // namespace detail

Expected<Features> compute_features(const SampleCollector& samples, const ExtractOptions& options) {
  const SampleStore& store = samples.store();
  if (!store.status()) return store.status().error();
  if (!samples.incidents().status()) return samples.incidents().status().error();
  std::int64_t lo = store.min_ts(), hi = store.max_ts();
  // Without telemetry, the GPU spans of profiler traces give the window (and the GPUs).
  std::vector<int> trace_gpus;
  const bool from_trace = lo > hi;
  if (from_trace) {
    for (const TraceRecord& r : samples.trace_records()) {
      if (r.kind != "trace_device") continue;
      lo = std::min(lo, r.ts_ns);
      hi = std::max(hi, r.ts_ns + static_cast<std::int64_t>(std::max(0.0, r.get("span_ns"))));
      if (std::find(trace_gpus.begin(), trace_gpus.end(), r.gpu) == trace_gpus.end()) trace_gpus.push_back(r.gpu);
    }
    std::sort(trace_gpus.begin(), trace_gpus.end());
  }
  // Without either, the kernel and system logs alone: the host's event indicators, over the
  // flags' window or from the first to the last incident; no GPU.
  const bool host_only = lo > hi && (samples.has_host_logs() || !samples.incidents().empty()) &&
                         ((options.from_ns && options.to_ns) || !samples.incidents().empty());
  if (host_only) {
    lo = samples.incidents().empty() ? *options.from_ns : samples.incidents().min_ts();
    hi = samples.incidents().empty() ? *options.to_ns : samples.incidents().max_ts();
  }
  if (lo > hi)
    return make_error(ErrorKind::format, "no telemetry samples and no profiler trace with GPU ops in the input",
                      samples.has_host_logs()
                          ? "the kernel or system logs have no incident to set a window: give --from and --to, or "
                            "nvidia-smi dmon or --query-gpu output beside them"
                          : "give nvidia-smi dmon or --query-gpu output, a Kineto trace (or a gpucost.events stream "
                            "with their events)");
  Features f;
  f.host = samples.host().empty() && host_only ? samples.incident_host() : samples.host();
  f.logs_tz = samples.logs_tz();
  // host_only implies from_trace (no samples), so it is asked first.
  f.chosen_by = options.from_ns || options.to_ns ? "flags" : host_only ? "events" : from_trace ? "trace" : "samples";
  // A training log's first start and last end phase bound the job (a flag still wins for its end).
  constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
  std::int64_t train_from = kNone, train_to = kNone;
  for (const auto& [ts, phase] : samples.train_marks()) {
    if (phase == "start" && (train_from == kNone || ts < train_from)) train_from = ts;
    if (phase == "end" && (train_to == kNone || ts > train_to)) train_to = ts;
  }
  if ((train_from != kNone || train_to != kNone) && !(options.from_ns && options.to_ns)) {
    const std::int64_t a = train_from != kNone ? train_from : lo, b = train_to != kNone ? train_to : hi;
    if (b > a) {
      lo = a;
      hi = b;
      f.chosen_by = options.from_ns || options.to_ns ? "flags and trainlog" : "trainlog";
    }
  }
  f.from_ns = options.from_ns.value_or(lo);
  f.to_ns = options.to_ns.value_or(hi);
  f.to_exclusive = options.to_ns.has_value();
  if (f.last_ns() < f.from_ns) {
    if (options.from_ns && options.to_ns)
      return make_error(ErrorKind::usage, "--from/--to: the window ends before it starts",
                        "give --from earlier than --to (ISO 8601, e.g. 2024-06-12T14:22:18Z)");
    // Only one end was given and it lies beyond the samples.
    return make_error(ErrorKind::usage, "--from/--to: no sample falls inside the window",
                      fmt::format("the samples run from {} to {}", format_utc(lo), format_utc(hi)));
  }

  detail::GpuWalkSummary summary;
  HostWalks walks{summary, f.energy_profile};
  for (const int gpu : store.gpus()) {
    GpuFeatures g;
    g.gpu = gpu;
    if (gpu_indicators(store, gpu, f, options.temp_threshold_c, g, walks))
      f.gpus.push_back(std::move(g));
  }
  for (int gpu : trace_gpus) {  // trace-only GPUs (no telemetry at all)
    GpuFeatures g;
    g.gpu = gpu;
    set_value(g.indicators, "wall_s", f.wall_s());
    no_telemetry(g.indicators);
    f.gpus.push_back(std::move(g));
  }
  if (f.gpus.empty() && !host_only)
    return make_error(ErrorKind::usage, "--from/--to: no sample falls inside the window",
                      fmt::format("the samples run from {} to {}", format_utc(lo), format_utc(hi)));
  host_indicators(f, walks.filled_j, walks.energy_j, f.host_indicators);
  incident_indicators(samples, f, f.host_indicators);
  detail::window_pass(samples, summary, {options.chain_window_s, options.fault_window_s}, f);
  detail::session_indicators(samples, f);
  // A read of a temporary file failed: the indicators above would miss what it held.
  if (!store.status()) return store.status().error();
  if (!samples.incidents().status()) return samples.incidents().status().error();
  add_trace_indicators(samples, f);
  pattern_indicators(samples, f, f.host_indicators);
  training_indicators(samples, f, f.host_indicators);
  return f;
}

}  // namespace gpucost::extract

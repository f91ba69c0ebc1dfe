// The SampleCollector: the events extract keeps, each by its kind (a telemetry sample, a kernel
// or system incident, a record of a profiler trace, table or training log).
#include <gpucost/extract/sample_collector.hpp>

#include <gpucost/core/event_buffer.hpp>
#include <gpucost/core/fault_cause.hpp>
#include <gpucost/core/formats.hpp>
#include <gpucost/core/text.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace gpucost::extract {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLargestReading = 1e12;  // larger telemetry readings are not readings
// The energy counter counts from the driver's load: 10^12 mJ is 16 days of a 700 W GPU, so it
// has its own bound, the largest whole number a double holds exactly (2^53 mJ: 285 years at 1 kW).
constexpr double kLargestCounterMj = 9007199254740992.0;

/// The GPU an incident names, for grouping faults (docs/cost-model.md, "Faults"): the PCI bus
/// id without the function (an Xid prints "0000:01:00", "fallen off the bus" "0000:01:00.0"),
/// else the driver's "GPU4". An AER line names a GPU only when the nvidia driver reports it (a
/// pcieport is a bridge of the host). Empty: the host.
std::string_view incident_device(const Event& ev, EventKind kind) {
  std::string_view pci, ref, driver;
  for (const Field& f : ev.fields) {
    if (f.key == "pci" || (kind == EventKind::aer && f.key == "device")) pci = f.value;
    if (f.key == "gpu_ref") ref = f.value;
    if (f.key == "driver") driver = f.value;
  }
  if (kind == EventKind::aer && driver != "nvidia") return {};
  if (!pci.empty()) {
    const std::size_t dot = pci.rfind('.'), colon = pci.rfind(':');
    return dot != std::string_view::npos && (colon == std::string_view::npos || dot > colon) ? pci.substr(0, dot) : pci;
  }
  return ref;
}

/// A DCGM profiling ratio (0-1) as the sample keeps it; NaN outside [0, 1] (no ratio).
float profiling_ratio(double v) { return v >= 0 && v <= 1 ? static_cast<float>(v) : Sample::kNoF; }

/// The DCGM profiling fields (ratios) and where a sample keeps them.
struct ProfilingField {
  std::string_view key;
  float Sample::*ratio;
};
constexpr ProfilingField kProfilingFields[] = {
    {"smact", &Sample::sm_active},   {"smocc", &Sample::sm_occupancy}, {"tenso", &Sample::tensor_active},
    {"drama", &Sample::dram_active}, {"fp64a", &Sample::fp64_active},  {"fp32a", &Sample::fp32_active},
    {"fp16a", &Sample::fp16_active},
};

/// Keeps the ratio in the sample when `key` is a profiling field.
void read_profiling_field(std::string_view key, double v, Sample& x) {
  for (const ProfilingField& p : kProfilingFields)
    if (key == p.key) x.*p.ratio = profiling_ratio(v);
}

/// The DCGM fields a sample keeps from the event's named fields, in one pass: the total-energy
/// counter (dcgmi's and dcgm-exporter's `totec`, mJ, else nvidia_gpu_exporter's `energy_j`, J;
/// NaN when the sample has none or it is no count) and the profiling fields (docs/indicators.md,
/// "Useful work").
void read_dcgm_fields(const Event& ev, Sample& x) {
  double mj = kNaN;
  bool exact_counter = false;
  for (const Field& f : ev.fields) {
    if (!f.numeric || f.key.size() < 5 || f.key.size() > 8) continue;  // every key below is 5-8 long
    const auto v = text::parse_double(f.value);
    if (!v) continue;
    if (f.key == "totec") {
      mj = *v;  // the mJ counter is the exact one
      exact_counter = true;
    } else if (f.key == "energy_j" && !exact_counter) {
      mj = *v * 1000.0;
    } else if (f.key == "nvltx" && *v >= 0 && *v <= kLargestReading) {
      x.nvlink_tx_mb_s = static_cast<float>(*v / 1e6);
    } else if (f.key == "nvlrx" && *v >= 0 && *v <= kLargestReading) {
      x.nvlink_rx_mb_s = static_cast<float>(*v / 1e6);
    } else {
      read_profiling_field(f.key, *v, x);
    }
  }
  x.energy_mj = mj >= 0 && mj <= kLargestCounterMj ? mj : kNaN;
}

}  // namespace

void SampleCollector::on_event(const Event& ev) {
  const EventKind kind = event_kind_from_name(ev.kind);
  // An event that names another host whose telemetry is here is that host's; a job is the run's.
  if (kind != EventKind::sample && kind != EventKind::job && !m_others.empty() && ev.host != m_host)
    if (SampleCollector* other = other_host(ev.host)) return other->on_event(ev);
  switch (kind) {
    case EventKind::sample: return add_sample(ev);
    case EventKind::xid:
    case EventKind::gpu_lost:
    case EventKind::aer:
    case EventKind::suspend:
    case EventKind::lid:
    case EventKind::power_source:
    case EventKind::modeset:
    case EventKind::thermal:
    case EventKind::driver:
    case EventKind::oom:
    case EventKind::resume:
    case EventKind::boot:
    case EventKind::shutdown:
    case EventKind::segfault: return add_incident(ev, kind);
    case EventKind::trace_device:
    case EventKind::trace_memory:
    case EventKind::trace_launch:
    case EventKind::trace_kernel:
    case EventKind::trace_step:
    case EventKind::trace_info:
    case EventKind::profiler_total:
    case EventKind::nsys_kernel:
    case EventKind::nsys_memop_time: return add_trace_record(ev, kind);
    case EventKind::train:
    case EventKind::pattern: return add_training(ev, kind);
    case EventKind::job: return m_jobs.push_back(job_record_of(ev));
    case EventKind::process: return add_process(ev);
    case EventKind::no_process: m_pmon = true; return;
    case EventKind::gpu_handle: return add_handle(ev);
    default:
      // A trace's communication (kinds without an EventKind: only the job analysis reads them).
      if (ev.kind == "trace_comm" || ev.kind == "trace_collective") m_trace_jobs.on_event(ev);
      if (ev.kind == "trace_region") add_trace_region(ev);  // for the report's regions table
      return;                                               // extract reads no other kind
  }
}

JobRecord job_record_of(const Event& ev) {
  JobRecord j;
  j.start_ns = ev.ts_ns;
  const auto number = [](std::string_view v) { return text::parse_int(v); };
  for (const Field& f : ev.fields) {
    if (f.key == "job_id") j.id = std::string(f.value);
    if (f.key == "job_name") j.name = std::string(f.value);
    if (f.key == "user") j.user = std::string(f.value);
    if (f.key == "state") j.state = std::string(f.value);
    if (f.key == "nodelist") j.nodelist = std::string(f.value);
    if (f.key == "gpu_types") j.gpu_types = std::string(f.value);
    if (f.key == "energy_source") j.energy_source = std::string(f.value);
    if (f.key == "gpus") j.gpus = number(f.value);
    if (f.key == "exit_code") j.exit_code = number(f.value);
    if (f.key == "exit_signal") j.exit_signal = number(f.value);
    if (f.key == "cancelled_by") j.cancelled_by = number(f.value);
    if (f.key == "end_ns") j.end_ns = number(f.value);
    if (f.key == "energy_j") j.energy_j = text::parse_double(f.value);
    if (f.key == "nodes")
      for (std::size_t pos = 0; pos < f.value.size();) {
        const std::size_t comma = std::min(f.value.find(',', pos), f.value.size());
        if (comma > pos) j.nodes.emplace_back(f.value.substr(pos, comma - pos));
        pos = comma + 1;
      }
  }
  return j;
}

void SampleCollector::add_incident(const Event& ev, EventKind kind) {
  // The field that tells incidents of one kind apart: the Xid bucket, the AER severity, the
  // lid or AC state.
  std::string_view detail;
  int code = -1;
  std::optional<FaultCause> cause;
  for (const Field& f : ev.fields) {
    if (f.key == "bucket" || f.key == "severity" || f.key == "state" || f.key == "action") detail = f.value;
    // An Xid's cause (a gpu_lost event's `cause` says how the GPU was lost: another field).
    if (f.key == "cause" && kind == EventKind::xid) cause = fault_cause_from_name(f.value);
    if (f.key == "failed" && f.value == "true") detail = "failed";  // a resume after a failed suspend
    if (f.key == "code")
      if (const auto v = text::parse_int(f.value)) code = static_cast<int>(*v);
  }
  // A stream written before causes: what the bucket alone tells (a reset, reboot or service is
  // hardware; else unknown).
  if (!cause && kind == EventKind::xid) cause = xid_cause({}, xid_bucket_from_name(detail));
  m_incidents.add(ev.ts_ns, kind, detail, code, incident_device(ev, kind), cause.value_or(FaultCause::unknown));
  if (m_incident_host.empty() && !ev.host.empty()) m_incident_host = std::string(ev.host);
}

void SampleCollector::add_trace_record(const Event& ev, EventKind kind) {
  TraceRecord r;
  r.ts_ns = ev.ts_ns;
  r.gpu = ev.gpu;
  r.kind = kind;
  for (const Field& f : ev.fields) {
    if (f.numeric) {
      if (const auto v = text::parse_double(f.value)) r.values[std::string(f.key)] = *v;
    } else if (f.key == "op" || f.key == "direction") {
      if (!r.detail.empty()) r.detail += ' ';  // (not " " + value: GCC 12 warns of a false -Wrestrict)
      r.detail += f.value;
    } else if ((f.key == "name" && kind == EventKind::trace_kernel) ||
               (f.key == "device_name" && kind == EventKind::trace_device)) {
      r.detail = std::string(f.value);
    }
  }
  if (m_host.empty() && !ev.host.empty()) m_host = std::string(ev.host);
  m_trace.push_back(std::move(r));
}

void SampleCollector::add_trace_region(const Event& ev) {
  TraceRecord r;
  r.ts_ns = ev.ts_ns;
  r.gpu = ev.gpu;
  for (const Field& f : ev.fields) {
    if (f.numeric) {
      if (const auto v = text::parse_double(f.value)) r.values[std::string(f.key)] = *v;
    } else if (f.key == "name") {
      r.detail = std::string(f.value);
    }
  }
  m_trace_regions.push_back(std::move(r));
}

void SampleCollector::add_training(const Event& ev, EventKind kind) {
  bool eval = false;
  for (const Field& f : ev.fields) {
    if (kind == EventKind::train && f.key == "phase" && (f.value == "start" || f.value == "end"))
      m_train.emplace_back(ev.ts_ns, std::string(f.value));
    if (kind == EventKind::train && f.key == "phase" && f.value == "checkpoint") m_checkpoints.push_back(ev.ts_ns);
    eval = eval || (f.key == "phase" && f.value == "eval");
  }
  if (kind == EventKind::train && !eval) add_work(ev);
  if (kind == EventKind::train && !eval)  // evaluation throughput is not the training's
    for (const Field& f : ev.fields)
      if (f.numeric && (f.key == "samples_per_second" || f.key == "it_per_s"))
        if (const auto v = text::parse_double(f.value))
          m_rates.push_back(TrainRate{ev.ts_ns, f.key == "samples_per_second", *v});
  if (kind == EventKind::pattern) {
    std::int64_t dur = -1;
    for (const Field& f : ev.fields)
      if (f.key == "dur_ns")
        if (const auto v = text::parse_int(f.value)) dur = *v;
    m_patterns.emplace_back(ev.ts_ns, dur);
  }
}

// Steps, epochs and tokens as the line gives them. A Lightning epoch bar (phase epoch) counts the
// batches of its epoch: its global step is epoch x total + step, its progress epoch + step / total.
// Lightning's checkpoint lines name the epoch being run (0-based), not the epochs done: only
// HF's dicts (phase step and end) and the bars give progress.
void SampleCollector::add_work(const Event& ev) {
  TrainWork w;
  w.ts_ns = ev.ts_ns;
  std::string_view phase;
  double step = TrainWork::kNone, total = TrainWork::kNone, epoch = TrainWork::kNone;
  for (const Field& f : ev.fields) {
    if (f.key == "phase") phase = f.value;
    if (!f.numeric) continue;
    const auto v = text::parse_double(f.value);
    if (!v || !std::isfinite(*v) || *v < 0) continue;
    if (f.key == "step") step = *v;
    if (f.key == "total_steps") total = *v;
    if (f.key == "epoch") epoch = *v;
    if (f.key == "num_input_tokens_seen") w.tokens_seen = *v;
    if (f.key == "train_runtime_s") w.runtime_s = *v;
    if (f.key == "samples_per_second") w.samples_per_s = *v;
    if (f.key == "steps_per_second") w.steps_per_s = *v;
    if (f.key == "train_tokens_per_second") w.tokens_per_s = *v;
  }
  w.start = phase == "start";
  if (phase == "epoch" && !std::isnan(epoch) && !std::isnan(step) && total > 0) {
    w.step = epoch * total + step;
    w.progress = epoch + step / total;
  } else {
    w.step = step;
    if (phase == "step" || phase == "end") w.progress = epoch;
  }
  if (phase != "end") w.runtime_s = w.samples_per_s = w.steps_per_s = w.tokens_per_s = TrainWork::kNone;
  const bool any = w.start || !std::isnan(w.step) || !std::isnan(w.progress) || !std::isnan(w.tokens_seen) ||
                   !std::isnan(w.runtime_s);
  if (any) m_work.push_back(w);
}

void SampleCollector::add_process(const Event& ev) {
  m_pmon = true;
  ProcessRow r;
  r.ts_ns = ev.ts_ns;
  r.gpu = ev.gpu < 0 ? 0 : ev.gpu;
  if (!ev.has(Metric::pid)) return;  // a row without a pid names no process
  r.pid = static_cast<std::int64_t>(ev.get(Metric::pid));
  if (ev.has(Metric::sm_pct)) r.sm_pct = static_cast<float>(ev.get(Metric::sm_pct));
  if (ev.has(Metric::fb_mib)) r.fb_mib = static_cast<float>(ev.get(Metric::fb_mib));
  std::string_view command, type;
  for (const Field& f : ev.fields) {
    if (f.key == "command") command = f.value;
    if (f.key == "process_type") type = f.value;
  }
  m_name_key.assign(type).append("\t").append(command);
  auto it = m_process_name_ids.find(m_name_key);
  if (it == m_process_name_ids.end()) {
    it = m_process_name_ids.emplace(m_name_key, static_cast<std::uint32_t>(m_process_names.size())).first;
    m_process_names.push_back({std::string(command), std::string(type)});
  }
  r.name = it->second;
  m_processes.push_back(r);
}

// A holder's span: from the first scan that saw it to the last (a release's last_seen_ns: it let
// go after that scan), or to the end when the recording ended with it holding the file.
void SampleCollector::add_handle(const Event& ev) {
  if (!ev.has(Metric::pid)) return;
  std::int64_t start_ns = 0, last_seen_ns = ev.ts_ns;
  std::string_view state;
  for (const Field& f : ev.fields) {
    if (f.key == "state") state = f.value;
    if (f.key == "start_ns")
      if (const auto v = text::parse_int(f.value)) start_ns = *v;
    if (f.key == "last_seen_ns")
      if (const auto v = text::parse_int(f.value)) last_seen_ns = *v;
  }
  const HandleKey key{ev.gpu < 0 ? -1 : ev.gpu, static_cast<std::int64_t>(ev.get(Metric::pid)), start_ns};
  const auto [it, fresh] = m_handles.try_emplace(key);
  HandleHolding& h = it->second;
  const std::int64_t seen = state == "released" ? last_seen_ns : ev.ts_ns;
  if (fresh || ev.ts_ns < h.first_ns) h.first_ns = std::min(ev.ts_ns, seen);
  h.last_ns = fresh ? seen : std::max(h.last_ns, seen);
  h.to_end = h.to_end || state == "still_held";
  note_holder_identity(ev, h);
}

// Who the holder is: a later event's non-empty text replaces an earlier one (the scan writes them all).
void SampleCollector::note_holder_identity(const Event& ev, HandleHolding& h) {
  const std::pair<std::string_view, std::string*> texts[] = {{"role", &h.role},
                                                             {"user", &h.user},
                                                             {"command", &h.command},
                                                             {"cgroup", &h.cgroup},
                                                             {"container_runtime", &h.container_runtime},
                                                             {"container_id", &h.container_id},
                                                             {"pod_uid", &h.pod_uid},
                                                             {"slurm_job", &h.slurm_job}};
  for (const Field& f : ev.fields) {
    if (f.value.empty()) continue;
    if (f.key == "uid") {
      if (const auto v = text::parse_int(f.value)) h.uid = *v;
      continue;
    }
    for (const auto& [key, out] : texts)
      if (f.key == key) *out = std::string(f.value);
  }
}

SampleCollector* SampleCollector::other_host(std::string_view host) const {
  for (const auto& other : m_others)
    if (other->m_host == host) return other.get();
  return nullptr;
}

SampleCollector& SampleCollector::sample_target(std::string_view host) {
  if (host.empty() || host == m_host) return *this;
  if (m_host.empty()) {
    m_host = std::string(host);
    return *this;
  }
  // Samples come a host's GPUs after another: the last host found is most often the next.
  if (m_last_other != nullptr && m_last_other->m_host == host) return *m_last_other;
  m_last_other = other_host(host);
  if (m_last_other != nullptr) return *m_last_other;
  auto other = std::make_unique<SampleCollector>(m_store.shared_budget(), m_incident_budget);
  other->m_host = std::string(host);
  other->m_first = this;
  m_others.push_back(std::move(other));
  m_last_other = m_others.back().get();
  return *m_last_other;
}

void SampleCollector::add_sample(const Event& ev) {
  sample_target(ev.host).m_store.add(ev.gpu < 0 ? 0 : ev.gpu, sample_of(ev));
}

namespace {

/// A chunk's events as the collector keeps them (prep -j): the samples as the store's records,
/// made on the worker, and the rare other kinds whole, to be collected when the chunk is joined.
class CollectedChunk final : public EventSink {
 public:
  void on_event(const Event& ev) override {
    if (event_kind_from_name(ev.kind) != EventKind::sample) {
      others.add(ev);
      return;
    }
    samples.push_back(ChunkSample{host_slot(ev.host), ev.gpu < 0 ? 0 : ev.gpu, sample_of(ev)});
  }
  void clear() {
    samples.clear();
    others.clear();
    hosts.clear();
  }
  struct ChunkSample {
    std::uint32_t host = 0;  ///< index in `hosts`
    int gpu = 0;
    Sample sample;
  };
  std::vector<ChunkSample> samples;
  EventBuffer others;
  std::vector<std::string> hosts;  ///< the hosts the chunk's samples name, in order of first appearance

 private:
  std::uint32_t host_slot(std::string_view host) {
    if (!hosts.empty() && hosts[m_last] == host) return m_last;  // a chunk is mostly one host's
    const auto at = static_cast<std::size_t>(std::find(hosts.begin(), hosts.end(), host) - hosts.begin());
    if (at == hosts.size()) hosts.emplace_back(host);
    m_last = static_cast<std::uint32_t>(at);
    return m_last;
  }
  std::uint32_t m_last = 0;
};

}  // namespace

std::unique_ptr<EventSink> SampleCollector::fork() { return std::make_unique<CollectedChunk>(); }

void SampleCollector::join(EventSink& forked) {
  auto& chunk = static_cast<CollectedChunk&>(forked);
  std::vector<SampleCollector*> targets;  // by the chunk's host slot, found in its order of appearance
  for (const std::string& host : chunk.hosts) targets.push_back(&sample_target(host));
  for (const auto& s : chunk.samples) targets[s.host]->m_store.add(s.gpu, s.sample);
  chunk.others.replay(*this);  // incidents and records: apart from the samples, in their order
  chunk.clear();
}

void SampleCollector::discard(EventSink& forked) { static_cast<CollectedChunk&>(forked).clear(); }

Sample sample_of(const Event& ev) {
  // A reading beyond ±10^12 is no telemetry (no GPU draws a terawatt): it is taken as not read,
  // so that no sum, and no float of the sample, turns infinite.
  const auto get = [&](Metric m) {
    const double v = ev.has(m) ? ev.get(m) : kNaN;
    return std::abs(v) <= kLargestReading ? v : kNaN;
  };
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
  read_dcgm_fields(ev, x);
  return x;
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

namespace {

/// A training log's GPU names and count serve the estimate only; a profiler trace's are checked
/// against the telemetry's, which price the speed ratio.
void add_input_gpus(InputGpus& out, Format format, const Fingerprint& fp) {
  if (format == Format::trainlog) {
    for (const auto& name : fp.gpus) Fingerprint::add(out.log_names, name);
    out.log_count = std::max(out.log_count, static_cast<int>(fp.gpu_count));
    return;
  }
  for (const auto& name : fp.gpus) Fingerprint::add(format_traits(format).profiler ? out.traces : out.telemetry, name);
}

}  // namespace

void SampleCollector::note_inputs(const std::vector<InputStats>& inputs) {
  // The firmest basis wins: a stream prep wrote with --host beside raw logs read without it.
  const auto firmness = [](std::string_view basis) {
    return basis == "option" ? 3 : basis == "logs" ? 2 : basis == "machine" ? 1 : 0;
  };
  for (const auto& in : inputs) {
    // Another host's kernel log tells nothing of this host's incidents: only one naming it counts.
    const bool ours = m_first == nullptr || std::find(in.hosts.begin(), in.hosts.end(), m_host) != in.hosts.end();
    m_host_logs = m_host_logs || (ours && format_traits(in.format).host_log_inside);
    add_zone(m_logs_tz, in.logs_tz);
    if (firmness(in.host_basis) > firmness(m_host_basis)) m_host_basis = in.host_basis;
    if (in.upstream_formats.empty()) add_input_gpus(m_input_gpus, in.format, in.fingerprint);
    for (std::size_t i = 0; i < in.upstream_formats.size(); ++i) {  // an events stream: the formats prep read
      Format f = Format::unknown;
      const bool known = format_from_name(in.upstream_formats[i], f);
      m_host_logs = m_host_logs || (ours && known && format_traits(f).host_log_inside);
      if (known && i < in.upstream_fingerprints.size()) add_input_gpus(m_input_gpus, f, in.upstream_fingerprints[i]);
    }
  }
  // A host an input's own lines named is the logs' word, whatever the run assumed for the others
  // (a kernel log read from a pipe is not looked at before the run).
  const std::string& host = m_host.empty() ? m_incident_host : m_host;
  if (m_host_basis != "option")
    for (const auto& in : inputs)
      if (std::find(in.hosts.begin(), in.hosts.end(), host) != in.hosts.end()) m_host_basis = "logs";
  for (const auto& other : m_others) other->note_inputs(inputs);  // the inputs are every host's
}

}  // namespace gpucost::extract

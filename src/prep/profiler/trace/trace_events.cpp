// A Kineto trace as events of the gpucost.events stream: the trace's analyses, not its raw
// records (a trace holds hundreds of thousands; the cost model needs their sums). Kinds and
// fields are listed in docs/formats.md, "Kineto traces".
#include "critical_path_events.hpp"
#include "prep/parsers.hpp"
#include "ranks.hpp"
#include "regions.hpp"
#include "trace.hpp"

#include <gpucost/core/time.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpucost::prep {

namespace {

using namespace trace;

void add_real(Event& e, std::string_view key, double v) {
  e.fields.push_back(Field{key, e.own(fmt::format("{}", v)), true, false});
}

/// A CUDA version as the API gives it (1000 x major + 10 x minor) in its usual form: 12090 -> "12.9".
std::string cuda_version_text(std::int64_t v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

void add_fraction(Event& e, std::string_view key, std::int64_t part, std::int64_t whole) {
  if (whole > 0) add_real(e, key, static_cast<double>(part) / static_cast<double>(whole));
}

/// Puts trace times on the events' clock: UTC when the trace is absolute, else --start plus the
/// offset from the trace's first record, else that offset alone (a relative clock).
class TraceClock {
 public:
  TraceClock(const TraceData& data, ParseContext& ctx) : m_data(data) {
    if (data.absolute()) {
      ctx.stats.time_basis = TimeBasis::absolute;
      ctx.stats.clock = data.base_time_ns ? "absolute: ts relative to baseTimeNanoseconds"
                                          : "absolute: ts in microseconds since the Unix epoch";
      return;
    }
    m_origin = data.has_min_ts ? data.min_ts_ns : 0;
    if (const auto& s = ctx.options.start) {
      m_anchor =
          s->offset_s ? s->civil.as_utc_ns() - *s->offset_s * kNsPerSecond : ctx.clock.to_utc_ns(s->civil.as_utc_ns());
      ctx.stats.time_basis = TimeBasis::absolute;
      ctx.stats.clock = "the trace's first record placed at --start";
    } else {
      ctx.stats.time_basis = TimeBasis::relative;
      ctx.stats.clock = "relative: the trace has no baseTimeNanoseconds and its ts are not epoch times";
      add_note(
          ctx.stats,
          "trace times are relative to its first record (1970-01-01T00:00:00Z = start); give --start to place them");
    }
  }
  [[nodiscard]] std::int64_t at(std::int64_t ts) const {
    return m_data.absolute() ? m_data.to_epoch_ns(ts) : m_anchor + (ts - m_origin);
  }

 private:
  const TraceData& m_data;
  std::int64_t m_origin = 0, m_anchor = 0;
};

void begin(ParseContext& ctx, std::string_view kind, std::int64_t ts, int gpu) {
  ctx.event.reset();
  ctx.event.source = "kineto-trace";
  ctx.event.kind = kind;
  ctx.event.ts_ns = ts;
  ctx.event.gpu = gpu;
}

/// begin() for an event of GPU `d` at `ts`, with the trace's rank when it has one.
Event& begin_device(ParseContext& ctx, std::string_view kind, std::int64_t ts, const DeviceReport& d) {
  begin(ctx, kind, ts, d.device);
  if (d.rank >= 0) ctx.event.add_number("rank", d.rank);
  return ctx.event;
}

void emit_info(const TraceData& data, const TraceReport& report, const TraceClock& clock, ParseContext& ctx) {
  begin(ctx, "trace_info", clock.at(data.has_min_ts ? data.min_ts_ns : 0), -1);
  Event& e = ctx.event;
  if (!data.trace_name.empty()) e.add_text("trace_name", data.trace_name);
  if (data.rank >= 0) e.add_number("rank", data.rank);
  if (data.world_size >= 0) e.add_number("world_size", data.world_size);
  if (!data.backend.empty()) e.add_text("backend", data.backend);
  if (data.schema_version >= 0) e.add_number("schema_version", data.schema_version);
  // The software stack, for comparing runs (trace --diff): strings made here live in the event.
  if (data.cuda_driver_version > 0) e.add_text("cuda_driver", e.own(cuda_version_text(data.cuda_driver_version)));
  if (data.cuda_runtime_version > 0) e.add_text("cuda_runtime", e.own(cuda_version_text(data.cuda_runtime_version)));
  if (data.cupti_version > 0) e.add_number("cupti_version", data.cupti_version);
  if (!data.nccl_version.empty()) e.add_text("nccl_version", data.nccl_version);
  e.add_number("records", static_cast<std::int64_t>(data.counts.records));
  e.add_number("gpu_ops", static_cast<std::int64_t>(data.ops.size()));
  e.add_number("launch_calls", static_cast<std::int64_t>(data.launches.size()));
  e.add_number("runtime_calls", static_cast<std::int64_t>(data.runtime_calls));
  e.add_number("cpu_ops", static_cast<std::int64_t>(data.cpu_ops));
  e.add_number("sync_events", static_cast<std::int64_t>(data.sync_events));
  e.add_number("steps", static_cast<std::int64_t>(data.steps.size()));
  e.add_number("devices", static_cast<std::int64_t>(report.devices.size()));
  if (!report.steps_used.empty() || ctx.options.step_first) {
    e.add_number("steps_analysed", static_cast<std::int64_t>(report.steps_used.size()));
    e.add_number("ops_outside_steps", static_cast<std::int64_t>(report.ops_filtered_out));
  }
  for (const auto& [id, name] : data.device_names)
    if (!name.empty()) {
      e.add_text("device_name", name);  // the first GPU's name; every GPU's is on trace_device
      break;
    }
  add_memory_counts(e, data.memory);
  ctx.emit();
}

/// The ops joined to their launch calls, and the percentiles and maximum of their delays.
void add_launch_delays(Event& e, const LaunchStats& l) {
  e.add_number("launched_ops", static_cast<std::int64_t>(l.matched));
  e.add_number("unmatched_gpu_events", static_cast<std::int64_t>(l.unmatched));
  if (l.delays_ns.empty()) return;
  add_real(e, "launch_delay_p50_ns", *l.percentile_ns(50));
  add_real(e, "launch_delay_p95_ns", *l.percentile_ns(95));
  add_real(e, "launch_delay_p99_ns", *l.percentile_ns(99));
  e.add_number("launch_delay_max_ns", l.delays_ns.back());
}

void emit_device(const DeviceReport& d, const TraceClock& clock, ParseContext& ctx) {
  Event& e = begin_device(ctx, "trace_device", clock.at(d.start_ns), d);
  if (!d.device_name.empty()) e.add_text("device_name", d.device_name);
  e.add_number("span_ns", d.span_ns);
  e.add_number("busy_ns", d.busy_ns);
  e.add_number("idle_ns", d.idle_ns);
  e.add_number("compute_ns", d.compute_ns);
  e.add_number("noncompute_ns", d.noncompute_ns);
  add_fraction(e, "busy_fraction", d.busy_ns, d.span_ns);
  add_fraction(e, "idle_fraction", d.idle_ns, d.span_ns);
  add_fraction(e, "compute_fraction", d.compute_ns, d.span_ns);
  add_fraction(e, "noncompute_fraction", d.noncompute_ns, d.span_ns);
  e.add_number("ops", static_cast<std::int64_t>(d.ops));
  e.add_number("kernels", static_cast<std::int64_t>(d.kernels));
  e.add_number("memcpys", static_cast<std::int64_t>(d.memcpys));
  e.add_number("memsets", static_cast<std::int64_t>(d.memsets));
  e.add_number("streams", static_cast<std::int64_t>(d.streams.size()));
  e.add_number("distinct_kernels", static_cast<std::int64_t>(d.distinct_kernels));
  e.add_number("compute_kernel_ns", d.kernel_time_ns[static_cast<int>(OpClass::compute)]);
  e.add_number("communication_kernel_ns", d.kernel_time_ns[static_cast<int>(OpClass::communication)]);
  e.add_number("memory_op_ns", d.kernel_time_ns[static_cast<int>(OpClass::memory)]);
  e.add_number("idle_host_wait_ns", d.idle.host_wait_ns);
  e.add_number("idle_short_gap_ns", d.idle.short_gap_ns);
  e.add_number("idle_other_ns", d.idle.other_ns);
  // What bounds the GPU time (kernel_bound.hpp): summed durations, then the steps' split.
  e.add_number("tensor_bound_ns", d.bound_time_ns[static_cast<int>(KernelBound::tensor)]);
  e.add_number("memory_bound_ns", d.bound_time_ns[static_cast<int>(KernelBound::memory)]);
  e.add_number("comm_bound_ns", d.bound_time_ns[static_cast<int>(KernelBound::communication)]);
  e.add_number("unknown_bound_ns", d.bound_time_ns[static_cast<int>(KernelBound::other)]);
  const StepSplit& split = d.step_split;
  e.add_number("split_steps", split.steps);
  e.add_number("split_window_ns", split.window_ns);
  e.add_number("split_tensor_ns", split.tensor_ns);
  e.add_number("split_memory_ns", split.memory_ns);
  e.add_number("split_unknown_ns", split.other_ns);
  e.add_number("split_exposed_comm_ns", split.exposed_comm_ns);
  e.add_number("split_rest_ns", split.rest_ns());
  const LaunchStats& l = d.launch;
  add_launch_delays(e, l);
  if (!l.delays_ns.empty()) {
    long double sum = 0;
    for (std::int64_t v : l.delays_ns) sum += static_cast<long double>(v);
    add_real(e, "launch_delay_mean_ns", static_cast<double>(sum / static_cast<long double>(l.delays_ns.size())));
    e.add_number("launch_delays_over_10ms", static_cast<std::int64_t>(l.long_delays));
    add_real(e, "launch_delay_over_10ms_fraction",
             static_cast<double>(l.long_delays) / static_cast<double>(l.delays_ns.size()));
  }
  e.add_number("short_kernels", static_cast<std::int64_t>(l.short_kernels));
  if (l.kernels > 0)
    add_real(e, "short_kernel_fraction", static_cast<double>(l.short_kernels) / static_cast<double>(l.kernels));
  if (std::any_of(d.streams.begin(), d.streams.end(), [](const StreamReport& s) { return s.has_queue; })) {
    add_real(e, "queue_length_mean", d.queue_length_mean);
    e.add_number("queue_length_max", d.queue_length_max);
    e.add_number("full_queue_ns", d.full_queue_ns);
  }
  if (d.gpu_memory) add_gpu_memory_fields(e, *d.gpu_memory);
  ctx.emit();
}

/// Launch delays over every GPU of the trace: exact percentiles of the whole trace, which the
/// per-device events cannot give once merged.
void emit_launch(const TraceData& data, const TraceReport& report, const TraceClock& clock, ParseContext& ctx) {
  if (report.devices.empty()) return;
  LaunchStats all;
  std::int64_t start = report.devices.front().start_ns;
  for (const DeviceReport& d : report.devices) {
    all.delays_ns.insert(all.delays_ns.end(), d.launch.delays_ns.begin(), d.launch.delays_ns.end());
    all.matched += d.launch.matched;
    all.unmatched += d.launch.unmatched;
    all.long_delays += d.launch.long_delays;
    start = std::min(start, d.start_ns);
  }
  std::sort(all.delays_ns.begin(), all.delays_ns.end());
  begin(ctx, "trace_launch", clock.at(start), -1);
  Event& e = ctx.event;
  if (data.rank >= 0) e.add_number("rank", data.rank);
  e.add_number("devices", static_cast<std::int64_t>(report.devices.size()));
  add_launch_delays(e, all);
  if (!all.delays_ns.empty()) e.add_number("launch_delays_over_10ms", static_cast<std::int64_t>(all.long_delays));
  ctx.emit();
}

/// "0,3,12,...": a list of numbers as one text field.
std::string join_numbers(const std::vector<std::int64_t>& values) {
  std::string out;
  for (const std::int64_t v : values) {
    if (!out.empty()) out += ',';
    out += std::to_string(v);
  }
  return out;
}

void emit_streams(const DeviceReport& d, const TraceClock& clock, ParseContext& ctx) {
  for (const StreamReport& s : d.streams) {
    Event& e = begin_device(ctx, "trace_stream", clock.at(s.start_ns), d);
    e.add_number("stream", s.stream);
    e.add_number("ops", static_cast<std::int64_t>(s.ops));
    e.add_number("span_ns", s.end_ns - s.start_ns);
    e.add_number("busy_ns", s.busy_ns);
    e.add_number("idle_host_wait_ns", s.idle.host_wait_ns);
    e.add_number("idle_short_gap_ns", s.idle.short_gap_ns);
    e.add_number("idle_other_ns", s.idle.other_ns);
    if (s.has_queue) {
      add_real(e, "queue_length_mean", s.queue_length_mean);
      e.add_number("queue_length_max", s.queue_length_max);
      e.add_number("full_queue_ns", s.full_queue_ns);
      e.add_text("queue_max_by_bin", join_numbers(s.queue_max_by_bin), true);
    }
    ctx.emit();
  }
}

void emit_kernels(const DeviceReport& d, const TraceClock& clock, ParseContext& ctx) {
  std::int64_t place = 0;
  for (const KernelRow& k : d.top_kernels) {
    Event& e = begin_device(ctx, "trace_kernel", clock.at(d.start_ns), d);
    e.add_number("place", ++place);
    e.add_text("name", k.name);
    e.add_text("class", to_string(k.cls));
    e.add_number("count", static_cast<std::int64_t>(k.count));
    e.add_number("total_ns", k.total_ns);
    add_real(e, "mean_ns", static_cast<double>(k.total_ns) / static_cast<double>(k.count));
    e.add_number("min_ns", k.min_ns);
    e.add_number("max_ns", k.max_ns);
    add_fraction(e, "busy_share", k.total_ns, d.busy_ns);
    ctx.emit();
  }
}

void emit_memory(const DeviceReport& d, const TraceClock& clock, ParseContext& ctx) {
  for (const MemoryRow& m : d.memory) {
    Event& e = begin_device(ctx, "trace_memory", clock.at(d.start_ns), d);
    e.add_text("op", m.type == OpType::memcpy ? "memcpy" : "memset");
    if (m.type == OpType::memcpy) e.add_text("direction", to_string(m.dir));
    e.add_number("count", static_cast<std::int64_t>(m.count));
    e.add_number("total_ns", m.total_ns);
    if (m.bytes > 0) {
      e.add_number("bytes", static_cast<std::int64_t>(m.bytes));
      e.add_number("bytes_ns", m.timed_ns);  // time of the ops that gave bytes
      if (const auto gbps = m.gbps()) add_real(e, "gbps", *gbps);
    }
    ctx.emit();
  }
}

/// One trace_op per operator name (only when asked: PrepOptions::trace_operators).
void emit_operators(const TraceData& data, const TraceReport& report, const TraceClock& clock, ParseContext& ctx) {
  for (const OperatorRow& op : report.operators) {
    begin(ctx, "trace_op", clock.at(data.has_min_ts ? data.min_ts_ns : 0), -1);
    Event& e = ctx.event;
    if (data.rank >= 0) e.add_number("rank", data.rank);
    e.add_text("name", op.name);
    e.add_text("op_kind", to_string(op.kind));
    e.add_number("calls", static_cast<std::int64_t>(op.calls));
    e.add_number("total_ns", op.total_ns);
    e.add_number("max_ns", op.max_ns);
    ctx.emit();
  }
}

/// The GPU's memory in each step (the `[memory]` instants), after its trace_device.
void emit_step_memory(const DeviceReport& d, const TraceClock& clock, ParseContext& ctx) {
  if (!d.gpu_memory) return;
  for (const StepMemory& s : d.gpu_memory->steps) {
    add_step_memory_fields(begin_device(ctx, "trace_step_memory", clock.at(s.start_ns), d), s);
    ctx.emit();
  }
}

void emit_steps(const TraceData& data, const TraceClock& clock, ParseContext& ctx) {
  std::vector<StepMark> steps = data.steps;
  std::sort(steps.begin(), steps.end(), [](const StepMark& a, const StepMark& b) { return a.start_ns < b.start_ns; });
  for (const StepMark& s : steps) {
    begin(ctx, "trace_step", clock.at(s.start_ns), -1);
    ctx.event.add_number("step", s.number);
    ctx.event.add_number("dur_ns", s.dur_ns);
    if (data.rank >= 0) ctx.event.add_number("rank", data.rank);
    ctx.emit();
  }
}

/// One trace_region per user annotation name (docs/formats.md, "Annotated regions").
void emit_regions(const TraceData& data, const TraceReport& report, const TraceOptions& options,
                  const TraceClock& clock, ParseContext& ctx) {
  const bool restricted = options.step_first.has_value();
  const RegionReport regions = analyse_regions(data, restricted ? report.steps_used : data.steps, restricted);
  for (const RegionRow& r : regions.rows) {
    begin(ctx, "trace_region", clock.at(r.first_ns), -1);
    Event& e = ctx.event;
    if (data.rank >= 0) e.add_number("rank", data.rank);
    e.add_text("name", r.name, true);
    if (!r.parent.empty()) e.add_text("parent", r.parent, true);
    e.add_number("depth", r.depth);
    e.add_number("calls", static_cast<std::int64_t>(r.calls));
    e.add_number("threads", static_cast<std::int64_t>(r.threads));
    e.add_number("cpu_ns", r.cpu_ns);
    e.add_text("gpu_source", to_string(r.gpu_source));
    if (r.gpu_source != RegionGpuSource::none) e.add_number("gpu_ns", r.gpu_ns());
    if (r.gpu_calls > 0) {
      e.add_number("gpu_calls", static_cast<std::int64_t>(r.gpu_calls));
      e.add_number("gpu_devices", static_cast<std::int64_t>(r.devices));
      e.add_number("gpu_annotated_ns", r.annotated_gpu_ns);
    }
    e.add_number("gpu_launched_ns", r.launched_gpu_ns);
    e.add_number("steps", regions.steps);
    if (regions.steps > 0) {
      e.add_number("step_ns", regions.step_ns);
      add_fraction(e, "step_share", r.cpu_ns, regions.steps_ns);
    }
    ctx.emit();
  }
}

/// The collective's identity, the fields its kernel's args gave (each optional: older streams
/// and traces without the args have none).
void add_identity(const Collective& c, Event& e) {
  if (!c.pg.empty()) e.add_text("pg", e.own(c.pg));
  if (!c.pg_desc.empty()) e.add_text("pg_desc", e.own(c.pg_desc));
  if (!c.pg_ranks.empty()) e.add_text("pg_ranks", e.own(c.pg_ranks));
  if (!c.op.empty()) e.add_text("collective", e.own(c.op));
  if (c.pg_seq >= 0) e.add_number("pg_seq", c.pg_seq);
  if (c.pg_order >= 0) e.add_number("pg_order", c.pg_order);
  if (c.in_nelems >= 0) e.add_number("in_nelems", c.in_nelems);
  if (c.out_nelems >= 0) e.add_number("out_nelems", c.out_nelems);
}

/// A rank's communication (docs/formats.md, "A job of ranks"): its summary, and each collective
/// with the key that matches it across ranks. Only for traces with communication kernels or of a
/// job of several ranks.
void emit_ranks(const TraceData& data, const TraceClock& clock, ParseContext& ctx) {
  std::optional<StepRange> steps;
  if (ctx.options.step_first)
    steps = StepRange{*ctx.options.step_first, ctx.options.step_last.value_or(*ctx.options.step_first)};
  const RankSummary r = summarise_rank(data, ctx.stats.path, steps);
  if (r.collectives.empty() && data.world_size <= 1) return;
  // Collectives carry UTC times when the trace is absolute, else the trace's own clock.
  const auto at = [&](std::int64_t t) { return data.absolute() ? t : clock.at(t); };
  begin(ctx, "trace_comm", at(r.start_ns), -1);
  Event& e = ctx.event;
  if (r.rank >= 0) {
    e.add_number("rank", r.rank);
    e.add_text("rank_source", r.rank_from_name ? "file name" : "distributedInfo");
  }
  if (r.world_size >= 0) e.add_number("world_size", r.world_size);
  if (!r.backend.empty()) e.add_text("backend", r.backend);
  e.add_number("span_ns", r.span_ns());
  e.add_number("comm_ns", r.comm_ns);
  e.add_number("comm_overlap_ns", r.overlap_ns);
  e.add_number("exposed_comm_ns", r.exposed_comm_ns());
  add_fraction(e, "overlap_fraction", r.overlap_ns, r.comm_ns);
  add_fraction(e, "exposed_comm_fraction", r.exposed_comm_ns(), r.span_ns());
  e.add_number("collectives", static_cast<std::int64_t>(r.collectives.size()));
  // Its file name names the trace in the notes of its job, and ties its collectives to it when
  // a merge by time interleaves them with another trace's of the same rank.
  const std::string_view path = ctx.stats.path;
  const std::string_view file = path.substr(path.find_last_of('/') + 1);  // npos + 1 = 0: no folder
  e.add_text("file", file);
  if (!r.strip.empty()) e.add_text("strip", e.own(r.strip));
  ctx.emit();
  for (const Collective& c : r.collectives) {
    begin(ctx, "trace_collective", at(c.start_ns), c.device);
    Event& ce = ctx.event;
    if (r.rank >= 0) ce.add_number("rank", r.rank);
    if (c.step >= 0) ce.add_number("step", c.step);
    ce.add_number("lane", c.lane);
    ce.add_number("seq", c.seq);
    ce.add_number("dur_ns", c.dur_ns);
    ce.add_text("name", ce.own(c.name));
    ce.add_text("file", file);
    add_identity(c, ce);
    ctx.emit();
  }
}

/// Records accounting: a trace's "lines" are its records (elements of traceEvents).
void account(const TraceData& data, ParseContext& ctx) {
  InputStats& st = ctx.stats;
  st.lines = data.counts.records;
  st.event_lines = data.counts.used;
  st.ignored = data.counts.ignored;
  st.malformed = data.counts.malformed;
  for (const MalformedRecord& m : data.counts.examples)
    st.examples.push_back(MalformedExample{m.line, fmt::format("record {}: {}", m.record, m.reason), m.excerpt});
  if (!data.truncated.empty()) st.truncated = data.truncated;
  for (const auto& [id, name] : data.device_names) Fingerprint::add(st.fingerprint.gpus, name);
  // cudaDriverGetVersion: the CUDA version the driver supports, what nvidia-smi prints as "CUDA Version".
  if (data.cuda_driver_version > 0) Fingerprint::add(st.fingerprint.cuda, cuda_version_text(data.cuda_driver_version));
  if (data.cuda_runtime_version > 0)
    Fingerprint::add(st.fingerprint.stack, "CUDA runtime " + cuda_version_text(data.cuda_runtime_version));
  if (!data.nccl_version.empty()) Fingerprint::add(st.fingerprint.stack, "NCCL " + data.nccl_version);
}

void explain_no_gpu_ops(const TraceData& data, ParseContext& ctx) {
  if (!data.other_device_categories.empty()) {
    std::string cats;
    for (const auto& [cat, n] : data.other_device_categories)
      cats += fmt::format("{}{} ({})", cats.empty() ? "" : ", ", cat, n);
    add_note(ctx.stats, "no kernel, memcpy or memset events: the device work is recorded as " + cats +
                            ", which gpucost does not analyse");
  } else {
    add_note(ctx.stats, "no GPU events: a CPU-only trace (no kernel, memcpy or memset records)");
  }
}

// Why a trace-like JSON input is not a Kineto trace, from its first bytes; empty when it may be one.
std::string not_kineto_reason(std::string_view head) {
  // Only the head's own shape is judged here; a full read decides the rest.
  std::size_t p = 0;
  while (p < head.size() && (head[p] == ' ' || head[p] == '\n' || head[p] == '\r' || head[p] == '\t')) ++p;
  const std::string_view rest = head.substr(p, 64 * 1024);
  if (rest.starts_with("[")) {
    std::size_t q = 1;
    while (q < rest.size() && (rest[q] == ' ' || rest[q] == '\n' || rest[q] == '\r' || rest[q] == '\t')) ++q;
    if (rest.substr(q).starts_with("["))
      return "a PyTorch memory timeline (export_memory_timeline), not a Kineto trace";
    return {};
  }
  if (rest.find("\"traceEvents\"") == std::string_view::npos && rest.find("\"nodes\"") != std::string_view::npos &&
      rest.find("\"schema\"") != std::string_view::npos)
    return "a PyTorch execution trace (Chakra ET: nodes/schema), not a Kineto trace";
  return {};
}

void parse_trace(io::LineReader& reader, ParseContext& ctx) {
  TraceData data;
  (void)read_trace(
      reader, data,
      ReadOptions{.keep_cpu_ops = ctx.options.critical_path, .keep_host_ops = ctx.options.trace_operators});
  account(data, ctx);
  if (!data.not_kineto.empty()) {
    add_note(ctx.stats, "not a Kineto trace: " + data.not_kineto);
    return;
  }
  TraceOptions options;
  options.step_first = ctx.options.step_first;
  options.step_last = ctx.options.step_last;
  options.top_kernels = ctx.options.top_kernels;
  const TraceReport report = analyse(data, options);
  if (options.step_first && report.steps_used.empty())
    add_note(ctx.stats, "--steps: no ProfilerStep annotation of those numbers in the trace: nothing analysed");
  if (data.ops.empty()) explain_no_gpu_ops(data, ctx);
  if (data.mtia_ops > 0)
    add_note(ctx.stats,
             "MTIA: its device events (mtia_ccp_events) are read as GPU ops on their streams: dma_request "
             "as copies, event_record and event_wait as synchronisation (not ops), the rest as kernels; "
             "launches are its runFunction and enqueueCommand memcpy calls");
  const TraceClock clock(data, ctx);
  emit_info(data, report, clock, ctx);
  emit_steps(data, clock, ctx);
  emit_launch(data, report, clock, ctx);
  for (const DeviceReport& d : report.devices) {
    emit_device(d, clock, ctx);
    emit_streams(d, clock, ctx);
    emit_kernels(d, clock, ctx);
    emit_memory(d, clock, ctx);
    emit_step_memory(d, clock, ctx);
  }
  emit_operators(data, report, clock, ctx);
  emit_regions(data, report, options, clock, ctx);
  emit_ranks(data, clock, ctx);
  if (ctx.options.critical_path)
    emit_critical_paths(
        data, [&clock](std::int64_t t) { return clock.at(t); }, ctx);
}

// A trace is read whole, in one step (FormatTraits::whole_document): parse() is never called.
class TraceParser final : public LineParser {
 public:
  LineResult parse(std::string_view /*line*/, ParseContext& /*ctx*/) override { return LineResult::ignored; }
  void parse_whole(io::LineReader& reader, ParseContext& ctx) override { parse_trace(reader, ctx); }
};

}  // namespace

Status check_kineto_head(std::string_view head, const std::string& path) {
  const std::string why = not_kineto_reason(head);
  if (why.empty()) return {};
  return make_error(ErrorKind::format, fmt::format("{}: {}", path, why),
                    "gpucost reads the Chrome trace JSON that torch.profiler writes (export_chrome_trace, "
                    "tensorboard_trace_handler: *.pt.trace.json[.gz])");
}

Expected<std::unique_ptr<LineParser>> make_kineto_parser(ParseContext& ctx, std::string_view head) {
  GPUCOST_TRY(check_kineto_head(head, ctx.stats.path));
  return std::unique_ptr<LineParser>(std::make_unique<TraceParser>());
}

}  // namespace gpucost::prep

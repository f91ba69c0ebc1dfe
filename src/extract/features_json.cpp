// The gpucost.features document: written by extract, read by breakeven.
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/features.hpp>

#include <gpucost/core/time.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/io/line_reader.hpp>

#include "gpu_stats.hpp"
#include "process_list.hpp"
#include "trace_jobs_json.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

namespace gpucost::extract {

namespace {

/// The indicators, each on a line of its own after `members`; the closing brace two spaces less.
void write_set(io::JsonWriter& w, const IndicatorSet& set, bool host, std::string_view members) {
  w.object();
  for (const IndicatorDef& def : catalogue()) {
    if (host ? def.scope == Scope::gpu_only : def.scope == Scope::host_only) continue;
    const auto it = set.find(std::string(def.key));
    if (it == set.end()) continue;
    w.line(members).key(def.key).object().key("id").str(def.id).key("value").num(it->second.value);
    w.key("unit").str(def.unit);
    if (!it->second.value) w.key("reason").str(it->second.reason);
    w.close();
  }
  w.close("\n" + std::string(members.substr(0, members.size() - 2)));
}

void write_incidents(io::JsonWriter& w, const std::vector<WindowIncident>& incidents) {
  w.line("  ").key("incidents").array();
  for (const WindowIncident& i : incidents) {
    w.line("    ").item().object().key("ts").str(format_utc(i.ts_ns)).key("ts_ns").integer(i.ts_ns);
    w.key("kind").str(i.kind).key("bucket").str(i.bucket).key("code").integer(i.code).key("count").integer(i.count);
    if (i.count > 1) w.key("last_ts").str(format_utc(i.last_ts_ns)).key("last_ts_ns").integer(i.last_ts_ns);
    w.key("downtime_s").num(i.downtime_s);
    if (i.downtime_to_end) w.key("downtime_to_end").boolean(true);
    w.close();
  }
  w.close(incidents.empty() ? "" : "\n  ");
}

void write_fault(io::JsonWriter& w, const WindowFault& f) {
  w.object().key("ts").str(format_utc(f.ts_ns)).key("ts_ns").integer(f.ts_ns);
  w.key("last_ts").str(format_utc(f.last_ts_ns)).key("last_ts_ns").integer(f.last_ts_ns).key("device").str(f.device);
  w.text_if("host", f.host).key("bucket").str(f.bucket).key("cause").str(f.cause).key("count").integer(f.count);
  w.key("members").array();
  for (const auto& m : f.members)
    w.item().object().key("kind").str(m.kind).key("code").integer(m.code).key("count").integer(m.count).close();
  w.close().key("downtime_s").num(f.downtime_s).key("downtime_end_ns").integer(f.downtime_end_ns);
  if (f.downtime_to_end) w.key("downtime_to_end").boolean(true);
  w.close();
}

void write_faults(io::JsonWriter& w, const Features& f) {
  w.line("  ").key("fault_window_s").num(f.fault_window_s);
  w.line("  ").key("faults").array();
  for (const WindowFault& fault : f.faults) write_fault(w.line("    ").item(), fault);
  w.close(f.faults.empty() ? "" : "\n  ");
}

// The profile as runs of consecutive minutes: {"first_minute": M, "gpu_kwh": [kWh of M, M+1, ...]}.
void write_profile(io::JsonWriter& w, const EnergyProfile& p) {
  w.line("  ").key("energy_profile").object().key("bucket_s").integer(60).key("runs").array();
  std::int64_t next = 0;
  bool in_run = false;
  for (const auto& [minute, kwh] : p.kwh_by_minute) {
    if (!in_run || minute != next) {
      if (in_run) w.close().close();
      w.item().object().key("first_minute").integer(minute).key("gpu_kwh").array();
      in_run = true;
    }
    w.item().num(kwh);
    next = minute + 1;
  }
  if (in_run) w.close().close();
  w.close().close();
}

void write_partials(io::JsonWriter& w, const Partials& p) {
  w.object();
  for (const auto& [name, v] : p) w.key(name).num(v);
  w.close();
}

// The metrics of a Sample that an edge sample carries, as (key, value); NaN / 0 = not read.
std::vector<std::pair<std::string_view, double>> sample_fields(const Sample& s) {
  const auto f = [](float v) { return static_cast<double>(v); };
  const auto u = [](std::uint8_t v) { return v == 0 ? std::numeric_limits<double>::quiet_NaN() : v * 1.0; };
  return {{"power_w", s.power_w},
          {"sm_pct", s.util_pct},
          {"temp_c", s.temp_c},
          {"pclk_mhz", s.pclk_mhz},
          {"mem_temp_c", f(s.mem_temp_c)},
          {"mem_pct", f(s.mem_pct)},
          {"mclk_mhz", f(s.mclk_mhz)},
          {"fb_mib", f(s.fb_mib)},
          {"fb_total_mib", f(s.fb_total_mib)},
          {"enc_pct", f(s.enc_pct)},
          {"dec_pct", f(s.dec_pct)},
          {"rxpci_mb_s", f(s.rxpci_mb_s)},
          {"txpci_mb_s", f(s.txpci_mb_s)},
          {"power_limit_w", f(s.power_limit_w)},
          {"power_default_limit_w", f(s.power_default_limit_w)},
          {"pclk_max_mhz", f(s.pclk_max_mhz)},
          {"mclk_max_mhz", f(s.mclk_max_mhz)},
          {"throttle_mask", f(s.throttle_mask)},
          {"pcie_gen", u(s.pcie_gen)},
          {"pcie_gen_max", u(s.pcie_gen_max)},
          {"pcie_width", u(s.pcie_width)},
          {"pcie_width_max", u(s.pcie_width_max)},
          {"energy_mj", s.energy_mj},
          {"sm_active", f(s.sm_active)},
          {"sm_occupancy", f(s.sm_occupancy)},
          {"tensor_active", f(s.tensor_active)},
          {"dram_active", f(s.dram_active)},
          {"fp64_active", f(s.fp64_active)},
          {"fp32_active", f(s.fp32_active)},
          {"fp16_active", f(s.fp16_active)},
          {"nvlink_tx_mb_s", f(s.nvlink_tx_mb_s)},
          {"nvlink_rx_mb_s", f(s.nvlink_rx_mb_s)}};
}

void write_sample(io::JsonWriter& w, const Sample& s) {
  w.object().key("ts_ns").integer(s.ts_ns);
  for (const auto& [key, v] : sample_fields(s))
    if (!std::isnan(v)) w.key(key).num(v);
  w.close();
}

// The names of a GPU's sketches in the document: the time-weighted ones by the event stream's
// metric key (indexed by Held), the per-sample fallbacks with ".samples"; written in this order.
constexpr std::array<const char*, detail::kQuantiledCount> kSketchNames = {"power_w", "sm_pct", "temp_c"};
constexpr const char* kIntervalsName = "intervals_s";
constexpr const char* kPlainSuffix = ".samples";

void write_pairs(io::JsonWriter& w, const char* key, const auto& pairs) {
  w.key(key).array();
  for (const auto& [at, value] : pairs) w.item().array().item().num(static_cast<double>(at)).item().num(value).close();
  w.close();
}

/// One sketch of the GPU, on a line of its own; nothing for an empty one.
void write_sketch(io::JsonWriter& w, std::string_view name, const detail::QuantileSketch& q, bool& any) {
  if (q.empty()) return;
  any = true;
  w.line("        ").key(name).object();
  const detail::QuantileSketch::State st = q.state();
  if (st.exact) {
    write_pairs(w, "exact", st.values);
  } else {
    w.key("alpha").num(detail::QuantileSketch::kAlpha).key("min").num(st.min).key("max").num(st.max);
    w.key("zero").num(st.zero);
    write_pairs(w, "positive", st.positive);
    write_pairs(w, "negative", st.negative);
  }
  w.close();
}

void write_sketches(io::JsonWriter& w, const detail::GpuSketches& s) {
  w.line("      ").key("sketches").object();
  bool any = false;
  write_sketch(w, kIntervalsName, s.intervals, any);
  for (std::size_t i = 0; i < detail::kQuantiledCount; ++i) {
    write_sketch(w, kSketchNames[i], s.held[i], any);
    write_sketch(w, fmt::format("{}{}", kSketchNames[i], kPlainSuffix), s.plain[i], any);
  }
  w.close(any ? "\n      " : "");
}

/// "energy_method": what gave the energy (docs/indicators.md); nothing when no energy.
void write_energy_method(io::JsonWriter& w, const std::string& method) { w.text_if("energy_method", method); }

/// What merge needs of a GPU: its partials, its edge samples and its sketches.
void write_gpu_state(io::JsonWriter& w, const GpuFeatures& g) {
  if (g.partials.empty()) return;
  write_partials(w.line("      ").key("partials"), g.partials);
  if (g.first && g.last) {
    w.line("      ").key("edges").object().key("first");
    write_sample(w, *g.first);
    w.key("last");
    write_sample(w, *g.last);
    w.close();
  }
  if (g.sketches) write_sketches(w, *g.sketches);
}

void write_job(io::JsonWriter& w, const JobRecord& j) {
  w.object().key("id").str(j.id).key("name").str(j.name).key("user").str(j.user).key("state").str(j.state);
  w.key("exit_code").integer(j.exit_code).key("exit_signal").integer(j.exit_signal);
  if (j.cancelled_by) w.key("cancelled_by").integer(*j.cancelled_by);
  w.key("nodelist").str(j.nodelist).key("nodes").array();
  for (const std::string& n : j.nodes) w.item().str(n);
  w.close().key("gpus").integer(j.gpus).text_if("gpu_types", j.gpu_types);
  w.key("start").str(format_utc(j.start_ns)).key("start_ns").integer(j.start_ns);
  w.key("end");
  if (j.end_ns)
    w.str(format_utc(*j.end_ns));
  else
    w.null();
  w.key("end_ns").integer(j.end_ns).key("energy_j").num(j.energy_j).text_if("energy_source", j.energy_source);
  w.close();
}

/// The Slurm jobs of the window; absent when none.
void write_jobs(io::JsonWriter& w, const std::vector<JobRecord>& jobs) {
  if (jobs.empty()) return;
  w.line("  ").key("jobs").array();
  for (const JobRecord& j : jobs) write_job(w.line("    ").item(), j);
  w.close("\n  ");
}

/// The GPU models the inputs named (absent when none did): breakeven on this document prices the
/// speed ratio, the offer's fit and an estimate from them as it would from the logs.
void write_input_gpus(io::JsonWriter& w, const InputGpus& g) {
  if (g.empty()) return;
  const auto list = [&w](const char* key, const std::vector<std::string>& names) {
    w.key(key).array();
    for (const std::string& name : names) w.item().str(name);
    w.close();
  };
  w.key("input_gpus").object();
  list("telemetry", g.telemetry);
  list("traces", g.traces);
  list("log_names", g.log_names);
  w.key("log_count").integer(g.log_count).close();
}

// The fields of TraceStepSplit that are integers, in the order written.
constexpr std::pair<const char*, std::int64_t TraceStepSplit::*> kSplitFields[] = {
    {"devices", &TraceStepSplit::devices},
    {"steps", &TraceStepSplit::steps},
    {"window_ns", &TraceStepSplit::window_ns},
    {"tensor_ns", &TraceStepSplit::tensor_ns},
    {"memory_ns", &TraceStepSplit::memory_ns},
    {"unknown_ns", &TraceStepSplit::unknown_ns},
    {"exposed_comm_ns", &TraceStepSplit::exposed_comm_ns},
    {"rest_ns", &TraceStepSplit::rest_ns},
    {"tensor_kernel_ns", &TraceStepSplit::tensor_kernel_ns},
    {"memory_kernel_ns", &TraceStepSplit::memory_kernel_ns},
    {"comm_kernel_ns", &TraceStepSplit::comm_kernel_ns},
    {"unknown_kernel_ns", &TraceStepSplit::unknown_kernel_ns},
};

void write_trace_split(io::JsonWriter& w, const std::optional<TraceStepSplit>& split) {
  if (!split) return;
  w.line("  ").key("trace_step_split").object();
  for (const auto& [key, field] : kSplitFields) w.key(key).integer((*split).*field);
  w.key("marked").boolean(split->marked).key("several_models").boolean(split->several_models);
  w.key("gpu_model").str(split->gpu_model).close();
}

void write_checkpoints(io::JsonWriter& w, const std::optional<Features::Checkpoints>& c) {
  if (!c) return;
  w.line("  ").key("checkpoints").object().key("count").integer(c->count);
  w.key("interval_median_s").num(c->interval_median_s).close();
}

// "checkpoints" (absent: no checkpoint line, or a document written before them).
void read_checkpoints(simdjson::dom::element doc, Features& f) {
  simdjson::dom::object o;
  if (doc["checkpoints"].get_object().get(o) != simdjson::SUCCESS) return;
  Features::Checkpoints c;
  if (o["count"].get_int64().get(c.count) != simdjson::SUCCESS) return;
  double median = 0;
  if (o["interval_median_s"].get_double().get(median) == simdjson::SUCCESS) c.interval_median_s = median;
  f.checkpoints = c;
}

void write_trace_memory(io::JsonWriter& w, const std::optional<TraceMemoryPeak>& m) {
  if (!m) return;
  w.line("  ").key("trace_memory").object().key("peak_allocated_bytes").integer(m->allocated_bytes);
  w.key("peak_reserved_bytes").integer(m->reserved_bytes).key("gpus").integer(m->gpus).close();
}

// "trace_memory" (absent: no trace with [memory] events, or a document written before them).
void read_trace_memory(simdjson::dom::element doc, Features& f) {
  simdjson::dom::object o;
  if (doc["trace_memory"].get_object().get(o) != simdjson::SUCCESS) return;
  TraceMemoryPeak m;
  if (o["peak_allocated_bytes"].get_int64().get(m.allocated_bytes) != simdjson::SUCCESS) m.allocated_bytes = -1;
  if (o["peak_reserved_bytes"].get_int64().get(m.reserved_bytes) != simdjson::SUCCESS) m.reserved_bytes = -1;
  if (o["gpus"].get_int64().get(m.gpus) != simdjson::SUCCESS) m.gpus = 0;
  f.trace_memory = m;
}

// "trace_step_split" (absent: no trace, or a document written before the split).
Status read_trace_split(simdjson::dom::element doc, Features& f, const std::string& path) {
  simdjson::dom::object o;
  if (doc["trace_step_split"].get_object().get(o) != simdjson::SUCCESS) return {};
  TraceStepSplit s;
  for (const auto& [key, field] : kSplitFields)
    if (o[key].get_int64().get(s.*field) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema,
                        fmt::format("{}: trace_step_split.{} is missing or not an integer", path, key));
  bool flag = false;
  if (o["marked"].get_bool().get(flag) == simdjson::SUCCESS) s.marked = flag;
  if (o["several_models"].get_bool().get(flag) == simdjson::SUCCESS) s.several_models = flag;
  std::string_view model;
  if (o["gpu_model"].get_string().get(model) == simdjson::SUCCESS) s.gpu_model = std::string(model);
  f.trace_split = s;
  return {};
}

/// "window": the span the indicators cover and what chose it.
void write_window(io::JsonWriter& w, const Features& f) {
  w.line("  ").key("window").object().key("from").str(format_utc(f.from_ns)).key("to").str(format_utc(f.to_ns));
  w.key("from_ns").integer(f.from_ns).key("to_ns").integer(f.to_ns).key("wall_s").num(f.wall_s());
  if (f.to_exclusive) w.key("to_exclusive").boolean(true);  // [from, to): --to gave the end
  w.key("chosen_by").str(f.chosen_by);
  if (f.merged_from > 1) w.key("merged_from").integer(f.merged_from);
  w.text_if("logs_tz", f.logs_tz);  // the zone local times were read in; absent when none had any
  w.close();
}

void write_host(io::JsonWriter& w, const Features& f) {
  w.line("  ").key("host").object().key("name").str(f.host).text_if("basis", f.host_basis);
  write_input_gpus(w, f.input_gpus);
  write_energy_method(w, f.energy_method);
  write_set(w.key("indicators"), f.host_indicators, true, "    ");
  if (!f.host_partials.empty()) write_partials(w.key("partials"), f.host_partials);
  w.close();
}

void write_gpu(io::JsonWriter& w, const GpuFeatures& g) {
  w.object().key("gpu").integer(g.gpu).text_if("host", g.host);
  write_energy_method(w, g.energy_method);
  write_set(w.key("indicators"), g.indicators, false, "        ");
  write_gpu_state(w, g);
  w.close();
}

void write_gpus(io::JsonWriter& w, const std::vector<GpuFeatures>& gpus) {
  w.line("  ").key("gpus").array();
  for (const GpuFeatures& g : gpus) write_gpu(w.line("    ").item(), g);
  w.close("\n  ");
}

}  // namespace

std::string features_to_json(const Features& f) {
  std::string b;
  io::JsonWriter w(b);
  w.object().line("  ").key("schema").str(kFeaturesSchema).line("  ").key("version").integer(kFeaturesVersion);
  write_window(w, f);
  write_jobs(w, f.jobs);
  write_host(w, f);
  write_gpus(w, f.gpus);
  write_incidents(w, f.incidents);
  write_faults(w, f);
  write_profile(w, f.energy_profile);
  // Written by their own files, each with its separator: the writer's object goes on after them.
  detail::write_processes(b, f.processes);
  detail::write_trace_jobs(b, f.trace_jobs);
  write_trace_split(w, f.trace_split);
  write_checkpoints(w, f.checkpoints);
  write_trace_memory(w, f.trace_memory);
  w.close("\n");
  b.push_back('\n');
  return b;
}

bool is_features_document(std::string_view head) {
  const std::size_t at = head.find("\"schema\"");  // npos is never below 200
  const std::size_t schema = head.find(kFeaturesSchema);
  // An events stream names its records' "type" before any schema of ours.
  return at < 200 && schema != std::string_view::npos && head.find("\"type\"") > schema;
}

namespace {

Status read_set(simdjson::dom::object obj, IndicatorSet& out, const std::string& path) {
  for (auto [key, val] : obj) {
    simdjson::dom::object ind;
    if (val.get_object().get(ind) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: indicator '{}' is not an object", path, key));
    IndicatorValue v;
    simdjson::dom::element value;
    if (ind["value"].get(value) == simdjson::SUCCESS && !value.is_null()) {
      double d = 0;
      if (value.get_double().get(d) != simdjson::SUCCESS)
        return make_error(ErrorKind::schema, fmt::format("{}: indicator '{}' has a non-numeric value", path, key));
      v.value = d;
    } else {
      std::string_view reason;
      if (ind["reason"].get_string().get(reason) == simdjson::SUCCESS) v.reason = std::string(reason);
    }
    out[std::string(key)] = std::move(v);
  }
  return {};
}

// Optional: documents written before incidents were listed have none.
Status read_incidents(simdjson::dom::element doc, Features& f, const std::string& path) {
  simdjson::dom::array list;
  if (doc["incidents"].get_array().get(list) != simdjson::SUCCESS) return {};
  for (simdjson::dom::element e : list) {
    WindowIncident w;
    std::string_view kind, bucket;
    std::int64_t code = -1;
    if (e["ts_ns"].get_int64().get(w.ts_ns) != simdjson::SUCCESS ||
        e["kind"].get_string().get(kind) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: an incidents[] entry lacks ts_ns or kind", path));
    w.kind = std::string(kind);
    if (e["bucket"].get_string().get(bucket) == simdjson::SUCCESS) w.bucket = std::string(bucket);
    if (e["code"].get_int64().get(code) == simdjson::SUCCESS) w.code = static_cast<int>(code);
    double down = 0;
    if (e["downtime_s"].get_double().get(down) == simdjson::SUCCESS) w.downtime_s = down;
    // Bursts (documents before them list one incident per entry).
    std::int64_t count = 1;
    if (e["count"].get_int64().get(count) == simdjson::SUCCESS && count > 1) {
      w.count = count;
      if (e["last_ts_ns"].get_int64().get(w.last_ts_ns) != simdjson::SUCCESS || w.last_ts_ns < w.ts_ns)
        return make_error(
            ErrorKind::schema,
            fmt::format("{}: an incidents[] entry with a count lacks a last_ts_ns at or after its ts_ns", path));
    } else if (count < 1) {
      return make_error(ErrorKind::schema, fmt::format("{}: an incidents[] entry has a count below 1", path));
    }
    bool to_end = false;
    if (e["downtime_to_end"].get_bool().get(to_end) == simdjson::SUCCESS)
      w.downtime_to_end = to_end;
    else if (w.downtime_s)  // earlier documents: the incident's downtime reached the window end
      w.downtime_to_end = static_cast<double>(w.ts_ns) + *w.downtime_s * 1e9 >= static_cast<double>(f.to_ns);
    f.incidents.push_back(std::move(w));
  }
  return {};
}

Status read_jobs(simdjson::dom::element doc, Features& f, const std::string& path) {
  simdjson::dom::array list;
  if (doc["jobs"].get_array().get(list) != simdjson::SUCCESS) return {};
  for (simdjson::dom::element e : list) {
    JobRecord j;
    std::string_view id;
    if (e["id"].get_string().get(id) != simdjson::SUCCESS ||
        e["start_ns"].get_int64().get(j.start_ns) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: a jobs[] entry lacks id or start_ns", path));
    j.id = std::string(id);
    const auto text_of = [&e](const char* key, std::string& out) {
      std::string_view v;
      if (e[key].get_string().get(v) == simdjson::SUCCESS) out = std::string(v);
    };
    const auto int_of = [&e](const char* key, std::optional<std::int64_t>& out) {
      std::int64_t v = 0;
      if (e[key].get_int64().get(v) == simdjson::SUCCESS) out = v;
    };
    text_of("name", j.name);
    text_of("user", j.user);
    text_of("state", j.state);
    text_of("nodelist", j.nodelist);
    text_of("gpu_types", j.gpu_types);
    text_of("energy_source", j.energy_source);
    int_of("exit_code", j.exit_code);
    int_of("exit_signal", j.exit_signal);
    int_of("cancelled_by", j.cancelled_by);
    int_of("gpus", j.gpus);
    int_of("end_ns", j.end_ns);
    double energy = 0;
    if (e["energy_j"].get_double().get(energy) == simdjson::SUCCESS) j.energy_j = energy;
    simdjson::dom::array nodes;
    if (e["nodes"].get_array().get(nodes) == simdjson::SUCCESS)
      for (simdjson::dom::element n : nodes) {
        std::string_view name;
        if (n.get_string().get(name) != simdjson::SUCCESS)
          return make_error(ErrorKind::schema, fmt::format("{}: jobs[].nodes holds a non-string", path));
        j.nodes.emplace_back(name);
      }
    f.jobs.push_back(std::move(j));
  }
  return {};
}

Status read_fault_members(simdjson::dom::element e, WindowFault& w, const std::string& path) {
  simdjson::dom::array members;
  if (e["members"].get_array().get(members) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: a faults[] entry lacks members", path));
  for (simdjson::dom::element m : members) {
    FaultMember fm;
    std::string_view kind;
    std::int64_t code = -1;
    if (m["kind"].get_string().get(kind) != simdjson::SUCCESS ||
        m["count"].get_int64().get(fm.count) != simdjson::SUCCESS || fm.count < 1)
      return make_error(ErrorKind::schema,
                        fmt::format("{}: a faults[] member lacks kind or a count of 1 or more", path));
    fm.kind = std::string(kind);
    if (m["code"].get_int64().get(code) == simdjson::SUCCESS) fm.code = static_cast<int>(code);
    w.members.push_back(std::move(fm));
  }
  return {};
}

Status read_fault(simdjson::dom::element e, WindowFault& w, const std::string& path) {
  std::string_view device, host, bucket, cause;
  if (e["ts_ns"].get_int64().get(w.ts_ns) != simdjson::SUCCESS ||
      e["last_ts_ns"].get_int64().get(w.last_ts_ns) != simdjson::SUCCESS || w.last_ts_ns < w.ts_ns ||
      e["bucket"].get_string().get(bucket) != simdjson::SUCCESS ||
      e["count"].get_int64().get(w.count) != simdjson::SUCCESS)
    return make_error(
        ErrorKind::schema,
        fmt::format("{}: a faults[] entry lacks ts_ns, last_ts_ns (at or after ts_ns), bucket or count", path));
  w.bucket = std::string(bucket);
  // Documents written before causes existed: what the bucket alone tells (a reset, a reboot or
  // service is hardware; else unknown), priced as before on the local side.
  w.cause = std::string(fault_cause_name(e["cause"].get_string().get(cause) == simdjson::SUCCESS
                                             ? fault_cause_from_name(cause)
                                             : xid_cause({}, xid_bucket_from_name(w.bucket))));
  if (e["device"].get_string().get(device) == simdjson::SUCCESS) w.device = std::string(device);
  if (e["host"].get_string().get(host) == simdjson::SUCCESS) w.host = std::string(host);
  double down = 0;
  if (e["downtime_s"].get_double().get(down) == simdjson::SUCCESS) w.downtime_s = down;
  if (e["downtime_end_ns"].get_int64().get(w.downtime_end_ns) != simdjson::SUCCESS) w.downtime_end_ns = w.last_ts_ns;
  bool to_end = false;
  if (e["downtime_to_end"].get_bool().get(to_end) == simdjson::SUCCESS) w.downtime_to_end = to_end;
  return read_fault_members(e, w, path);
}

/// Documents written before faults existed: faults rebuilt from the bursts, host-wide (the
/// bursts name no GPU); a burst's downtime union is taken to end at its last incident plus
/// its downtime, so a joined fault's downtime is approximate (re-run extract for the exact one).
/// `joined`: some fault holds several bursts (of several GPUs, perhaps), so the rebuild is not
/// exact; when each burst stands alone it is.
std::vector<WindowFault> faults_from_bursts(const std::vector<WindowIncident>& incidents, double window_s,
                                            bool& joined) {
  std::vector<WindowFault> out;
  for (const WindowIncident& i : incidents) {
    if (i.kind != "xid" && i.kind != "gpu_lost") continue;
    WindowFault w;
    w.ts_ns = i.ts_ns;
    w.last_ts_ns = i.last();
    w.bucket = std::string(fault_bucket(i.kind, i.bucket));
    w.cause = std::string(fault_cause_name(fault_member_cause(i.kind, xid_cause({}, xid_bucket_from_name(w.bucket)))));
    w.count = i.count;
    w.members.push_back(FaultMember{i.kind, i.code, i.count});
    w.downtime_s = i.downtime_s;
    w.downtime_end_ns = i.last() + (i.downtime_s ? static_cast<std::int64_t>(*i.downtime_s * 1e9) : 0);
    w.downtime_to_end = i.downtime_to_end;
    out.push_back(std::move(w));
  }
  const std::size_t bursts = out.size();
  out = regroup_faults(std::move(out), window_s);
  joined = out.size() != bursts;
  std::erase_if(out, [](const WindowFault& w) { return w.bucket == "ignore"; });
  return out;
}

// Optional: documents written before faults existed have none (faults_from_bursts).
Status read_faults(simdjson::dom::element doc, Features& f, const std::string& path) {
  simdjson::dom::array list;
  if (doc["faults"].get_array().get(list) != simdjson::SUCCESS) {
    bool joined = false;
    f.faults = faults_from_bursts(f.incidents, f.fault_window_s, joined);
    f.faults_listed = !joined;
    return {};
  }
  if (doc["fault_window_s"].get_double().get(f.fault_window_s) != simdjson::SUCCESS || !(f.fault_window_s >= 0))
    return make_error(ErrorKind::schema, fmt::format("{}: faults[] without a fault_window_s of 0 or more", path));
  for (simdjson::dom::element e : list) {
    WindowFault w;
    GPUCOST_TRY(read_fault(e, w, path));
    f.faults.push_back(std::move(w));
  }
  return {};
}

// One run of consecutive minutes (also the whole profile of documents written before runs).
Status read_profile_run(simdjson::dom::object run, Features& f, const std::string& path) {
  std::int64_t minute = 0;
  simdjson::dom::array values;
  if (run["first_minute"].get_int64().get(minute) != simdjson::SUCCESS ||
      run["gpu_kwh"].get_array().get(values) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: energy_profile lacks first_minute or gpu_kwh", path));
  for (simdjson::dom::element v : values) {
    double d = 0;
    if (v.get_double().get(d) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: energy_profile.gpu_kwh holds a non-number", path));
    f.energy_profile.add_minute(minute++, d);
  }
  return {};
}

// Optional: documents written before the profile existed have none (flat tariffs need none).
Status read_profile(simdjson::dom::element doc, Features& f, const std::string& path) {
  simdjson::dom::object profile;
  if (doc["energy_profile"].get_object().get(profile) != simdjson::SUCCESS) return {};
  simdjson::dom::array runs;
  if (profile["runs"].get_array().get(runs) != simdjson::SUCCESS) return read_profile_run(profile, f, path);
  for (simdjson::dom::element r : runs) {
    simdjson::dom::object run;
    if (r.get_object().get(run) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: energy_profile.runs holds a non-object", path));
    if (Status st = read_profile_run(run, f, path); !st) return st;
  }
  return {};
}

// Optional: documents written before partials existed have none (merge refuses them).
Status read_partials(simdjson::dom::element parent, Partials& out, const std::string& path) {
  simdjson::dom::object obj;
  if (parent["partials"].get_object().get(obj) != simdjson::SUCCESS) return {};
  for (auto [key, val] : obj) {
    double d = 0;
    if (val.get_double().get(d) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: partial '{}' is not a number", path, key));
    out[std::string(key)] = d;
  }
  return {};
}

Status read_sample(simdjson::dom::element e, std::optional<Sample>& out, const std::string& path) {
  Sample s;
  if (e["ts_ns"].get_int64().get(s.ts_ns) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: an edge sample lacks ts_ns", path));
  const auto num = [&](const char* key) {
    double d = std::numeric_limits<double>::quiet_NaN();
    if (e[key].get_double().get(d) != simdjson::SUCCESS) d = std::numeric_limits<double>::quiet_NaN();
    return d;
  };
  const auto flt = [&](const char* key) { return static_cast<float>(num(key)); };
  const auto u8 = [&](const char* key) {
    const double d = num(key);
    return d > 0 && d < 256 ? static_cast<std::uint8_t>(d) : std::uint8_t{0};
  };
  s.power_w = num("power_w");
  s.util_pct = num("sm_pct");
  s.temp_c = num("temp_c");
  s.pclk_mhz = num("pclk_mhz");
  s.mem_temp_c = flt("mem_temp_c");
  s.mem_pct = flt("mem_pct");
  s.mclk_mhz = flt("mclk_mhz");
  s.fb_mib = flt("fb_mib");
  s.fb_total_mib = flt("fb_total_mib");
  s.enc_pct = flt("enc_pct");
  s.dec_pct = flt("dec_pct");
  s.rxpci_mb_s = flt("rxpci_mb_s");
  s.txpci_mb_s = flt("txpci_mb_s");
  s.power_limit_w = flt("power_limit_w");
  s.power_default_limit_w = flt("power_default_limit_w");
  s.pclk_max_mhz = flt("pclk_max_mhz");
  s.mclk_max_mhz = flt("mclk_max_mhz");
  s.throttle_mask = flt("throttle_mask");
  s.pcie_gen = u8("pcie_gen");
  s.pcie_gen_max = u8("pcie_gen_max");
  s.pcie_width = u8("pcie_width");
  s.pcie_width_max = u8("pcie_width_max");
  s.energy_mj = num("energy_mj");
  s.sm_active = flt("sm_active");
  s.sm_occupancy = flt("sm_occupancy");
  s.tensor_active = flt("tensor_active");
  s.dram_active = flt("dram_active");
  s.fp64_active = flt("fp64_active");
  s.fp32_active = flt("fp32_active");
  s.fp16_active = flt("fp16_active");
  s.nvlink_tx_mb_s = flt("nvlink_tx_mb_s");
  s.nvlink_rx_mb_s = flt("nvlink_rx_mb_s");
  out = s;
  return {};
}

// [[a, b], ...] into `out` (at most `cap` pairs); `index` reads a as a bucket index.
template <typename Pair>
Status read_pairs(simdjson::dom::element parent, const char* key, std::size_t cap, std::vector<Pair>& out,
                  const std::string& what) {
  simdjson::dom::array list;
  if (parent[key].get_array().get(list) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: '{}' is not an array", what, key));
  for (simdjson::dom::element e : list) {
    if (out.size() >= cap)
      return make_error(ErrorKind::schema, fmt::format("{}: '{}' holds more than {} entries", what, key, cap));
    simdjson::dom::array pair;
    double weight = 0;
    if (e.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
        pair.at(1).get_double().get(weight) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema,
                        fmt::format("{}: '{}' holds an entry that is not a [number, number] pair", what, key));
    if constexpr (std::is_same_v<typename Pair::first_type, double>) {
      double v = 0;
      if (pair.at(0).get_double().get(v) != simdjson::SUCCESS)
        return make_error(ErrorKind::schema, fmt::format("{}: '{}' holds a non-numeric value", what, key));
      out.emplace_back(v, weight);
    } else {
      std::int64_t index = 0;
      if (pair.at(0).get_int64().get(index) != simdjson::SUCCESS || index < -(1 << 30) || index > (1 << 30))
        return make_error(ErrorKind::schema,
                          fmt::format("{}: '{}' holds a bucket index that is not a small integer", what, key));
      out.emplace_back(static_cast<std::int32_t>(index), weight);
    }
  }
  return {};
}

Expected<detail::QuantileSketch> read_sketch(simdjson::dom::element e, const std::string& what) {
  using detail::QuantileSketch;
  if (!e.is_object()) return make_error(ErrorKind::schema, fmt::format("{}: not an object", what));
  QuantileSketch::State st;
  st.exact = e["exact"].error() == simdjson::SUCCESS;
  if (st.exact) {
    GPUCOST_TRY(read_pairs(e, "exact", QuantileSketch::kExactCap, st.values, what));
    return QuantileSketch::from_state(st, what);
  }
  double alpha = 0;
  if (e["alpha"].get_double().get(alpha) != simdjson::SUCCESS || alpha != QuantileSketch::kAlpha)
    return make_error(
        ErrorKind::schema,
        fmt::format("{}: neither exact values nor buckets of relative accuracy {}", what, QuantileSketch::kAlpha),
        "re-run `gpucost extract` with this version of gpucost");
  if (e["min"].get_double().get(st.min) != simdjson::SUCCESS ||
      e["max"].get_double().get(st.max) != simdjson::SUCCESS ||
      e["zero"].get_double().get(st.zero) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: min, max or zero is missing or not a number", what));
  const auto cap = static_cast<std::size_t>(QuantileSketch::kMaxBuckets);
  GPUCOST_TRY(read_pairs(e, "positive", cap, st.positive, what));
  GPUCOST_TRY(read_pairs(e, "negative", cap, st.negative, what));
  return QuantileSketch::from_state(st, what);
}

// Optional: documents written before the sketches existed have none (merge then reports the
// quantiles null). Names this gpucost does not know are left alone.
Status read_sketches(simdjson::dom::element gpu, GpuFeatures& g, const std::string& path) {
  simdjson::dom::element obj;
  if (gpu["sketches"].get(obj) != simdjson::SUCCESS) return {};
  if (!obj.is_object())
    return make_error(ErrorKind::schema, fmt::format("{}: GPU {}: sketches is not an object", path, g.gpu));
  auto s = std::make_shared<detail::GpuSketches>();
  const auto read = [&](const std::string& name, detail::QuantileSketch& into) -> Status {
    simdjson::dom::element e;
    if (obj[name].get(e) != simdjson::SUCCESS) return {};
    auto q = read_sketch(e, fmt::format("{}: GPU {}: sketch '{}'", path, g.gpu, name));
    if (!q) return q.error();
    into = std::move(*q);
    return {};
  };
  GPUCOST_TRY(read(kIntervalsName, s->intervals));
  for (std::size_t i = 0; i < detail::kQuantiledCount; ++i) {
    GPUCOST_TRY(read(kSketchNames[i], s->held[i]));
    GPUCOST_TRY(read(fmt::format("{}{}", kSketchNames[i], kPlainSuffix), s->plain[i]));
  }
  s->settle();
  g.sketches = std::move(s);
  return {};
}

/// A GPU's energy_method; a document written before the energy counter was used has none, and
/// its energy, when it has one, is the power integral.
std::string read_energy_method(simdjson::dom::element gpu, const IndicatorSet& indicators) {
  std::string_view method;
  if (gpu["energy_method"].get_string().get(method) == simdjson::SUCCESS) return std::string(method);
  return value_of(indicators, "energy_kwh") ? std::string(kEnergyByPower) : std::string();
}

Status read_edges(simdjson::dom::element gpu, GpuFeatures& g, const std::string& path) {
  simdjson::dom::element first, last;
  if (gpu["edges"]["first"].get(first) != simdjson::SUCCESS || gpu["edges"]["last"].get(last) != simdjson::SUCCESS)
    return {};
  GPUCOST_TRY(read_sample(first, g.first, path));
  return read_sample(last, g.last, path);
}

Status read_input_gpus(simdjson::dom::object host, InputGpus& out, const std::string& path) {
  simdjson::dom::object g;
  if (host["input_gpus"].get_object().get(g) != simdjson::SUCCESS) return {};  // none named, or an older document
  for (auto [key, list] : {std::pair{"telemetry", &out.telemetry}, std::pair{"traces", &out.traces},
                           std::pair{"log_names", &out.log_names}}) {
    simdjson::dom::array names;
    if (g[key].get_array().get(names) != simdjson::SUCCESS) continue;
    for (simdjson::dom::element n : names) {
      std::string_view name;
      if (n.get_string().get(name) != simdjson::SUCCESS)
        return make_error(ErrorKind::schema, fmt::format("{}: host.input_gpus.{} holds a non-string", path, key));
      Fingerprint::add(*list, name);
    }
  }
  std::int64_t count = 0;
  if (g["log_count"].get_int64().get(count) == simdjson::SUCCESS && count > 0 && count < 1'000'000)
    out.log_count = static_cast<int>(count);
  return {};
}

}  // namespace

Expected<Features> features_from_json(std::string_view text, const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text.data(), text.size()).get(doc) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: not valid JSON", path));
  std::string_view schema;
  std::int64_t version = 0;
  if (doc["schema"].get_string().get(schema) != simdjson::SUCCESS || schema != kFeaturesSchema)
    return make_error(ErrorKind::schema, fmt::format("{}: not a gpucost.features document", path));
  if (doc["version"].get_int64().get(version) != simdjson::SUCCESS || version < kOldestFeaturesVersion ||
      version > kFeaturesVersion)
    return make_error(ErrorKind::schema, fmt::format("{}: gpucost.features version {} is not supported", path, version),
                      "re-run `gpucost extract` with this version of gpucost");
  Features f;
  f.version = static_cast<int>(version);
  simdjson::dom::object window;
  if (doc["window"].get_object().get(window) != simdjson::SUCCESS ||
      window["from_ns"].get_int64().get(f.from_ns) != simdjson::SUCCESS ||
      window["to_ns"].get_int64().get(f.to_ns) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: window.from_ns/to_ns missing", path));
  std::string_view chosen, host;
  if (window["chosen_by"].get_string().get(chosen) == simdjson::SUCCESS) f.chosen_by = std::string(chosen);
  std::string_view logs_tz;
  if (window["logs_tz"].get_string().get(logs_tz) == simdjson::SUCCESS) f.logs_tz = std::string(logs_tz);
  bool exclusive = false;
  if (window["to_exclusive"].get_bool().get(exclusive) == simdjson::SUCCESS) f.to_exclusive = exclusive;
  simdjson::dom::object host_obj, host_ind;
  if (doc["host"].get_object().get(host_obj) != simdjson::SUCCESS ||
      host_obj["indicators"].get_object().get(host_ind) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: host.indicators missing", path));
  if (host_obj["name"].get_string().get(host) == simdjson::SUCCESS) f.host = std::string(host);
  std::string_view host_basis;
  if (host_obj["basis"].get_string().get(host_basis) == simdjson::SUCCESS) f.host_basis = std::string(host_basis);
  GPUCOST_TRY(read_input_gpus(host_obj, f.input_gpus, path));
  GPUCOST_TRY(read_set(host_ind, f.host_indicators, path));
  GPUCOST_TRY(read_partials(doc["host"], f.host_partials, path));
  std::int64_t merged = 1;
  if (window["merged_from"].get_int64().get(merged) == simdjson::SUCCESS) f.merged_from = static_cast<int>(merged);
  simdjson::dom::array gpus;
  if (doc["gpus"].get_array().get(gpus) != simdjson::SUCCESS)
    return make_error(ErrorKind::schema, fmt::format("{}: gpus missing", path));
  for (simdjson::dom::element g : gpus) {
    GpuFeatures gf;
    std::int64_t idx = 0;
    simdjson::dom::object ind;
    if (g["gpu"].get_int64().get(idx) != simdjson::SUCCESS ||
        g["indicators"].get_object().get(ind) != simdjson::SUCCESS)
      return make_error(ErrorKind::schema, fmt::format("{}: a gpus[] entry lacks gpu or indicators", path));
    gf.gpu = static_cast<int>(idx);
    GPUCOST_TRY(read_set(ind, gf.indicators, path));
    std::string_view gpu_host;
    if (g["host"].get_string().get(gpu_host) == simdjson::SUCCESS) gf.host = std::string(gpu_host);
    gf.energy_method = read_energy_method(g, gf.indicators);
    GPUCOST_TRY(read_partials(g, gf.partials, path));
    GPUCOST_TRY(read_edges(g, gf, path));
    GPUCOST_TRY(read_sketches(g, gf, path));
    f.gpus.push_back(std::move(gf));
  }
  std::string_view host_method;
  if (host_obj["energy_method"].get_string().get(host_method) == simdjson::SUCCESS)
    f.energy_method = std::string(host_method);
  else  // written before the counter: the GPUs' power integrals
    for (const GpuFeatures& g : f.gpus)
      if (!g.energy_method.empty()) f.energy_method = g.energy_method;
  GPUCOST_TRY(read_jobs(doc, f, path));
  GPUCOST_TRY(read_incidents(doc, f, path));
  GPUCOST_TRY(read_faults(doc, f, path));
  GPUCOST_TRY(read_profile(doc, f, path));
  GPUCOST_TRY(detail::read_processes(doc, f.processes, path));
  GPUCOST_TRY(detail::read_trace_jobs(doc, f.trace_jobs, path));
  GPUCOST_TRY(read_trace_split(doc, f, path));
  read_checkpoints(doc, f);
  read_trace_memory(doc, f);
  return f;
}

Expected<Features> read_features_file(const std::string& path) {
  auto reader = io::LineReader::open(path);
  if (!reader) return reader.error();
  const std::string name = path == "-" ? "<stdin>" : path;
  if (!is_features_document((*reader)->peek(4096)))
    return make_error(ErrorKind::usage, fmt::format("{}: not a gpucost.features document", name),
                      "merge reads the output of `gpucost extract`");
  std::string text;
  io::Line line;
  while ((*reader)->next(line)) {
    text.append(line.text);
    text.push_back('\n');
  }
  return features_from_json(text, name);
}

}  // namespace gpucost::extract

// Prometheus HTTP API JSON (docs/formats.md, "Prometheus query_range JSON"): what
//   curl 'http://prom:9090/api/v1/query_range?query=DCGM_FI_DEV_POWER_USAGE&start=...&end=...&step=15s'
// returns, one document per query, possibly several concatenated or one per line (JSON Lines):
//   {"status":"success","data":{"resultType":"matrix","result":[
//     {"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","UUID":"GPU-...","Hostname":"node01",...},
//      "values":[[1718197338.011,"312.5"],...]}]}}
// A series is one metric of one GPU over time; an event is one GPU at one time with all its
// metrics. So every series is read first, its points filed under (host, GPU) and time, and the
// samples are emitted at the end in time order. Metric names are dcgm-exporter's (DCGM_FI_*) and
// nvidia_gpu_exporter's (nvidia_smi_*); any other series is ignored and counted by name.
#include "prep/kernel/kernel_events.hpp"
#include "prep/parsers.hpp"

#include <gpucost/core/fault_cause.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace gpucost::prep {

namespace {

/// The whole input is held (the join needs every series before the first sample is complete):
/// beyond this the rest is not read and the summary says so.
constexpr std::size_t kMaxInputBytes = std::size_t{1} << 30;

enum class Role : std::uint8_t { metric, field, xid, throttle, info };

struct PromMetric {
  std::string_view name;
  Role role;
  Metric metric = Metric::count_;
  std::string_view field;  ///< Role::field: the event's numeric field (dcgmi's short name where it has one)
  double divisor = 1.0;    ///< exporter unit -> gpucost unit (Hz -> MHz: 1e6; bytes -> MiB: 1048576)
  double factor = 1.0;     ///< ratio 0-1 -> % : 100
  int priority = 0;        ///< when several series feed one metric, the lowest wins
};

constexpr double kMHz = 1e6, kMiB = 1048576.0, kPct = 100.0;

constexpr PromMetric gauge(std::string_view name, Metric metric, double divisor = 1, double factor = 1,
                           int priority = 0) {
  return PromMetric{name, Role::metric, metric, {}, divisor, factor, priority};
}
constexpr PromMetric field(std::string_view name, std::string_view key) {
  return PromMetric{name, Role::field, Metric::count_, key, 1, 1, 0};
}
constexpr PromMetric special(std::string_view name, Role role) {
  return PromMetric{name, role, Metric::count_, {}, 1, 1, 0};
}

// DCGM field ids in the comments (dcgm_fields.h); units as dcgm-exporter's default-counters.csv says.
constexpr PromMetric kMetrics[] = {
    gauge("DCGM_FI_DEV_POWER_USAGE", Metric::power_w),                         // 155, W
    gauge("DCGM_FI_DEV_POWER_USAGE_INSTANT", Metric::power_w, 1, 1, 1),        // 157, W
    gauge("DCGM_FI_DEV_GPU_TEMP", Metric::temp_c),                             // 150, C
    gauge("DCGM_FI_DEV_MEMORY_TEMP", Metric::mem_temp_c),                      // 140, C
    gauge("DCGM_FI_DEV_GPU_UTIL", Metric::sm_pct),                             // 203, % (= utilization.gpu)
    gauge("DCGM_FI_DEV_MEM_COPY_UTIL", Metric::mem_pct),                       // 204, %
    gauge("DCGM_FI_DEV_ENC_UTIL", Metric::enc_pct),                            // 206, %
    gauge("DCGM_FI_DEV_DEC_UTIL", Metric::dec_pct),                            // 207, %
    gauge("DCGM_FI_DEV_SM_CLOCK", Metric::pclk_mhz),                           // 100, MHz
    gauge("DCGM_FI_DEV_MEM_CLOCK", Metric::mclk_mhz),                          // 101, MHz
    gauge("DCGM_FI_DEV_MAX_SM_CLOCK", Metric::pclk_max_mhz),                   // 110, MHz
    gauge("DCGM_FI_DEV_MAX_MEM_CLOCK", Metric::mclk_max_mhz),                  // 111, MHz
    gauge("DCGM_FI_DEV_FB_USED", Metric::fb_mib),                              // 252, MiB
    gauge("DCGM_FI_DEV_FB_TOTAL", Metric::fb_total_mib),                       // 250, MiB
    field("DCGM_FI_DEV_FB_FREE", "fbfre"),                                     // 251, MiB
    gauge("DCGM_FI_DEV_FAN_SPEED", Metric::fan_pct),                           // 191, %
    gauge("DCGM_FI_DEV_PSTATE", Metric::pstate),                               // 190
    gauge("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", Metric::power_limit_w),          // 164, W
    gauge("DCGM_FI_DEV_POWER_MGMT_LIMIT", Metric::power_limit_w, 1, 1, 1),     // 160, W
    gauge("DCGM_FI_DEV_POWER_MGMT_LIMIT_DEF", Metric::power_default_limit_w),  // 163, W
    gauge("DCGM_FI_DEV_POWER_MGMT_LIMIT_MAX", Metric::power_max_limit_w),      // 162, W
    gauge("DCGM_FI_DEV_PCIE_LINK_GEN", Metric::pcie_gen),                      // 237
    gauge("DCGM_FI_DEV_PCIE_MAX_LINK_GEN", Metric::pcie_gen_max),              // 235
    gauge("DCGM_FI_DEV_PCIE_LINK_WIDTH", Metric::pcie_width),                  // 238
    gauge("DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", Metric::pcie_width_max),          // 236
    special("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", Role::throttle),             // 112, NVML bit mask
    special("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", Role::throttle),               // 112 (DCGM 3.3+ name)
    special("DCGM_FI_DEV_XID_ERRORS", Role::xid),                              // 230, last Xid code
    field("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "totec"),                    // 156, mJ since boot
    field("DCGM_FI_DEV_POWER_VIOLATION", "pviol"),                             // 240, us
    field("DCGM_FI_DEV_THERMAL_VIOLATION", "tviol"),                           // 241, us
    field("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gract"),                           // 1001, ratio 0-1
    field("DCGM_FI_PROF_SM_ACTIVE", "smact"),                                  // 1002
    field("DCGM_FI_PROF_SM_OCCUPANCY", "smocc"),                               // 1003
    field("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "tenso"),                         // 1004
    field("DCGM_FI_PROF_DRAM_ACTIVE", "drama"),                                // 1005
    field("DCGM_FI_PROF_PIPE_FP64_ACTIVE", "fp64a"),                           // 1006
    field("DCGM_FI_PROF_PIPE_FP32_ACTIVE", "fp32a"),                           // 1007
    field("DCGM_FI_PROF_PIPE_FP16_ACTIVE", "fp16a"),                           // 1008
    field("DCGM_FI_PROF_PCIE_TX_BYTES", "pcitx"),                              // 1009, bytes/s
    field("DCGM_FI_PROF_PCIE_RX_BYTES", "pcirx"),                              // 1010
    field("DCGM_FI_PROF_NVLINK_TX_BYTES", "nvltx"),                            // 1011
    field("DCGM_FI_PROF_NVLINK_RX_BYTES", "nvlrx"),                            // 1012
    // nvidia_gpu_exporter: nvidia-smi --query-gpu properties in base units (Hz, bytes, ratios).
    gauge("nvidia_smi_power_draw_watts", Metric::power_w),
    gauge("nvidia_smi_power_draw_average_watts", Metric::power_w, 1, 1, 1),
    gauge("nvidia_smi_power_draw_instant_watts", Metric::power_w, 1, 1, 2),
    gauge("nvidia_smi_temperature_gpu", Metric::temp_c), gauge("nvidia_smi_temperature_memory", Metric::mem_temp_c),
    gauge("nvidia_smi_utilization_gpu_ratio", Metric::sm_pct, 1, kPct),
    gauge("nvidia_smi_utilization_memory_ratio", Metric::mem_pct, 1, kPct),
    gauge("nvidia_smi_utilization_encoder_ratio", Metric::enc_pct, 1, kPct),
    gauge("nvidia_smi_utilization_decoder_ratio", Metric::dec_pct, 1, kPct),
    gauge("nvidia_smi_utilization_jpeg_ratio", Metric::jpg_pct, 1, kPct),
    gauge("nvidia_smi_utilization_ofa_ratio", Metric::ofa_pct, 1, kPct),
    gauge("nvidia_smi_clocks_current_sm_clock_hz", Metric::pclk_mhz, kMHz),
    gauge("nvidia_smi_clocks_current_graphics_clock_hz", Metric::pclk_mhz, kMHz, 1, 1),
    gauge("nvidia_smi_clocks_current_memory_clock_hz", Metric::mclk_mhz, kMHz),
    gauge("nvidia_smi_clocks_max_sm_clock_hz", Metric::pclk_max_mhz, kMHz),
    gauge("nvidia_smi_clocks_max_graphics_clock_hz", Metric::pclk_max_mhz, kMHz, 1, 1),
    gauge("nvidia_smi_clocks_max_memory_clock_hz", Metric::mclk_max_mhz, kMHz),
    gauge("nvidia_smi_memory_used_bytes", Metric::fb_mib, kMiB),
    gauge("nvidia_smi_memory_total_bytes", Metric::fb_total_mib, kMiB),
    gauge("nvidia_smi_fan_speed_ratio", Metric::fan_pct, 1, kPct), gauge("nvidia_smi_pstate", Metric::pstate),
    gauge("nvidia_smi_enforced_power_limit_watts", Metric::power_limit_w),
    gauge("nvidia_smi_power_limit_watts", Metric::power_limit_w, 1, 1, 1),
    gauge("nvidia_smi_power_default_limit_watts", Metric::power_default_limit_w),
    gauge("nvidia_smi_power_max_limit_watts", Metric::power_max_limit_w),
    gauge("nvidia_smi_pcie_link_gen_current", Metric::pcie_gen),
    gauge("nvidia_smi_pcie_link_gen_max", Metric::pcie_gen_max),
    gauge("nvidia_smi_pcie_link_width_current", Metric::pcie_width),
    gauge("nvidia_smi_pcie_link_width_max", Metric::pcie_width_max),
    special("nvidia_smi_clocks_event_reasons_active", Role::throttle),
    special("nvidia_smi_clocks_throttle_reasons_active", Role::throttle),  // before nvidia-smi renamed it
    field("nvidia_smi_energy_joules_total", "energy_j"),                   // NVML backend, J
    special("nvidia_smi_gpu_info", Role::info),  // identity labels (index, name, driver_version) by uuid
};

const PromMetric* find_metric(std::string_view name) {
  for (const PromMetric& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::size_t metric_slot(const PromMetric* m) { return static_cast<std::size_t>(m - std::begin(kMetrics)); }

/// One value of one series at one time.
struct Point {
  std::uint16_t slot;  ///< index in kMetrics
  double value;
};

/// One GPU at one time: the points of every series that has one there.
struct Sample {
  std::vector<Point> points;
  std::int32_t workload = -1;  ///< index in Parser::m_workloads: the pod/namespace/container labels
};

/// What the labels say of a GPU.
struct GpuIdentity {
  std::string host, uuid, model, driver, bus_id;
  std::int32_t index = -1;
};

struct GpuSeries {
  GpuIdentity id;
  std::map<std::int64_t, Sample> samples;  ///< by time, ns since the epoch
};

struct Workload {
  std::string pod, ns, container;
  bool operator==(const Workload&) const = default;
};

std::string_view label(simdjson::dom::object labels, std::string_view key) {
  std::string_view v;
  if (labels[key].get_string().get(v) != simdjson::SUCCESS) return {};
  return v;
}

/// "node01:9400" -> "node01" (the scrape target's port is not the host's name).
std::string_view host_of_instance(std::string_view instance) {
  if (instance.starts_with('[')) return instance.substr(1, instance.find(']') - 1);  // [ipv6]:port
  const std::size_t colon = instance.rfind(':');
  if (colon != std::string_view::npos && instance.find(':') == colon) return instance.substr(0, colon);
  return instance;
}

/// A value of the series as gpucost's unit: ratios to %, Hz to MHz, bytes to MiB. Rounded to
/// 1e-9 so that 0.42 x 100 reads 42, not 42.00000000000001.
double convert(const PromMetric& m, double v) {
  if (m.divisor == 1.0 && m.factor == 1.0) return v;
  const double x = v * m.factor / m.divisor;
  return std::round(x * 1e9) / 1e9;
}

std::string compact_head(std::string_view head, std::size_t n) {
  std::string out;
  for (const char c : head.substr(0, 4096)) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    out.push_back(c);
    if (out.size() >= n) break;
  }
  return out;
}

class PrometheusJsonParser final : public LineParser {
 public:
  // Read whole (FormatTraits::whole_document): parse() is never called.
  LineResult parse(std::string_view /*line*/, ParseContext& /*ctx*/) override { return LineResult::ignored; }
  void parse_whole(io::LineReader& reader, ParseContext& ctx) override {
    ctx.stats.time_basis = TimeBasis::absolute;
    ctx.stats.clock = "absolute: Prometheus timestamps (Unix seconds, UTC)";
    std::string text;
    if (!read_all(reader, text, ctx)) return;
    parse_documents(text, ctx);
    resolve_identities(ctx);
    emit_all(ctx);
    summarise(ctx);
  }

 private:
  // ---- reading --------------------------------------------------------------------------

  static bool read_all(io::LineReader& reader, std::string& text, ParseContext& ctx) {
    // Reads grow with the input from 64 KiB: a short answer (and each fuzz run) does not fill a
    // megabyte it never uses.
    std::size_t size = 0;
    for (;;) {
      if (size >= kMaxInputBytes) {
        ctx.stats.truncated = fmt::format("input larger than {} MiB: the rest is not read", kMaxInputBytes >> 20);
        break;
      }
      const std::size_t chunk = std::max<std::size_t>(std::size_t{64} << 10, size);
      text.resize(size + chunk);
      const std::size_t n = reader.read_bytes(text.data() + size, std::min(chunk, kMaxInputBytes - size));
      if (n == 0) break;
      size += n;
    }
    text.resize(size);
    text.reserve(size + simdjson::SIMDJSON_PADDING);
    return size > 0;
  }

  void parse_documents(const std::string& text, ParseContext& ctx) {
    simdjson::dom::parser parser;
    // One batch holds the whole input, so that any document fits; its buffers are sized by it.
    const std::size_t batch = std::max<std::size_t>(text.size(), 4096);
    simdjson::dom::document_stream docs;
    if (parser.parse_many(text.data(), text.size(), batch).get(docs) != simdjson::SUCCESS) {
      count_bad_document(ctx, 1, "not JSON");
      return;
    }
    std::size_t line_pos = 0;
    std::uint64_t line = 1;
    for (auto it = docs.begin(); it != docs.end(); ++it) {
      const std::size_t at = std::min(it.current_index(), text.size());
      line += static_cast<std::uint64_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(line_pos),
                                                    text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
      line_pos = at;
      simdjson::dom::element doc;
      if ((*it).get(doc) != simdjson::SUCCESS) {
        count_bad_document(ctx, line, "not JSON (a cut or broken document)");
        break;  // the stream cannot resync after a broken document
      }
      parse_document(doc, line, ctx);
    }
    if (docs.truncated_bytes() > 0) count_bad_document(ctx, line, "the input ends inside a document");
  }

  void count_bad_document(ParseContext& ctx, std::uint64_t line, std::string_view why) {
    ++ctx.stats.lines;
    ctx.settle(LineResult::malformed, 1, line, why);
  }

  void parse_document(simdjson::dom::element doc, std::uint64_t line, ParseContext& ctx) {
    std::string_view status;
    if (doc["status"].get_string().get(status) != simdjson::SUCCESS)
      return count_bad_document(ctx, line, "not a Prometheus API response (no \"status\")");
    if (status != "success") {
      std::string_view error;
      if (doc["error"].get_string().get(error) != simdjson::SUCCESS) error = {};
      ctx.stats.warnings.push_back(
          fmt::format("{}:{}: Prometheus answered with an error: {}", ctx.stats.path, line, error));
      return count_bad_document(ctx, line, "a Prometheus error response instead of data");
    }
    std::string_view type;
    simdjson::dom::array result;
    if (doc["data"]["resultType"].get_string().get(type) != simdjson::SUCCESS ||
        doc["data"]["result"].get_array().get(result) != simdjson::SUCCESS)
      return count_bad_document(ctx, line, "no data.resultType and data.result");
    if (type != "matrix" && type != "vector")
      return count_bad_document(ctx, line, "a scalar or string result: gpucost reads series (matrix, vector)");
    std::size_t n = 0;
    for (simdjson::dom::element series : result) parse_series(series, type == "matrix", line, ++n, ctx);
  }

  // ---- one series -------------------------------------------------------------------------

  void parse_series(simdjson::dom::element series, bool matrix, std::uint64_t line, std::size_t n, ParseContext& ctx) {
    ++ctx.stats.lines;
    simdjson::dom::object labels;
    std::string_view name;
    if (series["metric"].get_object().get(labels) != simdjson::SUCCESS)
      return bad_series(ctx, line, n, "", "no \"metric\" object");
    if (labels["__name__"].get_string().get(name) != simdjson::SUCCESS) name = {};
    const PromMetric* m = find_metric(name);
    if (m == nullptr) {
      ++m_ignored_names[name.empty() ? std::string("(no __name__)") : std::string(name)];
      return ctx.settle(LineResult::ignored, 1);
    }
    if (!label(labels, "GPU_I_ID").empty()) {  // MIG instances: not joined to their GPU yet
      ++m_ignored_names[fmt::format("{} (MIG instance)", name)];
      return ctx.settle(LineResult::ignored, 1);
    }
    const std::string_view host =
        !label(labels, "Hostname").empty() ? label(labels, "Hostname") : host_of_instance(label(labels, "instance"));
    if (m->role == Role::info) return note_info(labels, host, ctx);
    GpuSeries* gpu = gpu_of(labels, host);
    if (gpu == nullptr) return bad_series(ctx, line, n, name, "no gpu, UUID or uuid label: which GPU is it?");
    const std::int32_t workload = workload_of(labels);
    simdjson::dom::array values;
    simdjson::dom::element single;
    if (matrix ? series["values"].get_array().get(values) != simdjson::SUCCESS
               : series["value"].get(single) != simdjson::SUCCESS)
      return bad_series(ctx, line, n, name, matrix ? "no \"values\" array" : "no \"value\"");
    std::string_view why;
    if (matrix) {
      for (simdjson::dom::element v : values)
        if (!add_point(*gpu, *m, v, workload, why)) break;
    } else {
      add_point(*gpu, *m, single, workload, why);
    }
    if (!why.empty()) return bad_series(ctx, line, n, name, why);
    ctx.settle(LineResult::event, 1);
  }

  void bad_series(ParseContext& ctx, std::uint64_t line, std::size_t n, std::string_view name, std::string_view why) {
    ctx.reason_buf = fmt::format("series {} of the document: {}", n, why);
    ctx.settle(LineResult::malformed, 1, line, ctx.reason_buf, name);
  }

  // A point [unix seconds, "value"]. "NaN" and "+Inf"/"-Inf" (a failed read, a stale division)
  // are no value: counted, not a sample. False, with `why`, when the point is not of that shape.
  bool add_point(GpuSeries& gpu, const PromMetric& m, simdjson::dom::element point, std::int32_t workload,
                 std::string_view& why) {
    simdjson::dom::array pair;
    double seconds = 0;
    std::string_view text;
    if (point.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
        pair.at(0).get_double().get(seconds) != simdjson::SUCCESS ||
        pair.at(1).get_string().get(text) != simdjson::SUCCESS) {
      why = "a point is not [unix_seconds, \"value\"]";
      return false;
    }
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 4e9) {
      why = "a point's time is not Unix seconds";
      return false;
    }
    double v = 0;
    bool json = false;
    if (!text::parse_number(text, v, json) || !std::isfinite(v)) {
      const bool special = text == "NaN" || text == "+Inf" || text == "-Inf" || text == "Inf";
      if (!special) {
        why = "a point's value is not a number";
        return false;
      }
      ++m_non_finite;
      return true;
    }
    const std::int64_t ts_ns = std::llround(seconds * 1e3) * 1'000'000;  // Prometheus keeps ms
    Sample& s = gpu.samples[ts_ns];
    const auto slot = static_cast<std::uint16_t>(metric_slot(&m));
    for (const Point& p : s.points) {
      if (p.slot == slot) {
        ++m_duplicates;  // the same series twice (overlapping documents, two Prometheus replicas)
        return true;
      }
    }
    s.points.push_back(Point{slot, convert(m, v)});
    if (workload >= 0) s.workload = workload;
    return true;
  }

  // ---- GPUs and their identities ------------------------------------------------------------

  GpuSeries* gpu_of(simdjson::dom::object labels, std::string_view host) {
    const std::string_view index = label(labels, "gpu");
    std::string_view uuid = label(labels, "UUID");
    if (uuid.empty()) uuid = label(labels, "uuid");
    if (index.empty() && uuid.empty()) return nullptr;
    std::string key = fmt::format("{}\x1f{}", host, !index.empty() ? index : uuid);
    auto [it, fresh] = m_gpus.try_emplace(std::move(key));
    GpuIdentity& id = it->second.id;
    if (fresh) {
      id.host = std::string(host);
      const auto i = text::parse_int(index);
      id.index = i && *i >= 0 && *i < 1'000'000 ? static_cast<std::int32_t>(*i) : -1;
      m_order.push_back(&it->second);
    }
    if (id.uuid.empty()) id.uuid = std::string(uuid);
    if (id.model.empty()) id.model = std::string(label(labels, "modelName"));
    if (id.driver.empty()) id.driver = std::string(label(labels, "DCGM_FI_DRIVER_VERSION"));
    if (id.bus_id.empty()) id.bus_id = std::string(label(labels, "pci_bus_id"));
    return &it->second;
  }

  // nvidia_smi_gpu_info{uuid, index, name, driver_version, pci_bus_id} 1: the identity of the
  // GPU that the other nvidia_gpu_exporter series name by uuid alone.
  void note_info(simdjson::dom::object labels, std::string_view host, ParseContext& ctx) {
    GpuIdentity id;
    id.host = std::string(host);
    id.uuid = std::string(label(labels, "uuid"));
    id.model = std::string(label(labels, "name"));
    id.driver = std::string(label(labels, "driver_version"));
    id.bus_id = std::string(label(labels, "pci_bus_id"));
    const auto i = text::parse_int(label(labels, "index"));
    id.index = i && *i >= 0 && *i < 1'000'000 ? static_cast<std::int32_t>(*i) : -1;
    m_infos.push_back(std::move(id));
    ctx.settle(LineResult::event, 1);
  }

  std::int32_t workload_of(simdjson::dom::object labels) {
    Workload w{std::string(label(labels, "pod")), std::string(label(labels, "namespace")),
               std::string(label(labels, "container"))};
    if (w.pod.empty()) return -1;
    const auto it = std::find(m_workloads.begin(), m_workloads.end(), w);
    if (it != m_workloads.end()) return static_cast<std::int32_t>(it - m_workloads.begin());
    m_workloads.push_back(std::move(w));
    return static_cast<std::int32_t>(m_workloads.size() - 1);
  }

  // Fills what the series' own labels lacked from nvidia_smi_gpu_info; a GPU without an index
  // gets the next free number on its host, in order of first appearance.
  void resolve_identities(ParseContext& ctx) {
    for (GpuSeries* g : m_order) {
      for (const GpuIdentity& info : m_infos) {
        if (info.uuid != g->id.uuid || info.host != g->id.host) continue;
        if (g->id.index < 0) g->id.index = info.index;
        if (g->id.model.empty()) g->id.model = info.model;
        if (g->id.driver.empty()) g->id.driver = info.driver;
        if (g->id.bus_id.empty()) g->id.bus_id = info.bus_id;
      }
    }
    std::map<std::string, std::int32_t> next_free;
    for (const GpuSeries* g : m_order)
      if (g->id.index >= 0) next_free[g->id.host] = std::max(next_free[g->id.host], g->id.index + 1);
    bool numbered = false;
    for (GpuSeries* g : m_order) {
      if (g->id.index >= 0) continue;
      g->id.index = next_free[g->id.host]++;
      numbered = true;
    }
    if (numbered)
      add_note(ctx.stats,
               "some GPUs have no index label (gpu) nor nvidia_smi_gpu_info: numbered in order of first "
               "appearance");
    for (const GpuSeries* g : m_order) {
      Fingerprint::add(ctx.stats.fingerprint.gpus, g->id.model);  // the model prices the speed ratio
      Fingerprint::add(ctx.stats.fingerprint.drivers, g->id.driver);
    }
    ctx.stats.fingerprint.gpu_count = std::max<std::uint64_t>(ctx.stats.fingerprint.gpu_count, m_order.size());
  }

  // ---- events -----------------------------------------------------------------------------

  // Every GPU's samples merged in time order (then host, then GPU index), so that the stream is
  // sorted as a live log would be.
  void emit_all(ParseContext& ctx) {
    std::sort(m_order.begin(), m_order.end(), [](const GpuSeries* a, const GpuSeries* b) {
      return std::tie(a->id.host, a->id.index) < std::tie(b->id.host, b->id.index);
    });
    using Cursor = std::pair<std::map<std::int64_t, Sample>::const_iterator, std::size_t>;
    const auto later = [](const Cursor& a, const Cursor& b) {
      return a.first->first != b.first->first ? a.first->first > b.first->first : a.second > b.second;
    };
    std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> next(later);
    for (std::size_t i = 0; i < m_order.size(); ++i)
      if (!m_order[i]->samples.empty()) next.emplace(m_order[i]->samples.begin(), i);
    m_last_xid.assign(m_order.size(), -1);
    while (!next.empty()) {
      auto [it, i] = next.top();
      next.pop();
      emit_sample(*m_order[i], it->first, it->second, i, ctx);
      if (++it != m_order[i]->samples.end()) next.emplace(it, i);
    }
  }

  // The context's event, reset to a `kind` event of `gpu` at `ts_ns`.
  static Event& begin_event(const GpuSeries& gpu, std::string_view kind, std::int64_t ts_ns, ParseContext& ctx) {
    Event& ev = ctx.event;
    ev.reset();
    ev.source = "prometheus";
    ev.kind = kind;
    ev.ts_ns = ts_ns;
    ev.gpu = gpu.id.index;
    ev.host = gpu.id.host;
    return ev;
  }

  void emit_sample(const GpuSeries& gpu, std::int64_t ts_ns, const Sample& s, std::size_t gpu_no, ParseContext& ctx) {
    Event& ev = begin_event(gpu, "sample", ts_ns, ctx);
    std::array<int, kMetricCount> priority{};
    double xid = -1, fb_free = -1;
    for (const Point& p : s.points) {
      const PromMetric& m = kMetrics[p.slot];
      switch (m.role) {
        case Role::metric: {
          const auto k = static_cast<std::size_t>(m.metric);
          if (ev.has(m.metric) && priority[k] <= m.priority) break;
          priority[k] = m.priority;
          ev.set(m.metric, p.value);
          break;
        }
        case Role::field:
          ev.fields.push_back(Field{m.field, ev.own(fmt::format("{}", p.value)), true, false});
          if (m.field == "fbfre") fb_free = p.value;
          break;
        case Role::throttle: ev.set(Metric::throttle_mask, p.value); break;
        case Role::xid: xid = p.value; break;
        case Role::info: break;
      }
    }
    // DCGM's default counters have FB_USED and FB_FREE but no FB_TOTAL: their sum is the memory
    // the GPU offers (total less the driver's reserve), so that extract's free = total - used holds.
    if (!ev.has(Metric::fb_total_mib) && ev.has(Metric::fb_mib) && fb_free >= 0)
      ev.set(Metric::fb_total_mib, ev.get(Metric::fb_mib) + fb_free);
    add_identity(gpu.id, s.workload, ev);
    if (xid >= 0) ev.fields.push_back(Field{"xider", ev.own(fmt::format("{}", xid)), true, false});
    ctx.emit();
    if (xid >= 0) note_xid(gpu, ts_ns, xid, gpu_no, ctx);
  }

  void add_identity(const GpuIdentity& id, std::int32_t workload, Event& ev) const {
    if (!id.uuid.empty()) ev.add_text("uuid", id.uuid);
    if (!id.model.empty()) ev.add_text("name", id.model);
    if (!id.bus_id.empty()) ev.add_text("pci_bus_id", id.bus_id);
    if (workload < 0) return;
    const Workload& w = m_workloads[static_cast<std::size_t>(workload)];
    ev.add_text("pod", w.pod);
    if (!w.ns.empty()) ev.add_text("namespace", w.ns);
    if (!w.container.empty()) ev.add_text("container", w.container);
  }

  // DCGM_FI_DEV_XID_ERRORS holds the last Xid code: a change to a non-zero code is a new Xid.
  // The first value of a GPU is not one: a code there may be from before the range.
  void note_xid(const GpuSeries& gpu, std::int64_t ts_ns, double value, std::size_t gpu_no, ParseContext& ctx) {
    const auto code = static_cast<std::int64_t>(value);
    const std::int64_t before = m_last_xid[gpu_no];
    m_last_xid[gpu_no] = code;
    if (before < 0) {
      if (code != 0)
        add_note(ctx.stats, fmt::format("GPU {} of {}: Xid {} already reported at the start of the range (not "
                                        "counted: it may be older)",
                                        gpu.id.index, gpu.id.host, code));
      return;
    }
    if (code == 0 || code == before) return;
    Event& ev = begin_event(gpu, "xid", ts_ns, ctx);
    ev.add_number("code", code);
    const XidInfo* info = find_xid(static_cast<int>(code));
    if (info != nullptr) ev.add_text("xid_name", info->name);
    const std::string_view bucket = info != nullptr ? info->bucket : std::string_view("unknown");
    ev.add_text("bucket", bucket);
    ev.add_text("cause", fault_cause_name(xid_cause(info != nullptr ? info->causes : std::string_view(),
                                                    xid_bucket_from_name(bucket))));
    ev.add_text("message", "DCGM_FI_DEV_XID_ERRORS changed to this code");
    ctx.emit();
  }

  void summarise(ParseContext& ctx) const {
    if (!m_ignored_names.empty()) {
      std::string list;
      for (const auto& [name, count] : m_ignored_names)
        list += fmt::format("{}{} x{}", list.empty() ? "" : ", ", name, count);
      add_note(ctx.stats, "series ignored (metrics gpucost does not read): " + list);
    }
    if (m_non_finite > 0)
      add_note(ctx.stats, fmt::format("{} NaN/Inf values skipped (no sample from those series there)", m_non_finite));
    if (m_duplicates > 0)
      add_note(ctx.stats, fmt::format("{} points given twice for one series and time: the first kept", m_duplicates));
  }

  std::map<std::string, GpuSeries> m_gpus;  ///< by host and gpu label (or uuid)
  std::vector<GpuSeries*> m_order;          ///< in order of first appearance, sorted before emitting
  std::vector<GpuIdentity> m_infos;
  std::vector<Workload> m_workloads;
  std::map<std::string, std::uint64_t> m_ignored_names;
  std::vector<std::int64_t> m_last_xid;
  std::uint64_t m_non_finite = 0, m_duplicates = 0;
};

}  // namespace

std::vector<std::string_view> prometheus_metric_names() {
  std::vector<std::string_view> names;
  for (const PromMetric& m : kMetrics) names.push_back(m.name);
  return names;
}

bool looks_like_prometheus_json(std::string_view head) {
  const std::string c = compact_head(head, 64);
  return c.starts_with(R"({"status":"success","data":{"resultType":"matrix")") ||
         c.starts_with(R"({"status":"success","data":{"resultType":"vector")") ||
         (c.starts_with(R"({"status":"error","errorType":)"));
}

Expected<std::unique_ptr<LineParser>> make_prometheus_json_parser(ParseContext& ctx, std::string_view head) {
  const std::string c = compact_head(head, 32);
  if (c.starts_with(R"({"status":"error")")) {
    simdjson::dom::parser parser;
    std::string_view error;
    simdjson::dom::element doc;
    if (parser.parse(simdjson::padded_string(head)).get(doc) == simdjson::SUCCESS)
      if (doc["error"].get_string().get(error) != simdjson::SUCCESS) error = {};
    return make_error(ErrorKind::format,
                      fmt::format("{}: Prometheus answered with an error, not data: {}", ctx.stats.path,
                                  error.empty() ? std::string_view("(no message)") : error),
                      "fix the query (or its start/end/step: at most 11000 points per series) and fetch it again");
  }
  return std::unique_ptr<LineParser>(std::make_unique<PrometheusJsonParser>());
}

}  // namespace gpucost::prep

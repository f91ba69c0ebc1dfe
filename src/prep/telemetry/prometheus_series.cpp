// The Prometheus-shaped inputs' shared part (prometheus_series.hpp): the series table, labels,
// --match, and the join of one-metric series into samples.
#include "prometheus_series.hpp"

#include "prep/kernel/kernel_events.hpp"

#include <gpucost/core/fault_cause.hpp>
#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <queue>
#include <tuple>
#include <utility>

namespace gpucost::prep::prom {

namespace {

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

std::size_t metric_slot(const PromMetric* m) { return static_cast<std::size_t>(m - std::begin(kMetrics)); }

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

std::int32_t index_of(std::string_view text) {
  const auto i = text::parse_int(text);
  return i && *i >= 0 && *i < 1'000'000 ? static_cast<std::int32_t>(*i) : -1;
}

// dcgm-exporter's DaemonSet is named dcgm-exporter by its Helm chart and nvidia-dcgm-exporter by
// the GPU Operator: a `pod` label of such a name is the exporter's own pod (the scrape target's),
// never the workload that used the GPU.
bool is_exporter_pod(std::string_view pod) { return pod.find("dcgm-exporter") != std::string_view::npos; }

bool is_label_char(char c, bool first) { return text::is_alpha(c) || c == '_' || (!first && text::is_digit(c)); }

/// The value of a quoted matcher value, its escapes resolved as PromQL's strings do.
std::string unquote(std::string_view quoted) {
  std::string out;
  for (std::size_t i = 1; i + 1 < quoted.size(); ++i) {
    char c = quoted[i];
    if (c == '\\' && i + 2 < quoted.size()) {
      c = quoted[++i];
      if (c == 'n')
        c = '\n';
      else if (c == 't')
        c = '\t';
      else if (c != '\\' && c != '"' && c != '\'')
        out += '\\';  // a regex escape: \. \d
    }
    out += c;
  }
  return out;
}

}  // namespace

std::span<const PromMetric> metric_table() { return kMetrics; }

const PromMetric* find_metric(std::string_view name) {
  for (const PromMetric& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::string_view label(Labels labels, std::string_view key) {
  for (const Label& l : labels)
    if (l.name == key) return l.value;
  return {};
}

std::string_view host_of(Labels labels) {
  const std::string_view hostname = label(labels, "Hostname");
  return !hostname.empty() ? hostname : host_of_instance(label(labels, "instance"));
}

bool is_non_finite_text(std::string_view text) {
  return text == "NaN" || text == "+Inf" || text == "-Inf" || text == "Inf";
}

// ---- --match ----------------------------------------------------------------------------------

LabelFilter::LabelFilter() = default;
LabelFilter::~LabelFilter() = default;
LabelFilter::LabelFilter(LabelFilter&&) noexcept = default;
LabelFilter& LabelFilter::operator=(LabelFilter&&) noexcept = default;

Expected<LabelFilter> LabelFilter::compile(const std::vector<std::string>& matchers) {
  LabelFilter out;
  for (const std::string& given : matchers) {
    const std::string_view m = text::trim(given);
    std::size_t i = 0;
    while (i < m.size() && is_label_char(m[i], i == 0)) ++i;
    Matcher matcher;
    matcher.label = std::string(m.substr(0, i));
    while (i < m.size() && m[i] == ' ') ++i;
    std::string_view op;
    for (const std::string_view o : {"!=", "=~", "!~", "="})
      if (m.substr(i).starts_with(o)) {
        op = o;
        break;
      }
    std::size_t v = i + op.size();
    while (v < m.size() && m[v] == ' ') ++v;
    const std::string_view quoted = m.substr(v);
    const bool closed = quoted.size() >= 2 && (quoted.front() == '"' || quoted.front() == '\'') &&
                        quoted.back() == quoted.front() && quoted[quoted.size() - 2] != '\\';
    if (matcher.label.empty() || op.empty() || !closed)
      return make_error(ErrorKind::usage, fmt::format("--match: '{}' is not a label matcher", given),
                        "give label=\"value\" (or !=, =~ for a regex, !~), quoted for the shell: --match "
                        "'Hostname=\"node01\"'");
    matcher.value = unquote(quoted);
    matcher.negate = op.front() == '!';
    if (op.back() == '~') {
      re2::RE2::Options opts;
      opts.set_log_errors(false);
      matcher.regex = std::make_unique<re2::RE2>(matcher.value, opts);
      if (!matcher.regex->ok())
        return make_error(ErrorKind::usage,
                          fmt::format("--match '{}': invalid regular expression: {}", given, matcher.regex->error()),
                          "RE2 syntax, as Prometheus reads it (anchored at both ends): e.g. pod=~\"llm-.*\"");
    }
    out.m_text += fmt::format("{}{}", out.m_text.empty() ? "" : ",", m);
    out.m_matchers.push_back(std::move(matcher));
  }
  return out;
}

bool LabelFilter::matches(Labels labels) const {
  for (const Matcher& m : m_matchers) {
    const std::string_view v = label(labels, m.label);
    const bool hit = m.regex ? re2::RE2::FullMatch(re2::StringPiece(v.data(), v.size()), *m.regex) : v == m.value;
    if (hit == m.negate) return false;
  }
  return true;
}

// ---- the join -----------------------------------------------------------------------------------

SeriesJoin::Outcome SeriesJoin::classify(std::string_view name, Labels labels, const LabelFilter& filter, Series& out) {
  const PromMetric* m = find_metric(name);
  if (m == nullptr) {
    ++m_ignored_names[name.empty() ? std::string("(no __name__)") : std::string(name)];
    return Outcome::ignored;
  }
  if (!label(labels, "GPU_I_ID").empty()) {  // MIG instances: not joined to their GPU yet
    ++m_ignored_names[fmt::format("{} (MIG instance)", name)];
    return Outcome::ignored;
  }
  if (!filter.matches(labels)) {
    ++m_filtered;
    if (m_filter_text.empty()) m_filter_text = filter.text();
    return Outcome::filtered;
  }
  const std::string_view host = host_of(labels);
  if (m->role == Role::info) {
    note_info(labels, host);
    return Outcome::info;
  }
  const std::string_view index = label(labels, "gpu");
  if (index.empty() && label(labels, "UUID").empty() && label(labels, "uuid").empty()) return Outcome::no_gpu;
  out.metric = m;
  out.gpu = gpu_of(labels, host);
  out.workload = workload_of(labels);
  return Outcome::series;
}

bool SeriesJoin::add_point(const Series& series, std::int64_t ts_ns, std::string_view text, std::string_view& why) {
  double v = 0;
  bool json = false;
  if (!text::parse_number(text, v, json) || !std::isfinite(v)) {
    if (!is_non_finite_text(text)) {
      why = "a point's value is not a number";
      return false;
    }
    ++m_non_finite;
    return true;
  }
  GpuSeries& gpu = *m_gpus[series.gpu];
  const auto slot = static_cast<std::uint16_t>(metric_slot(series.metric));
  const double value = convert(*series.metric, v);
  if (gpu.samples.empty() && file_on_grid(gpu.grid, slot, ts_ns, value, series.workload)) return true;
  if (gpu.grid.rows > 0) grid_to_map(gpu);  // a point off the grid: the map holds them all from here
  Sample& s = gpu.samples[ts_ns];
  for (const Point& p : s.points) {
    if (p.slot == slot) {
      ++m_duplicates;  // the same series twice (overlapping documents, two Prometheus replicas)
      return true;
    }
  }
  s.points.push_back(Point{slot, value});
  if (series.workload >= 0) s.workload = series.workload;
  return true;
}

// ---- the grid ----------------------------------------------------------------------------------

namespace {
// Rows a point may open beyond the grid's end at once: further, the points are too sparse for a
// grid to pay (a year between two points at 15 s would be two million empty rows).
constexpr std::uint64_t kMaxGridGap = 65536;
}  // namespace

bool SeriesJoin::Grid::row_of(std::int64_t ts_ns, std::size_t& row) const {
  if (ts_ns < origin) return false;
  // Unsigned: the difference of two int64 times fits in uint64, never in int64 (a time at the
  // minimum of int64 stands for "not placed yet").
  const std::uint64_t diff = static_cast<std::uint64_t>(ts_ns) - static_cast<std::uint64_t>(origin);
  if (diff == 0) {
    row = 0;
    return true;
  }
  if (step == 0 || diff % step != 0) return false;
  const std::uint64_t k = diff / step;
  if (k >= rows + kMaxGridGap) return false;
  row = static_cast<std::size_t>(k);
  return true;
}

void SeriesJoin::Grid::resize(std::size_t n) {
  if (n > filled.size()) {  // grown by doubling: the first series of a slice opens its rows one by one
    const std::size_t room = std::max(n, 2 * filled.size());
    filled.resize(room, 0);
    workload.resize(room, -1);
    value.resize(room * column_slot.size(), 0.0);
    order.resize(room * column_slot.size(), 0);
  }
  rows = n;
}

// A metric the GPU had no column for: the rows laid out again one column wider (a GPU's columns
// are kept across slices, so this is done in its first slice only).
std::size_t SeriesJoin::Grid::add_column(std::uint16_t slot) {
  const std::size_t before = column_slot.size(), room = filled.size();
  std::vector<double> wider_value(room * (before + 1), 0.0);
  std::vector<std::uint8_t> wider_order(room * (before + 1), 0);
  for (std::size_t row = 0; row < rows; ++row)
    for (std::size_t c = 0; c < before; ++c) {
      wider_value[row * (before + 1) + c] = value[row * before + c];
      wider_order[row * (before + 1) + c] = order[row * before + c];
    }
  value.swap(wider_value);
  order.swap(wider_order);
  column_slot.push_back(slot);
  return before;
}

// The rows from `from` on made empty again, their room kept for the next slice.
void SeriesJoin::Grid::empty_from(std::size_t from) {
  const auto f = static_cast<std::ptrdiff_t>(from), n = static_cast<std::ptrdiff_t>(rows);
  std::fill(filled.begin() + f, filled.begin() + n, std::uint8_t{0});
  std::fill(workload.begin() + f, workload.begin() + n, -1);
  std::fill(order.begin() + static_cast<std::ptrdiff_t>(cell(from, 0)),
            order.begin() + static_cast<std::ptrdiff_t>(cell(rows, 0)), std::uint8_t{0});
  rows = from;
}

void SeriesJoin::Grid::clear() {
  empty_from(0);
  step = 0;
}

void SeriesJoin::Grid::erase_before(std::size_t row) {
  if (row >= rows) return clear();
  if (row == 0) return;
  const auto r = static_cast<std::ptrdiff_t>(row), n = static_cast<std::ptrdiff_t>(rows);
  std::copy(filled.begin() + r, filled.begin() + n, filled.begin());
  std::copy(workload.begin() + r, workload.begin() + n, workload.begin());
  const auto cr = static_cast<std::ptrdiff_t>(cell(row, 0)), cn = static_cast<std::ptrdiff_t>(cell(rows, 0));
  std::copy(value.begin() + cr, value.begin() + cn, value.begin());
  std::copy(order.begin() + cr, order.begin() + cn, order.begin());
  origin = ts_of(row);
  empty_from(rows - row);
}

// Files a point on the GPU's grid; false when it is off the grid (nothing filed). The first time
// is the grid's origin and the second its step; each later point must be a whole number of steps
// after the origin.
bool SeriesJoin::file_on_grid(Grid& grid, std::uint16_t slot, std::int64_t ts_ns, double value, std::int32_t workload) {
  std::size_t row = 0;
  if (grid.rows == 0) {
    grid.origin = ts_ns;
    grid.step = 0;
  } else if (grid.step == 0 && ts_ns > grid.origin) {
    const std::uint64_t diff = static_cast<std::uint64_t>(ts_ns) - static_cast<std::uint64_t>(grid.origin);
    grid.step = diff;
    row = 1;
  } else if (!grid.row_of(ts_ns, row)) {
    return false;
  }
  if (row >= grid.rows) grid.resize(row + 1);
  if (grid.column_of.empty()) grid.column_of.assign(std::size(kMetrics), 0);
  std::uint8_t& column = grid.column_of[slot];
  if (column == 0) column = static_cast<std::uint8_t>(grid.add_column(slot) + 1);
  const std::size_t at = grid.cell(row, column - 1u);
  std::uint8_t& place = grid.order[at];
  if (place != 0) {
    ++m_duplicates;  // the same series twice (overlapping documents, two Prometheus replicas)
    return true;
  }
  place = ++grid.filled[row];
  grid.value[at] = value;
  if (workload >= 0) grid.workload[row] = workload;
  return true;
}

// The grid's samples into the map, each with its points in the order they were filed.
void SeriesJoin::grid_to_map(GpuSeries& gpu) {
  Grid& grid = gpu.grid;
  for (std::size_t row = 0; row < grid.rows; ++row) {
    if (grid.filled[row] == 0) continue;
    Sample s;
    s.points.resize(grid.filled[row]);
    for (std::size_t c = 0; c < grid.column_slot.size(); ++c)
      if (const std::uint8_t place = grid.order[grid.cell(row, c)]; place != 0)
        s.points[place - 1u] = Point{grid.column_slot[c], grid.value[grid.cell(row, c)]};
    s.workload = grid.workload[row];
    gpu.samples.emplace(grid.ts_of(row), std::move(s));
  }
  grid.clear();
}

std::size_t SeriesJoin::gpu_of(Labels labels, std::string_view host) {
  const std::string_view index = label(labels, "gpu");
  std::string_view uuid = label(labels, "UUID");
  if (uuid.empty()) uuid = label(labels, "uuid");
  std::string key = fmt::format("{}\x1f{}", host, !index.empty() ? index : uuid);
  auto [it, fresh] = m_gpu_index.try_emplace(std::move(key), m_gpus.size());
  if (fresh) {
    m_gpus.push_back(std::make_unique<GpuSeries>());
    m_gpus.back()->id.host = std::string(host);
    m_gpus.back()->id.index = index_of(index);
  }
  GpuIdentity& id = m_gpus[it->second]->id;
  if (id.uuid.empty()) id.uuid = std::string(uuid);
  if (id.model.empty()) id.model = std::string(label(labels, "modelName"));
  if (id.driver.empty()) id.driver = std::string(label(labels, "DCGM_FI_DRIVER_VERSION"));
  if (id.bus_id.empty()) id.bus_id = std::string(label(labels, "pci_bus_id"));
  return it->second;
}

// nvidia_smi_gpu_info{uuid, index, name, driver_version, pci_bus_id} 1: the identity of the
// GPU that the other nvidia_gpu_exporter series name by uuid alone.
void SeriesJoin::note_info(Labels labels, std::string_view host) {
  GpuIdentity id;
  id.host = std::string(host);
  id.uuid = std::string(label(labels, "uuid"));
  id.model = std::string(label(labels, "name"));
  id.driver = std::string(label(labels, "driver_version"));
  id.bus_id = std::string(label(labels, "pci_bus_id"));
  id.index = index_of(label(labels, "index"));
  for (const GpuIdentity& known : m_infos)
    if (known.uuid == id.uuid && known.host == id.host) return;  // every scrape repeats it
  m_infos.push_back(std::move(id));
}

// The workload that used the GPU. dcgm-exporter writes the pod, namespace and container of the
// GPU's process (--kubernetes); Prometheus, scraping the exporter as a Kubernetes target without
// honor_labels, renames those to exported_pod, exported_namespace and exported_container and
// sets pod, namespace and container to the scrape target's: the exporter's own pod. So the
// exported_ labels win; a pod that is the exporter's own (by name, or because Prometheus renamed
// some of its labels) is no workload.
std::int32_t SeriesJoin::workload_of(Labels labels) {
  Workload w;
  if (const std::string_view exported = label(labels, "exported_pod"); !exported.empty()) {
    w = Workload{std::string(exported), std::string(label(labels, "exported_namespace")),
                 std::string(label(labels, "exported_container"))};
  } else {
    const std::string_view pod = label(labels, "pod");
    const bool renamed = !label(labels, "exported_namespace").empty() || !label(labels, "exported_container").empty();
    if (pod.empty() || renamed || is_exporter_pod(pod)) return -1;
    w = Workload{std::string(pod), std::string(label(labels, "namespace")), std::string(label(labels, "container"))};
  }
  const auto it = std::find(m_workloads.begin(), m_workloads.end(), w);
  if (it != m_workloads.end()) return static_cast<std::int32_t>(it - m_workloads.begin());
  m_workloads.push_back(std::move(w));
  return static_cast<std::int32_t>(m_workloads.size() - 1);
}

// Fills what the series' own labels lacked from nvidia_smi_gpu_info; a GPU without an index
// gets the next free number on its host, in order of first appearance.
void SeriesJoin::resolve_identities(ParseContext& ctx) {
  for (const auto& g : m_gpus) {
    for (const GpuIdentity& info : m_infos) {
      if (info.uuid != g->id.uuid || info.host != g->id.host) continue;
      if (g->id.index < 0) g->id.index = info.index;
      if (g->id.model.empty()) g->id.model = info.model;
      if (g->id.driver.empty()) g->id.driver = info.driver;
      if (g->id.bus_id.empty()) g->id.bus_id = info.bus_id;
    }
  }
  std::map<std::string, std::int32_t> next_free;
  for (const auto& g : m_gpus)
    if (g->id.index >= 0) next_free[g->id.host] = std::max(next_free[g->id.host], g->id.index + 1);
  for (const auto& g : m_gpus) {
    if (g->id.index >= 0) continue;
    g->id.index = next_free[g->id.host]++;
    if (!m_numbered_note)
      add_note(ctx.stats,
               "some GPUs have no index label (gpu) nor nvidia_smi_gpu_info: numbered in order of first "
               "appearance");
    m_numbered_note = true;
  }
  for (const auto& g : m_gpus) {
    if (g->counted) continue;
    g->counted = true;
    Fingerprint::add(ctx.stats.fingerprint.gpus, g->id.model);  // the model prices the speed ratio
    Fingerprint::add(ctx.stats.fingerprint.drivers, g->id.driver);
  }
  ctx.stats.fingerprint.gpu_count = std::max<std::uint64_t>(ctx.stats.fingerprint.gpu_count, m_gpus.size());
}

void SeriesJoin::drop(std::int64_t ts_ns) {
  for (const auto& g : m_gpus) {
    Grid& grid = g->grid;
    if (std::size_t row = 0; grid.rows > 0 && grid.row_of(ts_ns, row) && row < grid.rows) {
      grid.filled[row] = 0;
      grid.workload[row] = -1;
      std::fill_n(grid.order.begin() + static_cast<std::ptrdiff_t>(grid.cell(row, 0)), grid.column_slot.size(),
                  std::uint8_t{0});
    }
    g->samples.erase(ts_ns);
  }
}

void SeriesJoin::move(std::int64_t from_ns, std::int64_t to_ns) {
  for (const auto& g : m_gpus) {
    if (g->grid.rows > 0) grid_to_map(*g);
    auto held = g->samples.extract(from_ns);
    if (held.empty()) continue;
    held.key() = to_ns;
    g->samples.insert(std::move(held));  // a sample already at to_ns keeps its own points
  }
}

// Every GPU's samples merged in time order (then host, then GPU index), so that the stream is
// sorted as a live log would be.
void SeriesJoin::emit(ParseContext& ctx, std::int64_t until_ns) {
  resolve_identities(ctx);
  std::vector<GpuSeries*> order;
  for (const auto& g : m_gpus) order.push_back(g.get());
  std::sort(order.begin(), order.end(), [](const GpuSeries* a, const GpuSeries* b) {
    return std::tie(a->id.host, a->id.index) < std::tie(b->id.host, b->id.index);
  });
  if (emit_same_grid(order, until_ns, ctx)) return;
  // Each GPU's next held sample: a grid row, or a map entry (a GPU has one or the other).
  struct Cursor {
    std::size_t row = 0;
    std::map<std::int64_t, Sample>::const_iterator it;
  };
  std::vector<Cursor> cursors(order.size());
  const auto next_ts = [&](std::size_t i, std::int64_t& ts) {
    const GpuSeries& g = *order[i];
    Cursor& c = cursors[i];
    if (g.grid.rows > 0) {
      while (c.row < g.grid.rows && g.grid.filled[c.row] == 0) ++c.row;
      if (c.row >= g.grid.rows) return false;
      ts = g.grid.ts_of(c.row);
    } else {
      if (c.it == g.samples.end()) return false;
      ts = c.it->first;
    }
    return ts < until_ns;
  };
  using Next = std::pair<std::int64_t, std::size_t>;  // time, index in order
  std::priority_queue<Next, std::vector<Next>, std::greater<>> next;
  for (std::size_t i = 0; i < order.size(); ++i) {
    cursors[i].it = order[i]->samples.begin();
    if (std::int64_t ts = 0; next_ts(i, ts)) next.emplace(ts, i);
  }
  while (!next.empty()) {
    const auto [ts, i] = next.top();
    next.pop();
    GpuSeries& g = *order[i];
    Cursor& c = cursors[i];
    if (g.grid.rows > 0) {
      emit_row(g, c.row++, ctx);
    } else {
      emit_sample(g, ts, c.it->second.points, c.it->second.workload, ctx);
      ++c.it;
    }
    if (std::int64_t later = 0; next_ts(i, later)) next.emplace(later, i);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    GpuSeries& g = *order[i];
    if (g.grid.rows > 0) g.grid.erase_before(cursors[i].row);
    g.samples.erase(g.samples.begin(), g.samples.lower_bound(until_ns));
  }
}

// A time slice of a query_range answer: every GPU on one grid, so that time order is row order
// and no merge is needed. False, having emitted nothing, when some GPU is off that grid.
bool SeriesJoin::emit_same_grid(const std::vector<GpuSeries*>& order, std::int64_t until_ns, ParseContext& ctx) {
  const Grid* first = nullptr;
  std::size_t rows = 0;
  for (const GpuSeries* g : order) {
    if (!g->samples.empty()) return false;
    if (g->grid.rows == 0) continue;
    if (first == nullptr) first = &g->grid;
    if (g->grid.origin != first->origin || g->grid.step != first->step) return false;
    rows = std::max(rows, g->grid.rows);
  }
  if (first == nullptr) return true;
  const std::int64_t origin = first->origin;
  const std::uint64_t step = first->step;
  std::size_t row = 0;
  for (; row < rows; ++row) {
    if (static_cast<std::int64_t>(static_cast<std::uint64_t>(origin) + row * step) >= until_ns) break;
    for (GpuSeries* g : order)
      if (row < g->grid.rows && g->grid.filled[row] != 0) emit_row(*g, row, ctx);
  }
  for (GpuSeries* g : order)
    if (g->grid.rows > 0) g->grid.erase_before(row);
  return true;
}

void SeriesJoin::emit_row(GpuSeries& gpu, std::size_t row, ParseContext& ctx) {
  const Grid& grid = gpu.grid;
  m_row_points.resize(grid.filled[row]);
  const std::size_t columns = grid.column_slot.size();
  const std::uint8_t* order = grid.order.data() + grid.cell(row, 0);
  const double* value = grid.value.data() + grid.cell(row, 0);
  for (std::size_t c = 0; c < columns; ++c)
    if (order[c] != 0) m_row_points[order[c] - 1u] = Point{grid.column_slot[c], value[c]};
  emit_sample(gpu, grid.ts_of(row), m_row_points, grid.workload[row], ctx);
}

// The context's event, reset to a `kind` event of `gpu` at `ts_ns`.
Event& SeriesJoin::begin_event(const GpuSeries& gpu, std::string_view kind, std::int64_t ts_ns,
                               ParseContext& ctx) const {
  Event& ev = ctx.event;
  ev.reset();
  ev.source = m_source;
  ev.kind = kind;
  ev.ts_ns = ts_ns;
  ev.gpu = gpu.id.index;
  ev.host = gpu.id.host;
  return ev;
}

void SeriesJoin::emit_sample(GpuSeries& gpu, std::int64_t ts_ns, std::span<const Point> points, std::int32_t workload,
                             ParseContext& ctx) {
  Event& ev = begin_event(gpu, "sample", ts_ns, ctx);
  std::array<int, kMetricCount> priority{};
  double xid = -1, fb_free = -1;
  for (const Point& p : points) {
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
  add_identity(gpu.id, workload, ev);
  if (xid >= 0) ev.fields.push_back(Field{"xider", ev.own(fmt::format("{}", xid)), true, false});
  ctx.emit();
  if (xid >= 0) note_xid(gpu, ts_ns, xid, ctx);
}

void SeriesJoin::add_identity(const GpuIdentity& id, std::int32_t workload, Event& ev) const {
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
void SeriesJoin::note_xid(GpuSeries& gpu, std::int64_t ts_ns, double value, ParseContext& ctx) {
  const auto code = static_cast<std::int64_t>(value);
  const std::int64_t before = gpu.last_xid;
  gpu.last_xid = code;
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

void SeriesJoin::summarise(ParseContext& ctx) const {
  if (!m_ignored_names.empty()) {
    std::string list;
    for (const auto& [name, count] : m_ignored_names)
      list += fmt::format("{}{} x{}", list.empty() ? "" : ", ", name, count);
    add_note(ctx.stats, "series ignored (metrics gpucost does not read): " + list);
  }
  if (m_filtered > 0)
    add_note(ctx.stats, fmt::format("{} series left out by --match {} (ignored)", m_filtered, m_filter_text));
  if (m_non_finite > 0)
    add_note(ctx.stats, fmt::format("{} NaN/Inf values skipped (no sample from those series there)", m_non_finite));
  if (m_duplicates > 0)
    add_note(ctx.stats, fmt::format("{} points given twice for one series and time: the first kept", m_duplicates));
}

}  // namespace gpucost::prep::prom

namespace gpucost::prep {

std::vector<std::string_view> prometheus_metric_names() {
  std::vector<std::string_view> names;
  for (const prom::PromMetric& m : prom::metric_table()) names.push_back(m.name);
  return names;
}

Status check_label_matchers(const std::vector<std::string>& matchers) {
  auto filter = prom::LabelFilter::compile(matchers);
  if (!filter) return filter.error();
  return {};
}

}  // namespace gpucost::prep

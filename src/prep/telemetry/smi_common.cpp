#include "smi_common.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/core/throttle_reasons.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace gpucost::prep {

namespace {

bool parse_hex_part(std::string_view s, std::uint32_t& out) {
  if (s.empty() || s.size() > 8) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc{} && p == s.data() + s.size();
}

// Reasons in NVML bit order: output name and mask bit (0 = no bit: "unknown" is bit 63, left
// out of the mask so that it stays a small exact number).
struct Reason {
  std::string_view name;
  std::uint64_t bit;
};
constexpr Reason kReasons[] = {
    {"idle", throttle::kGpuIdle},
    {"applications_clocks_setting", throttle::kApplicationsClocksSetting},
    {"sw_power_cap", throttle::kSwPowerCap},
    {"hw_slowdown", throttle::kHwSlowdown},
    {"sync_boost", throttle::kSyncBoost},
    {"sw_thermal_slowdown", throttle::kSwThermalSlowdown},
    {"hw_thermal_slowdown", throttle::kHwThermalSlowdown},
    {"hw_power_brake_slowdown", throttle::kHwPowerBrakeSlowdown},
    {"display_clock_setting", throttle::kDisplayClockSetting},
    {"unknown", 0},
};
static_assert(std::size(kReasons) ==
              static_cast<std::size_t>(SmiSlot::thr_unknown) - static_cast<std::size_t>(SmiSlot::thr_idle) + 1);

constexpr std::string_view kCounterFields[] = {
    "clocks_event_us_sw_power_cap", "clocks_event_us_sync_boost", "clocks_event_us_sw_thermal_slowdown",
    "clocks_event_us_hw_thermal_slowdown", "clocks_event_us_hw_power_brake_slowdown"};
static_assert(std::size(kCounterFields) == static_cast<std::size_t>(SmiSlot::ctr_hw_power_brake) -
                                               static_cast<std::size_t>(SmiSlot::ctr_sw_power_cap) + 1);

SmiSlot slot_at(SmiSlot first, std::size_t offset) {
  return static_cast<SmiSlot>(static_cast<std::size_t>(first) + offset);
}

// "610.62 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]" -> "610.62".
std::string_view clean_version(std::string_view v) {
  if (const std::size_t lb = v.find(" ["); lb != std::string_view::npos) v = v.substr(0, lb);
  v = text::trim(v);
  if (v == "N/A" || v == "[N/A]") return {};
  return v;
}

// Text values that mean "no value".
bool is_missing_text(std::string_view v) {
  return v.empty() || v == "N/A" || v == "[N/A]" || v == "Unknown Error" || v == "[Unknown Error]" ||
         v == "Not Supported" || v == "[Not Supported]" || text::istarts_with(v, "requested functionality");
}

}  // namespace

std::optional<CivilTime> parse_ctime(std::string_view s) {
  std::size_t pos = 0;
  const std::string_view wday = text::next_token(s, pos);
  const std::string_view mon = text::next_token(s, pos);
  const std::string_view day = text::next_token(s, pos);
  const std::string_view hms = text::next_token(s, pos);
  const std::string_view year = text::next_token(s, pos);
  if (wday.size() != 3 || !text::next_token(s, pos).empty()) return std::nullopt;
  CivilTime t;
  t.month = text::month_abbreviation(mon);
  const auto d = text::parse_int(day);
  const auto y = text::parse_int(year);
  if (t.month == 0 || !d || !y || *d < 1 || *d > 31 || *y < 1970 || *y > 9999) return std::nullopt;
  t.day = static_cast<unsigned>(*d);
  t.year = static_cast<int>(*y);
  if (!parse_clock_time(hms, t) || !valid_civil(t)) return std::nullopt;
  return t;
}

std::string normalize_bus_id(std::string_view id) {
  id = text::trim(id);
  std::string_view parts[3];
  std::size_t n = 0, start = 0;
  for (;;) {
    const std::size_t colon = id.find(':', start);
    if (n == 3) return std::string(id);
    parts[n++] = id.substr(start, colon == std::string_view::npos ? id.npos : colon - start);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (n < 2) return std::string(id);
  std::uint32_t domain = 0, bus = 0, device = 0, function = 0;
  std::string_view dev = parts[n - 1];
  if (const std::size_t dot = dev.find('.'); dot != std::string_view::npos) {
    if (!parse_hex_part(dev.substr(dot + 1), function)) return std::string(id);
    dev = dev.substr(0, dot);
  }
  if (!parse_hex_part(dev, device) || !parse_hex_part(parts[n - 2], bus)) return std::string(id);
  if (n == 3 && !parse_hex_part(parts[0], domain)) return std::string(id);
  if (bus > 0xff || device > 0x1f || function > 7) return std::string(id);
  return fmt::format("{:08X}:{:02X}:{:02X}.{:X}", domain, bus, device, function);
}

bool smi_number(std::string_view value, double& out, std::string_view& json_text) {
  value = text::trim(value);
  if (value.empty()) return false;
  std::size_t pos = 0;
  std::string_view num = text::next_token(value, pos);
  const std::string_view unit = text::next_token(value, pos);
  if (!text::next_token(value, pos).empty()) return false;  // "Not Active", "Requested functionality ..."
  if (unit.empty()) {
    if (num.size() > 1 && (num.front() == 'P' || num.front() == 'p') && text::is_digit(num[1])) {
      num.remove_prefix(1);  // "P0" performance state
    } else if (num.size() > 1 && (num.back() == 'x' || num.back() == 'X') && text::is_digit(num[num.size() - 2])) {
      num.remove_suffix(1);  // "16x" link width
    }
  } else if (unit.size() > 16 || text::is_digit(unit.front())) {
    return false;
  }
  bool json = false;
  if (!text::parse_number(num, out, json)) return false;
  json_text = json ? num : std::string_view();
  return true;
}

/// "==============NVSMI LOG==============" (any number of '=').
bool is_smi_banner(std::string_view line) {
  line = text::trim(line);
  if (line.size() < 12 || line.front() != '=' || line.back() != '=') return false;
  const std::size_t b = line.find_first_not_of('=');
  const std::size_t e = line.find_last_not_of('=');
  return b != std::string_view::npos && line.substr(b, e - b + 1) == "NVSMI LOG";
}

/// "GPU 00000000:18:00.0", "GPU 0000:01:05.0", "GPU 0:2:0" at column 0: the id, else empty.
std::string_view smi_gpu_line_id(std::string_view line) {
  line = text::rtrim(line);
  if (line.size() < 5 || line.substr(0, 4) != "GPU ") return {};
  const std::string_view id = line.substr(4);
  if (id.find(':') == std::string_view::npos) return {};
  for (char c : id)
    if (!(text::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.')) return {};
  return id;
}

/// Splits "    Key      : value" into indent, key and value; false for a section line.
bool split_smi_line(std::string_view line, std::size_t& indent, std::string_view& key, std::string_view& value) {
  indent = 0;
  while (indent < line.size() && line[indent] == ' ') ++indent;
  const std::string_view body = line.substr(indent);
  for (std::size_t pos = body.find(':'); pos != std::string_view::npos; pos = body.find(':', pos + 1)) {
    if (pos + 1 < body.size() && body[pos + 1] != ' ' && body[pos + 1] != '\t') continue;  // "0:2:0", "C:\"
    key = text::rtrim(body.substr(0, pos));
    value = text::trim(body.substr(pos + 1));
    return !key.empty();
  }
  key = text::trim(body);
  value = {};
  return false;
}

Format detect_smi(std::string_view head) {
  std::string_view lines[2];
  std::size_t n = 0, pos = 0;
  while (n < 2 && pos < head.size()) {
    const std::size_t nl = head.find('\n', pos);
    const std::string_view line = text::rtrim(head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos));
    if (!text::trim(line).empty()) lines[n++] = line;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (n == 0) return Format::unknown;
  const std::string_view first = text::trim(lines[0]);
  if (first.substr(0, 5) == "<?xml" || first.substr(0, 9) == "<!DOCTYPE" || first.substr(0, 15) == "<nvidia_smi_log")
    return head.find("<nvidia_smi_log") != std::string_view::npos ? Format::smi_xml : Format::unknown;
  if (is_smi_banner(first)) return Format::smi_q;
  // A copy that starts at the GPU line (-d output in documentation) or at the Timestamp line.
  std::size_t indent = 0;
  std::string_view key, value;
  if (!smi_gpu_line_id(lines[0]).empty()) {
    if (n < 2) return Format::unknown;
    split_smi_line(lines[1], indent, key, value);
    return indent >= 4 && !key.empty() ? Format::smi_q : Format::unknown;
  }
  if (split_smi_line(lines[0], indent, key, value) && indent == 0 && key == "Timestamp" && parse_ctime(value))
    return Format::smi_q;
  return Format::unknown;
}

SmiEmitter::SmiEmitter(ParseContext& ctx, std::string_view source)
    : m_source(source), m_clock(ctx.options, ctx.clock, ctx.stats) {}

std::int64_t SmiEmitter::snapshot_ts(ParseContext& ctx, const SmiHeader& header) {
  const std::uint64_t index = m_snapshots++;
  if (!header.timestamp.empty()) {
    if (const auto civil = parse_ctime(header.timestamp)) return m_clock.local_ts(*civil);
    add_note(ctx.stats,
             "a Timestamp is not in ctime form (e.g. 'Tue Jul 14 08:12:53 2026'): that snapshot is "
             "placed by --start and its position instead");
  }
  // No time in the snapshot (a -d copy without the banner): --start + index x --interval.
  return m_clock.cycle_ts(index);
}

std::uint64_t SmiEmitter::emit_snapshot(ParseContext& ctx, const SmiHeader& header, const std::vector<SmiGpu>& gpus) {
  if (gpus.empty()) return 0;
  const std::int64_t ts = snapshot_ts(ctx, header);
  // GPU index: nvidia-smi prints the GPUs of a snapshot in its enumeration (-i index) order, so
  // the position of the block is the index. With -i (fewer blocks than "Attached GPUs") the
  // position says nothing: then Minor Number (/dev/nvidiaN, nearly always the same number) is
  // used, else the position, with a note either way.
  const auto attached = text::parse_int(text::trim(header.attached_gpus));
  const bool filtered = attached && *attached > 0 && static_cast<std::uint64_t>(*attached) > gpus.size();
  const std::uint64_t before = ctx.stats.events;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::int32_t index = static_cast<std::int32_t>(i);
    if (filtered) {
      const auto minor = text::parse_int(text::trim(gpus[i].get(SmiSlot::minor)));
      if (minor && *minor >= 0 && *minor < 1'000'000) {
        index = static_cast<std::int32_t>(*minor);
        add_note(ctx.stats,
                 "fewer GPU blocks than 'Attached GPUs' (nvidia-smi -i): gpu = Minor Number "
                 "(/dev/nvidiaN), usually the nvidia-smi index; pci_bus_id identifies the GPU");
      } else {
        add_note(ctx.stats,
                 "fewer GPU blocks than 'Attached GPUs' (nvidia-smi -i) and no Minor Number: gpu = "
                 "position of the block, which may differ from the nvidia-smi index; pci_bus_id "
                 "identifies the GPU");
      }
    }
    emit_gpu(ctx, header, gpus[i], index, ts);
  }
  return ctx.stats.events - before;
}

void SmiEmitter::emit_gpu(ParseContext& ctx, const SmiHeader& header, const SmiGpu& g, std::int32_t index,
                          std::int64_t ts) {
  Event& ev = ctx.event;
  const auto text_field = [&](std::string_view key, SmiSlot s) {
    const std::string_view v = text::trim(g.get(s));
    if (!is_missing_text(v)) ev.add_text(key, v);
  };
  const auto count_field = [&](std::string_view key, SmiSlot s) {
    const auto n = text::parse_int(text::trim(g.get(s)));
    if (n) ev.add_number(key, *n);
  };
  // The first slot of `slots` that holds a number sets `m`.
  const auto metric = [&](Metric m, std::initializer_list<SmiSlot> slots) {
    for (SmiSlot s : slots) {
      double v = 0;
      std::string_view json;
      if (g.has(s) && smi_number(g.get(s), v, json)) {
        ev.set(m, v, json);
        return;
      }
    }
  };

  // ---- gpu_info: identity, software stack, limits, link, health --------------------------
  ev.reset();
  ev.ts_ns = ts;
  ev.source = m_source;
  ev.kind = "gpu_info";
  ev.gpu = index;
  std::string_view raw_id = g.get(SmiSlot::bus_id);
  if (is_missing_text(text::trim(raw_id))) raw_id = g.id;
  m_bus_id = raw_id.empty() ? std::string() : normalize_bus_id(raw_id);
  const std::string_view bus_id = m_bus_id;  // alive until the next GPU
  const std::string_view name = text::trim(g.get(SmiSlot::name));
  text_field("name", SmiSlot::name);
  if (!bus_id.empty()) ev.add_text("pci_bus_id", bus_id);
  text_field("uuid", SmiSlot::uuid);
  // >= 610 marks "Driver Version" / "CUDA Version" deprecated and adds "KMD Version" / "CUDA UMD Version".
  std::string_view driver = clean_version(header.kmd_version);
  if (driver.empty()) driver = clean_version(header.driver_version);
  std::string_view cuda = clean_version(header.cuda_umd_version);
  if (cuda.empty()) cuda = clean_version(header.cuda_version);
  if (!driver.empty()) ev.add_text("driver_version", driver);
  if (!cuda.empty()) ev.add_text("cuda_version", cuda);
  text_field("vbios_version", SmiSlot::vbios);
  text_field("architecture", SmiSlot::architecture);
  text_field("persistence_mode", SmiSlot::persistence);
  text_field("driver_model", SmiSlot::driver_model);
  text_field("mig_mode", SmiSlot::mig_mode);
  if (g.mig_devices > 0) ev.add_number("mig_devices", g.mig_devices);
  text_field("ecc_mode", SmiSlot::ecc_mode);
  count_field("retired_pages_sbe", SmiSlot::retired_sbe);
  count_field("retired_pages_dbe", SmiSlot::retired_dbe);
  if (g.has(SmiSlot::retired_pending))
    text_field("retired_pages_pending", SmiSlot::retired_pending);
  else
    text_field("retired_pages_pending", SmiSlot::retired_pending_old);
  count_field("remapped_rows_correctable", SmiSlot::remap_corr);
  count_field("remapped_rows_uncorrectable", SmiSlot::remap_unc);
  text_field("remapped_rows_pending", SmiSlot::remap_pending);
  text_field("remapped_rows_failure", SmiSlot::remap_failure);

  // Active reasons: "Active" / "Not Active"; N/A and the one-line "Clocks Throttle Reasons : N/A"
  // leave the reason unknown. The field and the mask exist when at least one reason is known.
  bool any_reason = false;
  std::uint64_t mask = 0;
  m_reasons.clear();
  for (std::size_t i = 0; i < std::size(kReasons); ++i) {
    const std::string_view v = text::trim(g.get(slot_at(SmiSlot::thr_idle, i)));
    const bool active = text::iequals(v, "Active");
    if (!active && !text::iequals(v, "Not Active")) continue;
    any_reason = true;
    if (!active) continue;
    mask |= kReasons[i].bit;
    if (!m_reasons.empty()) m_reasons += ',';
    m_reasons += kReasons[i].name;
  }
  if (any_reason) ev.add_text("throttle_reasons", m_reasons, true);
  for (std::size_t i = 0; i < std::size(kCounterFields); ++i) {
    double v = 0;
    std::string_view json;
    const SmiSlot s = slot_at(SmiSlot::ctr_sw_power_cap, i);
    if (g.has(s) && smi_number(g.get(s), v, json) && !json.empty())
      ev.fields.push_back(Field{kCounterFields[i], json, true, false});
  }

  metric(Metric::power_limit_w, {SmiSlot::limit_enforced, SmiSlot::limit_current, SmiSlot::limit_plain});
  metric(Metric::power_default_limit_w, {SmiSlot::limit_default});
  metric(Metric::power_max_limit_w, {SmiSlot::limit_max});
  metric(Metric::pclk_max_mhz, {SmiSlot::maxclk_sm, SmiSlot::maxclk_graphics});
  metric(Metric::mclk_max_mhz, {SmiSlot::maxclk_mem});
  metric(Metric::pcie_gen, {SmiSlot::pcie_gen});
  metric(Metric::pcie_gen_max, {SmiSlot::pcie_gen_max});
  metric(Metric::pcie_width, {SmiSlot::pcie_width});
  metric(Metric::pcie_width_max, {SmiSlot::pcie_width_max});
  ctx.emit();

  // ---- fingerprint ---------------------------------------------------------------------------
  Fingerprint& fp = ctx.stats.fingerprint;
  Fingerprint::add(fp.drivers, driver);
  Fingerprint::add(fp.cuda, cuda);
  if (!is_missing_text(name)) Fingerprint::add(fp.gpus, name);
  std::string key = !bus_id.empty() ? std::string(bus_id) : fmt::format("#{}", index);
  if (std::find(m_gpu_keys.begin(), m_gpu_keys.end(), key) == m_gpu_keys.end()) m_gpu_keys.push_back(std::move(key));
  fp.gpu_count = std::max<std::uint64_t>(fp.gpu_count, m_gpu_keys.size());

  // ---- sample: the current readings ---------------------------------------------------------
  ev.reset();
  ev.kind = "sample";
  metric(Metric::power_w, {SmiSlot::power_draw, SmiSlot::power_avg, SmiSlot::power_inst});
  metric(Metric::temp_c, {SmiSlot::temp_gpu});
  metric(Metric::mem_temp_c, {SmiSlot::temp_mem});
  metric(Metric::sm_pct, {SmiSlot::util_gpu});
  metric(Metric::mem_pct, {SmiSlot::util_mem});
  metric(Metric::enc_pct, {SmiSlot::util_enc});
  metric(Metric::dec_pct, {SmiSlot::util_dec});
  metric(Metric::jpg_pct, {SmiSlot::util_jpg});
  metric(Metric::ofa_pct, {SmiSlot::util_ofa});
  metric(Metric::mclk_mhz, {SmiSlot::clk_mem});
  metric(Metric::pclk_mhz, {SmiSlot::clk_sm, SmiSlot::clk_graphics});
  metric(Metric::fb_mib, {SmiSlot::fb_used});
  metric(Metric::fb_total_mib, {SmiSlot::fb_total});
  metric(Metric::bar1_mib, {SmiSlot::bar1_used});
  metric(Metric::ccpm_mib, {SmiSlot::ccpm_used});
  metric(Metric::fan_pct, {SmiSlot::fan});
  metric(Metric::pstate, {SmiSlot::pstate, SmiSlot::pstate_power});
  if (any_reason) ev.set(Metric::throttle_mask, static_cast<double>(mask));
  if (ev.present == 0) return;  // a -d filter without readings (e.g. -d ECC)
  if (!bus_id.empty()) ev.add_text("pci_bus_id", bus_id);
  ctx.emit();
}

}  // namespace gpucost::prep

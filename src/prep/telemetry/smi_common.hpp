// Shared by the nvidia-smi -q text parser and the -q -x XML parser (docs/formats.md, "nvidia-smi -q"): one model
// of a snapshot (header + GPU blocks), filled by either parser from its own key names, and the
// gpu_info / sample events made from it, so both formats give the same fields. Internal to prep.
#pragma once

#include "prep/line_parser.hpp"
#include "prep/row_clock.hpp"

#include <gpucost/prep/prep.hpp>

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpucost::prep {

/// One value of a GPU block that gpucost uses. Several slots feed one output key with a
/// priority (e.g. power_draw, else power_avg, else power_inst -> power_w).
// clang-format off
enum class SmiSlot : std::uint8_t {
  name, uuid, bus_id, vbios, persistence, minor, architecture, driver_model, mig_mode, ecc_mode,
  pcie_gen, pcie_gen_max, pcie_width, pcie_width_max,
  fan, pstate, pstate_power,  // Performance State; old "Power State" inside the power block
  fb_used, fb_total, bar1_used, ccpm_used,
  util_gpu, util_mem, util_enc, util_dec, util_jpg, util_ofa,
  temp_gpu, temp_mem,
  power_draw, power_avg, power_inst,
  limit_enforced, limit_current, limit_plain, limit_default, limit_max,
  clk_sm, clk_graphics, clk_mem, maxclk_sm, maxclk_graphics, maxclk_mem,
  retired_sbe, retired_dbe, retired_pending, retired_pending_old,
  remap_corr, remap_unc, remap_pending, remap_failure,
  // clocks throttle / event reasons, in NVML bit order (bit i = slot - thr_idle), then "Unknown"
  thr_idle, thr_app_clocks, thr_sw_power_cap, thr_hw_slowdown, thr_sync_boost, thr_sw_thermal,
  thr_hw_thermal, thr_hw_power_brake, thr_display_clock, thr_unknown,
  // Clocks Event Reasons Counters (µs), same order as the output fields
  ctr_sw_power_cap, ctr_sync_boost, ctr_sw_thermal, ctr_hw_thermal, ctr_hw_power_brake,
  count_
};
// clang-format on
inline constexpr std::size_t kSmiSlotCount = static_cast<std::size_t>(SmiSlot::count_);

/// The lines before the GPU blocks of one snapshot (a -q log block, an XML document).
struct SmiHeader {
  std::string timestamp, driver_version, cuda_version, kmd_version, cuda_umd_version, attached_gpus;
  void clear() {
    timestamp.clear();
    driver_version.clear();
    cuda_version.clear();
    kmd_version.clear();
    cuda_umd_version.clear();
    attached_gpus.clear();
  }
};

/// The values of one GPU block; the first value seen for a slot wins.
struct SmiGpu {
  std::string id;        ///< "GPU <id>" line / <gpu id="...">, as printed
  int mig_devices = -1;  ///< MIG Device subsections seen (-1: no MIG Devices section)
  void clear() {
    id.clear();
    mig_devices = -1;
    m_has.reset();
  }
  void set(SmiSlot s, std::string_view v) {
    const auto i = static_cast<std::size_t>(s);
    if (m_has[i]) return;
    m_has[i] = true;
    m_values[i].assign(v);
  }
  [[nodiscard]] bool has(SmiSlot s) const { return m_has[static_cast<std::size_t>(s)]; }
  [[nodiscard]] std::string_view get(SmiSlot s) const {
    const auto i = static_cast<std::size_t>(s);
    return m_has[i] ? std::string_view(m_values[i]) : std::string_view();
  }

 private:
  std::array<std::string, kSmiSlotCount> m_values;
  std::bitset<kSmiSlotCount> m_has;
};

/// Lower-cased key path (e.g. "pci/gpu link info/pcie generation/current") -> slot.
using SmiKeyMap = std::unordered_map<std::string, SmiSlot>;

/// "Tue Jul 14 08:12:53 2026" / "Thu Jan  4 14:41:13 2024" (ctime, local, no zone).
std::optional<CivilTime> parse_ctime(std::string_view s);

/// "00000000:18:00.0", "0000:01:05.0" (304/325) and "0:2:0" (270: domain:bus:device) ->
/// "00000000:18:00.0" (8-hex domain, upper-case hex, as nvidia-smi >= 400 prints it); the text
/// as given when it is none of these.
std::string normalize_bus_id(std::string_view id);

/// "43.89 W", "16x", "P0", "40 C" -> the number and its JSON text (a view into `value`); false
/// for "N/A", "[N/A]", "Not Active", "Requested functionality has been deprecated", ...
bool smi_number(std::string_view value, double& out, std::string_view& json_text);

/// "==============NVSMI LOG==============" (any number of '=').
bool is_smi_banner(std::string_view line);
/// "GPU 00000000:18:00.0", "GPU 0000:01:05.0", "GPU 0:2:0" at column 0: the id, else empty.
std::string_view smi_gpu_line_id(std::string_view line);
/// Splits "    Key      : value" (the first ':' followed by a blank or the end) into indent, key
/// and value; false for a section line (then `key` is the section name).
bool split_smi_line(std::string_view line, std::size_t& indent, std::string_view& key, std::string_view& value);

/// Makes the events of the snapshots of one input and keeps what spans snapshots: the clock,
/// the snapshot count, the GPUs seen (fingerprint).
class SmiEmitter {
 public:
  SmiEmitter(ParseContext& ctx, std::string_view source);

  /// Emits one gpu_info and (when it has readings) one sample event per GPU of a snapshot,
  /// all at the snapshot's time. Returns the number of events.
  std::uint64_t emit_snapshot(ParseContext& ctx, const SmiHeader& header, const std::vector<SmiGpu>& gpus);

 private:
  std::int64_t snapshot_ts(ParseContext& ctx, const SmiHeader& header);
  void emit_gpu(ParseContext& ctx, const SmiHeader& header, const SmiGpu& gpu, std::int32_t index, std::int64_t ts);

  std::string_view m_source;
  RowClock m_clock;
  std::uint64_t m_snapshots = 0;
  std::vector<std::string> m_gpu_keys;  // distinct GPUs seen, for the fingerprint
  std::string m_bus_id, m_reasons;      // scratch, alive during emit
};

}  // namespace gpucost::prep

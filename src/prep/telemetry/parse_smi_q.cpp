// nvidia-smi -q text (docs/formats.md, "nvidia-smi -q"): log blocks of a header (Timestamp, Driver Version, CUDA
// Version, Attached GPUs) and one "GPU <bus id>" block per GPU, e.g.
//   ==============NVSMI LOG==============
//   Timestamp                                 : Wed Sep 25 10:40:24 2024
//   Driver Version                            : 535.129.03
//   GPU 00000000:07:00.0
//       Product Name                          : NVIDIA A10
//       Clocks Event Reasons
//           Idle                              : Active
// Keys are found by their section path (a stack of section names by indent), never by column:
// the ':' sits at column 32, 36, 42 or 55 depending on the driver. A snapshot's lines are held
// (deferred) until the snapshot ends (next banner, a repeated GPU, end of input); its GPUs then
// become gpu_info + sample events and its lines event lines.
#include "prep/parsers.hpp"
#include "smi_common.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep {

namespace {

constexpr std::size_t kMaxGpusPerSnapshot = 1024;  // beyond: emitted at once (bounded memory)

// Section-path keys, lower case. Power, throttle and counter blocks are matched by their block
// and last key only (610 nests the limits one level deeper, under "GPU Ceiling Power Limit").
const SmiKeyMap& key_map() {
  static const SmiKeyMap map = {
      {"product name", SmiSlot::name},
      {"gpu uuid", SmiSlot::uuid},
      {"vbios version", SmiSlot::vbios},
      {"persistence mode", SmiSlot::persistence},
      {"minor number", SmiSlot::minor},
      {"product architecture", SmiSlot::architecture},
      {"driver model/current", SmiSlot::driver_model},
      {"mig mode/current", SmiSlot::mig_mode},
      {"ecc mode/current", SmiSlot::ecc_mode},
      {"pci/bus id", SmiSlot::bus_id},
      {"pci/gpu link info/pcie generation/current", SmiSlot::pcie_gen},
      {"pci/gpu link info/pcie generation/max", SmiSlot::pcie_gen_max},
      {"pci/gpu link info/link width/current", SmiSlot::pcie_width},
      {"pci/gpu link info/link width/max", SmiSlot::pcie_width_max},
      {"fan speed", SmiSlot::fan},
      {"performance state", SmiSlot::pstate},
      {"fb memory usage/used", SmiSlot::fb_used},
      {"fb memory usage/total", SmiSlot::fb_total},
      {"memory usage/used", SmiSlot::fb_used},  // 270.x, in "Mb" (= MiB)
      {"memory usage/total", SmiSlot::fb_total},
      {"bar1 memory usage/used", SmiSlot::bar1_used},
      {"conf compute protected memory usage/used", SmiSlot::ccpm_used},
      {"utilization/gpu", SmiSlot::util_gpu},
      {"utilization/memory", SmiSlot::util_mem},
      {"utilization/encoder", SmiSlot::util_enc},
      {"utilization/decoder", SmiSlot::util_dec},
      {"utilization/jpeg", SmiSlot::util_jpg},
      {"utilization/ofa", SmiSlot::util_ofa},
      {"temperature/gpu current temp", SmiSlot::temp_gpu},
      {"temperature/gpu", SmiSlot::temp_gpu},  // <= 4xx: "Gpu : 49 C"
      {"temperature/memory current temp", SmiSlot::temp_mem},
      {"power/power draw", SmiSlot::power_draw},
      {"power/average power draw", SmiSlot::power_avg},
      {"power/instantaneous power draw", SmiSlot::power_inst},
      {"power/enforced power limit", SmiSlot::limit_enforced},
      {"power/current power limit", SmiSlot::limit_current},
      {"power/power limit", SmiSlot::limit_plain},
      {"power/default power limit", SmiSlot::limit_default},
      {"power/max power limit", SmiSlot::limit_max},
      {"power/power state", SmiSlot::pstate_power},
      {"clocks/sm", SmiSlot::clk_sm},
      {"clocks/graphics", SmiSlot::clk_graphics},
      {"clocks/memory", SmiSlot::clk_mem},
      {"max clocks/sm", SmiSlot::maxclk_sm},
      {"max clocks/graphics", SmiSlot::maxclk_graphics},
      {"max clocks/memory", SmiSlot::maxclk_mem},
      {"retired pages/single bit ecc", SmiSlot::retired_sbe},
      {"retired pages/double bit ecc", SmiSlot::retired_dbe},
      {"retired pages/pending page blacklist", SmiSlot::retired_pending},
      {"retired pages/pending", SmiSlot::retired_pending_old},
      {"remapped rows/correctable error", SmiSlot::remap_corr},
      {"remapped rows/uncorrectable error", SmiSlot::remap_unc},
      {"remapped rows/pending", SmiSlot::remap_pending},
      {"remapped rows/remapping failure occurred", SmiSlot::remap_failure},
      {"thr/idle", SmiSlot::thr_idle},
      {"thr/applications clocks setting", SmiSlot::thr_app_clocks},
      {"thr/user defined clocks", SmiSlot::thr_app_clocks},  // 3xx name of the same reason
      {"thr/sw power cap", SmiSlot::thr_sw_power_cap},
      {"thr/hw slowdown", SmiSlot::thr_hw_slowdown},
      {"thr/sync boost", SmiSlot::thr_sync_boost},
      {"thr/sw thermal slowdown", SmiSlot::thr_sw_thermal},
      {"thr/hw thermal slowdown", SmiSlot::thr_hw_thermal},
      {"thr/hw power brake slowdown", SmiSlot::thr_hw_power_brake},
      {"thr/display clock setting", SmiSlot::thr_display_clock},
      {"thr/unknown", SmiSlot::thr_unknown},
      {"ctr/sw power capping", SmiSlot::ctr_sw_power_cap},
      {"ctr/sync boost", SmiSlot::ctr_sync_boost},
      {"ctr/sw thermal slowdown", SmiSlot::ctr_sw_thermal},
      {"ctr/hw thermal slowdown", SmiSlot::ctr_hw_thermal},
      {"ctr/hw power braking", SmiSlot::ctr_hw_power_brake},
  };
  return map;
}

void append_lower(std::string& out, std::string_view s) {
  for (char c : s) out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
}

class SmiQParser final : public LineParser {
 public:
  explicit SmiQParser(ParseContext& ctx) : m_emitter(ctx, "smi-q") {}

  LineResult parse(std::string_view raw, ParseContext& ctx) override {
    const std::string_view line = text::rtrim(raw);
    if (text::trim(line).empty()) return LineResult::ignored;
    if (is_smi_banner(line)) {
      end_snapshot(ctx);
      return defer(ctx);
    }
    if (const std::string_view id = smi_gpu_line_id(line); !id.empty()) {
      close_gpu();
      for (const SmiGpu& g : m_gpus) {
        if (g.id == id) {  // the same GPU again without a banner: a new snapshot
          end_snapshot(ctx);
          break;
        }
      }
      if (m_gpus.size() >= kMaxGpusPerSnapshot) flush_gpus(ctx);
      m_current.clear();
      m_current.id.assign(id);
      m_in_gpu = true;
      m_stack.clear();
      return defer(ctx);
    }
    std::size_t indent = 0;
    std::string_view key, value;
    const bool kv = split_smi_line(line, indent, key, value);
    if (indent == 0) {
      if (!kv) return ctx.malformed("neither 'key : value', a section name inside a GPU block, nor 'GPU <bus id>'");
      return header_line(ctx, key, value);
    }
    if (!m_in_gpu) return ctx.malformed("indented line before any 'GPU <bus id>' line");
    gpu_line(indent / 4, kv, key, value);
    return defer(ctx);
  }

  void finish(ParseContext& ctx) override { end_snapshot(ctx); }

  // The run that read these lines ended the snapshot open here, or its rest is skipped: it is
  // dropped unread (one cut at 4 KiB would pass for a snapshot of fewer GPUs, nvidia-smi -i).
  void end_replay(ParseContext& /*ctx*/) override {
    m_in_gpu = false;
    m_gpus.clear();
    m_pending = m_events = 0;
    m_header.clear();
    m_stack.clear();
  }

 private:
  LineResult defer(ParseContext& ctx) {
    if (m_pending == 0) m_pending_first = ctx.line_no;
    ++m_pending;
    return LineResult::deferred;
  }

  LineResult header_line(ParseContext& ctx, std::string_view key, std::string_view value) {
    m_path.clear();
    append_lower(m_path, key);
    if (m_path == "timestamp" && (m_in_gpu || !m_gpus.empty() || !m_header.timestamp.empty()))
      end_snapshot(ctx);  // a new log block whose banner is missing
    close_gpu();
    std::string* slot = nullptr;
    if (m_path == "timestamp")
      slot = &m_header.timestamp;
    else if (m_path == "driver version")
      slot = &m_header.driver_version;
    else if (m_path == "cuda version")
      slot = &m_header.cuda_version;
    else if (m_path == "kmd version")
      slot = &m_header.kmd_version;
    else if (m_path == "cuda umd version")
      slot = &m_header.cuda_umd_version;
    else if (m_path == "attached gpus")
      slot = &m_header.attached_gpus;
    if (slot != nullptr && slot->empty()) slot->assign(value);
    // "Unable to determine the device handle for GPU 0000:3B:00.0: Unknown Error": a GPU nvidia-smi
    // could not reach (fallen off the bus) has no block; the others keep their Minor Number.
    if (m_path.rfind("unable to determine the device handle", 0) == 0)
      add_note(ctx.stats, "nvidia-smi could not reach a GPU: " + std::string(key) + ": " + std::string(value));
    return defer(ctx);
  }

  // A line of a GPU block at `depth` (1 = directly under "GPU ..."). The stack holds the names of
  // the open sections (and of key lines, which can have children: "HW Slowdown", "Process ID").
  void gpu_line(std::size_t depth, bool kv, std::string_view key, std::string_view value) {
    if (depth == 0) depth = 1;
    m_stack.resize(depth - 1);
    m_stack.emplace_back();
    append_lower(m_stack.back(), key);
    if (!kv && depth == 2 && m_stack[0] == "mig devices" && m_stack[1] == "mig device") {
      m_current.mig_devices = std::max(m_current.mig_devices, 0) + 1;
      return;
    }
    if (!kv && depth == 1 && m_stack[0] == "mig devices" && m_current.mig_devices < 0) m_current.mig_devices = 0;
    if (!kv) return;
    const std::string& top = m_stack[0];
    m_path.clear();
    if (depth > 1 && (top == "power readings" || top == "gpu power readings")) {
      m_path = "power/";
    } else if (depth > 1 && (top == "clocks throttle reasons" || top == "clocks event reasons")) {
      m_path = "thr/";
    } else if (depth > 1 && top == "clocks event reasons counters") {
      m_path = "ctr/";
    } else if (top == "mig devices" || top == "processes") {
      return;  // per-MIG-instance and per-process values are not the GPU's
    } else {
      for (std::size_t i = 0; i + 1 < m_stack.size(); ++i) {
        m_path += m_stack[i];
        m_path += '/';
      }
    }
    m_path += m_stack.back();
    const auto it = key_map().find(m_path);
    if (it != key_map().end()) m_current.set(it->second, value);
  }

  void close_gpu() {
    if (!m_in_gpu) return;
    m_gpus.push_back(m_current);
    m_in_gpu = false;
  }

  void flush_gpus(ParseContext& ctx) {
    close_gpu();
    m_events += m_emitter.emit_snapshot(ctx, m_header, m_gpus);
    m_gpus.clear();
  }

  // The snapshot is complete: its GPUs become events, its lines event lines (ignored when it
  // had no GPU block, e.g. "Attached GPUs : 0").
  void end_snapshot(ParseContext& ctx) {
    flush_gpus(ctx);
    if (m_pending > 0) ctx.settle(m_events > 0 ? LineResult::event : LineResult::ignored, m_pending, m_pending_first);
    m_pending = 0;
    m_events = 0;
    m_header.clear();
    m_stack.clear();
  }

  SmiEmitter m_emitter;
  SmiHeader m_header;
  std::vector<SmiGpu> m_gpus;  // closed GPU blocks of the current snapshot
  SmiGpu m_current;
  bool m_in_gpu = false;
  std::vector<std::string> m_stack;
  std::string m_path;
  std::uint64_t m_pending = 0, m_pending_first = 0, m_events = 0;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_smi_q_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<SmiQParser>(ctx));
}

}  // namespace gpucost::prep

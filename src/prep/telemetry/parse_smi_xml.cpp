// nvidia-smi -q -x XML (docs/formats.md, "nvidia-smi -q -x"): one <nvidia_smi_log> document per snapshot, several
// back to back with -l. The lines of a document are held (deferred) until its closing tag, then
// parsed with pugixml: DOCTYPE declarations are skipped, never fetched (pugixml resolves no
// external entity). Elements map onto the same model as the text form (smi_common.hpp), so both
// give the same gpu_info and sample fields.
#include "prep/parsers.hpp"
#include "smi_common.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <pugixml.hpp>

#include <algorithm>
#include <cstring>

namespace gpucost::prep {

namespace {

constexpr std::size_t kMaxDocumentBytes = 16u << 20;  // a larger document is malformed

// Element paths below <gpu>, with the same grouping as the text parser: power blocks by their
// last element, throttle reasons and counters by their suffix.
const SmiKeyMap& key_map() {
  static const SmiKeyMap map = {
      {"product_name", SmiSlot::name},
      {"uuid", SmiSlot::uuid},
      {"vbios_version", SmiSlot::vbios},
      {"persistence_mode", SmiSlot::persistence},
      {"minor_number", SmiSlot::minor},
      {"product_architecture", SmiSlot::architecture},
      {"driver_model/current_dm", SmiSlot::driver_model},
      {"mig_mode/current_mig", SmiSlot::mig_mode},
      {"ecc_mode/current_ecc", SmiSlot::ecc_mode},
      {"pci/pci_bus_id", SmiSlot::bus_id},
      {"pci/pci_gpu_link_info/pcie_gen/current_link_gen", SmiSlot::pcie_gen},
      {"pci/pci_gpu_link_info/pcie_gen/max_link_gen", SmiSlot::pcie_gen_max},
      {"pci/pci_gpu_link_info/link_widths/current_link_width", SmiSlot::pcie_width},
      {"pci/pci_gpu_link_info/link_widths/max_link_width", SmiSlot::pcie_width_max},
      {"fan_speed", SmiSlot::fan},
      {"performance_state", SmiSlot::pstate},
      {"fb_memory_usage/used", SmiSlot::fb_used},
      {"fb_memory_usage/total", SmiSlot::fb_total},
      {"bar1_memory_usage/used", SmiSlot::bar1_used},
      {"cc_protected_memory_usage/used", SmiSlot::ccpm_used},
      {"utilization/gpu_util", SmiSlot::util_gpu},
      {"utilization/memory_util", SmiSlot::util_mem},
      {"utilization/encoder_util", SmiSlot::util_enc},
      {"utilization/decoder_util", SmiSlot::util_dec},
      {"utilization/jpeg_util", SmiSlot::util_jpg},
      {"utilization/ofa_util", SmiSlot::util_ofa},
      {"temperature/gpu_temp", SmiSlot::temp_gpu},
      {"temperature/memory_temp", SmiSlot::temp_mem},
      {"power/power_draw", SmiSlot::power_draw},
      {"power/average_power_draw", SmiSlot::power_avg},
      {"power/instant_power_draw", SmiSlot::power_inst},
      {"power/enforced_power_limit", SmiSlot::limit_enforced},
      {"power/current_power_limit", SmiSlot::limit_current},
      {"power/power_limit", SmiSlot::limit_plain},
      {"power/default_power_limit", SmiSlot::limit_default},
      {"power/max_power_limit", SmiSlot::limit_max},
      {"power/power_state", SmiSlot::pstate_power},
      {"clocks/sm_clock", SmiSlot::clk_sm},
      {"clocks/graphics_clock", SmiSlot::clk_graphics},
      {"clocks/mem_clock", SmiSlot::clk_mem},
      {"max_clocks/sm_clock", SmiSlot::maxclk_sm},
      {"max_clocks/graphics_clock", SmiSlot::maxclk_graphics},
      {"max_clocks/mem_clock", SmiSlot::maxclk_mem},
      {"retired_pages/multiple_single_bit_retirement/retired_count", SmiSlot::retired_sbe},
      {"retired_pages/double_bit_retirement/retired_count", SmiSlot::retired_dbe},
      {"retired_pages/pending_blacklist", SmiSlot::retired_pending},
      {"retired_pages/pending_retirement", SmiSlot::retired_pending_old},
      {"remapped_rows/remapped_row_corr", SmiSlot::remap_corr},
      {"remapped_rows/remapped_row_unc", SmiSlot::remap_unc},
      {"remapped_rows/remapped_row_pending", SmiSlot::remap_pending},
      {"remapped_rows/remapped_row_failure", SmiSlot::remap_failure},
      {"thr/gpu_idle", SmiSlot::thr_idle},
      {"thr/applications_clocks_setting", SmiSlot::thr_app_clocks},
      {"thr/user_defined_clocks", SmiSlot::thr_app_clocks},
      {"thr/sw_power_cap", SmiSlot::thr_sw_power_cap},
      {"thr/hw_slowdown", SmiSlot::thr_hw_slowdown},
      {"thr/sync_boost", SmiSlot::thr_sync_boost},
      {"thr/sw_thermal_slowdown", SmiSlot::thr_sw_thermal},
      {"thr/hw_thermal_slowdown", SmiSlot::thr_hw_thermal},
      {"thr/hw_power_brake_slowdown", SmiSlot::thr_hw_power_brake},
      {"thr/display_clocks_setting", SmiSlot::thr_display_clock},
      {"thr/display_clock_setting", SmiSlot::thr_display_clock},
      {"thr/unknown", SmiSlot::thr_unknown},
      {"ctr/sw_power_cap", SmiSlot::ctr_sw_power_cap},
      {"ctr/sync_boost", SmiSlot::ctr_sync_boost},
      {"ctr/sw_therm_slowdown", SmiSlot::ctr_sw_thermal},
      {"ctr/hw_therm_slowdown", SmiSlot::ctr_hw_thermal},
      {"ctr/hw_power_brake", SmiSlot::ctr_hw_power_brake},
  };
  return map;
}

std::string_view node_text(const pugi::xml_node& n) { return text::trim(n.child_value()); }

bool has_element_child(const pugi::xml_node& n) {
  for (const pugi::xml_node c : n.children())
    if (c.type() == pugi::node_element) return true;
  return false;
}

// Walks the subtree of <gpu>, filling `gpu` from the leaves whose path is in the map.
class GpuWalker {
 public:
  explicit GpuWalker(SmiGpu& gpu) : m_gpu(gpu) {}

  void walk(const pugi::xml_node& node) {
    for (const pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element) continue;
      const std::string_view name = child.name();
      if (m_path.empty()) {
        if (name == "processes" || name == "accounted_processes" || name == "supported_clocks") continue;
        if (name == "mig_devices") {
          int n = 0;
          for (const pugi::xml_node d : child.children("mig_device")) {
            (void)d;
            ++n;
          }
          m_gpu.mig_devices = n;
          continue;
        }
      }
      if (has_element_child(child)) {
        m_path.push_back(name);
        walk(child);
        m_path.pop_back();
      } else {
        leaf(name, node_text(child));
      }
    }
  }

 private:
  void leaf(std::string_view name, std::string_view value) {
    m_key.clear();
    const std::string_view top = m_path.empty() ? std::string_view() : m_path.front();
    if (top == "power_readings" || top == "gpu_power_readings") {
      m_key = "power/";
    } else if (top == "clocks_throttle_reasons" || top == "clocks_event_reasons") {
      m_key = "thr/";
      for (std::string_view prefix : {"clocks_throttle_reason_", "clocks_event_reason_"})
        if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
    } else if (top == "clocks_event_reasons_counters" || top == "clocks_throttle_reasons_counters") {
      m_key = "ctr/";
      for (std::string_view prefix : {"clocks_event_reasons_counters_", "clocks_throttle_reasons_counters_"})
        if (name.starts_with(prefix)) name.remove_prefix(prefix.size());
    } else {
      for (std::string_view p : m_path) {
        m_key += p;
        m_key += '/';
      }
    }
    m_key += name;
    const auto it = key_map().find(m_key);
    if (it != key_map().end()) m_gpu.set(it->second, value);
  }

  SmiGpu& m_gpu;
  std::vector<std::string_view> m_path;  // element names below <gpu>
  std::string m_key;
};

class SmiXmlParser final : public LineParser {
 public:
  explicit SmiXmlParser(ParseContext& ctx) : m_emitter(ctx, "smi-xml") {}

  LineResult parse(std::string_view line, ParseContext& ctx) override {
    const std::string_view body = text::trim(line);
    const bool starts_doc = body.starts_with("<?xml") || body.starts_with("<!DOCTYPE nvidia_smi_log") ||
                            body.starts_with("<nvidia_smi_log");
    if (m_lines > 0 && starts_doc && (m_seen_root || body.starts_with("<?xml"))) {
      // A new document before the previous one closed: that one was cut short.
      fail(ctx, "XML document not closed (no </nvidia_smi_log> before the next document)");
    }
    if (m_lines == 0) {
      if (body.empty()) return LineResult::ignored;
      if (!starts_doc) return ctx.malformed("text outside an <nvidia_smi_log> document");
      m_first_line = ctx.line_no;
    }
    ++m_lines;
    if (body.find("<nvidia_smi_log") != std::string_view::npos) m_seen_root = true;
    if (!m_oversize) {
      if (m_doc.size() + line.size() + 1 > kMaxDocumentBytes) {
        m_oversize = true;
        std::string().swap(m_doc);
      } else {
        m_doc.append(line);
        m_doc.push_back('\n');
      }
    }
    if (body.find("</nvidia_smi_log>") != std::string_view::npos) end_document(ctx);
    return LineResult::deferred;
  }

  void finish(ParseContext& ctx) override {
    if (m_lines > 0) fail(ctx, "input ends inside an XML document (no </nvidia_smi_log>)");
  }

  // A document open here was reported by the run that read it (or its rest is skipped).
  void end_replay(ParseContext& /*ctx*/) override { reset_document(); }

 private:
  void reset_document() {
    m_doc.clear();
    m_lines = 0;
    m_oversize = false;
    m_seen_root = false;
  }

  void fail(ParseContext& ctx, std::string_view why, std::uint64_t line = 0, std::string_view excerpt = {}) {
    ctx.settle(LineResult::malformed, m_lines, line != 0 ? line : m_first_line, why, excerpt);
    reset_document();
  }

  void end_document(ParseContext& ctx) {
    if (m_oversize) {
      fail(ctx, fmt::format("XML document larger than {} MiB", kMaxDocumentBytes >> 20));
      return;
    }
    pugi::xml_document doc;
    // parse_default skips the DOCTYPE (parse_doctype is off) and expands only the predefined and
    // numeric entities: nothing is ever fetched.
    const pugi::xml_parse_result res =
        doc.load_buffer(m_doc.data(), m_doc.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!res) {
      const auto offset = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, res.offset));
      const std::string_view upto = std::string_view(m_doc).substr(0, std::min(offset, m_doc.size()));
      const std::uint64_t at = m_first_line + static_cast<std::uint64_t>(std::count(upto.begin(), upto.end(), '\n'));
      const std::size_t bol = upto.rfind('\n') == std::string_view::npos ? 0 : upto.rfind('\n') + 1;
      const std::string_view rest = std::string_view(m_doc).substr(bol);
      fail(ctx, fmt::format("XML parse error: {} (line {})", res.description(), at), at,
           rest.substr(0, rest.find('\n')));
      return;
    }
    const pugi::xml_node root = doc.child("nvidia_smi_log");
    if (!root) {
      fail(ctx, "XML document without an <nvidia_smi_log> root");
      return;
    }
    m_header.clear();
    m_header.timestamp = node_text(root.child("timestamp"));
    m_header.driver_version = node_text(root.child("driver_version"));
    m_header.cuda_version = node_text(root.child("cuda_version"));
    m_header.kmd_version = node_text(root.child("kmd_version"));
    m_header.cuda_umd_version = node_text(root.child("cuda_umd_version"));
    m_header.attached_gpus = node_text(root.child("attached_gpus"));
    m_gpus.clear();
    for (const pugi::xml_node g : root.children("gpu")) {
      m_gpus.emplace_back();
      SmiGpu& gpu = m_gpus.back();
      gpu.id = text::trim(g.attribute("id").value());
      GpuWalker(gpu).walk(g);
    }
    const std::uint64_t events = m_emitter.emit_snapshot(ctx, m_header, m_gpus);
    ctx.settle(events > 0 ? LineResult::event : LineResult::ignored, m_lines, m_first_line);
    reset_document();
  }

  SmiEmitter m_emitter;
  SmiHeader m_header;
  std::vector<SmiGpu> m_gpus;
  std::string m_doc;
  std::uint64_t m_lines = 0, m_first_line = 0;
  bool m_oversize = false, m_seen_root = false;
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_smi_xml_parser(ParseContext& ctx, std::string_view /*head*/) {
  return std::unique_ptr<LineParser>(std::make_unique<SmiXmlParser>(ctx));
}

}  // namespace gpucost::prep

#include <gpucost/core/event.hpp>

namespace gpucost {

const std::array<MetricInfo, kMetricCount> kMetricInfo = {{
    {"power_w", "board power draw, W (dmon pwr; query power.draw, else power.draw.average/instant)"},
    {"temp_c", "GPU core temperature, °C (dmon gtemp or old temp; query temperature.gpu)"},
    {"mem_temp_c", "memory (HBM) temperature, °C (dmon mtemp; query temperature.memory)"},
    {"sm_pct", "utilisation: share of the sample period with a kernel running, % (dmon sm; query utilization.gpu)"},
    {"mem_pct", "memory-controller utilisation, % (dmon mem; query utilization.memory)"},
    {"enc_pct", "video encoder utilisation, %"},
    {"dec_pct", "video decoder utilisation, %"},
    {"jpg_pct", "JPEG engine utilisation, %"},
    {"ofa_pct", "optical-flow accelerator utilisation, %"},
    {"mclk_mhz", "memory clock, MHz"},
    {"pclk_mhz", "graphics/SM clock, MHz (dmon pclk; query clocks.current.sm, else clocks.current.graphics)"},
    {"fb_mib", "framebuffer memory used, MiB (dmon fb; query memory.used; pmon fb per process)"},
    {"fb_total_mib", "framebuffer memory total, MiB (query memory.total)"},
    {"bar1_mib", "BAR1 memory used, MiB (dmon bar1)"},
    {"ccpm_mib", "confidential-compute protected memory used, MiB (dmon ccpm)"},
    {"fan_pct", "fan speed, % of maximum (query fan.speed)"},
    {"pviol_pct", "share of time in power-cap violation, % (dmon pviol)"},
    {"tviol_pct", "share of time in thermal violation, % (dmon tviol)"},
    {"sbecc_count", "single-bit ECC errors (dmon sbecc)"},
    {"dbecc_count", "double-bit ECC errors (dmon dbecc)"},
    {"pcie_err_count", "PCIe replay errors (dmon pci)"},
    {"rxpci_mb_s", "PCIe receive throughput, MB/s (dmon rxpci)"},
    {"txpci_mb_s", "PCIe transmit throughput, MB/s (dmon txpci)"},
    {"pstate", "performance state number, 0 = P0 (query pstate)"},
    {"power_limit_w", "enforced power limit, W (query enforced.power.limit, else power.limit)"},
    {"power_default_limit_w", "default power limit, W (query power.default_limit)"},
    {"power_max_limit_w", "maximum settable power limit, W (query power.max_limit)"},
    {"pclk_max_mhz", "maximum SM clock, MHz (query clocks.max.sm, else clocks.max.graphics)"},
    {"mclk_max_mhz", "maximum memory clock, MHz (query clocks.max.memory)"},
    {"throttle_mask", "active clock event (throttle) reasons bit mask (query clocks_event_reasons.active)"},
    {"pcie_gen", "current PCIe link generation (query pcie.link.gen.current)"},
    {"pcie_gen_max", "maximum PCIe link generation (query pcie.link.gen.max)"},
    {"pcie_width", "current PCIe link width, lanes (query pcie.link.width.current)"},
    {"pcie_width_max", "maximum PCIe link width, lanes (query pcie.link.width.max)"},
    {"pid", "process id (pmon)"},
}};

bool metric_from_key(std::string_view key, Metric& out) {
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    if (kMetricInfo[i].key == key) {
      out = static_cast<Metric>(i);
      return true;
    }
  }
  return false;
}

}  // namespace gpucost

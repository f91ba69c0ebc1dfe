// One telemetry sample as extract keeps it (the store holds them; a features document keeps
// each GPU's first and last, for merge).
#pragma once

#include <cstdint>
#include <limits>

namespace gpucost::extract {

/// The telemetry values extract uses from one sample; NaN = not in the sample. The four
/// original metrics and the energy counter stay double (their indicators keep their digits); the others are float,
/// which holds every value the sources print (integers, one decimal) and keeps a day of 8 GPUs
/// at 1 Hz small.
struct Sample {
  static constexpr float kNoF = std::numeric_limits<float>::quiet_NaN();
  std::int64_t ts_ns = 0;
  double power_w = std::numeric_limits<double>::quiet_NaN();   ///< W
  double util_pct = std::numeric_limits<double>::quiet_NaN();  ///< sm_pct, %
  double temp_c = std::numeric_limits<double>::quiet_NaN();    ///< °C
  double pclk_mhz = std::numeric_limits<double>::quiet_NaN();  ///< SM clock, MHz
  /// The GPU's total-energy counter, mJ since the driver loaded (DCGM field 156, `totec`; or
  /// nvidia_gpu_exporter's joules x 1000). A double: it passes 2^24 within seconds of load.
  double energy_mj = std::numeric_limits<double>::quiet_NaN();
  float mem_temp_c = kNoF;     ///< memory (HBM) temperature, °C
  float mem_pct = kNoF;        ///< memory-controller utilisation, %
  float mclk_mhz = kNoF;       ///< memory clock, MHz
  float fb_mib = kNoF;         ///< framebuffer used, MiB
  float fb_total_mib = kNoF;   ///< framebuffer total, MiB
  float enc_pct = kNoF;        ///< encoder utilisation, %
  float dec_pct = kNoF;        ///< decoder utilisation, %
  float rxpci_mb_s = kNoF;     ///< PCIe receive, MB/s
  float txpci_mb_s = kNoF;     ///< PCIe transmit, MB/s
  float power_limit_w = kNoF;  ///< enforced power limit, W
  float power_default_limit_w = kNoF;
  float pclk_max_mhz = kNoF;   ///< rated maximum SM clock, MHz
  float mclk_max_mhz = kNoF;   ///< rated maximum memory clock, MHz
  float throttle_mask = kNoF;  ///< clocks_event_reasons.active bits (exact in a float: < 2^24)
  // DCGM's profiling fields (dcgmi dmon -e 1002,...; DCGM_FI_PROF_*): ratios 0-1, NVLink MB/s.
  float sm_active = kNoF;                                                           ///< 1002 smact
  float sm_occupancy = kNoF;                                                        ///< 1003 smocc
  float tensor_active = kNoF;                                                       ///< 1004 tenso
  float dram_active = kNoF;                                                         ///< 1005 drama
  float fp64_active = kNoF;                                                         ///< 1006 fp64a
  float fp32_active = kNoF;                                                         ///< 1007 fp32a
  float fp16_active = kNoF;                                                         ///< 1008 fp16a
  float nvlink_tx_mb_s = kNoF;                                                      ///< 1011 nvltx (bytes/s) / 1e6
  float nvlink_rx_mb_s = kNoF;                                                      ///< 1012 nvlrx (bytes/s) / 1e6
  std::uint8_t pcie_gen = 0, pcie_gen_max = 0, pcie_width = 0, pcie_width_max = 0;  ///< 0 = not read
};

}  // namespace gpucost::extract

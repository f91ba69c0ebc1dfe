// An indicator's key, checked against the catalogue where the code names it: a literal that is no
// key of src/extract/catalogue.cpp does not compile (`value_of(set, "energy_kwhh")`), and a key
// computed at run time says so (`IndicatorKey::of(def.key)`).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace gpucost::extract {

/// Every key of the catalogue, in its order (a unit test holds the two equal).
inline constexpr std::array<std::string_view, 137> kIndicatorKeys = {{
    "wall_s",
    "coverage",
    "energy_kwh",
    "energy_filled_fraction",
    "power_mean_w",
    "power_p95_w",
    "power_max_w",
    "util_mean",
    "idle_fraction",
    "temp_mean_c",
    "temp_max_c",
    "time_above_78c_s",
    "sm_clock_ratio",
    "sample_interval_median_s",
    "samples",
    "gpu_count",
    "xid_count",
    "xid_restart_app_count",
    "xid_reset_gpu_count",
    "xid_reboot_count",
    "xid_contact_support_count",
    "gpu_lost_count",
    "aer_corrected_count",
    "aer_uncorrected_count",
    "suspend_count",
    "lid_close_count",
    "ac_offline_count",
    "gpu_busy_s",
    "gpu_idle_fraction_trace",
    "gpu_compute_fraction",
    "sm_active_mean",
    "launch_delay_p50_us",
    "launch_delay_p95_us",
    "launch_delay_p99_us",
    "short_kernel_fraction",
    "launch_delay_over_10ms_fraction",
    "kernels",
    "unmatched_gpu_events",
    "memcpy_s",
    "h2d_gbps",
    "d2h_gbps",
    "queue_length_mean",
    "collective_wait_fraction",
    "tensor_active_mean",
    "pattern_events",
    "pattern_duration_s",
    "energy_kwh_from_power",
    "energy_power_vs_counter_pct",
    "energy_low_kwh",
    "energy_high_kwh",
    "downtime_s",
    "energy_counter_coverage",
    "power_min_w",
    "idle_power_w",
    "idle_energy_kwh",
    "energy_per_busy_hour_kwh",
    "power_limit_time_s",
    "power_limit_share",
    "power_cv",
    "energy_counter_resets",
    "sm_occupancy_mean",
    "mem_temp_mean_c",
    "mem_temp_max_c",
    "dram_active_mean",
    "fp16_active_mean",
    "fp32_active_mean",
    "temp_rolling_crossings",
    "fp64_active_mean",
    "mclk_ratio",
    "sm_active_busy",
    "throttle_power_cap_fraction",
    "throttle_hw_slowdown_fraction",
    "throttle_hw_thermal_fraction",
    "throttle_sw_thermal_fraction",
    "nvlink_tx_mean_mb_s",
    "nvlink_rx_mean_mb_s",
    "throttle_onsets",
    "throttle_work_lost_fraction",
    "work_steps",
    "work_samples",
    "work_tokens",
    "mem_util_mean",
    "fb_used_max_mib",
    "work_epochs",
    "tokens_per_s",
    "energy_per_step_wh",
    "energy_per_1k_samples_wh",
    "pcie_rx_mean_mb_s",
    "exposed_comm_fraction",
    "pcie_tx_mean_mb_s",
    "comm_overlap_fraction",
    "pcie_gen_ratio",
    "pcie_width_ratio",
    "fault_count",
    "xid_first_s",
    "straggler_step_share",
    "fault_restart_app_count",
    "fault_reset_gpu_count",
    "thermal_event_count",
    "driver_load_count",
    "gpu_reset_count",
    "oom_kill_count",
    "sample_interval_max_s",
    "gap_count",
    "fault_unknown_count",
    "chain_errors_after_crossing",
    "fault_reboot_count",
    "fault_contact_support_count",
    "chain_error_share",
    "chain_lag_mean_s",
    "energy_per_1k_tokens_wh",
    "chain_util_drop_ratio",
    "error_util_drop_ratio",
    "energy_per_epoch_kwh",
    "battery_s",
    "idle_energy_share",
    "suspend_s",
    "interruptions_per_hour",
    "boot_count",
    "processes",
    "gpu_unavailable_s",
    "processes_max",
    "top_process_share",
    "idle_processes",
    "idle_process_fb_mib",
    "comm_kernel_fraction",
    "handle_holders",
    "top_kernel_share",
    "host_wait_fraction",
    "short_gap_fraction",
    "other_handle_holders",
    "trace_steps",
    "step_time_mean_s",
    "step_time_p95_s",
    "samples_per_s",
    "iterations_per_s",
    "fb_used_mean_mib",
}};

consteval bool is_indicator_key(std::string_view key) {
  for (const std::string_view k : kIndicatorKeys)
    if (k == key) return true;
  return false;
}

/// The key of one indicator of the catalogue.
class IndicatorKey {
 public:
  /// A key written in the code: checked when compiled.
  template <std::size_t N>
  consteval IndicatorKey(const char (&literal)[N]) : m_name(literal, N - 1) {  // NOLINT(google-explicit-constructor)
    if (!is_indicator_key(m_name)) throw "not a key of the indicator catalogue (src/extract/catalogue.cpp)";
  }
  /// A key taken from data at run time (the catalogue's rows, a document's members).
  static constexpr IndicatorKey of(std::string_view name) { return IndicatorKey(name, Unchecked{}); }

  [[nodiscard]] constexpr std::string_view name() const { return m_name; }
  constexpr operator std::string_view() const { return m_name; }  // NOLINT(google-explicit-constructor)

 private:
  struct Unchecked {};
  constexpr IndicatorKey(std::string_view name, Unchecked) : m_name(name) {}
  std::string_view m_name;
};

}  // namespace gpucost::extract

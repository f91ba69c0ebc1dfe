#include <gpucost/extract/catalogue.hpp>

#include <array>

namespace gpucost::extract {

namespace {

constexpr std::array kCatalogue = {
    IndicatorDef{
        "F001", "wall_s", "s", "job", "wall time",
        "length of the job window (to - from); the window is --from/--to, else first to last sample of any GPU"},
    IndicatorDef{
        "F002", "coverage", "ratio", "job", "sample coverage",
        "share of the window covered by sample intervals; intervals longer than max(10 s, 5 x median interval) "
        "are gaps and not bridged (host: mean over GPUs)"},
    IndicatorDef{"F003", "energy_kwh", "kWh", "power", "energy",
                 "the energy counter's increase when it covers the window (energy_method counter), plus its mean "
                 "power x the time it does not cover; else the trapezoid rule over covered power intervals, plus "
                 "power_mean_w x uncovered time of the window (host: sum over GPUs)"},
    IndicatorDef{"F004", "energy_filled_fraction", "ratio", "power", "filled share of energy",
                 "energy attributed to time the counter or the power samples do not cover / energy_kwh (host: over "
                 "the summed energies)"},
    IndicatorDef{"F005", "power_mean_w", "W", "power", "mean power",
                 "covered trapezoid energy / covered time; a lone sample gives its own value (host: mean over GPUs)"},
    IndicatorDef{
        "F006", "power_p95_w", "W", "power", "95th percentile power",
        "time-weighted 95th percentile: each sample weighs the covered interval it starts; exact up to 2048 distinct "
        "values, else within 0.5 % (quantile sketch) (host: mean over GPUs)"},
    IndicatorDef{"F007", "power_max_w", "W", "power", "maximum power",
                 "largest power sample in the window (host: max over GPUs)"},
    IndicatorDef{"F008", "util_mean", "ratio", "utilisation", "mean utilisation",
                 "time-weighted mean of utilisation/100, each sample holding until the next, covered intervals only "
                 "(host: mean over GPUs)"},
    IndicatorDef{"F009", "idle_fraction", "ratio", "utilisation", "idle share",
                 "share of covered utilisation time whose sample reads 0 % (host: mean over GPUs)"},
    IndicatorDef{"F010", "temp_mean_c", "°C", "thermal", "mean GPU temperature",
                 "time-weighted mean GPU temperature, samples holding until the next (host: mean over GPUs)"},
    IndicatorDef{"F011", "temp_max_c", "°C", "thermal", "maximum GPU temperature",
                 "largest GPU temperature sample in the window (host: max over GPUs)"},
    IndicatorDef{"F012", "time_above_78c_s", "s", "thermal", "time above 78 °C",
                 "covered time whose sample reads a GPU temperature above 78 °C (host: mean over GPUs)"},
    IndicatorDef{"F013", "sm_clock_ratio", "ratio", "clocks", "SM clock ratio",
                 "time-weighted mean SM clock / largest SM clock sample of the GPU (host: mean over GPUs)"},
    IndicatorDef{
        "F014", "sample_interval_median_s", "s", "job", "median sample interval",
        "median of the positive intervals between consecutive samples (the mean of the two middle ones for an even "
        "count); exact up to 2048 distinct intervals, else within 0.5 % (host: mean over GPUs)"},
    IndicatorDef{"F015", "samples", "count", "job", "samples",
                 "number of telemetry samples in the window (host: sum over GPUs)"},
    IndicatorDef{"F016", "gpu_count", "count", "job", "GPUs", "number of GPUs with samples in the window",
                 Scope::host_only},
    IndicatorDef{"F017", "xid_count", "count", "events", "Xid errors",
                 "NVRM Xid events in the window, every code (needs a kernel log, dmesg, journal or bug report)",
                 Scope::host_only},
    IndicatorDef{"F018", "xid_restart_app_count", "count", "events", "Xids: restart the application",
                 "Xid events whose NVIDIA resolution bucket is restart_app", Scope::host_only},
    IndicatorDef{"F019", "xid_reset_gpu_count", "count", "events", "Xids: reset the GPU",
                 "Xid events whose NVIDIA resolution bucket is reset_gpu", Scope::host_only},
    IndicatorDef{"F020", "xid_reboot_count", "count", "events", "Xids: reboot",
                 "Xid events whose NVIDIA resolution bucket is reboot", Scope::host_only},
    IndicatorDef{"F021", "xid_contact_support_count", "count", "events", "Xids: contact support",
                 "Xid events whose NVIDIA resolution bucket is contact_support (hardware)", Scope::host_only},
    IndicatorDef{"F022", "gpu_lost_count", "count", "events", "GPU fallen off the bus",
                 "gpu_lost events in the window (fallen off the bus, RmInitAdapter failed)", Scope::host_only},
    IndicatorDef{"F023", "aer_corrected_count", "count", "events", "PCIe AER corrected",
                 "aer events of severity corrected in the window", Scope::host_only},
    IndicatorDef{"F024", "aer_uncorrected_count", "count", "events", "PCIe AER uncorrected",
                 "aer events of severity uncorrected_nonfatal or uncorrected_fatal in the window", Scope::host_only},
    IndicatorDef{"F025", "suspend_count", "count", "events", "suspends",
                 "suspends in the window: suspend events closer than 120 s to the previous one are the same "
                 "suspend seen by another layer (logind, systemd-sleep, NVIDIA's unit, kernel)",
                 Scope::host_only},
    IndicatorDef{"F026", "lid_close_count", "count", "events", "lid closed", "lid events with state closed",
                 Scope::host_only},
    IndicatorDef{"F027", "ac_offline_count", "count", "events", "AC unplugged",
                 "power_source events with state offline (running on battery)", Scope::host_only},
    IndicatorDef{"F028", "gpu_busy_s", "s", "trace", "GPU busy time (trace)",
                 "length of the union of the intervals of the trace's kernels, memcpys and memsets over all streams "
                 "(host: sum over GPUs)"},
    IndicatorDef{
        "F029", "gpu_idle_fraction_trace", "ratio", "trace", "GPU idle share (trace)",
        "(span - busy) / span, span = first GPU op start to last GPU op end (host: summed idle / summed span)"},
    IndicatorDef{"F030", "gpu_compute_fraction", "ratio", "trace", "compute share (trace)",
                 "union of compute kernels (not nccl*/rccl*, not memcpy/memset) / span (host: summed / summed span)"},
    IndicatorDef{"F031", "gpu_noncompute_fraction", "ratio", "trace", "non-compute share (trace)",
                 "(busy - compute) / span: communication and memory operations not hidden under compute "
                 "(host: summed / summed span)"},
    IndicatorDef{"F032", "launch_delay_p50_us", "us", "trace", "median launch delay",
                 "50th percentile (linear) of max(0, GPU op start - launch call end) over ops joined to a launch "
                 "call on args.correlation (host: over all GPUs of one trace; absent for several traces)"},
    IndicatorDef{"F033", "launch_delay_p95_us", "us", "trace", "95th percentile launch delay",
                 "95th percentile (linear) of the launch delays, as launch_delay_p50_us"},
    IndicatorDef{"F034", "launch_delay_p99_us", "us", "trace", "99th percentile launch delay",
                 "99th percentile (linear) of the launch delays, as launch_delay_p50_us"},
    IndicatorDef{"F035", "short_kernel_fraction", "ratio", "trace", "short kernels",
                 "kernels shorter than 10 us / kernels (host: summed / summed)"},
    IndicatorDef{"F036", "launch_delay_over_10ms_fraction", "ratio", "trace", "launch delays over 10 ms",
                 "launch delays longer than 10 ms / launch delays (host: summed / summed)"},
    IndicatorDef{"F037", "kernels", "count", "trace", "kernels", "kernel events in the trace (host: sum)"},
    IndicatorDef{"F038", "unmatched_gpu_events", "count", "trace", "GPU ops without a launch",
                 "kernels, memcpys and memsets whose args.correlation matches no launch API call (host: sum)"},
    IndicatorDef{"F039", "memcpy_s", "s", "trace", "memcpy time", "summed durations of memcpy ops (host: sum)"},
    IndicatorDef{"F040", "h2d_gbps", "GB/s", "trace", "host-to-device bandwidth",
                 "bytes / time of HtoD memcpys that give args.bytes, 1 GB = 1e9 bytes (host: summed / summed)"},
    IndicatorDef{"F041", "d2h_gbps", "GB/s", "trace", "device-to-host bandwidth",
                 "bytes / time of DtoH memcpys that give args.bytes, 1 GB = 1e9 bytes (host: summed / summed)"},
    IndicatorDef{"F042", "queue_length_mean", "count", "trace", "mean queue length",
                 "per stream, time-weighted number of ops launched (call start) and not finished (op end), from "
                 "first launch to last end; mean over streams (host: mean over GPUs)"},
    IndicatorDef{"F043", "queue_length_max", "count", "trace", "maximum queue length",
                 "largest number of outstanding ops on one stream (host: max over GPUs)"},
    IndicatorDef{"F044", "net_gpu_time_s", "s", "trace", "net GPU time",
                 "gpu_busy_s from a trace; else the profiler table's Self CUDA time total; else the summed total "
                 "time of nsys's kernel and memory-operation summaries (host: sum)"},
    IndicatorDef{"F045", "pattern_events", "count", "trainlog", "lines matching --pattern",
                 "lines of the inputs matching a --pattern, in the window", Scope::host_only},
    IndicatorDef{"F046", "pattern_duration_s", "s", "trainlog", "summed --pattern durations",
                 "sum of the durations (dur_ns/dur_us/dur_ms/dur_s groups) of the lines matching a --pattern, in "
                 "the window",
                 Scope::host_only},
    IndicatorDef{"F047", "energy_left_kwh", "kWh", "power", "energy, left Riemann sum",
                 "each power sample held to the next over covered intervals, plus power_mean_w x uncovered time "
                 "(host: sum over GPUs)"},
    IndicatorDef{"F048", "energy_right_kwh", "kWh", "power", "energy, right Riemann sum",
                 "each covered interval at the power of its closing sample, plus power_mean_w x uncovered time "
                 "(host: sum over GPUs)"},
    IndicatorDef{"F049", "energy_low_kwh", "kWh", "power", "energy, lower bound",
                 "min(left, right sum) over covered intervals - 5 W x covered time, plus the smallest power sample "
                 "x uncovered time, at least 0; by the counter: its increase plus the smaller of the smallest power "
                 "sample and its mean power x the time it does not cover (host: sum over GPUs)"},
    IndicatorDef{"F050", "energy_high_kwh", "kWh", "power", "energy, upper bound",
                 "max(left, right sum) over covered intervals + 5 W x covered time, plus power_max_w x uncovered "
                 "time; by the counter: its increase plus the larger of power_max_w and its mean power x the time it "
                 "does not cover (host: sum over GPUs)"},
    IndicatorDef{"F051", "downtime_s", "s", "events", "downtime after incidents",
                 "union over Xid, gpu_lost, suspend and AC-offline events of [event, next sample of any GPU with "
                 "utilisation > 0], cut at the window end",
                 Scope::host_only},
    IndicatorDef{"F052", "power_p50_w", "W", "power", "median power",
                 "time-weighted 50th percentile of power, as power_p95_w (host: mean over GPUs)"},
    IndicatorDef{"F053", "power_min_w", "W", "power", "minimum power",
                 "smallest power sample in the window (host: min over GPUs)"},
    IndicatorDef{"F054", "idle_power_w", "W", "power", "idle power",
                 "trapezoid energy / time of the covered power intervals whose left sample reads utilisation 0 % "
                 "(host: mean over GPUs)"},
    IndicatorDef{"F055", "idle_energy_kwh", "kWh", "power", "energy while idle",
                 "trapezoid energy of the covered power intervals whose left sample reads utilisation 0 % (host: sum "
                 "over GPUs)"},
    IndicatorDef{"F056", "energy_per_busy_hour_kwh", "kWh/h", "power", "energy per busy hour",
                 "energy_kwh / busy_s in hours (host: summed energy / summed busy time)"},
    IndicatorDef{
        "F057", "power_limit_time_s", "s", "power", "time at the power limit",
        "covered power time whose left sample reads at least 95 % of its enforced power limit (host: mean over GPUs)"},
    IndicatorDef{"F058", "power_limit_share", "ratio", "power", "power-limit share",
                 "mean over samples of enforced power limit / default power limit (host: mean over GPUs)"},
    IndicatorDef{"F059", "power_cv", "ratio", "power", "power variability",
                 "time-weighted standard deviation / time-weighted mean of the held power (coefficient of variation) "
                 "(host: mean over GPUs)"},
    IndicatorDef{"F060", "temp_p50_c", "°C", "thermal", "median GPU temperature",
                 "time-weighted 50th percentile of the GPU temperature, as power_p95_w (host: mean over GPUs)"},
    IndicatorDef{"F061", "temp_p95_c", "°C", "thermal", "95th percentile GPU temperature",
                 "time-weighted 95th percentile of the GPU temperature, as power_p95_w (host: mean over GPUs)"},
    IndicatorDef{"F062", "mem_temp_mean_c", "°C", "thermal", "mean memory temperature",
                 "time-weighted mean memory (HBM) temperature (host: mean over GPUs)"},
    IndicatorDef{"F063", "mem_temp_max_c", "°C", "thermal", "maximum memory temperature",
                 "largest memory temperature sample (host: max over GPUs)"},
    IndicatorDef{"F064", "temp_crossings", "count", "thermal", "threshold crossings",
                 "consecutive temperature samples T(i) <= 78 °C < T(i+1), gaps included (host: sum over GPUs)"},
    IndicatorDef{"F065", "temp_steady_s", "s", "thermal", "time to thermal steady state",
                 "time from the first temperature sample to the first sample from which max - min of the temperature "
                 "stays <= 2 °C for the next 300 s (host: mean over GPUs)"},
    IndicatorDef{"F066", "temp_slope_5min_c_per_min", "°C/min", "thermal", "warm-up slope",
                 "least-squares slope of the temperature samples of the first 300 s after the first temperature sample "
                 "(host: mean over GPUs)"},
    IndicatorDef{"F067", "temp_rolling_crossings", "count", "thermal", "rolling-median threshold crossings",
                 "upward crossings of 78 °C by the median of the temperature samples of the trailing 15 s (host: sum "
                 "over GPUs)"},
    IndicatorDef{"F068", "mclk_mean_mhz", "MHz", "clocks", "mean memory clock",
                 "time-weighted mean memory clock (host: mean over GPUs)"},
    IndicatorDef{"F069", "mclk_ratio", "ratio", "clocks", "memory clock ratio",
                 "mclk_mean_mhz / max(rated maximum memory clock, largest memory clock sample) (host: mean over GPUs)"},
    IndicatorDef{"F070", "clock_efficiency", "ratio", "clocks", "SM clock efficiency",
                 "time-weighted mean SM clock / rated maximum SM clock (clocks.max.sm) (host: mean over GPUs)"},
    IndicatorDef{
        "F071", "throttle_power_cap_fraction", "ratio", "clocks", "time power-capped",
        "covered throttle-reason time whose left sample has the SW power cap bit (0x4) (host: mean over GPUs)"},
    IndicatorDef{
        "F072", "throttle_hw_slowdown_fraction", "ratio", "clocks", "time in HW slowdown",
        "covered throttle-reason time with the HW slowdown (0x8) or HW power brake (0x80) bit (host: mean over GPUs)"},
    IndicatorDef{"F073", "throttle_hw_thermal_fraction", "ratio", "clocks", "time in HW thermal slowdown",
                 "covered throttle-reason time with the HW thermal slowdown bit (0x40) (host: mean over GPUs)"},
    IndicatorDef{"F074", "throttle_sw_thermal_fraction", "ratio", "clocks", "time in SW thermal slowdown",
                 "covered throttle-reason time with the SW thermal slowdown bit (0x20) (host: mean over GPUs)"},
    IndicatorDef{"F075", "throttle_sync_boost_fraction", "ratio", "clocks", "time in sync boost",
                 "covered throttle-reason time with the sync boost bit (0x10) (host: mean over GPUs)"},
    IndicatorDef{"F076", "throttle_idle_fraction", "ratio", "clocks", "time clocked down idle",
                 "covered throttle-reason time with the GPU idle bit (0x1) (host: mean over GPUs)"},
    IndicatorDef{"F077", "throttle_onsets", "count", "clocks", "throttle onsets",
                 "consecutive throttle-reason samples going from none to any of power cap, HW slowdown, SW/HW thermal, "
                 "power brake (0xEC) (host: sum over GPUs)"},
    IndicatorDef{"F078", "throttle_work_lost_fraction", "ratio", "clocks", "work lost to throttling",
                 "1 - time-weighted mean SM clock / reference clock over covered SM clock intervals whose left sample "
                 "reads utilisation > 0 %; reference = max(rated maximum, largest sample) (host: mean over GPUs)"},
    IndicatorDef{"F079", "util_p50", "ratio", "utilisation", "median utilisation",
                 "time-weighted 50th percentile of utilisation / 100, as power_p95_w (host: mean over GPUs)"},
    IndicatorDef{"F080", "util_p95", "ratio", "utilisation", "95th percentile utilisation",
                 "time-weighted 95th percentile of utilisation / 100, as power_p95_w (host: mean over GPUs)"},
    IndicatorDef{"F081", "busy_s", "s", "utilisation", "busy time",
                 "covered utilisation time whose left sample reads more than 0 % (host: sum over GPUs)"},
    IndicatorDef{"F082", "mem_util_mean", "ratio", "utilisation", "memory-controller utilisation",
                 "time-weighted mean of memory utilisation / 100 (host: mean over GPUs)"},
    IndicatorDef{"F083", "fb_used_max_mib", "MiB", "utilisation", "framebuffer used, maximum",
                 "largest framebuffer-used sample (host: max over GPUs)"},
    IndicatorDef{"F084", "fb_headroom_min_mib", "MiB", "utilisation", "framebuffer headroom",
                 "smallest memory.total - memory.used over the samples giving both (host: min over GPUs)"},
    IndicatorDef{"F085", "starved_fraction", "ratio", "utilisation", "busy but starved",
                 "covered utilisation time whose left sample reads utilisation >= 80 % and memory utilisation < 50 % / "
                 "covered utilisation time whose left sample reads both (host: mean over GPUs)"},
    IndicatorDef{"F086", "enc_util_mean", "ratio", "utilisation", "encoder utilisation",
                 "time-weighted mean of encoder utilisation / 100 (host: mean over GPUs)"},
    IndicatorDef{"F087", "dec_util_mean", "ratio", "utilisation", "decoder utilisation",
                 "time-weighted mean of decoder utilisation / 100 (host: mean over GPUs)"},
    IndicatorDef{"F088", "pcie_rx_mean_mb_s", "MB/s", "utilisation", "PCIe receive, mean",
                 "time-weighted mean of rxpci (host: mean over GPUs)"},
    IndicatorDef{"F089", "pcie_rx_max_mb_s", "MB/s", "utilisation", "PCIe receive, maximum",
                 "largest rxpci sample (host: max over GPUs)"},
    IndicatorDef{"F090", "pcie_tx_mean_mb_s", "MB/s", "utilisation", "PCIe transmit, mean",
                 "time-weighted mean of txpci (host: mean over GPUs)"},
    IndicatorDef{"F091", "pcie_tx_max_mb_s", "MB/s", "utilisation", "PCIe transmit, maximum",
                 "largest txpci sample (host: max over GPUs)"},
    IndicatorDef{"F092", "pcie_gen_ratio", "ratio", "utilisation", "PCIe generation vs max",
                 "mean over samples of current / maximum PCIe link generation (host: mean over GPUs)"},
    IndicatorDef{"F093", "pcie_width_ratio", "ratio", "utilisation", "PCIe width vs max",
                 "mean over samples of current / maximum PCIe link width (host: mean over GPUs)"},
    IndicatorDef{"F094", "xid_per_hour", "1/h", "events", "Xid rate", "xid_count / wall time in hours",
                 Scope::host_only},
    IndicatorDef{"F095", "xid_first_s", "s", "events", "first Xid",
                 "time of the first Xid in the window, s after the window start", Scope::host_only},
    IndicatorDef{"F096", "xid_last_s", "s", "events", "last Xid",
                 "time of the last Xid in the window, s after the window start", Scope::host_only},
    IndicatorDef{"F097", "aer_fatal_count", "count", "events", "PCIe AER fatal",
                 "aer events of severity uncorrected_fatal in the window", Scope::host_only},
    IndicatorDef{"F098", "modeset_error_count", "count", "events", "modeset errors",
                 "nvidia-modeset ERROR events in the window", Scope::host_only},
    IndicatorDef{"F099", "thermal_event_count", "count", "events", "thermal messages",
                 "thermal events (GPU, CPU or system) whose state is not normal, in the window", Scope::host_only},
    IndicatorDef{"F100", "driver_load_count", "count", "events", "driver loads",
                 "driver events with action load (NVRM loading the kernel module) in the window", Scope::host_only},
    IndicatorDef{"F101", "gpu_reset_count", "count", "events", "GPU resets",
                 "driver events with action reset in the window", Scope::host_only},
    IndicatorDef{"F102", "oom_kill_count", "count", "events", "OOM kills",
                 "oom events (the kernel's OOM killer, system or cgroup) in the window", Scope::host_only},
    IndicatorDef{"F103", "sample_interval_max_s", "s", "job", "longest sample interval",
                 "largest positive interval between consecutive samples (host: max over GPUs)"},
    IndicatorDef{"F104", "gap_count", "count", "job", "gaps",
                 "intervals between consecutive samples longer than the gap limit (host: sum over GPUs)"},
    IndicatorDef{"F105", "coverage_min", "ratio", "job", "lowest GPU coverage", "smallest coverage of any GPU",
                 Scope::host_only},
    // The temperature-anchored chain: "errors" are Xid, AER, modeset and thermal (not normal)
    // events; a crossing is an upward crossing of the threshold (78 °C unless --temp-threshold)
    // by any GPU's 15 s rolling-median temperature; the chain window is --chain-window (300 s).
    IndicatorDef{"F106", "chain_errors_after_crossing", "count", "chain", "errors after a hot crossing",
                 "errors at or after a crossing and within the chain window of it (each error counted once)",
                 Scope::host_only},
    IndicatorDef{"F107", "chain_errors_per_crossing", "count/crossing", "chain", "errors per hot crossing",
                 "mean over crossings of the errors within the chain window after each", Scope::host_only},
    IndicatorDef{"F108", "chain_crossings_with_error", "count", "chain", "hot crossings followed by an error",
                 "crossings with at least one error within the chain window after them", Scope::host_only},
    IndicatorDef{"F109", "chain_error_share", "ratio", "chain", "share of errors after a hot crossing",
                 "chain_errors_after_crossing / errors in the window", Scope::host_only},
    IndicatorDef{"F110", "chain_lag_mean_s", "s", "chain", "crossing-to-error lag, mean",
                 "mean over crossings followed by an error of the time from the crossing to its first error",
                 Scope::host_only},
    IndicatorDef{"F111", "chain_lag_min_s", "s", "chain", "crossing-to-error lag, shortest",
                 "shortest time from a crossing to its first error within the chain window", Scope::host_only},
    IndicatorDef{"F112", "chain_util_drop_ratio", "ratio", "chain", "utilisation after / before a chained error",
                 "mean over errors after a crossing of (mean utilisation of all GPUs' samples in (t, t + 12.7 s]) / "
                 "(mean in [t - 12.7 s, t)); errors with no sample on a side or 0 % before are skipped",
                 Scope::host_only},
    IndicatorDef{"F113", "error_util_drop_ratio", "ratio", "chain", "utilisation after / before any error",
                 "as chain_util_drop_ratio over every error in the window (the baseline it compares with)",
                 Scope::host_only},
    // Power source and sessions (kernel, logind and systemd messages).
    IndicatorDef{"F114", "ac_switches_per_hour", "1/h", "session", "AC switches per hour",
                 "power_source messages whose state differs from the previous one, in the window / wall hours; "
                 "the log's first message only sets the state",
                 Scope::host_only},
    IndicatorDef{"F115", "battery_s", "s", "session", "time on battery",
                 "time from an AC off-line message to the next on-line one (or the window end), within the window",
                 Scope::host_only},
    IndicatorDef{"F116", "resume_count", "count", "session", "resumes",
                 "resume events in the window, one per 120 s cluster (several layers report one resume); the resume of "
                 "a failed suspend is not one",
                 Scope::host_only},
    IndicatorDef{"F117", "suspend_s", "s", "session", "time suspended",
                 "time from the first message of each suspend to the next resume (or the window end), within "
                 "the window",
                 Scope::host_only},
    IndicatorDef{"F118", "interruptions_per_hour", "1/h", "session", "interruptions per hour",
                 "(suspends + boots + GPUs lost + GPU resets) in the window / wall hours", Scope::host_only},
    IndicatorDef{"F119", "boot_count", "count", "session", "boots",
                 "kernel boot banners (Linux version ...) in the window", Scope::host_only},
    IndicatorDef{"F120", "shutdown_count", "count", "session", "shutdowns",
                 "shutdown and reboot messages (logind, systemd, kernel) in the window", Scope::host_only},
    IndicatorDef{"F121", "gpu_unavailable_s", "s", "session", "GPU unavailable",
                 "time from a GPU lost or a driver unload to the next driver load or boot (or the window end), "
                 "within the window",
                 Scope::host_only},
    IndicatorDef{"F122", "lid_closed_s", "s", "session", "lid closed",
                 "time from a lid close to the next lid open (or the window end), within the window", Scope::host_only},
    IndicatorDef{"F123", "segfault_count", "count", "session", "process crashes",
                 "segfault messages of the kernel in the window", Scope::host_only},
    // Trace and profiler, continued: op time is the summed duration of the device's GPU ops
    // (kernels, memcpy, memset; overlaps counted per op).
    IndicatorDef{"F124", "memcpy_count", "count", "trace", "memcpy ops",
                 "memcpy ops in the traces (host: sum over GPUs)"},
    IndicatorDef{"F125", "memset_count", "count", "trace", "memset ops",
                 "memset ops in the traces (host: sum over GPUs)"},
    IndicatorDef{"F126", "comm_kernel_fraction", "ratio", "trace", "communication share",
                 "communication kernel time (NCCL, RCCL, ...) / op time (host: over the summed times)"},
    IndicatorDef{"F127", "memory_op_fraction", "ratio", "trace", "memory-op share",
                 "memcpy and memset time / op time (host: over the summed times)"},
    IndicatorDef{"F128", "top_kernel_share", "ratio", "trace", "top kernel share",
                 "time of the kernel with the largest total time / op time; host: kernel times summed by name "
                 "over the GPUs' top-kernel lists (--top-kernels, 10)"},
    IndicatorDef{"F129", "host_wait_fraction", "ratio", "trace", "idle waiting for the host",
                 "idle time of the streams classed host wait / GPU span (host: over the summed spans)"},
    IndicatorDef{"F130", "short_gap_fraction", "ratio", "trace", "idle in short gaps",
                 "idle time in gaps under 30 us between ops / GPU span (host: over the summed spans)"},
    IndicatorDef{"F131", "launch_delay_max_us", "us", "trace", "launch delay, maximum",
                 "longest delay from a launch call to its GPU op (host: max over GPUs)"},
    IndicatorDef{"F132", "trace_steps", "count", "training", "profiled steps", "ProfilerStep#N spans in the traces",
                 Scope::host_only},
    IndicatorDef{"F133", "step_time_mean_s", "s", "training", "step time, mean",
                 "mean duration of the traces' ProfilerStep#N spans", Scope::host_only},
    IndicatorDef{"F134", "step_time_p95_s", "s", "training", "step time, 95th percentile",
                 "95th percentile (numpy linear) of the ProfilerStep#N durations", Scope::host_only},
    IndicatorDef{"F135", "samples_per_s", "1/s", "training", "training throughput, samples",
                 "mean of the training summaries' samples per second (HF Trainer train_samples_per_second; "
                 "not evaluation's) in the window",
                 Scope::host_only},
    IndicatorDef{"F136", "iterations_per_s", "1/s", "training", "training throughput, iterations",
                 "median of the training progress bars' rates (tqdm it/s, or 1 / s/it; not evaluation bars) "
                 "in the window",
                 Scope::host_only},
    IndicatorDef{"F137", "traces", "count", "trace", "traces read",
                 "Kineto traces among the inputs (one per rank and capture)", Scope::host_only},
    IndicatorDef{"F138", "fault_count", "count", "events", "faults",
                 "faults in the window: the Xid, GPU-lost and fatal AER events of one GPU (or of the host) each within "
                 "fault_window_s (60 s) of the previous one, at least one not of bucket ignore",
                 Scope::host_only},
    IndicatorDef{"F139", "fault_restart_app_count", "count", "events", "faults: restart the application",
                 "faults whose most severe member's bucket is restart_app", Scope::host_only},
    IndicatorDef{"F140", "fault_reset_gpu_count", "count", "events", "faults: reset the GPU",
                 "faults whose most severe member's bucket is reset_gpu (a fatal AER counts as reset_gpu)",
                 Scope::host_only},
    IndicatorDef{"F141", "fault_unknown_count", "count", "events", "faults: unknown resolution",
                 "faults whose most severe member is an Xid of a code outside NVIDIA's buckets", Scope::host_only},
    IndicatorDef{"F142", "fault_reboot_count", "count", "events", "faults: reboot",
                 "faults whose most severe member's bucket is reboot (a GPU lost counts as reboot)", Scope::host_only},
    IndicatorDef{"F143", "fault_contact_support_count", "count", "events", "faults: contact support",
                 "faults whose most severe member's bucket is contact_support (hardware)", Scope::host_only},
    IndicatorDef{"F144", "energy_kwh_from_power", "kWh", "power", "energy from the power samples",
                 "trapezoid rule over covered power intervals, plus power_mean_w x uncovered time of the window: "
                 "energy_kwh by the power samples, the cross-check of the counter (host: sum over GPUs)"},
    IndicatorDef{"F145", "energy_power_vs_counter_pct", "%", "power", "power integral against the counter",
                 "(energy_kwh_from_power - energy_kwh) / energy_kwh x 100 when the energy counter gave energy_kwh "
                 "(host: over the summed energies, when every GPU's came from its counter)"},
    IndicatorDef{"F146", "energy_counter_coverage", "ratio", "power", "energy counter coverage",
                 "share of the window between consecutive energy counter readings where the counter did not "
                 "decrease, gaps included (host: mean over GPUs)"},
    IndicatorDef{"F147", "energy_counter_resets", "count", "power", "energy counter resets",
                 "decreases of the energy counter between consecutive readings: a driver reload or GPU reset "
                 "(host: sum over GPUs)"},
};

}  // namespace

std::span<const IndicatorDef> catalogue() { return kCatalogue; }

const IndicatorDef* find_indicator(std::string_view key) {
  for (const auto& d : kCatalogue)
    if (d.key == key) return &d;
  return nullptr;
}

}  // namespace gpucost::extract

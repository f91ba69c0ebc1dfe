#include <gpucost/extract/catalogue.hpp>

#include <array>

namespace gpucost::extract {

namespace {

constexpr std::array kCatalogue = {
    IndicatorDef{"F001", "wall_s", "s", "job", "wall time",
                 "length of the job window (to - from); the window is --from/--to, else first to last sample of any GPU"},
    IndicatorDef{"F002", "coverage", "ratio", "job", "sample coverage",
                 "share of the window covered by sample intervals; intervals longer than max(10 s, 5 x median interval) "
                 "are gaps and not bridged (host: mean over GPUs)"},
    IndicatorDef{"F003", "energy_kwh", "kWh", "power", "energy",
                 "trapezoid rule over covered power intervals, plus power_mean_w x uncovered time of the window "
                 "(host: sum over GPUs)"},
    IndicatorDef{"F004", "energy_filled_fraction", "ratio", "power", "filled share of energy",
                 "energy attributed to uncovered time / energy_kwh (host: over the summed energies)"},
    IndicatorDef{"F005", "power_mean_w", "W", "power", "mean power",
                 "covered trapezoid energy / covered time; a lone sample gives its own value (host: mean over GPUs)"},
    IndicatorDef{"F006", "power_p95_w", "W", "power", "95th percentile power",
                 "time-weighted 95th percentile: each sample weighs the covered interval it starts (host: mean over GPUs)"},
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
    IndicatorDef{"F014", "sample_interval_median_s", "s", "job", "median sample interval",
                 "median of the positive intervals between consecutive samples (host: mean over GPUs)"},
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
    IndicatorDef{"F029", "gpu_idle_fraction_trace", "ratio", "trace", "GPU idle share (trace)",
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
                 "the window", Scope::host_only},
    IndicatorDef{"F047", "energy_left_kwh", "kWh", "power", "energy, left Riemann sum",
                 "each power sample held to the next over covered intervals, plus power_mean_w x uncovered time "
                 "(host: sum over GPUs)"},
    IndicatorDef{"F048", "energy_right_kwh", "kWh", "power", "energy, right Riemann sum",
                 "each covered interval at the power of its closing sample, plus power_mean_w x uncovered time "
                 "(host: sum over GPUs)"},
    IndicatorDef{"F049", "energy_low_kwh", "kWh", "power", "energy, lower bound",
                 "min(left, right sum) over covered intervals - 5 W x covered time, plus the smallest power sample "
                 "x uncovered time, at least 0 (host: sum over GPUs)"},
    IndicatorDef{"F050", "energy_high_kwh", "kWh", "power", "energy, upper bound",
                 "max(left, right sum) over covered intervals + 5 W x covered time, plus power_max_w x uncovered "
                 "time (host: sum over GPUs)"},
    IndicatorDef{"F051", "downtime_s", "s", "events", "downtime after incidents",
                 "union over Xid, gpu_lost, suspend and AC-offline events of [event, next sample of any GPU with "
                 "utilisation > 0], cut at the window end", Scope::host_only},
};

}  // namespace

std::span<const IndicatorDef> catalogue() { return kCatalogue; }

const IndicatorDef* find_indicator(std::string_view key) {
  for (const auto& d : kCatalogue)
    if (d.key == key) return &d;
  return nullptr;
}

}  // namespace gpucost::extract

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
};

}  // namespace

std::span<const IndicatorDef> catalogue() { return kCatalogue; }

const IndicatorDef* find_indicator(std::string_view key) {
  for (const auto& d : kCatalogue)
    if (d.key == key) return &d;
  return nullptr;
}

}  // namespace gpucost::extract

#include <gpucost/outputs/prom_textfile.hpp>

#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/extract/catalogue.hpp>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>
#include <vector>

namespace gpucost::outputs {

namespace {

constexpr double kJoulesPerKwh = 3.6e6;
constexpr double kBytesPerMib = 1048576;
constexpr double kSecondsPerDay = 86400;

// Counts of a window are gauges (they are not monotonic across runs), so no _total; and
// _count is reserved for histograms, hence "_errors", "_events".
constexpr std::array kIndicators = {
    PromIndicator{"wall_s", ""},  // gpucost_job_wall_seconds
    PromIndicator{"coverage", "sample_coverage_ratio"},
    PromIndicator{"energy_kwh", "energy_joules", kJoulesPerKwh},
    PromIndicator{"energy_filled_fraction", "energy_filled_ratio"},
    PromIndicator{"power_mean_w", "power_mean_watts"},
    PromIndicator{"power_p95_w", "power_p95_watts"},
    PromIndicator{"power_max_w", "power_max_watts"},
    PromIndicator{"util_mean", "util_mean_ratio"},
    PromIndicator{"idle_fraction", "idle_ratio"},
    PromIndicator{"temp_mean_c", "temp_mean_celsius"},
    PromIndicator{"temp_max_c", "temp_max_celsius"},
    PromIndicator{"time_above_78c_s", "time_above_78c_seconds"},
    PromIndicator{"sm_clock_ratio", "sm_clock_ratio"},
    PromIndicator{"sample_interval_median_s", "sample_interval_median_seconds"},
    PromIndicator{"samples", "samples"},
    PromIndicator{"gpu_count", ""},  // gpucost_job_gpus
    PromIndicator{"xid_count", "xid_errors"},
    PromIndicator{"xid_restart_app_count", "xid_restart_app_errors"},
    PromIndicator{"xid_reset_gpu_count", "xid_reset_gpu_errors"},
    PromIndicator{"xid_reboot_count", "xid_reboot_errors"},
    PromIndicator{"xid_contact_support_count", "xid_contact_support_errors"},
    PromIndicator{"gpu_lost_count", "gpu_lost_events"},
    PromIndicator{"aer_corrected_count", "aer_corrected_errors"},
    PromIndicator{"aer_uncorrected_count", "aer_uncorrected_errors"},
    PromIndicator{"suspend_count", "suspends"},
    PromIndicator{"lid_close_count", "lid_closes"},
    PromIndicator{"ac_offline_count", "ac_offline_events"},
    PromIndicator{"gpu_busy_s", "trace_busy_seconds"},
    PromIndicator{"gpu_idle_fraction_trace", "trace_idle_ratio"},
    PromIndicator{"gpu_compute_fraction", "trace_compute_ratio"},
    PromIndicator{"launch_delay_p50_us", "launch_delay_p50_seconds", 1, 1e6},
    PromIndicator{"launch_delay_p95_us", "launch_delay_p95_seconds", 1, 1e6},
    PromIndicator{"launch_delay_p99_us", "launch_delay_p99_seconds", 1, 1e6},
    PromIndicator{"short_kernel_fraction", "short_kernel_ratio"},
    PromIndicator{"launch_delay_over_10ms_fraction", "launch_delay_over_10ms_ratio"},
    PromIndicator{"kernels", "trace_kernels"},
    PromIndicator{"unmatched_gpu_events", "trace_unmatched_ops"},
    PromIndicator{"memcpy_s", "memcpy_seconds"},
    PromIndicator{"h2d_gbps", "h2d_bandwidth_bytes_per_second", 1e9},
    PromIndicator{"d2h_gbps", "d2h_bandwidth_bytes_per_second", 1e9},
    PromIndicator{"queue_length_mean", "queue_length_mean"},
    PromIndicator{"collective_wait_fraction", "collective_wait_ratio"},
    PromIndicator{"pattern_events", "pattern_events"},
    PromIndicator{"pattern_duration_s", "pattern_duration_seconds"},
    PromIndicator{"energy_low_kwh", "energy_low_joules", kJoulesPerKwh},
    PromIndicator{"energy_high_kwh", "energy_high_joules", kJoulesPerKwh},
    PromIndicator{"downtime_s", "downtime_seconds"},
    PromIndicator{"power_min_w", "power_min_watts"},
    PromIndicator{"idle_power_w", "idle_power_watts"},
    PromIndicator{"idle_energy_kwh", "idle_energy_joules", kJoulesPerKwh},
    PromIndicator{"energy_per_busy_hour_kwh", "energy_per_busy_hour_joules", kJoulesPerKwh},
    PromIndicator{"power_limit_time_s", "power_limit_seconds"},
    PromIndicator{"power_limit_share", "power_limit_share_ratio"},
    PromIndicator{"power_cv", "power_cv_ratio"},
    PromIndicator{"mem_temp_mean_c", "mem_temp_mean_celsius"},
    PromIndicator{"mem_temp_max_c", "mem_temp_max_celsius"},
    PromIndicator{"temp_rolling_crossings", "temp_rolling_crossings"},
    PromIndicator{"mclk_ratio", "mclk_ratio"},
    PromIndicator{"throttle_power_cap_fraction", "throttle_power_cap_ratio"},
    PromIndicator{"throttle_hw_slowdown_fraction", "throttle_hw_slowdown_ratio"},
    PromIndicator{"throttle_hw_thermal_fraction", "throttle_hw_thermal_ratio"},
    PromIndicator{"throttle_sw_thermal_fraction", "throttle_sw_thermal_ratio"},
    PromIndicator{"throttle_onsets", "throttle_onsets"},
    PromIndicator{"throttle_work_lost_fraction", "throttle_work_lost_ratio"},
    PromIndicator{"mem_util_mean", "mem_util_mean_ratio"},
    PromIndicator{"fb_used_max_mib", "fb_used_max_bytes", kBytesPerMib},
    PromIndicator{"pcie_rx_mean_mb_s", "pcie_rx_mean_bytes_per_second", 1e6},
    PromIndicator{"exposed_comm_fraction", "exposed_comm_ratio"},
    PromIndicator{"pcie_tx_mean_mb_s", "pcie_tx_mean_bytes_per_second", 1e6},
    PromIndicator{"comm_overlap_fraction", "comm_overlap_ratio"},
    PromIndicator{"pcie_gen_ratio", "pcie_gen_ratio"},
    PromIndicator{"pcie_width_ratio", "pcie_width_ratio"},
    PromIndicator{"xid_first_s", "xid_first_seconds"},
    PromIndicator{"straggler_step_share", "straggler_step_ratio"},
    PromIndicator{"thermal_event_count", "thermal_events"},
    PromIndicator{"driver_load_count", "driver_loads"},
    PromIndicator{"gpu_reset_count", "gpu_resets"},
    PromIndicator{"oom_kill_count", "oom_kills"},
    PromIndicator{"sample_interval_max_s", "sample_interval_max_seconds"},
    PromIndicator{"gap_count", "sample_gaps"},
    PromIndicator{"chain_errors_after_crossing", "chain_errors_after_crossing"},
    PromIndicator{"chain_error_share", "chain_error_share_ratio"},
    PromIndicator{"chain_lag_mean_s", "chain_lag_mean_seconds"},
    PromIndicator{"chain_util_drop_ratio", "chain_util_drop_ratio"},
    PromIndicator{"error_util_drop_ratio", "error_util_drop_ratio"},
    PromIndicator{"battery_s", "battery_seconds"},
    PromIndicator{"suspend_s", "suspended_seconds"},
    PromIndicator{"interruptions_per_hour", "interruptions_per_second", 1, 3600},
    PromIndicator{"boot_count", "boots"},
    PromIndicator{"gpu_unavailable_s", "gpu_unavailable_seconds"},
    PromIndicator{"comm_kernel_fraction", "comm_kernel_ratio"},
    PromIndicator{"top_kernel_share", "top_kernel_ratio"},
    PromIndicator{"host_wait_fraction", "host_wait_ratio"},
    PromIndicator{"short_gap_fraction", "short_gap_ratio"},
    PromIndicator{"trace_steps", "trace_steps"},
    PromIndicator{"step_time_mean_s", "step_time_mean_seconds"},
    PromIndicator{"step_time_p95_s", "step_time_p95_seconds"},
    PromIndicator{"samples_per_s", "samples_per_second"},
    PromIndicator{"iterations_per_s", "iterations_per_second"},
    PromIndicator{"fault_count", "faults"},
    PromIndicator{"fault_restart_app_count", "faults_restart_app"},
    PromIndicator{"fault_reset_gpu_count", "faults_reset_gpu"},
    PromIndicator{"fault_unknown_count", "faults_unknown"},
    PromIndicator{"fault_reboot_count", "faults_reboot"},
    PromIndicator{"fault_contact_support_count", "faults_contact_support"},
    PromIndicator{"energy_kwh_from_power", "energy_from_power_joules", kJoulesPerKwh},
    PromIndicator{"energy_power_vs_counter_pct", "energy_power_vs_counter_ratio", 1, 100},
    PromIndicator{"energy_counter_coverage", "energy_counter_coverage_ratio"},
    PromIndicator{"energy_counter_resets", "energy_counter_resets"},
    PromIndicator{"sm_active_mean", "sm_active_ratio"},
    PromIndicator{"tensor_active_mean", "tensor_active_ratio"},
    PromIndicator{"sm_occupancy_mean", "sm_occupancy_ratio"},
    PromIndicator{"dram_active_mean", "dram_active_ratio"},
    PromIndicator{"fp16_active_mean", "fp16_active_ratio"},
    PromIndicator{"fp32_active_mean", "fp32_active_ratio"},
    PromIndicator{"fp64_active_mean", "fp64_active_ratio"},
    PromIndicator{"sm_active_busy", "sm_active_busy_ratio"},
    PromIndicator{"nvlink_tx_mean_mb_s", "nvlink_tx_mean_bytes_per_second", 1e6},
    PromIndicator{"nvlink_rx_mean_mb_s", "nvlink_rx_mean_bytes_per_second", 1e6},
    PromIndicator{"work_steps", "work_steps"},
    PromIndicator{"work_samples", "work_samples"},
    PromIndicator{"work_tokens", "work_tokens"},
    PromIndicator{"work_epochs", "work_epochs"},
    PromIndicator{"tokens_per_s", "tokens_per_second"},
    PromIndicator{"energy_per_step_wh", "energy_per_step_joules", 3600},
    PromIndicator{"energy_per_1k_samples_wh", "energy_per_1k_samples_joules", 3600},
    PromIndicator{"energy_per_1k_tokens_wh", "energy_per_1k_tokens_joules", 3600},
    PromIndicator{"energy_per_epoch_kwh", "energy_per_epoch_joules", kJoulesPerKwh},
    PromIndicator{"idle_energy_share", "idle_energy_ratio"},
    PromIndicator{"processes", "processes"},
    PromIndicator{"processes_max", "processes_max"},
    PromIndicator{"top_process_share", "top_process_ratio"},
    PromIndicator{"idle_processes", "idle_processes"},
    PromIndicator{"idle_process_fb_mib", "idle_process_memory_bytes", kBytesPerMib},
    PromIndicator{"handle_holders", "handle_holders"},
    PromIndicator{"other_handle_holders", "other_handle_holders"},
    PromIndicator{"fb_used_mean_mib", "fb_used_mean_bytes", kBytesPerMib},
};

/// Backslash and newline escaped, and the double quote too where `quote` (exposition format:
/// label values escape all three, HELP text the first two).
std::string escape_exposition(std::string_view v, bool quote) {
  std::string out;
  for (const char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (quote && c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
  return out;
}
std::string escape_label(std::string_view v) { return escape_exposition(v, true); }
std::string escape_help(std::string_view v) { return escape_exposition(v, false); }

using Labels = std::vector<std::pair<std::string_view, std::string>>;

/// One metric family: all its samples are written together under one HELP and TYPE.
class Family {
 public:
  Family(std::string name, std::string help) : m_name(std::move(name)), m_help(std::move(help)) {}
  void add(const Labels& labels, double value) {
    if (!std::isfinite(value)) return;  // no value is better than a made-up one
    std::string l;
    for (const auto& [k, v] : labels) l += fmt::format("{}{}=\"{}\"", l.empty() ? "" : ",", k, escape_label(v));
    m_samples.push_back(fmt::format("{}{{{}}} {}\n", m_name, l, value));
  }
  void render(std::string& out) const {
    if (m_samples.empty()) return;
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", m_name, escape_help(m_help), m_name);
    for (const auto& s : m_samples) out += s;
  }

 private:
  std::string m_name, m_help;
  std::vector<std::string> m_samples;
};

/// Milliseconds are enough, and dividing whole milliseconds prints 1718197338.011, not ...0110002.
double epoch_seconds(std::int64_t ns) {
  return static_cast<double>(ns / 1'000'000) / 1e3;  // NOLINT(bugprone-integer-division): whole ms on purpose
}

std::string indicator_help(const PromIndicator& p, std::string_view scope) {
  const auto* def = extract::find_indicator(p.key);
  const std::string name = def != nullptr ? std::string(def->name) : std::string(p.key);
  std::string conversion;
  if (p.scale == kJoulesPerKwh)
    conversion = ", converted from kWh";
  else if (p.divisor == 1e6)
    conversion = ", converted from microseconds";
  else if (p.scale == 1e9)
    conversion = ", converted from GB/s";
  else if (p.divisor == 100)
    conversion = ", converted from %";
  return fmt::format("{} {} over the job window (indicator {}{})", scope, name, p.key, conversion);
}

/// The `cloud` label: a short identifier that stays the same from run to run, the catalogue
/// offer's name or "config" (the [cloud] section); what describes it goes to the info metric.
std::string cloud_id(const breakeven::CostConfig& c) { return c.cloud_offer.empty() ? "config" : c.cloud_offer; }

/// gpucost_cloud_offer_info: the description of the priced offer (free text, dates, the source)
/// as labels of a sample that is always 1, joined to the cost metrics on host and cloud.
void add_offer_info(std::vector<Family>& out, const breakeven::CostConfig& c, const Labels& host) {
  Labels info = host;
  info.emplace_back("cloud", cloud_id(c));
  for (const auto& [key, value] : {std::pair{"name", &c.cloud_name}, std::pair{"kind", &c.offer_kind},
                                   std::pair{"seen", &c.offer_date_seen}, std::pair{"source", &c.offer_source}})
    if (!value->empty()) info.emplace_back(key, *value);  // an empty label is no label
  if (!c.cloud_offer.empty()) info.emplace_back("confirmed", c.offer_confirmed ? "true" : "false");
  out.emplace_back("gpucost_cloud_offer_info",
                   "The priced cloud offer (labels name, kind, seen: the date its price was read, source, "
                   "confirmed); always 1")
      .add(info, 1.0);
}

void add_headline(std::vector<Family>& out, const breakeven::Result& r, const breakeven::CostConfig& c,
                  const extract::Features& f) {
  const Labels host{{"host", f.host}};
  const Labels money{{"host", f.host}, {"currency", c.currency}};
  const auto gauge = [&out](const char* name, const char* help, const Labels& labels, double v) {
    out.emplace_back(name, help).add(labels, v);
  };
  gauge("gpucost_job_start_timestamp_seconds", "Start of the job window, seconds since the epoch", host,
        epoch_seconds(f.from_ns));
  gauge("gpucost_job_end_timestamp_seconds", "End of the job window, seconds since the epoch", host,
        epoch_seconds(f.to_ns));
  gauge("gpucost_job_wall_seconds", "Wall time of the job window", host, r.job.wall_h * 3600);
  gauge("gpucost_job_gpus", "GPUs in the job", host, static_cast<double>(r.job.energy_kwh.size()));
  gauge("gpucost_job_energy_joules", "GPU energy of the job, all GPUs", host, r.energy_kwh * kJoulesPerKwh);
  if (!r.job.energy_method.empty()) {  // an info metric: the method is its label
    Labels method = host;
    method.emplace_back("method", r.job.energy_method);
    gauge("gpucost_job_energy_method",
          "What gave the priced GPU energy (label method: counter, power or mixed); always 1", method, 1.0);
  }
  gauge("gpucost_job_util_mean_ratio", "Mean GPU utilisation used by the cost model (0-1)", host, r.util_mean);
  if (const auto& e = r.job.energy_basis; e.known) {  // how much of the energy was measured
    gauge("gpucost_job_energy_measured_joules", "GPU energy over the sampled intervals, all GPUs", host,
          e.measured_kwh * kJoulesPerKwh);
    Labels fill = host;
    fill.emplace_back("fill", std::string(breakeven::fill_rule_name(e.rule)));
    gauge("gpucost_job_energy_estimated_joules", "GPU energy filled in for time without samples, by the fill rule",
          fill, e.estimated_kwh * kJoulesPerKwh);
    gauge("gpucost_job_coverage_ratio", "Share of the job window with telemetry samples (mean over GPUs, 0-1)", host,
          e.coverage);
  }
  gauge("gpucost_local_cost", "Local cost of the job (electricity + amortisation + maintenance), in the currency label",
        money, r.local_total);
  auto& parts =
      out.emplace_back("gpucost_local_cost_component", "Local cost of the job by component, in the currency label");
  for (const auto& [name, value] : {std::pair{"electricity", r.electricity}, std::pair{"amortisation", r.amortisation},
                                    std::pair{"maintenance", r.maintenance}}) {
    Labels l = money;
    l.emplace_back("component", name);
    parts.add(l, value);
  }
  Labels cloud = money;
  cloud.emplace_back("cloud", cloud_id(c));
  gauge("gpucost_cloud_cost",
        "Cost of the same job on the priced cloud offer (label cloud: the catalogue offer, or config), in the "
        "currency label",
        cloud, r.cloud_total);
  add_offer_info(out, c, host);
  gauge("gpucost_cloud_billed_seconds", "Seconds the cloud would bill for the job", host, r.billed_s);
  if (c.offer_age_days) {  // an alert on stale prices: the verdict is only as good as the price
    Labels offer = host;
    offer.emplace_back("cloud", cloud_id(c));
    offer.emplace_back("confirmed", c.offer_confirmed ? "true" : "false");
    gauge("gpucost_cloud_price_age_seconds",
          "Seconds since the day the priced offer's price was seen (catalogue date_seen), whole days", offer,
          *c.offer_age_days * kSecondsPerDay);
  }
  gauge("gpucost_premium_ratio", "Premium of local over cloud: local / cloud - 1", host, r.premium);
  gauge("gpucost_premium_line_ratio", "The premium line (threshold) of the configuration", host, r.line);
  gauge("gpucost_premium_above_line", "1 when the premium is above the line (renting is cheaper), else 0", host,
        r.above_line ? 1.0 : 0.0);
  {  // a state set: the one verdict is 1, so an alert can tell "below" from "undecided" and "unfit"
    auto& fam = out.emplace_back("gpucost_verdict",
                                 "1 for the verdict: above, below, undecided (the premium's range spans the line) or "
                                 "unfit (the offer cannot run the job)");
    for (const char* v : {"above", "below", "undecided", "unfit"}) {
      Labels l = host;
      l.emplace_back("verdict", v);
      fam.add(l, std::string_view(breakeven::verdict_word(r)) == v ? 1.0 : 0.0);
    }
  }
  const auto solution = [&](std::string name, std::string help, const breakeven::Solution& s, double scale) {
    auto& fam = out.emplace_back(std::move(name), std::move(help));
    if (s.value) fam.add(host, *s.value * scale);  // no solution: no sample
  };
  solution("gpucost_breakeven_job_length_seconds",
           "Break-even job length (the first crossing): local is cheaper for shorter jobs", r.job_hours, 3600);
  solution("gpucost_line_job_length_seconds",
           "Job length (the first crossing) beyond which the premium exceeds the line", r.line_job_hours, 3600);
  solution("gpucost_breakeven_use_per_year_seconds",
           "Break-even use: seconds of use per year above which owning pays (a year is 31536000 s)",
           r.use_hours_per_year, 3600);
}

// The cloud's busy share and the cost per unit of work (docs/cost-model.md, "Busy share" and
// "Cost per unit of work"); a unit the features do not count has no sample.
void add_work(std::vector<Family>& out, const breakeven::Result& r, const breakeven::CostConfig& c,
              const extract::Features& f) {
  out.emplace_back("gpucost_job_busy_share_ratio",
                   "Busy share of the job in the cloud's billed time (0-1), label source: util or sm_active")
      .add({{"host", f.host}, {"source", r.job.busy_source}}, r.busy_share);
  const breakeven::WorkCosts w = breakeven::work_costs(r, f.host_indicators);
  // Filled apart and moved in at the end: a reference into `out` would dangle after the next emplace.
  Family cost("gpucost_job_cost_per_unit",
              "Cost of the job per unit of work (label unit: step, 1k_samples, 1M_tokens, epoch; side: local or cloud, "
              "the cloud's being this job's bill), in the currency label");
  Family month("gpucost_breakeven_work_per_month",
               "Break-even use in work: units a month (label unit) above which owning pays");
  Family job(
      "gpucost_breakeven_job_work",
      "Break-even job size in work: units (label unit) of the first crossing, local is cheaper for smaller jobs");
  Family kg("gpucost_job_co2e_kg_per_unit",
            "kg CO2e of the job per unit of work (label unit as gpucost_job_cost_per_unit; side: local, or cloud: an "
            "estimate); no sample when the grid intensity is unknown");
  for (const breakeven::UnitCost& u : w.units) {
    if (!u.local || !u.cloud) continue;
    const std::string per(u.unit->per_id);
    if (u.local_kg) kg.add({{"host", f.host}, {"side", "local"}, {"unit", per}}, *u.local_kg);
    if (u.cloud_kg) kg.add({{"host", f.host}, {"side", "cloud"}, {"unit", per}}, *u.cloud_kg);
    cost.add({{"host", f.host}, {"currency", c.currency}, {"side", "local"}, {"unit", per}}, *u.local);
    cost.add({{"host", f.host}, {"currency", c.currency}, {"side", "cloud"}, {"unit", per}}, *u.cloud);
    const Labels unit{{"host", f.host}, {"unit", std::string(u.unit->noun)}};
    if (u.breakeven_per_month) month.add(unit, *u.breakeven_per_month);
    if (u.breakeven_job) job.add(unit, *u.breakeven_job);
  }
  for (Family* fam : {&cost, &month, &job, &kg}) out.push_back(std::move(*fam));
}

// kg CO2e of the job on each side; a side whose grid intensity is unknown has no sample (never 0).
void add_carbon(std::vector<Family>& out, const breakeven::CarbonResult& c, const extract::Features& f) {
  if (!c.computed) return;
  Family kg("gpucost_job_co2e_kg",
            "Greenhouse gases of the job's energy, kg CO2e (label side: local, or cloud: an estimate); no sample when "
            "the grid intensity is unknown");
  Family intensity("gpucost_job_carbon_intensity_g_per_kwh",
                   "Grid intensity the job's kg CO2e was computed with, g CO2e per kWh");
  for (const auto& [side, s] : {std::pair{"local", &c.local}, std::pair{"cloud", &c.cloud}}) {
    const Labels l{{"host", f.host}, {"side", side}};
    if (s->kg) kg.add(l, *s->kg);
    if (s->kg && s->intensity_g_per_kwh) intensity.add(l, *s->intensity_g_per_kwh);
  }
  out.push_back(std::move(kg));
  out.push_back(std::move(intensity));
}

void add_indicators(std::vector<Family>& out, const extract::Features& f) {
  for (const auto& p : kIndicators) {
    if (p.suffix.empty()) continue;
    auto& host = out.emplace_back(fmt::format("gpucost_host_{}", p.suffix), indicator_help(p, "Host"));
    if (const auto it = f.host_indicators.find(std::string(p.key)); it != f.host_indicators.end() && it->second.value)
      host.add({{"host", f.host}}, *it->second.value * p.scale / p.divisor);
    auto& gpu = out.emplace_back(fmt::format("gpucost_gpu_{}", p.suffix), indicator_help(p, "Per-GPU"));
    for (const auto& g : f.gpus)
      if (const auto it = g.indicators.find(std::string(p.key)); it != g.indicators.end() && it->second.value)
        gpu.add({{"host", f.host}, {"gpu", std::to_string(g.gpu)}}, *it->second.value * p.scale / p.divisor);
  }
}

}  // namespace

std::span<const PromIndicator> prom_indicators() { return kIndicators; }

std::string prometheus_live_metrics(std::string_view host, bool up, std::int64_t now_ns) {
  const Labels labels{{"host", std::string(host)}};
  std::vector<Family> families;
  families
      .emplace_back("gpucost_up",
                    "1 when gpucost breakeven --follow priced the job at its last update, 0 when it could not "
                    "(no sample yet)")
      .add(labels, up ? 1.0 : 0.0);
  families
      .emplace_back("gpucost_last_update_timestamp_seconds",
                    "When gpucost breakeven --follow last rewrote this textfile, seconds since the epoch")
      .add(labels, epoch_seconds(now_ns));
  std::string out;
  for (const auto& fam : families) fam.render(out);
  return out;
}

std::string prometheus_textfile(const breakeven::Result& result, const breakeven::CostConfig& config,
                                const extract::Features& features) {
  std::vector<Family> families;
  add_headline(families, result, config, features);
  add_work(families, result, config, features);
  add_carbon(families, result.carbon, features);
  add_indicators(families, features);
  std::string out;
  for (const auto& fam : families) fam.render(out);
  return out;
}

}  // namespace gpucost::outputs

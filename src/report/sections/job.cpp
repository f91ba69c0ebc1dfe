// The job: its window, GPUs and host, and the energy priced with what of it was measured
// (docs/cost-model.md, "Which energy is priced").
#include "report/sections/sections.hpp"

#include <fmt/ranges.h>
#include <cstdint>
#include <gpucost/breakeven/energy_estimate.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/core/time.hpp>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

// What gave the priced energy: the GPUs' energy counters, their power samples or both, and the
// power integral beside the counters' (docs/cost-model.md, "Which energy is priced").
void json_energy_method(io::JsonWriter& w, const breakeven::JobInputs& j) {
  w.key("method").str(j.energy_method);
  if (j.energy_method == extract::kEnergyMixed) {
    w.key("gpu_methods").array();
    for (const auto& [gpu, method] : j.gpu_energy_method)
      w.item().object().key("gpu").integer(gpu).key("method").str(method).close();
    w.close();
  }
  w.key("from_power_kwh").num(j.energy_from_power_kwh).key("power_vs_counter_pct").num(j.power_vs_counter_pct);
}

/// The model behind an estimated energy: the GPU, count and busy share with their sources.
void json_estimate_model(io::JsonWriter& w, const breakeven::EnergyEstimate& e) {
  w.key("low_kwh").num(e.low_kwh).key("high_kwh").num(e.high_kwh);
  w.line("    ").key("model").object().key("gpu").str(e.gpu_name).key("table_entry").str(e.model);
  w.key("gpu_source").str(e.gpu_source).key("gpus").integer(e.gpus).key("gpus_source").str(e.count_source);
  w.key("busy").num(e.busy).key("busy_source").str(e.busy_source).key("idle_w").num(e.power.idle_w);
  w.key("idle_low_w").num(e.power.idle_low_w).key("idle_basis").str(e.power.idle_basis);
  w.key("tdp_w").num(e.power.tdp_w).key("busy_draw_low").num(breakeven::kBusyDrawLow).close();
}

void json_energy_basis(io::JsonWriter& w, const breakeven::JobInputs& j,
                       const std::optional<breakeven::EnergyEstimate>& estimate) {
  const breakeven::EnergyBasis& e = j.energy_basis;
  // Without coverage in the features every figure of the split is unknown: null.
  const auto known = [&e](double v) { return e.known ? std::optional<double>(v) : std::nullopt; };
  w.line("  ").key("coverage").num(known(e.coverage));
  w.line("  ").key("energy").object().key("measured_kwh").num(known(e.measured_kwh));
  w.key("estimated_kwh").num(known(e.estimated_kwh)).key("fill_rule").str(breakeven::fill_rule_name(e.rule));
  w.key("covered_h").num(known(e.covered_h)).key("uncovered_h").num(known(e.uncovered_h));
  w.key("fill_power_w").num(known(e.fill_power_w)).key("window_h").num(e.window_h);
  json_energy_method(w, j);
  if (estimate) json_estimate_model(w, *estimate);
  if (!e.known) w.key("reason").str("the features give no coverage (re-run gpucost extract)");
  w.close();
}

/// What gave the energy when the GPUs' energy counters did, wholly or in part: "from the GPUs'
/// energy counters; power integral 0.2553 kWh, -1.6 %". Empty for the power samples' integral,
/// the energy every line means unless it says otherwise.
std::string energy_method_text(const breakeven::JobInputs& j) {
  const std::size_t n = j.gpu_energy_method.size();
  if (j.energy_method == extract::kEnergyMixed) {
    std::vector<int> counted, integrated;
    for (const auto& [gpu, method] : j.gpu_energy_method)
      (method == extract::kEnergyByCounter ? counted : integrated).push_back(gpu);
    return fmt::format("from the energy counters of GPU {} and the power samples of GPU {}", fmt::join(counted, ", "),
                       fmt::join(integrated, ", "));
  }
  if (j.energy_method != extract::kEnergyByCounter) return {};
  const std::string source = n == 1 ? "from the GPU's energy counter" : "from the GPUs' energy counters";
  if (!j.energy_from_power_kwh || !j.power_vs_counter_pct)
    return source + (j.energy_from_power_kwh ? "" : "; no power samples to cross-check");
  return fmt::format("{}; power integral {:.4f} kWh, {:+.1f} %", source, *j.energy_from_power_kwh,
                     *j.power_vs_counter_pct);
}

/// "measured  energy 0.2594 kWh" when every sample interval was measured; else the split:
/// "energy    1.5565 kWh (0.2594 measured over 40.2 min, 1.2971 estimated for 3.33 h without samples at 389 W mean)".
/// When energy counters gave it, the line says so in the parentheses (energy_method_text).
std::string energy_line(const breakeven::JobInputs& j, double kwh) {
  const breakeven::EnergyBasis& e = j.energy_basis;
  const std::string method = energy_method_text(j);
  const std::string also = method.empty() ? "" : "; " + method;
  if (!e.known)
    return fmt::format("energy    {:.4f} kWh (how much was measured is unknown: no coverage in the features{})", kwh,
                       also);
  if (e.rule == breakeven::FillRule::none && e.uncovered_h > 0)
    return fmt::format(
        "measured  energy {:.4f} kWh over {} with samples (--fill none: {} without samples "
        "not priced{})",
        kwh, hours(e.covered_h), hours(e.uncovered_h), also);
  if (e.estimated_kwh < 0.00005)  // invisible at 4 decimals
    return method.empty() ? fmt::format("measured  energy {:.4f} kWh", kwh)
                          : fmt::format("measured  energy {:.4f} kWh ({})", kwh, method);
  return fmt::format(
      "energy    {:.4f} kWh ({:.4f} measured over {}, {:.4f} estimated for {} without samples "
      "at {:.0f} W {}{})",
      kwh, e.measured_kwh, hours(e.covered_h), e.estimated_kwh, hours(e.uncovered_h), e.fill_power_w,
      e.rule == breakeven::FillRule::idle ? "idle" : "mean", also);
}

/// Without telemetry: the estimated energy, labelled, with the model it came from.
std::string estimate_lines(const breakeven::EnergyEstimate& e) {
  std::string b =
      fmt::format("energy    {:.4f} kWh ESTIMATED from the GPU model, not measured (bounds {:.4f} .. {:.4f} kWh)\n",
                  e.estimated_kwh, e.low_kwh, e.high_kwh);
  b += fmt::format("  gpu       {} x {} (table entry {}; the GPU from {}, {})\n", e.gpus, e.gpu_name, e.model,
                   e.gpu_source,
                   e.count_source == "assumed" ? std::string("the count assumed") : "the count from " + e.count_source);
  b += fmt::format("  busy      {:.1f} % of the window ({})\n", e.busy * 100,
                   e.busy_source == "assumed" ? std::string("assumed: nothing in the inputs says; give --util")
                                              : "from " + e.busy_source);
  b += fmt::format(
      "  power     per GPU {:.0f} W estimated, {:.0f} .. {:.0f} W bounds: idle {:.0f} W ({}), board {:.0f} W\n",
      e.power.central_w(e.busy), e.power.low_w(e.busy), e.power.high_w(), e.power.idle_w,
      e.power.idle_measured ? "measured" : "assumed", e.power.tdp_w);
  return b;
}

/// "2024-06-12 12:22 .. 13:02 UTC" (the end's date only when it differs): the full table has the
/// exact times.
std::string minute_span(std::int64_t from_ns, std::int64_t to_ns) {
  const std::string from = format_utc(from_ns), to = format_utc(to_ns);  // 2024-06-12T12:22:18.004Z
  if (from.size() < 16 || to.size() < 16) return from + " .. " + to;
  const bool same_day = from.compare(0, 10, to, 0, 10) == 0;
  return fmt::format("{} {} .. {}{} UTC", from.substr(0, 10), from.substr(11, 5),
                     same_day ? "" : to.substr(0, 10) + " ", to.substr(11, 5));
}

/// The GPUs of one host of a job on several hosts, in the document's order.
struct HostGpus {
  std::string_view host;
  std::vector<const extract::GpuFeatures*> gpus;
};

/// The hosts of a job on several hosts (its GPUs name theirs); empty for one host.
std::vector<HostGpus> hosts_of(const extract::Features& f) {
  std::vector<HostGpus> out;
  for (const extract::GpuFeatures& g : f.gpus) {
    if (g.host.empty()) return {};
    if (out.empty() || out.back().host != g.host) out.push_back(HostGpus{g.host, {}});
    out.back().gpus.push_back(&g);
  }
  return out.size() > 1 ? out : std::vector<HostGpus>{};
}

double indicator(const extract::GpuFeatures& g, const extract::IndicatorKey& key) {
  return extract::value_of(g.indicators, key).value_or(std::numeric_limits<double>::quiet_NaN());
}

/// A host's energy (its GPUs' sum) and mean utilisation (their mean, as the host's indicator is).
std::pair<double, double> host_energy_util(const HostGpus& h) {
  double kwh = 0, util = 0;
  for (const extract::GpuFeatures* g : h.gpus) {
    kwh += indicator(*g, "energy_kwh");
    util += indicator(*g, "util_mean");
  }
  return {kwh, util / static_cast<double>(h.gpus.size())};
}

void json_hosts(io::JsonWriter& w, const extract::Features& f) {
  const std::vector<HostGpus> hosts = hosts_of(f);
  if (hosts.empty()) return;
  w.line("  ").key("hosts").array();
  for (const HostGpus& h : hosts) {
    const auto [kwh, util] = host_energy_util(h);
    w.line("    ").item().object().key("host").str(h.host).key("energy_kwh").num(kwh).key("util_mean").num(util);
    w.key("gpus").array();
    for (const extract::GpuFeatures* g : h.gpus)
      w.item()
          .object()
          .key("gpu")
          .integer(g->gpu)
          .key("energy_kwh")
          .num(indicator(*g, "energy_kwh"))
          .key("util_mean")
          .num(indicator(*g, "util_mean"))
          .key("coverage")
          .num(indicator(*g, "coverage"))
          .close();
    w.close().close();
  }
  w.close();
}

/// --full's lines of a job on several hosts: each host's energy and utilisation, then its GPUs'.
std::string hosts_full(const extract::Features& f) {
  std::string b;
  for (const HostGpus& h : hosts_of(f)) {
    const auto [kwh, util] = host_energy_util(h);
    std::string gpus;
    for (const extract::GpuFeatures* g : h.gpus)
      gpus += fmt::format("{}GPU {} {:.4f} kWh {:.1f} %", gpus.empty() ? "" : ", ", g->gpu, indicator(*g, "energy_kwh"),
                          indicator(*g, "util_mean") * 100);
    b += fmt::format("{}{} {}, {:.4f} kWh, mean utilisation {:.1f} %: {}\n", b.empty() ? "hosts     " : "          ",
                     h.host, text::counted(static_cast<long long>(h.gpus.size()), "GPU"), kwh, util * 100, gpus);
  }
  return b;
}

}  // namespace

void job_json(io::JsonWriter& w, const Answer& a) {
  const breakeven::Result& r = a.result;
  const extract::Features& f = a.features;
  w.line("  ").key("job").object().key("from").str(format_utc(f.from_ns)).key("to").str(format_utc(f.to_ns));
  w.key("host").str(f.host).key("host_basis").str_or_null(f.host_basis).key("logs_tz").str_or_null(a.extras.logs_tz);
  w.key("wall_h").num(r.job.wall_h).key("gpus").count(r.job.energy_kwh.size()).key("energy_kwh").num(r.energy_kwh);
  w.key("util_mean").num(r.util_mean).key("util_assumed").boolean(r.job.util_assumed);
  w.key("util_source").str(r.job.util_source).key("trace_busy_fraction").num(r.job.trace_busy_fraction);
  w.key("downtime_h").num(r.downtime_h).key("downtime_share").num(r.downtime_share);
  if (!r.downtime_h) w.key("downtime_reason").str(r.job.downtime_reason);
  w.close();
  json_hosts(w, f);
  json_energy_basis(w, r.job, a.extras.estimate);
}

std::string job_full(const Answer& a) {
  const breakeven::Result& r = a.result;
  const extract::Features& f = a.features;
  const BreakevenExtras& x = a.extras;
  std::string b =
      fmt::format("job       {} .. {}  ({}, {}{}{})\n", format_utc(f.from_ns), format_utc(f.to_ns), hours(r.job.wall_h),
                  text::counted(static_cast<long long>(r.job.energy_kwh.size()), "GPU"),
                  f.host.empty() ? "" : ", host " + f.host, x.logs_tz.empty() ? "" : ", log times in " + x.logs_tz);
  if (const std::string note = assumed_host_note(f); !note.empty()) b += fmt::format("          {}\n", note);
  if (x.estimate) return b + estimate_lines(*x.estimate);
  return b +
         fmt::format(
             "{}, mean utilisation {:.1f} %{}\n", energy_line(r.job, r.energy_kwh), r.util_mean * 100,
             r.job.util_assumed             ? " (utilisation not measured: 100 % assumed)"
             : r.job.util_source == "trace" ? " (from the profiler trace's busy share: no telemetry utilisation)"
             : r.job.trace_busy_fraction    ? fmt::format(" (telemetry; the profiler trace's busy share is {:.1f} %)",
                                                          *r.job.trace_busy_fraction * 100)
                                            : std::string()) +
         hosts_full(f);
}

std::string job_summary(const Answer& a) {
  const breakeven::Result& r = a.result;
  const extract::Features& f = a.features;
  std::string host = f.host.empty() ? std::string() : ", host " + f.host;
  std::string b = fmt::format("job          {} on {}{}, {}\n", text::duration_hours(r.job.wall_h),
                              text::counted(static_cast<long long>(r.job.energy_kwh.size()), "GPU"), host,
                              minute_span(f.from_ns, f.to_ns));
  if (const std::string note = assumed_host_note(f); !note.empty()) b += fmt::format("             {}\n", note);
  const char* how = a.extras.estimate ? "estimated from the GPU model (no telemetry)" : "measured";
  b += fmt::format("energy       {:.4f} kWh {}, mean utilisation {:.1f} %{}\n", r.energy_kwh, how, r.util_mean * 100,
                   r.job.util_assumed ? " (assumed: not measured)" : "");
  return b + "\n";
}

}  // namespace gpucost::report::sections

namespace gpucost::report {

std::string assumed_host_note(const extract::Features& f) {
  if (f.host_basis != "machine" || f.host.empty()) return {};
  return fmt::format("host {}: this machine's name, no input names a host; --host sets it", f.host);
}

}  // namespace gpucost::report

// The Slurm jobs the window was taken from (sacct), with the energy Slurm measured beside the
// GPUs' telemetry (docs/formats.md, "sacct").
#include "report/sections/sections.hpp"

#include <gpucost/core/text.hpp>
#include <optional>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// The Slurm energy beside the telemetry's: Slurm's plugin measures the nodes (CPUs and more with
/// IPMI or RAPL), the telemetry the GPUs alone; their ratio is shown, never taken for the energy.
std::string slurm_energy_text(const extract::JobRecord& j, double telemetry_kwh) {
  if (!j.energy_j) return "energy not measured by Slurm (no energy plugin)";
  const double kwh = *j.energy_j / 3.6e6;
  return fmt::format("energy {:.4f} kWh measured by Slurm ({}), the GPUs' telemetry {:.4f} kWh ({:.0f} % of it)", kwh,
                     j.energy_source.empty() ? "job" : j.energy_source, telemetry_kwh,
                     kwh > 0 ? telemetry_kwh / kwh * 100 : 0.0);
}

/// "slurm     job 4242 (finetune) of alice on gpu01, 2 GPUs (a100), COMPLETED, exit 0; energy ..."
std::string slurm_lines(const extract::Features& f, const breakeven::Result& r) {
  std::string b;
  for (const extract::JobRecord& j : f.jobs) {
    std::string exit;
    if (j.exit_code) exit = fmt::format(", exit {}", *j.exit_code);
    if (j.exit_signal && *j.exit_signal != 0) exit += fmt::format(" (signal {})", *j.exit_signal);
    b += fmt::format("slurm     job {}{} of {} on {}, {}{}, {}{}{}\n", j.id, j.name.empty() ? "" : " (" + j.name + ")",
                     j.user.empty() ? "?" : j.user, j.nodelist.empty() ? "?" : j.nodelist,
                     j.gpus ? text::counted(*j.gpus, "GPU") : "no GPU in AllocTRES",
                     j.gpu_types.empty() ? "" : " (" + j.gpu_types + ")", j.state.empty() ? "state ?" : j.state, exit,
                     j.end_ns ? "" : " (running: the window ends at the last sample)");
    if (f.jobs.size() == 1) b += fmt::format("          {}\n", slurm_energy_text(j, r.energy_kwh));
  }
  return b;
}

}  // namespace

void slurm_json(io::JsonWriter& w, const Answer& a) {
  const extract::Features& f = a.features;
  if (f.jobs.empty()) return;
  w.line("  ").key("slurm_jobs").array();
  for (const extract::JobRecord& j : f.jobs) {
    w.line("    ").item().object().key("id").str(j.id).key("name").str(j.name).key("user").str(j.user);
    w.key("nodelist").str(j.nodelist).key("state").str(j.state).key("nodes").array();
    for (const std::string& n : j.nodes) w.item().str(n);
    w.close().key("gpus").integer(j.gpus).key("exit_code").integer(j.exit_code);
    w.key("energy_kwh").num(j.energy_j ? std::optional<double>(*j.energy_j / 3.6e6) : std::nullopt);
    w.key("energy_source").str_or_null(j.energy_j ? std::string_view(j.energy_source) : std::string_view());
    w.close();
  }
  w.close("\n  ").line("  ").key("slurm_gpus_seen").count(a.result.job.energy_kwh.size());
}

std::string slurm_full(const Answer& a) { return slurm_lines(a.features, a.result); }

}  // namespace gpucost::report::sections

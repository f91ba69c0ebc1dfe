#include <gpucost/report/priced_views.hpp>

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

namespace gpucost::report {

BreakevenExtras extras_of(const breakeven::PricedJob& priced, std::string logs_tz) {
  BreakevenExtras x;
  x.logs_tz = std::move(logs_tz);
  x.tariff_tz = priced.config.tariff_tz;
  x.sensitivity = priced.sensitivity;
  x.range = priced.range;
  x.monte_carlo = priced.monte_carlo;
  x.monte_carlo_reason = priced.monte_carlo_reason;
  x.clouds = priced.clouds;
  x.paying = priced.paying;
  x.fit_basis = breakeven::fit_basis(priced.shape, priced.config.memory_margin);
  x.findings = priced.findings;
  x.estimate = priced.estimate;
  x.beside = priced.beside;
  return x;
}

std::vector<ReportFinding> report_findings(const std::vector<breakeven::Finding>& found,
                                           const breakeven::CostConfig& config, bool above_line) {
  std::vector<ReportFinding> out;
  for (const auto& f : found) {
    std::string evidence;
    for (const auto& e : f.evidence)
      evidence += fmt::format("{}{}{} = {}", evidence.empty() ? "" : "; ", e.id.empty() ? "" : e.id + " ", e.key,
                              text::short_number(e.value));
    out.push_back(ReportFinding{above_line ? "warning" : "info", f.title,
                                fmt::format("Estimated saving ~{:.2f} {} ({}). Evidence: {}. {}", f.saving,
                                            config.currency, f.saving_basis, evidence, f.suggestion)});
  }
  return out;
}

}  // namespace gpucost::report

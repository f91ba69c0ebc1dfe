// The findings: what to change, ranked by estimated saving, with their evidence
// (findings_report.cpp writes them; docs/findings.md).
#include "report/sections/sections.hpp"

#include <algorithm>
#include <cstddef>
#include <gpucost/report/findings_report.hpp>
#include <vector>

#include <fmt/format.h>

namespace gpucost::report::sections {

namespace {

/// The one-screen answer lists this many findings, the largest estimated saving first.
constexpr std::size_t kFindingsShown = 3;

}  // namespace

void findings_json(io::JsonWriter& w, const Answer& a) {
  if (a.extras.findings) report::findings_json(w, *a.extras.findings);
}

std::string findings_full(const Answer& a) {
  return a.extras.findings ? findings_table(*a.extras.findings, a.config.currency, a.extras.explain) : std::string();
}

std::string findings_summary(const Answer& a) {
  if (!a.extras.findings) return {};
  const std::vector<breakeven::Finding>& findings = *a.extras.findings;
  const std::string& cur = a.config.currency;
  if (findings.empty()) return {};
  std::string b = fmt::format("\nwhat to change ({} of {}, estimated saving first; --explain for the evidence)\n",
                              std::min(findings.size(), kFindingsShown), findings.size());
  for (std::size_t i = 0; i < std::min(findings.size(), kFindingsShown); ++i)
    b += one_line(fmt::format("  {}. {:>11}  {}", i + 1, money(findings[i].saving, cur), findings[i].title));
  return b;
}

}  // namespace gpucost::report::sections

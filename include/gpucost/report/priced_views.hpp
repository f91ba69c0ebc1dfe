// What the outputs of one priced job are made of: the extras around the Result and the findings
// as the HTML report lists them. Shared by breakeven, report, batch and record.
#pragma once

#include <gpucost/breakeven/price_job.hpp>
#include <gpucost/report/breakeven_report.hpp>
#include <gpucost/report/html_report.hpp>

#include <string>
#include <vector>

namespace gpucost::report {

/// The table's and JSON's extras of a priced job; `logs_tz`: the zones its logs' local times were
/// read in (Features::logs_tz).
BreakevenExtras extras_of(const breakeven::PricedJob& priced, std::string logs_tz);

/// The findings the HTML report lists (always, as with breakeven --explain), largest saving first;
/// as warnings when the premium is above the line.
std::vector<ReportFinding> report_findings(const std::vector<breakeven::Finding>& found,
                                           const breakeven::CostConfig& config, bool above_line);

}  // namespace gpucost::report

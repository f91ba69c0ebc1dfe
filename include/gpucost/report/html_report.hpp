// `gpucost report`: one self-contained HTML file (inline CSS and SVG; no scripts, fonts or
// links to fetch) with the verdict, the cost and break-even charts, per-GPU timelines, the
// trace breakdown, the findings and every indicator. Written as XHTML-compatible HTML5 (every
// tag closed, attributes quoted, only XML's entities) and deterministic: the same inputs give
// the same bytes.
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/report/breakeven_report.hpp>
#include <gpucost/report/timeline.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpucost::report {

/// One finding of the analysis (a cause of cost or a risk, with what to do). The report shows
/// a Findings section when the caller passes any.
struct ReportFinding {
  std::string severity;  ///< "info", "warning" or "critical": the CSS class of the item
  std::string title;
  std::string detail;
};

struct ReportOptions {
  double temp_threshold_c = 78.0;  ///< the rule drawn on the temperature charts
  std::string generator;           ///< "gpucost 0.1.0", in the footer
  std::string generated_at;        ///< shown in the footer when set; never taken from the clock
};

struct ReportContent {
  const breakeven::Result& result;
  const breakeven::CostConfig& config;
  const ReportSources& sources;
  const BreakevenExtras& extras;
  const std::vector<ReportFinding>& findings;
  ReportOptions options;
};

std::string html_report(const ReportContent& content);

/// The names of the answer's sections the report draws (section.hpp), in its order: a name that
/// is no section's would never be drawn (a unit test holds them to the list).
std::vector<std::string_view> html_section_names();

}  // namespace gpucost::report

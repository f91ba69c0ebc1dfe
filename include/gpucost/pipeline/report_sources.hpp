// Feeding `gpucost report`: its inputs read like breakeven's, keeping besides what the report
// draws (the series, events and trace records of report::ReportCollector).
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/prep/prep.hpp>
#include <gpucost/report/timeline.hpp>

#include <string>
#include <vector>

namespace gpucost::pipeline {

/// Reads the inputs like breakeven does (a features document as is, through load_features;
/// anything else through prep and extract), keeping the series, events and trace records the
/// report draws.
Expected<report::ReportSources> load_report_sources(const std::vector<ProbedInput>& inputs,
                                                    const prep::PrepOptions& options, LocalClock& clock,
                                                    const extract::ExtractOptions& extract_options,
                                                    std::vector<InputStats>& stats);

}  // namespace gpucost::pipeline

#include <gpucost/pipeline/report_sources.hpp>

#include <gpucost/pipeline/inputs.hpp>

#include <utility>

namespace gpucost::pipeline {

Expected<report::ReportSources> load_report_sources(const std::vector<ProbedInput>& inputs,
                                                    const prep::PrepOptions& options, LocalClock& clock,
                                                    const extract::ExtractOptions& extract_options,
                                                    std::vector<InputStats>& stats) {
  // stdin or a pipe is looked at as it is read
  if (inputs.size() == 1 && !inputs[0].read_once && inputs[0].kind == ProbedInput::Kind::features_document) {
    auto features = load_features(inputs, options, clock, extract_options, stats);
    if (!features) return features.error();
    report::ReportSources out;
    out.features = std::move(*features);
    out.from_features_document = true;
    return out;
  }
  report::ReportCollector collector;
  auto features = collect_features(inputs, options, clock, collector, collector.samples(), extract_options, stats);
  if (!features) return features.error();
  return report::report_sources(collector, std::move(*features));
}

}  // namespace gpucost::pipeline

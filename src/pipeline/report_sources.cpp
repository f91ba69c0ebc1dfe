#include <gpucost/pipeline/report_sources.hpp>

#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/inputs.hpp>

#include <utility>

namespace gpucost::pipeline {

namespace {

bool is_features_document(const std::string& path) {
  if (io::read_once(path)) return false;  // looked at as it is read
  auto reader = io::LineReader::open(path);
  return reader && extract::is_features_document((*reader)->peek(4096));
}

}  // namespace

Expected<report::ReportSources> load_report_sources(const std::vector<std::string>& paths,
                                                    const prep::PrepOptions& options, LocalClock& clock,
                                                    const extract::ExtractOptions& extract_options,
                                                    std::vector<InputStats>& stats) {
  if (paths.size() == 1 && is_features_document(paths[0])) {
    auto features = load_features(paths, options, clock, extract_options, stats);
    if (!features) return features.error();
    report::ReportSources out;
    out.features = std::move(*features);
    out.from_features_document = true;
    return out;
  }
  report::ReportCollector collector;
  auto features = collect_features(paths, options, clock, collector, collector.samples(), extract_options, stats);
  if (!features) return features.error();
  return report::report_sources(collector, std::move(*features));
}

}  // namespace gpucost::pipeline

#include <gpucost/pipeline/inputs.hpp>

#include <gpucost/io/event_stream.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <glob.h>
#include <sys/stat.h>

namespace gpucost::pipeline {

Expected<std::vector<std::string>> expand_inputs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    struct stat st {};
    const bool pattern = a.find_first_of("*?[") != std::string::npos;
    if (a == "-" || !pattern || ::stat(a.c_str(), &st) == 0) {
      out.push_back(a);
      continue;
    }
    glob_t g{};
    const int rc = ::glob(a.c_str(), 0, nullptr, &g);
    if (rc != 0 || g.gl_pathc == 0) {
      globfree(&g);
      return make_error(ErrorKind::io, fmt::format("{}: no file matches this pattern", a), "check the pattern and the directory");
    }
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
    globfree(&g);
  }
  return out;
}

Status check_inputs(const std::vector<std::string>& paths, const prep::PrepOptions& options) {
  for (const std::string& p : paths) {
    if (p == "-") continue;  // stdin can be read once only: checked as it is read
    auto reader = io::LineReader::open(p);  // same checks and messages as the real open
    if (!reader) return reader.error();
    const std::string_view head = (*reader)->peek(64 * 1024);
    if (options.forced != prep::Format::unknown || io::is_event_stream(head) || extract::is_features_document(head))
      continue;
    if (auto st = prep::check_format(head, options, p); !st) return st;
  }
  return {};
}

Status feed_inputs(const std::vector<std::string>& paths, const prep::PrepOptions& options, LocalClock& clock,
                   prep::EventSink& sink, std::vector<prep::InputStats>& stats) {
  for (const std::string& path : paths) {
    auto reader = io::LineReader::open(path);
    stats.emplace_back();
    prep::InputStats& st = stats.back();
    st.path = path == "-" ? "<stdin>" : path;
    if (!reader) return reader.error();
    const std::string_view head = (*reader)->peek(4096);
    if (options.forced == prep::Format::unknown && io::is_event_stream(head)) {
      st.compression = std::string(io::to_string((*reader)->compression()));
      if (auto s = io::read_event_stream(**reader, sink, st); !s) return s;
      continue;
    }
    if (extract::is_features_document(head))
      return make_error(ErrorKind::usage, fmt::format("{}: is a gpucost.features document", st.path),
                        "features are breakeven's input; give extract the logs or an events stream");
    if (auto s = prep::run_prep_input(**reader, options, clock, sink, st); !s) return s;
  }
  return {};
}

Expected<extract::Features> load_features(const std::vector<std::string>& paths, const prep::PrepOptions& options,
                                          LocalClock& clock, const extract::ExtractOptions& extract_options,
                                          std::vector<prep::InputStats>& stats) {
  if (paths.size() == 1) {
    auto reader = io::LineReader::open(paths[0]);
    if (!reader) return reader.error();
    if (extract::is_features_document((*reader)->peek(4096))) {
      std::string text;
      io::Line line;
      while ((*reader)->next(line)) {
        text.append(line.text);
        text.push_back('\n');
      }
      return extract::features_from_json(text, paths[0] == "-" ? "<stdin>" : paths[0]);
    }
    if (paths[0] == "-") {
      // stdin cannot be reopened: feed this reader directly.
      extract::SampleCollector samples;
      stats.emplace_back();
      prep::InputStats& st = stats.back();
      st.path = "<stdin>";
      if (io::is_event_stream((*reader)->peek(4096))) {
        if (auto s = io::read_event_stream(**reader, samples, st); !s) return s.error();
      } else if (auto s = prep::run_prep_input(**reader, options, clock, samples, st); !s) {
        return s.error();
      }
      return extract::compute_features(samples, extract_options);
    }
  }
  extract::SampleCollector samples;
  if (auto s = feed_inputs(paths, options, clock, samples, stats); !s) return s.error();
  return extract::compute_features(samples, extract_options);
}

}  // namespace gpucost::pipeline

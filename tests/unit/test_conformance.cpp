// Conformance: prep over every real capture in ../shared/corpus/logs/{dmon,pmon,query-csv}.
// The corpus is read in place, never copied. When it is absent the test says so and passes.
#include <catch2/catch.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace prep = gpucost::prep;

namespace {

class CountingSink final : public prep::EventSink {
 public:
  std::uint64_t events = 0;
  void on_event(const gpucost::Event& /*event*/) override { ++events; }
};

// Data rows counted independently of the parsers: non-blank lines that are not '#' comments for
// dmon/pmon; non-blank lines minus the one header line for query-csv.
std::uint64_t count_data_rows(const std::string& path, prep::Format format) {
  auto reader = gpucost::io::LineReader::open(path);
  REQUIRE(reader);
  std::uint64_t rows = 0;
  gpucost::io::Line line;
  while ((*reader)->next(line)) {
    const std::string_view t = gpucost::text::trim(line.text);
    if (t.empty()) continue;
    if (format != prep::Format::query_csv && t.front() == '#') continue;
    ++rows;
  }
  if (format == prep::Format::query_csv && rows > 0) --rows;
  return rows;
}

}  // namespace

TEST_CASE("conformance: prep reads every dmon, pmon and query-csv capture of the corpus", "[conformance]") {
  const fs::path logs = fs::path(GPUCOST_CORPUS_DIR) / "logs";
  if (!fs::is_directory(logs)) {
    WARN("corpus not found at " << logs.string() << ": conformance test skipped");
    SUCCEED("corpus absent");
    return;
  }
  const std::pair<const char*, prep::Format> folders[] = {
      {"dmon", prep::Format::dmon}, {"pmon", prep::Format::pmon}, {"query-csv", prep::Format::query_csv}};
  std::size_t files = 0;
  for (const auto& [folder, format] : folders) {
    const fs::path dir = logs / folder;
    if (!fs::is_directory(dir)) {
      WARN("corpus folder " << dir.string() << " not found: skipped");
      continue;
    }
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.is_regular_file()) paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    for (const fs::path& path : paths) {
      INFO(path.string());
      ++files;
      auto reader = gpucost::io::LineReader::open(path.string());
      REQUIRE(reader);
      auto clock = gpucost::LocalClock::make("UTC");
      REQUIRE(clock);
      CountingSink sink;
      prep::InputStats stats;
      stats.path = path.string();
      const prep::PrepOptions options;
      const gpucost::Status status = prep::run_prep_input(**reader, options, *clock, sink, stats);
      REQUIRE(status);
      const std::string first_bad = stats.examples.empty() ? std::string("none")
                                                           : std::to_string(stats.examples[0].line) + ": " +
                                                                 stats.examples[0].reason;
      INFO("first malformed line " << first_bad);
      CHECK(stats.format == format);
      CHECK(stats.malformed == 0);
      CHECK(stats.truncated.empty());
      CHECK(stats.lines == stats.events + stats.ignored + stats.malformed);
      CHECK(sink.events == stats.events);
      CHECK(stats.events == count_data_rows(path.string(), format));
    }
  }
  CHECK(files > 0);
}

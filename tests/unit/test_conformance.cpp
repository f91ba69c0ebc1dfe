// Conformance: prep over every real capture in ../shared/corpus/logs/{dmon,pmon,query-csv,journal-json,dcgmi,
// kernlog,dmesg,journal-text,torch-table,nsys,trainlog}.
// The corpus is read in place, never copied. When it is absent the test says so and passes.
#include <catch2/catch.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace prep = gpucost::prep;

namespace {

class CountingSink final : public gpucost::EventSink {
 public:
  std::uint64_t events = 0;
  void on_event(const gpucost::Event& /*event*/) override { ++events; }
};

// The captures of one corpus folder, sorted; none (with a warning) when the folder is absent.
std::vector<fs::path> corpus_files(const fs::path& dir) {
  std::vector<fs::path> paths;
  if (!fs::is_directory(dir)) {
    WARN("corpus folder " << dir.string() << " not found: skipped");
    return paths;
  }
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename() != "PROVENANCE.md") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// prep over one capture with default options and the UTC clock; the run must not fail.
gpucost::InputStats prep_file(const fs::path& path, gpucost::EventSink& sink) {
  auto reader = gpucost::io::LineReader::open(path.string());
  REQUIRE(reader);
  auto clock = gpucost::LocalClock::make("UTC");
  REQUIRE(clock);
  gpucost::InputStats stats;
  stats.path = path.string();
  REQUIRE(prep::run_prep_input(**reader, prep::PrepOptions{}, *clock, sink, stats));
  return stats;
}

// Data rows counted independently of the parsers: non-blank lines that are not '#' comments for
// dmon/pmon; non-blank lines minus the one header line for query-csv.
std::uint64_t count_data_rows(const std::string& path, gpucost::Format format) {
  auto reader = gpucost::io::LineReader::open(path);
  REQUIRE(reader);
  std::uint64_t rows = 0;
  gpucost::io::Line line;
  while ((*reader)->next(line)) {
    const std::string_view t = gpucost::text::trim(line.text);
    if (t.empty()) continue;
    if (format != gpucost::Format::query_csv && t.front() == '#') continue;
    ++rows;
  }
  if (format == gpucost::Format::query_csv && rows > 0) --rows;
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
  const std::pair<const char*, gpucost::Format> folders[] = {
      {"dmon", gpucost::Format::dmon}, {"pmon", gpucost::Format::pmon}, {"query-csv", gpucost::Format::query_csv}};
  std::size_t files = 0;
  for (const auto& [folder, format] : folders) {
    for (const fs::path& path : corpus_files(logs / folder)) {
      INFO(path.string());
      ++files;
      CountingSink sink;
      const gpucost::InputStats stats = prep_file(path, sink);
      const std::string first_bad = stats.examples.empty()
                                        ? std::string("none")
                                        : std::to_string(stats.examples[0].line) + ": " + stats.examples[0].reason;
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

TEST_CASE("conformance: prep reads every journal-json and dcgmi capture of the corpus", "[conformance]") {
  const fs::path logs = fs::path(GPUCOST_CORPUS_DIR) / "logs";
  if (!fs::is_directory(logs)) {
    WARN("corpus not found at " << logs.string() << ": conformance test skipped");
    SUCCEED("corpus absent");
    return;
  }
  // What each known capture holds, read off the file by hand: events, ignored, malformed lines.
  // The one malformed line is dcgmi's own "Error setting watches. Result: ..." in place of data.
  struct Expect {
    const char* file;
    std::uint64_t events, ignored, malformed;
  };
  const Expect known[] = {
      {"journal-json/lnav_imx6ul_journald.json", 0, 2, 0},  // two python GPS messages, no GPU event
      {"dcgmi/dcgm244_8gpu_prof_na.txt", 10, 2, 0},         // GPU 0..7, GPU 0, GPU 1 (header pair)
      {"dcgmi/dcgm3_old_header_error.txt", 0, 2, 1},        // DCGM 2.x header pair, then the error
  };
  // Data rows of dcgmi counted independently of the parser: an entity, its id, values.
  const std::regex dcgmi_row(R"(^\s*[A-Za-z][A-Za-z0-9_-]*\s+\d+\s+\S.*$)");
  std::size_t files = 0;
  for (const auto& [folder, format] :
       {std::pair{"journal-json", gpucost::Format::journal_json}, std::pair{"dcgmi", gpucost::Format::dcgmi}}) {
    for (const fs::path& path : corpus_files(logs / folder)) {
      INFO(path.string());
      ++files;
      CountingSink sink;
      const gpucost::InputStats stats = prep_file(path, sink);
      const std::string first_bad = stats.examples.empty()
                                        ? std::string("none")
                                        : std::to_string(stats.examples[0].line) + ": " + stats.examples[0].reason;
      INFO("first malformed line " << first_bad);
      CHECK(stats.format == format);
      CHECK(stats.truncated.empty());
      CHECK(stats.lines == stats.event_lines + stats.ignored + stats.malformed);
      CHECK(sink.events == stats.events);
      const std::string rel = std::string(folder) + "/" + path.filename().string();
      const Expect* expect = nullptr;
      for (const Expect& k : known)
        if (rel == k.file) expect = &k;
      if (expect != nullptr) {
        CHECK(stats.events == expect->events);
        CHECK(stats.ignored == expect->ignored);
        CHECK(stats.malformed == expect->malformed);
      } else {
        CHECK(stats.malformed == 0);
      }
      if (format == gpucost::Format::dcgmi) {
        std::uint64_t rows = 0;
        auto again = gpucost::io::LineReader::open(path.string());
        REQUIRE(again);
        gpucost::io::Line line;
        while ((*again)->next(line))
          if (std::regex_match(std::string(line.text), dcgmi_row)) ++rows;
        CHECK(stats.events == rows);
      }
    }
  }
  CHECK(files > 0);
}

namespace {

// gpu_info events of one input: how many, and how many carry a driver version.
class SmiInfoSink final : public gpucost::EventSink {
 public:
  std::uint64_t events = 0, gpu_info = 0, with_driver = 0;
  void on_event(const gpucost::Event& event) override {
    ++events;
    if (event.kind != "gpu_info") return;
    ++gpu_info;
    for (const gpucost::Field& f : event.fields)
      if (f.key == "driver_version" && !f.value.empty()) ++with_driver;
  }
};

}  // namespace

TEST_CASE("conformance: prep reads every smi-q and smi-xml capture of the corpus", "[conformance]") {
  const fs::path logs = fs::path(GPUCOST_CORPUS_DIR) / "logs";
  if (!fs::is_directory(logs)) {
    WARN("corpus not found at " << logs.string() << ": conformance test skipped");
    SUCCEED("corpus absent");
    return;
  }
  std::size_t files = 0;
  for (const auto& [folder, format] :
       {std::pair{"smi-q", gpucost::Format::smi_q}, std::pair{"smi-xml", gpucost::Format::smi_xml}}) {
    for (const fs::path& path : corpus_files(logs / folder)) {
      INFO(path.string());
      ++files;
      // GPU blocks and driver lines counted independently of the parser: "GPU <bus id>" lines at
      // column 0 / <gpu ...> elements; a "Driver Version" line / <driver_version> element.
      std::uint64_t blocks = 0;
      bool has_driver = false;
      {
        auto reader = gpucost::io::LineReader::open(path.string());
        REQUIRE(reader);
        gpucost::io::Line line;
        while ((*reader)->next(line)) {
          const std::string_view t = line.text;
          if (format == gpucost::Format::smi_q) {
            const bool gpu_line = t.substr(0, 4) == "GPU " && t.find(" : ") == std::string_view::npos;
            if (gpu_line && t.find(':') != std::string_view::npos) ++blocks;
            has_driver = has_driver || t.substr(0, 14) == "Driver Version";
          } else {
            const std::string_view s = gpucost::text::trim(t);
            if (s.substr(0, 5) == "<gpu " || s == "<gpu>") ++blocks;
            has_driver = has_driver || s.substr(0, 16) == "<driver_version>";
          }
        }
      }
      SmiInfoSink sink;
      const gpucost::InputStats stats = prep_file(path, sink);
      const std::string first_bad = stats.examples.empty()
                                        ? std::string("none")
                                        : std::to_string(stats.examples[0].line) + ": " + stats.examples[0].reason;
      INFO("first malformed line " << first_bad);
      CHECK(stats.format == format);
      CHECK(stats.malformed == 0);
      CHECK(stats.truncated.empty());
      CHECK(stats.lines == stats.event_lines + stats.ignored + stats.malformed);
      CHECK(sink.events == stats.events);
      CHECK(blocks > 0);
      CHECK(sink.gpu_info == blocks);  // one gpu_info per GPU block (one snapshot per file here)
      if (has_driver) {
        CHECK(sink.with_driver == blocks);
        CHECK_FALSE(stats.fingerprint.drivers.empty());
      }
      CHECK(stats.fingerprint.gpu_count == blocks);
    }
  }
  CHECK(files > 0);
}

namespace {

// Kinds of the events of one input, and how many.
class KindSink final : public gpucost::EventSink {
 public:
  std::uint64_t events = 0;
  std::map<std::string, std::uint64_t> kinds;
  void on_event(const gpucost::Event& event) override {
    ++events;
    ++kinds[std::string(event.kind)];
  }
};

// Lines containing `needle`, counted independently of the parsers.
std::uint64_t count_lines_with(const std::string& path, std::string_view needle) {
  auto reader = gpucost::io::LineReader::open(path);
  REQUIRE(reader);
  std::uint64_t n = 0;
  gpucost::io::Line line;
  while ((*reader)->next(line))
    if (line.text.find(needle) != std::string_view::npos) ++n;
  return n;
}

}  // namespace

TEST_CASE("conformance: prep reads every kernlog, dmesg and journal-text capture of the corpus", "[conformance]") {
  const fs::path logs = fs::path(GPUCOST_CORPUS_DIR) / "logs";
  if (!fs::is_directory(logs)) {
    WARN("corpus not found at " << logs.string() << ": conformance test skipped");
    SUCCEED("corpus absent");
    return;
  }
  // journalctl short and rsyslog files share their shape: either name is right for journal-text.
  const std::pair<const char*, std::vector<gpucost::Format>> folders[] = {
      {"kernlog", {gpucost::Format::syslog}},
      {"dmesg", {gpucost::Format::dmesg}},
      {"journal-text", {gpucost::Format::journal_text, gpucost::Format::syslog}}};
  // A word of the file name says what the capture holds: at least one event of that kind.
  const std::pair<const char*, const char*> named_kinds[] = {{"xid", "xid"},         {"aer", "aer"},
                                                             {"suspend", "suspend"}, {"sleep", "suspend"},
                                                             {"lid", "lid"},         {"fallen", "gpu_lost"}};
  std::size_t files = 0;
  for (const auto& [folder, formats] : folders) {
    for (const fs::path& path : corpus_files(logs / folder)) {
      INFO(path.string());
      ++files;
      KindSink sink;
      const gpucost::InputStats stats = prep_file(path, sink);
      const std::string first_bad = stats.examples.empty()
                                        ? std::string("none")
                                        : std::to_string(stats.examples[0].line) + ": " + stats.examples[0].reason;
      INFO("first malformed line " << first_bad);
      CHECK(std::find(formats.begin(), formats.end(), stats.format) != formats.end());
      CHECK(stats.malformed == 0);
      CHECK(stats.truncated.empty());
      CHECK(stats.lines == stats.event_lines + stats.ignored + stats.malformed);
      CHECK(sink.events == stats.events);
      CHECK(stats.event_lines >= stats.events);
      CHECK_FALSE(stats.clock.empty());
      // Every Xid line is one xid event; every "PCIe Bus Error" line and every "Multiple ...
      // error received" header one aer event.
      CHECK(sink.kinds["xid"] == count_lines_with(path.string(), "NVRM: Xid ("));
      CHECK(sink.kinds["aer"] == count_lines_with(path.string(), "PCIe Bus Error: severity=") +
                                     count_lines_with(path.string(), "AER: Multiple "));
      const std::string name = path.filename().string();
      for (const auto& [word, kind] : named_kinds) {
        if (name.find(word) == std::string::npos) continue;
        INFO("the file name says '" << word << "': expected a " << kind << " event");
        CHECK(sink.kinds[kind] > 0);
      }
    }
  }
  CHECK(files > 0);
}

TEST_CASE("conformance: prep reads every torch-table and nsys capture of the corpus", "[conformance]") {
  const fs::path logs = fs::path(GPUCOST_CORPUS_DIR) / "logs";
  if (!fs::is_directory(logs)) {
    WARN("corpus not found at " << logs.string() << ": conformance test skipped");
    SUCCEED("corpus absent");
    return;
  }
  // Events of the known captures, read off the files by hand: one per table row, one per footer
  // (torch) / one per report row (nsys).
  const std::pair<const char*, std::uint64_t> known[] = {
      {"torch-table/kernelheim_square_cuda.txt", 8},              // 7 rows + footer
      {"torch-table/bottleneck_v100_torch131_autograd.txt", 16},  // 15 rows + footer
      {"nsys/ayush_a100_stats_v3.txt", 40},                       // nvtx 2, osrt 27, api 6, kern 1, mem time 2, size 2
      {"nsys/ayush_a100_stats_streamed.txt", 43},                 // nvtx 3, osrt 25, api 10, kern 1, mem time 2, size 2
  };
  std::size_t files = 0;
  for (const auto& [folder, format] :
       {std::pair{"torch-table", gpucost::Format::torch_table}, std::pair{"nsys", gpucost::Format::nsys}}) {
    for (const fs::path& path : corpus_files(logs / folder)) {
      INFO(path.string());
      ++files;
      KindSink sink;
      const gpucost::InputStats stats = prep_file(path, sink);
      const std::string first_bad = stats.examples.empty()
                                        ? std::string("none")
                                        : std::to_string(stats.examples[0].line) + ": " + stats.examples[0].reason;
      INFO("first malformed line " << first_bad);
      CHECK(stats.format == format);
      CHECK(stats.malformed == 0);
      CHECK(stats.truncated.empty());
      CHECK(stats.lines == stats.event_lines + stats.ignored + stats.malformed);
      CHECK(sink.events == stats.events);
      CHECK(stats.events > 0);
      const std::string rel = std::string(folder) + "/" + path.filename().string();
      for (const auto& [file, events] : known)
        if (rel == file) CHECK(stats.events == events);
      if (format == gpucost::Format::torch_table) {
        // One profiler_total per "Self CPU time total:" footer, counted independently.
        CHECK(sink.kinds["profiler_total"] == count_lines_with(path.string(), "Self CPU time total:"));
        CHECK(sink.kinds["profiler_op"] > 0);
      } else {
        // Every kernel summary announced gives kernel events.
        if (count_lines_with(path.string(), "cuda_gpu_kern_sum") +
                count_lines_with(path.string(), "CUDA Kernel Statistics:") >
            0)
          CHECK(sink.kinds["nsys_kernel"] > 0);
      }
    }
  }
  CHECK(files > 0);
}

namespace {

// Phases of the train events of one input.
class TrainSink final : public gpucost::EventSink {
 public:
  std::uint64_t events = 0;
  std::map<std::string, std::uint64_t> phases;
  void on_event(const gpucost::Event& event) override {
    ++events;
    if (event.kind != "train") return;
    for (const gpucost::Field& f : event.fields)
      if (f.key == "phase") ++phases[std::string(f.value)];
  }
};

}  // namespace

TEST_CASE("conformance: prep reads every trainlog capture of the corpus", "[conformance][trainlog]") {
  const fs::path logs = fs::path(GPUCOST_CORPUS_DIR) / "logs";
  if (!fs::is_directory(logs)) {
    WARN("corpus not found at " << logs.string() << ": conformance test skipped");
    SUCCEED("corpus absent");
    return;
  }
  // What each known capture holds, read off the file by hand.
  struct Expect {
    const char* file;
    std::uint64_t events, ignored;
    const char* first_phase;
  };
  const Expect known[] = {
      // start, 5 bars (step), 4 "epoch N: perplexity ... eval_loss ..." lines
      {"accel_megatron_gpt2_tqdm.log", 10, 21, "start"},
      {"k8s_worker_prefix_wandb.log", 1, 8, "start"},  // "***** Running training *****" behind the pod prefix
      // start, 5 loss dicts, the train_runtime dict, the bar, "training completed", "Saving model"
      {"textsumm_hf_trainer_custom_logfmt.log", 10, 10, "start"},
      {"tnews_hf_nolabel_warning.log", 2, 9, "start"},  // start, "epoch 0: {'accuracy': ...}"
  };
  std::size_t files = 0;
  for (const fs::path& path : corpus_files(logs / "trainlog")) {
    INFO(path.string());
    ++files;
    TrainSink sink;
    const gpucost::InputStats stats = prep_file(path, sink);
    const std::string first_bad = stats.examples.empty()
                                      ? std::string("none")
                                      : std::to_string(stats.examples[0].line) + ": " + stats.examples[0].reason;
    INFO("first malformed line " << first_bad);
    CHECK(stats.format == gpucost::Format::trainlog);
    CHECK(stats.malformed == 0);
    CHECK(stats.truncated.empty());
    CHECK(stats.lines == stats.event_lines + stats.ignored + stats.malformed);
    CHECK(sink.events == stats.events);
    for (const Expect& k : known) {
      if (path.filename() != k.file) continue;
      CHECK(stats.events == k.events);
      CHECK(stats.ignored == k.ignored);
      CHECK(sink.phases[k.first_phase] > 0);
    }
  }
  CHECK(files > 0);
}

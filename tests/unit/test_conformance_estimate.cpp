// The energy estimate's bounds against the power real GPUs drew (docs/cost-model.md, "Estimated
// energy", validation): every telemetry sample of the corpus whose capture names a GPU the table
// knows with its board power, at the sample's utilisation. The corpus is read in place; absent,
// the test says so and passes.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/energy_estimate.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace be = gpucost::breakeven;

namespace {

/// A sample's utilisation and power.
struct Draw {
  double util = 0, power_w = 0;
};

class DrawSink final : public gpucost::EventSink {
 public:
  std::vector<Draw> draws;
  void on_event(const gpucost::Event& e) override {
    if (e.kind == "sample" && e.has(gpucost::Metric::power_w) && e.has(gpucost::Metric::sm_pct))
      draws.push_back({e.get(gpucost::Metric::sm_pct) / 100.0, e.get(gpucost::Metric::power_w)});
  }
};

}  // namespace

TEST_CASE("corpus: the estimate's bounds hold the power measured on real GPUs", "[corpus]") {
  const fs::path logs = fs::path(GPUCOST_CORPUS_DIR) / "logs";
  if (!fs::is_directory(logs)) {
    WARN("corpus not found at " << logs.string() << ": estimate validation skipped");
    SUCCEED("corpus absent");
    return;
  }
  std::size_t checked = 0;
  for (const char* folder : {"smi-q", "smi-xml", "query-csv"}) {
    if (!fs::is_directory(logs / folder)) continue;
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(logs / folder))
      if (entry.is_regular_file()) paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    for (const fs::path& path : paths) {
      auto reader = gpucost::io::LineReader::open(path.string());
      REQUIRE(reader);
      auto clock = gpucost::LocalClock::make("UTC");
      REQUIRE(clock);
      gpucost::InputStats stats;
      stats.path = path.string();
      DrawSink sink;
      REQUIRE(gpucost::prep::run_prep_input(**reader, gpucost::prep::PrepOptions{}, *clock, sink, stats));
      if (stats.fingerprint.gpus.size() != 1) continue;  // no name, or several models
      const be::GpuSpeed* gpu = be::find_gpu_speed(stats.fingerprint.gpus.front());
      const auto model = gpu != nullptr ? be::power_model(*gpu) : std::nullopt;
      if (!model) continue;  // not in the table with a board power
      for (const Draw& d : sink.draws) {
        INFO(path.filename().string() << ": " << gpu->model << " at " << d.util * 100 << " %, " << d.power_w
                                      << " W; bounds " << model->low_w(d.util) << " .. " << model->high_w() << " W");
        CHECK(d.power_w >= model->low_w(d.util));
        CHECK(d.power_w <= model->high_w());
        ++checked;
      }
    }
  }
  // Today: 8 H100 and 8 A100 idle at P0, 8 RTX 4090 idle at P8, an A10, a T4, H100s at full load.
  CHECK(checked >= 10);
}

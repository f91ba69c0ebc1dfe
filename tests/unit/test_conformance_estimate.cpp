// The energy estimate's bounds against the power real GPUs drew (docs/cost-model.md, "Estimated
// energy", validation): every telemetry sample of the corpus whose capture names a GPU the table
// knows with its board power, at the sample's utilisation. The corpus is read in place; absent,
// the test says so and passes.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/breakeven/energy_estimate.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace be = gpucost::breakeven;

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
      std::ifstream in(path, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      const gpucost::test::PrepRun run = gpucost::test::run_prep_text(text.str());
      REQUIRE(run.status);
      if (run.stats.fingerprint.gpus.size() != 1) continue;  // no name, or several models
      const be::GpuSpeed* gpu = be::find_gpu_speed(run.stats.fingerprint.gpus.front());
      const auto model = gpu != nullptr ? be::power_model(*gpu) : std::nullopt;
      if (!model) continue;  // not in the table with a board power
      for (const gpucost::test::OwnedEvent& e : run.events) {
        const auto power_w = e.metric("power_w"), sm_pct = e.metric("sm_pct");
        if (e.kind != "sample" || !power_w || !sm_pct) continue;
        const double util = *sm_pct / 100.0;
        INFO(path.filename().string() << ": " << gpu->model << " at " << *sm_pct << " %, " << *power_w << " W; bounds "
                                      << model->low_w(util) << " .. " << model->high_w() << " W");
        CHECK(*power_w >= model->low_w(util));
        CHECK(*power_w <= model->high_w());
        ++checked;
      }
    }
  }
  // Today: 8 H100 and 8 A100 idle at P0, 8 RTX 4090 idle at P8, an A10, a T4, H100s at full load.
  CHECK(checked >= 10);
}

// gpucost gpus: the GPU table the speed ratio and the energy estimate read, with its sources;
// --speed A B: the speed range of B over A for training.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/report/listings.hpp>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

namespace gpucost::cli {

Runner define_gpus(CLI::App& cmd) {
  auto json = std::make_shared<bool>(false);
  auto speed = std::make_shared<bool>(false);
  auto models = std::make_shared<std::vector<std::string>>();
  cmd.add_flag("--json", *json, "print JSON (schema gpucost.gpus, or gpucost.gpu-speed with --speed) instead of text")
      ->group("Output");
  // A flag and two positional models rather than an option of two values: `--speed A B` reads the
  // same, and every option keeps at most one value (the completion offers one).
  cmd.add_flag("--speed", *speed,
               "how much faster model B trains than model A when nothing was measured: the range from memory-bound "
               "to compute-bound, its middle and what each rests on (names as nvidia-smi or the table writes them)");
  cmd.add_option("models", *models, "with --speed: the two GPU models A B")->type_name("MODEL")->expected(0, 2);
  cmd.footer(
      footer_with_example("gpucost gpus\n         gpucost gpus --json | jq '.gpus[] | select(.model == \"L4\")'\n"
                          "         gpucost gpus --speed 'RTX 4090' 'H100 SXM'"));
  return [json, speed, models]() -> int {
    if (*speed || !models->empty()) {
      if (!*speed || models->size() != 2)
        return fail(make_error(ErrorKind::usage, "--speed: give two GPU models, A and B",
                               "gpucost gpus --speed 'RTX 4090' 'H100 SXM' (gpucost gpus lists the models)"));
      auto range = breakeven::compare_gpu_speed((*models)[0], (*models)[1]);
      if (!range) return fail(range.error());
      fmt::print("{}", *json ? report::gpu_speed_json(*range) : report::gpu_speed_text(*range));
      return kOk;
    }
    const auto& gpus = breakeven::gpu_speeds();
    fmt::print("{}", *json ? report::gpu_table_json(gpus) : report::gpu_table_text(gpus));
    return kOk;
  };
}

}  // namespace gpucost::cli

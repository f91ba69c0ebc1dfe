// gpucost gpus: the GPU table the speed ratio and the energy estimate read, with its sources.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/report/listings.hpp>

#include <fmt/format.h>

#include <memory>

namespace gpucost::cli {

Runner define_gpus(CLI::App& cmd) {
  auto json = std::make_shared<bool>(false);
  cmd.add_flag("--json", *json, "print JSON (schema gpucost.gpus) instead of the table")->group("Output");
  cmd.footer(
      footer_with_example("gpucost gpus\n         gpucost gpus --json | jq '.gpus[] | select(.model == \"L4\")'"));
  return [json] {
    const auto& gpus = breakeven::gpu_speeds();
    fmt::print("{}", *json ? report::gpu_table_json(gpus) : report::gpu_table_text(gpus));
    return kOk;
  };
}

}  // namespace gpucost::cli

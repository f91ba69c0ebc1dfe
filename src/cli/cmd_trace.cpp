// gpucost trace: the analyses of PyTorch profiler traces as tables.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/io/atomic_file.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/report/trace_report.hpp>

#include <memory>

namespace gpucost::cli {

namespace {

struct TraceArgs {
  InputArgs in;
  std::string output = "-";
};

int run_trace(const TraceArgs& args) {
  auto inputs = open_inputs(args.in);
  if (!inputs) return fail(inputs.error());
  report::TraceEventCollector events;
  std::vector<InputStats> stats;
  // Inputs one after the other (not merged by time): each trace's events stay together.
  if (auto st = pipeline::feed_inputs(inputs->probed, inputs->prep, inputs->clock, events, stats); !st) {
    report_inputs(stats, true);
    return fail(st.error());
  }
  const int status = finish_inputs(stats, args.in, inputs->clock);
  const std::string table = report::trace_table(events.events()) + report::ranks_table(events.jobs());
  if (auto st = io::write_file_atomically(args.output, table); !st) return fail(st.error());
  return status;
}

}  // namespace

Runner define_trace(CLI::App& cmd) {
  auto args = std::make_shared<TraceArgs>();
  add_input_options(&cmd, args->in);
  cmd.add_option("-o,--output", args->output, "output file, - = stdout")->type_name("FILE")->group("Output");
  cmd.footer(
      "Example: gpucost trace --steps 5-7 --top-kernels 5 rank0.pt.trace.json.gz\n"
      "The same figures as events: gpucost prep rank0.pt.trace.json.gz\n" +
      std::string(kExitFooter));
  return [args] { return run_trace(*args); };
}

}  // namespace gpucost::cli

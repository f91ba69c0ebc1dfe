// gpucost prep: raw logs in, one gpucost.events stream out.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/io/atomic_file.hpp>
#include <gpucost/io/event_stream.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/pipeline/merge.hpp>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace gpucost::cli {

namespace {

struct PrepArgs {
  InputArgs in;
  std::string output = "-", output_format = "jsonl";
};

int run_prep(const PrepArgs& args) {
  auto inputs = open_inputs(args.in);
  if (!inputs) return fail(inputs.error());
  auto out = io::OutputFile::open(args.output);
  if (!out) return fail(out.error());
  io::EventWriter writer(out->stream(), args.output_format == "tsv" ? io::StreamFormat::tsv : io::StreamFormat::jsonl);
  writer.write_header(inputs->clock.name(), GPUCOST_VERSION);
  std::vector<prep::InputStats> stats;
  // One input streams straight through in its own order; several are merged by time.
  const Status st = inputs->paths.size() == 1
                        ? pipeline::feed_inputs(inputs->paths, inputs->prep, inputs->clock, writer, stats)
                        : pipeline::merge_inputs(inputs->paths, inputs->prep, inputs->clock, writer, stats);
  writer.write_summary(stats);
  writer.flush();
  if (!st) return fail(st.error());
  if (writer.failed() && errno != EPIPE) {
    const int err = errno;
    return fail(make_error(ErrorKind::io,
                           fmt::format("{}: write failed: {}", args.output == "-" ? "stdout" : args.output, std::strerror(err)),
                           io::write_failure_hint(err)));
  }
  if (auto c = out->commit(); !c) return fail(c.error());
  return finish_inputs(stats, args.in, inputs->clock);
}

}  // namespace

Runner define_prep(CLI::App& cmd) {
  auto args = std::make_shared<PrepArgs>();
  add_input_options(&cmd, args->in);
  cmd.add_option("-o,--output", args->output, "output file (written atomically), - = stdout")
      ->type_name("FILE")->group("Output");
  cmd.add_option("--output-format", args->output_format, "jsonl (default) or tsv")
      ->check(CLI::IsMember({"jsonl", "tsv"}))->type_name("FMT")->group("Output");
  cmd.footer(footer_with_example("gpucost prep dmon.log query.csv.gz > events.jsonl"));
  return [args] { return run_prep(*args); };
}

}  // namespace gpucost::cli

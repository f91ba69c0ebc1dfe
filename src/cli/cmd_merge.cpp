// gpucost merge: one features document from several hosts or consecutive windows.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/pipeline/inputs.hpp>

#include <memory>

namespace gpucost::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> files;
  std::string output = "-";
};

int run_merge(const MergeArgs& args) {
  // Globs are expanded here too (as for the log inputs), so scripts and cron can quote them.
  auto paths = pipeline::expand_inputs(args.files);
  if (!paths) return fail(paths.error());
  std::vector<extract::Features> docs;
  for (const std::string& path : *paths) {
    auto f = extract::read_features_file(path);
    if (!f) return fail(f.error());
    docs.push_back(std::move(*f));
  }
  auto merged = extract::merge_features(std::move(docs));
  if (!merged) return fail(merged.error());
  return write_result(args.output, extract::features_to_json(*merged), kOk);
}

}  // namespace

Runner define_merge(CLI::App& cmd) {
  auto args = std::make_shared<MergeArgs>();
  cmd.add_option("files", args->files, "gpucost.features documents, globs or - for stdin")
      ->required()
      ->type_name("FEATURES");
  cmd.add_option("-o,--output", args->output, "output file, - = stdout")->type_name("FILE")->group("Output");
  cmd.footer(footer_with_example("gpucost merge host1.json host2.json > fleet.json"));
  return [args] { return run_merge(*args); };
}

}  // namespace gpucost::cli

// gpucost record: runs a training command, collects its GPU telemetry and logs, then prices it.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/core/text.hpp>
#include <gpucost/procs/scan.hpp>
#include <gpucost/record/record.hpp>

#include <fmt/format.h>

#include <memory>

namespace gpucost::cli {

namespace {

struct RecordArgs {
  ModelArgs model;
  std::vector<std::string> command;
  std::string run_dir, report, proc_root = "/";
  std::vector<std::string> device_patterns;
  int interval_ms = 1000;
};

void print_notes(const std::vector<std::string>& notes, bool quiet) {
  if (quiet) return;
  for (const std::string& n : notes) fmt::print(stderr, "{} record: {}\n", prefix(Level::note), text::printable(n));
}

constexpr std::int64_t kNsPerMs = 1'000'000;

/// The HTML report of the same run (--report): no ledger row, textfile, note or warning a second time.
int report_run(const ModelArgs& a, const std::string& path, std::int64_t end_ns) {
  ReportArgs r;
  r.model = a;
  r.model.output = path;
  r.model.prom.clear();
  r.model.ledger.clear();
  r.model.suggest.clear();
  r.model.in.quiet = true;
  r.diagnostics = false;
  r.generated_at = fmt::format("{} by gpucost record", format_utc(end_ns / kNsPerSecond * kNsPerSecond));
  return run_report(r);
}

/// Exit status: the command's when it failed (non-zero); else breakeven's over the run folder,
/// which --fail-above makes 3 above the line.
int run_record(RecordArgs& args) {
  ModelArgs& a = args.model;
  const auto not_run = [](Error e) {
    e.message += "; the command was not run";
    return fail(e);
  };
  auto po = pipeline::prep_options(a.in.settings);  // checks the shared options and fills in the host name
  if (!po) return not_run(po.error());
  // The config is checked before the command starts: a typo must not cost a training run.
  if (auto st = check_model(a); !st) return not_run(st.error());
  // Likewise a bad --device-pattern or --proc-root.
  if (auto sc = procs::Scanner::create(procs::ScanOptions{args.proc_root, args.device_patterns}); !sc)
    return not_run(sc.error());
  record::RecordOptions o;
  o.command = args.command;
  o.run_dir = args.run_dir.empty() ? record::default_run_dir(wall_clock_ns()) : args.run_dir;
  o.numbered_run_dir = args.run_dir.empty();
  o.interval_ms = args.interval_ms;
  o.host = po->host;
  o.version = GPUCOST_VERSION;
  o.quiet = a.in.quiet;
  o.proc_root = args.proc_root;
  o.device_patterns = args.device_patterns;
  auto run = record::record_run(o);
  if (!run) return not_run(run.error());  // every error of record_run comes before the command starts
  std::vector<std::string> notes = run->notes;
  const std::vector<std::string> files = record::priceable_files(*run, notes);
  print_notes(notes, a.in.quiet);
  if (!a.in.quiet)
    fmt::print(stderr, "gpucost: record: the command exited with status {}; run folder {}\n", run->exit_status,
               text::printable(run->run_dir));
  if (files.empty()) {
    fmt::print(stderr, "gpucost: record: nothing in {} to price (no telemetry, kernel messages or training log)\n",
               run->run_dir);
    return run->exit_status != 0 ? run->exit_status : kError;
  }
  a.in.inputs = files;
  // The job is the command's run, from the sample taken before it started to the one after it
  // ended (to the millisecond): samples of other times are not priced. A training log without
  // times counts from the command's start (record has no --start of its own: never asks for it).
  if (a.from.empty()) a.from = format_utc(run->from_ns / kNsPerMs * kNsPerMs);
  if (a.to.empty()) a.to = format_utc((run->to_ns + kNsPerMs - 1) / kNsPerMs * kNsPerMs);
  if (a.in.settings.start.empty()) a.in.settings.start = format_utc(run->start_ns / kNsPerMs * kNsPerMs);
  const int priced = run_breakeven(a);
  const int reported = args.report.empty() ? kOk : report_run(a, args.report, run->end_ns);
  if (run->exit_status != 0) return run->exit_status;
  return priced != kOk ? priced : reported;
}

}  // namespace

Runner define_record(CLI::App& cmd) {
  auto args = std::make_shared<RecordArgs>();
  add_model_options(&cmd, args->model);
  add_attribution_option(&cmd, args->model);
  add_output_options(&cmd, args->model);
  cmd.add_option("command", args->command, "the training command and its arguments, after --")
      ->type_name("CMD [ARGS...]")
      ->required();
  cmd.add_option("--report", args->report, "also write the HTML report of the run (see gpucost report)")
      ->type_name("FILE.html")
      ->group("Output");
  cmd.add_option("--run-dir", args->run_dir,
                 "folder for the run, made by record: it must not exist (default ./gpucost-run-YYYYmmdd-HHMMSS, with "
                 "-2, -3, ... "
                 "when taken)")
      ->type_name("DIR")
      ->group("Record");
  cmd.add_option("--interval-ms", args->interval_ms, "nvidia-smi sampling interval (default 1000)")
      ->type_name("MS")
      ->check(CLI::Range(10, 3600000))
      ->group("Record");
  cmd.add_option("--proc-root", args->proc_root,
                 "scan DIR/proc (and DIR/sys, DIR/etc/passwd) for processes holding the GPU, instead of /")
      ->type_name("DIR")
      ->group("Record");
  cmd.add_option("--device-pattern", args->device_patterns,
                 "also count files whose path matches this RE2 pattern as device handles (repeatable)")
      ->type_name("REGEX")
      ->allow_extra_args(false)
      ->group("Record");
  add_clock_and_verbosity_options(&cmd, args->model.in);
  cmd.footer(
      "Example: gpucost record --ledger runs.sqlite -- python train.py --epochs 3\n"
      "Exit status: the command's when it failed (non-zero; 128 + N when signal N ended it, 127 when\n"
      "it could not start); when it succeeded, breakeven's: 0, 2 (an error, or nothing to price),\n"
      "3 (--fail-above and the premium is above the line). An error before the command starts (e.g. the\n"
      "run folder holds a run) is 2 and says that the command was not run. See README.md.");
  return [args] { return run_record(*args); };
}

}  // namespace gpucost::cli

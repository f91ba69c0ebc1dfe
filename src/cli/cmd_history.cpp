// gpucost history: the runs of a ledger and the trend per host.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/outputs/ledger.hpp>

#include <memory>

namespace gpucost::cli {

namespace {

struct HistoryArgs {
  std::string ledger, host, since, tz, by = "host", output = "-";
  bool json = false, csv = false;
};

int run_history(const HistoryArgs& args) {
  outputs::HistoryFilter filter;
  filter.host = args.host;
  if (!args.since.empty()) {
    auto clock = LocalClock::make(args.tz);
    if (!clock) return fail(clock.error());
    auto since = pipeline::parse_instant("--since", args.since, *clock);
    if (!since) return fail(since.error());
    filter.since_ns = *since;
  }
  auto ledger = outputs::Ledger::open(args.ledger, outputs::Ledger::Mode::existing);
  if (!ledger) return fail(ledger.error());
  auto runs = ledger->runs(filter);
  if (!runs) return fail(runs.error());
  const std::string text =
      args.json  ? outputs::history_json(*runs)
      : args.csv ? outputs::history_csv(*runs)
                 : printable_text(outputs::history_table(
                       *runs, args.by == "fingerprint" ? outputs::TrendBy::fingerprint : outputs::TrendBy::host));
  return write_result(args.output, text, kOk);
}

}  // namespace

Runner define_history(CLI::App& cmd) {
  auto args = std::make_shared<HistoryArgs>();
  cmd.add_option("--ledger", args->ledger, "the SQLite ledger written by breakeven --ledger")
      ->type_name("FILE")
      ->required();
  cmd.add_option("--host", args->host, "only the runs of this host")->type_name("NAME");
  cmd.add_option("--since", args->since,
                 "only runs whose job window starts at or after this time (ISO 8601; local in --tz unless Z/offset)")
      ->type_name("TIME");
  cmd.add_option("--tz", args->tz, "IANA zone of --since (default: this machine's zone)")->type_name("ZONE");
  cmd.add_option("--by", args->by,
                 "group the table's trend by host (default) or by fingerprint: the software stack (driver, CUDA, "
                 "GPU), with the cost per step, 1k samples, 1M tokens and epoch")
      ->type_name("WHAT")
      ->check(CLI::IsMember({"host", "fingerprint"}));
  auto* json_flag = cmd.add_flag("--json", args->json, "print JSON (schema gpucost.history)");
  cmd.add_flag("--csv", args->csv, "print CSV, one row per run")->excludes(json_flag);
  cmd.add_option("-o,--output", args->output, "output file, - = stdout")->type_name("FILE");
  cmd.footer(footer_with_example("gpucost history --ledger runs.sqlite --host gpu01 --since 2024-06-01"));
  return [args] { return run_history(*args); };
}

}  // namespace gpucost::cli

// The subcommands. Each cmd_<name>.cpp defines its options on the CLI11 subcommand and returns
// the function that runs it once the command line is parsed; main.cpp lists them in kCommands.
#pragma once

#include "options.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace gpucost::cli {

using Runner = std::function<int()>;

Runner define_prep(CLI::App& cmd);
Runner define_extract(CLI::App& cmd);
Runner define_merge(CLI::App& cmd);
Runner define_breakeven(CLI::App& cmd);
Runner define_history(CLI::App& cmd);
Runner define_report(CLI::App& cmd);
Runner define_batch(CLI::App& cmd);
Runner define_record(CLI::App& cmd);
Runner define_trace(CLI::App& cmd);
Runner define_procs(CLI::App& cmd);
Runner define_init(CLI::App& cmd);
Runner define_completion(CLI::App& cmd);
Runner define_offers(CLI::App& cmd);
Runner define_gpus(CLI::App& cmd);
/// `offers update` (cmd_offers_update.cpp), a subcommand of define_offers.
Runner define_offers_update(CLI::App& cmd);

/// breakeven over the inputs of `a` (record prices its run folder with it).
int run_breakeven(const ModelArgs& a);

/// breakeven's second half, shared with batch: prices the features and writes the table or JSON,
/// the ledger row, the textfile and the note. Returns the exit status (`status` when all went well).
/// --follow's updates append `prom_extra` to the textfile and print the pricing notices only
/// when `notices`.
int price_and_write(const ModelArgs& a, breakeven::CostConfig config, const std::optional<breakeven::CloudOffer>& offer,
                    const extract::Features& features, const std::vector<InputStats>& stats, int status,
                    const std::string& prom_extra = {}, bool notices = true);

/// breakeven --follow (docs/live.md): prices the window so far every --every, until SIGTERM,
/// SIGINT, --to or the training log's end; then the last update and the ledger row.
int run_breakeven_follow(const ModelArgs& a);

/// What a live command's loop follows and how often it updates (docs/live.md).
struct LiveLoop {
  const InputArgs& in;
  Inputs& inputs;  /// the clock converts as the files are read
  extract::ExtractOptions window;
  std::int64_t every_ns = 60'000'000'000;
  std::optional<std::int64_t> window_ns;  ///< --window: a sliding window ending at the latest sample
};
/// One update: the features of the window so far (or why there are none), the inputs' counts,
/// and whether it is the last; returns the exit status it would end with.
using LiveUpdate = std::function<int(const Expected<extract::Features>&, const std::vector<InputStats>&, bool last)>;
/// Follows the inputs and updates at once, then every `every_ns`, until SIGTERM, SIGINT, the
/// latest sample passing --to, or a training log's end; then the last update. SIGHUP calls
/// `on_hangup`. Returns the last update's status (or the inputs' when worse).
int follow_and_update(const LiveLoop& loop, const LiveUpdate& update, const std::function<void()>& on_hangup = {});
/// --every and --window of a live command.
struct LiveTiming {
  std::int64_t every_ns = 0;
  std::optional<std::int64_t> window_ns;  ///< none: everything since the start
};
/// Parses --every ("60s", "5m", "1h" or seconds) and --window (empty: none); a usage error names
/// the flag that is not a positive duration (up to a year).
Expected<LiveTiming> live_timing(std::string_view every, std::string_view window);

struct ReportArgs {
  ModelArgs model;
  double temp_threshold_c = 78.0;
  std::string generated_at;
  bool diagnostics = true;  ///< false: no input warnings or pricing notices (record's second pass)
};
/// The HTML report over the inputs of `args` (record writes its --report with it).
int run_report(const ReportArgs& args);

}  // namespace gpucost::cli

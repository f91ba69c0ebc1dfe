// gpucost: the command line. Each subcommand lives in cmd_<name>.cpp; this file lists them,
// parses the command line with CLI11 and runs the one given.
// Exit status: 0 ok, 1 --strict and malformed lines, 2 usage/operational error, 3 above the line.
#include "commands.hpp"
#include "console.hpp"
#include "help_format.hpp"
#include "suggest.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <utility>
#include <vector>

namespace gpucost::cli {

namespace {

struct Command {
  const char* name;
  const char* summary;
  Runner (*define)(CLI::App& cmd);  ///< adds the options; returns what runs the command
};

// In the order `gpucost --help` lists them. A command missing here does not exist: nothing
// falls through to a default.
constexpr std::array kCommands{
    Command{"init", "write a commented starter cost configuration for the machine the logs come from", define_init},
    Command{"prep", "normalise raw GPU logs into a gpucost.events stream", define_prep},
    Command{"extract", "compute cost indicators per GPU and host over the job window", define_extract},
    Command{"merge", "combine features documents of several hosts or consecutive windows", define_merge},
    Command{"breakeven", "price the job locally and in the cloud; solve the break-even", define_breakeven},
    Command{"offers", "list the cloud offers a run prices against, with their age and source", define_offers},
    Command{"gpus", "list the GPU table (memory, power, throughput, bandwidth, with sources); --speed A B",
            define_gpus},
    Command{"history", "list the runs of a ledger and the trend per host", define_history},
    Command{"report", "write the verdict, charts, timelines and indicators as one HTML file", define_report},
    Command{"batch", "for cron: price only what is new in rotated logs since the last run", define_batch},
    Command{"record", "run a training command, collect its GPU telemetry and logs, then price it", define_record},
    Command{"procs", "list the processes holding NVIDIA device files: who holds the GPU, since when, where",
            define_procs},
    Command{"trace", "print the analyses of PyTorch profiler traces as tables", define_trace},
    Command{"completion", "print the bash completion script, or the man page's option lists", define_completion},
};

/// The command the arguments name: the first that is not an option (gpucost has no option that
/// takes a value before the command); empty when there is none.
std::string_view named_command(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--") break;
    if (!arg.starts_with('-')) return arg;
  }
  return {};
}

int main_impl(int argc, char** argv) {
  CLI::App app{
      "gpucost: the true cost of a GPU job from the logs the machine already writes,\n"
      "and whether renting would have been cheaper.",
      "gpucost"};
  use_help_format(app);  // before the subcommands: they copy it
  app.footer(std::string(kExitFooter));
  app.set_version_flag("--version", std::string("gpucost ") + GPUCOST_VERSION);
  app.require_subcommand(1);
  // Only the command that runs gets its options (all fourteen cost 2 ms of every start: CLI11
  // checks each new option against the command's others); `completion` lists every command's,
  // and an unknown name gets them all for its suggestion.
  const std::string_view named = named_command(argc, argv);
  const bool define_one = named != "completion" && std::any_of(kCommands.begin(), kCommands.end(),
                                                               [&](const Command& c) { return named == c.name; });
  std::vector<std::pair<CLI::App*, Runner>> commands;
  for (const Command& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    commands.emplace_back(sub, !define_one || named == c.name ? c.define(*sub) : Runner{});
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return kOk;
  } catch (const CLI::CallForAllHelp&) {
    fmt::print("{}", app.help("", CLI::AppFormatMode::All));
    return kOk;
  } catch (const CLI::CallForVersion&) {
    fmt::print("gpucost {}\n", GPUCOST_VERSION);
    return kOk;
  } catch (const CLI::ParseError& e) {
    // A typo of a command or option gets its nearest name; other errors keep CLI11's message.
    if (const auto unknown = find_unknown(app, argc, argv)) {
      fmt::print(stderr, "gpucost: error: {}\n  hint: {}\n", text::printable(unknown->message),
                 text::printable(unknown->hint));
      return kError;
    }
    // CLI11's message quotes the argument it refused: escaped like every outside string.
    fmt::print(stderr, "gpucost: error: {}\n  hint: run 'gpucost --help' or 'gpucost <command> --help'\n",
               text::printable(e.what()));
    return kError;
  }
  for (const auto& [sub, run] : commands)
    if (sub->parsed()) return run();
  return kError;  // not reached: CLI11 requires one subcommand
}

}  // namespace

}  // namespace gpucost::cli

int main(int argc, char** argv) {
  std::atexit(gpucost::cli::clear_progress);  // never leave a half-drawn progress line behind
  // Past a file-size limit (ulimit -f) writes then fail with EFBIG and are reported like a full
  // disk, instead of the process being killed before it can remove its temporary file.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return gpucost::cli::main_impl(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpucost: internal error: {}\n", e.what());
    return gpucost::cli::kError;
  }
}

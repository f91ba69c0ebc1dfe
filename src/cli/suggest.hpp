// What a refused command line most likely meant: the first word that is not a subcommand, or the
// first long option the command does not have, and the nearest name it has ("did you mean").
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace gpucost::cli {

struct Unknown {
  std::string message;  ///< "unknown command 'brekeven'", "unknown option '--confg'"
  std::string hint;     ///< "did you mean 'gpucost breakeven'?", or where the names are listed
};

/// Walks `argv` down the subcommands of `root` as CLI11 would, and names the first argument that
/// is neither a subcommand where one is expected nor an option of the command it follows;
/// nothing when every word and long option is known (CLI11's own message then says what is
/// wrong).
std::optional<Unknown> find_unknown(const CLI::App& root, int argc, const char* const* argv);

}  // namespace gpucost::cli

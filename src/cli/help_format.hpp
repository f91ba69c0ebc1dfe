// How an option reads in --help, the man page and the bash completion, from its CLI11 definition
// alone: its type name without the validators' text, its choices, the usage form of a positional
// (`[FILE...]`) and its description with what the validators and the option's links add
// (`(default 78; -50 to 150)`, `(not with --csv)`, `(repeatable)`).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace gpucost::cli {

/// Gives `app` the help layout of gpucost; call it before adding the subcommands (they copy it).
void use_help_format(CLI::App& app);

/// The type name as given to type_name(), without what the validators append (`FMT`, not
/// `FMT:{jsonl,tsv}`).
std::string type_of(const CLI::Option& opt);

/// The values a validator lists (IsMember, or offers() below), in order; empty when none.
std::vector<std::string> choices_of(const CLI::Option& opt);

/// A validator that lists `values` for --help and the completion without refusing other values:
/// for options whose value is checked where it is used, with a better message (--fill,
/// --input-format, which also takes aliases).
CLI::Validator offers(const std::vector<std::string>& values);

/// How a positional reads in a usage line: `[FILE...]`, `FEATURES...`, `CMD [ARGS...]`.
std::string positional_usage(const CLI::Option& opt);

/// Whether the option needs a value (flags take none).
bool takes_value(const CLI::Option& opt);

/// The description, with the choices it does not already name, the range, `repeatable` for an
/// option given once per value, and the options it excludes or needs.
std::string option_description(const CLI::Option& opt);

/// The options, positionals and subcommands that --help shows (a blank group hides them).
bool shown(const CLI::Option& opt);
bool shown(const CLI::App& sub);

}  // namespace gpucost::cli

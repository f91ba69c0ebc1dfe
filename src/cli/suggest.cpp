#include "suggest.hpp"

#include "help_format.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <string_view>
#include <vector>

namespace gpucost::cli {

namespace {

/// "gpucost offers": the command line that reaches `app`.
std::string command_path(const CLI::App& app) {
  const CLI::App* parent = app.get_parent();
  return parent == nullptr ? app.get_name() : command_path(*parent) + " " + app.get_name();
}

std::vector<const CLI::App*> shown_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return shown(*s); });
}

const CLI::App* subcommand_named(const CLI::App& app, std::string_view name) {
  for (const CLI::App* s : shown_subcommands(app))
    if (s->get_name() == name) return s;
  return nullptr;
}

/// A word where a subcommand is expected: a command with subcommands and no positional of its own.
bool expects_subcommand(const CLI::App& app) {
  return !shown_subcommands(app).empty() &&
         app.get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
}

Unknown unknown_command(const CLI::App& app, std::string_view word) {
  std::vector<std::string_view> names;
  for (const CLI::App* s : shown_subcommands(app)) names.emplace_back(s->get_name());
  const std::string path = command_path(app);
  const std::string said = app.get_parent() == nullptr ? std::string(word) : fmt::format("{} {}", app.get_name(), word);
  const std::string_view best = text::closest_name(word, names);
  if (best.empty())
    return {.message = fmt::format("unknown command '{}'", said),
            .hint = fmt::format("run '{} --help' for the list of commands", path)};
  return {.message = fmt::format("unknown command '{}'", said),
          .hint = fmt::format("did you mean '{} {}'?", path, best)};
}

/// The long option nearest `name` ("--confg"), compared without the dashes.
Unknown unknown_option(const CLI::App& app, std::string_view name) {
  std::vector<std::string> longs;
  for (const CLI::Option* o : app.get_options([](const CLI::Option* o) { return o->nonpositional(); }))
    for (const std::string& l : o->get_lnames()) longs.push_back(l);
  const std::vector<std::string_view> names(longs.begin(), longs.end());
  const std::string_view best = text::closest_name(name.substr(2), names);
  if (best.empty())
    return {.message = fmt::format("unknown option '{}'", name),
            .hint = fmt::format("run '{} --help' for its options", command_path(app))};
  return {.message = fmt::format("unknown option '{}'", name), .hint = fmt::format("did you mean '--{}'?", best)};
}

}  // namespace

std::optional<Unknown> find_unknown(const CLI::App& root, int argc, const char* const* argv) {
  const CLI::App* app = &root;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--" || app->get_prefix_command()) return std::nullopt;  // the rest is not gpucost's
    if (arg.size() > 1 && arg.front() == '-') {
      const bool is_long = arg.starts_with("--");
      // Short options may be bundled (-qo FILE): only their first letter is looked up.
      const std::string name(is_long ? arg.substr(0, arg.find('=')) : arg.substr(0, 2));
      const CLI::Option* opt = app->get_option_no_throw(name);
      if (opt == nullptr && is_long) return unknown_option(*app, name);
      const bool value_attached = is_long ? arg.find('=') != std::string_view::npos : arg.size() > 2;
      if (opt != nullptr && takes_value(*opt) && !value_attached) ++i;  // its value is no command
      continue;
    }
    if (const CLI::App* sub = subcommand_named(*app, arg); sub != nullptr)
      app = sub;
    else if (expects_subcommand(*app))
      return unknown_command(*app, arg);
  }
  return std::nullopt;
}

}  // namespace gpucost::cli

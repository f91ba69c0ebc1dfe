#include "help_format.hpp"

#include <gpucost/core/text.hpp>

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

namespace gpucost::cli {

namespace {

using text::join;

/// What the validators append to the type name: `:{jsonl,tsv}`, `:FLOAT in [-50 - 150]`.
std::vector<std::string> validator_texts(const CLI::Option& opt) {
  std::vector<std::string> out;
  const std::string full = opt.get_type_name();
  std::size_t pos = full.find(':');
  while (pos != std::string::npos) {
    const std::size_t next = full.find(':', pos + 1);
    out.push_back(full.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1));
    pos = next;
  }
  return out;
}

bool is_set_text(std::string_view text) { return text.size() >= 2 && text.front() == '{' && text.back() == '}'; }

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t next = text.find(sep, pos);
    out.emplace_back(text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) return out;
    pos = next + 1;
  }
}

/// `FLOAT in [-50 - 150]` (CLI::Range) as `-50 to 150`; empty when `text` is no range.
std::string range_text(std::string_view text) {
  const std::size_t open = text.find(" in [");
  if (open == std::string_view::npos || text.back() != ']') return {};
  const std::string_view inner = text.substr(open + 5, text.size() - open - 6);
  const std::size_t dash = inner.find(" - ");
  if (dash == std::string_view::npos) return {};
  return std::string(inner.substr(0, dash)) + " to " + std::string(inner.substr(dash + 3));
}

bool many_values(const CLI::Option& opt) { return opt.get_expected_max() >= CLI::detail::expected_max_vector_size; }

std::string names_of(const std::set<CLI::Option*>& opts) {
  std::vector<std::string> names;
  for (const CLI::Option* o : opts) names.push_back(o->get_name());
  std::sort(names.begin(), names.end());
  return join(names, ", ");
}

/// CLI11's layout with these changes: a positional reads as in the usage line (`[FILE...]`, not
/// `inputs FILE... ...`); an option shows its type name without the validators' text (`FMT`, not
/// `FMT:{jsonl,tsv}`), and its description says what they check; an option given once per value
/// shows no `...`; one blank line between groups (CLI11 2.1 puts two); hidden options and
/// subcommands stay out of the usage line.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    return is_positional ? positional_usage(*opt) : opt->get_name(false, true);
  }

  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_positional()) return {};
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    std::string out;
    if (takes_value(*opt)) {
      if (const std::string type = type_of(*opt); !type.empty()) out += " " + get_label(type);
      if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
      if (many_values(*opt) && opt->get_allow_extra_args()) out += " ...";
      if (opt->get_required()) out += " " + get_label("REQUIRED");
    }
    if (!opt->get_envname().empty()) out += " (" + get_label("Env") + ":" + opt->get_envname() + ")";
    return out;
  }

  std::string make_option_desc(const CLI::Option* opt) const override { return option_description(*opt); }

  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::ostringstream out;
    out << get_label("Usage") << ":" << (name.empty() ? "" : " ") << name;
    if (!app->get_options([](const CLI::Option* o) { return o->nonpositional() && shown(*o); }).empty())
      out << " [" << get_label("OPTIONS") << "]";
    for (const CLI::Option* p : app->get_options([](const CLI::Option* o) { return o->get_positional() && shown(*o); }))
      out << " " << positional_usage(*p);
    if (!app->get_subcommands([](const CLI::App* s) { return shown(*s); }).empty()) {
      const bool optional = app->get_require_subcommand_min() == 0;
      out << " " << (optional ? "[" : "") << get_label("SUBCOMMAND") << (optional ? "]" : "");
    }
    out << "\n";
    return out.str();
  }

  // CLI::Formatter::make_help, with option_groups() for CLI11's make_groups (not virtual).
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::string out;
    if (app->get_name().empty() && app->get_parent() != nullptr && app->get_group() != "Subcommands")
      out += app->get_group() + ':';
    out += make_description(app) + make_usage(app, std::move(name)) + make_positionals(app) + option_groups(app, mode) +
           make_subcommands(app, mode) + '\n' + make_footer(app);
    return out;
  }

 private:
  std::string option_groups(const CLI::App* app, CLI::AppFormatMode mode) const {
    std::string out;
    for (const std::string& group : app->get_groups()) {
      if (group.empty()) continue;
      const auto opts = app->get_options([app, mode, &group](const CLI::Option* o) {
        return o->get_group() == group && o->nonpositional() &&
               (mode != CLI::AppFormatMode::Sub || (o != app->get_help_ptr() && o != app->get_help_all_ptr()));
      });
      if (!opts.empty()) out += make_group(group, false, opts);  // "\nGroup:\n" and the options
    }
    return out;
  }
};

}  // namespace

void use_help_format(CLI::App& app) { app.formatter(std::make_shared<HelpFormatter>()); }

std::string type_of(const CLI::Option& opt) {
  std::string full = opt.get_type_name();
  return full.substr(0, full.find(':'));
}

std::vector<std::string> choices_of(const CLI::Option& opt) {
  for (const std::string& text : validator_texts(opt))
    if (is_set_text(text)) return split(std::string_view(text).substr(1, text.size() - 2), ',');
  return {};
}

CLI::Validator offers(const std::vector<std::string>& values) {
  return CLI::Validator([](const std::string&) { return std::string(); }, "{" + join(values, ",") + "}", "offers");
}

std::string positional_usage(const CLI::Option& opt) {
  std::string text = type_of(opt);
  if (text.empty()) text = opt.get_name(true, false);
  if (opt.get_expected_max() > 1 && text.find("...") == std::string::npos) text += "...";
  return opt.get_required() ? text : "[" + text + "]";
}

bool takes_value(const CLI::Option& opt) { return opt.get_expected_min() > 0; }

std::string option_description(const CLI::Option& opt) {
  std::string desc = opt.get_description();
  std::vector<std::string> notes;
  for (const std::string& text : validator_texts(opt)) {
    if (is_set_text(text)) {
      const auto choices = split(std::string_view(text).substr(1, text.size() - 2), ',');
      const bool named = std::all_of(choices.begin(), choices.end(),
                                     [&desc](const std::string& c) { return desc.find(c) != std::string::npos; });
      if (!named) notes.push_back("one of " + join(choices, ", "));
    } else if (std::string range = range_text(text); !range.empty()) {
      notes.push_back(std::move(range));
    } else if (!text.empty()) {
      notes.push_back(text);
    }
  }
  if (!opt.get_positional() && takes_value(opt) && many_values(opt) && !opt.get_allow_extra_args() &&
      desc.find("repeatable") == std::string::npos)
    notes.emplace_back("repeatable");
  if (!opt.get_excludes().empty()) notes.push_back("not with " + names_of(opt.get_excludes()));
  if (!opt.get_needs().empty()) notes.push_back("needs " + names_of(opt.get_needs()));
  if (notes.empty()) return desc;
  // Into the description's closing parenthesis when it has one: `(default 78; -50 to 150)`.
  if (!desc.empty() && desc.back() == ')') return desc.insert(desc.size() - 1, "; " + join(notes, "; "));
  return desc + (desc.empty() ? "(" : " (") + join(notes, "; ") + ")";
}

bool shown(const CLI::Option& opt) { return !opt.get_group().empty(); }

bool shown(const CLI::App& sub) { return !sub.get_name().empty() && !sub.get_group().empty() && !sub.get_disabled(); }

}  // namespace gpucost::cli

// Reading a compiled-in data file that is one TOML array of tables ([[offer]], [[gpu]]): the
// parse error with file:line:column, and each table handed to its reader with its 1-based index.
#pragma once

#include <gpucost/core/error.hpp>

#include <fmt/format.h>
#include <toml++/toml.h>

#include <string_view>
#include <vector>

namespace gpucost::breakeven {

/// The TOML text parsed, or the parse error as "origin:line:column: what".
inline Expected<toml::table> parse_toml_text(std::string_view toml_text, std::string_view origin) {
  try {
    return toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    return make_error(ErrorKind::config, fmt::format("{}:{}:{}: {}", origin, e.source().begin.line,
                                                     e.source().begin.column, e.description()));
  }
}

/// `read(table, origin, index)` returns Expected<T>; the first error stops the list.
template <typename T, typename Reader>
Expected<std::vector<T>> parse_toml_list(std::string_view toml_text, std::string_view origin, const char* key,
                                         Reader read) {
  auto parsed = parse_toml_text(toml_text, origin);
  if (!parsed) return parsed.error();
  const toml::table& tbl = *parsed;
  std::vector<T> out;
  const auto* items = tbl[key].as_array();
  if (items == nullptr) return out;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const auto* t = items->get(i)->as_table();
    if (t == nullptr) return make_error(ErrorKind::config, fmt::format("{}: {} {} is not a table", origin, key, i + 1));
    auto item = read(*t, origin, i + 1);
    if (!item) return item.error();
    out.push_back(std::move(*item));
  }
  return out;
}

}  // namespace gpucost::breakeven

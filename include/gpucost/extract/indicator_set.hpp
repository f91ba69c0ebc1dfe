// An indicator set: the values of a GPU's or the host's indicators by key (the catalogue's
// keys), each a value or the reason it is absent.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gpucost::extract {

/// A value, or why it is absent (never a silent 0).
struct IndicatorValue {
  std::optional<double> value;
  std::string reason;  ///< set when value is empty
};

using IndicatorSet = std::map<std::string, IndicatorValue>;  // key -> value

/// The value of `key` in `set`; none when the key is absent or its value is null.
inline std::optional<double> value_of(const IndicatorSet& set, const std::string& key) {
  const auto it = set.find(key);
  return it != set.end() ? it->second.value : std::nullopt;
}

/// Sets `key` to a value.
inline void set_value(IndicatorSet& set, std::string_view key, double value) {
  set[std::string(key)] = IndicatorValue{value, {}};
}

/// Sets `key` to null, with the reason.
inline void set_absent(IndicatorSet& set, std::string_view key, std::string reason) {
  set[std::string(key)] = IndicatorValue{std::nullopt, std::move(reason)};
}

}  // namespace gpucost::extract

// An indicator set: the values of a GPU's or the host's indicators by key (the catalogue's
// keys), each a value or the reason it is absent.
#pragma once

#include <gpucost/extract/indicator_key.hpp>

#include <initializer_list>
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
inline std::optional<double> value_of(const IndicatorSet& set, const IndicatorKey& key) {
  const auto it = set.find(std::string(key.name()));
  return it != set.end() ? it->second.value : std::nullopt;
}

/// The entry of `key` in `set` (its value or why it is absent); null when it was not computed.
inline const IndicatorValue* entry_of(const IndicatorSet& set, const IndicatorKey& key) {
  const auto it = set.find(std::string(key.name()));
  return it != set.end() ? &it->second : nullptr;
}

/// Sets `key` to a value.
inline void set_value(IndicatorSet& set, const IndicatorKey& key, double value) {
  set[std::string(key.name())] = IndicatorValue{value, {}};
}

/// Sets `key` to null, with the reason.
inline void set_absent(IndicatorSet& set, const IndicatorKey& key, std::string reason) {
  set[std::string(key.name())] = IndicatorValue{std::nullopt, std::move(reason)};
}

/// Sets each of `keys` to null, with the one reason.
inline void set_absent(IndicatorSet& set, std::initializer_list<IndicatorKey> keys, const std::string& reason) {
  for (const IndicatorKey key : keys) set_absent(set, key, reason);
}

}  // namespace gpucost::extract

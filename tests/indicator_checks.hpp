// The checks the extract tests make of one indicator: its value (it must have one) or the reason
// it has none.
#pragma once

#include <catch2/catch.hpp>

#include <gpucost/extract/indicator_set.hpp>

#include <string>

namespace gpucost::testing {

inline double value(const extract::IndicatorSet& set, const std::string& key) {
  const auto it = set.find(key);
  INFO("indicator " << key);
  REQUIRE(it != set.end());
  INFO("reason " << it->second.reason);
  REQUIRE(it->second.value.has_value());
  return *it->second.value;
}

inline std::string absent_reason(const extract::IndicatorSet& set, const std::string& key) {
  const auto it = set.find(key);
  INFO("indicator " << key);
  REQUIRE(it != set.end());
  REQUIRE_FALSE(it->second.value.has_value());
  return it->second.reason;
}

}  // namespace gpucost::testing

// The cost configuration (TOML, --config FILE, --set section.key=value). One table of keys
// with defaults and limits drives loading, validation, "did you mean" hints and the docs.
#pragma once

#include <gpucost/core/error.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

struct CostConfig {
  std::string currency = "USD";
  double line = 0.12;  ///< premium threshold, 0.12 = 12 %
  // [electricity]
  double price_per_kwh = 0;  ///< required, currency per kWh
  // [local]
  double hardware_price = 0;  ///< required, currency
  double residual_fraction = 0;
  double lifetime_years = 3;
  double use_hours_per_year = 2044;
  double cooling_factor = 1.0;
  double system_power_w = 0;
  double hourly_wage = 0;
  double maintenance_hours_per_year = 0;
  // [cloud]
  std::string cloud_name;
  double rate_per_hour = 0;  ///< required, currency per hour
  double speed_ratio = 1.0;
  double cold_start_s = 0;
  double billing_increment_s = 1;
  double billing_minimum_s = 0;
  double fixed_per_job = 0;
};

struct ConfigKey {
  std::string_view path;         ///< "local.hardware_price"; top-level keys have no dot
  std::string_view unit;         ///< for docs and the table
  std::string_view description;
  bool required = false;
  bool is_string = false;
  double min = 0, max = 0;       ///< inclusive limits for numbers
  bool min_exclusive = false;
};

std::span<const ConfigKey> config_keys();

/// Loads `path` (optional) and applies `overrides` ("section.key=value") on top, then checks
/// that required keys are present and values are in range.
Expected<CostConfig> load_config(const std::optional<std::string>& path, const std::vector<std::string>& overrides);

}  // namespace gpucost::breakeven

// The indicator catalogue: one table in code (id, key, unit, name, definition) that drives
// `gpucost extract --list`, the features JSON and docs/indicators.md.
#pragma once

#include <span>
#include <string_view>

namespace gpucost::extract {

enum class Scope { host_and_gpu, host_only, gpu_only };

/// How the host value of a per-GPU indicator comes from its GPUs' values (the definition says so:
/// "host: sum over GPUs"). A host value computed otherwise (a ratio of summed partials) is set
/// after the combination by its own step.
enum class HostCombine { mean, sum, max, min };

struct IndicatorDef {
  std::string_view id;          ///< stable: F001, F002, ...
  std::string_view key;         ///< JSON key, unit as suffix
  std::string_view unit;        ///< "s", "kWh", "W", "°C", "ratio" (0-1), "%", "count", ...
  std::string_view category;    ///< "job", "power", "thermal", "clocks", "utilisation"
  std::string_view name;        ///< short human name
  std::string_view definition;  ///< one line, exact
  /// What reads it: the cost term, finding, report section or outputs that use it, or its
  /// diagnostic purpose, in one line (`extract --list --json`: used_by).
  std::string_view used_by;
  Scope scope = Scope::host_and_gpu;
  HostCombine host_combine = HostCombine::mean;
};

std::span<const IndicatorDef> catalogue();
/// nullptr when the key is not in the catalogue.
const IndicatorDef* find_indicator(std::string_view key);

}  // namespace gpucost::extract

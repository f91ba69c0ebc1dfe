#include "query_fields.hpp"

#include <array>
#include <vector>

namespace gpucost::prep {

namespace {

struct RawField {
  std::string_view name, aliases, unit;
};

constexpr RawField kRawFields[] = {
#include "query_fields_table.inc"
};

struct Role {
  std::string_view name;
  QueryRole role;
  Metric metric = Metric::count_;
  int priority = 0;
};

// What gpucost does with a property; every other property is kept as a named field.
constexpr Role kRoles[] = {
    {"timestamp", QueryRole::timestamp},
    {"index", QueryRole::index},
    {"pci.bus_id", QueryRole::bus_id},
    {"uuid", QueryRole::uuid},
    {"name", QueryRole::name},
    {"driver_version", QueryRole::text},
    {"pstate", QueryRole::pstate},
    {"clocks_event_reasons.active", QueryRole::hex_mask},
    {"power.draw", QueryRole::metric, Metric::power_w, 0},
    {"power.draw.average", QueryRole::metric, Metric::power_w, 1},
    {"power.draw.instant", QueryRole::metric, Metric::power_w, 2},
    {"temperature.gpu", QueryRole::metric, Metric::temp_c},
    {"temperature.memory", QueryRole::metric, Metric::mem_temp_c},
    {"utilization.gpu", QueryRole::metric, Metric::sm_pct},
    {"utilization.memory", QueryRole::metric, Metric::mem_pct},
    {"utilization.encoder", QueryRole::metric, Metric::enc_pct},
    {"utilization.decoder", QueryRole::metric, Metric::dec_pct},
    {"utilization.jpeg", QueryRole::metric, Metric::jpg_pct},
    {"utilization.ofa", QueryRole::metric, Metric::ofa_pct},
    {"clocks.current.memory", QueryRole::metric, Metric::mclk_mhz},
    {"clocks.current.sm", QueryRole::metric, Metric::pclk_mhz, 0},
    {"clocks.current.graphics", QueryRole::metric, Metric::pclk_mhz, 1},
    {"memory.used", QueryRole::metric, Metric::fb_mib},
    {"memory.total", QueryRole::metric, Metric::fb_total_mib},
    {"fan.speed", QueryRole::metric, Metric::fan_pct},
    {"enforced.power.limit", QueryRole::metric, Metric::power_limit_w, 0},
    {"power.limit", QueryRole::metric, Metric::power_limit_w, 1},
    {"power.default_limit", QueryRole::metric, Metric::power_default_limit_w},
    {"power.max_limit", QueryRole::metric, Metric::power_max_limit_w},
    {"clocks.max.sm", QueryRole::metric, Metric::pclk_max_mhz, 0},
    {"clocks.max.graphics", QueryRole::metric, Metric::pclk_max_mhz, 1},
    {"clocks.max.memory", QueryRole::metric, Metric::mclk_max_mhz},
    {"pcie.link.gen.current", QueryRole::metric, Metric::pcie_gen, 0},
    {"pcie.link.gen.gpucurrent", QueryRole::metric, Metric::pcie_gen, 1},
    {"pcie.link.gen.max", QueryRole::metric, Metric::pcie_gen_max},
    {"pcie.link.width.current", QueryRole::metric, Metric::pcie_width},
    {"pcie.link.width.max", QueryRole::metric, Metric::pcie_width_max},
};

bool alias_matches(std::string_view aliases, std::string_view name) {
  std::size_t start = 0;
  while (start <= aliases.size()) {
    const std::size_t comma = aliases.find(',', start);
    const std::string_view a = aliases.substr(start, comma == std::string_view::npos ? aliases.npos : comma - start);
    if (!a.empty() && a == name) return true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return false;
}

std::vector<QueryField> build_table() {
  std::vector<QueryField> table;
  table.reserve(std::size(kRawFields));
  for (const RawField& raw : kRawFields) {
    QueryField f;
    f.name = raw.name;
    f.aliases = raw.aliases;
    f.unit = raw.unit;
    for (const Role& r : kRoles) {
      if (r.name == raw.name) {
        f.role = r.role;
        f.metric = r.metric;
        f.priority = r.priority;
      }
    }
    table.push_back(f);
  }
  return table;
}

}  // namespace

const QueryField* find_query_field(std::string_view name) {
  static const std::vector<QueryField> table = build_table();
  for (const QueryField& f : table)
    if (f.name == name) return &f;
  for (const QueryField& f : table)
    if (alias_matches(f.aliases, name)) return &f;
  return nullptr;
}

std::size_t query_field_count() { return std::size(kRawFields); }

}  // namespace gpucost::prep

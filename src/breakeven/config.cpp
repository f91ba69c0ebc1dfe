#include <gpucost/breakeven/config.hpp>

#include <gpucost/breakeven/carbon.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/io/atomic_file.hpp>

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace gpucost::breakeven {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kMaxConfigBytes = 16u << 20;  // a config is a few kB; more is not a config
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr std::array kKeys = {
    ConfigKey{"currency", "", "currency code used in output", false, true},
    ConfigKey{"line", "ratio", "premium threshold: above it, renting is advised (0.12 = 12 %)", false, false, -1, kInf,
              true},
    ConfigKey{"electricity.price_per_kwh", "currency/kWh", "flat electricity price", true, false, 0, kInf},
    ConfigKey{"electricity.tz", "", "IANA zone of the time-of-use windows (default: the logs' --tz zone)", false, true},
    ConfigKey{"local.hardware_price", "currency", "purchase price of the machine (GPUs and host)", true, false, 0,
              kInf},
    ConfigKey{"local.residual_fraction", "ratio", "resale value at end of life / price", false, false, 0, 1},
    ConfigKey{"local.lifetime_years", "years", "amortisation period", false, false, 0, 100, true},
    ConfigKey{"local.use_hours_per_year", "h/year", "hours a year the machine does paid work", false, false, 0, 8760,
              true},
    ConfigKey{"local.cooling_factor", "ratio", "facility overhead on electricity (PUE), >= 1 in practice", false, false,
              0, 10, true},
    ConfigKey{"local.system_power_w", "W", "power of the rest of the machine (CPU, disks, fans)", false, false, 0, 1e6},
    ConfigKey{"local.hourly_wage", "currency/h", "cost of an hour of an operator's time", false, false, 0, kInf},
    ConfigKey{"local.maintenance_hours_per_year", "h/year", "yearly operator hours spent on the machine", false, false,
              0, 8760},
    ConfigKey{"local.machines", "count",
              "machines that hardware_price, system_power_w, idle_power_w and maintenance describe (a job on more "
              "hosts scales them)",
              false, false, 1, 100000, false, false, true},
    ConfigKey{"local.always_on", "", "the machine stays on (idle) when not working", false, false, 0, 0, false, true},
    ConfigKey{"local.idle_power_w", "W", "power of the whole machine when idle (with always_on)", false, false, 0, 1e6},
    ConfigKey{"local.incident_hours.restart_app", "h", "operator hours per fault of bucket restart_app", false, false,
              0, 1000},
    ConfigKey{"local.incident_hours.reset_gpu", "h",
              "operator hours per fault of bucket reset_gpu (and per fatal AER fault)", false, false, 0, 1000},
    ConfigKey{"local.incident_hours.reboot", "h", "operator hours per fault of bucket reboot (and per GPU lost)", false,
              false, 0, 1000},
    ConfigKey{"local.incident_hours.contact_support", "h", "operator hours per fault of bucket contact_support", false,
              false, 0, 1000},
    ConfigKey{"local.incident_hours.unknown", "h", "operator hours per fault whose worst Xid has an unknown code",
              false, false, 0, 1000},
    ConfigKey{
        "local.fault_window_s", "s",
        "Xid, GPU-lost and fatal AER events of one GPU within this of the previous one are one fault, priced once",
        false, false, 0, 86400},
    ConfigKey{"local.faults", "",
              "where a fault the application caused is priced: both-sides (default), hardware-only or all-local", false,
              true},
    ConfigKey{"cloud.name", "", "label of the cloud offer", false, true},
    ConfigKey{"cloud.offer", "", "an offer of data/cloud-offers.toml (as --cloud): its rate, billing and cold start",
              false, true},
    ConfigKey{"cloud.rate_per_hour", "currency/h", "price of the cloud instance per hour", true, false, 0, kInf, true},
    ConfigKey{"cloud.speed_ratio", "ratio", "cloud GPU speed / local GPU speed on this job's work", false, false, 0,
              1000, true},
    ConfigKey{"cloud.cold_start_s", "s", "billed time before the job starts (boot, image pull, data)", false, false, 0,
              kInf},
    ConfigKey{"cloud.billing_increment_s", "s", "billing granularity (1 = per second, 3600 = per hour)", false, false,
              0, kInf, true},
    ConfigKey{"cloud.billing_minimum_s", "s", "minimum billed time per job", false, false, 0, kInf},
    ConfigKey{"cloud.fixed_per_job", "currency", "fixed cost per job (egress, storage)", false, false, 0, kInf},
    ConfigKey{"cloud.memory_margin", "ratio", "an offer fits when its GPU memory holds the job's peak use x (1 + this)",
              false, false, 0, 10},
    ConfigKey{"cloud.spot_restart_overhead", "ratio",
              "a flat share a spot offer's billed time grows by (the older rule; when set, the interruptions are not "
              "priced)",
              false, false, 0, 10, false, false, false, "unset: the spot interruptions are priced instead"},
    ConfigKey{"cloud.spot_interruptions_per_hour", "1/h",
              "interruptions of a spot instance per hour of running (default 1/24: one a day, an assumption)", false,
              false, 0, 100},
    ConfigKey{"cloud.checkpoint_interval_s", "s",
              "work between two checkpoints of the job (0: none, an interruption loses all the work)", false, false, 0,
              kInf},
    ConfigKey{"cloud.spot_restart_s", "s",
              "from a spot interruption to work resumed: a new instance, the checkpoint loaded (default: the cold "
              "start)",
              false, false, 0, kInf, false, false, false, "default: the offer's cold start"},
    ConfigKey{"cloud.busy_share", "",
              "what gives the busy share of the billed time: util (utilization.gpu) or sm_active (DCGM SM active)",
              false, true},
    ConfigKey{"carbon.intensity_g_per_kwh", "g CO2e/kWh",
              "grid intensity of the local electricity (flat, or outside [[carbon.tou]] windows)", false, false, 0,
              5000, false, false, true},
    ConfigKey{"carbon.country", "",
              "country of the local grid (ISO 3166-1 alpha-2): its annual intensity from "
              "data/grid-carbon-intensity.tsv",
              false, true, 0, 0, false, false, true},
    ConfigKey{"carbon.cloud_intensity_g_per_kwh", "g CO2e/kWh",
              "grid intensity of the cloud's electricity (default: from the offer's region)", false, false, 0, 5000,
              false, false, true},
    ConfigKey{"carbon.cloud_country", "", "country of the cloud's grid, for an offer whose region names none", false,
              true, 0, 0, false, false, true},
    ConfigKey{"carbon.cloud_pue", "ratio", "the cloud data centre's PUE (default: the provider's published figure)",
              false, false, 1, 10, false, false, true},
};

double* number_slot(CostConfig& c, std::string_view path) {
  static const std::map<std::string_view, double CostConfig::*> kSlots = {
      {"line", &CostConfig::line},
      {"electricity.price_per_kwh", &CostConfig::price_per_kwh},
      {"local.hardware_price", &CostConfig::hardware_price},
      {"local.residual_fraction", &CostConfig::residual_fraction},
      {"local.lifetime_years", &CostConfig::lifetime_years},
      {"local.use_hours_per_year", &CostConfig::use_hours_per_year},
      {"local.cooling_factor", &CostConfig::cooling_factor},
      {"local.system_power_w", &CostConfig::system_power_w},
      {"local.hourly_wage", &CostConfig::hourly_wage},
      {"local.maintenance_hours_per_year", &CostConfig::maintenance_hours_per_year},
      {"local.idle_power_w", &CostConfig::idle_power_w},
      {"local.machines", &CostConfig::machines},
      {"local.incident_hours.restart_app", &CostConfig::incident_restart_app_h},
      {"local.incident_hours.reset_gpu", &CostConfig::incident_reset_gpu_h},
      {"local.incident_hours.reboot", &CostConfig::incident_reboot_h},
      {"local.incident_hours.contact_support", &CostConfig::incident_contact_support_h},
      {"local.incident_hours.unknown", &CostConfig::incident_unknown_h},
      {"local.fault_window_s", &CostConfig::fault_window_s},
      {"cloud.rate_per_hour", &CostConfig::rate_per_hour},
      {"cloud.speed_ratio", &CostConfig::speed_ratio},
      {"cloud.cold_start_s", &CostConfig::cold_start_s},
      {"cloud.billing_increment_s", &CostConfig::billing_increment_s},
      {"cloud.billing_minimum_s", &CostConfig::billing_minimum_s},
      {"cloud.fixed_per_job", &CostConfig::fixed_per_job},
      {"cloud.memory_margin", &CostConfig::memory_margin},
      {"cloud.spot_restart_overhead", &CostConfig::spot_restart_overhead},
      {"cloud.spot_interruptions_per_hour", &CostConfig::spot_interruptions_per_hour},
      {"cloud.checkpoint_interval_s", &CostConfig::checkpoint_interval_s},
      {"cloud.spot_restart_s", &CostConfig::spot_restart_s},
      {"carbon.intensity_g_per_kwh", &CostConfig::carbon_intensity},
      {"carbon.cloud_intensity_g_per_kwh", &CostConfig::carbon_cloud_intensity},
      {"carbon.cloud_pue", &CostConfig::carbon_cloud_pue},
  };
  const auto it = kSlots.find(path);
  return it == kSlots.end() ? nullptr : &(c.*(it->second));
}

std::string* string_slot(CostConfig& c, std::string_view path) {
  if (path == "currency") return &c.currency;
  if (path == "cloud.name") return &c.cloud_name;
  if (path == "cloud.offer") return &c.cloud_offer;
  if (path == "electricity.tz") return &c.tariff_tz;
  if (path == "cloud.busy_share") return &c.busy_share;
  if (path == "local.faults") return &c.faults;
  if (path == "carbon.country") return &c.carbon_country;
  if (path == "carbon.cloud_country") return &c.carbon_cloud_country;
  return nullptr;
}

const ConfigKey* find_key(std::string_view path) {
  for (const auto& k : kKeys)
    if (k.path == path) return &k;
  return nullptr;
}

std::string did_you_mean(std::string_view path) {
  std::vector<std::string_view> paths;
  for (const auto& k : kKeys) paths.push_back(k.path);
  const std::string_view best = text::closest_name(path, paths);
  return best.empty() ? "see docs/cost-model.md for the keys" : fmt::format("did you mean '{}'?", best);
}

// The table a key lives in: "local.incident_hours" for "local.incident_hours.reboot".
std::string_view section_of(std::string_view path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : path.substr(0, dot);
}

bool is_section(std::string_view name) {
  for (const auto& k : kKeys)
    if (!section_of(k.path).empty() && section_of(k.path) == name) return true;
  return false;
}

std::string did_you_mean_section(std::string_view name) {
  std::vector<std::string_view> sections;
  for (const auto& k : kKeys) {
    const std::string_view sec = section_of(k.path);
    if (!sec.empty() && std::find(sections.begin(), sections.end(), sec) == sections.end()) sections.push_back(sec);
  }
  const std::string_view best = text::closest_name(name, sections);
  return best.empty() ? "the sections are [electricity], [local], [cloud] and [carbon]; see docs/cost-model.md"
                      : fmt::format("did you mean '[{}]'?", best);
}

// Assigns one value; `where` names its origin for messages ("config.toml", "--set").
/// "e.g. ..." in the syntax of where the value came from: `--set section.key=VALUE` on the
/// command line, `key = VALUE` (TOML, within its section) in a file. `toml_value` is the TOML
/// form (a string in quotes); on the command line the quotes are not needed.
std::string example(std::string_view where, std::string_view path, std::string_view toml_value) {
  if (where == "--set") {
    std::string_view bare = toml_value;
    if (bare.size() >= 2 && bare.front() == '"' && bare.back() == '"') bare = bare.substr(1, bare.size() - 2);
    return fmt::format("e.g. --set {}={}", path, bare);
  }
  const std::size_t dot = path.rfind('.');
  return fmt::format("e.g. {} = {}", dot == std::string_view::npos ? path : path.substr(dot + 1), toml_value);
}

bool is_currency_code(std::string_view cur);

Status assign(CostConfig& c, std::string_view path, const toml::node& node, std::string_view where,
              std::map<std::string, bool>& seen) {
  const ConfigKey* key = find_key(path);
  if (key == nullptr)
    return make_error(ErrorKind::config, fmt::format("{}: unknown key '{}'", where, path), did_you_mean(path));
  if (key->is_bool) {
    const auto b = node.value<bool>();
    if (!b) return make_error(ErrorKind::config, fmt::format("{}: '{}' must be true or false", where, path));
    c.always_on = *b;
  } else if (key->is_string) {
    const auto s = node.value<std::string>();
    if (!s) return make_error(ErrorKind::config, fmt::format("{}: '{}' must be a string", where, path));
    if (path == "currency" && !is_currency_code(*s))
      return make_error(ErrorKind::config, fmt::format("{}: currency '{}' is not a currency code", where, *s),
                        fmt::format("use three capital letters, {} or \"CNY\"", example(where, path, "\"EUR\"")));
    if (path == "cloud.busy_share" && *s != "util" && *s != "sm_active")
      return make_error(ErrorKind::config, fmt::format("{}: cloud.busy_share '{}' is not util or sm_active", where, *s),
                        fmt::format("util (the share of time a kernel ran) or sm_active (DCGM's SM-active fraction, "
                                    "when the telemetry has it), {}",
                                    example(where, path, "\"sm_active\"")));
    if (path == "local.faults" && *s != "both-sides" && *s != "hardware-only" && *s != "all-local")
      return make_error(ErrorKind::config,
                        fmt::format("{}: local.faults '{}' is not both-sides, hardware-only or all-local", where, *s),
                        fmt::format("both-sides (an application's fault costs the same on a rented GPU), "
                                    "hardware-only (leave application faults out) or all-local, {}",
                                    example(where, path, "\"hardware-only\"")));
    *string_slot(c, path) = *s;
  } else {
    const auto d = node.value<double>();  // integers convert too
    if (!d || !std::isfinite(*d))
      return make_error(ErrorKind::config, fmt::format("{}: '{}' must be a number", where, path),
                        example(where, path, "0.30"));
    const bool low = key->min_exclusive ? *d <= key->min : *d < key->min;
    if (low || *d > key->max) {
      const std::string range = key->max == kInf
                                    ? fmt::format("{} {}", key->min_exclusive ? ">" : ">=", key->min)
                                    : fmt::format("in {}{}, {}]", key->min_exclusive ? "(" : "[", key->min, key->max);
      return make_error(ErrorKind::config, fmt::format("{}: '{}' = {} is out of range", where, path, *d),
                        fmt::format("it must be {} ({})", range, key->description));
    }
    *number_slot(c, path) = *d;
    if (path == "cloud.speed_ratio") c.speed_ratio_source = "config";
  }
  seen[std::string(path)] = true;
  return {};
}

std::string string_or_empty(const toml::node* n) { return n == nullptr ? std::string() : n->value_or(std::string()); }

/// A table of time-of-use windows: [[electricity.tou]] priced per kWh, [[carbon.tou]] with the
/// grid's intensity; the value key goes into TouWindow::price_per_kwh.
struct TouKind {
  std::string_view section, value_key, example;
  std::vector<TouWindow> CostConfig::*windows;
};
constexpr TouKind kElectricityTou{"electricity.tou", "price_per_kwh", "price_per_kwh = 0.40", &CostConfig::tou};
constexpr TouKind kCarbonTou{"carbon.tou", "intensity_g_per_kwh", "intensity_g_per_kwh = 120", &CostConfig::carbon_tou};

// One window of [[electricity.tou]] or [[carbon.tou]]: days, hours, months (a string, or an array of
// month numbers), and the kind's value (price_per_kwh, intensity_g_per_kwh).
Status read_tou_window(CostConfig& c, const toml::table& t, std::string_view where, std::size_t index,
                       const TouKind& kind) {
  TouWindow w;
  for (const auto& [k, v] : t) {
    const std::string_view key = k.str();
    if (key != "days" && key != "hours" && key != "months" && key != kind.value_key)
      return make_error(ErrorKind::config, fmt::format("{}: {}[{}]: unknown key '{}'", where, kind.section, index, key),
                        fmt::format("the keys are days, hours, months and {}", kind.value_key));
  }
  const auto price = t[kind.value_key].value<double>();
  if (!price || !std::isfinite(*price) || *price < 0)
    return make_error(ErrorKind::config,
                      fmt::format("{}: {}[{}]: {} must be a number >= 0", where, kind.section, index, kind.value_key),
                      fmt::format("e.g. {}", kind.example));
  w.price_per_kwh = *price;
  const auto hours = t["hours"].value<std::string>();
  if (!hours)
    return make_error(ErrorKind::config, fmt::format("{}: {}[{}]: 'hours' is missing", where, kind.section, index),
                      "e.g. hours = \"08:00-22:00\"");
  GPUCOST_TRY(parse_hours(*hours, w));
  auto days = parse_days(string_or_empty(t.get("days")));
  if (!days) return days.error();
  w.days = *days;
  std::string months_text = string_or_empty(t.get("months"));
  if (const auto* arr = t["months"].as_array()) {
    for (const auto& m : *arr) months_text += fmt::format("{}{}", months_text.empty() ? "" : ",", m.value_or(0));
  }
  auto months = parse_months(months_text);
  if (!months) return months.error();
  w.months = *months;
  w.text = fmt::format("{} {}{}", string_or_empty(t.get("days")).empty() ? "every day" : string_or_empty(t.get("days")),
                       *hours, months_text.empty() ? "" : " in " + months_text);
  (c.*(kind.windows)).push_back(std::move(w));
  return {};
}

Status read_tou(CostConfig& c, const toml::node& node, std::string_view where, const TouKind& kind) {
  const auto* arr = node.as_array();
  if (arr == nullptr || !arr->is_array_of_tables())
    return make_error(ErrorKind::config, fmt::format("{}: {} must be an array of tables", where, kind.section),
                      fmt::format("write each window as [[{}]] with days, hours and {}", kind.section, kind.value_key));
  for (std::size_t i = 0; i < arr->size(); ++i)
    GPUCOST_TRY(read_tou_window(c, *arr->get(i)->as_table(), where, i + 1, kind));
  return {};
}

std::string parameter_names() {
  std::string names;
  for (const Parameter& p : parameters()) names += names.empty() ? std::string(p.name) : fmt::format(", {}", p.name);
  return names;
}

// [ranges] name = [low, high], name one of the sensitivity parameters.
Status read_ranges(CostConfig& c, const toml::node& node, std::string_view where) {
  const auto* tbl = node.as_table();
  if (tbl == nullptr) return make_error(ErrorKind::config, fmt::format("{}: 'ranges' must be a table", where));
  for (const auto& [k, v] : *tbl) {
    const std::string name(k.str());
    bool known = false;
    for (const Parameter& p : parameters()) known = known || p.name == name;
    if (!known)
      return make_error(ErrorKind::config, fmt::format("{}: ranges: unknown parameter '{}'", where, name),
                        "one of: " + parameter_names());
    const auto* arr = v.as_array();
    // NaN sentinels rather than std::optional (GCC 12's -Wmaybe-uninitialized false positive).
    const bool pair = arr != nullptr && arr->size() == 2;
    const double low = pair ? arr->get(0)->value_or(kNaN) : kNaN;
    const double high = pair ? arr->get(1)->value_or(kNaN) : kNaN;
    if (!(low <= high) || low < 0 || !std::isfinite(high))
      return make_error(ErrorKind::config,
                        fmt::format("{}: ranges.{} must be [low, high] with 0 <= low <= high", where, name),
                        fmt::format("e.g. {} = [0.25, 0.35]", name));
    if ((name == "speed_ratio" || name == "billing_increment_s") && low <= 0)
      return make_error(ErrorKind::config, fmt::format("{}: ranges.{} must stay above 0", where, name),
                        fmt::format("e.g. {} = [1.2, 2.0]", name));
    if (name == "residual_fraction" && high > 1)
      return make_error(ErrorKind::config, fmt::format("{}: ranges.residual_fraction must stay within [0, 1]", where),
                        "e.g. residual_fraction = [0.1, 0.3]");
    c.ranges[name] = {low, high};
  }
  return {};
}

// A currency is a label, but a code-shaped one: three capital letters (ISO 4217 style).
bool is_currency_code(std::string_view cur) {
  return cur.size() == 3 && std::all_of(cur.begin(), cur.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
}

// One [exchange] entry: `date = "2026-11-28"`, or `USD = 0.92` (units of the config's currency per USD).
Status assign_exchange(CostConfig& c, std::string_view name, const toml::node& node, std::string_view where) {
  if (name == "date") {
    const auto d = node.value<std::string>();
    if (!d)
      return make_error(ErrorKind::config, fmt::format("{}: 'exchange.date' must be a string", where),
                        example(where, "exchange.date", "\"2026-11-28\""));
    c.exchange_date = *d;
    return {};
  }
  if (!is_currency_code(name))
    return make_error(ErrorKind::config, fmt::format("{}: exchange: '{}' is not a currency code", where, name),
                      fmt::format("the rate is units of the config's currency per unit of a currency code, {}",
                                  example(where, "exchange.USD", "0.92")));
  const auto rate = node.value<double>();
  if (!rate || !std::isfinite(*rate) || *rate <= 0)
    return make_error(ErrorKind::config, fmt::format("{}: 'exchange.{}' must be a number > 0", where, name),
                      fmt::format("units of the config's currency per {}, {}", name,
                                  example(where, fmt::format("exchange.{}", name), "0.92")));
  c.exchange[std::string(name)] = *rate;
  return {};
}

Status read_exchange(CostConfig& c, const toml::node& node, std::string_view where) {
  const auto* tbl = node.as_table();
  if (tbl == nullptr) return make_error(ErrorKind::config, fmt::format("{}: 'exchange' must be a table", where));
  for (const auto& [k, v] : *tbl) GPUCOST_TRY(assign_exchange(c, k.str(), v, where));
  return {};
}

Status apply_table(CostConfig& c, const toml::table& tbl, const std::string& prefix, std::string_view where,
                   std::map<std::string, bool>& seen) {
  for (const auto& [k, node] : tbl) {
    const std::string path = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (path == "electricity.tou" || path == "carbon.tou") {
      GPUCOST_TRY(read_tou(c, node, where, path == "carbon.tou" ? kCarbonTou : kElectricityTou));
      continue;
    }
    if (path == "ranges") {
      GPUCOST_TRY(read_ranges(c, node, where));
      continue;
    }
    if (path == "exchange") {
      GPUCOST_TRY(read_exchange(c, node, where));
      continue;
    }
    if (const auto* sub = node.as_table()) {
      if (!is_section(path))
        return make_error(ErrorKind::config, fmt::format("{}: unknown section '[{}]'", where, path),
                          did_you_mean_section(path));
      GPUCOST_TRY(apply_table(c, *sub, path, where, seen));
      continue;
    }
    GPUCOST_TRY(assign(c, path, node, where, seen));
  }
  return {};
}

}  // namespace

std::span<const ConfigKey> config_keys() { return kKeys; }

std::string key_value_text(const CostConfig& config, std::string_view path) {
  const ConfigKey* key = find_key(path);
  if (key == nullptr) return {};
  if (key->is_bool) return config.always_on ? "true" : "false";
  CostConfig c = config;  // the slots take a mutable config
  if (key->is_string) return fmt::format("\"{}\"", *string_slot(c, path));
  return fmt::format("{:g}", *number_slot(c, path));
}

Expected<CostConfig> load_config(const std::optional<std::string>& path, const std::vector<std::string>& overrides,
                                 bool cloud_from_catalogue) {
  CostConfig c;
  std::map<std::string, bool> seen;
  if (path) {
    // Read here rather than with toml::parse_file: its "could not be opened" is a parse_error at
    // 0:0, a directory reads as an empty (valid) document, and a FIFO would block a SIGHUP reload.
    auto text = io::read_regular_file(*path, kMaxConfigBytes, "--config");
    if (!text) return text.error();
    toml::table tbl;
    try {
      tbl = toml::parse(*text, std::string_view(*path));
    } catch (const toml::parse_error& e) {
      const auto& src = e.source();
      return make_error(ErrorKind::config,
                        fmt::format("{}:{}:{}: {}", *path, src.begin.line, src.begin.column, e.description()),
                        "the config is TOML (https://toml.io); see docs/cost-model.md for the keys");
    }
    GPUCOST_TRY(apply_table(c, tbl, "", *path, seen));
  }
  for (const std::string& ov : overrides) {
    const std::size_t eq = ov.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error(ErrorKind::usage, fmt::format("--set '{}': expected section.key=value", ov),
                        "e.g. --set electricity.price_per_kwh=0.30");
    const std::string key(text::trim(std::string_view(ov).substr(0, eq)));
    const std::string value(text::trim(std::string_view(ov).substr(eq + 1)));
    // Parse the value as TOML so numbers stay numbers; a bare word is a string.
    const auto parse_value = [&value] {
      toml::table parsed;
      try {
        parsed = toml::parse("v = " + value);
      } catch (const toml::parse_error&) {
        parsed = toml::table{};
        parsed.insert("v", value);
      }
      return parsed;
    };
    if (key.rfind("exchange.", 0) == 0) {
      const toml::table parsed = parse_value();
      GPUCOST_TRY(assign_exchange(c, std::string_view(key).substr(9), *parsed.get("v"), "--set"));
      continue;
    }
    const ConfigKey* known = find_key(key);
    if (known == nullptr)
      return make_error(ErrorKind::config, fmt::format("--set: unknown key '{}'", key), did_you_mean(key));
    const toml::table parsed = parse_value();
    GPUCOST_TRY(assign(c, key, *parsed.get("v"), "--set", seen));
  }
  for (const auto& k : kKeys) {
    const bool offer = k.path == "cloud.rate_per_hour" && (cloud_from_catalogue || !c.cloud_offer.empty());
    if (!k.required || offer || seen.count(std::string(k.path))) continue;
    // No file and nothing set: a first run. The key is not the news; the missing configuration is.
    if (!path && overrides.empty())
      return make_error(ErrorKind::config,
                        "no configuration given: the local side needs your electricity price and hardware price",
                        "write one from your logs with  gpucost init -o my.toml LOGS...  then  gpucost breakeven -c "
                        "my.toml LOGS...  (docs/cost-model.md)");
    return make_error(ErrorKind::config, fmt::format("missing required key '{}' ({})", k.path, k.description),
                      fmt::format("add it to the config or pass --set {}=VALUE", k.path));
  }
  GPUCOST_TRY(check_overlaps(c.tou));
  for (const auto& [key, given] : seen)
    if (given) c.keys_set.insert(key);
  GPUCOST_TRY(Tariff::make(c.price_per_kwh, c.tou, c.tariff_tz));
  GPUCOST_TRY(check_carbon_config(c));
  return c;
}

std::vector<std::string> implausible_values(const CostConfig& c) {
  std::vector<std::string> out;
  const auto warn_if = [&](bool test, std::string text) {
    if (test) out.push_back(std::move(text));
  };
  warn_if(c.price_per_kwh > 2, fmt::format("electricity.price_per_kwh = {:g} {}/kWh is implausibly high: cents entered "
                                           "as units? (0.30 means 30 cents)",
                                           c.price_per_kwh, c.currency));
  for (const TouWindow& w : c.tou)
    warn_if(w.price_per_kwh > 2, fmt::format("electricity.tou '{}': price_per_kwh = {:g} {}/kWh is implausibly high: "
                                             "cents entered as units?",
                                             w.text, w.price_per_kwh, c.currency));
  warn_if(c.line > 1, fmt::format("line = {:g} is a premium of {:g} %: 0.12 means 12 %", c.line, c.line * 100));
  warn_if(
      c.is_set("local.hardware_price") && c.hardware_price < 50,
      fmt::format("local.hardware_price = {:g} {} is implausibly low for a GPU machine: thousands entered as units?",
                  c.hardware_price, c.currency));
  warn_if(c.lifetime_years > 15,
          fmt::format("local.lifetime_years = {:g}: GPUs are rarely in use for more than 15 years", c.lifetime_years));
  return out;
}

std::span<const Parameter> parameters() {
  static constexpr std::array kParameters = {
      Parameter{"price_per_kwh", &CostConfig::price_per_kwh},
      Parameter{"hardware_price", &CostConfig::hardware_price},
      Parameter{"lifetime_years", &CostConfig::lifetime_years},
      Parameter{"use_hours_per_year", &CostConfig::use_hours_per_year},
      Parameter{"system_power_w", &CostConfig::system_power_w},
      Parameter{"cooling_factor", &CostConfig::cooling_factor},
      Parameter{"rate_per_hour", &CostConfig::rate_per_hour},
      Parameter{"speed_ratio", &CostConfig::speed_ratio},
      Parameter{"cold_start_s", &CostConfig::cold_start_s},
      Parameter{"residual_fraction", &CostConfig::residual_fraction},
      Parameter{"hourly_wage", &CostConfig::hourly_wage},
      Parameter{"maintenance_hours_per_year", &CostConfig::maintenance_hours_per_year},
      Parameter{"idle_power_w", &CostConfig::idle_power_w},
      Parameter{"incident_hours.restart_app", &CostConfig::incident_restart_app_h},
      Parameter{"incident_hours.reset_gpu", &CostConfig::incident_reset_gpu_h},
      Parameter{"incident_hours.reboot", &CostConfig::incident_reboot_h},
      Parameter{"incident_hours.contact_support", &CostConfig::incident_contact_support_h},
      Parameter{"incident_hours.unknown", &CostConfig::incident_unknown_h},
      Parameter{"billing_minimum_s", &CostConfig::billing_minimum_s},
      Parameter{"billing_increment_s", &CostConfig::billing_increment_s},
      Parameter{"fixed_per_job", &CostConfig::fixed_per_job},
  };
  return kParameters;
}

}  // namespace gpucost::breakeven

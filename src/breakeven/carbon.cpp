#include <gpucost/breakeven/carbon.hpp>

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/tariff.hpp>
#include <gpucost/core/text.hpp>

#include "toml_list.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cmath>
#include <numeric>

namespace gpucost::breakeven {

namespace {

constexpr std::string_view kIntensityTable =
#include "grid_carbon_intensity.inc"
    ;

constexpr std::string_view kPueTable =
#include "cloud_pue.inc"
    ;

constexpr std::string_view kIntensityFile = "data/grid-carbon-intensity.tsv";

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t tab = line.find('\t', pos);
    out.push_back(line.substr(pos, tab == std::string_view::npos ? std::string_view::npos : tab - pos));
    if (tab == std::string_view::npos) return out;
    pos = tab + 1;
  }
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& ch : out)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  return out;
}

Expected<ProviderPue> read_pue(const toml::table& t, std::string_view origin, std::string_view what) {
  ProviderPue p;
  p.name = t["name"].value_or(std::string());
  p.source = t["source"].value_or(std::string());
  p.note = t["note"].value_or(std::string());
  p.confirmed = t["confirmed"].value_or(true);
  p.year = static_cast<int>(t["year"].value_or(std::int64_t{0}));
  const auto pue = t["pue"].value<double>();
  if (p.name.empty() || p.source.empty() || p.year == 0 || !pue || !(*pue >= 1.0) || *pue > 3.0)
    return make_error(ErrorKind::config,
                      fmt::format("{}: {} '{}': name, pue (1-3), year and source are required", origin, what, p.name));
  p.pue = *pue;
  if (const auto* m = t["match"].as_array())
    for (const auto& v : *m) p.match.push_back(std::string(text::trim(v.value_or(std::string()))));
  return p;
}

// "Germany (DE), Ember 2024 average" for a row of data/grid-carbon-intensity.tsv.
std::string country_basis(const GridIntensity& g) {
  return fmt::format("{} ({}), Ember {} average", g.name, g.country, g.year);
}

// The local side's flat intensity (outside any time-of-use window) and where it came from.
struct FlatIntensity {
  std::optional<double> g_per_kwh;
  std::string basis, country;
};

FlatIntensity local_flat(const CostConfig& c) {
  if (c.is_set("carbon.intensity_g_per_kwh")) return {c.carbon_intensity, "carbon.intensity_g_per_kwh", {}};
  if (!c.carbon_country.empty())
    if (const GridIntensity* g = find_grid_intensity(c.carbon_country))
      return {g->g_per_kwh, country_basis(*g), g->country};
  return {};
}

CarbonSide local_side(const CostConfig& c, const JobInputs& job, double gpu_kwh, double system_kwh) {
  CarbonSide s;
  s.it_kwh = gpu_kwh + system_kwh;
  s.overhead = c.cooling_factor;
  s.overhead_basis = c.is_set("local.cooling_factor") ? "local.cooling_factor" : "local.cooling_factor (default)";
  s.kwh = s.overhead * s.it_kwh;
  const FlatIntensity flat = local_flat(c);
  if (!flat.g_per_kwh) {
    s.reason =
        "no local grid intensity: set carbon.country (e.g. --set carbon.country=DE) or carbon.intensity_g_per_kwh";
    return s;
  }
  s.country = flat.country;
  s.intensity_basis = flat.basis;
  double mean = *flat.g_per_kwh;
  if (!c.carbon_tou.empty()) {
    if (job.profile.empty()) {
      s.reason =
          "[[carbon.tou]] windows need the energy profile, which this features document lacks (re-run "
          "gpucost extract)";
      return s;
    }
    auto tou = Tariff::make(*flat.g_per_kwh, c.carbon_tou, c.tariff_tz);
    if (!tou) {
      s.reason = tou.error().message;  // checked at load; a zone the tz database lost since
      return s;
    }
    const EnergyPrices p = energy_prices(*tou, job.profile, job.from_ns, job.to_ns, gpu_kwh, system_kwh);
    mean = p.mean;
    s.time_of_use = true;
    s.intensity_basis =
        fmt::format("[[carbon.tou]] windows in {}, else {}", c.tariff_tz.empty() ? "UTC" : c.tariff_tz, flat.basis);
  }
  s.intensity_g_per_kwh = mean;
  s.kg = s.kwh * mean / 1000.0;
  return s;
}

// The cloud's PUE: the config's, the provider's published one, or the industry average.
void cloud_overhead(const CostConfig& c, CarbonSide& s) {
  if (c.is_set("carbon.cloud_pue")) {
    s.overhead = c.carbon_cloud_pue;
    s.overhead_basis = "PUE from carbon.cloud_pue";
    return;
  }
  const CloudCarbonTable& t = cloud_carbon_table();
  if (const ProviderPue* p = find_provider_pue(c.offer_provider)) {
    s.overhead = p->pue;
    s.overhead_basis = fmt::format("{}'s PUE of {}{}", p->name, p->year, p->confirmed ? "" : " (as reported)");
    return;
  }
  s.overhead = t.fallback.pue;
  s.overhead_basis = fmt::format("PUE assumed: {} of {}, {}", t.fallback.name, t.fallback.year,
                                 c.offer_provider.empty() ? "no provider known" : c.offer_provider + " publishes none");
}

void cloud_intensity(const CostConfig& c, CarbonSide& s) {
  if (c.is_set("carbon.cloud_intensity_g_per_kwh")) {
    s.intensity_g_per_kwh = c.carbon_cloud_intensity;
    s.intensity_basis = "carbon.cloud_intensity_g_per_kwh";
    return;
  }
  // The offer's region, where the table knows its country; carbon.cloud_country for the rest (a
  // cloud given by rate alone, a marketplace offer whose region "varies").
  std::string country = region_country(c.offer_region);
  std::string via = fmt::format("region {}", c.offer_region);
  if (country.empty()) {
    country = c.carbon_cloud_country;
    via = "carbon.cloud_country";
  }
  const GridIntensity* g = country.empty() ? nullptr : find_grid_intensity(country);
  if (g == nullptr) {
    s.reason = c.offer_region.empty()
                   ? "no cloud region (the cloud is priced from the config): set carbon.cloud_country or "
                     "carbon.cloud_intensity_g_per_kwh"
                   : fmt::format(
                         "the offer's region '{}' has no country in data/cloud-pue.toml: set "
                         "carbon.cloud_country or carbon.cloud_intensity_g_per_kwh",
                         c.offer_region);
    return;
  }
  s.country = g->country;
  s.intensity_g_per_kwh = g->g_per_kwh;
  s.intensity_basis = fmt::format("{}: {}", via, country_basis(*g));
}

}  // namespace

Expected<std::vector<GridIntensity>> parse_grid_intensities(std::string_view tsv, std::string_view origin) {
  std::vector<GridIntensity> out;
  std::size_t pos = 0, line_no = 0;
  bool header = false;
  while (pos < tsv.size()) {
    const std::string_view line = text::rtrim(text::next_line(tsv, pos));
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    if (!header) {
      header = true;  // country, name, g_co2e_per_kwh, year
      continue;
    }
    const auto cols = split_tabs(line);
    const auto g = cols.size() == 4 ? text::parse_double(cols[2]) : std::nullopt;
    const auto year = cols.size() == 4 ? text::parse_int(cols[3]) : std::nullopt;
    if (cols.size() != 4 || cols[0].size() != 2 || !g || !(*g >= 0) || !year || *year < 1990 || *year > 2100)
      return make_error(ErrorKind::config,
                        fmt::format("{}:{}: expected country (2 letters), name, g_co2e_per_kwh >= 0 and year, "
                                    "tab-separated",
                                    origin, line_no));
    out.push_back(GridIntensity{upper(cols[0]), std::string(cols[1]), *g, static_cast<int>(*year)});
  }
  return out;
}

const std::vector<GridIntensity>& grid_intensities() {
  static const std::vector<GridIntensity> kTable = [] {
    auto parsed = parse_grid_intensities(kIntensityTable, kIntensityFile);
    return parsed ? std::move(*parsed) : std::vector<GridIntensity>{};  // a unit test parses it
  }();
  return kTable;
}

const GridIntensity* find_grid_intensity(std::string_view country, const std::vector<GridIntensity>& table) {
  for (const GridIntensity& g : table)
    if (text::iequals(g.country, text::trim(country))) return &g;
  return nullptr;
}

Expected<CloudCarbonTable> parse_cloud_pue(std::string_view toml_text, std::string_view origin) {
  CloudCarbonTable out;
  auto providers = parse_toml_list<ProviderPue>(
      toml_text, origin, "provider",
      [](const toml::table& t, std::string_view o, std::size_t) { return read_pue(t, o, "provider"); });
  if (!providers) return providers.error();
  out.providers = std::move(*providers);
  auto parsed = parse_toml_text(toml_text, origin);
  if (!parsed) return parsed.error();
  const auto* fallback = (*parsed)["default"].as_table();
  if (fallback == nullptr) return make_error(ErrorKind::config, fmt::format("{}: [default] is missing", origin));
  auto def = read_pue(*fallback, origin, "default");
  if (!def) return def.error();
  out.fallback = std::move(*def);
  if (const auto* regions = (*parsed)["regions"].as_table())
    for (const auto& [k, v] : *regions) {
      const auto country = v.value<std::string>();
      if (!country || country->size() != 2)
        return make_error(ErrorKind::config,
                          fmt::format("{}: regions.{} must be a country code (2 letters)", origin, k.str()));
      out.regions.emplace_back(std::string(k.str()), upper(*country));
    }
  return out;
}

const CloudCarbonTable& cloud_carbon_table() {
  static const CloudCarbonTable kTable = [] {
    auto parsed = parse_cloud_pue(kPueTable, "data/cloud-pue.toml");
    return parsed ? std::move(*parsed) : CloudCarbonTable{};  // a unit test parses it
  }();
  return kTable;
}

const ProviderPue* find_provider_pue(std::string_view provider, const CloudCarbonTable& table) {
  const std::string_view name = text::trim(provider);
  for (const ProviderPue& p : table.providers)
    for (const std::string& m : p.match)
      if (!m.empty() && text::istarts_with(name, m)) return &p;
  return nullptr;
}

std::string region_country(std::string_view region, const CloudCarbonTable& table) {
  for (const auto& [name, country] : table.regions)
    if (text::iequals(name, text::trim(region))) return country;
  return {};
}

Status check_carbon_config(const CostConfig& c) {
  const auto known = [](std::string_view key, const std::string& code) -> Status {
    if (code.empty() || find_grid_intensity(code) != nullptr) return {};
    std::vector<std::string_view> codes;
    for (const GridIntensity& g : grid_intensities()) codes.push_back(g.country);
    const std::string_view best = text::closest_name(upper(code), codes);
    return make_error(ErrorKind::config, fmt::format("{}: '{}' is not a country of {}", key, code, kIntensityFile),
                      fmt::format("give an ISO 3166-1 alpha-2 code such as DE or US{}, or the intensity itself "
                                  "(carbon.intensity_g_per_kwh, carbon.cloud_intensity_g_per_kwh)",
                                  best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best)));
  };
  GPUCOST_TRY(known("carbon.country", c.carbon_country));
  GPUCOST_TRY(known("carbon.cloud_country", c.carbon_cloud_country));
  if (!c.carbon_tou.empty() && !c.is_set("carbon.intensity_g_per_kwh") && c.carbon_country.empty())
    return make_error(ErrorKind::config, "[[carbon.tou]] windows without an intensity for the time outside them",
                      "set carbon.intensity_g_per_kwh or carbon.country as well");
  if (auto overlap = check_overlaps(c.carbon_tou); !overlap) {
    Error e = overlap.error();  // its words name the tariff's windows
    if (e.message.starts_with("electricity.tou")) e.message.replace(0, 15, "carbon.tou");
    return e;
  }
  return {};
}

std::string co2e_text(double kg) {
  if (std::abs(kg) >= 1) return kg_text(kg) + " kg";
  return fmt::format("{:.3g} g", kg * 1000);
}

std::string kg_text(double kg) {
  if (kg >= 1) return fmt::format("{:.2f}", kg);
  if (kg >= 0.01 || kg == 0) return fmt::format("{:.3f}", kg);
  return fmt::format("{:.2g}", kg);
}

CarbonResult carbon_of(const CostConfig& c, const JobInputs& job, double q) {
  CarbonResult r;
  r.computed = true;
  const double gpu_kwh = std::accumulate(job.energy_kwh.begin(), job.energy_kwh.end(), 0.0);
  const double system_kwh = c.system_power_w * job.wall_h / 1000.0;
  r.local = local_side(c, job, gpu_kwh, system_kwh);
  // The cloud GPUs are taken to draw the local GPUs' mean power (no board-power data) for the
  // time the cloud needs for the job: its busy share shortened by the speed ratio.
  CarbonSide& s = r.cloud;
  s.it_kwh = q * (gpu_kwh + system_kwh);
  cloud_overhead(c, s);
  s.kwh = s.it_kwh * s.overhead;
  cloud_intensity(c, s);
  if (s.intensity_g_per_kwh) s.kg = s.kwh * *s.intensity_g_per_kwh / 1000.0;
  r.cloud_energy_basis = fmt::format(
      "the local GPUs' and system's energy x the cloud's share of the run time {:.3f} (busy time / speed ratio, the "
      "GPUs at the local mean power)",
      q);
  return r;
}

}  // namespace gpucost::breakeven

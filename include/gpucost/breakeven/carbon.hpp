// Carbon: the kg CO2e of a job's energy, on the local machine (its priced energy x the local grid's
// intensity, flat, by country or by time of use) and in the cloud (an estimate of the cloud GPUs'
// energy for the same work x the provider's PUE x the region's grid intensity). The tables are
// compiled in: data/grid-carbon-intensity.tsv and data/cloud-pue.toml. Method: docs/cost-model.md,
// "Carbon".
#pragma once

#include <gpucost/core/error.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpucost::breakeven {

struct CostConfig;
struct JobInputs;

/// One country's annual grid intensity (data/grid-carbon-intensity.tsv).
struct GridIntensity {
  std::string country;  ///< ISO 3166-1 alpha-2, upper case
  std::string name;
  double g_per_kwh = 0;  ///< g CO2e per kWh generated
  int year = 0;          ///< the year the average covers
};

/// Parses the table (tab-separated: country, name, g_co2e_per_kwh, year; '#' comments and the
/// header line skipped). Fails on a malformed row, naming its line.
Expected<std::vector<GridIntensity>> parse_grid_intensities(std::string_view tsv, std::string_view origin);
/// The compiled-in table.
const std::vector<GridIntensity>& grid_intensities();
/// The row of `country` (any case); null when the table has none.
const GridIntensity* find_grid_intensity(std::string_view country,
                                         const std::vector<GridIntensity>& table = grid_intensities());

/// A provider's published PUE, or the industry average used for those that publish none.
struct ProviderPue {
  std::string name;
  std::vector<std::string> match;  ///< lower-case starts of a provider name
  double pue = 1;
  int year = 0;
  std::string source, note;
  bool confirmed = true;
};

/// data/cloud-pue.toml: providers' PUE, the default, and region -> country.
struct CloudCarbonTable {
  std::vector<ProviderPue> providers;
  ProviderPue fallback;
  std::vector<std::pair<std::string, std::string>> regions;  ///< region, country
};
Expected<CloudCarbonTable> parse_cloud_pue(std::string_view toml_text, std::string_view origin);
const CloudCarbonTable& cloud_carbon_table();

/// The provider's PUE entry (the first whose match starts its name, any case), else null.
const ProviderPue* find_provider_pue(std::string_view provider, const CloudCarbonTable& table = cloud_carbon_table());
/// The country of a cloud region ("us-east-1" -> "US"); empty when the table does not list it.
std::string region_country(std::string_view region, const CloudCarbonTable& table = cloud_carbon_table());

/// One side's figure. `kg` is none when the intensity is unknown: never printed as 0.
struct CarbonSide {
  std::optional<double> kg;                   ///< kg CO2e
  double kwh = 0;                             ///< the energy the figure is for, facility overhead included
  double it_kwh = 0;                          ///< the same before the overhead (GPUs + system)
  double overhead = 1;                        ///< local.cooling_factor, or the provider's PUE
  std::string overhead_basis;                 ///< where the overhead came from
  std::optional<double> intensity_g_per_kwh;  ///< energy-weighted mean over the job
  std::string intensity_basis;                ///< where it came from ("config", "DE: Ember 2024", ...)
  std::string country;                        ///< ISO code when the table gave the intensity
  bool time_of_use = false;                   ///< [[carbon.tou]] windows weighed the intensity
  std::string reason;                         ///< why `kg` is unknown, and how to give it
};

/// Both sides of a job. `computed` is false for a Result not priced through price_job.
struct CarbonResult {
  bool computed = false;
  CarbonSide local, cloud;
  std::string cloud_energy_basis;  ///< how the cloud energy was estimated, in words
};

/// kg CO2e for people, never rounded to a bare 0: "1.08" from 1 kg, "0.114" from 0.01 kg, two
/// significant digits below ("0.00049").
std::string kg_text(double kg);
/// A small mass of CO2e for people, with its unit: grams below a kilogram, 3 significant digits
/// ("0.049 g", "38.2 g"), else kg_text's ("1.08 kg"). For figures per unit of work.
std::string co2e_text(double kg);

/// Where the local intensity comes from, checked when the config is loaded: an unknown
/// carbon.country or carbon.cloud_country is an error (with the nearest code), and time-of-use
/// windows need a flat intensity or a country for the time outside them.
Status check_carbon_config(const CostConfig& config);

/// The job's kg CO2e locally and in the cloud. `q` is the cloud's billed share of the window
/// (Result::q): the cloud GPUs run the job in q x W hours. The cloud's provider and region are the
/// priced offer's (config.offer_provider, offer_region; empty for a cloud given by rate alone).
CarbonResult carbon_of(const CostConfig& config, const JobInputs& job, double q);

}  // namespace gpucost::breakeven

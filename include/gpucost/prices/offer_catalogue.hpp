// One run's cloud catalogue: the built-in offers (breakeven::cloud_offers), then the user
// catalogue `gpucost offers update` writes, then --clouds files (gpucost's TOML, or a SkyPilot
// vms.csv as SkyPilot keeps it, its offers named and billed by the provider table).
#pragma once

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/core/error.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpucost::prices {

using breakeven::CloudOffer;
using breakeven::EuroRates;

/// Where one run's offers come from besides the built-in list, in the order they override it
/// (an offer replaces an earlier one of the same name).
struct CatalogueFiles {
  std::string user;                 ///< the catalogue `gpucost offers update` writes; absent: none
  std::vector<std::string> clouds;  ///< --clouds FILE: gpucost's TOML or a SkyPilot vms.csv
};

/// The offers one run prices against, what each file added (printed as notes), and the
/// reference exchange rates of the user catalogue (its [exchange] table), when it has them.
struct Catalogue {
  std::vector<CloudOffer> offers;
  std::vector<std::string> notes;
  std::optional<EuroRates> rates;
};

/// $XDG_DATA_HOME/gpucost/offers.toml, else $HOME/.local/share/gpucost/offers.toml; empty when
/// neither variable is set.
std::string user_catalogue_path();
/// The built-in offers, then the user catalogue's, then each --clouds file's.
Expected<Catalogue> load_catalogue(const CatalogueFiles& files);

}  // namespace gpucost::prices

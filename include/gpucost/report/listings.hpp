// The catalogues a user lists: the indicators (extract --list) and the cloud offers
// (breakeven --list-clouds), as an aligned table or as JSON.
#pragma once

#include <string>

namespace gpucost::report {

std::string indicator_catalogue_table();
std::string indicator_catalogue_json();

std::string cloud_offers_table();
std::string cloud_offers_json();

}  // namespace gpucost::report

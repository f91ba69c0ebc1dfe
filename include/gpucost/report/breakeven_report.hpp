// Renders a breakeven Result for people (a table) and for programs (JSON).
#pragma once

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/extract.hpp>

#include <string>

namespace gpucost::report {

std::string breakeven_json(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f);
std::string breakeven_table(const breakeven::Result& r, const breakeven::CostConfig& c, const extract::Features& f);

}  // namespace gpucost::report

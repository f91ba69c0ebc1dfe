// --by: the cost by process, user or cgroup (attribution_report.cpp writes it).
#include "report/sections/sections.hpp"

#include <gpucost/report/attribution_report.hpp>

#include <fmt/format.h>

namespace gpucost::report::sections {

void attribution_json(io::JsonWriter& w, const Answer& a) {
  if (a.extras.attribution) report::attribution_json(w, *a.extras.attribution, a.config.currency);
}

std::string attribution_full(const Answer& a) {
  return a.extras.attribution ? attribution_table(*a.extras.attribution, a.config.currency) : std::string();
}

// Shown on the first screen too: --by asked for it.
std::string attribution_summary(const Answer& a) {
  return a.extras.attribution ? "\n" + attribution_table(*a.extras.attribution, a.config.currency) : std::string();
}

}  // namespace gpucost::report::sections

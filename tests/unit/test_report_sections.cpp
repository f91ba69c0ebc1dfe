// report: the answer's sections, the one order the JSON, --full, the one-screen summary and the
// HTML report walk (include/gpucost/report/section.hpp).
#include <catch2/catch.hpp>

#include <gpucost/report/html_report.hpp>
#include <gpucost/report/section.hpp>

#include <algorithm>
#include <iterator>
#include <set>
#include <string_view>
#include <vector>

using namespace gpucost;

TEST_CASE("report::answer_sections: one order, each name once, each section in some output", "[report]") {
  const auto sections = report::answer_sections();
  std::set<std::string_view> names;
  for (const report::Section& s : sections) names.insert(s.name);
  CHECK(names.size() == sections.size());
  CHECK(sections.front().name == "verdict");  // the answer first, in every output

  const std::vector<std::string_view> drawn = report::html_section_names();
  for (const report::Section& s : sections) {
    CAPTURE(s.name);
    const bool is_drawn = std::find(drawn.begin(), drawn.end(), s.name) != drawn.end();
    CHECK((s.json != nullptr || s.full != nullptr || s.summary != nullptr || is_drawn));
    // What the first screen shows is in --full too, with its basis.
    if (s.summary != nullptr) CHECK(s.full != nullptr);
  }
}

TEST_CASE("report::html_section_names: each drawing names a section, in the sections' order", "[report]") {
  const auto sections = report::answer_sections();
  std::vector<std::string_view> order;
  for (const report::Section& s : sections) order.push_back(s.name);
  std::vector<std::size_t> positions;
  for (const std::string_view name : report::html_section_names()) {
    CAPTURE(name);
    const auto it = std::find(order.begin(), order.end(), name);
    REQUIRE(it != order.end());
    positions.push_back(static_cast<std::size_t>(std::distance(order.begin(), it)));
  }
  CHECK(std::is_sorted(positions.begin(), positions.end()));
  CHECK(std::adjacent_find(positions.begin(), positions.end()) == positions.end());
}

// docs: docs/indicators.md lists every catalogue entry (id, key, unit, category, used by) and nothing
// else; docs/cost-model.md lists every config key and every finding with its threshold. Fails when
// code and docs drift apart.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/prep/prep.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

/// A file of the repository: "docs/indicators.md", "README.md".
std::string read_source(const std::string& name) {
  const std::string path = std::string(GPUCOST_SOURCE_DIR) + "/" + name;
  std::ifstream in(path, std::ios::binary);
  INFO(path);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string read_doc(const std::string& name) { return read_source("docs/" + name); }

std::string cell(std::string s) {
  const auto b = s.find_first_not_of(" `");
  const auto e = s.find_last_not_of(" `");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

/// Markdown table rows whose first cell starts with `prefix`, split into trimmed cells
/// (backticks removed), keyed by the first cell.
std::map<std::string, std::vector<std::string>> table_rows(const std::string& doc, const std::string& prefix) {
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(doc);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::size_t pos = 1;
    while (pos < line.size()) {
      const std::size_t bar = line.find('|', pos);
      if (bar == std::string::npos) break;
      cells.push_back(cell(line.substr(pos, bar - pos)));
      pos = bar + 1;
    }
    if (!cells.empty() && cells[0].rfind(prefix, 0) == 0) rows[cells[0]] = cells;
  }
  return rows;
}

}  // namespace

TEST_CASE("extract: docs/indicators.md lists every catalogue id, key, unit, category and use", "[extract][docs]") {
  const auto rows = table_rows(read_doc("indicators.md"), "F");
  for (const auto& d : gpucost::extract::catalogue()) {
    INFO(d.id << " " << d.key);
    const auto it = rows.find(std::string(d.id));
    REQUIRE(it != rows.end());
    const auto& c = it->second;  // | id | key | unit | category | definition | used by |
    REQUIRE(c.size() >= 6);
    CHECK(c[1] == d.key);
    CHECK(c[2] == d.unit);
    CHECK(c[3] == d.category);
    CHECK(c[5] == d.used_by);
  }
  // No row for an id the catalogue does not have.
  for (const auto& [id, cells] : rows) {
    INFO(id);
    bool known = false;
    for (const auto& d : gpucost::extract::catalogue()) known = known || d.id == id;
    CHECK(known);
  }
}

TEST_CASE("breakeven: docs/cost-model.md lists every config key", "[breakeven][docs]") {
  const std::string doc = read_doc("cost-model.md");
  const auto rows = table_rows(doc, "");
  for (const auto& k : gpucost::breakeven::config_keys()) {
    INFO(k.path);
    const auto it = rows.find(std::string(k.path));
    REQUIRE(it != rows.end());
    if (k.required) CHECK(it->second.at(2).find("required") != std::string::npos);
  }
}

TEST_CASE("breakeven: docs/cost-model.md lists every finding with its threshold", "[breakeven][docs][findings]") {
  const auto rows = table_rows(read_doc("cost-model.md"), "");
  for (const auto& t : gpucost::breakeven::finding_thresholds()) {
    INFO(t.kind);
    const auto it = rows.find(std::string(t.kind));
    REQUIRE(it != rows.end());
    REQUIRE(it->second.size() >= 5);
    CHECK(it->second.at(2).rfind(fmt::format("{} {:g}", t.op, t.value), 0) == 0);  // "fires when"
    if (!t.id.empty() && t.id.find('+') == std::string_view::npos)
      CHECK(it->second.at(1).find(t.id) != std::string::npos);
  }
}

TEST_CASE("prep: README's --input-format row names every format", "[prep][docs]") {
  const auto rows = table_rows(read_source("README.md"), "--input-format");
  REQUIRE(rows.size() == 1);
  const std::string meaning = rows.begin()->second.at(1) + "`";  // cell() took the last backtick
  std::istringstream names(gpucost::format_names());
  std::string name;
  while (std::getline(names >> std::ws, name, ',')) {
    INFO(name);
    CHECK(meaning.find("`" + name + "`") != std::string::npos);
  }
}

// outputs: the Prometheus textfile follows the naming rules promtool checks (base units, no
// _total on gauges, no reserved suffixes), leaves absent indicators out and escapes labels.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/outputs/prom_textfile.hpp>

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

using namespace gpucost;

breakeven::CostConfig config() {
  breakeven::CostConfig c;
  c.currency = "EUR";
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.rate_per_hour = 0.8;
  c.cloud_name = "say \"cheap\"";
  return c;
}

extract::Features features() {
  extract::Features f;
  f.from_ns = 1'718'194'938'000'000'000;
  f.to_ns = f.from_ns + 3'600'000'000'000;
  f.host = "gpu\\01";
  f.host_indicators["energy_kwh"] = {1.5, ""};
  f.host_indicators["idle_fraction"] = {0.25, ""};
  f.host_indicators["xid_count"] = {std::nullopt, "no kernel log among the inputs"};
  extract::GpuFeatures g;
  g.gpu = 1;
  g.indicators["energy_kwh"] = {1.5, ""};
  g.indicators["launch_delay_p50_us"] = {20.0, ""};
  f.gpus.push_back(g);
  return f;
}

std::string textfile() {
  breakeven::JobInputs j;
  j.wall_h = 1.0;
  j.energy_kwh = {1.5};
  j.util = {0.75};
  return outputs::prometheus_textfile(breakeven::compute(config(), j), config(), features());
}

}  // namespace

TEST_CASE("outputs: every catalogue indicator has a metric name", "[outputs][prom]") {
  std::set<std::string_view> mapped;
  for (const auto& p : outputs::prom_indicators()) mapped.insert(p.key);
  for (const auto& d : extract::catalogue()) {
    INFO(d.key);
    CHECK(mapped.count(d.key) == 1);
  }
}

TEST_CASE("outputs: metric names follow the Prometheus conventions", "[outputs][prom]") {
  const std::regex name_re("^gpucost_[a-z0-9_]+$");
  for (const auto& p : outputs::prom_indicators()) {
    if (p.suffix.empty()) continue;
    const std::string name = "gpucost_host_" + std::string(p.suffix);
    INFO(name);
    CHECK(std::regex_match(name, name_re));
    for (const char* bad : {"_total", "_count", "_sum", "_bucket", "_kwh", "_us", "_gbps", "_w", "_c", "_s", "_ms"}) {
      const std::string b = bad;
      CHECK_FALSE((name.size() >= b.size() && name.compare(name.size() - b.size(), b.size(), b) == 0));
    }
  }
}

TEST_CASE("outputs: textfile has HELP and TYPE per family, converted values, no absent indicator", "[outputs][prom]") {
  const std::string t = textfile();
  INFO(t);
  CHECK(t.find("# HELP gpucost_local_cost ") != std::string::npos);
  CHECK(t.find("# TYPE gpucost_local_cost gauge\n") != std::string::npos);
  CHECK(t.find("gpucost_job_energy_joules{host=\"gpu\\\\01\"} 5400000\n") != std::string::npos);
  CHECK(t.find("gpucost_gpu_energy_joules{host=\"gpu\\\\01\",gpu=\"1\"} 5400000\n") != std::string::npos);
  CHECK(t.find("gpucost_gpu_launch_delay_p50_seconds{host=\"gpu\\\\01\",gpu=\"1\"} 2e-05\n") != std::string::npos);
  CHECK(t.find("gpucost_host_idle_ratio{host=\"gpu\\\\01\"} 0.25\n") != std::string::npos);
  // The free text of cloud.name is a label of the info metric only; the cost's cloud is an id.
  CHECK(t.find("gpucost_cloud_cost{host=\"gpu\\\\01\",currency=\"EUR\",cloud=\"config\"} ") != std::string::npos);
  CHECK(t.find("gpucost_cloud_offer_info{host=\"gpu\\\\01\",cloud=\"config\",name=\"say \\\"cheap\\\"\"} 1\n") !=
        std::string::npos);
  CHECK(t.find("currency=\"EUR\"") != std::string::npos);
  CHECK(t.find("xid") == std::string::npos);  // null: left out, not 0
  // Each family once, its samples right after its TYPE line.
  std::istringstream in(t);
  std::string line, current;
  std::set<std::string> seen;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      CHECK(seen.insert(current).second);
    } else if (line.rfind("# HELP ", 0) != 0) {
      CHECK(line.compare(0, current.size() + 1, current + "{") == 0);
    }
  }
}

TEST_CASE("outputs: every metric the Grafana dashboard queries is written", "[outputs][prom][docs]") {
  extract::Features f = features();
  for (const auto& d : extract::catalogue()) {  // every indicator present, on the host and GPU 1
    f.host_indicators[std::string(d.key)] = {1.0, ""};
    f.gpus[0].indicators[std::string(d.key)] = {1.0, ""};
  }
  breakeven::JobInputs j;
  j.wall_h = 1.0;
  j.energy_kwh = {1.5};
  j.util = {0.75};
  const std::string t = outputs::prometheus_textfile(breakeven::compute(config(), j), config(), f);
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/docs/grafana/gpucost.json");
  REQUIRE(in.good());
  const std::string dash((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::regex metric_re("gpucost_[a-z0-9_]+");
  std::size_t names = 0;
  for (auto it = std::sregex_iterator(dash.begin(), dash.end(), metric_re); it != std::sregex_iterator(); ++it) {
    const std::string name = it->str();
    INFO(name);
    CHECK(t.find("# TYPE " + name + " gauge") != std::string::npos);
    ++names;
  }
  CHECK(names > 10);
}

TEST_CASE("outputs: docs/outputs.md names every metric", "[outputs][prom][docs]") {
  std::ifstream in(std::string(GPUCOST_SOURCE_DIR) + "/docs/outputs.md");
  REQUIRE(in.good());
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream families(textfile());
  std::string line;
  while (std::getline(families, line))
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string name = line.substr(7, line.find(' ', 7) - 7);
      INFO(name);
      CHECK(doc.find("`" + name + "`") != std::string::npos);
    }
  for (const auto& p : outputs::prom_indicators()) {
    if (p.suffix.empty()) continue;
    const std::string name = fmt::format("`gpucost_host_{}`", p.suffix);
    INFO(name);
    CHECK(doc.find(name) != std::string::npos);
  }
}

TEST_CASE("outputs: the priced offer's price age, for an alert on stale prices", "[outputs][prom]") {
  breakeven::JobInputs j;
  j.wall_h = 1.0;
  j.energy_kwh = {1.5};
  j.util = {0.75};
  CHECK(textfile().find("gpucost_cloud_price_age_seconds") == std::string::npos);  // no offer: no age
  breakeven::CostConfig c = config();
  c.cloud_offer = "aws-p5.48xlarge";
  c.offer_age_days = 182;
  c.offer_confirmed = false;
  c.offer_date_seen = "2026-06-01";
  const std::string t = outputs::prometheus_textfile(breakeven::compute(c, j), c, features());
  INFO(t);
  // Base units: 182 days in seconds; the offer's name is the cloud label, its date an info label.
  CHECK(t.find("gpucost_cloud_price_age_seconds{host=\"gpu\\\\01\",cloud=\"aws-p5.48xlarge\",confirmed=\"false\"} "
               "15724800\n") != std::string::npos);
  CHECK(t.find("cloud=\"aws-p5.48xlarge\",name=\"say \\\"cheap\\\"\",seen=\"2026-06-01\",confirmed=\"false\"} 1\n") !=
        std::string::npos);
}

// The parsers behind the input flags (--boot-time, --max-line, --steps, --from/--to) and the
// listings of --list-clouds, outside the CLI so that they can be tested here.
#include <catch2/catch.hpp>

#include <gpucost/pipeline/settings.hpp>
#include <gpucost/report/listings.hpp>

#include <simdjson.h>

#include <sstream>
#include <string>
#include <vector>

using namespace gpucost;

TEST_CASE("settings: --boot-time takes epoch seconds, with a fraction or @, and ISO 8601") {
  CHECK(*pipeline::parse_boot_time("1718194938", "UTC") == 1718194938LL * kNsPerSecond);
  CHECK(*pipeline::parse_boot_time("@1718194938.25", "UTC") == 1718194938LL * kNsPerSecond + 250'000'000);
  CHECK(*pipeline::parse_boot_time("2024-06-12T12:22:18Z", "Europe/Berlin") == 1718194938LL * kNsPerSecond);
  // Local in the zone given: 14:22:18 CEST is 12:22:18Z.
  CHECK(*pipeline::parse_boot_time("2024-06-12T14:22:18", "Europe/Berlin") == 1718194938LL * kNsPerSecond);
  // Eight digits are a date (ISO 8601 basic), not seconds.
  CHECK(*pipeline::parse_boot_time("20240612", "UTC") == 1718150400LL * kNsPerSecond);
  const auto bad = pipeline::parse_boot_time("yesterday", "UTC");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "--boot-time: 'yesterday' is neither ISO 8601 nor epoch seconds");
}

TEST_CASE("settings: --max-line sizes are 1024-based with K, M, G") {
  CHECK(*pipeline::parse_size("4M") == 4ULL * 1024 * 1024);
  CHECK(*pipeline::parse_size("512k") == 512ULL * 1024);
  CHECK(*pipeline::parse_size("1G") == 1024ULL * 1024 * 1024);
  CHECK(*pipeline::parse_size("70000") == 70000);
  CHECK_FALSE(pipeline::parse_size("0"));
  CHECK_FALSE(pipeline::parse_size("-1M"));
  CHECK_FALSE(pipeline::parse_size("4T"));
  CHECK_FALSE(pipeline::parse_size("2048G"));  // above 1 TiB
  pipeline::InputSettings s;
  s.max_line = "1K";
  const auto o = pipeline::prep_options(s);
  REQUIRE_FALSE(o);
  CHECK(o.error().message == "--max-line: '1K' is not a size from 64K to 1G");
}

TEST_CASE("settings: --steps is one step or an increasing range") {
  const auto one = pipeline::parse_step_range("5");
  REQUIRE(one);
  CHECK(one->first == 5);
  CHECK(one->last == 5);
  const auto range = pipeline::parse_step_range("4-6");
  REQUIRE(range);
  CHECK(range->first == 4);
  CHECK(range->last == 6);
  CHECK_FALSE(pipeline::parse_step_range("6-4"));
  CHECK_FALSE(pipeline::parse_step_range("-3"));
  CHECK_FALSE(pipeline::parse_step_range("a-b"));
}

TEST_CASE("settings: --from/--to are UTC with Z or an offset, else local") {
  auto clock = LocalClock::make("Europe/Berlin");
  REQUIRE(clock);
  const auto w = pipeline::window_options("2024-06-12T14:00:00", "2024-06-12T13:00:00+01:00", *clock);
  REQUIRE(w);
  CHECK(*w->from_ns == *pipeline::parse_instant("x", "2024-06-12T12:00:00Z", *clock));
  CHECK(*w->to_ns == *pipeline::parse_instant("x", "2024-06-12T12:00:00Z", *clock));
  const auto bad = pipeline::window_options("", "noon", *clock);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "--to: 'noon' is not an ISO 8601 time");
}

TEST_CASE("settings: no host given is this machine's name, and flagged as not given") {
  const auto o = pipeline::prep_options({});
  REQUIRE(o);
  CHECK_FALSE(o->host.empty());
  CHECK_FALSE(o->host_given);
  pipeline::InputSettings s;
  s.host = "gpu01";
  CHECK(pipeline::prep_options(s)->host_given);
}

TEST_CASE("listings: --list-clouds lines up every column and names the region") {
  std::istringstream table(report::cloud_offers_table(breakeven::cloud_offers(), "2026-12-02"));
  std::string header;
  std::getline(table, header);
  const std::size_t region = header.find("region"), seen = header.find("seen");
  REQUIRE(region != std::string::npos);
  std::string line;
  int rows = 0;
  while (std::getline(table, line) && !line.empty()) {
    ++rows;
    INFO(line);
    CHECK(line[region - 1] == ' ');
    CHECK(line[region] != ' ');
    CHECK(line[seen - 1] == ' ');
    CHECK(line.substr(seen, 2) == "20");  // the date seen starts in the same column in every row
  }
  CHECK(rows > 10);
}

TEST_CASE("listings: the catalogues' JSON parses") {
  for (const std::string& text :
       {report::cloud_offers_json(breakeven::cloud_offers(), "2026-12-02"), report::indicator_catalogue_json()}) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(text).get(doc) == simdjson::SUCCESS);
    simdjson::dom::array items;
    REQUIRE(doc.get_array().get(items) == simdjson::SUCCESS);
    CHECK(items.size() > 10);
  }
}

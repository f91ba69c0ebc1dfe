// breakeven: the JSON report carries every key issue 2 names, with null and a reason where no
// break-even exists.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/report/breakeven_report.hpp>

#include <simdjson.h>

#include <string>

namespace {

using namespace gpucost;

breakeven::CostConfig config(double rate) {
  breakeven::CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.cooling_factor = 1.2;
  c.system_power_w = 100;
  c.hourly_wage = 50;
  c.maintenance_hours_per_year = 10;
  c.rate_per_hour = rate;
  c.speed_ratio = 2.0;
  c.cold_start_s = 300;
  c.billing_increment_s = 60;
  c.billing_minimum_s = 600;
  c.fixed_per_job = 0.5;
  return c;
}

breakeven::JobInputs job() {
  breakeven::JobInputs j;
  j.wall_h = 2.0;
  j.energy_kwh = {0.5, 0.4};
  j.util = {0.6, 0.9};
  return j;
}

double number(simdjson::dom::element doc, const char* pointer) {
  double d = 0;
  INFO(pointer);
  REQUIRE(doc.at_pointer(pointer).get_double().get(d) == simdjson::SUCCESS);
  return d;
}

}  // namespace

TEST_CASE("breakeven: JSON report has every key of the issue", "[breakeven]") {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = 7'200'000'000'000;
  const auto c = config(0.5);
  const auto r = breakeven::compute(c, job());
  const std::string text = report::breakeven_json(r, c, f);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(text).get(doc) == simdjson::SUCCESS);
  CHECK(number(doc, "/local/electricity") == Approx(0.396));
  CHECK(number(doc, "/local/amortisation") == Approx(6000.0 / 6132.0));
  CHECK(number(doc, "/local/maintenance") == Approx(1000.0 / 2044.0));
  CHECK(number(doc, "/local/total") == Approx(1.8637103718));
  CHECK(number(doc, "/cloud/billed_s") == Approx(4800.0));
  CHECK(number(doc, "/cloud/total") == Approx(7.0 / 6.0));
  CHECK(number(doc, "/premium") == Approx(0.5974660330));
  CHECK(number(doc, "/line") == Approx(0.12));
  bool above = false;
  REQUIRE(doc.at_pointer("/above_line").get_bool().get(above) == simdjson::SUCCESS);
  CHECK(above);
  CHECK(number(doc, "/breakeven/job_hours") == Approx(0.8745654820));
  CHECK(number(doc, "/breakeven/line_job_hours") == Approx(1.0426420205));
  CHECK(number(doc, "/breakeven/use_hours_per_year") == Approx(3892.733564));
}

TEST_CASE("breakeven: JSON report writes null and a reason where no break-even exists", "[breakeven]") {
  extract::Features f;
  f.to_ns = 7'200'000'000'000;
  const auto c = config(2.0);
  const auto r = breakeven::compute(c, job());
  const std::string text = report::breakeven_json(r, c, f);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(text).get(doc) == simdjson::SUCCESS);
  CHECK(doc.at_pointer("/breakeven/job_hours").is_null());
  CHECK(doc.at_pointer("/breakeven/line_job_hours").is_null());
  std::string_view reason;
  REQUIRE(doc.at_pointer("/breakeven/job_hours_reason").get_string().get(reason) == simdjson::SUCCESS);
  CHECK(reason.find("local is cheaper at every job length") != std::string_view::npos);
  REQUIRE(doc.at_pointer("/breakeven/line_job_hours_reason").get_string().get(reason) == simdjson::SUCCESS);
  CHECK_FALSE(reason.empty());
  CHECK(number(doc, "/breakeven/use_hours_per_year") == Approx(1082.771896));
  // The table states the same in words.
  const std::string table = report::breakeven_table(r, c, f);
  CHECK(table.find("break-even job length  none: ") != std::string::npos);
  CHECK(table.find("below the line") != std::string::npos);
}

// report: the JSON report carries every key docs/cost-model.md names, with null and a reason where no
// break-even exists.
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/report/breakeven_report.hpp>

#include <simdjson.h>

#include <string>

namespace {

using namespace gpucost;

/// The reference case of docs/cost-model.md at another cloud rate.
breakeven::CostConfig config(double rate) {
  breakeven::CostConfig c = gpucost::testing::reference_config();
  c.rate_per_hour = rate;
  return c;
}

breakeven::JobInputs job() { return gpucost::testing::reference_job(); }

/// A fault of one Xid on GPU0 at `minute` of the window (as extract groups them).
extract::WindowFault fault(int minute, const char* bucket, int code) {
  extract::WindowFault w;
  w.ts_ns = w.last_ts_ns = static_cast<std::int64_t>(minute) * 60'000'000'000;
  w.device = "GPU0";
  w.bucket = bucket;
  w.members = {{"xid", code, 1}};
  w.count = 1;
  return w;
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
  // Per-minute billing: T* = 0.876388 h, back to local at the end of minute 38 (0.88 h), dearer
  // again from 0.885331 h (test_breakeven_crossings.cpp); T_λ = 1.051666 h, one crossing.
  CHECK(number(doc, "/breakeven/job_hours") == Approx(0.8763879614));
  CHECK(number(doc, "/breakeven/line_job_hours") == Approx(1.0516655536));
  CHECK(number(doc, "/breakeven/use_hours_per_year") == Approx(3892.733564));
  simdjson::dom::array crossings;
  REQUIRE(doc.at_pointer("/breakeven/job_hours_crossings").get_array().get(crossings) == simdjson::SUCCESS);
  REQUIRE(crossings.size() == 3);
  CHECK(number(doc, "/breakeven/job_hours_crossings/1/hours") == Approx(0.88));
  std::string_view side;
  REQUIRE(doc.at_pointer("/breakeven/job_hours_crossings/0/local_cheaper").get_string().get(side) == simdjson::SUCCESS);
  CHECK(side == "below");
  REQUIRE(doc.at_pointer("/breakeven/job_hours_crossings/1/local_cheaper").get_string().get(side) == simdjson::SUCCESS);
  CHECK(side == "above");
  REQUIRE(doc.at_pointer("/breakeven/line_job_hours_crossings/0/below_line").get_string().get(side) ==
          simdjson::SUCCESS);
  CHECK(side == "below");
  CHECK(doc.at_pointer("/breakeven/job_hours_crossings_omitted").error() == simdjson::NO_SUCH_FIELD);
  // The table says it in words: local cheaper below T*, again from 0.88 h to 0.885 h, then the cloud.
  const std::string table = report::breakeven_table(r, c, f);
  CHECK(table.find("break-even job length  52.6 min: local is cheaper for jobs shorter than this, again between "
                   "52.8 min and 53.1 min; the cloud is cheaper beyond 53.1 min\n") != std::string::npos);
  CHECK(table.find("line crossed at        63.1 min: beyond it the premium exceeds 12.0 %\n") != std::string::npos);
  CHECK(table.find("job       1970-01-01T00:00:00Z .. 1970-01-01T02:00:00Z  (2.00 h, 2 GPUs)\n") != std::string::npos);
}

TEST_CASE("breakeven: the table words alternating crossings", "[breakeven][crossings]") {
  // Hourly billing at 3/h against c_L = 4/h (test_breakeven_crossings.cpp): local is cheaper below
  // 0.75 h, from 1 to 1.5 h and from 2 to 2.25 h. A 2 h job at ū = 0 (q = 1): C_L = 8, so the
  // reference job's costs are scaled by hand: electricity only, 4/h.
  breakeven::CostConfig c;
  c.price_per_kwh = 1.0;
  c.hardware_price = 0;
  c.rate_per_hour = 3.0;
  c.billing_increment_s = 3600;
  breakeven::JobInputs j;
  j.wall_h = 2.0;
  j.energy_kwh = {8.0};  // 8 kWh at 1.0/kWh: C_L = 8, c_L = 4/h
  j.util = {0.0};
  extract::Features f;
  f.to_ns = 7'200'000'000'000;
  const auto r = breakeven::compute(c, j);
  REQUIRE(r.local_total == Approx(8.0));
  const std::string table = report::breakeven_table(r, c, f);
  // Minutes below 2 h, hours from 2 h on (docs/outputs.md, "Units").
  CHECK(table.find("break-even job length  45.0 min: local is cheaper for jobs shorter than this, again between "
                   "60.0 min and 90.0 min and between 2.00 h and 2.25 h; the cloud is cheaper beyond 2.25 h\n") !=
        std::string::npos);
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

TEST_CASE("breakeven: a storm of faults is 20 lines and a count in the table, all of it in the JSON",
          "[breakeven][faults]") {
  // 30 faults, one a minute; the 28th costs a reboot (1 h), the others a restart (0.1 h).
  const auto c = config(0.5);
  breakeven::JobInputs j = job();
  for (int i = 0; i < 30; ++i) j.faults.push_back(i == 27 ? fault(i, "reboot", 79) : fault(i, "restart_app", 13));
  extract::Features f;
  f.to_ns = 7'200'000'000'000;
  const auto r = breakeven::compute(c, j);
  REQUIRE(r.incidents.size() == 30);
  const std::string table = report::breakeven_table(r, c, f);
  std::size_t lines = 0;
  for (std::size_t at = table.find("\n  1970-"); at != std::string::npos; at = table.find("\n  1970-", at + 1)) ++lines;
  CHECK(lines == 20);
  CHECK(table.find("incidents (a fault is priced once, at its most severe member's bucket; the 20 costliest of 30, "
                   "in time order)\n") != std::string::npos);
  // The costliest are shown: the reboot, then the earliest restarts; the 10 others as one line.
  CHECK(table.find("1970-01-01T00:27:00Z  Xid 79 (reboot, unknown)") != std::string::npos);
  CHECK(table.find("1970-01-01T00:18:00Z") != std::string::npos);
  CHECK(table.find("1970-01-01T00:19:00Z") == std::string::npos);
  CHECK(table.find("  \u2026 and 10 more (see --json): 50.00 USD, 60.0 min operator time\n") != std::string::npos);
  CHECK(report::incidents_shown(r).size() == 20);
  CHECK(report::incidents_shown(r, 40).size() == 30);

  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const std::string json = report::breakeven_json(r, c, f);
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  simdjson::dom::array incidents;
  REQUIRE(doc.at_pointer("/incidents").get_array().get(incidents) == simdjson::SUCCESS);
  CHECK(incidents.size() == 30);
}

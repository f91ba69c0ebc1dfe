// breakeven's outputs of the cost per unit of work and the busy share: the JSON's `work` object,
// the table's block, the HTML section, the Prometheus samples, the ledger's columns and
// `gpucost history --by fingerprint` (docs/cost-model.md, "Cost per unit of work"; docs/outputs.md).
// The job is the reference case of docs/cost-model.md, with the work of testdata/work/.
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/outputs/ledger.hpp>
#include <gpucost/outputs/prom_textfile.hpp>
#include <gpucost/report/breakeven_report.hpp>
#include <gpucost/report/html_report.hpp>

#include <fmt/format.h>
#include <simdjson.h>
#include <pugixml.hpp>

#include <unistd.h>
#include <filesystem>
#include <string>

namespace {

using namespace gpucost;
using gpucost::testing::reference_config;
using gpucost::testing::reference_job;

// 1200 steps, 76 800 samples, 157 286 400 tokens, 1.5 epochs in 2 h; no work_epochs when `epochs` is false.
extract::Features work_features(const std::string& host, bool epochs = true) {
  extract::Features f;
  f.host = host;
  f.from_ns = 1'718'344'800'000'000'000;
  f.to_ns = f.from_ns + 7'200'000'000'000;
  extract::set_value(f.host_indicators, "work_steps", 1200);
  extract::set_value(f.host_indicators, "work_samples", 76800);
  extract::set_value(f.host_indicators, "work_tokens", 157286400);
  if (epochs)
    extract::set_value(f.host_indicators, "work_epochs", 1.5);
  else
    extract::set_absent(f.host_indicators, "work_epochs", "the training log names no epoch");
  for (int i = 0; i < 2; ++i) {
    extract::GpuFeatures g;
    g.gpu = i;
    f.gpus.push_back(g);
  }
  return f;
}

double number_at(simdjson::dom::element doc, const char* pointer) {
  double v = 0;
  REQUIRE(doc.at_pointer(pointer).get_double().get(v) == simdjson::SUCCESS);
  return v;
}

}  // namespace

TEST_CASE("work outputs: the JSON's work object holds every figure, null with a reason", "[work][outputs]") {
  const auto c = reference_config();
  const auto r = breakeven::compute(c, reference_job());
  const std::string json = report::breakeven_json(r, c, work_features("ws", false));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  CHECK(number_at(doc, "/work/window_h") == 2.0);
  CHECK(number_at(doc, "/work/steps/count") == 1200);
  CHECK(number_at(doc, "/work/steps/per_hour") == Approx(600));
  CHECK(number_at(doc, "/work/steps/local") == Approx(0.001553092));
  CHECK(number_at(doc, "/work/steps/cloud") == Approx(0.002638889));
  CHECK(number_at(doc, "/work/tokens/per") == 1e6);
  CHECK(number_at(doc, "/work/tokens/local") == Approx(0.011849151));
  CHECK(number_at(doc, "/work/tokens/breakeven_use_per_month") == Approx(7096053898.0));
  CHECK(number_at(doc, "/work/samples/cloud") == Approx(0.041232639));
  std::string_view label, reason;
  REQUIRE(doc.at_pointer("/work/tokens/per_label").get_string().get(label) == simdjson::SUCCESS);
  CHECK(label == "1M tokens");
  CHECK(doc.at_pointer("/work/tokens/breakeven_job").is_null());
  REQUIRE(doc.at_pointer("/work/tokens/breakeven_job_reason").get_string().get(reason) == simdjson::SUCCESS);
  CHECK(reason == r.job_hours.reason);
  CHECK(doc.at_pointer("/work/epochs/count").is_null());
  REQUIRE(doc.at_pointer("/work/epochs/reason").get_string().get(reason) == simdjson::SUCCESS);
  CHECK(reason == "the training log names no epoch");
  CHECK(number_at(doc, "/cloud/busy_share") == Approx(0.75));
  std::string_view source;
  REQUIRE(doc.at_pointer("/cloud/busy_source").get_string().get(source) == simdjson::SUCCESS);
  CHECK(source == "util");
}

TEST_CASE("work outputs: the table's per unit block, and none without work", "[work][outputs]") {
  const auto c = reference_config();
  const auto r = breakeven::compute(c, reference_job());
  const std::string table = report::breakeven_table(r, c, work_features("ws"));
  CHECK(table.find("per unit of work") != std::string::npos);
  CHECK(table.find("  step                 0.00155 USD       0.00264 USD  1.2 k steps, 600 an hour\n") !=
        std::string::npos);
  CHECK(table.find("  1M tokens             0.0118 USD        0.0201 USD  157 M tokens, 78.6 M an hour\n") !=
        std::string::npos);
  CHECK(table.find("  epoch                   1.24 USD          2.11 USD  1.5 epochs, 0.75 an hour\n") !=
        std::string::npos);
  CHECK(table.find("owning pays above 7.1 B tokens a month (1083 h/year at 78.6 M tokens an hour)") !=
        std::string::npos);
  CHECK(table.find("  job           none: local costs no more per hour than cloud") != std::string::npos);

  extract::Features plain = work_features("ws");
  plain.host_indicators.clear();
  CHECK(report::breakeven_table(r, c, plain).find("per unit of work") == std::string::npos);
}

TEST_CASE("work outputs: the break-even job in steps against the cheaper offer", "[work][outputs]") {
  auto c = reference_config();
  c.rate_per_hour = 0.5;
  const auto r = breakeven::compute(c, reference_job());
  const auto texts = report::work_breakeven_texts(r, breakeven::work_costs(r, work_features("ws").host_indicators));
  REQUIRE(texts.size() == 2);
  CHECK(texts[0].first == "use");
  CHECK(texts[0].second == "owning pays above 25.5 B tokens a month (3893 h/year at 78.6 M tokens an hour)");
  CHECK(texts[1].first == "job");
  CHECK(texts[1].second == "local is cheaper for jobs of fewer than 526 steps (break-even job length 52.6 min)");
}

TEST_CASE("work outputs: the HTML report has a cost per unit of work section", "[work][outputs][html]") {
  const auto c = reference_config();
  const auto r = breakeven::compute(c, reference_job());
  report::ReportSources sources;
  sources.features = work_features("ws");
  sources.from_features_document = true;
  const std::string html = report::html_report({r, c, sources, {}, {}, {}});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(html.c_str()));
  const auto section = doc.select_node("//section[@id='work']");
  REQUIRE(section);
  CHECK(html.find("<td>1M tokens</td><td class=\"num\">0.0118 USD</td><td class=\"num\">0.0201 USD</td>") !=
        std::string::npos);
  CHECK(html.find("Break-even use: owning pays above 7.1 B tokens a month") != std::string::npos);

  // SM active asked for and missing: the cost table says so (never silently).
  auto asked = c;
  asked.busy_share = "sm_active";
  const std::string fallback = report::html_report({r, asked, sources, {}, {}, {}});
  CHECK(fallback.find("billed share 0.625 of a busy share 0.750 from the utilisation: cloud.busy_share = sm_active, "
                      "but the features have no SM active") != std::string::npos);

  report::ReportSources without;
  without.features = work_features("ws");
  without.features.host_indicators.clear();
  without.from_features_document = true;
  CHECK(report::html_report({r, c, without, {}, {}, {}}).find("id=\"work\"") == std::string::npos);
}

TEST_CASE("work outputs: Prometheus samples per unit and side, none for what is not counted", "[work][outputs][prom]") {
  const auto c = reference_config();
  const auto r = breakeven::compute(c, reference_job());
  const std::string prom = outputs::prometheus_textfile(r, c, work_features("ws", false));
  CHECK(prom.find("# TYPE gpucost_job_cost_per_unit gauge\n") != std::string::npos);
  CHECK(prom.find("gpucost_job_cost_per_unit{host=\"ws\",currency=\"USD\",side=\"local\",unit=\"1M_tokens\"} "
                  "0.01184915") != std::string::npos);
  CHECK(prom.find("gpucost_job_cost_per_unit{host=\"ws\",currency=\"USD\",side=\"cloud\",unit=\"step\"} 0.00263888") !=
        std::string::npos);
  CHECK(prom.find("unit=\"epoch\"") == std::string::npos);  // not counted: no sample, never 0
  CHECK(prom.find("gpucost_breakeven_work_per_month{host=\"ws\",unit=\"tokens\"} 7096053") != std::string::npos);
  CHECK(prom.find("gpucost_breakeven_job_work{") == std::string::npos);  // T* none
  CHECK(prom.find("gpucost_job_busy_share_ratio{host=\"ws\",source=\"util\"} 0.75\n") != std::string::npos);
}

TEST_CASE("work outputs: the ledger keeps the cost per unit, history trends it per software stack",
          "[work][outputs][ledger]") {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("gpucost-work-ledger-{}", ::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "runs.sqlite").string();
  {
    auto ledger = outputs::Ledger::open(path);
    REQUIRE(ledger);
    CHECK(ledger->schema_version() == outputs::ledger_schema_version());
    const auto c = reference_config();
    Fingerprint old_stack, new_stack;
    old_stack.drivers = {"550.54.15"};
    old_stack.cuda = {"12.4"};
    old_stack.gpus = {"NVIDIA H100 80GB HBM3"};
    new_stack = old_stack;
    new_stack.drivers = {"570.86.15"};
    new_stack.cuda = {"12.8"};
    // Two runs on the old stack (the second with 2.0 kWh more: a dearer job), one on the new.
    auto j2 = reference_job();
    j2.energy_kwh = {1.5, 1.4};
    const auto f = work_features("h100");
    auto first = outputs::make_run_record(breakeven::compute(c, reference_job()), c, f, old_stack, 1, "t");
    auto second = outputs::make_run_record(breakeven::compute(c, j2), c, f, old_stack, 2, "t");
    second.from_ns += 86'400'000'000'000;
    auto third = outputs::make_run_record(breakeven::compute(c, reference_job()), c, f, new_stack, 3, "t");
    third.from_ns += 2 * 86'400'000'000'000;
    for (const auto* run : {&first, &second, &third}) REQUIRE(ledger->append(*run));
    auto runs = ledger->runs({});
    REQUIRE(runs);
    REQUIRE(runs->size() == 3);
    const auto& back = runs->front();
    CHECK(back.busy_source == "util");
    CHECK(back.busy_share == Approx(0.75));
    CHECK(back.local_per_unit[0] == Approx(0.001553092));  // per step
    CHECK(back.cloud_per_unit[2] == Approx(0.020133124));  // per 1M tokens
    CHECK(back.local_per_unit[3] == Approx(1.242473581));  // per epoch
    // The second run: C_e = 1.2 x 0.30 x (2.9 + 0.2) = 1.116; C_L = 1.116 + 0.978474 + 0.489237 = 2.583710
    CHECK((*runs)[1].local_per_unit[2] == Approx(2.583710 / 157.2864).epsilon(1e-6));

    const std::string table = outputs::history_table(*runs, outputs::TrendBy::fingerprint);
    CHECK(table.find("trend per software stack") != std::string::npos);
    CHECK(table.find("trend per host") == std::string::npos);
    CHECK(table.find("driver 550.54.15, CUDA 12.4, NVIDIA H100 80GB HBM3\n  2 runs,") != std::string::npos);
    // per 1M tokens: 0.0118492 then 0.0164268, mean 0.0141380; the cloud's bill is the same
    CHECK(table.find("  per 1M tokens   local 0.0118 -> 0.0164 (mean 0.0141), cloud 0.0201 -> 0.0201 (mean "
                     "0.0201) USD, 2 of 2 runs\n") != std::string::npos);
    CHECK(table.find("driver 570.86.15, CUDA 12.8, NVIDIA H100 80GB HBM3\n  1 run,") != std::string::npos);

    const std::string json = outputs::history_json(*runs);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
    CHECK(number_at(doc, "/stacks/0/per_unit/1M_tokens/local_mean") == Approx((0.011849151 + 2.583710 / 157.2864) / 2));
    CHECK(number_at(doc, "/stacks/1/runs") == 1);
    CHECK(number_at(doc, "/runs/0/local_per_1m_tokens") == Approx(0.011849151));
    const std::string csv = outputs::history_csv(*runs);
    CHECK(csv.find(",busy_share,busy_source,local_per_step,cloud_per_step,") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

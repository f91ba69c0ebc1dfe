// breakeven findings: each trigger at and around its threshold, and each saving against a
// hand-computed case. The job is the reference case of docs/cost-model.md (W = 2 h, two GPUs,
// ū = 0.75), whose time cost (electricity + amortisation + routine maintenance) is
//   T = 0.396 + 6000 / 6132 + 1000 / 2044 = 0.396 + 0.978474 + 0.489237 = 1.863710.
#include <catch2/catch.hpp>

#include "reference_case.hpp"

#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/findings.hpp>
#include <gpucost/report/findings_report.hpp>

#include <set>
#include <string>

namespace {

using namespace gpucost;
using breakeven::CostConfig;
using breakeven::Finding;
using breakeven::JobInputs;
using gpucost::testing::reference_job;

constexpr double kTimeCost = 0.396 + 6000.0 / 6132.0 + 1000.0 / 2044.0;  // 1.863710

CostConfig reference_config(double rate = 2.0) {
  CostConfig c = testing::reference_config();
  c.rate_per_hour = rate;
  return c;
}

/// Features whose host carries exactly the given indicators (null when the value is NaN).
extract::Features features(std::initializer_list<std::pair<const char*, double>> host) {
  extract::Features f;
  f.from_ns = 0;
  f.to_ns = 7200LL * 1'000'000'000;
  for (const auto& [key, v] : host) {
    if (std::isnan(v))
      f.host_indicators[key] = extract::IndicatorValue{std::nullopt, "not measured"};
    else
      f.host_indicators[key] = extract::IndicatorValue{v, {}};
  }
  return f;
}

/// A fault of one event on its own GPU (as extract groups them).
extract::WindowFault fault(std::int64_t ts, const char* kind, const char* bucket, int code) {
  extract::WindowFault w;
  w.ts_ns = w.last_ts_ns = ts;
  w.device = "GPU" + std::to_string(ts);
  w.bucket = bucket;
  w.members = {{kind, code, 1}};
  w.count = 1;
  return w;
}

std::vector<Finding> run(const extract::Features& f, const CostConfig& c = reference_config(),
                         JobInputs j = reference_job(), const std::optional<breakeven::OfferQuote>& offer = {}) {
  j.incidents = f.incidents;
  j.faults = f.faults;
  const auto r = breakeven::compute(c, j);
  return breakeven::findings(r, c, f, offer);
}

const Finding* find(const std::vector<Finding>& all, const std::string& kind) {
  for (const auto& f : all)
    if (f.kind == kind) return &f;
  return nullptr;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("findings: every kind has one threshold row", "[breakeven][findings]") {
  std::set<std::string> kinds;
  for (const auto& t : breakeven::finding_thresholds()) {
    CHECK(kinds.insert(std::string(t.kind)).second);
    CHECK_FALSE(t.meaning.empty());
  }
  for (const char* k : {"idle_share", "throttling", "launch_delay_tail", "incidents_restart_app", "incidents_reset_gpu",
                        "incidents_reboot", "incidents_contact_support", "incidents_gpu_lost", "incidents_other",
                        "interruptions", "cloud_offer", "job_length", "use_per_year"})
    CHECK(kinds.count(k) == 1);
  CHECK(breakeven::threshold_of("idle_share").value == 0.10);
  CHECK(breakeven::threshold_of("throttling").value == 0.10);
  CHECK(breakeven::threshold_of("throttling").id == "F078");
  CHECK(breakeven::threshold_of("launch_delay_tail").value == 0.01);
}

TEST_CASE("findings: time cost is C_L without the incidents", "[breakeven][findings]") {
  const auto r = breakeven::compute(reference_config(), reference_job());
  CHECK(breakeven::time_cost(r) == Approx(kTimeCost));
  CHECK(breakeven::time_cost(r) == Approx(1.863710));
}

TEST_CASE("findings: nothing fires on the reference case without indicators", "[breakeven][findings]") {
  // Rate 2.0/h: premium -41 %, no T* (local cheaper at every length), H* = 1082.8 h < 2044 h/y.
  CHECK(run(features({})).empty());
  // Indicators below their thresholds fire nothing either.
  CHECK(run(features({{"idle_fraction", 0.0999},
                      {"throttle_work_lost_fraction", 0.0999},
                      {"sm_clock_ratio", 0.5},
                      {"launch_delay_over_10ms_fraction", 0.0099},
                      {"kernels", 1000},
                      {"gpu_busy_s", 8},
                      {"gpu_idle_fraction_trace", 0.2},
                      {"xid_count", 0},
                      {"xid_restart_app_count", 0},
                      {"xid_reset_gpu_count", 0},
                      {"xid_reboot_count", 0},
                      {"xid_contact_support_count", 0},
                      {"gpu_lost_count", 0},
                      {"suspend_count", 0},
                      {"lid_close_count", 0},
                      {"ac_offline_count", 0},
                      {"downtime_s", 0}}))
            .empty());
}

TEST_CASE("findings: idle share, local cost of the idle time", "[breakeven][findings]") {
  // 0.42 x 1.863710 = 0.782758
  const auto all = run(features({{"idle_fraction", 0.42}, {"util_mean", 0.75}}));
  const Finding* f = find(all, "idle_share");
  REQUIRE(f != nullptr);
  CHECK(f->saving == Approx(0.42 * kTimeCost));
  CHECK(f->saving == Approx(0.782758).epsilon(1e-5));
  CHECK(f->trigger == "F009 idle_fraction >= 0.1");
  REQUIRE(f->evidence.size() >= 2);
  CHECK(f->evidence[0].id == "F009");
  CHECK(f->evidence[0].value == 0.42);
  CHECK(f->evidence[1].id == "F008");
  CHECK(f->suggestion.find("num_workers") != std::string::npos);
  // At exactly the threshold it fires (>=); just below, or absent, it does not.
  CHECK(find(run(features({{"idle_fraction", 0.10}})), "idle_share") != nullptr);
  CHECK(find(run(features({{"idle_fraction", 0.0999}})), "idle_share") == nullptr);
  CHECK(find(run(features({{"idle_fraction", kNaN}})), "idle_share") == nullptr);
}

TEST_CASE("findings: throttling, work lost (F078) x busy cost", "[breakeven][findings]") {
  // 0.2 x ū 0.75 x 1.863710 = 0.279557
  const auto all = run(features(
      {{"throttle_work_lost_fraction", 0.2}, {"sm_clock_ratio", 0.6}, {"time_above_78c_s", 120}, {"temp_max_c", 86}}));
  const Finding* f = find(all, "throttling");
  REQUIRE(f != nullptr);
  CHECK(f->saving == Approx(0.2 * 0.75 * kTimeCost));
  CHECK(f->saving == Approx(0.279557).epsilon(1e-5));
  CHECK(f->trigger == "F078 throttle_work_lost_fraction >= 0.1");
  CHECK(f->suggestion.find("Cooling first") != std::string::npos);  // 120 s above 78 °C
  CHECK(f->suggestion.find("power limit") != std::string::npos);
  // No heat: the power limit comes first.
  const auto cool = run(features({{"throttle_work_lost_fraction", 0.1}, {"time_above_78c_s", 0}}));
  REQUIRE(find(cool, "throttling") != nullptr);
  CHECK(find(cool, "throttling")->saving == Approx(0.1 * 0.75 * kTimeCost));
  CHECK(find(cool, "throttling")->suggestion.find("Cooling first") == std::string::npos);
  CHECK(find(run(features({{"throttle_work_lost_fraction", 0.0999}})), "throttling") == nullptr);
  CHECK(find(run(features({{"throttle_work_lost_fraction", kNaN}})), "throttling") == nullptr);
  // An idle GPU clocks down: a low SM clock ratio alone (F013) is no throttling.
  CHECK(find(run(features({{"sm_clock_ratio", 0.4}, {"throttle_work_lost_fraction", 0.01}})), "throttling") == nullptr);
  CHECK(find(run(features({{"sm_clock_ratio", 0.4}})), "throttling") == nullptr);
}

TEST_CASE("findings: launch-delay long tail, GPU time lost to delays over 10 ms", "[breakeven][findings]") {
  // 2 % of 5000 kernels = 100 delays x 10 ms = 1 s; span = 8 s busy / (1 - 0.2) = 10 s;
  // share = min(0.2, 1 / 10) = 0.1 -> 0.1 x 1.863710 = 0.186371
  const auto all = run(features({{"launch_delay_over_10ms_fraction", 0.02},
                                 {"kernels", 5000},
                                 {"gpu_busy_s", 8},
                                 {"gpu_idle_fraction_trace", 0.2},
                                 {"launch_delay_p99_us", 25000}}));
  const Finding* f = find(all, "launch_delay_tail");
  REQUIRE(f != nullptr);
  CHECK(f->saving == Approx(0.1 * kTimeCost));
  CHECK(f->suggestion.find("reduce-overhead") != std::string::npos);
  bool has_p99 = false;
  for (const auto& e : f->evidence) has_p99 |= e.id == "F034" && e.value == 25000;
  CHECK(has_p99);
  SECTION("the lost share is capped by the trace's idle share") {
    // 20000 kernels: 400 x 10 ms = 4 s of a 10 s span = 0.4 > idle 0.2 -> 0.2 x T
    const auto capped = run(features({{"launch_delay_over_10ms_fraction", 0.02},
                                      {"kernels", 20000},
                                      {"gpu_busy_s", 8},
                                      {"gpu_idle_fraction_trace", 0.2}}));
    REQUIRE(find(capped, "launch_delay_tail") != nullptr);
    CHECK(find(capped, "launch_delay_tail")->saving == Approx(0.2 * kTimeCost));
  }
  SECTION("below 1 % or without the trace's idle share: none") {
    CHECK(find(run(features({{"launch_delay_over_10ms_fraction", 0.0099},
                             {"kernels", 5000},
                             {"gpu_busy_s", 8},
                             {"gpu_idle_fraction_trace", 0.2}})),
               "launch_delay_tail") == nullptr);
    CHECK(find(run(features({{"launch_delay_over_10ms_fraction", 0.02},
                             {"kernels", 5000},
                             {"gpu_busy_s", 8},
                             {"gpu_idle_fraction_trace", kNaN}})),
               "launch_delay_tail") == nullptr);
  }
}

TEST_CASE("findings: incidents per Xid bucket, their operator time", "[breakeven][findings]") {
  auto f = features({{"xid_count", 4},
                     {"xid_restart_app_count", 0},
                     {"xid_reset_gpu_count", 2},
                     {"xid_reboot_count", 0},
                     {"xid_contact_support_count", 0},
                     {"gpu_lost_count", 1}});
  // Four faults (an Xid of bucket ignore alone is none): the findings price each once.
  f.faults = {fault(1, "xid", "reset_gpu", 79), fault(2, "xid", "reset_gpu", 79), fault(3, "gpu_lost", "reboot", -1),
              fault(4, "xid", "unknown", 999)};
  const auto all = run(f);
  // reset_gpu: 2 x 50/h x 0.5 h = 50; gpu_lost: 50 x 1.0 = 50; unknown: 50 x 0.5 = 25. C_L = 1.863710
  // + 125 = 126.863710 against C_C = 3.166667: above the line, the job is paid with the cloud's
  // 3.166667, and no saving exceeds it.
  constexpr double kPaid = 19.0 / 6;
  REQUIRE(find(all, "incidents_reset_gpu") != nullptr);
  CHECK(find(all, "incidents_reset_gpu")->saving == Approx(kPaid));
  CHECK(find(all, "incidents_reset_gpu")->title == "2 faults that needed a GPU reset (Xid 79; 2 events)");
  REQUIRE(find(all, "incidents_gpu_lost") != nullptr);
  CHECK(find(all, "incidents_gpu_lost")->saving == Approx(kPaid));
  CHECK(find(all, "incidents_gpu_lost")->title == "1 fault with a GPU fallen off the bus (1 event)");
  CHECK(find(all, "incidents_gpu_lost")->saving_basis ==
        "operator time of the 1 listed fault, once each: 50.00 USD; capped at what this job is paid with (cloud "
        "total 3.17)");
  CHECK(find(all, "incidents_gpu_lost")->suggestion.find("reseat") != std::string::npos);
  REQUIRE(find(all, "incidents_other") != nullptr);
  CHECK(find(all, "incidents_other")->saving == Approx(kPaid));
  CHECK(find(all, "incidents_restart_app") == nullptr);  // count 0
  CHECK(find(all, "incidents_contact_support") == nullptr);
  // Ranked by saving; equal savings keep the table's order (reset_gpu before gpu_lost). job_length
  // (a difference of the totals, not capped) ranks first.
  REQUIRE(all.size() == 4);
  CHECK(all[0].kind == "job_length");
  CHECK(all[0].saving == Approx(126.863710 - 3.166667).epsilon(1e-6));
  CHECK(all[1].kind == "incidents_reset_gpu");
  CHECK(all[2].kind == "incidents_gpu_lost");
  CHECK(all[3].kind == "incidents_other");
  SECTION("below the line the cap is the local total") {
    // The cloud at 200/h: C_C = 200 x 4800 / 3600 + 0.5 = 267.17 > C_L = 126.86 (premium -52.5 %).
    const auto below = run(f, reference_config(200.0));
    REQUIRE(find(below, "incidents_reset_gpu") != nullptr);
    CHECK(find(below, "incidents_reset_gpu")->saving == Approx(50.0));
  }
  SECTION("without a kernel log the counts are null: no incident finding") {
    auto none = features({{"xid_reset_gpu_count", kNaN}, {"gpu_lost_count", kNaN}});
    for (const auto& x : run(none)) CHECK(x.kind.rfind("incidents_", 0) != 0);
  }
  SECTION("a contact_support Xid costs 8 operator hours") {
    auto hw = features({{"xid_count", 1}, {"xid_contact_support_count", 1}});
    hw.faults = {fault(1, "xid", "contact_support", 48)};
    const auto x = run(hw);
    REQUIRE(find(x, "incidents_contact_support") != nullptr);
    // 50 x 8 = 400, above the line: capped at the cloud total the job is paid with.
    CHECK(find(x, "incidents_contact_support")->saving == Approx(kPaid));
    CHECK(find(x, "incidents_contact_support")->suggestion.find("dcgmi diag") != std::string::npos);
  }
}

TEST_CASE("findings: interruptions, local cost of their downtime", "[breakeven][findings]") {
  constexpr std::int64_t s = 1'000'000'000;
  auto f = features({{"suspend_count", 1}, {"lid_close_count", 1}, {"ac_offline_count", 1}, {"downtime_s", 1000}});
  // suspend at 1000 s down 600 s, AC lost at 1300 s down 600 s: union 1000..1900 = 900 s.
  // The reset at 5000 s (100 s down) is an incident, not an interruption.
  f.incidents = {{1000 * s, "suspend", "", -1, 600.0},
                 {1300 * s, "ac_offline", "", -1, 600.0},
                 {5000 * s, "xid", "reset_gpu", 79, 100.0}};
  const auto all = run(f);
  const Finding* x = find(all, "interruptions");
  REQUIRE(x != nullptr);
  // 900 s / 7200 s x 1.863710 = 0.232964
  CHECK(x->saving == Approx(900.0 / 7200.0 * kTimeCost));
  CHECK(x->saving == Approx(0.232964).epsilon(1e-5));
  CHECK(x->suggestion.find("HandleLidSwitch") != std::string::npos);
  // Without downtime_s (no utilisation samples) the finding is not emitted.
  CHECK(find(run(features({{"suspend_count", 1}, {"downtime_s", kNaN}})), "interruptions") == nullptr);
  CHECK(find(run(features({{"suspend_count", 0}, {"lid_close_count", 0}, {"downtime_s", 0}})), "interruptions") ==
        nullptr);
}

TEST_CASE("findings: a cheaper cloud offer, configured cloud total minus the cheapest offer", "[breakeven][findings]") {
  // At 2.0/h the premium is -41 %: the user runs locally and pays C_L = 1.863710. An offer at
  // 1.0 saves 1.863710 - 1.0 = 0.863710 against that (not against the unused cloud's 3.166667);
  // one at 3.5 saves nothing.
  const auto all = run(features({}), reference_config(), reference_job(),
                       breakeven::OfferQuote{"cheap-2x", 1.0, 2.0, "config", "A100", "", std::nullopt, true});
  const Finding* f = find(all, "cloud_offer");
  REQUIRE(f != nullptr);
  CHECK(f->saving == Approx(1.863710 - 1.0).epsilon(1e-5));
  CHECK(f->saving_basis.find("local total") != std::string::npos);
  CHECK(f->title.find("cheap-2x") != std::string::npos);
  CHECK(find(run(features({}), reference_config(), reference_job(),
                 breakeven::OfferQuote{"dear", 3.5, 2.0, "config", "A100", "", std::nullopt, true}),
             "cloud_offer") == nullptr);
}

TEST_CASE("findings: cheapest offer prices the catalogue in the config's currency only", "[breakeven][findings]") {
  CostConfig c = reference_config();
  const auto prices = breakeven::price_energy(c, reference_job());
  const auto usd = breakeven::cheapest_offer(c, reference_job(), prices);
  REQUIRE(usd);  // the catalogue has USD offers for two GPUs
  CHECK(usd->total > 0);
  c.currency = "EUR";
  CHECK_FALSE(breakeven::cheapest_offer(c, reference_job(), prices));
  c.exchange["USD"] = 0.5;  // with a rate every USD offer is priced at half the figure in EUR
  const auto eur = breakeven::cheapest_offer(c, reference_job(), prices);
  REQUIRE(eur);
  CHECK(eur->name == usd->name);
}

TEST_CASE("findings: job length and use per year at 0.5/h (worked example)", "[breakeven][findings]") {
  // docs/cost-model.md at 0.5/h: C_L 1.863710, C_C 1.166667, T* = 0.876388 h, H* = 3892.73 h/y.
  const auto all = run(features({}), reference_config(0.5));
  const Finding* len = find(all, "job_length");
  REQUIRE(len != nullptr);
  CHECK(len->saving == Approx(1.863710 - 1.166667).epsilon(1e-5));  // 0.697044
  CHECK(len->evidence[0].key == "breakeven.job_hours");
  CHECK(len->evidence[0].value == Approx(0.876388).epsilon(1e-5));
  // Per-minute billing: local is cheaper again from 0.88 h (minute 38 ends) to 0.885331 h. A job
  // length under 2 h reads in minutes, as in the table (docs/outputs.md, "Units").
  CHECK(len->title == "Rent jobs of this kind longer than 52.6 min: this 2.00 h job costs less in the cloud");
  CHECK(len->suggestion.find("paid back after 52.6 min") != std::string::npos);
  CHECK(len->suggestion.find("Between 52.6 min and 53.1 min the answer flips 2 times as the cloud's bill rounds up "
                             "to whole increments (local is cheaper just after each step); beyond 53.1 min the cloud "
                             "is cheaper for good.") != std::string::npos);
  const Finding* use = find(all, "use_per_year");
  REQUIRE(use != nullptr);
  // W x F x (1/U - 1/H*) = 2 x 1500 x (1/2044 - 1/3892.73) = 0.697044: at H* the premium is 0.
  CHECK(use->saving == Approx(2 * 1500 * (1.0 / 2044 - 1.0 / 3892.7336)).epsilon(1e-5));
  CHECK(use->saving == Approx(0.697044).epsilon(1e-5));
  SECTION("H* beyond a year: no use-per-year finding") {
    // 0.1/h: C_C = 0.1 x 4800 / 3600 + 0.5 = 0.633333, r = 0.316667, H* = 1500 / 0.118667 = 12640 h > 8760
    CHECK(find(run(features({}), reference_config(0.1)), "use_per_year") == nullptr);
  }
  SECTION("local cheaper at every length: no job-length finding") {
    CHECK(find(run(features({}), reference_config(2.0)), "job_length") == nullptr);
  }
}

TEST_CASE("findings: evidence with an id is the features' host value", "[breakeven][findings]") {
  auto f = features({{"idle_fraction", 0.3},
                     {"util_mean", 0.7},
                     {"sm_clock_ratio", 0.7},
                     {"time_above_78c_s", 10},
                     {"temp_max_c", 84},
                     {"launch_delay_over_10ms_fraction", 0.05},
                     {"kernels", 100},
                     {"gpu_busy_s", 5},
                     {"gpu_idle_fraction_trace", 0.5},
                     {"xid_count", 1},
                     {"xid_restart_app_count", 1},
                     {"suspend_count", 1},
                     {"downtime_s", 60}});
  f.faults = {fault(1, "xid", "restart_app", 13)};
  f.incidents = {{2, "suspend", "", -1, 50.0}};
  const auto all = run(f);
  REQUIRE(all.size() >= 5);
  for (const auto& x : all) {
    INFO(x.kind);
    CHECK(x.saving >= 0);
    for (const auto& e : x.evidence) {
      if (e.id.empty() || e.id.find('+') != std::string::npos) continue;
      const auto it = f.host_indicators.find(e.key);
      REQUIRE(it != f.host_indicators.end());
      REQUIRE(it->second.value);
      CHECK(*it->second.value == e.value);
    }
  }
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(all[i - 1].saving >= all[i].saving);
}

TEST_CASE("findings: Markdown note and table section", "[breakeven][findings]") {
  const CostConfig c = reference_config(0.5);
  const auto r = breakeven::compute(c, reference_job());
  const auto f = features({{"idle_fraction", 0.42}});
  const auto all = breakeven::findings(r, c, f, std::nullopt);
  const std::string md = report::findings_markdown(r, c, f, &all);
  CHECK(md.rfind("# gpucost findings", 0) == 0);
  CHECK(md.find("## 1. GPUs idle 42.0 % of the time") != std::string::npos);
  CHECK(md.find("- `F009 idle_fraction` = 0.42") != std::string::npos);
  // Above the line (premium +59.7 % at 0.5/h) with no findings computed: the note says why, in the verdict's words.
  CHECK(report::findings_markdown(r, c, f, nullptr).find("No findings: the premium is above the line") !=
        std::string::npos);
  const std::string table = report::findings_table(all, c.currency);
  CHECK(table.find(" 1. GPUs idle 42.0 % of the time\n      saving      ~0.78 USD (idle_fraction 0.4200") !=
        std::string::npos);
  for (std::size_t at = 0, next = 0; at < table.size(); at = next + 1) {
    next = table.find('\n', at);
    if (next == std::string::npos) break;
    CHECK(next - at <= 100);  // wrapped
  }
  CHECK(report::findings_table({}, "USD").find("none") != std::string::npos);
}

TEST_CASE("findings: no advice to rent against an offer that cannot run the job", "[breakeven][findings][verdict]") {
  // At 0.5/h the cloud is cheaper (the worked example): job_length fires, unless the offer is unfit.
  const CostConfig c = reference_config(0.5);
  const JobInputs j = reference_job();
  auto r = breakeven::compute(c, j);
  REQUIRE(find(breakeven::findings(r, c, features({}), {}), "job_length") != nullptr);
  breakeven::decide_verdict(r, breakeven::premium_range(c, j, breakeven::price_energy(c, j)), "80 GB per GPU");
  CHECK(r.unfit);
  CHECK_FALSE(r.above_line);
  const auto all = breakeven::findings(r, c, features({}), {});
  CHECK(find(all, "job_length") == nullptr);
  CHECK(find(all, "use_per_year") == nullptr);
}

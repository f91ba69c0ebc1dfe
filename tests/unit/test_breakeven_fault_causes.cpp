// Who caused a fault (docs/cost-model.md, "Who caused a fault"): NVIDIA's possible causes of each
// Xid (data/nvidia-xid-causes.tsv), the cause of an Xid event and of a fault, and where
// local.faults prices a fault the application caused. Every figure computed by hand.
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/core/event.hpp>
#include <gpucost/core/fault_cause.hpp>

#include "extract/faults.hpp"
#include "prep/kernel/kernel_events.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace gpucost;
using extract::WindowFault;
using extract::detail::FaultBuilder;
using extract::detail::FaultEvent;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;

FaultCause cause_of(int code) {
  const prep::XidInfo* x = prep::find_xid(code);
  REQUIRE(x != nullptr);
  return xid_cause(x->causes, xid_bucket_from_name(x->bucket));
}

FaultEvent member(std::int64_t t_s, std::string_view kind, std::string_view bucket, int code, FaultCause cause) {
  return FaultEvent{t_s * kSec, "0000:38:00", kind,  extract::fault_bucket(kind, bucket),
                    code,       std::nullopt, false, extract::fault_member_cause(kind, cause)};
}

std::vector<WindowFault> group(const std::vector<FaultEvent>& events) {
  FaultBuilder b(60);
  for (const FaultEvent& e : events) b.add(e);
  return b.finish();
}

std::string field(const Event& ev, std::string_view key) {
  for (const Field& f : ev.fields)
    if (f.key == key) return std::string(f.value);
  return {};
}

/// A 30-minute job whose local cost without faults is 1.00 and whose cloud cost is 2.00:
/// amortisation 8000 / (1 y x 4000 h/y) = 2 per hour x 0.5 h = 1.00, no electricity (price 0),
/// no routine maintenance; the cloud 4 per hour x 0.5 h (busy throughout, speed 1, per second).
/// Without faults: premium 1.00 / 2.00 - 1 = -50 %, T* none (local 2 per hour < cloud 4),
/// H* = 8000 / (4 - 0) = 2000 h/year.
breakeven::CostConfig config() {
  breakeven::CostConfig c;
  c.price_per_kwh = 0;
  c.hardware_price = 8000;
  c.residual_fraction = 0;
  c.lifetime_years = 1;
  c.use_hours_per_year = 4000;
  c.hourly_wage = 75;
  c.maintenance_hours_per_year = 0;
  c.incident_restart_app_h = 0.1;  // 7.50 per restart
  c.incident_reset_gpu_h = 0.5;    // 37.50 per GPU reset
  c.rate_per_hour = 4;
  c.speed_ratio = 1;
  c.billing_increment_s = 1;
  c.line = 0.12;
  return c;
}

breakeven::JobInputs job(std::vector<WindowFault> faults) {
  breakeven::JobInputs j;
  j.wall_h = 0.5;
  j.energy_kwh = {0.2};
  j.util = {1.0};
  j.faults = std::move(faults);
  return j;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("fault causes: NVIDIA's causes and the bucket place each Xid", "[breakeven][fault-causes]") {
  // Caused by the application and resolved by restarting it (or needing nothing more).
  CHECK(cause_of(13) == FaultCause::application);  // all seven causes, RESTART_APP
  CHECK(cause_of(31) == FaultCause::application);  // hardware, driver, user app; RESTART_APP
  CHECK(cause_of(43) == FaultCause::application);  // driver, user app; IGNORE
  // The bucket is not the cause: a contained ECC error is RESTART_APP yet a memory fault.
  CHECK(cause_of(94) == FaultCause::hardware);
  // Needs a reset, a reboot or service: hardware whatever else may cause it.
  for (int code : {48, 64, 74, 79, 95, 119}) CHECK(cause_of(code) == FaultCause::hardware);
  // Hardware (and driver) causes only, whatever the bucket.
  CHECK(cause_of(63) == FaultCause::hardware);
  CHECK(cause_of(92) == FaultCause::hardware);
  CHECK(cause_of(45) == FaultCause::hardware);  // driver error only (an ignore member: decides nothing)
  // No cause published: 137's marks could not be placed, 154 and later postdate the table.
  CHECK(prep::find_xid(137)->causes.empty());
  CHECK(prep::find_xid(160)->causes.empty());
  CHECK(cause_of(154) == FaultCause::unknown);
}

TEST_CASE("fault causes: the compiled table equals data/nvidia-xid-causes.tsv", "[kernel][xid-table]") {
  const std::string tsv = read_text(std::string(GPUCOST_SOURCE_DIR) + "/data/nvidia-xid-causes.tsv");
  REQUIRE_FALSE(tsv.empty());
  std::istringstream lines(tsv);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("code\t", 0) == 0) continue;
    INFO("TSV row: " << line << "  (regenerate with: python3 tools/gen_xid_table.py)");
    const std::size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    REQUIRE(tab2 != std::string::npos);
    const prep::XidInfo* x = prep::find_xid(std::stoi(line.substr(0, tab1)));
    REQUIRE(x != nullptr);
    CHECK(std::string(x->causes) == line.substr(tab1 + 1, tab2 - tab1 - 1));
    ++rows;
  }
  CHECK(rows == 143);  // codes 1-143 of NVIDIA's listing
  std::size_t with_causes = 0;
  for (const auto& x : prep::xid_catalog())
    if (!x.causes.empty()) ++with_causes;
  CHECK(with_causes <= rows);
}

TEST_CASE("fault causes: an Xid event carries its cause", "[kernel][fault-causes]") {
  Event ev;
  REQUIRE(prep::classify_message("kernel",
                                 "NVRM: Xid (PCI:0000:32:00): 31, pid=4242, name=python3, Ch 00000010, intr 00000000. "
                                 "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2a_1c000000. Fault is of "
                                 "type FAULT_PDE ACCESS_TYPE_VIRT_READ",
                                 ev));
  CHECK(field(ev, "bucket") == "restart_app");
  CHECK(field(ev, "cause") == "application");
  Event ecc;
  REQUIRE(prep::classify_message(
      "kernel", "NVRM: Xid (PCI:0000:01:00): 94, pid=7194, name=python3, Contained: SM (0x1). RST: No, D-RST: No",
      ecc));
  CHECK(field(ecc, "bucket") == "restart_app");
  CHECK(field(ecc, "cause") == "hardware");
  Event odd;
  REQUIRE(prep::classify_message("kernel", "NVRM: Xid (PCI:0000:01:00): 999, something new", odd));
  CHECK(field(odd, "cause") == "unknown");
}

TEST_CASE("fault causes: a fault is the highest cause of its members that need an action", "[extract][fault-causes]") {
  const auto app = FaultCause::application, hw = FaultCause::hardware, unk = FaultCause::unknown;
  // Xid 13 then the driver's Xid 45 (ignore, driver error) tearing the application down: the
  // application's fault.
  auto f = group({member(0, "xid", "restart_app", 13, app), member(1, "xid", "ignore", 45, hw)});
  REQUIRE(f.size() == 1);
  CHECK(f[0].cause == "application");
  // An Xid 48 in the same fault: hardware (the application was its victim).
  f = group({member(0, "xid", "restart_app", 13, app), member(2, "xid", "reset_gpu", 48, hw)});
  REQUIRE(f.size() == 1);
  CHECK(f[0].cause == "hardware");
  CHECK(f[0].bucket == "reset_gpu");
  // A GPU off the bus is hardware, whatever the Xid beside it.
  f = group({member(0, "xid", "restart_app", 13, app), member(1, "gpu_lost", "", -1, unk)});
  REQUIRE(f.size() == 1);
  CHECK(f[0].cause == "hardware");
  // A member nobody can place makes the fault unknown (an event stream without causes).
  f = group({member(0, "xid", "restart_app", 13, app), member(1, "xid", "restart_app", 31, unk)});
  CHECK(f[0].cause == "unknown");
  // Regrouping joins causes the same way.
  auto two = group({member(0, "xid", "restart_app", 13, app), member(100, "xid", "reset_gpu", 48, hw)});
  REQUIRE(two.size() == 2);
  const auto joined = extract::regroup_faults(two, 200);
  REQUIRE(joined.size() == 1);
  CHECK(joined[0].cause == "hardware");
}

TEST_CASE("fault causes: local.faults prices an application fault on both sides, neither or the local one",
          "[breakeven][fault-causes]") {
  const auto app_fault = group({member(0, "xid", "restart_app", 31, FaultCause::application)});
  auto c = config();

  SECTION("both-sides (default): 7.50 in both totals, out of the comparison") {
    const auto r = breakeven::compute(c, job(app_fault));
    CHECK(r.fault_rule == breakeven::FaultRule::both_sides);
    CHECK(r.local_total == Approx(8.50));  // 1.00 + 7.50
    CHECK(r.cloud_total == Approx(9.50));  // 2.00 + 7.50
    CHECK(r.cloud_fault_cost == Approx(7.50));
    CHECK(r.application_faults == 1);
    CHECK(r.application_fault_cost == Approx(7.50));
    CHECK(r.hardware_fault_cost == 0);
    CHECK(r.incidents[0].priced_on == "both");
    CHECK(r.premium == Approx(-0.50));  // (8.50 - 7.50) / (9.50 - 7.50) - 1
    CHECK_FALSE(r.above_line);
    CHECK_FALSE(r.job_hours.value);  // local 2 per hour against the cloud's 4: cheaper at any length
    REQUIRE(r.use_hours_per_year.value);
    CHECK(*r.use_hours_per_year.value == Approx(2000));  // 8000 / (4 - 0)
  }
  SECTION("hardware-only: on neither side") {
    c.faults = "hardware-only";
    const auto r = breakeven::compute(c, job(app_fault));
    CHECK(r.local_total == Approx(1.00));
    CHECK(r.cloud_total == Approx(2.00));
    CHECK(r.incidents[0].priced_on == "neither");
    CHECK(r.incidents[0].cost == 0);
    CHECK(r.premium == Approx(-0.50));
  }
  SECTION("all-local: the old rule, the restart on the owner alone") {
    c.faults = "all-local";
    const auto r = breakeven::compute(c, job(app_fault));
    CHECK(r.local_total == Approx(8.50));
    CHECK(r.cloud_total == Approx(2.00));
    CHECK(r.premium == Approx(3.25));  // 8.50 / 2.00 - 1
    CHECK(r.above_line);
    // 7.50 / 0.5 h = 15 per job hour of labour alone beats the cloud's 4: no use breaks even.
    CHECK_FALSE(r.use_hours_per_year.value);
    CHECK(r.use_hours_per_year.reason.find("incident labour 15.00") != std::string::npos);
  }
  SECTION("a hardware fault stays on the local side under every rule") {
    const auto hw_fault = group({member(0, "xid", "reset_gpu", 48, FaultCause::hardware)});
    for (const char* rule : {"both-sides", "hardware-only", "all-local"}) {
      c.faults = rule;
      const auto r = breakeven::compute(c, job(hw_fault));
      CHECK(r.local_total == Approx(38.50));  // 1.00 + 0.5 h x 75
      CHECK(r.cloud_total == Approx(2.00));
      CHECK(r.hardware_fault_cost == Approx(37.50));
      CHECK(r.incidents[0].priced_on == "local");
      CHECK(r.premium == Approx(18.25));  // 38.50 / 2.00 - 1
    }
  }
}

TEST_CASE("fault causes: a window the faults bound gives no fault cost per job hour", "[breakeven][fault-causes]") {
  const auto c = config();
  auto j = job(group({member(0, "xid", "reset_gpu", 48, FaultCause::hardware)}));
  // From telemetry: 37.50 over 0.5 h is 75 per job hour, beyond the cloud's 4: no H*.
  const auto measured = breakeven::compute(c, j);
  CHECK_FALSE(measured.use_hours_per_year.value);
  // From a kernel log alone the same fault prices this window (premium +1825 %) but gives T*
  // and H* no rate: H* = 8000 / (4 - 0) = 2000 h/year as without it, T* none.
  j.window_from_faults = true;
  const auto events = breakeven::compute(c, j);
  CHECK(events.premium == Approx(18.25));
  CHECK_FALSE(events.job_hours.value);
  REQUIRE(events.use_hours_per_year.value);
  CHECK(*events.use_hours_per_year.value == Approx(2000));
}

TEST_CASE("fault causes: local.faults in the config and its values", "[breakeven][fault-causes]") {
  CHECK(breakeven::fault_rule_of("hardware-only") == breakeven::FaultRule::hardware_only);
  CHECK(breakeven::fault_rule_of("all-local") == breakeven::FaultRule::all_local);
  CHECK(breakeven::fault_rule_name(breakeven::FaultRule::both_sides) == "both-sides");
  CHECK(breakeven::CostConfig{}.faults == "both-sides");
}

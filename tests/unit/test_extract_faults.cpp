// extract: faults (docs/cost-model.md, "Faults"; F094, F097, F098, F105, F107, F108): the Xid, GPU-lost and fatal AER
// events of one GPU within the fault window of the previous one, priced once at the most severe
// member's bucket, downtime the union of the members'. Every case computed by hand.
#include <gpucost/breakeven/config.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/core/xid_bucket.hpp>
#include <gpucost/extract/catalogue.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/prep/prep.hpp>

#include "extract/faults.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

using namespace gpucost;
using extract::WindowFault;
using extract::detail::FaultBuilder;
using extract::detail::FaultEvent;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;

/// A member at t_s of `device`, of an Xid bucket (kind xid) or gpu_lost/aer; downtime until
/// end_s when given.
FaultEvent member(std::int64_t t_s, std::string_view device, std::string_view kind, std::string_view bucket, int code,
                  std::optional<std::int64_t> end_s = std::nullopt) {
  FaultEvent e{t_s * kSec, device,       kind,  extract::fault_bucket(kind, bucket),
               code,       std::nullopt, false, FaultCause::unknown};
  if (end_s) e.downtime_end_ns = *end_s * kSec;
  return e;
}

std::vector<WindowFault> group(const std::vector<FaultEvent>& events, double window_s = 60) {
  FaultBuilder b(window_s);
  for (const FaultEvent& e : events) b.add(e);
  return b.finish();
}

Event sample(std::int64_t t_s, double util) {
  Event ev;
  ev.ts_ns = t_s * kSec;
  ev.kind = "sample";
  ev.gpu = 0;
  ev.set(Metric::power_w, 100);
  ev.set(Metric::sm_pct, util);
  return ev;
}

void xid(extract::SampleCollector& c, std::int64_t t_s, int code, const char* bucket, const char* pci) {
  Event ev;
  ev.ts_ns = t_s * kSec;
  ev.kind = "xid";
  ev.add_number("code", code);
  ev.add_text("bucket", bucket);
  ev.add_text("pci", pci);
  c.on_event(ev);
}

void gpu_lost(extract::SampleCollector& c, std::int64_t t_s, const char* pci) {
  Event ev;
  ev.ts_ns = t_s * kSec;
  ev.kind = "gpu_lost";
  ev.add_text("cause", "fallen_off_bus");
  ev.add_text("pci", pci);
  c.on_event(ev);
}

/// Extract over one real capture of the corpus (read in place), or nothing when it is absent.
std::optional<extract::Features> corpus_features(const std::string& relative) {
  const std::filesystem::path path = std::filesystem::path(GPUCOST_CORPUS_DIR) / "logs" / relative;
  if (!std::filesystem::is_regular_file(path)) {
    WARN("corpus file " << path.string() << " not found: skipped");
    return std::nullopt;
  }
  auto reader = io::LineReader::open(path.string());
  REQUIRE(reader);
  auto clock = LocalClock::make("UTC");
  REQUIRE(clock);
  extract::SampleCollector c;
  InputStats stats;
  stats.path = path.string();
  REQUIRE(prep::run_prep_input(**reader, prep::PrepOptions{}, *clock, c, stats));
  c.note_inputs({stats});
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  return std::move(*f);
}

double host(const extract::Features& f, const std::string& key) {
  const auto& v = f.host_indicators.at(key);
  REQUIRE(v.value.has_value());
  return *v.value;
}

}  // namespace

TEST_CASE("faults: members each within the window of the previous one, the boundary is inside", "[extract][faults]") {
  // 0, 60 (gap 60 = the window: joins), 120 (gap 60: joins), 181 (gap 61: a new fault).
  const auto faults =
      group({member(0, "0000:01:00", "xid", "restart_app", 13), member(60, "0000:01:00", "xid", "restart_app", 13),
             member(120, "0000:01:00", "xid", "restart_app", 13), member(181, "0000:01:00", "xid", "restart_app", 13)});
  REQUIRE(faults.size() == 2);
  CHECK(faults[0].count == 3);
  CHECK(faults[0].ts_ns == 0);
  CHECK(faults[0].last_ts_ns == 120 * kSec);
  CHECK(extract::fault_members_text(faults[0]) == "Xid 13 \u00d73");
  CHECK(faults[1].count == 1);
  CHECK(faults[1].ts_ns == 181 * kSec);
}

TEST_CASE("faults: each GPU has its own, events naming no GPU are the host's", "[extract][faults]") {
  const auto faults = group({member(0, "0000:01:00", "xid", "restart_app", 13),
                             member(5, "0000:02:00", "xid", "reset_gpu", 62), member(10, "", "aer", "", -1),
                             member(20, "0000:01:00", "xid", "restart_app", 13), member(30, "", "aer", "", -1)});
  REQUIRE(faults.size() == 3);
  CHECK(faults[0].device == "0000:01:00");
  CHECK(faults[0].count == 2);
  CHECK(faults[1].device == "0000:02:00");
  CHECK(faults[1].bucket == "reset_gpu");
  CHECK(faults[2].device.empty());  // the host: two fatal AERs 20 s apart
  CHECK(faults[2].count == 2);
  CHECK(faults[2].bucket == "reset_gpu");
  CHECK(extract::fault_members_text(faults[2]) == "fatal AER \u00d72");
}

TEST_CASE("faults: ignore members never make a fault alone, but join one", "[extract][faults]") {
  // 0: Xid 43 alone (no fault); 200: Xid 13, 230: Xid 43 (joins: restart_app); 400: Xid 43 then
  // 420: Xid 13 (the pending 43 joins the fault that follows within the window).
  const auto faults =
      group({member(0, "0000:01:00", "xid", "ignore", 43), member(200, "0000:01:00", "xid", "restart_app", 13),
             member(230, "0000:01:00", "xid", "ignore", 43), member(400, "0000:01:00", "xid", "ignore", 43),
             member(420, "0000:01:00", "xid", "restart_app", 13)});
  REQUIRE(faults.size() == 2);
  CHECK(extract::fault_members_text(faults[0]) == "Xid 13 then Xid 43");
  CHECK(faults[0].bucket == "restart_app");
  CHECK(extract::fault_members_text(faults[1]) == "Xid 43 then Xid 13");
  CHECK(faults[1].ts_ns == 400 * kSec);
}

TEST_CASE("faults: a GPU lost and its Xid 79 are one fault, priced as reboot", "[extract][faults]") {
  // The Xid names "0000:01:00", the "fallen off the bus" line "0000:01:00.0": one GPU.
  extract::SampleCollector c;
  c.on_event(sample(0, 100));
  c.on_event(sample(100, 100));
  xid(c, 10, 79, "reboot", "0000:01:00");
  gpu_lost(c, 10, "0000:01:00.0");
  InputStats kern;
  kern.format = Format::syslog;
  c.note_inputs({kern});
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  REQUIRE(f->faults.size() == 1);
  CHECK(f->faults[0].device == "0000:01:00");
  CHECK(f->faults[0].bucket == "reboot");
  CHECK(extract::fault_members_text(f->faults[0]) == "Xid 79 then GPU lost");
  CHECK(host(*f, "fault_count") == 1);
  CHECK(host(*f, "fault_reboot_count") == 1);
  CHECK(host(*f, "xid_count") == 1);  // the line counts stay
  CHECK(host(*f, "gpu_lost_count") == 1);
}

TEST_CASE("faults: the most severe member's bucket", "[extract][faults]") {
  CHECK(extract::fault_severity("ignore") < extract::fault_severity("restart_app"));
  CHECK(extract::fault_severity("restart_app") < extract::fault_severity("reset_gpu"));
  CHECK(extract::fault_severity("reset_gpu") < extract::fault_severity("unknown"));
  CHECK(extract::fault_severity("unknown") < extract::fault_severity("reboot"));
  CHECK(extract::fault_severity("reboot") < extract::fault_severity("contact_support"));
  CHECK(extract::fault_severity("no such bucket") == extract::fault_severity("unknown"));
  const auto faults =
      group({member(0, "GPU4", "xid", "restart_app", 13), member(10, "GPU4", "xid", "contact_support", 48),
             member(20, "GPU4", "xid", "reset_gpu", 62)});
  REQUIRE(faults.size() == 1);
  CHECK(faults[0].bucket == "contact_support");
}

TEST_CASE("xid buckets: one list for the indicators that count them and the keys that price them",
          "[extract][faults]") {
  const auto config_has = [](const std::string& path) {
    for (const breakeven::ConfigKey& k : breakeven::config_keys())
      if (k.path == path) return true;
    return false;
  };
  for (std::size_t i = 0; i < kXidBucketCount; ++i) {
    const auto bucket = static_cast<XidBucket>(i);
    const std::string name(xid_bucket_name(bucket));
    INFO(name);
    CHECK(extract::fault_severity(name) == static_cast<int>(i));
    const bool priced = bucket != XidBucket::ignore;
    CHECK((extract::find_indicator("fault_" + name + "_count") != nullptr) == priced);
    CHECK(config_has("local.incident_hours." + name) == priced);
    const bool nvidia = priced && bucket != XidBucket::unknown;  // NVIDIA's four
    CHECK((extract::find_indicator("xid_" + name + "_count") != nullptr) == nvidia);
  }
  std::size_t hours_keys = 0;
  for (const breakeven::ConfigKey& k : breakeven::config_keys())
    if (k.path.starts_with("local.incident_hours.")) ++hours_keys;
  CHECK(hours_keys == kXidBucketCount - 1);
}

TEST_CASE("faults: downtime is the union of the members' downtimes", "[extract][faults]") {
  // Members at 0 (down to 30), 10 (down to 30: inside), 50 (down to 80): union 30 + 30 = 60 s,
  // not the sum 30 + 20 + 30 = 80 s.
  const auto faults =
      group({member(0, "GPU0", "xid", "restart_app", 13, 30), member(10, "GPU0", "xid", "restart_app", 13, 30),
             member(50, "GPU0", "xid", "restart_app", 13, 80)});
  REQUIRE(faults.size() == 1);
  REQUIRE(faults[0].downtime_s);
  CHECK(*faults[0].downtime_s == Approx(60.0));
  CHECK(faults[0].downtime_end_ns == 80 * kSec);
  // No utilisation for one member: the union is unknown.
  const auto unknown =
      group({member(0, "GPU0", "xid", "restart_app", 13, 30), member(10, "GPU0", "xid", "restart_app", 13)});
  REQUIRE(unknown.size() == 1);
  CHECK_FALSE(unknown[0].downtime_s);
}

TEST_CASE("faults: regrouping with a longer window keeps the union of downtimes", "[extract][faults]") {
  // Grouped within 60 s: fault A 0..10 (down 0..100, 100 s), fault B 80 s later at 90..95 (down
  // 90..100 and 95..100: 10 s). Within 120 s they join; B's first interval lies inside A's last,
  // so the union is 100 s, not 110 s.
  const auto by60 =
      group({member(0, "GPU0", "xid", "restart_app", 13, 100), member(10, "GPU0", "xid", "restart_app", 13, 100),
             member(90, "GPU0", "xid", "reset_gpu", 62, 100), member(95, "GPU0", "xid", "reset_gpu", 62, 100)});
  REQUIRE(by60.size() == 2);
  CHECK(*by60[0].downtime_s == Approx(100.0));
  CHECK(*by60[1].downtime_s == Approx(10.0));
  const auto by120 = extract::regroup_faults(by60, 120);
  REQUIRE(by120.size() == 1);
  CHECK(*by120[0].downtime_s == Approx(100.0));
  CHECK(by120[0].count == 4);
  CHECK(by120[0].bucket == "reset_gpu");
  CHECK(extract::fault_members_text(by120[0]) == "Xid 13 \u00d72 then Xid 62 \u00d72");
  // Disjoint downtimes add: A down 0..20, B at 90 down 90..100 -> 30 s.
  const auto apart =
      group({member(0, "GPU0", "xid", "restart_app", 13, 20), member(90, "GPU0", "xid", "restart_app", 13, 100)});
  REQUIRE(apart.size() == 2);
  CHECK(*extract::regroup_faults(apart, 120)[0].downtime_s == Approx(30.0));
  // Another GPU's fault never joins.
  CHECK(extract::regroup_faults({by60[0], group({member(20, "GPU1", "xid", "restart_app", 13, 30)})[0]}, 120).size() ==
        2);
}

TEST_CASE("breakeven: a fault costs its bucket's operator hours once, whatever its member count",
          "[breakeven][faults]") {
  breakeven::CostConfig c;
  c.hourly_wage = 50;
  c.incident_restart_app_h = 0.1;
  c.incident_reboot_h = 1.0;
  breakeven::JobInputs job;
  job.wall_h = 3;
  job.energy_kwh = {1.0};
  job.util = {1.0};
  // A burst of 181 Xid 13 then an Xid 43: restart_app once, 0.1 h x 50 = 5; a GPU lost with its
  // Xid 79: reboot once, 1 h x 50 = 50. Total 55, not 181 x 5 + 2 x 50 = 1005.
  job.faults = group({member(0, "0000:38:00", "xid", "restart_app", 13),
                      member(1, "0000:38:00", "xid", "restart_app", 13), member(2, "0000:38:00", "xid", "ignore", 43),
                      member(1000, "0000:01:00", "xid", "reboot", 79), member(1000, "0000:01:00", "gpu_lost", "", -1)});
  job.faults[0].members[0].count = 181;  // as if the burst had printed 181 lines
  const auto r = breakeven::compute(c, job);
  REQUIRE(r.incidents.size() == 2);
  CHECK(r.incidents[0].hours == Approx(0.1));
  CHECK(r.incidents[0].cost == Approx(5.0));
  CHECK(r.incidents[1].cost == Approx(50.0));
  CHECK(r.incident_cost == Approx(55.0));
  // local.fault_window_s = 1000 s joins the two faults of different GPUs? No: one GPU each.
  c.fault_window_s = 1000;
  CHECK(breakeven::compute(c, job).incidents.size() == 2);
  // A shorter window than extract's cannot split the faults: priced as grouped, with a note.
  c.fault_window_s = 10;
  const auto shorter = breakeven::compute(c, job);
  CHECK(shorter.incident_cost == Approx(55.0));
  CHECK(shorter.fault_note.find("re-run breakeven on the logs") != std::string::npos);
}

TEST_CASE("faults over the real corpus: an Xid storm is a few faults, a GPU off the bus one", "[conformance][faults]") {
  // 636 Xid lines of one GPU (0000:38:00) in 16 same-code bursts: 9 groups of Xid 13 lines (each
  // printed within one second), 7 of them followed by an Xid 43 in the same second, the groups
  // 11 to 22 minutes apart (counted with a separate script over the file's timestamps).
  if (const auto f = corpus_features("dmesg/gpud_xid13_43_decode_iso.txt")) {
    CHECK(host(*f, "xid_count") == 636);
    CHECK(f->incidents.size() == 16);
    CHECK(host(*f, "fault_count") == 9);
    CHECK(host(*f, "fault_restart_app_count") == 9);
    REQUIRE(f->faults.size() == 9);
    CHECK(extract::fault_members_text(f->faults[0]) == "Xid 13 \u00d715 then Xid 43");
    CHECK(f->faults[7].count == 181);
    for (const WindowFault& w : f->faults) CHECK(w.device == "0000:38:00");
  }
  // One "fallen off the bus": an Xid 79 and the GPU-lost line of 0000:01:00 in the same second.
  if (const auto f = corpus_features("kernlog/ubf_gt630_375_xid79_a.log")) {
    CHECK(host(*f, "xid_count") == 1);
    CHECK(host(*f, "gpu_lost_count") == 1);
    CHECK(host(*f, "fault_count") == 1);
    CHECK(host(*f, "fault_reboot_count") == 1);
    REQUIRE(f->faults.size() == 1);
    CHECK(extract::fault_members_text(f->faults[0]) == "Xid 79 then GPU lost");
  }
}

TEST_CASE("faults: a document written before faults rebuilds them from its bursts", "[extract][faults]") {
  extract::SampleCollector c;
  c.on_event(sample(0, 100));
  c.on_event(sample(300, 100));
  xid(c, 10, 13, "restart_app", "0000:01:00");
  xid(c, 11, 43, "ignore", "0000:01:00");
  xid(c, 200, 43, "ignore", "0000:01:00");
  InputStats kern;
  kern.format = Format::dmesg;
  c.note_inputs({kern});
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  std::string doc = extract::features_to_json(*f);
  const std::size_t from = doc.find(",\n  \"fault_window_s\"");
  const std::size_t to = doc.find(",\n  \"energy_profile\"");
  REQUIRE(from != std::string::npos);
  REQUIRE(to > from);
  doc.erase(from, to - from);  // as written before faults existed
  const auto old = extract::features_from_json(doc, "old.json");
  REQUIRE(old);
  // Bursts: Xid 13 at 10 s, Xid 43 at 11 s, Xid 43 at 200 s. The first two join (restart_app);
  // the lone Xid 43 is no fault. Joining bursts is host-wide, hence not exact: flagged.
  REQUIRE(old->faults.size() == 1);
  CHECK(old->faults[0].bucket == "restart_app");
  CHECK(extract::fault_members_text(old->faults[0]) == "Xid 13 then Xid 43");
  CHECK_FALSE(old->faults_listed);
  // The document as written now reads back the same faults, exactly.
  const auto now = extract::features_from_json(extract::features_to_json(*f), "now.json");
  REQUIRE(now);
  CHECK(now->faults_listed);
  REQUIRE(now->faults.size() == 1);
  CHECK(now->faults[0].device == "0000:01:00");
  CHECK(now->faults[0].count == 2);
}

TEST_CASE("faults: merge joins a fault that a window end cut in two, and counts again", "[extract][faults]") {
  // Two consecutive windows of one host: an Xid 13 at 50 s (window 0..60 s) and an Xid 13 at
  // 70 s (window 60..120 s) of the same GPU, 20 s apart: one fault in the merged document.
  const auto window = [](std::int64_t from_s, std::int64_t t_s) {
    extract::SampleCollector c;
    for (std::int64_t t = from_s; t <= from_s + 60; t += 10) c.on_event(sample(t, 90));
    xid(c, t_s, 13, "restart_app", "0000:01:00");
    InputStats kern;
    kern.format = Format::dmesg;
    c.note_inputs({kern});
    extract::ExtractOptions o;
    o.from_ns = from_s * kSec;
    o.to_ns = (from_s + 60) * kSec;
    auto f = extract::compute_features(c, o);
    REQUIRE(f);
    return *extract::features_from_json(extract::features_to_json(*f), "w.json");
  };
  std::vector<extract::Features> docs{window(0, 50), window(60, 70)};
  CHECK(host(docs[0], "fault_count") == 1);
  CHECK(host(docs[1], "fault_count") == 1);
  auto m = extract::merge_features(docs);
  REQUIRE(m);
  REQUIRE(m->faults.size() == 1);
  CHECK(m->faults[0].count == 2);
  CHECK(host(*m, "fault_count") == 1);
  CHECK(host(*m, "fault_restart_app_count") == 1);
  CHECK(host(*m, "xid_count") == 2);  // the line count sums
}

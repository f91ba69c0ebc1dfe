// extract: counts of kernel and system incidents (F017-F027), by hand.
#include <gpucost/extract/extract.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace gpucost;

namespace {

constexpr std::int64_t kSec = 1'000'000'000;

Event sample(std::int64_t t_s, double power) {
  Event ev;
  ev.ts_ns = t_s * kSec;
  ev.kind = "sample";
  ev.gpu = 0;
  ev.set(Metric::power_w, power);
  return ev;
}

// An incident event; `key`/`value` is its distinguishing field (bucket, severity, state).
void incident(extract::SampleCollector& c, std::int64_t t_s, const char* kind, const char* key = nullptr,
              const char* value = nullptr) {
  Event ev;
  ev.ts_ns = t_s * kSec;
  ev.kind = kind;
  if (key != nullptr) ev.add_text(key, value);
  c.on_event(ev);
}

double count(const extract::Features& f, const std::string& key) {
  const auto& v = f.host_indicators.at(key);
  REQUIRE(v.value.has_value());
  return *v.value;
}

}  // namespace

TEST_CASE("extract: incidents counted in the window, one suspend per 120 s cluster", "[extract]") {
  extract::SampleCollector c;
  c.on_event(sample(0, 100));
  c.on_event(sample(100, 100));  // the window is 0..100 s
  incident(c, 10, "xid", "bucket", "reset_gpu");
  incident(c, 20, "xid", "bucket", "restart_app");
  incident(c, 25, "xid", "bucket", "ignore");   // counted in xid_count only
  incident(c, 200, "xid", "bucket", "reboot");  // after the window: not counted
  incident(c, 40, "gpu_lost");
  incident(c, 41, "aer", "severity", "corrected");
  incident(c, 42, "aer", "severity", "corrected");
  incident(c, 43, "aer", "severity", "uncorrected_fatal");
  incident(c, 30, "suspend");  // logind, systemd-sleep and the kernel report one suspend:
  incident(c, 31, "suspend");  //   30, 31, 35 s are within 120 s of each other -> 1
  incident(c, 35, "suspend");
  incident(c, 5, "lid", "state", "closed");
  incident(c, 6, "lid", "state", "open");
  incident(c, 7, "power_source", "state", "offline");
  incident(c, 8, "power_source", "state", "online");
  InputStats kern;
  kern.format = Format::syslog;
  c.note_inputs({kern});

  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  CHECK(count(*f, "xid_count") == 3);  // 10, 20, 25 s; not 200 s
  CHECK(count(*f, "xid_reset_gpu_count") == 1);
  CHECK(count(*f, "xid_restart_app_count") == 1);
  CHECK(count(*f, "xid_reboot_count") == 0);
  CHECK(count(*f, "xid_contact_support_count") == 0);
  CHECK(count(*f, "gpu_lost_count") == 1);
  CHECK(count(*f, "aer_corrected_count") == 2);
  CHECK(count(*f, "aer_uncorrected_count") == 1);
  CHECK(count(*f, "suspend_count") == 1);
  CHECK(count(*f, "lid_close_count") == 1);
  CHECK(count(*f, "ac_offline_count") == 1);
  // Incidents are host indicators: the GPU has none of them.
  CHECK(f->gpus[0].indicators.count("xid_count") == 0);

  SECTION("two suspends more than 120 s apart are two") {
    extract::SampleCollector d;
    d.on_event(sample(0, 100));
    d.on_event(sample(1000, 100));
    incident(d, 100, "suspend");
    incident(d, 221, "suspend");  // 121 s later: a new suspend
    d.note_inputs({kern});
    auto g = extract::compute_features(d, {});
    REQUIRE(g);
    CHECK(count(*g, "suspend_count") == 2);
  }
}

TEST_CASE("extract: without a kernel log the incident counts are null, not 0", "[extract]") {
  extract::SampleCollector c;
  c.on_event(sample(0, 100));
  c.on_event(sample(10, 100));
  InputStats dmon;
  dmon.format = Format::dmon;
  c.note_inputs({dmon});
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  const auto& x = f->host_indicators.at("xid_count");
  CHECK_FALSE(x.value.has_value());
  CHECK(x.reason == "no kernel log, dmesg, journal or bug report among the inputs");

  SECTION("an events stream whose summary names a kernel log counts as one") {
    InputStats stream;
    stream.upstream_formats = {"dmon", "syslog"};
    c.note_inputs({stream});
    auto g = extract::compute_features(c, {});
    REQUIRE(g);
    CHECK(count(*g, "xid_count") == 0);  // a clean kernel log: a real 0
  }
}

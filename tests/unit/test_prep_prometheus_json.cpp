// prep: Prometheus HTTP API JSON (docs/formats.md, "Prometheus query_range JSON"). Fixtures in
// testdata/prometheus-json are written by make_fixtures.py there, in the shape Prometheus returns
// (README.md there says where the shape and the label sets come from); expectations below follow
// from the formulas of that script.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/extract/extract.hpp>

#include <set>

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::has_note;
using gpucost::test::OwnedEvent;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::sample_at;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;
namespace extract = gpucost::extract;

namespace {

constexpr std::int64_t kSec = gpucost::kNsPerSecond;
const std::int64_t kStart = utc_ns(2024, 6, 12, 13, 2, 15);

std::vector<OwnedEvent> of_kind(const PrepRun& r, const std::string& kind) {
  std::vector<OwnedEvent> out;
  for (const auto& e : r.events)
    if (e.kind == kind) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("prep::prometheus-json: dcgm-exporter, two H100s, one document per metric, concatenated",
          "[prep][prometheus-json]") {
  const PrepRun r = run_prep_text(fixture("prometheus-json/dcgm_h100x2_10min.json"));
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::prometheus_json);
  // 14 documents: 12 metrics x 2 GPUs + 3 Xid series (GPU 1's code changes its labels) = 29 series.
  CHECK(r.stats.lines == 29);
  CHECK(r.stats.event_lines == 25);
  CHECK(r.stats.ignored == 4);  // PCIE_REPLAY_COUNTER, VGPU_LICENSE_STATUS, x2 GPUs
  CHECK(r.stats.malformed == 0);
  CHECK(has_note(r, "DCGM_FI_DEV_PCIE_REPLAY_COUNTER x2, DCGM_FI_DEV_VGPU_LICENSE_STATUS x2"));
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"NVIDIA H100 80GB HBM3"});
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"535.104.05"});
  CHECK(r.stats.fingerprint.gpu_count == 2);
  CHECK(r.stats.hosts == std::vector<std::string>{"node01"});

  const auto samples = of_kind(r, "sample");
  REQUIRE(samples.size() == 82);  // 41 times x 2 GPUs
  // Time order, GPU 0 before GPU 1 at each time.
  for (std::size_t i = 0; i < samples.size(); ++i) {
    CHECK(samples[i].ts_ns == kStart + static_cast<std::int64_t>(i / 2) * 15 * kSec);
    CHECK(samples[i].gpu == static_cast<int>(i % 2));
    CHECK(samples[i].source == "prometheus");
    CHECK(samples[i].host == "node01");
  }
  // k = 1 on GPU 0: power 257.5, util 11, temp 53, memory 57, SM 1980, FB 20100 used + 61459 free.
  const OwnedEvent& s = sample_at(r, 0, kStart + 15 * kSec);
  CHECK(s.metric("power_w") == 257.5);
  CHECK(s.metric("sm_pct") == 11);
  CHECK(s.metric("temp_c") == 53);
  CHECK(s.metric("mem_temp_c") == 57);
  CHECK(s.metric("pclk_mhz") == 1980);
  CHECK(s.metric("mclk_mhz") == 2619);
  CHECK(s.metric("fb_mib") == 20100);
  CHECK(s.metric("fb_total_mib") == 81559);  // used + free: DCGM's defaults have no FB_TOTAL
  CHECK(field(s, "fbfre") == "61459");
  CHECK(field(s, "totec") == "9003810000");  // mJ: 9e9 + (250.5 + 257.5) / 2 x 15 s x 1000
  CHECK(field(s, "tenso") == "0.044");
  CHECK(field(s, "uuid") == "GPU-5f1a3c2e-8d4b-4e6f-9a70-1b2c3d4e5f60");
  CHECK(field(s, "name") == "NVIDIA H100 80GB HBM3");
  CHECK(field(s, "pci_bus_id") == "00000000:18:00.0");
  // The throttle mask: SW power cap (0x4) on GPU 0 for k = 16 .. 24.
  CHECK(sample_at(r, 0, kStart + 15 * 15 * kSec).metric("throttle_mask") == 0);
  CHECK(sample_at(r, 0, kStart + 16 * 15 * kSec).metric("throttle_mask") == 4);
  CHECK(sample_at(r, 0, kStart + 24 * 15 * kSec).metric("throttle_mask") == 4);
  CHECK(sample_at(r, 1, kStart + 20 * 15 * kSec).metric("throttle_mask") == 0);

  // GPU 1's last Xid goes from 0 to 79 at k = 20: one Xid event, after that sample.
  const auto xids = of_kind(r, "xid");
  REQUIRE(xids.size() == 1);
  CHECK(xids[0].gpu == 1);
  CHECK(xids[0].ts_ns == kStart + 20 * 15 * kSec);
  CHECK(field(xids[0], "code") == "79");
  CHECK(field(xids[0], "bucket") != "<absent>");
  CHECK(field(xids[0], "xid_name") != "<absent>");
}

TEST_CASE("prep::prometheus-json: Kubernetes pod labels, NaN, a gap, JSON Lines", "[prep][prometheus-json]") {
  const PrepRun r = run_prep_text(fixture("prometheus-json/dcgm_k8s_a100_pods.jsonl"));
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::prometheus_json);
  CHECK(r.stats.lines == 6);  // 3 metrics, each an idle series and a pod's series
  CHECK(r.stats.event_lines == 6);
  CHECK(has_note(r, "1 NaN/Inf values skipped"));
  CHECK(r.stats.hosts == std::vector<std::string>{"gpu-worker-3"});
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"NVIDIA A100-SXM4-80GB"});
  // Points 0..5 idle, 6..9 and 14..19 with the pod: 16 times; 10..13 are a gap (no sample).
  const auto samples = of_kind(r, "sample");
  REQUIRE(samples.size() == 16);
  const OwnedEvent& nan_point = sample_at(r, 0, kStart + 3 * 15 * kSec);
  CHECK_FALSE(nan_point.metric("power_w").has_value());  // NaN: no power, the other metrics stay
  CHECK(nan_point.metric("sm_pct") == 0);
  CHECK(field(nan_point, "pod") == "<absent>");
  const OwnedEvent& busy = sample_at(r, 0, kStart + 14 * 15 * kSec);
  CHECK(busy.metric("power_w") == 395.5);
  CHECK(field(busy, "pod") == "llm-finetune-7d9f8b6c5-x2k4q");
  CHECK(field(busy, "namespace") == "ml-team");
  CHECK(field(busy, "container") == "trainer");
  for (const auto& e : samples) CHECK((e.ts_ns < kStart + 10 * 15 * kSec || e.ts_ns > kStart + 13 * 15 * kSec));
}

TEST_CASE("prep::prometheus-json: nvidia_gpu_exporter names and units, identity from nvidia_smi_gpu_info",
          "[prep][prometheus-json]") {
  const PrepRun r = run_prep_text(fixture("prometheus-json/nvidia_gpu_exporter_rtx4090.json"));
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.lines == 10);
  CHECK(r.stats.event_lines == 8);  // gpu_info and 7 mapped series
  CHECK(r.stats.ignored == 2);      // nvidia_smi_pcie_link_gen_gpucurrent, nvidia_smi_last_collect_success
  CHECK(r.stats.fingerprint.gpus == std::vector<std::string>{"NVIDIA GeForce RTX 4090"});
  CHECK(r.stats.fingerprint.drivers == std::vector<std::string>{"550.78"});
  CHECK(r.stats.hosts == std::vector<std::string>{"ws01"});  // instance without its port
  const auto samples = of_kind(r, "sample");
  REQUIRE(samples.size() == 8);
  const OwnedEvent& s = samples[0];
  CHECK(s.gpu == 0);
  CHECK(s.metric("power_w") == 300.25);
  CHECK(s.metric("sm_pct") == 42);      // ratio 0.42 -> %
  CHECK(s.metric("pclk_mhz") == 2520);  // Hz -> MHz
  CHECK(s.metric("fb_mib") == 19818);   // bytes -> MiB
  CHECK(s.metric("fb_total_mib") == 24564);
  CHECK(s.metric("temp_c") == 60);
  CHECK(s.metric("throttle_mask") == 0);
  CHECK(field(s, "name") == "NVIDIA GeForce RTX 4090");
  CHECK(samples[1].metric("sm_pct") == 97);
  CHECK(samples[2].metric("sm_pct") == 100);
}

TEST_CASE("prep::prometheus-json: detection, forcing, and what is refused", "[prep][prometheus-json]") {
  const prep::PrepOptions none;
  CHECK(prep::detect_format("{\n  \"status\" : \"success\",\n  \"data\" : {\n    \"resultType\" : \"matrix\",", none) ==
        gpucost::Format::prometheus_json);
  CHECK(prep::detect_format(R"({"status":"success","data":{"resultType":"vector","result":[]}})", none) ==
        gpucost::Format::prometheus_json);
  CHECK(prep::detect_format(R"({"status":"success","data":{"resultType":"scalar","result":[1,"2"]}})", none) !=
        gpucost::Format::prometheus_json);
  gpucost::Format f = gpucost::Format::unknown;
  REQUIRE(format_from_name("prometheus-json", f));
  CHECK(f == gpucost::Format::prometheus_json);

  // An error response: a clear error with Prometheus' own message.
  const PrepRun err = run_prep_text(fixture("prometheus-json/error_too_many_points.json"));
  REQUIRE_FALSE(err.status);
  CHECK_THAT(err.status.error().message, Catch::Contains("11,000 points per timeseries"));

  // An instant query (resultType vector): one point per series.
  const PrepRun vec = run_prep_text(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE",)"
      R"("gpu":"2","Hostname":"n1"},"value":[1718197335.25,"100"]}]}})");
  REQUIRE(vec.status);
  REQUIRE(vec.events.size() == 1);
  CHECK(vec.events[0].gpu == 2);
  CHECK(vec.events[0].ts_ns == kStart + kSec / 4);

  // Malformed series are counted, with the document's line; the good ones still count.
  const std::string bad =
      R"({"status":"success","data":{"resultType":"matrix","result":[)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","Hostname":"n1"},"values":[[1718197335,"5"]]},)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"0"},"values":[[1718197335,"five"]]},)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL","gpu":"1"},"values":[[1718197335,"7"]]}]}})"
      "\n"
      R"({"status":"error","errorType":"timeout","error":"query timed out"})";
  const PrepRun b = run_prep_text(bad);
  REQUIRE(b.status);
  check_accounting(b);
  CHECK(b.stats.lines == 4);
  CHECK(b.stats.malformed == 3);
  REQUIRE(b.stats.examples.size() == 3);
  CHECK(b.stats.examples[0].reason == "series 1 of the document: no gpu, UUID or uuid label: which GPU is it?");
  CHECK(b.stats.examples[1].reason == "series 2 of the document: a point's value is not a number");
  CHECK(b.stats.examples[2].line == 2);
  CHECK(b.stats.warnings.size() == 1);
  CHECK(b.events.size() == 1);
}

// The same samples as an nvidia-smi --query-gpu CSV (make_fixtures.py writes both from one
// formula) give the same indicators where both carry the metric: power, energy, utilisation,
// temperatures and clocks.
TEST_CASE("prep::prometheus-json: extract reads the DCGM series as it reads the same samples from nvidia-smi",
          "[prep][prometheus-json][extract]") {
  const auto features = [](const std::string& rel) {
    auto reader = gpucost::io::LineReader::from_string(fixture(rel));
    auto clock = gpucost::LocalClock::make("UTC");
    extract::SampleCollector samples;
    gpucost::InputStats stats;
    stats.path = rel;
    prep::PrepOptions options;
    options.host = "node01";
    REQUIRE(prep::run_prep_input(*reader, options, *clock, samples, stats));
    samples.note_inputs({stats});
    auto f = extract::compute_features(samples, extract::ExtractOptions{});
    REQUIRE(f);
    return *f;
  };
  const extract::Features prom = features("prometheus-json/dcgm_h100x2_10min.json");
  const extract::Features csv = features("prometheus-json/h100x2_10min_query.csv");
  REQUIRE(prom.gpus.size() == 2);
  REQUIRE(csv.gpus.size() == 2);
  const std::vector<std::string> overlapping = {"power", "energy", "util", "temp", "clock", "pclk", "mclk", "busy"};
  std::size_t compared = 0;
  for (std::size_t g = 0; g < 2; ++g) {
    for (const auto& [key, ind] : csv.gpus[g].indicators) {
      if (!ind.value) continue;
      bool wanted = false;
      for (const auto& part : overlapping) wanted = wanted || key.find(part) != std::string::npos;
      // The counter's bounds are its exact increase: the CSV's bound the power integral.
      if (!wanted || key == "energy_low_kwh" || key == "energy_high_kwh") continue;
      INFO("GPU " << g << " indicator " << key);
      const auto it = prom.gpus[g].indicators.find(key);
      REQUIRE(it != prom.gpus[g].indicators.end());
      REQUIRE(it->second.value.has_value());
      CHECK(*it->second.value == Approx(*ind.value).margin(1e-9));
      ++compared;
    }
  }
  CHECK(compared >= 20);
  const auto value = [](const extract::IndicatorSet& set, const char* key) { return *set.at(key).value; };
  CHECK(value(prom.gpus[0].indicators, "energy_kwh") > 0);
  CHECK(value(prom.host_indicators, "energy_kwh") == Approx(value(csv.host_indicators, "energy_kwh")));
  // The DCGM counter is the power's trapezoid (make_fixtures.py): the energy comes from the
  // counter, the power integral agrees with it, and the CSV (no counter) integrates power.
  CHECK(prom.energy_method == "counter");
  CHECK(csv.energy_method == "power");
  CHECK(value(prom.host_indicators, "energy_power_vs_counter_pct") == Approx(0).margin(1e-9));
  CHECK(value(prom.host_indicators, "energy_counter_coverage") == Approx(1.0));
}

TEST_CASE("prep::prometheus-json: answers of Thanos, Mimir, VictoriaMetrics, keys in any order",
          "[prep][prometheus-json]") {
  const prep::PrepOptions none;
  const std::string series =
      R"({"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","Hostname":"n1"},"values":[[1718197335,"100"],)"
      R"([1718197350,"110"]]})";
  const std::string data_first = R"({"data":{"resultType":"matrix","result":[)" + series + R"(]},"status":"success"})";
  const std::string victoria = R"({"status":"success","isPartial":false,"data":{"resultType":"matrix","result":[)" +
                               series + R"(]},"stats":{"seriesFetched":"1"}})";
  const std::string thanos = R"x({"status":"success","warnings":["store \"sidecar-1\" unreachable\n(partial)"],)x"
                             R"("infos":["PromQL info: metric might not be a counter"],)"
                             R"("data":{"resultType":"matrix","result":[)" +
                             series + "]}}";
  for (const std::string& text : {data_first, victoria, thanos}) {
    INFO(text);
    CHECK(prep::detect_format(text, none) == gpucost::Format::prometheus_json);
    const PrepRun r = run_prep_text(text);
    REQUIRE(r.status);
    check_accounting(r);
    CHECK(r.events.size() == 2);
  }
  const PrepRun t = run_prep_text(thanos);
  // The server's words: quoted, on one line (the newline a blank), in a note.
  CHECK(has_note(t, R"x(the answer on line 1: the server warns: "store \"sidecar-1\" unreachable (partial)")x"));
  CHECK(has_note(t, R"(the answer on line 1: the server informs: "PromQL info: metric might not be a counter")"));
  // Reordered error answers are errors still.
  CHECK(prep::detect_format(R"({"errorType":"bad_data","error":"x","status":"error"})", none) ==
        gpucost::Format::prometheus_json);
}

TEST_CASE("prep::prometheus-json: an instant query is a snapshot, said so", "[prep][prometheus-json]") {
  const PrepRun r = run_prep_text(
      R"({"status":"success","data":{"resultType":"vector","result":[)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","Hostname":"n1"},"value":[1718197335,"100"]},)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"1","Hostname":"n1"},"value":[1718197335,"90"]}]}})");
  REQUIRE(r.status);
  CHECK(r.events.size() == 2);
  CHECK(has_note(r, "a snapshot: one instant, no duration to price"));
  // A range answer is no snapshot.
  CHECK_FALSE(has_note(run_prep_text(fixture("prometheus-json/dcgm_k8s_a100_pods.jsonl")), "a snapshot"));
}

TEST_CASE("prep::prometheus-json: the workload is dcgm-exporter's pod, never the exporter's own",
          "[prep][prometheus-json]") {
  const auto pod_of = [](const std::string& labels) {
    const PrepRun r = run_prep_text(
        R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL",)"
        R"("gpu":"0","Hostname":"n1")" +
        labels + R"(},"value":[1718197335,"100"]}]}})");
    REQUIRE(r.events.size() == 1);
    return field(r.events[0], "pod") + "/" + field(r.events[0], "namespace");
  };
  // Scraped without honor_labels: Prometheus renamed the workload's labels, pod is the exporter's.
  CHECK(pod_of(R"(,"exported_pod":"llm-7d9f","exported_namespace":"ml","pod":"nvidia-dcgm-exporter-x2k4q",)"
               R"("namespace":"gpu-operator")") == "llm-7d9f/ml");
  // An idle GPU: only the exporter's own pod, by its name or by a renamed namespace.
  CHECK(pod_of(R"(,"pod":"nvidia-dcgm-exporter-x2k4q","namespace":"gpu-operator")") == "<absent>/<absent>");
  CHECK(pod_of(R"(,"pod":"dcgm-exporter-1700000000-abcde")") == "<absent>/<absent>");
  CHECK(pod_of(R"(,"pod":"exporter-7","exported_namespace":"ml","exported_pod":"")") == "<absent>/<absent>");
  // dcgm-exporter's own labels (honor_labels: true, or a static scrape): the pod is the workload.
  CHECK(pod_of(R"(,"pod":"llm-7d9f","namespace":"ml")") == "llm-7d9f/ml");
}

TEST_CASE("prep::prometheus-json: --match prices one host of a saved two-host answer", "[prep][prometheus-json]") {
  const std::string two_hosts =
      R"({"status":"success","data":{"resultType":"matrix","result":[)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","Hostname":"node01"},"values":[[1718197335,"100"]]},)"
      R"({"metric":{"__name__":"DCGM_FI_DEV_POWER_USAGE","gpu":"0","Hostname":"node02"},"values":[[1718197335,"90"]]}]}})";
  prep::PrepOptions o;
  o.label_matchers = {R"(Hostname="node02")"};
  const PrepRun r = run_prep_text(two_hosts, o);
  REQUIRE(r.status);
  check_accounting(r);
  CHECK(r.stats.ignored == 1);
  CHECK(r.stats.hosts == std::vector<std::string>{"node02"});
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0].metric("power_w") == 90);
  CHECK(has_note(r, R"(1 series left out by --match Hostname="node02")"));
}

TEST_CASE("prep::detect: hints that fit JSON nearly a Prometheus answer, and exporter lines",
          "[prep][prometheus-json]") {
  const prep::PrepOptions none;
  const auto hint_of = [&](const std::string& text) {
    const auto s = prep::check_format(text, none, "f");
    REQUIRE_FALSE(s);
    return s.error().hint;
  };
  CHECK_THAT(hint_of(R"({"resultType":"matrix","result":[{"metric":{},"values":[]}]})"),
             Catch::Contains("without its envelope"));
  CHECK_THAT(hint_of(R"({"status":"success","stats":{"a":1}})"), Catch::Contains("without \"data\""));
  CHECK_THAT(hint_of("node_load1 0.52\nnode_hwmon_temp_celsius{chip=\"a\",sensor=\"b\"} 42\n"),
             Catch::Contains("--input-format exposition"));
  const std::string json_hint = hint_of(R"({"some":"json","with":"commas"})");
  CHECK(json_hint.find("--fields") == std::string::npos);
}

namespace {

/// One matrix answer of `series`, each {"metric":{...},"values":[...]} as given.
std::string answer(const std::vector<std::string>& series) {
  std::string out = R"({"status":"success","data":{"resultType":"matrix","result":[)";
  for (std::size_t i = 0; i < series.size(); ++i) out += (i > 0 ? "," : "") + series[i];
  return out + "]}}\n";
}

/// A series of GPU `gpu` on node01 with points (seconds after kStart, value).
std::string series(const std::string& name, int gpu, const std::vector<std::pair<int, std::string>>& points) {
  std::string out = R"({"metric":{"__name__":")" + name + R"(","gpu":")" + std::to_string(gpu) +
                    R"(","Hostname":"node01"},"values":[)";
  for (std::size_t i = 0; i < points.size(); ++i)
    out += (i > 0 ? "," : "") + std::string("[") + std::to_string(kStart / kSec + points[i].first) + ",\"" +
           points[i].second + "\"]";
  return out + "]}";
}

}  // namespace

// A query_range answer puts every point on one grid (start + k x step), and the join files them
// by step number; a saved answer need not, and the points off the grid are joined all the same.
TEST_CASE("prep::prometheus-json: points off the step grid, a GPU on it beside one off it", "[prep][prometheus-json]") {
  const std::string text = answer({series("DCGM_FI_DEV_POWER_USAGE", 0, {{0, "100"}, {30, "130"}, {60, "160"}}),
                                   series("DCGM_FI_DEV_GPU_TEMP", 0, {{0, "40"}, {15, "41"}, {45, "42"}, {-15, "39"}}),
                                   series("DCGM_FI_DEV_POWER_USAGE", 1, {{0, "200"}, {15, "215"}, {30, "230"}}),
                                   series("DCGM_FI_DEV_GPU_TEMP", 1, {{0, "50"}, {15, "51"}, {30, "52"}})});
  const PrepRun r = run_prep_text(text);
  REQUIRE(r.status);
  check_accounting(r);
  const auto samples = of_kind(r, "sample");
  // GPU 0 at -15, 0, 15, 30, 45, 60; GPU 1 at 0, 15, 30: in time order, GPU 0 first at a time.
  const std::vector<std::pair<int, int>> expected = {{-15, 0}, {0, 0},  {0, 1},  {15, 0}, {15, 1},
                                                     {30, 0},  {30, 1}, {45, 0}, {60, 0}};
  REQUIRE(samples.size() == expected.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    CHECK(samples[i].ts_ns == kStart + expected[i].first * kSec);
    CHECK(samples[i].gpu == expected[i].second);
  }
  CHECK(sample_at(r, 0, kStart - 15 * kSec).metric("temp_c") == 39);
  CHECK_FALSE(sample_at(r, 0, kStart - 15 * kSec).metric("power_w").has_value());
  CHECK(sample_at(r, 0, kStart).metric("power_w") == 100);
  CHECK(sample_at(r, 0, kStart).metric("temp_c") == 40);
  CHECK(sample_at(r, 0, kStart + 15 * kSec).metric("temp_c") == 41);
  CHECK_FALSE(sample_at(r, 0, kStart + 15 * kSec).metric("power_w").has_value());
  CHECK(sample_at(r, 0, kStart + 60 * kSec).metric("power_w") == 160);
  CHECK(sample_at(r, 1, kStart + 30 * kSec).metric("power_w") == 230);
  CHECK(sample_at(r, 1, kStart + 30 * kSec).metric("temp_c") == 52);
}

// Two series that feed one metric at one priority: the point filed first wins, at every time,
// whichever series the GPU saw first; a series given twice keeps its first points.
TEST_CASE("prep::prometheus-json: the first point filed wins, on the grid as off it", "[prep][prometheus-json]") {
  const std::string text = answer({series("DCGM_FI_DEV_POWER_USAGE", 0, {{0, "100"}}),
                                   series("nvidia_smi_power_draw_watts", 0, {{0, "200"}, {15, "215"}, {30, "230"}})}) +
                           answer({series("DCGM_FI_DEV_POWER_USAGE", 0, {{15, "115"}, {30, "130"}}),
                                   series("nvidia_smi_power_draw_watts", 0, {{0, "999"}, {30, "999"}})});
  for (const bool off_grid : {false, true}) {
    const PrepRun r = run_prep_text(off_grid ? text + answer({series("DCGM_FI_DEV_GPU_TEMP", 0, {{7, "40"}})}) : text);
    REQUIRE(r.status);
    check_accounting(r);
    CHECK(sample_at(r, 0, kStart).metric("power_w") == 100);
    CHECK(sample_at(r, 0, kStart + 15 * kSec).metric("power_w") == 215);
    CHECK(sample_at(r, 0, kStart + 30 * kSec).metric("power_w") == 230);
    CHECK(has_note(r, "2 points given twice for one series and time: the first kept"));
    CHECK(of_kind(r, "sample").size() == (off_grid ? 4u : 3u));
  }
}

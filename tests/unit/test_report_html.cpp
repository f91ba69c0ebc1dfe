// report: LTTB on a hand-checked series, HTML escaping, SVG scales and paths, the throttling
// rule, and a whole report with hostile text that must still parse as XML (XHTML-compatible).
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/breakeven/trace_job_cost.hpp>
#include <gpucost/breakeven/work_units.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/report/html.hpp>
#include <gpucost/report/html_report.hpp>
#include <gpucost/report/lttb.hpp>
#include <gpucost/report/svg_chart.hpp>
#include <gpucost/report/timeline.hpp>
#include <gpucost/report/trace_report.hpp>

#include <fmt/format.h>
#include <pugixml.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace gpucost;
using report::Point;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kS = 1'000'000'000;

extract::Sample sample(std::int64_t s, double util, double clock) {
  extract::Sample x;
  x.ts_ns = s * kS;
  x.util_pct = util;
  x.pclk_mhz = clock;
  x.power_w = 100 + static_cast<double>(s);
  x.temp_c = 60;
  return x;
}

}  // namespace

TEST_CASE("report: LTTB keeps the peak and the trough of a small series", "[report][lttb]") {
  // 7 points into 4: buckets {1,2} and {3,4,5} (size 2.5). Bucket 1 against (0,0) and the mean
  // of {3,4,5} = (4,-2/3): doubled areas 4.67 (x=1) and 21.33 (x=2) -> 2. Bucket 2 against
  // (2,5) and the last point (6,0): 11, 10, 17 -> 5.
  const std::vector<Point> pts = {{0, 0}, {1, 1}, {2, 5}, {3, 1}, {4, 0}, {5, -3}, {6, 0}};
  CHECK(report::lttb_indices(pts, 4) == std::vector<std::size_t>{0, 2, 5, 6});
  const auto kept = report::lttb(pts, 4);
  REQUIRE(kept.size() == 4);
  CHECK(kept[1].y == 5);
  CHECK(kept[2].y == -3);
}

TEST_CASE("report: LTTB edge cases", "[report][lttb]") {
  const std::vector<Point> pts = {{0, 0}, {1, 1}, {2, 5}};
  CHECK(report::lttb_indices(pts, 3) == std::vector<std::size_t>{0, 1, 2});
  CHECK(report::lttb_indices(pts, 10) == std::vector<std::size_t>{0, 1, 2});
  CHECK(report::lttb_indices(pts, 2) == std::vector<std::size_t>{0, 2});
  CHECK(report::lttb_indices(std::vector<Point>{}, 5).empty());
  std::vector<Point> many;
  for (int i = 0; i < 10000; ++i) many.push_back(Point{static_cast<double>(i), std::sin(i / 100.0)});
  const auto idx = report::lttb_indices(many, 600);
  CHECK(idx.size() == 600);
  CHECK(std::is_sorted(idx.begin(), idx.end()));
  CHECK(idx.front() == 0);
  CHECK(idx.back() == 9999);
}

TEST_CASE("report: HTML escaping", "[report][html]") {
  CHECK(report::html_escape("<a href=\"x\">&'</a>") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  CHECK(report::html_escape("25 \u00b0C, \u00d7") == "25 \u00b0C, \u00d7");  // UTF-8 kept
  CHECK(report::html_escape("a\x01"
                            "b\x7f") ==
        "a\xEF\xBF\xBD"
        "b\xEF\xBF\xBD");                                                                // XML forbids these
  CHECK(report::html_escape("bad \xff\xfe end") == "bad \xEF\xBF\xBD\xEF\xBF\xBD end");  // not UTF-8
  CHECK(report::html_escape("tab\tnew\nline") == "tab\tnew\nline");
}

TEST_CASE("report: SVG scales, numbers and paths on a tiny series", "[report][svg]") {
  const report::LinearScale x{0, 10, 0, 100}, y{0, 10, 50, 0};
  CHECK(x(5) == 50);
  CHECK(y(10) == 0);
  CHECK(report::LinearScale{3, 3, 10, 20}(3) == 15);
  CHECK(report::svg_number(12.34) == "12.3");
  CHECK(report::svg_number(-0.04) == "0");
  CHECK(report::svg_number(7.0) == "7");
  const std::vector<Point> pts = {{0, 0}, {5, 10}, {10, 5}};
  CHECK(report::svg_path(pts, x, y) == "M0 50L50 0L100 25");
  CHECK(report::svg_path(pts, x, y, {false, false, true}) == "M0 50L50 0 M100 25");
  CHECK(report::nice_ticks(0, 97, 5) == std::vector<double>{0, 20, 40, 60, 80});
  const auto fractions = report::nice_ticks(0, 1, 4);  // 0.25 a step -> 0.2
  REQUIRE(fractions.size() == 6);
  CHECK(report::tick_label(fractions[0]) == "0");
  CHECK(report::tick_label(fractions[3]) == "0.6");
  CHECK(report::tick_label(25000) == "25k");
  // 2024-06-12T14:22:18Z for 40 min: 5-minute ticks from 14:25.
  const auto ticks = report::time_ticks(1718202138LL * kS, 2400, 10);
  REQUIRE(ticks.size() == 8);
  CHECK(ticks.front().label == "14:25");
  CHECK(ticks.front().value == Approx(162));
  CHECK(ticks.back().label == "15:00");
}

TEST_CASE("report: two crossings near the origin keep their labels apart and inside the plot", "[report][svg]") {
  // The cost chart of a job whose T* and Tλ are 0.5 and 0.6 min on an axis of 50 min: the dots
  // nearly coincide at the bottom left, where a label below would fall on the axis' numbers.
  report::XYChart chart;
  chart.height = 300;  // the plot: y from 34 (title 22 + a label row 12) to 278 (300 - 22)
  chart.x1 = 50;
  chart.dots.push_back(report::ChartDot{Point{0.5, 0.005}, "T* = 0.5 min", "#333"});
  chart.dots.push_back(report::ChartDot{Point{0.6, 0.006}, "T\u03bb = 0.6 min", "#b00020", true});
  const std::string svg = report::render_xy_chart(chart);
  std::vector<double> baselines;
  for (std::size_t at = svg.find("<text class=\"tl\""); at != std::string::npos;
       at = svg.find("<text class=\"tl\"", at + 1)) {
    const std::size_t y = svg.find(" y=\"", at) + 4;
    baselines.push_back(std::stod(svg.substr(y, svg.find('"', y) - y)));
  }
  REQUIRE(baselines.size() == 2);
  for (const double b : baselines) {
    CHECK(b - 9 >= 34);   // the text's top inside the plot
    CHECK(b + 3 <= 278);  // and its bottom above the axis
  }
  // The dot at y 0.005 sits at 278 - 0.005 x 244 = 276.8: below it there is no room (290.8), so
  // T*'s label goes above (268.8); Tλ's, above its own dot (276.5 - 8 = 268.5), would meet it and
  // moves a row up (254.5).
  CHECK(baselines[0] == Approx(268.8).margin(0.1));
  CHECK(baselines[1] == Approx(254.5).margin(0.1));
  CHECK(std::abs(baselines[0] - baselines[1]) >= 12);          // 9 above the baseline + 3 below: no overlap
  CHECK(svg.find("paint-order:stroke") != std::string::npos);  // a halo: the lines under it do not cross the text
}

TEST_CASE("report: throttling is a busy GPU below 85 % of its reference clock", "[report][throttle]") {
  // Reference 2000 MHz -> limit 1700. Busy below the limit: samples 1, 2 (merged) and 5 (to the
  // gap limit: the log stops). Sample 3 is idle, 4 is at full clock.
  const std::vector<extract::Sample> s = {sample(0, 90, 2000),  sample(1, 90, 1600), sample(2, 80, 1500),
                                          sample(3, 10, 300),   sample(4, 95, 1990), sample(5, 99, 1200),
                                          sample(100, 99, 1200)};
  const auto spans = report::throttle_spans(s, 2000, 10 * kS);
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].from_ns == 1 * kS);
  CHECK(spans[0].to_ns == 3 * kS);
  CHECK(spans[1].from_ns == 5 * kS);
  CHECK(spans[1].to_ns == 15 * kS);  // gap: at most 10 s, then the sample at 100 s
  CHECK(report::throttle_spans(s, kNaN, 10 * kS).empty());
  // Without a reported maximum: the p99 of the busy clocks (idle 300 MHz does not count).
  CHECK(report::reference_sm_clock(s, 0) == 2000);
  CHECK(report::reference_sm_clock(s, 2520) == 2520);
}

TEST_CASE("report: downsampled series break at gaps in the log", "[report][timeline]") {
  std::vector<extract::Sample> s;
  for (int i = 0; i < 5; ++i) s.push_back(sample(i, 50, 1000));
  for (int i = 100; i < 105; ++i) s.push_back(sample(i, 50, 1000));
  s[2].power_w = kNaN;  // left out, not drawn as 0
  const auto t = report::downsample_metric(s, &extract::Sample::power_w, 0, 200 * kS, 10 * kS, 600);
  CHECK(t.samples == 9);
  REQUIRE(t.points.size() == 9);
  CHECK(t.break_before == std::vector<bool>{false, false, false, false, true, false, false, false, false});
  CHECK(t.points[4].x == 100);
}

namespace {

breakeven::CostConfig test_config() {
  breakeven::CostConfig c;
  c.currency = "EUR";
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.system_power_w = 100;
  c.hourly_wage = 50;
  c.maintenance_hours_per_year = 10;
  c.rate_per_hour = 0.5;
  c.cold_start_s = 300;
  c.cloud_name = "cloud <b>\"quoted\" & 'single'</b>";
  return c;
}

report::ReportSources hostile_sources() {
  report::ReportSources src;
  auto& f = src.features;
  f.from_ns = 1718202138LL * kS;
  f.to_ns = f.from_ns + 3600 * kS;
  f.host = "host<script>alert('x')</script>&\x01\xff";
  f.host_indicators["energy_kwh"] = extract::IndicatorValue{1.5, ""};
  f.host_indicators["xid_count"] = extract::IndicatorValue{std::nullopt, "no kernel log <none> & \"so\""};
  extract::SampleCollector collector;
  std::vector<extract::Sample> samples;
  for (int i = 0; i < 3600; i += 5) samples.push_back(sample(i, i % 600 < 300 ? 95 : 5, i % 900 < 100 ? 900 : 2500));
  for (auto& x : samples) x.ts_ns += f.from_ns;
  report::GpuTimeline t;
  t.gpu = 0;
  t.power_w = report::downsample_metric(samples, &extract::Sample::power_w, f.from_ns, f.to_ns, 25 * kS, 100);
  t.temp_c = report::downsample_metric(samples, &extract::Sample::temp_c, f.from_ns, f.to_ns, 25 * kS, 100);
  t.util_pct = report::downsample_metric(samples, &extract::Sample::util_pct, f.from_ns, f.to_ns, 25 * kS, 100);
  t.sm_clock_mhz = report::downsample_metric(samples, &extract::Sample::pclk_mhz, f.from_ns, f.to_ns, 25 * kS, 100);
  t.reference_clock_mhz = 2500;
  t.throttled = report::throttle_spans(samples, 2500, 25 * kS);
  src.timelines.push_back(t);
  src.events.push_back(report::TimelineEvent{f.from_ns + 600 * kS, "xid", "Xid 79", "GPU <fell> off & \"bus\""});
  src.events.push_back(report::TimelineEvent{f.from_ns + 601 * kS, "xid", "Xid 79", "again"});
  src.events.push_back(report::TimelineEvent{f.from_ns + 1200 * kS, "power_source", "AC off", "ACPI: AC (off-line)"});
  extract::TraceRecord trace;
  trace.kind = EventKind::trace_device;
  trace.gpu = 0;
  trace.values = {{"span_ns", 10e9}, {"compute_ns", 6e9}, {"noncompute_ns", 1e9}, {"idle_ns", 3e9}, {"rank", 0}};
  src.trace_devices.push_back(trace);
  return src;
}

}  // namespace

TEST_CASE("report: the HTML parses as XML whatever the text holds, and fetches nothing", "[report][html]") {
  const auto config = test_config();
  breakeven::JobInputs job;
  job.wall_h = 1.0;
  job.energy_kwh = {0.4};
  job.util = {0.5};
  const auto result = breakeven::compute(config, job);
  const auto sources = hostile_sources();
  const report::BreakevenExtras extras;
  const std::vector<report::ReportFinding> findings = {{"warning", "Idle <50 %>", "detail & more"}};
  const std::string html = report::html_report({result, config, sources, extras, findings, {78, "gpucost test", ""}});

  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(html.c_str());
  INFO(parsed.description() << " at offset " << parsed.offset);
  REQUIRE(parsed);
  CHECK(doc.child("html").child("body"));
  CHECK(doc.select_nodes("//script").empty());
  CHECK(doc.select_nodes("//*[@src or @href]").empty());
  CHECK(html.find("http") == html.find("http://www.w3.org/"));  // only the XML namespaces
  CHECK(html.find("<script>") == std::string::npos);
  CHECK(doc.select_nodes("//*[local-name()='svg']").size() >= 6);  // costs, break-even, 4 timelines, trace
  CHECK(doc.select_node("//section[@id='findings']"));
  CHECK(doc.select_node("//section[@id='trace']"));
  CHECK(html.find("Xid 79×2") != std::string::npos);  // two Xids a second apart: one marker
  // The same inputs give the same bytes.
  CHECK(html == report::html_report({result, config, sources, extras, findings, {78, "gpucost test", ""}}));
}

TEST_CASE("report: a trace's annotated regions per step, nested and priced as gpucost trace -c prices them",
          "[report][html][regions]") {
  const auto config = test_config();
  breakeven::JobInputs job;
  job.wall_h = 1.0;
  job.energy_kwh = {0.4};
  job.util = {0.5};
  const auto result = breakeven::compute(config, job);
  auto sources = hostile_sources();
  sources.trace_devices.front().values["busy_ns"] = 5e9;  // of 10 s: busy share 0.5
  const auto region = [](const std::string& name, double depth, double calls, double cpu_ns) {
    extract::TraceRecord r;
    r.detail = name;
    r.values = {{"rank", 0},        {"depth", depth}, {"calls", calls},
                {"cpu_ns", cpu_ns}, {"steps", 2},     {"step_share", cpu_ns / 2 / 1e6}};
    return r;
  };
  sources.trace_regions = {region("<forward> & \"co\"", 0, 2, 1.2e6), region("DDP.forward", 1, 3, 0.8e6)};
  const report::BreakevenExtras extras;
  const std::string html = report::html_report({result, config, sources, extras, {}, {78, "gpucost test", ""}});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(html.c_str()));
  CHECK_THAT(html, Catch::Contains("<h3>Annotated regions</h3>"));
  // Per step of 2: forward 1 call, 600 µs of CPU, 60.0 % of a 1 ms step; its child indented, 1.5 calls.
  CHECK_THAT(html, Catch::Contains("<td>&lt;forward&gt; &amp; &quot;co&quot;</td><td class=\"num\">1</td><td "
                                   "class=\"num\">600.0 us</td>"));
  CHECK_THAT(html, Catch::Contains("<td>&nbsp;&nbsp;DDP.forward</td><td class=\"num\">1.5</td>"));
  CHECK_THAT(html, Catch::Contains("60.0 %"));
  const breakeven::StepCost cost = breakeven::step_cost(config, 600e-6, 0.5);
  CHECK_THAT(html, Catch::Contains(fmt::format("{:.4g} {}</td><td class=\"num\">{:.4g} {}", cost.local, config.currency,
                                               cost.cloud, config.currency)));
  CHECK_THAT(html, Catch::Contains("busy share 50.0 %"));
}

TEST_CASE("report: no findings, no trace: those sections stay out", "[report][html]") {
  const auto config = test_config();
  breakeven::JobInputs job;
  job.wall_h = 2.0;
  job.energy_kwh = {0.8};
  job.util = {1.0};
  const auto result = breakeven::compute(config, job);
  report::ReportSources sources;
  sources.features.to_ns = 7200 * kS;
  sources.from_features_document = true;
  const std::string html = report::html_report({result, config, sources, {}, {}, {}});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(html.c_str()));
  CHECK_FALSE(doc.select_node("//section[@id='findings']"));
  CHECK_FALSE(doc.select_node("//section[@id='trace']"));
  CHECK(doc.select_node("//section[@id='verdict']"));
  CHECK(doc.select_node("//section[@id='indicators']"));
}

namespace {

/// A fault of one Xid on GPU0 at `minute` of the window.
extract::WindowFault xid_fault(int minute, const char* bucket, int code) {
  extract::WindowFault w;
  w.ts_ns = w.last_ts_ns = static_cast<std::int64_t>(minute) * 60 * kS;
  w.device = "GPU0";
  w.bucket = bucket;
  w.members = {{"xid", code, 1}};
  w.count = 1;
  return w;
}

extract::IndicatorValue null_because(const char* reason) { return extract::IndicatorValue{std::nullopt, reason}; }

std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("report: what people read adds up: resale, zero, no trace, legend, a storm of faults", "[report][html]") {
  auto config = test_config();
  config.cloud_name = "cloud";
  config.hardware_price = 38000;
  config.residual_fraction = 0.15;
  config.lifetime_years = 4;
  config.use_hours_per_year = 4000;
  breakeven::JobInputs job;
  job.wall_h = 1.0;
  job.energy_kwh = {0.4, 0.4};
  job.util = {0.5, 0.5};
  for (int i = 0; i < 25; ++i)
    job.faults.push_back(i == 22 ? xid_fault(i, "reboot", 79) : xid_fault(i, "restart_app", 13));
  const auto result = breakeven::compute(config, job);
  report::ReportSources sources;
  auto& f = sources.features;
  f.to_ns = 3600 * kS;
  sources.from_features_document = true;
  f.gpus.resize(2);
  f.gpus[1].gpu = 1;
  f.host_indicators["energy_filled_fraction"] = extract::IndicatorValue{4.04103e-15, ""};
  f.host_indicators["gpu_busy_s"] = null_because("no Kineto trace with GPU ops among the inputs");
  f.host_indicators["trace_steps"] = null_because("no Kineto trace among the inputs");
  f.host_indicators["mem_temp_mean_c"] = null_because("no memory temperature samples");
  for (auto& g : f.gpus) {
    g.indicators["gpu_busy_s"] = null_because("no Kineto trace with GPU ops among the inputs");
    g.indicators["mem_temp_mean_c"] = null_because("no memory temperature samples");
  }
  const std::string html = report::html_report({result, config, sources, {}, {}, {}});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(html.c_str()));

  // The amortisation's basis names every factor: 38000 x (1 - 0.15) / (4 x 4000) = 2.0187 per hour.
  CHECK(html.find("38000 EUR less 15 % resale value (5700 EUR), over 4 years of 4000 h of use: 2.0187 EUR per job "
                  "hour") != std::string::npos);
  // Rounding noise of a ratio reads as 0.
  CHECK(html.find("4.04103e-15") == std::string::npos);
  CHECK(html.find("\">energy_filled_fraction</td><td>ratio</td><td class=\"num\">0</td>") != std::string::npos);
  // Without a trace, its indicators are one row; other nulls keep theirs.
  CHECK(html.find("2 trace indicators: no trace given") != std::string::npos);
  CHECK(html.find("null: no Kineto trace") == std::string::npos);
  CHECK(count_of(html, "null: no memory temperature samples") == 3);
  // The break-even legend: each name after a stroke of its line's colour (the stylesheet greys .lg text).
  CHECK(html.find("stroke=\"#1f6fb2\" stroke-width=\"2.5\"/><text class=\"lg\"") != std::string::npos);
  CHECK(html.find("stroke=\"#e07b00\" stroke-width=\"2.5\"/><text class=\"lg\"") != std::string::npos);
  CHECK(html.find("stroke=\"#b00020\" stroke-width=\"2.5\" stroke-dasharray=\"5 3\"/><text class=\"lg\"") !=
        std::string::npos);
  CHECK(html.find("&#9644;") == std::string::npos);
  // 25 faults: the 20 costliest (the reboot among them) and a note of the 5 others; the total stays.
  const auto rows = doc.select_nodes("//section[@id='incidents']/table/tr");
  CHECK(rows.size() == 21);  // the header and 20
  CHECK(html.find("Xid 79 (reboot, unknown)") != std::string::npos);
  CHECK(html.find("The 20 costliest of 25 incidents. \u2026 and 5 more: 25.00 EUR, 30.0 min operator time") !=
        std::string::npos);
  CHECK(html.find("<td>incidents</td><td class=\"num\">170.00 EUR</td><td>25 faults of 25 events in the window; 0 the "
                  "application caused (both-sides), 25 hardware or unknown (local only)</td>") != std::string::npos);

  SECTION("with a trace, its null indicators keep their rows") {
    f.host_indicators["kernels"] = extract::IndicatorValue{4, ""};  // a trace gave kernels
    const std::string traced = report::html_report({result, config, sources, {}, {}, {}});
    CHECK(traced.find("trace indicators: no trace given") == std::string::npos);
    CHECK(count_of(traced, "null: no Kineto trace with GPU ops among the inputs") == 3);
  }
}

TEST_CASE("report: the trace table counts in the singular where there is one", "[report][trace]") {
  report::TraceEventCopy info;
  info.kind = "trace_info";
  info.fields = {{"records", "1"}, {"gpu_ops", "1"}, {"steps", "1"}};
  report::TraceEventCopy device;
  device.kind = "trace_device";
  device.gpu = 0;
  device.fields = {{"ops", "1"}, {"streams", "1"}, {"span_ns", "1000"}, {"kernels", "1"}};
  report::TraceEventCopy memcpy;
  memcpy.kind = "trace_memory";
  memcpy.gpu = 0;
  memcpy.fields = {{"op", "memcpy"}, {"count", "1"}, {"total_ns", "500"}};
  const std::string table = report::trace_table({info, device, memcpy});
  INFO(table);
  CHECK(table.find("  1 record, 1 GPU op, 1 step\n") != std::string::npos);
  CHECK(table.find("span 1.0 us, 1 op on 1 stream\n") != std::string::npos);
  CHECK(table.find("no op joined to a launch call (1 op without one)") != std::string::npos);
  CHECK(table.find("  memcpy      1 op, ") != std::string::npos);
  info.fields = {{"records", "4"}, {"gpu_ops", "2"}, {"steps", "0"}};
  CHECK(report::trace_table({info}).find("  4 records, 2 GPU ops, 0 steps\n") != std::string::npos);
}

TEST_CASE("report: kernel names are cut in the middle and read differently after the cut", "[report][trace]") {
  const std::string prefix = "void at::native::vectorized_elementwise_kernel<4, at::native::";
  const std::vector<std::string> names{prefix + "FillFunctor<float>, at::detail::Array<char*, 1> >(int)",
                                       prefix + "CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int)",
                                       "volta_sgemm_128x64_nn"};
  const auto cut = report::fit_kernel_names(names, 56);
  REQUIRE(cut.size() == 3);
  CHECK(cut[2] == "volta_sgemm_128x64_nn");  // short enough: as it is
  for (std::size_t i = 0; i < 2; ++i) {
    INFO(cut[i]);
    CHECK(cut[i].size() == 56);
    CHECK(cut[i].starts_with("void at::native::"));
    CHECK(cut[i].find("...") != std::string::npos);
    CHECK(names[i].ends_with(cut[i].substr(cut[i].find("...") + 3)));
  }
  CHECK(cut[0] != cut[1]);
  CHECK(cut[0].find("FillFunctor") == std::string::npos);  // the end given first: "...Array<char*, 1> >(int)"
  // Names that differ only just after the middle: the cut moves until they differ.
  const std::string a = std::string(40, 'a') + "X" + std::string(40, 'z');
  const std::string b = std::string(40, 'a') + "Y" + std::string(40, 'z');
  const auto moved = report::fit_kernel_names({a, b}, 56);
  CHECK(moved[0] != moved[1]);
  CHECK(moved[0].size() == 56);
  CHECK(report::fit_kernel_names(names, 0) == names);  // --wide
}

TEST_CASE("report: trace --json has each trace, its GPUs with their kernels, numbers as numbers", "[report][trace]") {
  report::TraceEventCopy info;
  info.kind = "trace_info";
  info.fields = {{"records", "4"}, {"trace_name", "r0.json"}};
  info.numeric = {{"records", true}, {"trace_name", false}};
  report::TraceEventCopy device;
  device.kind = "trace_device";
  device.gpu = 1;
  device.fields = {{"busy_ns", "700"}};
  device.numeric = {{"busy_ns", true}};
  report::TraceEventCopy kernel;
  kernel.kind = "trace_kernel";
  kernel.gpu = 1;
  kernel.fields = {{"name", "k\"1"}, {"count", "2"}};
  kernel.numeric = {{"count", true}};
  CHECK(
      report::trace_json({info, device, kernel}, {}) ==
      R"({"traces":[{"info":{"records":4,"trace_name":"r0.json"},"gpus":[{"gpu":1,"busy_ns":700,"memory":[],)"
      R"("top_kernels":[{"count":2,"name":"k\"1"}],"streams":[],"step_memory":[]}],"communication":null,"regions":[]}],"jobs":[]})"
      "\n");
  CHECK(report::trace_json({}, {}) == "{\"traces\":[],\"jobs\":[]}\n");
}

TEST_CASE("report: LTTB over a stream keeps the points lttb_indices keeps, with their tags", "[report][lttb]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> y(-100, 100);
  for (const std::size_t n : {0U, 1U, 2U, 3U, 4U, 5U, 10U, 37U, 600U, 601U, 602U, 1000U, 4099U}) {
    std::vector<report::Point> points;
    double x = 0;
    for (std::size_t i = 0; i < n; ++i) {
      x += 0.5 + static_cast<double>(rng() % 3);  // uneven steps, as logs have
      points.push_back(report::Point{x, rng() % 5 == 0 ? 0 : y(rng)});
    }
    for (const std::size_t threshold : {0U, 1U, 2U, 3U, 4U, 7U, 100U, 600U, 5000U}) {
      INFO(n << " points, threshold " << threshold);
      const auto want = report::lttb_indices(points, threshold);
      report::LttbStream stream(n, threshold);
      for (std::size_t i = 0; i < n; ++i) stream.add(points[i], 1000 + i);
      const auto& got = stream.kept();
      REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        CHECK(got[k].index == want[k]);
        CHECK(got[k].tag == 1000 + want[k]);
        CHECK(got[k].point.x == points[want[k]].x);
      }
    }
  }
}

TEST_CASE("report: the verdict names the offer's price, its age and doubts", "[report][html]") {
  auto config = test_config();
  config.cloud_offer = "runpod-h100-sxm";
  config.offer_kind = "on-demand";
  config.offer_date_seen = "2024-09-01";
  config.offer_age_days = 822;
  config.offer_confirmed = false;
  config.offer_source = "https://www.runpod.io/pricing";
  breakeven::JobInputs job;
  job.wall_h = 1.0;
  job.energy_kwh = {0.4};
  job.util = {0.5};
  report::ReportSources sources;
  sources.features.to_ns = 3600 * kS;
  sources.from_features_document = true;
  const std::string html = report::html_report({breakeven::compute(config, job), config, sources, {}, {}, {}});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(html.c_str()));
  const pugi::xml_node row = doc.select_node("//tr[th='cloud price']/td").node();
  REQUIRE(row);
  CHECK(std::string(row.attribute("class").value()) == "warning");
  const std::string text = row.child_value();
  CHECK(text.find("on-demand price seen 2024-09-01, 822 days old: it may have changed") != std::string::npos);
  CHECK(text.find("not confirmed against its source") != std::string::npos);
}

namespace {

/// The features of the 2-rank DDP job of testdata/trace/ranks, as extract gives them.
extract::Features ddp2_features() {
  extract::SampleCollector c;
  std::vector<InputStats> inputs;
  for (const char* name : {"ddp2_rank-0.pt.trace.json", "ddp2_rank-1.pt.trace.json"}) {
    auto reader = io::LineReader::from_string(test::fixture(std::string("trace/ranks/") + name));
    auto clock = LocalClock::make("UTC");
    InputStats stats;
    stats.path = name;
    REQUIRE(prep::run_prep_input(*reader, {}, *clock, c, stats));
    inputs.push_back(stats);
  }
  c.note_inputs(inputs);
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  return std::move(*f);
}

}  // namespace

TEST_CASE("report: a distributed job's ranks over time, and what their waiting costs", "[report][ranks]") {
  const auto config = test_config();
  report::ReportSources sources;
  sources.features = ddp2_features();
  REQUIRE(sources.features.trace_jobs.size() == 1);
  breakeven::JobInputs job;  // the traces hold no energy: a job of an hour priced by hand
  job.wall_h = 1.0;
  job.energy_kwh = {0.4, 0.4};
  job.util = {0.5, 0.5};
  const auto result = breakeven::compute(config, job);
  const std::string html = report::html_report({result, config, sources, {}, {}, {}});
  pugi::xml_document doc;
  REQUIRE(doc.load_string(html.c_str()));
  const pugi::xml_node section = doc.select_node("//section[@id='ranks']").node();
  REQUIRE(section);
  CHECK(std::string(section.child_value("h2")) == "Distributed job: ranks over time");
  // One strip per rank, the straggler marked, each drawn in runs of its states' colours.
  const auto labels = section.select_nodes(".//*[local-name()='text'][@class='rl']");
  REQUIRE(labels.size() == 2);
  CHECK(std::string(labels[0].node().child_value()) == "rank 0");
  CHECK(std::string(labels[1].node().child_value()) == "rank 1 (straggler)");
  for (const char* colour : {"#2e7d32", "#c62828", "#bdbdbd"})
    CHECK_FALSE(
        section.select_nodes((std::string(".//*[local-name()='rect'][@fill='") + colour + "']").c_str()).empty());
  CHECK(html.find("rank 0: compute, 0.00 .. 0.10 ms from the job&#39;s start") != std::string::npos);
  // The table per rank: rank 0 waited 500 us of its 2.49 ms, rank 1 150 us.
  CHECK(html.find("<td>rank 0</td><td class=\"num\">2.490 ms</td><td class=\"num\">500.0 us</td><td "
                  "class=\"num\">20.1 %</td><td class=\"num\">1 of 3</td>") != std::string::npos);
  CHECK(html.find("<td>rank 1 (straggler)</td><td class=\"num\">2.490 ms</td><td class=\"num\">150.0 us</td>") !=
        std::string::npos);
  // The waiting cost, as breakeven prices it: 650 of 4 980 us of GPU time.
  const auto costs = breakeven::trace_job_costs(result, sources.features);
  REQUIRE(costs.size() == 1);
  CHECK(costs.front().job.wait_fraction() == Approx(650.0 / 4980.0));
  CHECK(html.find(fmt::format("<td>waiting for the straggler</td><td class=\"num\">13.1 %</td><td "
                              "class=\"num\">{} EUR</td><td class=\"num\">{} EUR</td><td>for rank 1 in 67 % of 3 "
                              "steps</td>",
                              breakeven::unit_money(costs.front().wait_local),
                              breakeven::unit_money(costs.front().wait_cloud))) != std::string::npos);
  CHECK(html.find(fmt::format("<td>exposed communication</td><td class=\"num\">33.9 %</td><td class=\"num\">{} EUR",
                              breakeven::unit_money(costs.front().exposed_local))) != std::string::npos);

  SECTION("the features document keeps each rank's start and strip; one edited out of shape is dropped") {
    std::string json = extract::features_to_json(sources.features);
    const auto back = extract::features_from_json(json, "f.json");
    REQUIRE(back);
    REQUIRE(back->trace_jobs.size() == 1);
    const auto& was = sources.features.trace_jobs.front().ranks;
    const auto& now = back->trace_jobs.front().ranks;
    REQUIRE(now.size() == 2);
    CHECK(now[1].strip.size() == 120);
    CHECK(now[1].strip == was[1].strip);
    CHECK(now[1].start_ns == was[1].start_ns);
    CHECK(now[1].start_ns == 1'718'186'400'000'010'000);
    const std::size_t at = json.find("\"strip\": \"");
    REQUIRE(at != std::string::npos);
    json[at + 10] = 'z';
    const auto edited = extract::features_from_json(json, "f.json");
    REQUIRE(edited);
    CHECK(edited->trace_jobs.front().ranks[0].strip.empty());
  }
  SECTION("features without strips (an older document): the tables stay, a note replaces the chart") {
    for (auto& r : sources.features.trace_jobs.front().ranks) r.strip.clear();
    const std::string old = report::html_report({result, config, sources, {}, {}, {}});
    CHECK(old.find("No strip of the ranks to draw") != std::string::npos);
    CHECK(old.find("<td>waiting for the straggler</td>") != std::string::npos);
  }
  SECTION("a job of one rank has no such section") {
    sources.features.trace_jobs.front().ranks.resize(1);
    CHECK(report::html_report({result, config, sources, {}, {}, {}}).find("id=\"ranks\"") == std::string::npos);
  }
}

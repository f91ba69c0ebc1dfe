// Annotated regions (docs/formats.md, "Annotated regions") on testdata/trace/regions_two_steps,
// a trace written by hand in Kineto's shape. Times in µs from its origin; by hand:
//   step 1 [0, 1000): forward [10,310) > DDP.forward [20,270) > launch@30 -> gemm [100,300)
//                     backward [400,800), gpu_user_annotation [420,720) s7; launch@410 -> [450,550),
//                     and autograd's thread (tid 200) launch@600 -> [610,630) s20
//                     optimizer [850,950): launch@860 -> [870,920) s7, launch@900 -> [910,950) s20
//                     dataloader [960,990): launches nothing
//   step 2 [1000, 2000): forward [1010,1210) > DDP.forward [1020,1170) > DDP.forward [1040,1090)
//                     launch@1030 -> [1100,1200); backward [1300,1800), gpu_user_annotation
//                     [1320,1720) s7 and [1500,1800) s20; optimizer [1850,1950): launch@1860 -> [1870,1930)
//   forward:   2 calls, CPU 300 + 200 = 500, launched GPU 200 + 100 = 300, share 500/2000 = 25 %
//   DDP:       3 calls, CPU 250 + 150 (the inner call inside the outer) = 400, GPU 300, in forward
//   backward:  2 calls, CPU 900, annotated GPU 300 + |[1320,1800)| 480 = 780 (launched: 100 + 20), 45 %
//   optimizer: 2 calls, CPU 200, launched GPU |[870,950)| 80 + 60 = 140, 10 %
//   dataloader: 2 calls, CPU 60, no GPU time, 3 %
#include <catch2/catch.hpp>

#include "prep/profiler/trace/regions.hpp"
#include "support.hpp"

#include <gpucost/breakeven/config.hpp>
#include <gpucost/io/json_out.hpp>
#include <gpucost/report/trace_price.hpp>
#include <gpucost/report/trace_regions.hpp>

namespace gpucost::test {

namespace {

using namespace prep::trace;

const RegionRow& row(const RegionReport& r, const std::string& name) {
  for (const RegionRow& x : r.rows)
    if (x.name == name) return x;
  FAIL("no region " << name);
  return r.rows.front();
}

constexpr const char* kDataLoader = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

/// The lab machine of testdata/attribution/lab.toml: 2.536 EUR per hour locally, 1.60 in the cloud.
breakeven::CostConfig lab_config() {
  breakeven::CostConfig c;
  c.currency = "EUR";
  c.price_per_kwh = 0.30;
  c.hardware_price = 12000;
  c.lifetime_years = 3;
  c.use_hours_per_year = 2000;
  c.system_power_w = 120;
  c.hourly_wage = 50;
  c.maintenance_hours_per_year = 20;
  c.rate_per_hour = 1.60;
  c.speed_ratio = 1.0;
  return c;
}

std::vector<report::TraceEventCopy> trace_events(const std::string& text) {
  const PrepRun r = run_prep_text(text);
  std::vector<report::TraceEventCopy> out;
  for (const OwnedEvent& e : r.events) {
    if (!e.kind.starts_with("trace_")) continue;
    report::TraceEventCopy c;
    c.kind = e.kind;
    c.gpu = e.gpu;
    c.fields = e.fields;  // the JSON writes them as strings: the checks below read the cost members
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

TEST_CASE("regions: the reader keeps user annotations and their GPU projection, not the steps", "[regions]") {
  const TraceData d = read_trace_text(fixture("trace/regions_two_steps.pt.trace.json"));
  CHECK(d.steps.size() == 2);
  CHECK(d.cpu_regions.size() == 11);  // 13 user_annotation less the 2 ProfilerStep
  CHECK(d.gpu_regions.size() == 3);   // 4 gpu_user_annotation less ProfilerStep#1's
  CHECK(d.gpu_annotations == 4);
  CHECK(d.region_names.size() == 5);
  CHECK(d.counts.ignored == 1);  // every record is used but the GPU's ProfilerStep#1
  CHECK(d.gpu_regions[2].lane == 20);
  CHECK(d.gpu_regions[2].device == 0);
}

TEST_CASE("regions: calls, inclusive CPU time, GPU time and nesting over two steps", "[regions]") {
  const TraceData d = read_trace_text(fixture("trace/regions_two_steps.pt.trace.json"));
  const RegionReport r = analyse_regions(d, d.steps, false);
  CHECK(r.steps == 2);
  CHECK(r.step_ns == 1'000'000);
  REQUIRE(r.rows.size() == 5);
  CHECK(r.rows[0].name == "## backward ##");  // longest CPU time first
  const RegionRow& fwd = row(r, "## forward ##");
  CHECK(fwd.calls == 2);
  CHECK(fwd.cpu_ns == 500'000);
  CHECK(fwd.gpu_source == RegionGpuSource::launched_ops);
  CHECK(fwd.gpu_ns() == 300'000);
  CHECK(fwd.depth == 0);
  CHECK(fwd.parent.empty());
  const RegionRow& ddp = row(r, "DistributedDataParallel.forward");
  CHECK(ddp.calls == 3);
  CHECK(ddp.cpu_ns == 400'000);  // the call inside itself counts once
  CHECK(ddp.launched_gpu_ns == 300'000);
  CHECK(ddp.depth == 1);
  CHECK(ddp.parent == "## forward ##");
  const RegionRow& bwd = row(r, "## backward ##");
  CHECK(bwd.calls == 2);
  CHECK(bwd.gpu_calls == 3);
  CHECK(bwd.devices == 1);
  CHECK(bwd.cpu_ns == 900'000);
  CHECK(bwd.gpu_source == RegionGpuSource::annotation);
  CHECK(bwd.gpu_ns() == 780'000);         // the union over its streams
  CHECK(bwd.launched_gpu_ns == 120'000);  // autograd's thread launched 20 us of it
  const RegionRow& opt = row(r, "Optimizer.step#SGD.step");
  CHECK(opt.cpu_ns == 200'000);
  CHECK(opt.gpu_ns() == 140'000);
  const RegionRow& dl = row(r, kDataLoader);
  CHECK(dl.cpu_ns == 60'000);
  CHECK(dl.gpu_source == RegionGpuSource::none);
  CHECK(dl.threads == 1);
}

TEST_CASE("regions: --steps counts the ranges that start in the chosen steps", "[regions]") {
  const TraceData d = read_trace_text(fixture("trace/regions_two_steps.pt.trace.json"));
  const std::vector<StepMark> second{d.steps[1]};
  const RegionReport r2 = analyse_regions(d, second, true);
  CHECK(r2.steps == 1);
  CHECK(row(r2, "## forward ##").calls == 1);
  CHECK(row(r2, "## forward ##").cpu_ns == 200'000);
  CHECK(row(r2, "## backward ##").gpu_ns() == 480'000);
  // Step 1 ends where step 2 starts: its GPU projection at [420, 720) is counted, step 2's not.
  const std::vector<StepMark> first{d.steps[0]};
  const RegionReport r1 = analyse_regions(d, first, true);
  CHECK(row(r1, "## backward ##").gpu_ns() == 300'000);
  CHECK(row(r1, "Optimizer.step#SGD.step").gpu_ns() == 80'000);
  CHECK(analyse_regions(d, {}, true).rows.empty());  // --steps matched nothing
}

TEST_CASE("regions: a trace without step marks is counted whole, per trace", "[regions]") {
  TraceData d = read_trace_text(fixture("trace/regions_two_steps.pt.trace.json"));
  d.steps.clear();
  const RegionReport r = analyse_regions(d, d.steps, false);
  CHECK(r.steps == 0);
  CHECK(row(r, "## backward ##").cpu_ns == 900'000);
}

TEST_CASE("regions: trace_region events, the table and the JSON, priced per step and per epoch", "[regions][cost]") {
  const auto events = trace_events(fixture("trace/regions_two_steps.pt.trace.json"));
  const report::TraceEventCopy* bwd = nullptr;
  int regions = 0;
  for (const auto& e : events)
    if (e.kind == "trace_region") {
      ++regions;
      if (e.text("name") == "## backward ##") bwd = &e;
    }
  CHECK(regions == 5);
  REQUIRE(bwd != nullptr);
  CHECK(bwd->text("cpu_ns") == "900000");
  CHECK(bwd->text("gpu_ns") == "780000");
  CHECK(bwd->text("gpu_source") == "gpu_user_annotation");
  CHECK(bwd->number("step_share") == Approx(0.45));
  CHECK(bwd->text("steps") == "2");

  const breakeven::CostConfig c = lab_config();
  report::TracePrice price;
  price.config = &c;
  price.busy_share = 0.5;  // speed ratio 1: the cloud bills the whole span whatever the busy share
  price.steps_per_epoch = 1000;
  const std::string table = report::trace_regions_text(events, 0, events.size(), false, &price);
  // backward per step: 450 us; 2.536 EUR/h -> 3.17e-07 EUR, 1.60 EUR/h -> 2e-07 EUR; x 1000 per epoch.
  CHECK(table.find("## backward ##") != std::string::npos);
  CHECK(table.find("  DistributedDataParallel.forward") != std::string::npos);  // indented under forward
  CHECK(table.find("3.17e-07") != std::string::npos);
  CHECK(table.find("0.000317") != std::string::npos);
  CHECK(table.find("45.0 %") != std::string::npos);
  CHECK(table.find("times inclusive") != std::string::npos);

  std::string json;
  io::JsonWriter w(json, io::JsonWriter::Layout::compact);
  w.object();
  report::trace_regions_json(w, events, 0, events.size(), &price);
  w.close();
  CHECK(json.find(R"("local_per_epoch":0.000317)") != std::string::npos);
  CHECK(json.find(R"("per":"step")") != std::string::npos);

  price.steps_per_epoch.reset();
  CHECK(report::trace_regions_text(events, 0, events.size(), false, &price).find("--steps-per-epoch") !=
        std::string::npos);
}

TEST_CASE("regions: without step marks a region is priced per trace, and not per epoch", "[regions][cost]") {
  // The fixture without its two ProfilerStep records: prep counts the regions over the whole trace.
  std::string text = fixture("trace/regions_two_steps.pt.trace.json");
  for (const char* step : {"\"ProfilerStep#1\", \"pid\": 100", "\"ProfilerStep#2\", \"pid\": 100"}) {
    const std::size_t at = text.find(step);
    REQUIRE(at != std::string::npos);
    text.replace(at + 1, 14, "Step marker #0");  // a user region named so, not a step
  }
  const auto events = trace_events(text);
  const breakeven::CostConfig c = lab_config();
  report::TracePrice price;
  price.config = &c;
  price.steps_per_epoch = 1000;
  const std::string table = report::trace_regions_text(events, 0, events.size(), false, &price);
  CHECK(table.find("over the whole trace") != std::string::npos);
  CHECK(table.find("local/trace") != std::string::npos);
  CHECK(table.find("local/epoch") == std::string::npos);
  CHECK(table.find("no per-step figure") != std::string::npos);
  // The two former steps are now the top-level region "Step marker #0": 2 ms in all, and
  // "## backward ##" nested in it; 900 us priced per trace: 2.536 / 3600 x 0.0009 = 6.34e-07 EUR.
  CHECK(table.find("Step marker #0") != std::string::npos);
  CHECK(table.find("6.34e-07") != std::string::npos);
}

}  // namespace gpucost::test

// The cloud fit with a trace's `[memory]` peaks (docs/cost-model.md, "Offers that can run the job"):
// the allocated peak decides, with the margin and the memory outside PyTorch's allocator; both the
// trace's figures and nvidia-smi's are stated. Expected values by hand in the comments.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/cost_model.hpp>
#include <gpucost/extract/features.hpp>
#include <gpucost/report/html_report.hpp>

namespace gpucost::test {

namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

breakeven::CloudOffer card(double memory_gb) {
  breakeven::CloudOffer o;
  o.name = "card";
  o.gpu_memory_gb = memory_gb;
  o.gpus = 1;
  return o;
}

breakeven::JobShape traced(std::int64_t allocated, std::int64_t reserved) {
  breakeven::JobShape s;
  s.gpus = 1;
  s.trace_memory = extract::TraceMemoryPeak{allocated, reserved, 1};
  return s;
}

}  // namespace

TEST_CASE("cloud fit: a trace's allocated peak decides, plus the CUDA context allowance", "[breakeven][trace_memory]") {
  const double margin = 0.05;
  // 22 GiB allocated, 30 GiB reserved, no telemetry: 22 x 1.05 + 0.5 = 23.6 GiB; a 24 GB card fits.
  const breakeven::JobShape job = traced(22 * kGiB, 30 * kGiB);
  CHECK(*breakeven::outside_allocator_mib(job) == Approx(512));
  CHECK(*breakeven::required_memory_mib(job, margin) == Approx(23.6 * 1024));
  CHECK(breakeven::unfit_reason(card(24), job, margin).empty());
  CHECK(breakeven::fit_basis(job, margin) ==
        "to fit: 1 GPU, 23.6 GiB per GPU (trace peak allocated 22.00 GiB + 5 % + 0.50 GiB outside the allocator "
        "(allowance for the CUDA context); allocator reserved 30.00 GiB; nvidia-smi frame-buffer peak not in the "
        "logs)");
  // 24 GiB allocated: 25.2 + 0.5 = 25.7 GiB, more than a 24 GB card.
  const breakeven::JobShape big = traced(24 * kGiB, 30 * kGiB);
  CHECK(breakeven::unfit_reason(card(24), big, margin) ==
        "24 GB per GPU, the job needs 25.7 GiB (trace peak allocated 24.00 GiB + 5 % + 0.50 GiB outside the "
        "allocator (allowance for the CUDA context))");
}

TEST_CASE("cloud fit: with nvidia-smi's peak, what lies outside the allocator is measured",
          "[breakeven][trace_memory]") {
  const double margin = 0.05;
  // nvidia-smi 31.5 GiB, reserved 30 GiB: 1.5 GiB outside the allocator; need 20 x 1.05 + 1.5 =
  // 22.5 GiB: a 24 GB card fits, where the frame-buffer rule (31.5 x 1.05 = 33.1 GiB) left it out.
  breakeven::JobShape job = traced(20 * kGiB, 30 * kGiB);
  job.peak_fb_mib = 31.5 * 1024;
  CHECK(*breakeven::outside_allocator_mib(job) == Approx(1.5 * 1024));
  CHECK(*breakeven::required_memory_mib(job, margin) == Approx(22.5 * 1024));
  CHECK(breakeven::unfit_reason(card(24), job, margin).empty());
  CHECK(breakeven::fit_basis(job, margin) ==
        "to fit: 1 GPU, 22.5 GiB per GPU (trace peak allocated 20.00 GiB + 5 % + 1.50 GiB outside the allocator "
        "(nvidia-smi peak 31.50 GiB - reserved 30.00 GiB); allocator reserved 30.00 GiB; nvidia-smi frame-buffer "
        "peak 31.50 GiB)");
  // Without the trace's allocated total (PyTorch 1.8's events), nvidia-smi's peak decides as before.
  job.trace_memory->allocated_bytes = -1;
  CHECK_FALSE(breakeven::outside_allocator_mib(job));
  CHECK(*breakeven::required_memory_mib(job, margin) == Approx(31.5 * 1.05 * 1024));
  CHECK(breakeven::unfit_reason(card(24), job, margin) == "24 GB per GPU, the job used up to 31.5 GiB (+5 % margin)");
  // The local card still caps the need: a job that ran on it fits any card as large.
  breakeven::JobShape capped = traced(23 * kGiB, 23 * kGiB);
  capped.peak_fb_mib = 23.5 * 1024;
  capped.local_fb_mib = 24 * 1024;  // 23 x 1.05 + 0.5 = 24.65 GiB, capped at 24
  CHECK(*breakeven::required_memory_mib(capped, margin) == Approx(24 * 1024));
  CHECK(breakeven::unfit_reason(card(24), capped, margin).empty());
}

TEST_CASE("features: trace_memory is written, read back and merged as the largest peak", "[extract][trace_memory]") {
  extract::Features f;
  f.trace_memory = extract::TraceMemoryPeak{6629508096, 12782141440, 1};
  auto back = extract::features_from_json(extract::features_to_json(f), "f.json");
  REQUIRE(back);
  REQUIRE(back->trace_memory);
  CHECK(back->trace_memory->allocated_bytes == 6629508096);
  CHECK(back->trace_memory->reserved_bytes == 12782141440);
  CHECK(back->trace_memory->gpus == 1);
  extract::Features none;
  auto old = extract::features_from_json(extract::features_to_json(none), "old.json");
  REQUIRE(old);
  CHECK_FALSE(old->trace_memory);
  std::optional<extract::TraceMemoryPeak> sum;
  extract::add_trace_memory({100, 300, 1}, sum);
  extract::add_trace_memory({200, -1, 1}, sum);
  REQUIRE(sum);
  CHECK(sum->allocated_bytes == 200);
  CHECK(sum->reserved_bytes == 300);
  CHECK(sum->gpus == 2);
}

TEST_CASE("report: the trace table's memory column, only when a trace has [memory] events", "[report][trace_memory]") {
  breakeven::CostConfig c;
  c.currency = "EUR";
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.rate_per_hour = 0.5;
  breakeven::JobInputs job;
  job.wall_h = 1.0;
  job.energy_kwh = {0.4};
  job.util = {0.5};
  const auto result = breakeven::compute(c, job);
  report::ReportSources sources;
  sources.features.to_ns = 3600LL * 1'000'000'000;
  sources.from_features_document = true;
  extract::TraceRecord d;
  d.kind = EventKind::trace_device;
  d.gpu = 1;
  d.values = {{"span_ns", 10e9}, {"compute_ns", 6e9}, {"noncompute_ns", 1e9}, {"idle_ns", 3e9}};
  sources.trace_devices.push_back(d);
  const std::string without = report::html_report({result, c, sources, {}, {}, {}});
  CHECK(without.find("memory peak allocated") == std::string::npos);
  // 6629508096 B = 6.17 GiB, 12782141440 B = 11.90 GiB (the corpus trace's peaks).
  sources.trace_devices.front().values["mem_events"] = 26770;
  sources.trace_devices.front().values["mem_peak_allocated_bytes"] = 6629508096;
  sources.trace_devices.front().values["mem_peak_reserved_bytes"] = 12782141440;
  const std::string with = report::html_report({result, c, sources, {}, {}, {}});
  CHECK(with.find("<th>memory peak allocated / reserved</th>") != std::string::npos);
  CHECK(with.find("<td class=\"num\">6.17 GiB / 11.90 GiB</td>") != std::string::npos);
}

}  // namespace gpucost::test

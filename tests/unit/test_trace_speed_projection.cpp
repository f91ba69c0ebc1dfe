// The speed ratio projected from this job's trace (docs/cost-model.md, "Speed projected from the
// trace"): the kernel-name rules, the step split prep computes, the features that carry it, and
// the projection breakeven makes of it with a GPU table written here (not data/gpu-speed.toml, whose
// figures change). Every figure is worked by hand in the comments.
//
// testdata/trace/rtx4090_two_steps.pt.trace.json, one RTX 4090, two ProfilerSteps of 1000 µs:
//   step 1 [1000, 2000): memcpy HtoD [1050,1100), GEMM [1100,1500), elementwise [1500,1600),
//          NCCL all-reduce (stream 20) [1400,1700), an unknown kernel (fused_bias_gelu) [1700,1750)
//   step 2 [2000, 3000): memcpy [2050,2100), GEMM [2100,2500), reduce (stream 8) [2400,2600),
//          NCCL [2600,2700), unknown [2700,2750), elementwise [2950,3050) running past the step's end
// Split (µs, tensor > memory > unknown > communication on overlaps):
//   tensor 400 + 400 = 800; memory 50+100 + 50+100 (reduce after the GEMM)+50 (clipped) = 350;
//   unknown 50 + 50 = 100; exposed comm 100 (1600-1700) + 100 = 200; rest 2000 - 1450 = 550.
// Kernel time by bound (whole ops): tensor 800, memory 100+100+200+100 = 500, comm 400, unknown 100.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/kernel_bound.hpp"
#include "support.hpp"

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/breakeven/speed_projection.hpp>
#include <gpucost/extract/extract.hpp>
#include <gpucost/report/breakeven_report.hpp>

#include <fmt/format.h>
#include <simdjson.h>

namespace gpucost::test {

namespace {

using prep::trace::kernel_bound;
using prep::trace::KernelBound;

const OwnedEvent* find_kind(const PrepRun& r, const std::string& kind) {
  for (const OwnedEvent& e : r.events)
    if (e.kind == kind) return &e;
  return nullptr;
}

std::int64_t int_field(const OwnedEvent& e, const std::string& key) {
  const std::string v = field(e, key);
  INFO("field " << key);
  REQUIRE(v != "<absent>");
  return std::stoll(v);
}

extract::Features features_of_fixture() {
  extract::SampleCollector c;
  auto reader = io::LineReader::from_string(fixture("trace/rtx4090_two_steps.pt.trace.json"));
  auto clock = LocalClock::make("UTC");
  gpucost::InputStats stats;
  stats.path = "rtx4090_two_steps.pt.trace.json";
  REQUIRE(prep::run_prep_input(*reader, {}, *clock, c, stats));
  c.note_inputs({stats});
  auto f = extract::compute_features(c, {});
  REQUIRE(f);
  return std::move(*f);
}

/// A GPU table with round figures (not real ones): the ratios are 4 (tensor), 3 (memory), 12.5
/// (interconnect) from "RTX 4090" to "H100 SXM", and 2, 1.5, 10 to "A100".
constexpr std::string_view kTable = R"(
[[gpu]]
model = "RTX 4090"
match = ["rtx 4090"]
dense_tflops = 100
accumulate = "fp32"
memory_bw_gbs = 1000
interconnect_gbs = 32
source = "test"
date_seen = "2026-12-04"

[[gpu]]
model = "H100 SXM"
match = ["h100", "h100 sxm"]
dense_tflops = 400
accumulate = "fp32"
memory_bw_gbs = 3000
interconnect_gbs = 400
source = "test"
date_seen = "2026-12-04"

[[gpu]]
model = "A100"
match = ["a100"]
dense_tflops = 200
accumulate = "fp32"
memory_bw_gbs = 1500
interconnect_gbs = 320
source = "test"
date_seen = "2026-12-04"

[[gpu]]
model = "L4"
match = ["l4"]
dense_tflops = 120
accumulate = "fp32"
source = "test"
date_seen = "2026-12-04"
)";

std::vector<breakeven::GpuSpeed> table() {
  auto t = breakeven::parse_gpu_speeds(kTable, "test.toml");
  REQUIRE(t);
  return std::move(*t);
}

breakeven::CloudOffer offer(const char* name, const char* model, std::optional<double> speed_ratio = std::nullopt) {
  const std::string toml = fmt::format(
      "[[offer]]\nname = \"{}\"\nprovider = \"p\"\ninstance = \"{}\"\ngpu_model = \"{}\"\ngpu_memory_gb = 80\n"
      "gpus = 1\nprice_per_hour = 2\ncurrency = \"USD\"\ndate_seen = \"2026-11-01\"\nsource = \"test\"\n{}",
      name, name, model, speed_ratio ? fmt::format("speed_ratio = {}\n", *speed_ratio) : std::string());
  auto parsed = breakeven::parse_cloud_offers(toml, "test");
  REQUIRE(parsed);
  return parsed->front();
}

breakeven::CostConfig simple_config() {
  breakeven::CostConfig c;
  c.price_per_kwh = 0.30;
  c.hardware_price = 3000;
  c.rate_per_hour = 1.0;
  return c;
}

}  // namespace

TEST_CASE("speed projection: kernel names by what bounds them", "[trace][projection]") {
  // Names as the corpus traces and the libraries write them.
  for (const char* n :
       {"ampere_sgemm_32x32_sliced1x4_tn", "volta_sgemm_128x64_nn", "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize",
        "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x4_nn_align1>(cutlass_80_tensorop_s1688gemm_64x64_"
        "32x4_nn_align1::Params)",
        "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1",
        "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16",
        "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0",
        "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4> >(Flash_fwd_params)",
        "fmha_cutlassF_f16_aligned_64x64_rf_sm80", "triton_tem_fused_mm_0",
        "void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*)"})
    CHECK(kernel_bound(n) == KernelBound::tensor);
  for (const char* n :
       {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, "
        "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float> > >",
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float)",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>(float*, float const*)",
        "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
        "namespace)::TensorListMetadata<2> >",
        "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>(cudnn::ops::nchw2nhwc_params_t<float>)",
        "void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams<float>)",
        "triton_poi_fused_add_0", "triton_red_fused_sum_1", "Memcpy DtoD (Device -> Device)",
        "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>"})
    CHECK(kernel_bound(n) == KernelBound::memory);
  CHECK(kernel_bound("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)") == KernelBound::communication);
  CHECK(kernel_bound("ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)") == KernelBound::communication);
  CHECK(kernel_bound("at::cuda::(anonymous namespace)::spin_kernel(long)") == KernelBound::other);
  CHECK(kernel_bound("void fused_bias_gelu_kernel<c10::BFloat16>(c10::BFloat16*, int)") == KernelBound::other);
}

TEST_CASE("speed projection: prep splits the steps by bound", "[trace][projection]") {
  const PrepRun r = run_prep_text(fixture("trace/rtx4090_two_steps.pt.trace.json"));
  REQUIRE(r.status);
  const OwnedEvent* d = find_kind(r, "trace_device");
  REQUIRE(d != nullptr);
  CHECK(field(*d, "device_name") == "NVIDIA GeForce RTX 4090");
  CHECK(int_field(*d, "split_steps") == 2);
  CHECK(int_field(*d, "split_window_ns") == 2'000'000);
  CHECK(int_field(*d, "split_tensor_ns") == 800'000);
  CHECK(int_field(*d, "split_memory_ns") == 350'000);
  CHECK(int_field(*d, "split_unknown_ns") == 100'000);
  CHECK(int_field(*d, "split_exposed_comm_ns") == 200'000);
  CHECK(int_field(*d, "split_rest_ns") == 550'000);
  CHECK(int_field(*d, "tensor_bound_ns") == 800'000);
  CHECK(int_field(*d, "memory_bound_ns") == 500'000);
  CHECK(int_field(*d, "comm_bound_ns") == 400'000);
  CHECK(int_field(*d, "unknown_bound_ns") == 100'000);

  // --steps 2: the window is step 2 alone; the ops launched in it (launch calls 30 µs before
  // each op) are the GEMM, reduce, NCCL, unknown and the elementwise kernel clipped at 3000.
  prep::PrepOptions o;
  o.step_first = 2;
  const PrepRun two = run_prep_text(fixture("trace/rtx4090_two_steps.pt.trace.json"), o);
  const OwnedEvent* d2 = find_kind(two, "trace_device");
  REQUIRE(d2 != nullptr);
  CHECK(int_field(*d2, "split_steps") == 1);
  CHECK(int_field(*d2, "split_window_ns") == 1'000'000);
  CHECK(int_field(*d2, "split_tensor_ns") == 400'000);
  CHECK(int_field(*d2, "split_memory_ns") == 200'000);
  CHECK(int_field(*d2, "split_exposed_comm_ns") == 100'000);
  CHECK(int_field(*d2, "split_rest_ns") == 250'000);
}

TEST_CASE("speed projection: the features carry the split, a merge of two documents drops it", "[trace][projection]") {
  const extract::Features f = features_of_fixture();
  REQUIRE(f.trace_split);
  const extract::TraceStepSplit& s = *f.trace_split;
  CHECK(s.devices == 1);
  CHECK(s.steps == 2);
  CHECK(s.marked);
  CHECK(s.window_ns == 2'000'000);
  CHECK(s.tensor_ns == 800'000);
  CHECK(s.memory_ns == 350'000);
  CHECK(s.unknown_ns == 100'000);
  CHECK(s.exposed_comm_ns == 200'000);
  CHECK(s.rest_ns == 550'000);
  CHECK(s.gpu_model == "NVIDIA GeForce RTX 4090");
  CHECK(s.mean_step_ns() == Approx(1'000'000));
  CHECK(s.unknown_kernel_share() == Approx(100.0 / 1800.0));  // 100 of 800 + 500 + 400 + 100

  auto back = extract::features_from_json(extract::features_to_json(f), "f.json");
  REQUIRE(back);
  REQUIRE(back->trace_split);
  CHECK(back->trace_split->window_ns == s.window_ns);
  CHECK(back->trace_split->rest_ns == s.rest_ns);
  CHECK(back->trace_split->unknown_kernel_ns == s.unknown_kernel_ns);
  CHECK(back->trace_split->gpu_model == s.gpu_model);
  CHECK(back->trace_split->marked);
  CHECK(extract::features_to_json(*back) == extract::features_to_json(f));

  auto one = extract::merge_features({f});
  REQUIRE(one);
  CHECK(one->trace_split);
  auto two = extract::merge_features({f, f});
  REQUIRE(two);
  CHECK_FALSE(two->trace_split);  // steps of two jobs are not one job's step
}

TEST_CASE("speed projection: each part scaled by what bounds it", "[trace][projection]") {
  const extract::Features f = features_of_fixture();
  const auto t = table();
  std::string why;
  const auto p = breakeven::project_speed(*f.trace_split, "NVIDIA GeForce RTX 4090", "H100 SXM", t, &why);
  INFO(why);
  REQUIRE(p);
  // A mean step of 1 ms: tensor 0.4 / 4 = 0.1, memory 0.175 / 3 = 0.058333, unknown 0.05 / min(4, 3)
  // = 0.016667, exposed comm 0.1 / 12.5 = 0.008, rest 0.275 unchanged: 0.458 ms.
  CHECK(p->local_step_s == Approx(1e-3));
  CHECK(p->tensor_projected_s == Approx(0.1e-3));
  CHECK(p->memory_projected_s == Approx(0.175e-3 / 3));
  CHECK(p->unknown_projected_s == Approx(0.05e-3 / 3));
  CHECK(p->comm_projected_s == Approx(0.008e-3));
  CHECK(p->rest_s == Approx(0.275e-3));
  CHECK(p->projected_step_s == Approx(0.458e-3));
  CHECK(p->step_ratio() == Approx(1.0 / 0.458));  // 2.183
  // The busy part the cost model scales: 0.725 ms -> 0.183 ms, x3.962.
  CHECK(p->ratio() == Approx(0.725 / 0.183));
  CHECK(breakeven::speed_projection_text(*p) ==
        "speed x3.96 projected from this job's trace (RTX 4090 -> H100 SXM): GPU busy 0.72 -> 0.18 ms a step; "
        "step 1.00 -> 0.46 ms (x2.18, CPU/launch/idle 0.28 ms unchanged); tensor 0.40 -> 0.10 ms, memory 0.17 "
        "-> 0.06 ms, unknown kernels 0.05 -> 0.02 ms (6 % of kernel time), exposed comm 0.10 -> 0.01 ms");

  // A figure a non-empty part needs and the table lacks: no projection, and why.
  CHECK_FALSE(breakeven::project_speed(*f.trace_split, "NVIDIA GeForce RTX 4090", "NVIDIA L4", t, &why));
  CHECK(why == "memory bandwidth of L4 not in data/gpu-speed.toml");
  CHECK_FALSE(breakeven::project_speed(*f.trace_split, "NVIDIA GeForce RTX 4090", "B200", t, &why));
  CHECK(why == "'B200' is not in data/gpu-speed.toml");
  // Without exposed communication the interconnect is not needed.
  extract::TraceStepSplit no_comm = *f.trace_split;
  no_comm.rest_ns += no_comm.exposed_comm_ns;
  no_comm.exposed_comm_ns = 0;
  no_comm.unknown_ns = 0;
  no_comm.memory_ns = 0;
  no_comm.rest_ns += 450'000;
  const auto tensor_only = breakeven::project_speed(no_comm, "NVIDIA GeForce RTX 4090", "NVIDIA L4", t, &why);
  REQUIRE(tensor_only);
  CHECK(tensor_only->ratio() == Approx(1.2));  // the GEMMs alone: 120 / 100
}

TEST_CASE("speed projection: the worked example of docs/cost-model.md", "[trace][projection]") {
  // A 412 ms step: tensor 180, memory 120, unknown 10, exposed comm 0, rest 102 ms; 165.2 -> 989.4
  // TFLOPS (x5.989), 1008 -> 3352 GB/s (x3.325): 30.05 + 36.09 + 3.01 + 102 = 171.15 ms, busy 310 ->
  // 69.15 ms: x4.483 (x2.407 for the whole step).
  auto t = breakeven::parse_gpu_speeds(R"(
[[gpu]]
model = "RTX 4090"
match = ["rtx 4090"]
dense_tflops = 165.2
accumulate = "fp32"
memory_bw_gbs = 1008
source = "test"
date_seen = "2026-12-04"

[[gpu]]
model = "H100 SXM"
match = ["h100", "h100 sxm"]
dense_tflops = 989.4
accumulate = "fp32"
memory_bw_gbs = 3352
source = "test"
date_seen = "2026-12-04"
)",
                                       "test.toml");
  REQUIRE(t);
  extract::TraceStepSplit s;
  s.devices = 1;
  s.steps = 1;
  s.marked = true;
  s.tensor_ns = 180'000'000;
  s.memory_ns = 120'000'000;
  s.unknown_ns = 10'000'000;
  s.rest_ns = 102'000'000;
  s.window_ns = 412'000'000;
  s.tensor_kernel_ns = 180'000'000;
  s.memory_kernel_ns = 120'000'000;
  s.unknown_kernel_ns = 10'000'000;
  const auto p = breakeven::project_speed(s, "NVIDIA GeForce RTX 4090", "H100", *t);
  REQUIRE(p);
  CHECK(p->projected_step_s == Approx(0.17115).epsilon(1e-4));
  CHECK(p->step_ratio() == Approx(2.407).epsilon(1e-3));
  CHECK(p->ratio() == Approx(4.483).epsilon(1e-3));
  CHECK(breakeven::speed_projection_text(*p) ==
        "speed x4.48 projected from this job's trace (RTX 4090 -> H100 SXM): GPU busy 310 -> 69.1 ms a step; step "
        "412 -> 171 ms (x2.41, CPU/launch/idle 102 ms unchanged); tensor 180 -> 30.1 ms, memory 120 -> 36.1 ms, "
        "unknown kernels 10.0 -> 3.01 ms (3 % of kernel time), no exposed comm");
}

TEST_CASE("speed projection: below the user's and the offer's ratio, above the table, per offer",
          "[trace][projection]") {
  const extract::Features f = features_of_fixture();
  const auto t = table();
  breakeven::JobShape shape = breakeven::job_shape(f, {});
  REQUIRE(shape.trace_split);
  shape.gpu_table = &t;
  shape.gpus = 1;

  auto h100 = breakeven::config_for_offer(simple_config(), offer("h100", "H100 SXM"), shape);
  REQUIRE(h100);
  CHECK(h100->speed_ratio_source == "trace");
  CHECK(h100->speed_ratio == Approx(0.725 / 0.183));
  REQUIRE(h100->speed_projection);
  CHECK(h100->speed_ratio_basis.find("trace (mean of 2 steps): step 1.00 -> 0.46 ms; tensor x4") == 0);

  // The offer's own ratio, the config's and the flag's win.
  auto own = breakeven::config_for_offer(simple_config(), offer("h100", "H100 SXM", 2.0), shape);
  CHECK(own->speed_ratio_source == "offer");
  CHECK_FALSE(own->speed_projection);
  breakeven::CostConfig flagged = simple_config();
  flagged.speed_ratio = 1.5;
  flagged.speed_ratio_source = "flag";
  auto flag = breakeven::config_for_offer(flagged, offer("h100", "H100 SXM"), shape);
  CHECK(flag->speed_ratio == 1.5);
  CHECK(flag->speed_ratio_source == "flag");

  // A GPU the table lacks a figure of: said, and the datasheet table's ratio instead.
  auto l4 = breakeven::config_for_offer(simple_config(), offer("l4", "L4"), shape);
  CHECK(l4->speed_projection_missing == "no projection: memory bandwidth of L4 not in data/gpu-speed.toml");
  CHECK(l4->speed_ratio_source != "trace");

  // --compare-clouds: each offer its own projection (A100: tensor 0.4 / 2, memory 0.175 / 1.5,
  // unknown 0.05 / 1.5, comm 0.1 / 10: busy 0.725 -> 0.2 + 0.11667 + 0.03333 + 0.01 = 0.36 ms).
  breakeven::JobInputs job;
  job.wall_h = 1;
  job.energy_kwh = {0.3};
  job.util = {0.9};
  const auto prices = breakeven::price_energy(simple_config(), job);
  const auto ranked =
      breakeven::price_offers(simple_config(), job, prices, shape, {offer("h100", "H100 SXM"), offer("a100", "A100")});
  REQUIRE(ranked.size() == 2);
  for (const auto& o : ranked) {
    CHECK(o.speed_ratio_source == "trace");
    CHECK(o.speed_ratio == Approx(o.name == "h100" ? 0.725 / 0.183 : 0.725 / 0.36));
  }
}

TEST_CASE("speed projection: the JSON's speed_projection and the text's speed line", "[trace][projection]") {
  const extract::Features f = features_of_fixture();
  const auto t = table();
  breakeven::JobShape shape = breakeven::job_shape(f, {});
  shape.gpu_table = &t;
  shape.gpus = 1;
  auto c = breakeven::config_for_offer(simple_config(), offer("h100", "H100 SXM"), shape);
  REQUIRE(c);
  breakeven::JobInputs job;
  job.wall_h = 1;
  job.energy_kwh = {0.3};
  job.util = {0.9};
  const auto r = breakeven::compute(*c, job);
  const std::string json = report::breakeven_json(r, *c, f);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  double v = 0;
  REQUIRE(doc.at_pointer("/cloud/speed_projection/ratio").get_double().get(v) == simdjson::SUCCESS);
  CHECK(v == Approx(0.725 / 0.183));
  REQUIRE(doc.at_pointer("/cloud/speed_projection/step_ratio").get_double().get(v) == simdjson::SUCCESS);
  CHECK(v == Approx(1.0 / 0.458));
  REQUIRE(doc.at_pointer("/cloud/speed_projection/unchanged_s").get_double().get(v) == simdjson::SUCCESS);
  CHECK(v == Approx(0.275e-3));
  std::string_view source;
  REQUIRE(doc.at_pointer("/cloud/speed_ratio_source").get_string().get(source) == simdjson::SUCCESS);
  CHECK(source == "trace");
  const std::string text = report::breakeven_table(r, *c, f);
  INFO(text);
  CHECK(text.find("\n  speed                       speed x3.96 projected from this job's trace (RTX 4090 -> H100 "
                  "SXM): GPU busy 0.72 -> 0.18 ms a step") != std::string::npos);
}

}  // namespace gpucost::test

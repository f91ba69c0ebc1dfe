// The speed ratio without a measurement: a range from the memory-bound to the compute-bound ratio
// of two GPUs, the end nearer 1 and the middle moved towards 1 by the share of a step a faster GPU
// does not shorten (0.3); an offer's GPU identified from its instance name and memory; the same
// kind of throughput on both sides. Each figure worked by hand in the comment above its check.
#include <catch2/catch.hpp>

#include <gpucost/breakeven/gpu_speed.hpp>

#include <cmath>
#include <string>

namespace {

using namespace gpucost;

// 1 / ((1 - 0.3) / r + 0.3): the ratio when 30 % of the local step is not sped up.
double with_share(double r) { return 1.0 / (0.7 / r + 0.3); }

breakeven::GpuSpeed board(const char* model, double tflops, double bandwidth, const char* accumulate = "fp32") {
  breakeven::GpuSpeed g;
  g.model = model;
  g.dense_tflops = tflops;
  g.memory_bw_gbs = bandwidth;
  g.accumulate = accumulate;
  g.date_seen = "2026-12-04";
  return g;
}

}  // namespace

TEST_CASE("speed range: RTX 4090 to H100 SXM, by hand", "[breakeven][speed]") {
  // memory-bound 3350 / 1008 = 3.32341; compute-bound 989.4 / 165.2 = 5.98910.
  // low: 1 / (0.7 / 3.32341 + 0.3) = 1 / 0.510627 = 1.958377 (the memory-bound end, moved towards 1)
  // middle: sqrt(3.32341 x 5.98910) = 4.46143; 1 / (0.7 / 4.46143 + 0.3) = 1 / 0.456900 = 2.188659
  // high: 5.98910 (the compute-bound end, as it is: further from 1)
  const auto r = breakeven::speed_ratio_range("NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3");
  REQUIRE(r);
  CHECK(r->from_model == "RTX 4090");
  CHECK(r->to_model == "H100 SXM");
  CHECK(r->low == Approx(1.958377).epsilon(1e-6));
  CHECK(r->middle == Approx(2.188659).epsilon(1e-6));
  CHECK(r->high == Approx(989.4 / 165.2));
  CHECK(r->low == Approx(with_share(3350.0 / 1008.0)));
  CHECK(r->low_basis.rfind("memory-bound x3.32 (peak memory bandwidth 3350 / 1008 GB/s)", 0) == 0);
  CHECK(r->low_basis.find("30 % of the step not sped up: x1.96") != std::string::npos);
  CHECK(r->high_basis == "compute-bound x5.99 (peak dense TFLOPS, FP16/BF16 with FP32 accumulate, 989.4 / 165.2)");
  CHECK(r->identification.empty());
  CHECK(r->sentence().rfind("a range x1.96 \u2026 x5.99, middle x2.19 (H100 SXM over RTX 4090)", 0) == 0);
}

TEST_CASE("speed range: the end nearer 1 moves towards 1, for a slower GPU too", "[breakeven][speed]") {
  // Faster in compute (x2.33), barely in memory (x1.08): RTX 3090 to RTX 4090.
  // memory 1008 / 936 = 1.076923 -> low 1 / (0.7 / 1.076923 + 0.3) = 1 / 0.95 = 1.052632
  // compute 165.2 / 71 = 2.326761 (high); middle sqrt(1.076923 x 2.326761) = 1.582953 -> 1.347325
  const auto up = breakeven::speed_ratio_range("NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4090");
  REQUIRE(up);
  CHECK(up->low == Approx(1.052632).epsilon(1e-6));
  CHECK(up->high == Approx(165.2 / 71.0));
  CHECK(up->middle == Approx(with_share(std::sqrt(1008.0 / 936.0 * 165.2 / 71.0))));
  // The other way, both ratios below 1: the low end stays (the slowest case), the high end (the
  // one nearer 1) moves up. memory 936 / 1008 = 0.928571 -> 1 / (0.7 / 0.928571 + 0.3) =
  // 1 / 1.053846 = 0.948905;
  // compute 71 / 165.2 = 0.429782 (low).
  const auto down = breakeven::speed_ratio_range("NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3090");
  REQUIRE(down);
  CHECK(down->low == Approx(71.0 / 165.2));
  CHECK(down->high == Approx(0.948905).epsilon(1e-6));
  CHECK(down->middle == Approx(with_share(std::sqrt(936.0 / 1008.0 * 71.0 / 165.2))));
  CHECK(down->low_basis.rfind("compute-bound", 0) == 0);
  // Same GPU: x1 every way.
  const auto same = breakeven::speed_ratio_range("NVIDIA A10", "A10");
  REQUIRE(same);
  CHECK(same->low == Approx(1));
  CHECK(same->middle == Approx(1));
  CHECK(same->high == Approx(1));
}

TEST_CASE("speed range: throughputs of different kinds are not compared", "[breakeven][speed]") {
  // An FP16-accumulate figure is twice the FP32-accumulate one on GeForce boards: 165.2 vs 330.3
  // would claim a 2x that training does not get.
  const auto fp32 = board("A", 165.2, 1008);
  const auto fp16 = board("B", 330.3, 1008, "fp16");
  std::string why;
  CHECK_FALSE(breakeven::speed_ratio_range(fp32, fp16, &why));
  CHECK(why ==
        "the throughputs are of different kinds (A: FP16/BF16 with FP32 accumulate; B: FP16 with FP16 accumulate): "
        "not compared");
  CHECK(breakeven::speed_ratio_range(fp16, board("C", 660.6, 2016, "fp16")));
  // The table requires the kind with every throughput, and only these two kinds.
  auto missing = breakeven::parse_gpu_speeds(
      "[[gpu]]\nmodel = \"X\"\nmatch = [\"x\"]\ndense_tflops = 10\nsource = \"s\"\ndate_seen = \"2026-12-04\"\n",
      "t.toml");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message == "t.toml: gpu 'X': dense_tflops needs accumulate (\"fp32\" or \"fp16\")");
  auto odd = breakeven::parse_gpu_speeds(
      "[[gpu]]\nmodel = \"X\"\nmatch = [\"x\"]\ndense_tflops = 10\naccumulate = "
      "\"bf16\"\nsource = \"s\"\ndate_seen = \"2026-12-04\"\n",
      "t.toml");
  REQUIRE_FALSE(odd);
  auto variant = breakeven::parse_gpu_speeds(
      "[[gpu]]\nmodel = \"X\"\nmatch = [\"x\"]\nvariants = [\"Y\"]\nsource = \"s\"\ndate_seen = \"2026-12-04\"\n",
      "t.toml");
  REQUIRE_FALSE(variant);
  CHECK(variant.error().message == "t.toml: gpu 'X': variant 'Y' is not a model of one board in the table");
  // Every throughput of the compiled-in table is FP32-accumulate: GeForce rows are the whitepapers'
  // "with FP32 Accumulate" ones (RTX 4090 165.2, not the FP16-accumulate 330.3).
  for (const auto& g : breakeven::gpu_speeds())
    if (g.dense_tflops) CHECK(g.accumulate == "fp32");
  const auto* rtx4090 = breakeven::find_gpu_speed("NVIDIA GeForce RTX 4090");
  REQUIRE(rtx4090 != nullptr);
  CHECK(rtx4090->dense_tflops == 165.2);
}

TEST_CASE("offer GPU: a bare H100 is the range of its variants unless the offer tells", "[breakeven][speed]") {
  // No hint: SXM, PCIe and NVL; the NVL has no memory bandwidth at hand and is left out (said so).
  // SXM (above): low 1.958377, middle 2.188659, high 5.989104.
  // PCIe: memory 2000 / 1008 = 1.984127 -> low 1 / (0.7 / 1.984127 + 0.3) = 1 / 0.652800 = 1.531863;
  //   compute 756.5 / 165.2 = 4.579298 (high); middle sqrt(1.984127 x 4.579298) = 3.014296 -> 1.878895.
  // Range: lowest low 1.531863 (PCIe), highest high 5.989104 (SXM), middle sqrt(2.188659 x 1.878895) = 2.027871.
  const auto bare = breakeven::speed_ratio_range("NVIDIA GeForce RTX 4090", "H100");
  REQUIRE(bare);
  CHECK(bare->low == Approx(1.531863).epsilon(1e-6));
  CHECK(bare->high == Approx(5.989104).epsilon(1e-6));
  CHECK(bare->middle == Approx(2.027871).epsilon(1e-6));
  CHECK(bare->to_model == "H100 SXM / H100 PCIe");
  CHECK(bare->identification.find("'H100' does not tell the board: the range spans H100 SXM, H100 PCIe, H100 NVL") !=
        std::string::npos);
  CHECK(bare->identification.find("left out: no memory bandwidth for H100 NVL") != std::string::npos);
  CHECK(bare->low_basis.rfind("H100 PCIe over RTX 4090, memory-bound", 0) == 0);

  // Lambda's gpu_1x_h100_pcie: the instance name says PCIe.
  const breakeven::GpuHints lambda{"gpu_1x_h100_pcie lambda-h100-pcie", 80};
  const auto id = breakeven::identify_gpu("H100", lambda);
  REQUIRE(id.boards.size() == 1);
  CHECK(id.boards.front()->model == "H100 PCIe");
  CHECK(id.basis == "'H100' read as H100 PCIe (from 'pcie' in 'gpu_1x_h100_pcie lambda-h100-pcie')");
  const auto pcie = breakeven::speed_ratio_range("NVIDIA GeForce RTX 4090", "H100", lambda);
  REQUIRE(pcie);
  CHECK(pcie->low == Approx(1.531863).epsilon(1e-6));
  CHECK(pcie->high == Approx(756.5 / 165.2));
  CHECK(pcie->middle == Approx(1.878895).epsilon(1e-6));
  // Lambda's gpu_8x_h100_sxm5 and RunPod's "H100 SXM pod": SXM.
  CHECK(breakeven::identify_gpu("H100", {"gpu_8x_h100_sxm5", 80}).boards.front()->model == "H100 SXM");
  CHECK(breakeven::identify_gpu("H100", {"H100 SXM pod", 80}).boards.front()->model == "H100 SXM");
  // AWS p5.48xlarge: nothing in the name; 80 GB rules out the 94 GB NVL only.
  const auto p5 = breakeven::identify_gpu("H100", {"p5.48xlarge aws-p5.48xlarge", 80});
  REQUIRE(p5.boards.size() == 2);
  CHECK(p5.basis ==
        "'H100' does not tell the board (80 GB per GPU leave several): the range spans H100 SXM, H100 PCIe");
  // A full name is one board, whatever the hints.
  CHECK(breakeven::identify_gpu("NVIDIA H100 PCIe", {"sxm", 80}).boards.front()->model == "H100 PCIe");
  CHECK(breakeven::identify_gpu("NVIDIA H100 80GB HBM3").basis.empty());
}

TEST_CASE("offer GPU: an A100 by its memory", "[breakeven][speed]") {
  // "A100 80GB" of 80 GB: the SXM4 80GB (2039 GB/s) or the 80GB PCIe (1935 GB/s), both 312 TFLOPS.
  // From an RTX 3090 (936 GB/s, 71 TFLOPS): compute 312 / 71 = 4.394366 for both (high);
  // memory 2039 / 936 = 2.178419 -> 1 / (0.7 / 2.178419 + 0.3) = 1.609442;
  // memory 1935 / 936 = 2.067308 -> 1 / (0.7 / 2.067308 + 0.3) = 1.565914 (low).
  const auto r = breakeven::speed_ratio_range("NVIDIA GeForce RTX 3090", "A100 80GB", {"a2-ultragpu-1g", 80});
  REQUIRE(r);
  CHECK(r->low == Approx(1.565914).epsilon(1e-6));
  CHECK(r->high == Approx(312.0 / 71.0));
  CHECK(r->to_model == "A100 SXM4 80GB / A100 80GB PCIe");
  // "A100 40GB": the SXM4 40GB and the PCIe 40GB have the same bandwidth and throughput.
  const auto forty = breakeven::speed_ratio_range("NVIDIA GeForce RTX 3090", "A100 40GB", {"p4d.24xlarge", 40});
  REQUIRE(forty);
  CHECK(forty->low == Approx(with_share(1555.0 / 936.0)));
  CHECK(forty->high == Approx(312.0 / 71.0));
}

TEST_CASE("gpus --speed: unknown models name the nearest, models without figures say why", "[breakeven][speed]") {
  auto unknown = breakeven::compare_gpu_speed("RTX 4090", "MI300A");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().message == "--speed: 'MI300A' is not in the GPU table");
  CHECK(unknown.error().hint == "did you mean 'MI300X'? (gpucost gpus lists the models it knows)");
  // A name the table knows by its leading words is no error: "H100 SXN" is a bare H100.
  const auto bare = breakeven::compare_gpu_speed("RTX 4090", "H100 SXN");
  REQUIRE(bare);
  CHECK(bare->identification.find("'H100 SXN' does not tell the board") != std::string::npos);
  auto a10g = breakeven::compare_gpu_speed("A10G", "A100");
  REQUIRE_FALSE(a10g);
  CHECK(a10g.error().message == "--speed: no speed range of A100 over A10G: no published dense throughput for A10G");
  auto ok = breakeven::compare_gpu_speed("RTX 4090", "H100 SXM");
  REQUIRE(ok);
  CHECK(ok->middle == Approx(2.188659).epsilon(1e-6));
}

// prep: Nsight Systems summaries (docs/formats.md, "Nsight Systems summaries"). Fixtures in
// testdata/nsys are written in the byte shape of nsys profile --stats=true (2023 text, 2020.x
// legacy with CRLF) and nsys stats --format csv; expected values below are computed by hand from
// the fixtures.
#include <catch2/catch.hpp>

#include "support.hpp"

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::OwnedEvent;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
namespace prep = gpucost::prep;

namespace {

std::size_t count_kind(const PrepRun& r, const std::string& kind) {
  std::size_t n = 0;
  for (const OwnedEvent& e : r.events)
    if (e.kind == kind) ++n;
  return n;
}

}  // namespace

TEST_CASE("prep::nsys: profile --stats=true text reports, thousands separators, SKIPPED, Generated", "[prep][nsys]") {
  const PrepRun r = run_prep_text(fixture("nsys/nsys2023_profile_stats.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::nsys);
  CHECK(r.stats.lines == 48);
  CHECK(r.stats.events == 13);
  CHECK(r.stats.event_lines == 13);
  CHECK(r.stats.ignored == 35);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::relative);
  REQUIRE(r.events.size() == 13);
  CHECK(count_kind(r, "nsys_row") == 2);  // osrt_sum
  CHECK(count_kind(r, "nsys_api") == 3);
  CHECK(count_kind(r, "nsys_kernel") == 2);
  CHECK(count_kind(r, "nsys_memop_time") == 3);
  CHECK(count_kind(r, "nsys_memop_size") == 3);
  CHECK(count_kind(r, "nsys_nvtx") == 0);  // SKIPPED

  const auto& poll = r.events[0];
  CHECK(poll.source == "nsys");
  CHECK(poll.gpu == -1);
  CHECK(field(poll, "report") == "osrt_sum");
  CHECK(field(poll, "name") == "poll");
  CHECK(field(poll, "calls") == "12");

  const auto& memcpy_api = r.events[3];
  CHECK(field(memcpy_api, "name") == "cudaMemcpyAsync");
  CHECK(field(memcpy_api, "time_pct") == "28.4");
  CHECK(field(memcpy_api, "total_ns") == "159330117");
  CHECK(field(memcpy_api, "calls") == "1200");
  CHECK(field(memcpy_api, "avg_ns") == "132775.1");
  CHECK(field(memcpy_api, "med_ns") == "4903.0");
  CHECK(field(memcpy_api, "min_ns") == "3366");
  CHECK(field(memcpy_api, "max_ns") == "52011406");
  CHECK(field(memcpy_api, "stddev_ns") == "1890774.6");

  const auto& gemm = r.events[5];
  CHECK(gemm.kind == "nsys_kernel");
  CHECK(field(gemm, "report") == "cuda_gpu_kern_sum");
  CHECK(field(gemm, "name") ==
        "void gemm_kernel<float, 128, 64>(const float *, const float *, float *, int, int, int)");
  CHECK(field(gemm, "instances") == "200");
  CHECK(field(gemm, "total_ns") == "30000000");
  CHECK(field(r.events[6], "name") == "relu_kernel(float *, int)");

  const auto& h2d = r.events[7];
  CHECK(h2d.kind == "nsys_memop_time");
  CHECK(field(h2d, "operation") == "[CUDA memcpy Host-to-Device]");
  CHECK(field(h2d, "direction") == "h2d");
  CHECK(field(h2d, "count") == "1000");
  CHECK(field(r.events[8], "direction") == "d2h");
  CHECK(field(r.events[9], "direction") == "memset");

  const auto& size = r.events[10];
  CHECK(size.kind == "nsys_memop_size");
  CHECK(field(size, "total_bytes") == "1048576000");  // 1,048.576 MB
  CHECK(field(size, "avg_bytes") == "1049000");       // 1.049 MB
  CHECK(field(size, "stddev_bytes") == "0");
  CHECK(field(size, "count") == "1000");
  CHECK(field(size, "direction") == "h2d");
}

TEST_CASE("prep::nsys: legacy 2020.x section titles, units-less columns, KiB sizes, CRLF", "[prep][nsys]") {
  const PrepRun r = run_prep_text(fixture("nsys/nsys2020_stats_true_crlf.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::nsys);
  CHECK(r.stats.lines == 56);
  CHECK(r.stats.events == 9);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 9);

  const auto& malloc = r.events[0];
  CHECK(malloc.kind == "nsys_api");
  CHECK(field(malloc, "report") == "cuda_api_sum");
  CHECK(field(malloc, "time_pct") == "97.4");
  CHECK(field(malloc, "total_ns") == "186431302");
  CHECK(field(malloc, "avg_ns") == "93215651.0");  // "Average" without unit: ns
  CHECK(field(malloc, "min_ns") == "11911");
  CHECK(field(malloc, "max_ns") == "186419391");
  CHECK(field(malloc, "med_ns") == "<absent>");

  const auto& saxpy = r.events[3];
  CHECK(saxpy.kind == "nsys_kernel");
  CHECK(field(saxpy, "name") == "saxpy(int, float, float *, float *)");
  CHECK(field(saxpy, "instances") == "1");

  CHECK(r.events[4].kind == "nsys_memop_time");
  CHECK(field(r.events[4], "operation") == "[CUDA memcpy HtoD]");
  CHECK(field(r.events[4], "direction") == "h2d");
  CHECK(field(r.events[4], "count") == "2");  // "Operations"

  const auto& kib = r.events[6];
  CHECK(kib.kind == "nsys_memop_size");
  CHECK(field(kib, "total_bytes") == "8388608");  // 8,192.000 KiB
  CHECK(field(kib, "avg_bytes") == "4194304");
  CHECK(field(kib, "direction") == "h2d");

  const auto& nvtx = r.events[8];
  CHECK(nvtx.kind == "nsys_nvtx");
  CHECK(field(nvtx, "report") == "nvtx_pushpop_sum");
  CHECK(field(nvtx, "range") == "saxpy main");
  CHECK(field(nvtx, "total_ns") == "190882201");
}

TEST_CASE("prep::nsys: stats --format csv, quoted names, a short row", "[prep][nsys]") {
  const PrepRun r = run_prep_text(fixture("nsys/nsys2023_stats_csv.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::nsys);
  CHECK(r.stats.lines == 26);
  CHECK(r.stats.events == 5);
  CHECK(r.stats.malformed == 1);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 8);
  CHECK(r.stats.examples[0].reason == "expected 9 CSV cells as in the header, found 7");
  REQUIRE(r.events.size() == 5);
  CHECK(r.events[0].kind == "nsys_kernel");
  CHECK(field(r.events[0], "name") == "void splitk_reduce<float, 4>(const float *, float *, int)");
  CHECK(field(r.events[0], "total_ns") == "5000000");
  CHECK(field(r.events[0], "stddev_ns") == "1500.5");
  CHECK(field(r.events[1], "name") == "kernel \"quoted\" name");
  CHECK(r.events[2].kind == "nsys_memop_size");
  CHECK(field(r.events[2], "total_bytes") == "402653000");
  CHECK(field(r.events[2], "avg_bytes") == "8389000");
  CHECK(field(r.events[3], "direction") == "memset");
  CHECK(r.events[4].kind == "nsys_row");
  CHECK(field(r.events[4], "report") == "osrt_sum");
  CHECK(field(r.events[4], "name") == "poll");
}

TEST_CASE("prep::nsys: nsys stats banners, time units in titles, unknown columns, detection", "[prep][nsys]") {
  const std::string text =
      "\n"
      " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n"
      "\n"
      " Time (%)  Total Time (us)  Instances  Avg (us)  GridXYZ          Name         \n"
      " --------  ---------------  ---------  --------  -------  ---------------------\n"
      "     60.0        1,500.250          3     500.1  1 1 1    k(float *, int)      \n"
      "     40.0            1.000          1   1.0x      1 1 1    k2                   \n"
      "\n"
      " ** CUDA GPU MemOps Summary (by Time) (cuda_gpu_mem_time_sum):\n"
      "\n"
      " Time (%)  Total Time (ns)  Count      Operation      \n"
      " --------  ---------------  -----  -------------------\n"
      "    100.0              640      2  [CUDA memcpy PtoP] \n";
  prep::PrepOptions none;
  CHECK(prep::detect_format(text, none) == gpucost::Format::nsys);
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.malformed == 1);  // "1.0x" is no number
  REQUIRE(r.events.size() == 2);
  CHECK(field(r.events[0], "total_ns") == "1500250");
  CHECK(field(r.events[0], "avg_ns") == "500100");
  CHECK(field(r.events[0], "GridXYZ") == "1 1 1");  // an unknown column, kept under extra
  CHECK(field(r.events[0], "name") == "k(float *, int)");
  CHECK(field(r.events[1], "direction") == "p2p");
  CHECK(field(r.events[1], "total_ns") == "640");
}

TEST_CASE("prep::nsys and torch-table: detection leaves other formats alone", "[prep][nsys][torch-table]") {
  prep::PrepOptions none;
  CHECK(prep::detect_format("# gpu    pwr  gtemp\n# Idx      W      C\n    0     50     40\n", none) ==
        gpucost::Format::dmon);
  CHECK(prep::detect_format("just some program output\n----------\nName of the game\n", none) ==
        gpucost::Format::unknown);
  CHECK(prep::detect_format("Time (%) is up\n", none) == gpucost::Format::unknown);
}

TEST_CASE("prep::nsys: nsys 2020.1 layout, rules at column 0, memory tables with a Name column", "[prep][nsys]") {
  const std::string text =
      "Generating CUDA Memory Operation Statistics...\n"
      "CUDA Memory Operation Statistics (by size in KiB):\n"
      "\n"
      "              Total      Operations              Average  Name                             \n"
      "-------------------  --------------  -------------------  ---------------------------------\n"
      "          32768.000             128              256.000  [CUDA Unified Memory memcpy HtoD]\n"
      "\n"
      "CUDA Kernel Statistics:\n"
      "\n"
      "Time(%)      Total Time   Instances         Average  Name        \n"
      "-------  --------------  ----------  --------------  ------------\n"
      "  100.0        13211233           1      13211233.0  add(int, float*, float*)\n";
  prep::PrepOptions none;
  CHECK(prep::detect_format(text, none) == gpucost::Format::nsys);
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[0].kind == "nsys_memop_size");
  CHECK(field(r.events[0], "total_bytes") == "33554432");
  CHECK(field(r.events[0], "avg_bytes") == "262144");
  CHECK(field(r.events[0], "count") == "128");
  CHECK(field(r.events[0], "direction") == "h2d");
  CHECK(r.events[1].kind == "nsys_kernel");
  CHECK(field(r.events[1], "total_ns") == "13211233");
  CHECK(field(r.events[1], "name") == "add(int, float*, float*)");
}

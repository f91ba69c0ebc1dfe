// prep: PyTorch profiler tables (docs/formats.md, "PyTorch profiler tables"). Fixtures in
// testdata/torch-table are written in the byte shape of torch's _build_table (modern:
// right-aligned, two trailing spaces; legacy 1.3: left-aligned width 15); expected values below are
// computed by hand from the fixtures.
#include <catch2/catch.hpp>

#include "support.hpp"

using gpucost::test::check_accounting;
using gpucost::test::field;
using gpucost::test::fixture;
using gpucost::test::PrepRun;
using gpucost::test::run_prep_text;
using gpucost::test::utc_ns;
namespace prep = gpucost::prep;

TEST_CASE("prep::torch-table: modern CUDA table, names with spaces, duplicate names, two tables",
          "[prep][torch-table]") {
  const PrepRun r = run_prep_text(fixture("torch-table/modern_cuda_memcpy_two_tables.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::torch_table);
  CHECK(r.stats.lines == 23);
  CHECK(r.stats.events == 12);       // 7 + 3 rows, 2 footers
  CHECK(r.stats.event_lines == 13);  // the first footer has two lines
  CHECK(r.stats.ignored == 10);      // STAGE line, 3 + 3 rules per table, blank line between tables
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::relative);
  REQUIRE(r.events.size() == 12);

  const auto& cpu_side = r.events[0];
  CHECK(cpu_side.source == "torch-table");
  CHECK(cpu_side.kind == "profiler_op");
  CHECK(cpu_side.gpu == -1);
  CHECK(cpu_side.ts_ns == 0);
  CHECK(field(cpu_side, "name") == "train_step");
  CHECK(field(cpu_side, "self_cpu_pct") == "2.10");
  CHECK(field(cpu_side, "self_cpu_ns") == "41000");
  CHECK(field(cpu_side, "cpu_total_pct") == "100.00");
  CHECK(field(cpu_side, "cpu_total_ns") == "1952000");
  CHECK(field(cpu_side, "device_total_ns") == "1503000");
  CHECK(field(cpu_side, "device_type") == "CUDA");
  CHECK(field(cpu_side, "calls") == "1");
  CHECK(field(cpu_side, "row") == "0");
  CHECK(field(cpu_side, "table") == "0");

  const auto& gpu_side = r.events[1];  // same name, kept apart
  CHECK(field(gpu_side, "name") == "train_step");
  CHECK(field(gpu_side, "self_cpu_ns") == "0");
  CHECK(field(gpu_side, "self_device_ns") == "1503000");
  CHECK(field(gpu_side, "self_device_pct") == "51.83");
  CHECK(field(gpu_side, "row") == "1");

  const auto& memcpy = r.events[2];
  CHECK(field(memcpy, "name") == "Memcpy HtoD (Pageable -> Device)");
  CHECK(field(memcpy, "self_device_ns") == "812416");
  CHECK(field(memcpy, "device_avg_ns") == "203104");
  CHECK(field(memcpy, "calls") == "4");
  CHECK(field(r.events[5], "name") == "void at::native::vectorized_elementwise_kernel<4, at...");

  const auto& total = r.events[7];
  CHECK(total.kind == "profiler_total");
  CHECK(field(total, "self_cpu_total_ns") == "1952000");
  CHECK(field(total, "self_device_total_ns") == "2900000");
  CHECK(field(total, "device_type") == "CUDA");

  const auto& addmm = r.events[8];  // second table: CPU only, seconds
  CHECK(field(addmm, "name") == "aten::addmm");
  CHECK(field(addmm, "self_cpu_ns") == "1962000000");
  CHECK(field(addmm, "cpu_avg_ns") == "20198000");
  CHECK(field(addmm, "calls") == "100");
  CHECK(field(addmm, "device_type") == "<absent>");
  CHECK(field(addmm, "self_device_ns") == "<absent>");
  CHECK(field(addmm, "table") == "1");
  CHECK(field(addmm, "row") == "0");
  CHECK(field(r.events[10], "cpu_avg_ns") == "323700");
  CHECK(field(r.events[11], "self_cpu_total_ns") == "3205000000");
  CHECK(field(r.events[11], "self_device_total_ns") == "<absent>");
}

TEST_CASE("prep::torch-table: XPU columns, memory, input shapes and FLOPs, a header banner", "[prep][torch-table]") {
  prep::PrepOptions o;
  o.start = gpucost::parse_iso8601("2024-03-05T10:12:00Z");
  const PrepRun r = run_prep_text(fixture("torch-table/xpu_memory_shapes_flops.txt"), o);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::torch_table);
  CHECK(r.stats.events == 4);
  CHECK(r.stats.malformed == 0);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  REQUIRE(r.events.size() == 4);
  for (const auto& e : r.events) CHECK(e.ts_ns == utc_ns(2024, 3, 5, 10, 12, 0));

  const auto& mm = r.events[0];
  CHECK(field(mm, "device_type") == "XPU");
  CHECK(field(mm, "self_device_ns") == "3200000");
  CHECK(field(mm, "device_avg_ns") == "1600000");
  CHECK(field(mm, "cpu_mem_bytes") == "0");
  CHECK(field(mm, "device_mem_bytes") == "33554432");  // 32.00 MiB
  CHECK(field(mm, "input_shapes") == "[[2048, 2048], [2048, 2048]]");
  CHECK(field(mm, "flops") == "17179869000");  // 17179.869 MFLOPs

  const auto& empty = r.events[1];
  CHECK(field(empty, "cpu_mem_bytes") == "19999");        // 19.53 KiB = 19998.72 B
  CHECK(field(empty, "device_mem_bytes") == "99394519");  // 94.79 MiB = 99394519.04 B
  CHECK(field(empty, "flops") == "<absent>");             // "--"

  const auto& to = r.events[2];
  CHECK(field(to, "cpu_mem_bytes") == "572");
  CHECK(field(to, "self_cpu_mem_bytes") == "-572");
  CHECK(field(to, "device_mem_bytes") == "-99394519");
  CHECK(field(to, "self_device_mem_bytes") == "0");

  CHECK(r.events[3].kind == "profiler_total");
  CHECK(field(r.events[3], "self_device_total_ns") == "4000000");
  CHECK(field(r.events[3], "device_type") == "XPU");
}

TEST_CASE("prep::torch-table: legacy autograd layout inside bottleneck banners", "[prep][torch-table]") {
  const PrepRun r = run_prep_text(fixture("torch-table/legacy_bottleneck_torch13.txt"));
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::torch_table);
  CHECK(r.stats.lines == 38);
  CHECK(r.stats.events == 8);
  CHECK(r.stats.event_lines == 9);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 8);
  CHECK(field(r.events[0], "name") == "addmm");
  CHECK(field(r.events[0], "self_cpu_pct") == "41.37");  // "Self CPU total %" overflows its column
  CHECK(field(r.events[0], "self_cpu_ns") == "12410000");
  CHECK(field(r.events[0], "input_shapes") == "[]");
  CHECK(field(r.events[2], "name") == "addmm");
  CHECK(field(r.events[2], "row") == "2");
  CHECK(field(r.events[3], "self_cpu_total_ns") == "30000000");
  CHECK(field(r.events[3], "device_total_ns") == "<absent>");

  const auto& conv = r.events[4];
  CHECK(field(conv, "table") == "1");
  CHECK(field(conv, "device_type") == "CUDA");
  CHECK(field(conv, "device_total_pct") == "45.10");
  CHECK(field(conv, "device_total_ns") == "96693000");
  CHECK(field(conv, "device_avg_ns") == "96693000");
  CHECK(field(conv, "calls") == "1");
  CHECK(field(conv, "self_device_ns") == "<absent>");
  const auto& total = r.events[7];  // legacy footer "CUDA time total": device_total_ns
  CHECK(field(total, "self_cpu_total_ns") == "214481000");
  CHECK(field(total, "device_total_ns") == "214376000");
  CHECK(field(total, "self_device_total_ns") == "<absent>");
}

TEST_CASE("prep::torch-table: a damaged cell makes its row malformed, the others stay", "[prep][torch-table]") {
  const PrepRun r = run_prep_text(fixture("torch-table/cpu_damaged_cell.txt"));
  check_accounting(r);
  CHECK(r.stats.lines == 8);  // no final newline
  CHECK(r.stats.events == 3);
  CHECK(r.stats.malformed == 1);
  REQUIRE(r.stats.examples.size() == 1);
  CHECK(r.stats.examples[0].line == 5);
  CHECK(r.stats.examples[0].reason == "self_cpu_ns '5OO.000us' is not a duration (us, ms, s)");
  REQUIRE(r.events.size() == 3);
  CHECK(field(r.events[1], "name") == "aten::add_");
  CHECK(field(r.events[1], "row") == "1");
}

TEST_CASE("prep::torch-table: with_stack rows, CRLF, NaN shares and detection", "[prep][torch-table]") {
  // with_stack: further frames are rows without a name, then an empty spacer row; the FLOPs
  // value is printed before Source Location although its title comes after.
  const std::string text =
      "---------  ------------  ------------  ------------  ------------  ------------  ------------  ----------  "
      "------------  \r\n"
      "     Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  Source Location  "
      "Total KFLOPs  \r\n"
      "---------  ------------  ------------  ------------  ------------  ------------  ------------  ----------  "
      "------------  \r\n"
      " aten::mm           NaN       1.500us         0.00%       1.500us       1.500us             1  2.500       "
      "train.py(12): step  \r\n"
      "                                                                                                           "
      "model.py(3): fwd  \r\n"
      "                                                                                                                "
      "         \r\n"
      "---------  ------------  ------------  ------------  ------------  ------------  ------------  ----------  "
      "------------  \r\n"
      "Self CPU time total: 0.000us\r\n";
  prep::PrepOptions none;
  CHECK(prep::detect_format(text, none) == gpucost::Format::torch_table);
  const PrepRun r = run_prep_text(text);
  check_accounting(r);
  CHECK(r.stats.malformed == 0);
  REQUIRE(r.events.size() == 2);
  CHECK(field(r.events[0], "self_cpu_pct") == "<absent>");
  CHECK(field(r.events[0], "self_cpu_ns") == "1500");
  CHECK(field(r.events[0], "flops") == "2500");
  CHECK(field(r.events[0], "source_location") == "train.py(12): step");
  CHECK(field(r.events[1], "self_cpu_total_ns") == "0");
}

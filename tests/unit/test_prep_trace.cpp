// Kineto traces: the reader (formats, chunking, truncation) and the analyses, on small traces
// written by hand in the shape torch.profiler writes them. Expected values are computed by
// hand in the comments.
#include <catch2/catch.hpp>

#include "prep/profiler/trace/trace.hpp"
#include "support.hpp"

#include <fmt/format.h>

namespace gpucost::test {

namespace {

using namespace prep::trace;

const OwnedEvent* find_kind(const PrepRun& r, const std::string& kind, int gpu = -2) {
  for (const OwnedEvent& e : r.events)
    if (e.kind == kind && (gpu == -2 || e.gpu == gpu)) return &e;
  return nullptr;
}

double num(const OwnedEvent& e, const std::string& key) {
  const std::string v = field(e, key);
  INFO("field " << key);
  REQUIRE(v != "<absent>");
  return std::stod(v);
}

}  // namespace

TEST_CASE("trace: microsecond text is turned into exact nanoseconds", "[trace]") {
  std::int64_t ns = 0;
  CHECK((parse_us_to_ns("4203669604595.407", ns) && ns == 4203669604595407));
  CHECK((parse_us_to_ns("1665536373729077", ns) && ns == 1665536373729077000));
  CHECK((parse_us_to_ns("0.02", ns) && ns == 20));
  CHECK((parse_us_to_ns("6.880", ns) && ns == 6880));
  CHECK((parse_us_to_ns("1.0005", ns) && ns == 1001));  // the 4th decimal rounds half away from zero
  CHECK((parse_us_to_ns("-3.5", ns) && ns == -3500));
  CHECK((parse_us_to_ns("1.5e3", ns) && ns == 1500000));
  CHECK_FALSE(parse_us_to_ns("", ns));
  CHECK_FALSE(parse_us_to_ns("\"12\"", ns));
  CHECK_FALSE(parse_us_to_ns("99999999999999999999", ns));
}

TEST_CASE("trace: the union of intervals", "[trace]") {
  std::vector<std::pair<std::int64_t, std::int64_t>> v{{5, 10}, {0, 3}, {2, 4}, {9, 12}, {20, 20}};
  CHECK(union_length(v) == 4 + 7 + 0);  // [0,4] + [5,12] + [20,20]
  std::vector<std::pair<std::int64_t, std::int64_t>> none;
  CHECK(union_length(none) == 0);
}

TEST_CASE("trace: launch APIs, including per-thread and HIP entry points", "[trace]") {
  CHECK(is_launch_api("cudaLaunchKernel"));
  CHECK(is_launch_api("cudaLaunchKernel_ptsz"));
  CHECK(is_launch_api("cuLaunchKernelEx"));
  CHECK(is_launch_api("cudaGraphLaunch"));
  CHECK(is_launch_api("hipExtModuleLaunchKernel"));
  CHECK(is_launch_api("hipMemcpyAsync"));
  CHECK_FALSE(is_launch_api("cudaMemcpy"));  // synchronous: the issue's list has only the async calls
  CHECK_FALSE(is_launch_api("cudaStreamSynchronize"));
}

// A modern trace (PyTorch 2.x: relative ts + baseTimeNanoseconds, new category names).
//   stream 7:  K1 gemm     100    .. 150     call 90..95    delay 5 us
//              K2 relu     160    .. 165     call 96..100   delay 60 us; gap 10 us, call before: short
//              M1 HtoD     300    .. 320     call 200..210  delay 90 us; gap 135 us, call after: host wait
//              K4 small    400.5  .. 402.75  no call        unmatched; gap 80.5 us: other
//   stream 20: N1 nccl     140    .. 180     call 130..132  delay 8 us
// span 302.75 us; busy [100,180] + [300,320] + [400.5,402.75] = 102.25 us; idle 200.5 us;
// compute (non-nccl kernels) 50 + 5 + 2.25 = 57.25 us; non-compute 45 us.
// delays sorted 5, 8, 60, 90 us: p50 = 34 us, p95 = 85.5 us, p99 = 89.1 us (linear).
// Queue, stream 7 (calls only; K4 has none): +90 +96 -150 -165 +200 -320 -> area 249 us.depth over
// 230 us = 1.0826...; stream 20: 1 over 50 us. Device mean (1.0826 + 1) / 2, max 2.
constexpr const char* kModernTrace = R"J({
  "schemaVersion": 1,
  "deviceProperties": [
    {
      "id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045379072,
      "computeMajor": 9, "computeMinor": 0
    }
  ],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_count": 1},
  "traceEvents": [
  {
    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 4242, "tid": 4242,
    "ts": 80.000, "dur": 150.000,
    "args": {
      "External id": 1,"Record function id": 0, "Ev Idx": 0
    }
  },
  {
    "ph": "X", "cat": "user_annotation", "name": "ProfilerStep#8", "pid": 4242, "tid": 4242,
    "ts": 199.000, "dur": 300.000,
    "args": {
      "External id": 2,"Record function id": 0, "Ev Idx": 1
    }
  },
  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242,
    "ts": 90.000, "dur": 5.000,
    "args": {
      "External id": 3, "cbid": 211, "correlation": 1
    }
  },
  {
    "ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "pid": 0, "tid": 7,
    "ts": 100.000, "dur": 50.000,
    "args": {
      "External id": 3, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 1,
      "registers per thread": 168, "shared memory": 0, "grid": [132, 1, 1], "block": [384, 1, 1]
    }
  },
  {
    "ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 100.000,
    "cat": "ac2g", "name": "ac2g", "bp": "e"
  },
  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242,
    "ts": 96.000, "dur": 4.000,
    "args": {
      "External id": 4, "cbid": 211, "correlation": 2
    }
  },
  {
    "ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar>(int)", "pid": 0, "tid": 7,
    "ts": 160.000, "dur": 5.000,
    "args": {
      "External id": 4, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": 2
    }
  },
  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 4242, "tid": 4242,
    "ts": 200.000, "dur": 10.000,
    "args": {
      "External id": 5, "cbid": 41, "correlation": 3
    }
  },
  {
    "ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
    "ts": 300.000, "dur": 20.000,
    "args": {
      "External id": 5, "device": 0, "context": 1, "stream": 7, "correlation": 3, "bytes": 2000000, "memory bandwidth (GB/s)": 100.0
    }
  },
  {
    "ph": "X", "cat": "kernel", "name": "triton_poi_fused_0", "pid": 0, "tid": 7,
    "ts": 400.500, "dur": 2.250,
    "args": {
      "External id": 6, "device": 0, "context": 1, "stream": 7, "correlation": 4
    }
  },
  {
    "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 4242, "tid": 4243,
    "ts": 130.000, "dur": 2.000,
    "args": {
      "External id": 7, "cbid": 430, "correlation": 5
    }
  },
  {
    "ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "pid": 0, "tid": 20,
    "ts": 140.000, "dur": 40.000,
    "args": {
      "External id": 7, "device": 0, "context": 1, "stream": 20, "correlation": 5, "Comms Id": 10159970886766084423
    }
  },
  {
    "ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 0, "tid": 7,
    "ts": 402.750, "dur": 1.000,
    "args": {
      "device": 0, "stream": -1, "correlation": 9
    }
  },
  {
    "name": "process_name", "ph": "M", "ts": 0.000, "pid": 0, "tid": 0,
    "args": {
      "name": "python"
    }
  },
  {
    "ph": "X", "cat": "Trace", "ts": 0.000, "dur": 500.000,
    "pid": "Spans", "tid": "PyTorch Profiler",
    "name": "PyTorch Profiler (0)",
    "args": {
      "Op count": 0
    }
  }
  ],
  "traceName": "/tmp/rank3.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 1700000000000000000
}
)J";

TEST_CASE("trace: temporal, idle and launch analyses of a hand-made trace", "[trace]") {
  const TraceData data = read_trace_text(kModernTrace);
  CHECK(data.not_kineto.empty());
  CHECK(data.truncated.empty());
  CHECK(data.counts.records == 15);
  CHECK(data.counts.malformed == 0);
  CHECK(data.counts.used == 2 + 5 + 4);  // 2 steps, 5 GPU ops, 4 launch calls
  CHECK(data.rank == 3);
  CHECK(data.world_size == 8);
  CHECK(data.backend == "nccl");
  REQUIRE(data.base_time_ns);
  CHECK(*data.base_time_ns == 1700000000000000000);
  CHECK(data.device_names.at(0) == "NVIDIA H100 80GB HBM3");

  const TraceReport report = analyse(data, TraceOptions{});
  REQUIRE(report.devices.size() == 1);
  const DeviceReport& d = report.devices.front();
  CHECK(d.span_ns == 302750);
  CHECK(d.busy_ns == 102250);
  CHECK(d.idle_ns == 200500);
  CHECK(d.compute_ns == 57250);
  CHECK(d.noncompute_ns == 45000);
  CHECK(d.kernels == 4);
  CHECK(d.memcpys == 1);
  CHECK(d.launch.matched == 4);
  CHECK(d.launch.unmatched == 1);
  CHECK(d.launch.percentile_ns(50).value() == Approx(34000));
  CHECK(d.launch.percentile_ns(95).value() == Approx(85500));
  CHECK(d.launch.percentile_ns(99).value() == Approx(89100));
  CHECK(d.launch.delays_ns.back() == 90000);
  CHECK(d.launch.short_kernels == 2);
  CHECK(d.launch.long_delays == 0);
  CHECK(d.idle.host_wait_ns == 135000);
  CHECK(d.idle.short_gap_ns == 10000);
  CHECK(d.idle.other_ns == 80500);
  REQUIRE(d.streams.size() == 2);
  CHECK(d.streams[0].stream == 7);
  CHECK(d.streams[0].queue_length_mean == Approx(249.0 / 230.0));
  CHECK(d.streams[0].queue_length_max == 2);
  CHECK(d.streams[1].queue_length_mean == Approx(1.0));
  CHECK(d.queue_length_mean == Approx((249.0 / 230.0 + 1.0) / 2));
  CHECK(d.kernel_time_ns[static_cast<int>(OpClass::communication)] == 40000);
  REQUIRE(d.memory.size() == 1);
  CHECK(d.memory[0].dir == MemDir::h2d);
  CHECK(d.memory[0].gbps().value() == Approx(100.0));  // 2 MB in 20 us
  REQUIRE(!d.top_kernels.empty());
  CHECK(d.top_kernels[0].name == "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
  CHECK(d.top_kernels[1].cls == OpClass::communication);
}

TEST_CASE("trace: a launch queue that fills: the time launches stalled, the queue over time", "[trace]") {
  // 1100 kernels launched 1 ns apart from t = 0, run one after another for 1 us each from
  // t = 10 us: the queue holds 1100 at t = 1099 and drains by one each microsecond from 11 us.
  // It holds 1024 or more from the 1024th launch (t = 1023) until 77 kernels have ended
  // (t = 10 000 + 77 x 1000 = 87 000): full for 87 000 - 1023 = 85 977 ns.
  TraceData data;
  data.names.emplace_back("k");
  constexpr std::int64_t kOps = 1100;
  for (std::int64_t i = 0; i < kOps; ++i) {
    GpuOp op;
    op.start_ns = 10'000 + 1000 * i;
    op.dur_ns = 1000;
    op.stream = 7;
    op.correlation = i;
    data.ops.push_back(op);
    data.launches.push_back(LaunchCall{i, 1, i});
  }
  const TraceReport report = analyse(data, TraceOptions{});
  REQUIRE(report.devices.size() == 1);
  const DeviceReport& d = report.devices.front();
  REQUIRE(d.streams.size() == 1);
  const StreamReport& s = d.streams.front();
  CHECK(s.queue_length_max == 1100);
  CHECK(s.full_queue_ns == 85'977);
  CHECK(d.full_queue_ns == 85'977);
  // The queue's span, 0 to the last end (1 110 000 ns), in 120 bins of 9250 ns: the longest
  // queue of bin 0 and 1 is 1100 (nothing ends before 11 000), of bin 2 ([18 500, 27 750)) 1092
  // (8 ended by 18 500), of the last ([1 100 750, 1 110 000)) 10.
  REQUIRE(s.queue_max_by_bin.size() == kQueueBins);
  CHECK(s.queue_max_by_bin[0] == 1100);
  CHECK(s.queue_max_by_bin[1] == 1100);
  CHECK(s.queue_max_by_bin[2] == 1092);
  CHECK(s.queue_max_by_bin.back() == 10);
  // A queue that never fills stalls nothing.
  data.ops.resize(10);
  data.launches.resize(10);
  const TraceReport small_report = analyse(data, TraceOptions{});
  const StreamReport& small = small_report.devices.front().streams.front();
  CHECK(small.full_queue_ns == 0);
  CHECK(small.queue_length_max == 10);
}

TEST_CASE("trace: --steps keeps the ops launched inside the chosen ProfilerStep", "[trace]") {
  const TraceData data = read_trace_text(kModernTrace);
  TraceOptions options;
  options.step_first = 8;  // 199..499: M1 (call at 200) and K4 (no call: its own start 400.5)
  const TraceReport report = analyse(data, options);
  REQUIRE(report.steps_used.size() == 1);
  CHECK(report.ops_filtered_out == 3);
  REQUIRE(report.devices.size() == 1);
  CHECK(report.devices[0].ops == 2);
  CHECK(report.devices[0].span_ns == 102750);  // 300 .. 402.75
}

namespace {

// Two steps of 100 µs; aten::mm twice in step 1 (10 + 14 µs) and once in step 2 (12.5 µs), each
// launching a kernel (3 µs calls); an annotation; a cpu_op without "dur" (not an operator).
constexpr std::string_view kOperatorTrace = R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "## forward ##", "pid": 1, "tid": 1, "ts": 1, "dur": 60},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2, "dur": 10, "args": {"External id": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 3, "args": {"correlation": 11}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 14, "args": {"External id": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 22, "dur": 3, "args": {"correlation": 12}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 120, "dur": 12.5, "args": {"External id": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 121, "dur": 3, "args": {"correlation": 13}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 150},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 9, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 11}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 30, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 12}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 125, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": 13}}
]})";

const OperatorRow* operator_row(const TraceReport& r, std::string_view name) {
  for (const OperatorRow& row : r.operators)
    if (row.name == name) return &row;
  return nullptr;
}

}  // namespace

TEST_CASE("trace: CPU operators by name, kept only when asked, within --steps", "[trace]") {
  CHECK(read_trace_text(kOperatorTrace).host_ops.empty());  // the default: nothing kept
  const TraceData data = read_trace_text(kOperatorTrace, kTraceChunkBytes, ReadOptions{.keep_host_ops = true});
  // 3 aten::mm + 3 launches + 1 annotation; aten::empty has no "dur"; ProfilerStep is the step.
  REQUIRE(data.host_ops.size() == 7);
  CHECK(data.cpu_ops == 4);

  const TraceReport all = analyse(data, TraceOptions{});
  REQUIRE(all.operators.size() == 3);
  const OperatorRow* mm = operator_row(all, "aten::mm");
  REQUIRE(mm != nullptr);
  CHECK(mm->kind == HostOpKind::cpu_op);
  CHECK(mm->calls == 3);
  CHECK(mm->total_ns == 36'500);  // 10 + 14 + 12.5 µs
  CHECK(mm->max_ns == 14'000);
  const OperatorRow* launch = operator_row(all, "cudaLaunchKernel");
  REQUIRE(launch != nullptr);
  CHECK(launch->kind == HostOpKind::runtime);
  CHECK(launch->total_ns == 9'000);
  const OperatorRow* fwd = operator_row(all, "## forward ##");
  REQUIRE(fwd != nullptr);
  CHECK(fwd->kind == HostOpKind::annotation);
  CHECK(all.operators.front().name == "aten::mm");  // cpu_op rows first, by total time

  TraceOptions step2;
  step2.step_first = 2;  // 100..200 µs: the third aten::mm and its launch
  const TraceReport two = analyse(data, step2);
  REQUIRE(two.operators.size() == 2);
  CHECK(operator_row(two, "aten::mm")->calls == 1);
  CHECK(operator_row(two, "aten::mm")->total_ns == 12'500);
  CHECK(operator_row(two, "## forward ##") == nullptr);
}

TEST_CASE("trace: MTIA device events: copies, kernels and stream waits, launched by the MTIA runtime", "[trace]") {
  // A runFunction call at 10-12 µs runs "remote" on stream 101 at 14 µs (delay from the call's end
  // 2 µs); a memcpy call at 20-21 µs becomes two DMA requests of 1024 B on stream 105 at 23 and 24 µs
  // (delays 2 and 3 µs); a stream wait of 30 µs and an event record are synchronisation, not ops.
  const TraceData data = read_trace_text(R"J({"schemaVersion": 1, "deviceProperties": [{"id": 17, "name": "ARTEMIS"}],
  "traceEvents": [
  {"ph": "X", "cat": "mtia_runtime", "name": "runFunction - job_prep_and_submit_for_execution", "pid": 865, "tid": 1837, "ts": 10, "dur": 2, "args": {"correlation": 7, "device": 17}},
  {"ph": "X", "cat": "mtia_runtime", "name": "enqueueCommand memcpyHtoDAsync", "pid": 865, "tid": 1837, "ts": 20, "dur": 1, "args": {"correlation": 8, "device": 17}},
  {"ph": "X", "cat": "mtia_runtime", "name": "synchronizeStream", "pid": 865, "tid": 1837, "ts": 40, "dur": 5, "args": {"device": 17}},
  {"ph": "X", "cat": "mtia_ccp_events", "name": "remote", "pid": 17, "tid": 3536, "ts": 14, "dur": 6, "args": {"correlation": 7, "stream": 101, "column": "0", "row": "0", "packet_ptr": 4}},
  {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_request", "pid": 17, "tid": 3672, "ts": 23, "dur": 1, "args": {"correlation": 8, "stream": 105, "direction": "HOST_TO_DEVICE", "size": 1024, "sqid": 8}},
  {"ph": "X", "cat": "mtia_ccp_events", "name": "dma_request", "pid": 17, "tid": 3672, "ts": 24, "dur": 1, "args": {"correlation": 8, "stream": 105, "direction": "HOST_TO_DEVICE", "size": 1024, "sqid": 8}},
  {"ph": "X", "cat": "mtia_ccp_events", "name": "event_wait", "pid": 17, "tid": 3774, "ts": 0, "dur": 30, "args": {"stream": 108, "wait_on_stream": 104, "seq_num": 5}},
  {"ph": "X", "cat": "mtia_ccp_events", "name": "event_record", "pid": 17, "tid": 3672, "ts": 26, "dur": 0.168, "args": {"stream": 105, "seq_num": 6}}
  ]})J");
  CHECK(data.mtia_ops == 5);
  CHECK(data.sync_events == 2);
  REQUIRE(data.ops.size() == 3);
  CHECK(data.launches.size() == 2);  // synchronizeStream launches nothing
  const TraceReport report = analyse(data, TraceOptions{});
  REQUIRE(report.devices.size() == 1);
  const DeviceReport& d = report.devices[0];
  CHECK(d.device == 17);
  CHECK(d.kernels == 1);
  CHECK(d.memcpys == 2);
  CHECK(d.busy_ns == 8'000);  // [14, 20) + [23, 25)
  CHECK(d.launch.matched == 3);
  CHECK(d.launch.delays_ns == std::vector<std::int64_t>{2'000, 2'000, 3'000});
  REQUIRE(d.memory.size() == 1);
  CHECK(d.memory[0].dir == MemDir::h2d);
  CHECK(d.memory[0].bytes == 2048);
}

TEST_CASE("trace: prep emits the analyses as events on the UTC clock", "[trace]") {
  const PrepRun r = run_prep_text(kModernTrace);
  check_accounting(r);
  CHECK(r.stats.format == gpucost::Format::kineto);
  CHECK(r.stats.lines == 15);
  CHECK(r.stats.time_basis == gpucost::TimeBasis::absolute);
  const OwnedEvent* dev = find_kind(r, "trace_device", 0);
  REQUIRE(dev != nullptr);
  CHECK(dev->ts_ns == 1700000000000000000 + 100000);
  CHECK(field(*dev, "rank") == "3");
  CHECK(field(*dev, "busy_ns") == "102250");
  CHECK(num(*dev, "busy_fraction") == Approx(102250.0 / 302750.0));
  CHECK(num(*dev, "launch_delay_p95_ns") == Approx(85500));
  CHECK(field(*dev, "unmatched_gpu_events") == "1");
  CHECK(num(*dev, "short_kernel_fraction") == Approx(0.5));
  CHECK(num(*dev, "launch_delay_over_10ms_fraction") == Approx(0.0));
  const OwnedEvent* mem = find_kind(r, "trace_memory", 0);
  REQUIRE(mem != nullptr);
  CHECK(field(*mem, "direction") == "h2d");
  CHECK(num(*mem, "gbps") == Approx(100.0));
  const OwnedEvent* info = find_kind(r, "trace_info");
  REQUIRE(info != nullptr);
  CHECK(field(*info, "world_size") == "8");
  int steps = 0;
  for (const OwnedEvent& e : r.events) steps += e.kind == "trace_step" ? 1 : 0;
  CHECK(steps == 2);
}

// The oldest layout HTA keeps (PyTorch 1.9/1.10): "Kernel"/"Runtime"/"Memcpy", integer epoch µs,
// lower-case "external id"; a kernel without args.stream takes its tid.
constexpr const char* kOldTrace = R"J({
  "schemaVersion": 1,

  "distributedInfo": {"rank": 1},
  "traceEvents": [
  {
    "ph": "X", "cat": "Kernel", 
    "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7,
    "ts": 1665536373729077, "dur": 4,
    "args": {
      "queued": 0, "device": 0, "context": 1,
      "correlation": 538860, "external id": 0
    }
  },
  {
    "ph": "X", "cat": "Runtime", 
    "name": "cudaLaunchKernel", "pid": 1010370, "tid": 1010370,
    "ts": 1665536373729065, "dur": 10,
    "args": {
      "cbid": 211, "correlation": 538860,
      "external id": 0, "external ts": 1665536373659346
    }
  },
  {
    "ph": "X", "cat": "Memcpy", 
    "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7,
    "ts": 1665536373729100, "dur": 6,
    "args": {
      "device": 0, "context": 1,
      "stream": 7, "correlation": 538870, "external id": 0,
      "bytes": 4, "memory bandwidth (GB/s)": 0.000666
    }
  },
  {
    "ph": "X", "cat": "Kernel", "name": "broken", "pid": 0, "tid": 7, "dur": 4,
    "args": {"stream": 7}
  }
  ]
}
)J";

TEST_CASE("trace: the oldest Kineto layout", "[trace]") {
  const TraceData data = read_trace_text(kOldTrace);
  CHECK(data.counts.records == 4);
  CHECK(data.counts.malformed == 1);  // a complete event without ts
  REQUIRE(data.counts.examples.size() == 1);
  CHECK(data.counts.examples[0].record == 4);
  CHECK(data.counts.examples[0].line == 34);  // the line of its opening brace
  CHECK(data.counts.examples[0].excerpt.rfind(R"({ "ph": "X", "cat": "Kernel", "name": "broken")", 0) == 0);
  CHECK(data.absolute());
  REQUIRE(data.ops.size() == 2);
  CHECK(data.ops[0].stream == 7);  // from tid
  CHECK(data.ops[0].start_ns == 1665536373729077000);
  const TraceReport report = analyse(data, TraceOptions{});
  REQUIRE(report.devices.size() == 1);
  const DeviceReport& d = report.devices[0];
  CHECK(d.launch.matched == 1);
  CHECK(d.launch.unmatched == 1);             // the memcpy came from a synchronous cudaMemcpy (not in the trace)
  CHECK(d.launch.delays_ns.front() == 2000);  // 729077 - (729065 + 10) us
  CHECK(d.span_ns == 29000);                  // 729077 .. 729106
  CHECK(d.busy_ns == 10000);
}

namespace {

/// A synthetic trace of n kernels on one stream, pretty (one record over several lines, like
/// Kineto) or compact (one line, like json.dump).
std::string synthetic_trace(int n, bool pretty) {
  std::string out = pretty ? "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n" : "{\"traceEvents\": [";
  for (int i = 0; i < n; ++i) {
    const double ts = 1000.0 + i * 10.0;
    const char* sep = i + 1 < n ? "," : "";
    if (pretty)
      out += fmt::format(
          "  {{\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": "
          "1,\n"
          "    \"ts\": {:.3f}, \"dur\": 2.000,\n    \"args\": {{\"correlation\": {}}}\n  }},\n"
          "  {{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_{}\", \"pid\": 0, \"tid\": 7,\n"
          "    \"ts\": {:.3f}, \"dur\": {:.3f},\n    \"args\": {{\"device\": 0, \"stream\": 7, \"correlation\": {}, "
          "\"grid\": [1, 1, 1]}}\n  }}{}\n",
          ts - 5, i, i % 97, ts, 3.0 + (i % 5), i, sep);
    else
      out += fmt::format(
          "{{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
          "\"ts\": {:.3f}, \"dur\": 2.000, \"args\": {{\"correlation\": {}}}}}, "
          "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_{}\", \"pid\": 0, \"tid\": 7, \"ts\": {:.3f}, "
          "\"dur\": {:.3f}, \"args\": {{\"device\": 0, \"stream\": 7, \"correlation\": {}, \"grid\": [1, 1, 1]}}}}{} ",
          ts - 5, i, i % 97, ts, 3.0 + (i % 5), i, sep);
  }
  out += pretty ? "  ],\n  \"traceName\": \"synthetic\",\n  \"baseTimeNanoseconds\": 1700000000000000000\n}\n"
                : "], \"traceName\": \"synthetic\", \"baseTimeNanoseconds\": 1700000000000000000}";
  return out;
}

}  // namespace

TEST_CASE("trace: a trace larger than one chunk reads the same as one read whole", "[trace]") {
  // ~24 MB pretty: several 8 MiB chunks, each cut inside a record; the compact form is one line.
  const int n = 70000;
  const TraceData chunked = read_trace_text(synthetic_trace(n, true));
  const TraceData whole = read_trace_text(synthetic_trace(n, false));
  CHECK(chunked.truncated.empty());
  CHECK(whole.truncated.empty());
  CHECK(chunked.counts.records == 2u * n);
  CHECK(whole.counts.records == 2u * n);
  CHECK(chunked.ops.size() == static_cast<std::size_t>(n));
  CHECK(chunked.launches.size() == static_cast<std::size_t>(n));
  CHECK(chunked.trace_name == "synthetic");
  CHECK(whole.trace_name == "synthetic");
  REQUIRE(chunked.base_time_ns);
  const TraceReport a = analyse(chunked, TraceOptions{});
  const TraceReport b = analyse(whole, TraceOptions{});
  REQUIRE(a.devices.size() == 1);
  REQUIRE(b.devices.size() == 1);
  CHECK(a.devices[0].busy_ns == b.devices[0].busy_ns);
  // busy: every kernel i lasts 3 + i % 5 us -> sum over n kernels
  std::int64_t busy = 0;
  for (int i = 0; i < n; ++i) busy += (3 + i % 5) * 1000;
  CHECK(a.devices[0].busy_ns == busy);
  CHECK(a.devices[0].launch.matched == static_cast<std::uint64_t>(n));
  CHECK(a.devices[0].launch.delays_ns.front() == 3000);  // ts - (ts - 5 + 2)
  CHECK(a.devices[0].distinct_kernels == 97);
}

TEST_CASE("trace: every chunk size reads the same records (cuts after a comma, inside strings)", "[trace]") {
  const TraceData whole = read_trace_text(kModernTrace);
  const TraceReport expected = analyse(whole, TraceOptions{});
  REQUIRE(expected.devices.size() == 1);
  for (std::size_t chunk = 64; chunk <= 4096; chunk += 7) {
    INFO("chunk " << chunk);
    const TraceData d = read_trace_text(kModernTrace, chunk);
    CHECK(d.truncated.empty());
    CHECK(d.counts.records == whole.counts.records);
    CHECK(d.counts.malformed == 0);
    CHECK(d.counts.used == whole.counts.used);
    CHECK(d.base_time_ns == whole.base_time_ns);
    CHECK(d.rank == 3);
    const TraceReport r = analyse(d, TraceOptions{});
    REQUIRE(r.devices.size() == 1);
    CHECK(r.devices[0].busy_ns == expected.devices[0].busy_ns);
    CHECK(r.devices[0].launch.delays_ns == expected.devices[0].launch.delays_ns);
  }
}

TEST_CASE("trace: one record per line: every cut falls after a comma", "[trace]") {
  // {"traceEvents": [\n{...},\n{...},\n...]}: the last newline of a chunk always follows "},".
  std::string text = "{\"traceEvents\": [\n";
  const int n = 400;
  for (int i = 0; i < n; ++i)
    text += fmt::format(
        "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k{}\", \"pid\": 0, \"tid\": 7, \"ts\": {}, "
        "\"dur\": 2, \"args\": {{\"stream\": 7}}}}{}\n",
        i, 10 * i, i + 1 < n ? "," : "");
  text += "], \"baseTimeNanoseconds\": 1700000000000000000}\n";
  for (std::size_t chunk : {64u, 100u, 333u, 1000u, 4096u}) {
    INFO("chunk " << chunk);
    const TraceData d = read_trace_text(text, chunk);
    CHECK(d.truncated.empty());
    CHECK(d.counts.records == static_cast<std::uint64_t>(n));
    CHECK(d.counts.malformed == 0);
    CHECK(d.ops.size() == static_cast<std::size_t>(n));
    CHECK(d.base_time_ns.has_value());
  }
}

TEST_CASE("trace: a trace cut short keeps the records before the cut and says so", "[trace]") {
  const std::string full = synthetic_trace(2000, true);
  const std::string cut = full.substr(0, full.size() / 2);
  const TraceData data = read_trace_text(cut);
  CHECK_FALSE(data.truncated.empty());
  CHECK(data.counts.records > 1000);
  CHECK(data.counts.records < 4000);
  const PrepRun r = run_prep_text(cut);
  check_accounting(r);
  CHECK_FALSE(r.stats.truncated.empty());
}

TEST_CASE("trace: JSON that is not a Kineto trace is named, not half-parsed", "[trace]") {
  const prep::PrepOptions options;
  const std::string timeline = "[[-1, 1, 37888, 7], [-1, 1, 512, 7], [1720000000000000, 0, 512, 7]]";
  CHECK(prep::detect_format(timeline, options) == gpucost::Format::kineto);
  const Status st = prep::check_format(timeline, options, "mem.raw");
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("memory timeline") != std::string::npos);

  const std::string et = R"J({
  "schema": "1.0.1", "pid": 563677, "time": "2023-07-14 11:53:07", "start_ts": 6278907328,
  "nodes": [
    {"name": "[pytorch|profiler|execution_trace|thread]", "id": 2}
  ]
})J";
  const Status st2 = prep::check_format(et, options, "et.json");
  REQUIRE_FALSE(st2);
  CHECK(st2.error().message.find("execution trace") != std::string::npos);

  // A Chrome trace in the bare array form is a list of records.
  const TraceData arr =
      read_trace_text(R"J([{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}])J");
  CHECK(arr.not_kineto.empty());
  CHECK(arr.ops.size() == 1);
}

TEST_CASE("trace: a CPU-only trace is reported as such", "[trace]") {
  const std::string cpu = R"J({"distributedInfo": {"backend": "gloo", "rank": 34, "world_size": 300}, "traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 9, "dur": 20}
], "baseTimeNanoseconds": 1720000000000000000})J";
  const PrepRun r = run_prep_text(cpu);
  check_accounting(r);
  CHECK(find_kind(r, "trace_device") == nullptr);
  REQUIRE(find_kind(r, "trace_info") != nullptr);
  bool noted = false;
  for (const std::string& n : r.stats.notes) noted = noted || n.find("CPU-only") != std::string::npos;
  CHECK(noted);
}

}  // namespace gpucost::test

#!/usr/bin/env python3
"""Python baseline (and independent check) for `gpucost prep` on Kineto traces.

What a user does without HTA (and without pandas): json.load the whole trace, then compute, per
GPU, HTA's temporal breakdown (span, busy = union of kernel+memcpy+memset intervals, compute =
union of the kernels not named nccl*/rccl*) and the launch delay percentiles (max(0, GPU op
start - end of its launch call), joined on args.correlation; numpy's default linear
interpolation, written out by hand).

  py_trace_baseline.py [--exact] TRACE[.gz]

Prints one line per device, `key=value` with the names of gpucost's trace_device fields:
  device=0 ops=... kernels=... span_ns=... busy_ns=... idle_ns=... compute_ns=...
  launched_ops=... unmatched_gpu_events=... launch_delay_p50_ns=... p95 p99 max

Times: by default the floats json.load gives, rounded to ns (round(ts * 1000)), as a user
would write it. Above 2^42 µs (~51 days of relative ts, which Kineto traces do reach: their ts
are relative to a rounded baseTimeNanoseconds) a float64 has less than 1 ns of resolution, so
this can be 1 ns off. --exact parses numbers as decimal.Decimal and rounds µs -> ns half away
from zero, as gpucost does: the check the benchmark compares against gpucost.

The selection follows docs/formats.md ("Kineto traces"): complete events ("ph": "X") of cat
kernel/gpu_memcpy/gpu_memset (or Kernel/Memcpy/Memset) with a valid ts, dur >= 0 and a stream
(args.stream, else tid); device = args.device, else pid, else 0; launch calls are
cuda_runtime/cuda_driver events of a launch API with args.correlation (the first per id).
"""
from __future__ import annotations

import decimal
import gzip
import json
import sys

GPU_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
            "gpu_memset": "memset", "Memset": "memset"}
RUNTIME_CATS = {"cuda_runtime", "Runtime", "cuda_driver", "Driver"}
LAUNCH_APIS = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaGraphLaunch",
    "cuGraphLaunch", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaLaunchCooperativeKernel", "cuLaunchCooperativeKernel",
    "cuMemcpyAsync", "cuMemsetD8Async", "cuMemsetD32Async", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
    "cuMemcpyDtoDAsync", "hipLaunchKernel", "hipLaunchKernelExC", "hipExtLaunchKernel", "hipModuleLaunchKernel",
    "hipExtModuleLaunchKernel", "hipGraphLaunch", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream",
    "hipLaunchCooperativeKernel", "hipExtLaunchMultiKernelMultiDevice"}


def is_launch(name: str) -> bool:
    for suffix in ("_ptsz", "_ptds", "_spt", "_v2"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name in LAUNCH_APIS


def to_ns_float(v) -> int | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return int(v) * 1000 if isinstance(v, int) else round(v * 1000)


def to_ns_exact(v) -> int | None:
    if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
        return None
    if isinstance(v, int):
        return v * 1000
    return int((v * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def as_int(v) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.lstrip("-").isdigit():
        return int(v)
    return None


def union_length(intervals: list[tuple[int, int]]) -> int:
    if not intervals:
        return 0
    intervals.sort()
    total = 0
    cs, ce = intervals[0]
    for s, e in intervals:
        if s > ce:
            total += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    return total + (ce - cs)


def percentile(sorted_values: list[int], p: float) -> float:
    """numpy.percentile(..., method='linear')."""
    rank = p / 100.0 * (len(sorted_values) - 1)
    lo = int(rank // 1)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = rank - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def main() -> int:
    args = sys.argv[1:]
    exact = "--exact" in args
    args = [a for a in args if a != "--exact"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = args[0]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        trace = json.load(f, parse_float=decimal.Decimal) if exact else json.load(f)
    to_ns = to_ns_exact if exact else to_ns_float
    events = trace["traceEvents"] if isinstance(trace, dict) else trace

    ops: dict[int, list[tuple]] = {}  # device -> [(start, end, compute, correlation)]
    launches: dict[int, tuple[int, int]] = {}  # correlation -> (start, end)
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat = e.get("cat")
        kind = GPU_CATS.get(cat)
        if kind is None and cat not in RUNTIME_CATS:
            continue
        ts, dur = to_ns(e.get("ts")), to_ns(e.get("dur"))
        if ts is None or dur is None or dur < 0:
            continue
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        corr = as_int(a.get("correlation"))
        if corr == -1:
            corr = None
        if kind is None:  # runtime call
            if corr is not None and is_launch(str(e.get("name", ""))) and corr not in launches:
                launches[corr] = (ts, ts + dur)
            continue
        stream = as_int(a.get("stream"))
        if stream is None:
            stream = as_int(e.get("tid"))
        if stream is None:
            continue
        dev = as_int(a.get("device"))
        if dev is None:
            dev = as_int(e.get("pid"))
        if dev is None:
            dev = 0
        name = str(e.get("name", "")).lower()
        compute = kind == "kernel" and not (name.startswith("nccl") or name.startswith("rccl"))
        ops.setdefault(dev, []).append((ts, ts + dur, compute, corr, kind))

    for dev in sorted(ops):
        lst = ops[dev]
        start = min(o[0] for o in lst)
        end = max(o[1] for o in lst)
        busy = union_length([(o[0], o[1]) for o in lst])
        compute = union_length([(o[0], o[1]) for o in lst if o[2]])
        delays = []
        unmatched = 0
        for (s, _e, _c, corr, _k) in lst:
            call = launches.get(corr) if corr is not None else None
            if call is None:
                unmatched += 1
            else:
                delays.append(max(0, s - call[1]))
        delays.sort()
        kernels = sum(1 for o in lst if o[4] == "kernel")
        fields = [("device", dev), ("ops", len(lst)), ("kernels", kernels), ("span_ns", end - start),
                  ("busy_ns", busy), ("idle_ns", end - start - busy), ("compute_ns", compute),
                  ("launched_ops", len(delays)), ("unmatched_gpu_events", unmatched)]
        if delays:
            fields += [("launch_delay_p50_ns", repr(percentile(delays, 50))),
                       ("launch_delay_p95_ns", repr(percentile(delays, 95))),
                       ("launch_delay_p99_ns", repr(percentile(delays, 99))),
                       ("launch_delay_max_ns", delays[-1])]
        print(" ".join(f"{k}={v}" for k, v in fields))
    return 0


if __name__ == "__main__":
    sys.exit(main())

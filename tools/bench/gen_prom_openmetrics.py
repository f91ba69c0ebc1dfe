#!/usr/bin/env python3
"""A cluster's dcgm-exporter telemetry for tools/bench/prometheus.sh: GPUS GPUs over DAYS days at
15 s, four DCGM gauges (power, GPU utilisation, GPU temperature, SM clock), written as

  dcgm.om     OpenMetrics with a timestamp on every sample and `# EOF`, as `promtool tsdb
              create-blocks-from openmetrics` backfills it (a family's samples together, each
              series in time order); with --slice K only the K-th two-hour slice of the window
              (promtool reads its whole input once per two-hour block it writes, so a month in
              one file costs 360 passes over 3.8 GB; sliced, each sample is read about once)
  query.csv   the same samples as `nvidia-smi --query-gpu=timestamp,index,power.draw,
              utilization.gpu,temperature.gpu,clocks.sm --format=csv -lms 15000` (one host only;
              not with --slice)

  gen_prom_openmetrics.py OUTDIR GPUS DAYS [START_UNIX] [--per-host N] [--slice K | --csv-only]

The GPUs are node01's (indices 0..GPUS-1), or with --per-host N those of hosts node0001,
node0002, ... of N GPUs each. Every value is a formula of (GPU, step), so any slice can be
written alone and the slices together are the whole window's samples.
"""
import datetime
import os
import sys

STEP = 15
SLICE_STEPS = 7200 // STEP  # two hours: promtool's block length


def util(g, k):
    return (k * 13 + g * 7) % 101


def power(g, k):
    return 70 + util(g, k) * 5 + ((k * 7 + g) % 10) * 0.25


def temp(g, k):
    return 31 + util(g, k) * 2 // 5


def clock(g, k):
    return 345 if util(g, k) < 5 else 1980 - (k % 4) * 15


METRICS = [
    ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", lambda g, k: f"{power(g, k):.6f}"),
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lambda g, k: str(util(g, k))),
    ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", lambda g, k: str(temp(g, k))),
    ("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", lambda g, k: str(clock(g, k))),
]


def labels(g, per_host):
    if per_host is None:
        return f'gpu="{g}",UUID="GPU-{g:08x}",Hostname="node01"'
    return f'gpu="{g % per_host}",UUID="GPU-{g:08x}",Hostname="node{g // per_host + 1:04d}"'


def write_openmetrics(path, gpus, start, first, last, per_host):
    """Samples of steps [first, last) of every series."""
    with open(path, "w", buffering=1 << 22) as f:
        for name, help_text, value in METRICS:
            f.write(f"# HELP {name} {help_text}\n# TYPE {name} gauge\n")
            for g in range(gpus):
                head = f"{name}{{{labels(g, per_host)}}} "
                f.write("".join(f"{head}{value(g, k)} {start + k * STEP}\n" for k in range(first, last)))
        f.write("# EOF\n")


def write_csv(path, gpus, start, steps):
    with open(path, "w", buffering=1 << 22) as f:
        f.write("timestamp, index, power.draw [W], utilization.gpu [%], temperature.gpu, clocks.current.sm [MHz]\n")
        for k in range(steps):
            stamp = datetime.datetime.fromtimestamp(start + k * STEP, datetime.timezone.utc)
            s = f"{stamp:%Y/%m/%d %H:%M:%S}.000"
            f.write("".join(f"{s}, {g}, {power(g, k):.2f} W, {util(g, k)} %, {temp(g, k)}, {clock(g, k)} MHz\n"
                            for g in range(gpus)))


def option(args, name):
    if name not in args:
        return None
    i = args.index(name)
    value = args[i + 1]
    del args[i:i + 2]
    return value


def main():
    args = sys.argv[1:]
    csv_only = "--csv-only" in args
    if csv_only:
        args.remove("--csv-only")
    per_host = option(args, "--per-host")
    per_host = int(per_host) if per_host else None
    piece = option(args, "--slice")
    out, gpus, days = args[0], int(args[1]), float(args[2])
    start = int(args[3]) if len(args) > 3 else 1748736000  # 2025-06-01T00:00:00Z
    steps = int(days * 86400 // STEP)
    os.makedirs(out, exist_ok=True)
    if piece is not None:
        first = int(piece) * SLICE_STEPS
        write_openmetrics(os.path.join(out, "dcgm.om"), gpus, start, first, min(first + SLICE_STEPS, steps), per_host)
        return 0
    if not csv_only:
        write_openmetrics(os.path.join(out, "dcgm.om"), gpus, start, 0, steps, per_host)
    if per_host is None:
        write_csv(os.path.join(out, "query.csv"), gpus, start, steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())

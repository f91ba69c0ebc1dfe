#!/usr/bin/env python3
"""A cluster's dcgm-exporter telemetry for tools/bench/prometheus.sh: GPUS GPUs over DAYS days at
15 s, four DCGM gauges (power, GPU utilisation, GPU temperature, SM clock), written twice with the
very same samples:

  dcgm.om     OpenMetrics with a timestamp on every sample and `# EOF`, as `promtool tsdb
              create-blocks-from openmetrics` backfills it (a family's samples together, each
              series in time order)
  query.csv   the same samples as `nvidia-smi --query-gpu=timestamp,index,power.draw,
              utilization.gpu,temperature.gpu,clocks.sm --format=csv -lms 15000`

  gen_prom_openmetrics.py OUTDIR GPUS DAYS [START_UNIX]

The GPUs are one host's (node01, indices 0..GPUS-1). Every value is a formula of (GPU, step).
"""
import datetime
import os
import sys

STEP = 15


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


def main():
    out, gpus, days = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    start = int(sys.argv[4]) if len(sys.argv) > 4 else 1748736000  # 2025-06-01T00:00:00Z
    steps = int(days * 86400 // STEP)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "dcgm.om"), "w", buffering=1 << 22) as f:
        for name, help_text, value in METRICS:
            f.write(f"# HELP {name} {help_text}\n# TYPE {name} gauge\n")
            for g in range(gpus):
                head = f'{name}{{gpu="{g}",UUID="GPU-{g:08x}",Hostname="node01"}} '
                f.write("".join(f"{head}{value(g, k)} {start + k * STEP}\n" for k in range(steps)))
        f.write("# EOF\n")
    with open(os.path.join(out, "query.csv"), "w", buffering=1 << 22) as f:
        f.write("timestamp, index, power.draw [W], utilization.gpu [%], temperature.gpu, clocks.current.sm [MHz]\n")
        for k in range(steps):
            stamp = datetime.datetime.fromtimestamp(start + k * STEP, datetime.timezone.utc)
            s = f"{stamp:%Y/%m/%d %H:%M:%S}.000"
            f.write("".join(f"{s}, {g}, {power(g, k):.2f} W, {util(g, k)} %, {temp(g, k)}, {clock(g, k)} MHz\n"
                            for g in range(gpus)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What a user would write instead of `gpucost extract` for a few indicators: energy (trapezoid
over intervals up to the gap limit), time-weighted mean utilisation and the time-weighted 95th
percentile of power per GPU, from an `nvidia-smi --query-gpu` CSV (the columns of
tools/bench/gen_logs.py: timestamp, index, ..., power.draw [W], ..., utilization.gpu [%], ...).

Standard library only; the baseline of tools/bench/run_extract.sh. Prints one line per GPU.

  py_extract_baseline.py query.csv
"""
from __future__ import annotations

import csv
import sys
from datetime import datetime


def parse_ts(text: str) -> float:
    return datetime.strptime(text.strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()


def number(cell: str) -> float:
    return float(cell.strip().split()[0])


def main() -> int:
    per_gpu: dict[int, list[tuple[float, float, float]]] = {}
    with open(sys.argv[1], newline="") as f:
        rows = csv.reader(f)
        header = [h.strip() for h in next(rows)]
        col = {name: i for i, name in enumerate(header)}
        ts_i, gpu_i = col["timestamp"], col["index"]
        pw_i, ut_i = col["power.draw [W]"], col["utilization.gpu [%]"]
        for r in rows:
            per_gpu.setdefault(int(r[gpu_i]), []).append((parse_ts(r[ts_i]), number(r[pw_i]), number(r[ut_i])))
    for gpu, s in sorted(per_gpu.items()):
        s.sort(key=lambda x: x[0])
        gaps = sorted(b[0] - a[0] for a, b in zip(s, s[1:]) if b[0] > a[0])
        median = gaps[len(gaps) // 2] if gaps else 0.0
        limit = max(10.0, 5 * median)
        energy_j = covered = util_held = 0.0
        weighted = []
        for a, b in zip(s, s[1:]):
            dt = b[0] - a[0]
            if 0 < dt <= limit:
                energy_j += (a[1] + b[1]) / 2 * dt
                util_held += a[2] * dt
                covered += dt
                weighted.append((a[1], dt))
        weighted.sort()
        total = sum(w for _, w in weighted)
        acc, p95 = 0.0, float("nan")
        for v, w in weighted:
            acc += w
            if acc >= 0.95 * total:
                p95 = v
                break
        util = util_held / covered / 100 if covered else float("nan")
        print(f"gpu {gpu}: energy {energy_j / 3.6e6:.6f} kWh (covered), util_mean {util:.6f}, power_p95 {p95:.2f} W")
    return 0


if __name__ == "__main__":
    sys.exit(main())

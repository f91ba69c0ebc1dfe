#!/usr/bin/env python3
"""Generate large, realistic nvidia-smi telemetry logs for benchmarking `gpucost prep`.

Standard library only, deterministic for a given --seed.

  gen_logs.py --format dmon      --gpus 8 --mb 512 -o dmon.txt
  gen_logs.py --format query-csv --gpus 8 --mb 512 -o query.csv

dmon       the default layout of the 590-610 drivers (`nvidia-smi dmon` with no -s/-o):
           a `# gpu pwr gtemp mtemp sm mem enc dec jpg ofa mclk pclk` header pair,
           6-wide right-aligned fields, a trailing space on every line, one line per GPU
           per cycle, and the header pair printed again every --header-every cycles.
query-csv  `nvidia-smi --query-gpu=timestamp,index,pci.bus_id,name,power.draw,
           temperature.gpu,utilization.gpu,utilization.memory,memory.used,clocks.sm,
           clocks.mem --format=csv -lms N`: the header once, then one row per GPU per
           sample, values with units, timestamps advancing by the -lms interval (plus the
           few ms of loop overhead nvidia-smi adds, and a little spread across GPUs).

The telemetry is simulated, not random noise: a node runs jobs (training, evaluation,
inference, idle gaps, input stalls), utilisation follows the job phase, power follows
utilisation up to the board power limit, temperature lags power (first-order, tau ~40 s),
the SM clock drops in 15 MHz bins when power-capped or hot, and memory clocks fall to
idle on GDDR boards that sit idle. `--model l40s` / `rtx4080s` print `-` for mtemp like
the consumer/Ada boards do.

Sizes are decimal: --mb 512 means 512 * 10^6 bytes (the file stops at the first cycle
boundary at or after that size).
"""
from __future__ import annotations

import argparse
import datetime as _dt
import math
import random
import sys

# name, TDP W, idle W, boost SM MHz, idle SM MHz, active mem MHz, idle mem MHz,
# memory MiB, has memory temperature, thermal resistance C/W, temperature above which
# GPU Boost gives up one 15 MHz bin every ~3 C
MODELS = {
    "a100": ("NVIDIA A100-SXM4-40GB", 400, 55, 1410, 210, 1215, 1215, 40960, True, 0.095, 62),
    "h100": ("NVIDIA H100 80GB HBM3", 700, 72, 1980, 345, 2619, 2619, 81559, True, 0.060, 64),
    "l40s": ("NVIDIA L40S", 350, 34, 2520, 210, 9001, 405, 46068, False, 0.125, 60),
    "rtx4080s": ("NVIDIA GeForce RTX 4080 SUPER", 320, 12, 2805, 210, 11251, 405, 16376, False, 0.120, 58),
}

# DGX-style PCI bus numbers for up to 8 GPUs; more GPUs get synthetic ones.
BUS = ["07", "0F", "47", "4E", "87", "90", "B7", "BD"]

# Job phases: (name, sm % mean, sm % spread, mem-bw % mean, duration range in seconds)
PHASES = {
    "idle": (0, 0, 0, (60, 1800)),
    "train": (97, 3, 45, (600, 7200)),
    "eval": (55, 20, 25, (60, 600)),
    "infer": (35, 30, 15, (300, 3600)),
    "stall": (8, 8, 3, (2, 20)),
}
NEXT = {  # phase -> [(next phase, weight)]
    "idle": [("train", 5), ("infer", 3), ("eval", 1)],
    "train": [("eval", 3), ("stall", 5), ("idle", 1), ("train", 1)],
    "eval": [("train", 6), ("idle", 2)],
    "infer": [("idle", 3), ("infer", 1), ("train", 1)],
    "stall": [("train", 1)],
}

CHUNK = 8 << 20  # bytes per write


class Node:
    """All GPUs of one host; a job occupies the first `width` GPUs, the rest idle."""

    def __init__(self, rng: random.Random, gpus: int, model: tuple, dt: float) -> None:
        self.rng = rng
        self.n = gpus
        (self.name, self.tdp, self.idle_w, self.boost, self.idle_clk, self.mclk_on, self.mclk_off,
         self.mem_total, self.has_mtemp, self.r_th, self.slowdown) = model
        self.dt = dt
        self.alpha = 1.0 - math.exp(-dt / 40.0)  # temperature time constant ~40 s
        self.ambient = 26.0 + rng.random() * 6.0
        self.phase = "idle"
        self.left = 0.0
        self.width = gpus
        self.job_mem = 0.0
        # per-GPU state
        self.sm = [0.0] * gpus
        self.temp = [self.ambient + self.idle_w * self.r_th + i * 0.7 for i in range(gpus)]
        self.mtemp = [t - 3.0 for t in self.temp]
        self.mem_used = [0.0] * gpus
        self.idle_for = [1e9] * gpus
        self.var = [0.96 + rng.random() * 0.08 for _ in range(gpus)]  # silicon lottery

    def _next_phase(self) -> None:
        rng = self.rng
        choices = NEXT[self.phase]
        total = sum(w for _, w in choices)
        pick = rng.random() * total
        for name, w in choices:
            pick -= w
            if pick <= 0:
                break
        if self.phase == "idle" and name != "idle":
            # a new job: how many GPUs, how much memory
            self.width = self.n if rng.random() < 0.7 else max(1, rng.randrange(1, self.n + 1))
            self.job_mem = self.mem_total * (0.25 + rng.random() * 0.7)
        if name == "idle":
            self.job_mem = 0.0
        self.phase = name
        lo, hi = PHASES[name][3]
        self.left = rng.uniform(lo, hi)
        self.ambient = min(36.0, max(20.0, self.ambient + rng.gauss(0.0, 0.8)))

    def step(self) -> list[tuple]:
        """Advance one sampling cycle; return per-GPU (pwr, gtemp, mtemp, sm, mem, mclk, pclk, used)."""
        rng = self.rng
        self.left -= self.dt
        if self.left <= 0:
            self._next_phase()
        sm_mean, sm_spread, bw_mean, _ = PHASES[self.phase]
        out = []
        rnd = rng.random
        for g in range(self.n):
            active = g < self.width and self.phase != "idle"
            if active:
                target = sm_mean + (rnd() - 0.5) * 2.0 * sm_spread
                if rnd() < 0.01:  # a short dip (all-reduce, checkpoint, data loader)
                    target *= 0.3
                target = 100.0 if target > 100.0 else (0.0 if target < 0.0 else target)
                self.idle_for[g] = 0.0
                used_target = self.job_mem * (0.98 + 0.04 * rnd())
            else:
                target = 0.0
                self.idle_for[g] += self.dt
                used_target = 0.0
            # utilisation reacts within a second or two
            sm = self.sm[g] = self.sm[g] + (target - self.sm[g]) * 0.7
            bw = sm * bw_mean / (sm_mean or 1) * (0.9 + 0.2 * rnd()) if active else 0.0
            if bw > 100.0:
                bw = 100.0
            # memory used: allocations ramp up fast, free at once
            mu = self.mem_used[g]
            mu = used_target if used_target < mu else mu + (used_target - mu) * 0.5
            self.mem_used[g] = mu
            # clocks: boost when busy, idle clocks after a few seconds idle
            busy = sm > 0.5
            pclk = self.boost if busy or self.idle_for[g] < 3 else self.idle_clk
            mclk = self.mclk_on if busy or self.idle_for[g] < 30 else self.mclk_off
            # power demand follows utilisation and clock
            frac = (0.85 * sm + 0.35 * bw) / 100.0
            p = self.idle_w + (self.tdp - self.idle_w) * frac * self.var[g] * (pclk / self.boost) ** 1.6
            p += rng.gauss(0.0, 0.012 * self.tdp) if busy else rnd() * 2.0
            if p > self.tdp:  # power cap: clock drops until the board fits the limit
                pclk = pclk * (self.tdp / p) ** 0.6
                p = self.tdp - rnd() * 0.02 * self.tdp
            t = self.temp[g]
            if t > self.slowdown:  # GPU Boost: hotter silicon, lower clock bin
                pclk -= (t - self.slowdown) * 5.0
            pclk = int(pclk / 15.0) * 15 if pclk < self.boost else self.boost
            if pclk < self.idle_clk:
                pclk = self.idle_clk
            if p < self.idle_w * 0.8:
                p = self.idle_w * 0.8
            # temperature lags power (first order), memory temperature lags a bit more
            eq = self.ambient + p * self.r_th + g * 0.7
            t += (eq - t) * self.alpha
            self.temp[g] = t
            mt = self.mtemp[g]
            mt += (eq - 4.0 + bw * 0.05 - mt) * self.alpha * 0.6
            self.mtemp[g] = mt
            out.append((p, t, mt, sm, bw, mclk, pclk, mu))
        return out


def write_dmon(f, node: Node, limit: int, header_every: int) -> int:
    names = ("gpu", "pwr", "gtemp", "mtemp", "sm", "mem", "enc", "dec", "jpg", "ofa", "mclk", "pclk")
    units = ("Idx", "W", "C", "C", "%", "%", "%", "%", "%", "%", "MHz", "MHz")
    header = ("# %3s" % names[0] + "".join(" %6s" % n for n in names[1:]) + " \n"
              + "# %3s" % units[0] + "".join(" %6s" % u for u in units[1:]) + " \n")
    cell = [" %6d" % v for v in range(12000)]
    idx = ["%5d" % g for g in range(node.n)]
    dash = " %6s" % "-"
    zeros4 = cell[0] * 4  # enc dec jpg ofa
    rng = node.rng
    written = 0
    cycle = 0
    buf: list[str] = []
    size = 0
    while written + size < limit:
        if cycle % header_every == 0:
            buf.append(header)
            size += len(header)
        for g, (p, t, mt, sm, bw, mclk, pclk, _mu) in enumerate(node.step()):
            if sm > 0 and rng.random() < 0.002:  # a video/JPEG step in a data pipeline
                codec = cell[rng.randrange(5, 60)] + cell[0] + cell[rng.randrange(0, 30)] + cell[0]
            else:
                codec = zeros4
            line = (idx[g] + cell[int(p + 0.5)] + cell[int(t + 0.5)]
                    + (cell[int(mt + 0.5)] if node.has_mtemp else dash)
                    + cell[int(sm + 0.5)] + cell[int(bw + 0.5)] + codec
                    + cell[mclk] + cell[pclk] + " \n")
            buf.append(line)
            size += len(line)
        cycle += 1
        if size >= CHUNK:
            f.write("".join(buf).encode("ascii"))
            written += size
            buf.clear()
            size = 0
    if buf:
        f.write("".join(buf).encode("ascii"))
        written += size
    return written


def write_query_csv(f, node: Node, limit: int, lms: int, start: _dt.datetime) -> int:
    header = ("timestamp, index, pci.bus_id, name, power.draw [W], temperature.gpu, utilization.gpu [%], "
              "utilization.memory [%], memory.used [MiB], clocks.current.sm [MHz], clocks.current.memory [MHz]\n")
    buses = [("00000000:%s:00.0" % BUS[g]) if g < len(BUS) else ("00000000:%02X:00.0" % (0x20 + g))
             for g in range(node.n)]
    fixed = [", %d, %s, %s, " % (g, buses[g], node.name) for g in range(node.n)]
    pct = ["%d %%, " % v for v in range(101)]
    ms3 = [".%03d" % v for v in range(1000)]
    rng = node.rng
    t_ms = 0  # milliseconds since start
    sec_cache = -1
    sec_text = ""
    written = 0
    buf = [header]
    size = len(header)
    while written + size < limit:
        ts = t_ms
        for g, (p, t, _mt, sm, bw, mclk, pclk, mu) in enumerate(node.step()):
            sec = ts // 1000
            if sec != sec_cache:
                sec_cache = sec
                sec_text = (start + _dt.timedelta(seconds=sec)).strftime("%Y/%m/%d %H:%M:%S")
            line = (sec_text + ms3[ts % 1000] + fixed[g] + "%.2f W, %d, " % (p, t + 0.5)
                    + pct[int(sm + 0.5)] + pct[int(bw + 0.5)]
                    + "%d MiB, %d MHz, %d MHz\n" % (mu + (3 if mu == 0 else 0), pclk, mclk))
            buf.append(line)
            size += len(line)
            if rng.random() < 0.3:  # queries run GPU after GPU: the ms can move on within a sample
                ts += 1
        # -lms N sleeps N ms after each sample; the queries themselves take a few ms
        t_ms += lms + (1 if rng.random() < 0.6 else 0) + (rng.randrange(1, 4) if rng.random() < 0.05 else 0)
        if size >= CHUNK:
            f.write("".join(buf).encode("ascii"))
            written += size
            buf.clear()
            size = 0
    if buf:
        f.write("".join(buf).encode("ascii"))
        written += size
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", required=True, choices=["dmon", "query-csv"])
    ap.add_argument("--gpus", type=int, default=8, help="GPUs on the host (default 8)")
    ap.add_argument("--mb", type=float, default=64, help="size in MB (10^6 bytes, default 64)")
    ap.add_argument("-o", "--output", required=True, help="output file, - = stdout")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--model", choices=sorted(MODELS), default=None,
                    help="GPU model (default h100 for dmon, a100 for query-csv)")
    ap.add_argument("--interval-ms", type=int, default=None,
                    help="sampling interval: dmon -d (default 1000), query -lms (default 100)")
    ap.add_argument("--header-every", type=int, default=100,
                    help="dmon: print the header pair again every N cycles (default 100)")
    ap.add_argument("--start", default="2024-06-12T14:22:18",
                    help="query-csv: local wall-clock time of the first sample")
    a = ap.parse_args(argv)
    if a.gpus < 1 or a.mb <= 0 or a.header_every < 1:
        ap.error("--gpus, --mb and --header-every must be positive")
    model = MODELS[a.model or ("h100" if a.format == "dmon" else "a100")]
    interval = a.interval_ms or (1000 if a.format == "dmon" else 100)
    rng = random.Random(a.seed)
    node = Node(rng, a.gpus, model, interval / 1000.0)
    limit = int(a.mb * 1_000_000)
    out = sys.stdout.buffer if a.output == "-" else open(a.output, "wb")
    try:
        if a.format == "dmon":
            n = write_dmon(out, node, limit, a.header_every)
        else:
            start = _dt.datetime.fromisoformat(a.start)
            n = write_query_csv(out, node, limit, interval, start)
    finally:
        if out is not sys.stdout.buffer:
            out.close()
    print(f"gen_logs: wrote {n} bytes ({a.format}, {a.gpus} GPUs, seed {a.seed})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Writes the sample logs bundled in testdata/samples/ (seeded, so the files are reproducible).

They are hand-modelled on what the tools print (docs/formats.md, "nvidia-smi dmon" and "--query-gpu"): a 40-minute fine-tuning
run on one RTX 4090 logged with
  nvidia-smi --query-gpu=timestamp,index,pci.bus_id,name,power.draw,temperature.gpu,\
utilization.gpu,utilization.memory,memory.used,clocks.sm,clocks.mem --format=csv -l 5
and the same kind of run on two A100s logged with `nvidia-smi dmon -o DT -d 5` (535 driver layout).
"""
import math
import pathlib
import random

OUT = pathlib.Path(__file__).resolve().parent.parent / "testdata" / "samples"


def phase_util(t, length):
    """Utilisation of a training job: warm-up, steps with data-loader stalls, eval pauses."""
    if t < 60:
        return 0 if t < 20 else 35
    if t > length - 45:
        return 0
    if int(t) % 600 < 40:  # evaluation + checkpoint every 10 minutes
        return 12
    return 97


def query_csv(rng):
    lines = ["timestamp, index, pci.bus_id, name, power.draw [W], temperature.gpu, utilization.gpu [%], "
             "utilization.memory [%], memory.used [MiB], clocks.current.sm [MHz], clocks.current.memory [MHz]"]
    length, step = 2400, 5
    temp = 38.0
    for i in range(length // step + 1):
        t = i * step
        u = phase_util(t, length)
        u = max(0, min(100, u + rng.randint(-2, 2))) if u else 0
        power = 22.5 + 4.1 * u + rng.uniform(-6, 6) if u else rng.uniform(18, 26)
        temp += ((34 + power / 9.5) - temp) * 0.08
        sm = 2730 if u > 50 and temp < 80 else (2520 if u > 50 else (2235 if u else 210))
        mem = 10501 if u else 405
        fb = 19876 if t > 40 else 1150
        ms = rng.randint(0, 40)
        hh, mm, ss = 14 + (22 * 60 + 18 + t) // 3600, ((22 * 60 + 18 + t) // 60) % 60, (18 + t) % 60
        lines.append(f"2024/06/12 {hh:02d}:{mm:02d}:{ss:02d}.{ms:03d}, 0, 00000000:01:00.0, NVIDIA GeForce RTX 4090, "
                     f"{power:.2f} W, {round(temp)}, {u} %, {round(u * 0.41)} %, {fb} MiB, {sm} MHz, {mem} MHz")
    (OUT / "rtx4090_finetune_query.csv").write_text("\n".join(lines) + "\n")


def dmon_dt(rng):
    head = ("#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk \n"
            "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %      %      %    MHz    MHz \n")
    out = [head]
    length, step = 1800, 5
    temps = [33.0, 35.0]
    for i in range(length // step + 1):
        t = i * step
        if i and i % 40 == 0:
            out.append(head)  # dmon re-prints its header
        for g in range(2):
            u = phase_util(t + 30 * g, length)
            u = max(0, min(100, u + rng.randint(-3, 2))) if u else 0
            p = 58 + 3.2 * u + rng.uniform(-5, 5) if u else rng.uniform(52, 60)
            temps[g] += ((30 + p / 8.0) - temps[g]) * 0.1
            hh, mm, ss = 9 + (5 * 60 + t) // 3600, ((5 * 60 + t) // 60) % 60, t % 60
            mtemp = temps[g] - 3
            vals = [f"{round(p)}", f"{round(temps[g])}", f"{round(mtemp)}", f"{u}", f"{round(u * 0.38)}",
                    "0", "0", "0", "0", "1593" if u else "1215", "1410" if u else "210"]
            out.append(f" 20240613   {hh:02d}:{mm:02d}:{ss:02d} {g:>6} " + " ".join(f"{v:>6}" for v in vals) + " \n")
    (OUT / "a100x2_train_dmon_DT.txt").write_text("".join(out))


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    query_csv(random.Random(1))
    dmon_dt(random.Random(2))

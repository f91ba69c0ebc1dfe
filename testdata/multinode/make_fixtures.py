#!/usr/bin/env python3
"""Writes the fixtures of this folder (README.md says what each is and where its shape comes from).

Run from the repository root: python3 testdata/multinode/make_fixtures.py
A Slurm job on four nodes of two H100 each, seen through one Prometheus: the answer of one
query_range for the job's window (every node's dcgm-exporter series in one document, as
`--prometheus` with `--slurm-job` asks them), and the job's sacct -P record. Values come from the
formulas below; hosts, UUIDs and bus ids are made up. Prometheus writes its JSON compact, labels
sorted by name, values as shortest decimal strings, times as Unix seconds.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
START = 1749715200  # 2025-06-12T08:00:00Z
STEP = 15
POINTS = 81  # 0 .. 1200 s: twenty minutes at a 15 s step
NODES = ["node01", "node02", "node03", "node04"]
GPUS = 2


def num(v):
    if float(v).is_integer():
        return str(int(v))
    return repr(float(v))


def power(n, g, k):
    # node04 idles for the first five minutes (a straggler): the per-host rows must show it.
    if n == 3 and k < 20:
        return 72.0
    return 600 + (k * 7 + g * 13 + n * 29) % 90 + 0.5


def util(n, g, k):
    if n == 3 and k < 20:
        return 0
    return 90 + (k + g + n) % 10


def temp(n, g, k):
    return 60 + (k * 3 + g + n) % 15


def energy_mj(n, g, k):
    e = 5_000_000_000 + n * 700_000_000 + g * 100_000_000
    for i in range(1, k + 1):
        e += (power(n, g, i - 1) + power(n, g, i)) / 2 * STEP * 1000
    return e


def labels(name, n, g):
    node = NODES[n]
    lab = {
        "DCGM_FI_DRIVER_VERSION": "550.90.07",
        "Hostname": node,
        "UUID": "GPU-%08x-4e6f-9a70-1b2c-%012x" % (0x5f1a0000 + n * 16 + g, 0x3d4e5f60 + n * 16 + g),
        "__name__": name,
        "device": "nvidia%d" % g,
        "gpu": str(g),
        "instance": "%s:9400" % node,
        "job": "dcgm-exporter",
        "modelName": "NVIDIA H100 80GB HBM3",
        "pci_bus_id": "00000000:%02X:00.0" % (0x18 + g * 0x12),
    }
    return dict(sorted(lab.items()))


METRICS = [
    ("DCGM_FI_DEV_POWER_USAGE", power),
    ("DCGM_FI_DEV_GPU_UTIL", util),
    ("DCGM_FI_DEV_GPU_TEMP", temp),
    ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", energy_mj),
]


def answer(nodes):
    result = []
    # Prometheus orders the series of an answer by their label sets.
    for name, f in METRICS:
        for n in nodes:
            for g in range(GPUS):
                result.append({"metric": labels(name, n, g),
                               "values": [[START + k * STEP, num(f(n, g, k))] for k in range(POINTS)]})
    result.sort(key=lambda s: json.dumps(s["metric"], sort_keys=True))
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}},
                      separators=(",", ":")) + "\n"


def main():
    with open(os.path.join(HERE, "dcgm_4nodes_job4242.json"), "w") as f:
        f.write(answer(range(4)))
    with open(os.path.join(HERE, "dcgm_2nodes.json"), "w") as f:
        f.write(answer(range(2)))
    for n in range(2):
        with open(os.path.join(HERE, "dcgm_%s.json" % NODES[n]), "w") as f:
            f.write(answer([n]))
    # sacct -P --format=JobID,JobName,User,Start,End,NodeList,AllocTRES,ConsumedEnergyRaw,State,ExitCode
    with open(os.path.join(HERE, "sacct_job4242.txt"), "w") as f:
        f.write("JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode\n")
        f.write("4242|pretrain|alice|2025-06-12T08:00:00|2025-06-12T08:20:00|node[01-04]|"
                "billing=256,cpu=256,gres/gpu=8,mem=1T,node=4||COMPLETED|0:0\n")
        f.write("4242.batch|batch||2025-06-12T08:00:00|2025-06-12T08:20:00|node01|"
                "cpu=64,gres/gpu=2,mem=256G,node=1||COMPLETED|0:0\n")


main()

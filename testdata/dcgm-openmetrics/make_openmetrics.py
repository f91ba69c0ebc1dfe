#!/usr/bin/env python3
"""Writes what tests/engines/prometheus_e2e.sh loads into a real Prometheus (README.md here says
where the shape comes from):

  dcgm.om           dcgm-exporter's /metrics text with a timestamp on every sample and `# EOF`,
                    the OpenMetrics that `promtool tsdb create-blocks-from openmetrics` backfills:
                    node01 (2 x H100, 20 minutes at 15 s) and node02 (1 x H100, the same 20
                    minutes but 3 minutes without a scrape: the host was unreachable)
  query_node01.csv  the same samples of node01 as `nvidia-smi --query-gpu=... --format=csv -lms 15000`
  query_node02.csv  the same for node02, without the rows of the 3 minutes

  python3 make_openmetrics.py OUTDIR

Every value comes from a formula below, so that both files hold the very same samples.
"""
import datetime
import os
import sys

START = 1749715200  # 2025-06-12T08:00:00Z
STEP = 15
POINTS = 81  # 0 .. 1200 s: twenty minutes at a 15 s step, both ends in
GAP = range(30, 42)  # node02: no scrape from 08:07:30 to 08:10:15 (12 steps)
MODEL = "NVIDIA H100 80GB HBM3"
DRIVER = "535.183.01"
FB_TOTAL = 81559
FB_RESERVED = 590

GPUS = [
    {"host": "node01", "gpu": 0, "UUID": "GPU-3f1e6a2b-7c4d-4e8f-9a01-23456789abcd", "pci_bus_id": "00000000:19:00.0"},
    {"host": "node01", "gpu": 1, "UUID": "GPU-8d2c4b6a-1e3f-4a5b-8c7d-9e0f1a2b3c4d", "pci_bus_id": "00000000:3B:00.0"},
    {"host": "node02", "gpu": 0, "UUID": "GPU-c4d5e6f7-a8b9-4c0d-9e1f-2a3b4c5d6e7f", "pci_bus_id": "00000000:19:00.0"},
]


def seed(g):
    return GPUS.index(g) * 7


def util(g, k):  # a job that starts after two minutes and runs at varying load
    return 0 if k < 8 else 55 + (k * 13 + seed(g)) % 45


def power(g, k):  # W with two decimals, as nvidia-smi prints power.draw
    return round(69.5 + util(g, k) * 5.25 + ((k * 7 + seed(g)) % 10) * 0.37, 2)


def gpu_temp(g, k):
    return 31 + util(g, k) * 2 // 5 + (k + seed(g)) % 3


def mem_temp(g, k):
    return gpu_temp(g, k) + 9


def sm_clock(g, k):
    return 345 if util(g, k) == 0 else 1980 - (k % 4) * 15


def mem_copy_util(g, k):
    return util(g, k) * 3 // 5


def fb_used(g, k):
    return 0 if k < 8 else 61440 + (k * 17 + seed(g)) % 512


def sampled(g):
    return [k for k in range(POINTS) if not (g["host"] == "node02" and k in GAP)]


def energy_mj(g):
    """The counter at each step: a reading at the start plus the trapezoids of power since, in mJ
    (power has two decimals: every step adds a whole number of mJ). It keeps counting through
    node02's 3 minutes: the GPU ran, only the scrapes failed."""
    e, out = 5_000_000_000 + seed(g) * 100_000_000, {}
    for k in range(POINTS):
        if k > 0:
            e += round((power(g, k - 1) + power(g, k)) / 2 * STEP * 1000)
        out[k] = e
    return out


def f6(v):  # dcgm-exporter writes float fields with %f
    return f"{v:.6f}"


# (name, type, help, value(g, k) as text): the order and help texts of dcgm-exporter's
# default-counters.csv; the profiling fields of its DCP counters.
METRICS = [
    ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", lambda g, k: str(sm_clock(g, k))),
    ("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", lambda g, k: "2619"),
    ("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", lambda g, k: str(mem_temp(g, k))),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", lambda g, k: str(gpu_temp(g, k))),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", lambda g, k: f6(power(g, k))),
    ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).",
     lambda g, k: str(ENERGY[g["UUID"]][k])),
    ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", lambda g, k: "0"),
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", lambda g, k: str(util(g, k))),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", lambda g, k: str(mem_copy_util(g, k))),
    ("DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", lambda g, k: "0"),
    ("DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", lambda g, k: "0"),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", lambda g, k: "0"),
    ("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).",
     lambda g, k: str(FB_TOTAL - FB_RESERVED - fb_used(g, k))),
    ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", lambda g, k: str(fb_used(g, k))),
    ("DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).", lambda g, k: str(FB_RESERVED)),
    ("DCGM_FI_DEV_VGPU_LICENSE_STATUS", "gauge", "vGPU License status", lambda g, k: "0"),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge", "Ratio of time the graphics engine is active.",
     lambda g, k: f6(util(g, k) / 100)),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge", "Ratio of cycles the tensor (HMMA) pipe is active.",
     lambda g, k: f6(util(g, k) * 0.004)),
    ("DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
     "Ratio of cycles the device memory interface is active sending or receiving data.",
     lambda g, k: f6(mem_copy_util(g, k) / 100)),
]

ENERGY = {g["UUID"]: energy_mj(g) for g in GPUS}


def labels(g):
    # dcgm-exporter's label order; Hostname is the node's name.
    return (f'gpu="{g["gpu"]}",UUID="{g["UUID"]}",pci_bus_id="{g["pci_bus_id"]}",device="nvidia{g["gpu"]}",'
            f'modelName="{MODEL}",Hostname="{g["host"]}",DCGM_FI_DRIVER_VERSION="{DRIVER}"')


def openmetrics():
    # OpenMetrics keeps a family's samples together: every series of a metric, each in time order.
    lines = []
    for name, kind, help_text, value in METRICS:
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
        for g in GPUS:
            lines += [f"{name}{{{labels(g)}}} {value(g, k)} {START + k * STEP}" for k in sampled(g)]
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def query_csv(host):
    lines = ["timestamp, name, pci.bus_id, driver_version, index, uuid, power.draw [W], utilization.gpu [%], "
             "utilization.memory [%], temperature.gpu, temperature.memory, clocks.current.sm [MHz], "
             "clocks.current.memory [MHz], memory.used [MiB], memory.total [MiB]"]
    gpus = [g for g in GPUS if g["host"] == host]
    for k in range(POINTS):
        stamp = datetime.datetime.fromtimestamp(START + k * STEP, datetime.timezone.utc)
        for g in gpus:
            if k not in sampled(g):
                continue
            lines.append(f"{stamp:%Y/%m/%d %H:%M:%S}.000, {MODEL}, {g['pci_bus_id']}, {DRIVER}, {g['gpu']}, "
                         f"{g['UUID']}, {power(g, k):.2f} W, {util(g, k)} %, {mem_copy_util(g, k)} %, "
                         f"{gpu_temp(g, k)}, {mem_temp(g, k)}, {sm_clock(g, k)} MHz, 2619 MHz, {fb_used(g, k)} MiB, "
                         f"{FB_TOTAL} MiB")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "dcgm.om"), "w") as f:
        f.write(openmetrics())
    for host in ("node01", "node02"):
        with open(os.path.join(out, f"query_{host}.csv"), "w") as f:
            f.write(query_csv(host))
    return 0


if __name__ == "__main__":
    sys.exit(main())

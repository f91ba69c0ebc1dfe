#!/usr/bin/env python3
"""Writes the fixtures of `prep --input-format exposition` (README.md here says where their shape
comes from). Every value comes from a formula below; hosts, UUIDs and bus ids are made up.

  python3 testdata/exposition/make_fixtures.py   (from the repository root)
"""
import datetime
import os

HERE = os.path.dirname(os.path.abspath(__file__))
START = 1718197320  # 2024-06-12T13:02:00Z
STEP = 15

# ---- dcgm-exporter: two A100s on node01, 8 scrapes saved by the documented loop ----------------
DCGM_SCRAPES = 8
DCGM_MODEL = "NVIDIA A100-SXM4-80GB"
DCGM_DRIVER = "535.104.05"
DCGM_GPUS = [
    {"gpu": 0, "UUID": "GPU-5a1c2e3f-0b4d-4c6e-8f7a-1b2c3d4e5f60", "pci_bus_id": "00000000:07:00.0"},
    {"gpu": 1, "UUID": "GPU-9e8d7c6b-5a4f-4e3d-2c1b-0a9f8e7d6c5b", "pci_bus_id": "00000000:0F:00.0"},
]
FB_TOTAL = 81920
FB_RESERVED = 613


def util(g, k):  # idle for two scrapes, then a job
    return 0 if k < 2 else 90 + 5 * g["gpu"] - k % 3


def power(g, k):  # W, as DCGM reports it
    return 61.25 + 3 * util(g, k) + g["gpu"]


def energy_mj(g, k):  # the counter: a reading at the first scrape plus the trapezoids since
    e = 4_000_000_000 + 1_000_000 * g["gpu"]
    for j in range(1, k + 1):
        e += round((power(g, j - 1) + power(g, j)) / 2 * STEP * 1000)
    return e


def fb_used(g, k):
    return 0 if k < 2 else 40000 + 1000 * g["gpu"] + 10 * k


def xid(g, k):  # GPU 1 reports Xid 79 (fallen off the bus) from the sixth scrape
    return 79 if g["gpu"] == 1 and k >= 5 else 0


def f6(v):  # dcgm-exporter writes float fields with %f
    return f"{v:.6f}"


DCGM_METRICS = [  # the order and help texts of dcgm-exporter's default-counters.csv
    ("DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", lambda g, k: "1410" if util(g, k) else "210"),
    ("DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", lambda g, k: "1593"),
    ("DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", lambda g, k: str(40 + util(g, k) // 10)),
    ("DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", lambda g, k: str(33 + util(g, k) // 5)),
    ("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", lambda g, k: f6(power(g, k))),
    ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).",
     lambda g, k: str(energy_mj(g, k))),
    ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", lambda g, k: "0"),
    ("DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", lambda g, k: str(util(g, k))),
    ("DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", lambda g, k: str(util(g, k) // 2)),
    ("DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", lambda g, k: "0"),
    ("DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", lambda g, k: "0"),
    ("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", lambda g, k: str(xid(g, k))),
    ("DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).",
     lambda g, k: str(FB_TOTAL - FB_RESERVED - fb_used(g, k))),
    ("DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", lambda g, k: str(fb_used(g, k))),
    ("DCGM_FI_DEV_VGPU_LICENSE_STATUS", "gauge", "vGPU License status", lambda g, k: "0"),
]


def dcgm_labels(g):  # dcgm-exporter's label order
    return (f'gpu="{g["gpu"]}",UUID="{g["UUID"]}",pci_bus_id="{g["pci_bus_id"]}",device="nvidia{g["gpu"]}",'
            f'modelName="{DCGM_MODEL}",Hostname="node01",DCGM_FI_DRIVER_VERSION="{DCGM_DRIVER}"')


def dcgm_scrapes():
    lines = []
    for k in range(DCGM_SCRAPES):
        lines.append(str(START + k * STEP))  # date +%s
        for name, kind, help_text, value in DCGM_METRICS:
            lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
            lines += [f"{name}{{{dcgm_labels(g)}}} {value(g, k)}" for g in DCGM_GPUS]
    return "\n".join(lines) + "\n"


# ---- nvidia_gpu_exporter: one RTX 4090, 4 scrapes stamped with `# scraped at` ---------------------
NV_UUID = "2f5b9c1e-7a3d-4b8e-9f10-6c2d4e8a0b13"  # nvidia_gpu_exporter drops nvidia-smi's GPU- prefix
NV_SCRAPES = 4


def nv_util(k):
    return [0.05, 0.97, 1.0, 0.93][k]


def nv_scrape(k):
    u = nv_util(k)
    fams = [
        ("go_goroutines", "gauge", "Number of goroutines that currently exist.", [("", "8")]),
        ("go_memstats_alloc_bytes", "gauge", "Number of bytes allocated and still in use.", [("", "1.169224e+06")]),
        ("nvidia_smi_clocks_current_sm_clock_hz", "gauge", "clocks.current.sm [MHz]",
         [(f'{{uuid="{NV_UUID}"}}', "2.52e+09" if u > 0.5 else "2.1e+08")]),
        ("nvidia_smi_gpu_info", "gauge",
         "A metric with a constant '1' value labeled by gpu uuid, name, driver_model_current, driver_model_pending, "
         "vbios_version, driver_version, pci_bus_id, serial, compute_cap, pci_sub_device_id, index.",
         [(f'{{driver_model_current="",driver_model_pending="",driver_version="550.78",name="NVIDIA GeForce RTX 4090",'
           f'uuid="{NV_UUID}",vbios_version="95.02.3c.00.9c",pci_bus_id="00000000:01:00.0",serial="[N/A]",'
           f'compute_cap="8.9",pci_sub_device_id="0x88e21043",index="0"}}', "1")]),
        ("nvidia_smi_memory_total_bytes", "gauge", "memory.total [MiB]", [(f'{{uuid="{NV_UUID}"}}', "2.5757220864e+10")]),
        ("nvidia_smi_memory_used_bytes", "gauge", "memory.used [MiB]",
         [(f'{{uuid="{NV_UUID}"}}', "2.0780679168e+10" if u > 0.5 else "4.70810624e+08")]),
        ("nvidia_smi_power_draw_watts", "gauge", "power.draw [W]",
         [(f'{{uuid="{NV_UUID}"}}', f"{round(30.5 + 400 * u, 2)}")]),
        ("nvidia_smi_temperature_gpu", "gauge", "temperature.gpu", [(f'{{uuid="{NV_UUID}"}}', str(38 + round(30 * u)))]),
        ("nvidia_smi_utilization_gpu_ratio", "gauge", "utilization.gpu [%]", [(f'{{uuid="{NV_UUID}"}}', f"{u}")]),
        ("promhttp_metric_handler_requests_total", "counter", "Total number of scrapes by HTTP status code.",
         [('{code="200"}', str(17 + k))]),
    ]
    lines = []
    for name, kind, help_text, series in fams:
        lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
        lines += [f"{name}{labels} {value}" for labels, value in series]
    return lines


def nv_scrapes():
    lines = []
    for k in range(NV_SCRAPES):
        stamp = datetime.datetime.fromtimestamp(START + k * 30, datetime.timezone.utc)
        lines.append(f"# scraped at {stamp:%Y-%m-%dT%H:%M:%S}Z")  # echo "# scraped at $(date -u +%FT%TZ)"
        lines += nv_scrape(k)
    return "\n".join(lines) + "\n"


def main():
    with open(os.path.join(HERE, "dcgm_a100x2_loop.txt"), "w") as f:
        f.write(dcgm_scrapes())
    with open(os.path.join(HERE, "nvidia_gpu_exporter_rtx4090_scrapes.txt"), "w") as f:
        f.write(nv_scrapes())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the fixtures of this folder (README.md says what each is and where its shape comes from).

Run from the repository root: python3 testdata/prometheus-json/make_fixtures.py
The values are made up, by formula, so that the nvidia-smi CSV twin of the DCGM file holds the
very same samples. Prometheus writes its JSON compact (Go's encoding/json), sample values as
strconv.FormatFloat(v, 'f', -1, 64) strings and times as Unix seconds with at most 3 decimals.
"""
import datetime
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
START = 1718197335  # 2024-06-12T13:02:15Z
STEP = 15
POINTS = 41  # 0 .. 600 s: ten minutes at a 15 s step


def num(v):
    """Prometheus' sample value text: shortest decimal, no exponent for these magnitudes."""
    if v != v:
        return "NaN"
    if float(v).is_integer():
        return str(int(v))
    return repr(float(v))


def t(k):
    return START + k * STEP


def doc(result, result_type="matrix"):
    return json.dumps({"status": "success", "data": {"resultType": result_type, "result": result}},
                      separators=(",", ":"))


# ---- dcgm-exporter on two H100s, one document per metric, concatenated (curl ... >> file) ----

H100 = [
    {"gpu": "0", "UUID": "GPU-5f1a3c2e-8d4b-4e6f-9a70-1b2c3d4e5f60", "pci_bus_id": "00000000:18:00.0",
     "device": "nvidia0"},
    {"gpu": "1", "UUID": "GPU-7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e", "pci_bus_id": "00000000:2A:00.0",
     "device": "nvidia1"},
]
FB_TOTAL = 81559


def power(g, k):
    return 250 + (k * 7 + g * 13) % 200 + 0.5


def util(g, k):
    return (k * 11 + g * 5) % 101


def temp(g, k):
    return 50 + (k * 3 + g) % 30


def mem_temp(g, k):
    return 55 + (k * 2 + g) % 20


def sm_clock(g, k):
    return 1980 if util(g, k) > 0 else 345


def fb_used(g, k):
    return 20000 + k * 100 + g * 7


def energy_mj(g, k):
    # The counter: a made-up reading at the start plus the trapezoids of power since.
    e = 9_000_000_000 + g * 1_000_000_000
    for i in range(1, k + 1):
        e += (power(g, i - 1) + power(g, i)) / 2 * STEP * 1000
    return e


def dcgm_labels(name, gpu, extra=None):
    labels = {"__name__": name, "DCGM_FI_DRIVER_VERSION": "535.104.05", "Hostname": "node01",
              "UUID": gpu["UUID"], "device": gpu["device"], "gpu": gpu["gpu"],
              "instance": "10.0.0.5:9400", "job": "dcgm-exporter", "modelName": "NVIDIA H100 80GB HBM3",
              "pci_bus_id": gpu["pci_bus_id"]}
    labels.update(extra or {})
    return dict(sorted(labels.items()))  # Prometheus sorts labels by name


def series(name, gpu, fn, extra=None, ks=range(POINTS)):
    return {"metric": dcgm_labels(name, gpu, extra), "values": [[t(k), num(fn(int(gpu["gpu"]), k))] for k in ks]}


def throttle(g, k):
    # GPU 0 capped by software power (0x4) from minute 4 to 6; else idle bits clear.
    return 4 if g == 0 and 16 <= k <= 24 else 0


def dcgm_h100x2():
    metrics = [
        ("DCGM_FI_DEV_POWER_USAGE", power),
        ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", energy_mj),
        ("DCGM_FI_DEV_GPU_UTIL", util),
        ("DCGM_FI_DEV_GPU_TEMP", temp),
        ("DCGM_FI_DEV_MEMORY_TEMP", mem_temp),
        ("DCGM_FI_DEV_SM_CLOCK", sm_clock),
        ("DCGM_FI_DEV_MEM_CLOCK", lambda g, k: 2619),
        ("DCGM_FI_DEV_FB_USED", fb_used),
        ("DCGM_FI_DEV_FB_FREE", lambda g, k: FB_TOTAL - fb_used(g, k)),
        ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", throttle),
        ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", lambda g, k: round(util(g, k) / 250, 6)),
        ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", lambda g, k: 0),
        ("DCGM_FI_DEV_VGPU_LICENSE_STATUS", lambda g, k: 0),
    ]
    docs = [doc([series(name, gpu, fn) for gpu in H100]) for name, fn in metrics]
    # Xid: dcgm-exporter 3.3+ labels the last Xid with err_code/err_msg, so GPU 1's change from
    # 0 to 79 at minute 5 ends one series and starts another.
    xid = [series("DCGM_FI_DEV_XID_ERRORS", H100[0], lambda g, k: 0, {"err_code": "0", "err_msg": "No Error"}),
           series("DCGM_FI_DEV_XID_ERRORS", H100[1], lambda g, k: 0, {"err_code": "0", "err_msg": "No Error"},
                  range(0, 20)),
           series("DCGM_FI_DEV_XID_ERRORS", H100[1], lambda g, k: 79,
                  {"err_code": "79", "err_msg": "GPU has fallen off the bus"}, range(20, POINTS))]
    docs.insert(9, doc(xid))
    with open(os.path.join(HERE, "dcgm_h100x2_10min.json"), "w") as f:
        f.write("".join(docs))  # curl writes no newline: the documents touch
    return metrics


def query_csv_twin():
    """The same samples as `nvidia-smi --query-gpu=... --format=csv -lms 15000` on node01 (UTC)."""
    lines = ["timestamp, index, name, uuid, power.draw [W], utilization.gpu [%], temperature.gpu, "
             "temperature.memory, clocks.current.sm [MHz], clocks.current.memory [MHz], memory.used [MiB], "
             "memory.total [MiB]"]
    for k in range(POINTS):
        stamp = datetime.datetime.fromtimestamp(t(k), datetime.timezone.utc).strftime("%Y/%m/%d %H:%M:%S.000")
        for gpu in H100:
            g = int(gpu["gpu"])
            lines.append(f"{stamp}, {g}, NVIDIA H100 80GB HBM3, {gpu['UUID']}, {power(g, k):.2f} W, {util(g, k)} %, "
                         f"{temp(g, k)}, {mem_temp(g, k)}, {sm_clock(g, k)} MHz, 2619 MHz, {fb_used(g, k)} MiB, "
                         f"{FB_TOTAL} MiB")
    with open(os.path.join(HERE, "h100x2_10min_query.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- dcgm-exporter on Kubernetes: pod labels, NaN, a gap; JSON Lines (one document per line) ----

A100 = {"gpu": "0", "UUID": "GPU-0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d", "pci_bus_id": "00000000:07:00.0",
        "device": "nvidia0"}
POD = {"container": "trainer", "namespace": "ml-team", "pod": "llm-finetune-7d9f8b6c5-x2k4q"}


def k8s_labels(name, pod):
    labels = {"__name__": name, "DCGM_FI_DRIVER_VERSION": "550.54.15", "Hostname": "gpu-worker-3",
              "UUID": A100["UUID"], "device": "nvidia0", "gpu": "0", "instance": "10.244.3.17:9400",
              "job": "nvidia-dcgm-exporter", "modelName": "NVIDIA A100-SXM4-80GB",
              "pci_bus_id": A100["pci_bus_id"], "container": "", "namespace": "gpu-operator",
              "pod": "nvidia-dcgm-exporter-8xk2p"}
    # With --kubernetes the exporter replaces the pod labels by the pod holding the GPU; an idle
    # GPU's series keep the exporter's own scrape labels. Both shapes occur.
    if pod:
        labels.update(POD)
    else:
        for key in ("container", "namespace", "pod"):
            labels.pop(key)
    return dict(sorted(labels.items()))


def dcgm_k8s():
    # 20 points at 15 s; the pod starts at point 6; no points 10..13 (the exporter restarted:
    # Prometheus marks the series stale and query_range leaves the times out); point 3 of power NaN.
    ks_idle, ks_pod = range(0, 6), [k for k in range(6, 20) if not 10 <= k <= 13]
    lines = []
    for name, idle, busy in [("DCGM_FI_DEV_POWER_USAGE", 61.25, 395.5), ("DCGM_FI_DEV_GPU_UTIL", 0, 97),
                             ("DCGM_FI_DEV_FB_USED", 0, 61234)]:
        result = [{"metric": k8s_labels(name, False),
                   "values": [[t(k), "NaN" if name.endswith("POWER_USAGE") and k == 3 else num(idle)]
                              for k in ks_idle]},
                  {"metric": k8s_labels(name, True), "values": [[t(k), num(busy)] for k in ks_pod]}]
        lines.append(doc(result))
    with open(os.path.join(HERE, "dcgm_k8s_a100_pods.jsonl"), "w") as f:
        f.write("\n".join(lines) + "\n")


# ---- nvidia_gpu_exporter: one pretty-printed document of a regex query ----

RTX_UUID = "8e2f5b1c-3d4a-4f6e-9b7c-2a1d0e3f4c5b"  # the exporter strips nvidia-smi's "GPU-"


def nvidia_gpu_exporter():
    def lab(name):
        return {"__name__": name, "instance": "ws01:9835", "job": "nvidia_gpu_exporter", "uuid": RTX_UUID}

    def vals(fn, n=8):
        return [[t(k), num(fn(k))] for k in range(n)]

    result = [
        {"metric": {"__name__": "nvidia_smi_gpu_info", "driver_version": "550.78", "index": "0",
                    "instance": "ws01:9835", "job": "nvidia_gpu_exporter", "name": "NVIDIA GeForce RTX 4090",
                    "pci_bus_id": "00000000:01:00.0", "uuid": RTX_UUID}, "values": vals(lambda k: 1)},
        {"metric": lab("nvidia_smi_power_draw_watts"), "values": vals(lambda k: 300.25 + k)},
        {"metric": lab("nvidia_smi_utilization_gpu_ratio"), "values": vals(lambda k: [0.42, 0.97, 1][k % 3])},
        {"metric": lab("nvidia_smi_temperature_gpu"), "values": vals(lambda k: 60 + k)},
        {"metric": lab("nvidia_smi_clocks_current_sm_clock_hz"), "values": vals(lambda k: 2.52e9)},
        {"metric": lab("nvidia_smi_memory_used_bytes"), "values": vals(lambda k: 2.0780679168e10)},
        {"metric": lab("nvidia_smi_memory_total_bytes"), "values": vals(lambda k: 2.5757220864e10)},
        {"metric": lab("nvidia_smi_clocks_event_reasons_active"), "values": vals(lambda k: 0)},
        {"metric": lab("nvidia_smi_pcie_link_gen_gpucurrent"), "values": vals(lambda k: 4)},
        {"metric": {"__name__": "nvidia_smi_last_collect_success", "instance": "ws01:9835",
                    "job": "nvidia_gpu_exporter"}, "values": vals(lambda k: 1)},
    ]
    # Values as strings are what Prometheus returns; Go prints 2.52e9 as "2520000000".
    text = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": result}}, indent=2)
    with open(os.path.join(HERE, "nvidia_gpu_exporter_rtx4090.json"), "w") as f:
        f.write(text + "\n")


def error_response():
    body = {"status": "error", "errorType": "bad_data",
            "error": "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query "
                     "resolution (?step=XX)"}
    with open(os.path.join(HERE, "error_too_many_points.json"), "w") as f:
        f.write(json.dumps(body, separators=(",", ":")))


if __name__ == "__main__":
    dcgm_h100x2()
    query_csv_twin()
    dcgm_k8s()
    nvidia_gpu_exporter()
    error_response()

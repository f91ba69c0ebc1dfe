#!/usr/bin/env python3
"""Generate large host logs for benchmarking `gpucost prep`: a kern.log and a journal export.

Standard library only, deterministic for a given --seed.

  gen_hostlogs.py --format kernlog      --mb 512 -o kern.log
  gen_hostlogs.py --format journal-json --mb 512 -o journal.json
  gen_hostlogs.py --format aer-storm    --mb 489 -o storm.log

kernlog       rsyslog's /var/log/kern.log: `Jun 12 14:22:18 node7 kernel: [ 1234.567890] msg`,
              mostly the noise of a real host (firewall drops, AppArmor audits, USB, block
              devices, network links, EXT4, systemd-udevd), with now and then a GPU-relevant
              line: an NVRM Xid, a PCIe AER corrected error record (4 lines), a CPU thermal
              throttle, an nvidia-modeset error.
journal-json  `journalctl -o json`: one compact object per line with the usual trusted fields
              (__CURSOR, __REALTIME_TIMESTAMP, __MONOTONIC_TIMESTAMP, _BOOT_ID, _HOSTNAME, ...),
              mostly systemd/cron/sshd/NetworkManager chatter plus kernel entries, logind lid and
              power-key lines, systemd-sleep suspend/resume and the same rare NVRM lines.

aer-storm     a kern.log that is nothing but a storm of PCIe AER corrected errors (rsyslog's
              RFC 3339 stamps, 4-line records: header, `PCIe Bus Error: severity=Corrected`,
              status, `[ 0] RxErr`), ~86 records a second, over a day from --start; each record
              is one incident for extract (489 MB = 10^6 records).
xid-storm     the same for Xid lines (codes 13, 31 and 43 in turn, one line each, ~11.6 a second).

Sizes are decimal: --mb 512 means 512 * 10^6 bytes.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import random
import sys

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def kernel_noise(rng: random.Random) -> str:
    k = rng.randrange(8)
    if k == 0:
        return (f"[UFW BLOCK] IN=eno1 OUT= MAC=01:00:5e:00:00:01:a8:5e:45:{rng.randrange(256):02x}:6c:e1:08:00 "
                f"SRC=192.168.1.{rng.randrange(2, 250)} DST=224.0.0.1 LEN=36 TOS=0x00 PREC=0x00 TTL=1 "
                f"ID={rng.randrange(65536)} PROTO=2")
    if k == 1:
        return (f"audit: type=1400 audit({1718194938 + rng.randrange(100000)}.{rng.randrange(1000):03d}:"
                f"{rng.randrange(9999)}): apparmor=\"DENIED\" operation=\"open\" class=\"file\" "
                f"profile=\"snap.firefox.firefox\" name=\"/proc/{rng.randrange(99999)}/cgroup\" pid={rng.randrange(99999)} "
                f"comm=\"firefox\" requested_mask=\"r\" denied_mask=\"r\" fsuid=1000 ouid=1000")
    if k == 2:
        return f"usb 1-{rng.randrange(1, 9)}: new high-speed USB device number {rng.randrange(2, 60)} using xhci_hcd"
    if k == 3:
        return f"EXT4-fs (nvme0n1p{rng.randrange(1, 4)}): mounted filesystem with ordered data mode. Quota mode: none."
    if k == 4:
        return f"IPv6: ADDRCONF(NETDEV_CHANGE): veth{rng.randrange(16**6):06x}: link becomes ready"
    if k == 5:
        return f"br-{rng.randrange(16**12):012x}: port {rng.randrange(1, 9)}(veth{rng.randrange(16**6):06x}) entered forwarding state"
    if k == 6:
        return f"nvme nvme0: I/O {rng.randrange(1024)} QID {rng.randrange(1, 17)} timeout, completion polled"
    return f"systemd-journald[{rng.randrange(300, 900)}]: Data hash table of /var/log/journal/a1b2c3/system.journal has a fill level at 75.0"


def kernel_gpu(rng: random.Random) -> list[str]:
    k = rng.randrange(4)
    if k == 0:
        code = rng.choice([13, 31, 43, 45, 48, 63, 64, 74, 79, 94, 119])
        return [f"NVRM: Xid (PCI:0000:{rng.choice(['07', '0f', '47', '4e'])}:00): {code}, pid={rng.randrange(1000, 99999)}, "
                f"name=python3, Ch 00000008"]
    if k == 1:
        return ["pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0",
                "nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
                "nvidia 0000:01:00.0:   device [10de:2684] error status/mask=00000001/0000e000",
                "nvidia 0000:01:00.0:    [ 0] RxErr                  (First)"]
    if k == 2:
        return [f"CPU{rng.randrange(64)}: Core temperature above threshold, cpu clock throttled (total events = {rng.randrange(1, 9999)})"]
    return ["nvidia-modeset: ERROR: GPU:0: Error while waiting for GPU progress: 0x0000c67d:0 2:0:4048:4040"]


def write_kernlog(f, rng: random.Random, limit: int, start: _dt.datetime, host: str) -> int:
    written = 0
    t = start
    uptime = 1234.5
    buf = []
    while written < limit:
        step = rng.expovariate(1 / 0.05)
        t += _dt.timedelta(seconds=step)
        uptime += step
        msgs = kernel_gpu(rng) if rng.random() < 0.001 else [kernel_noise(rng)]
        for msg in msgs:
            line = f"{MONTHS[t.month - 1]} {t.day:2d} {t:%H:%M:%S} {host} kernel: [{uptime:12.6f}] {msg}\n"
            buf.append(line)
            written += len(line)
        if len(buf) > 4096:
            f.write("".join(buf))
            buf.clear()
    f.write("".join(buf))
    return written


def write_storm(f, kind: str, limit: int, start: _dt.datetime, host: str) -> int:
    """A day of one incident after another, 86.4 ms apart (the day holds 10^6 of them)."""
    written, i, buf = 0, 0, []
    t0 = start.replace(tzinfo=_dt.timezone.utc)
    while written < limit:
        t = t0 + _dt.timedelta(microseconds=i * 86400)
        stamp = f"{t:%Y-%m-%dT%H:%M:%S.%f}+00:00 {host} kernel:"
        bus = 0x18 + i % 4
        if kind == "aer-storm":
            lines = [f"{stamp} pcieport 0000:40:01.1: AER: Corrected error message received from 0000:{bus:02x}:00.0\n",
                     f"{stamp} nvidia 0000:{bus:02x}:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)\n",
                     f"{stamp} nvidia 0000:{bus:02x}:00.0:   device [10de:2204] error status/mask=00000001/0000e000\n",
                     f"{stamp} nvidia 0000:{bus:02x}:00.0:    [ 0] RxErr                 \n"]
        else:
            code = (13, 31, 43)[i % 3]
            lines = [f"{stamp} NVRM: Xid (PCI:0000:{bus:02x}:00): {code}, pid=4242, name=python, Graphics SM Warp "
                     "Exception on (GPC 8, TPC 5, SM 0): Out Of Range Address\n"]
        buf.extend(lines)
        written += sum(len(x) for x in lines)
        i += 1
        if len(buf) > 4096:
            f.write("".join(buf))
            buf.clear()
    f.write("".join(buf))
    return written


def journal_entry(rng: random.Random, seq: int, realtime_us: int, mono_us: int, boot: str, host: str) -> dict:
    r = rng.random()
    if r < 0.001:
        ident, pid, msg, transport = "kernel", None, kernel_gpu(rng)[0], "kernel"
    elif r < 0.002:
        ident, pid, transport = "systemd-logind", 1034, "journal"
        msg = rng.choice(["Lid closed.", "Lid opened.", "Power key pressed.", "The system will suspend now!"])
    elif r < 0.003:
        ident, pid, transport = "systemd-sleep", rng.randrange(10000, 60000), "journal"
        msg = rng.choice(["Performing sleep operation 'suspend'...", "System returned from sleep operation 'suspend'."])
    elif r < 0.3:
        ident, pid, msg, transport = "kernel", None, kernel_noise(rng), "kernel"
    else:
        ident, pid, transport = rng.choice([("systemd", 1, "journal"), ("CRON", rng.randrange(1000, 99999), "syslog"),
                                            ("sshd", rng.randrange(1000, 99999), "syslog"),
                                            ("NetworkManager", 880, "journal")])
        msg = rng.choice([f"Started Session {rng.randrange(1, 999)} of User alice.",
                          "pam_unix(cron:session): session opened for user root(uid=0) by (uid=0)",
                          f"Accepted publickey for alice from 10.0.0.{rng.randrange(2, 250)} port {rng.randrange(30000, 65000)} ssh2",
                          "<info>  [1718194938.1234] dhcp4 (eno1): state changed new lease, address=10.0.0.17"])
    e = {
        "__CURSOR": f"s=9f2d1c0e8b7a4c3d9e8f7a6b5c4d3e2f;i={seq:x};b={boot};m={mono_us:x};t={realtime_us:x};x={rng.randrange(16**16):016x}",
        "__REALTIME_TIMESTAMP": str(realtime_us),
        "__MONOTONIC_TIMESTAMP": str(mono_us),
        "_BOOT_ID": boot,
        "PRIORITY": "6",
        "_TRANSPORT": transport,
        "SYSLOG_FACILITY": "0" if ident == "kernel" else "3",
        "SYSLOG_IDENTIFIER": ident,
        "_HOSTNAME": host,
        "_MACHINE_ID": "4c4c4544004a3510804bb4c04f4e4d32",
        "MESSAGE": msg,
    }
    if pid is not None:
        e.update({"_PID": str(pid), "_UID": "0", "_GID": "0", "_COMM": ident.lower(), "_SYSTEMD_CGROUP": "/system.slice"})
    else:
        e["_SOURCE_MONOTONIC_TIMESTAMP"] = str(mono_us - rng.randrange(50))
    return e


def write_journal(f, rng: random.Random, limit: int, start: _dt.datetime, host: str) -> int:
    written = 0
    realtime_us = int(start.replace(tzinfo=_dt.timezone.utc).timestamp() * 1e6)
    mono_us = 1_234_567_890
    boot = "a3f8e2d4c6b04d1e9f7a5c3b1d2e4f60"
    seq = 0x1a2b3c
    buf = []
    while written < limit:
        step = int(rng.expovariate(1 / 50_000))
        realtime_us += step
        mono_us += step
        seq += 1
        line = json.dumps(journal_entry(rng, seq, realtime_us, mono_us, boot, host), separators=(",", ":")) + "\n"
        buf.append(line)
        written += len(line)
        if len(buf) > 4096:
            f.write("".join(buf))
            buf.clear()
    f.write("".join(buf))
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", required=True, choices=["kernlog", "journal-json", "aer-storm", "xid-storm"])
    ap.add_argument("--mb", type=float, default=64, help="size in MB (10^6 bytes, default 64)")
    ap.add_argument("-o", "--output", required=True, help="output file, - = stdout")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--host", default="node7")
    ap.add_argument("--start", default="2024-06-12T14:22:18", help="first timestamp (local, ISO 8601)")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    start = _dt.datetime.fromisoformat(args.start)
    limit = int(args.mb * 1e6)
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8", newline="\n")
    with out:
        if args.format == "kernlog":
            write_kernlog(out, rng, limit, start, args.host)
        elif args.format == "journal-json":
            write_journal(out, rng, limit, start, args.host)
        else:
            write_storm(out, args.format, limit, start, args.host)
    return 0


if __name__ == "__main__":
    sys.exit(main())

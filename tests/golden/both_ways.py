#!/usr/bin/env python3
"""Every breakeven golden case, priced both ways: on its raw inputs in one process, and through
the features document (`gpucost extract ... -o F` then `gpucost breakeven F`). The JSON answers
must be identical: whatever breakeven reads from the logs (the GPU models, memory, work units,
faults, trace figures) has to travel in the document.

Usage: both_ways.py GPUCOST TESTDATA_DIR WORK_DIR

extract's options (and which take a value) are read from `gpucost extract --help`, so that a new
input option needs no change here. Cases that fail on purpose (exit 2), read stdin, follow or list
the catalogue are not pricing runs and are skipped; each skip is printed with its reason.
"""
import os
import re
import shutil
import subprocess
import sys

# Options extract accepts that belong to breakeven's own output (or mean something else there).
BREAKEVEN_ONLY = {"--json", "-o", "--output", "-h", "--help", "--list", "-q", "--quiet", "-v", "--verbose"}


def extract_options(gpucost, env):
    """{option: takes_value} of `gpucost extract`, from its --help."""
    out = subprocess.run([gpucost, "extract", "--help"], capture_output=True, text=True, env=env, check=True).stdout
    options = {}
    for line in out.splitlines():
        m = re.match(r"^  ((?:-\w,)?--[\w-]+)( [A-Z][^\s]*)?\s", line)
        if not m:
            continue
        for name in m.group(1).split(","):
            options[name] = m.group(2) is not None
    return options


def split_args(args, ext_opts):
    """(extract's arguments, breakeven's arguments) of one breakeven command line."""
    ext, be = [], []
    i = 0
    while i < len(args):
        a = args[i]
        name = a.split("=", 1)[0]
        if a.startswith("-") and a != "-" and name in ext_opts and name not in BREAKEVEN_ONLY:
            takes = ext_opts[name] and "=" not in a
            ext.extend(args[i:i + 2] if takes else [a])
            i += 2 if takes else 1
            continue
        if not a.startswith("-") or a == "-":
            # A value of breakeven's previous option, or an input.
            if be and be[-1].startswith("-") and takes_value_in_breakeven(be[-1]):
                be.append(a)
            else:
                ext.append(a)
            i += 1
            continue
        be.append(a)
        i += 1
    return ext, be


BREAKEVEN_FLAGS = set()


def takes_value_in_breakeven(option):
    return option not in BREAKEVEN_FLAGS and "=" not in option


def breakeven_flags(gpucost, env):
    out = subprocess.run([gpucost, "breakeven", "--help"], capture_output=True, text=True, env=env, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"^  ((?:-\w,)?--[\w-]+)( [A-Z][^\s]*)?\s", line)
        if m and m.group(2) is None:
            BREAKEVEN_FLAGS.update(m.group(1).split(","))


def main():
    gpucost, testdata, work = sys.argv[1], sys.argv[2], sys.argv[3]
    golden = os.path.join(testdata, "golden")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, TZ="UTC", LC_ALL="C", GPUCOST_TODAY="2026-12-02",
               XDG_DATA_HOME=os.path.join(work, "no-user-data"), GPUCOST_JOBS="1")
    ext_opts = extract_options(gpucost, env)
    breakeven_flags(gpucost, env)
    compared, failed, skipped = 0, [], []
    for case in sorted(os.listdir(golden)):
        d = os.path.join(golden, case)
        cmd_file = os.path.join(d, "cmd")
        if not os.path.isfile(cmd_file):
            continue
        with open(cmd_file, encoding="utf-8") as f:
            args = [line.rstrip("\n").replace("{testdata}", testdata) for line in f if line.rstrip("\n") != ""]
        if not args or args[0] != "breakeven":
            continue
        with open(os.path.join(d, "exit_code.expected"), encoding="utf-8") as f:
            want_rc = int(f.read().strip())
        args = args[1:]
        reason = ("it prints the help" if "--help" in args else
                  "it fails on purpose (exit 2)" if want_rc == 2 else
                  "it reads stdin" if os.path.exists(os.path.join(d, "stdin")) or "-" in args else
                  "it lists the catalogue" if "--list-clouds" in args else
                  "it follows growing files" if "--follow" in args else
                  "its input is a features document already" if any(a.endswith(".features.json") or
                                                                   "/golden/" in a for a in args) else "")
        if reason:
            skipped.append(f"{case}: {reason}")
            continue
        mtime = os.path.join(d, "mtime")
        if os.path.exists(mtime):
            with open(mtime, encoding="utf-8") as f:
                for line in f:
                    path, when = line.rstrip("\n").replace("{testdata}", testdata).split(" ", 1)
                    subprocess.run(["touch", "-m", "-d", when, path], check=True)
        args = [a for a in args if a != "--json"] + ["--json"]
        direct = subprocess.run([gpucost, "breakeven"] + args, capture_output=True, text=True, env=env)
        ext, be = split_args(args, ext_opts)
        features = os.path.join(work, case + ".features.json")
        ex = subprocess.run([gpucost, "extract"] + ext + ["-o", features], capture_output=True, text=True, env=env)
        if ex.returncode not in (0, 1):
            failed.append(f"{case}: extract {' '.join(ext)} exited {ex.returncode}: {ex.stderr.strip()}")
            continue
        piped = subprocess.run([gpucost, "breakeven"] + be + [features], capture_output=True, text=True, env=env)
        compared += 1
        if direct.returncode != piped.returncode or direct.stdout != piped.stdout:
            diff = [f"  raw:      {a}\n  features: {b}" for a, b in zip(direct.stdout.splitlines(),
                                                                    piped.stdout.splitlines()) if a != b][:4]
            failed.append(f"{case}: exit {direct.returncode} / {piped.returncode}\n" + "\n".join(diff) +
                          f"\n  extract {' '.join(ext)}\n  breakeven {' '.join(be)} F")
    for s in skipped:
        print(f"skipped {s}")
    print(f"{compared} breakeven cases compared both ways, {len(failed)} differ")
    for f in failed:
        print(f"DIFFERS {f}")
    return 1 if failed or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())

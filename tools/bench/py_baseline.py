#!/usr/bin/env python3
"""Filter-only python3 baseline for tools/bench/run.sh: split each line and print two columns.

  py_baseline.py dmon FILE       skip '#' lines, print gpu and pwr
  py_baseline.py query-csv FILE  split on ", ", print timestamp and power.draw
"""
import sys


def main() -> int:
    fmt, path = sys.argv[1], sys.argv[2]
    w = sys.stdout.buffer.write
    with open(path, "rb", buffering=1 << 20) as f:
        if fmt == "dmon":
            for line in f:
                if line[:1] == b"#":
                    continue
                p = line.split()
                if len(p) > 1:
                    w(p[0] + b"\t" + p[1] + b"\n")
        else:
            next(f, None)  # header
            for line in f:
                p = line.split(b", ")
                if len(p) > 4:
                    w(p[0] + b"\t" + p[4] + b"\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

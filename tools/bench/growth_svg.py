#!/usr/bin/env python3
"""Plots growth.sh's CSV as one SVG: for each series (input size, GPUs, files, window) a chart of
wall time and one of peak memory, a line per command. Standard library only.

    growth_svg.py growth.csv growth.svg
"""
import csv
import math
import sys
from collections import defaultdict

SERIES = [
    ("size", "input size (MB, 8 GPUs)", True),
    ("gpus", "GPUs per host (same MB)", True),
    ("files", "files (rotations of the same MB)", True),
    ("window", "--from/--to window (minutes)", False),
]
MEASURES = [("wall_s", "wall time (s)"), ("rss_mb", "peak RSS (MB)")]
COLOURS = {"prep": "#1f77b4", "extract": "#d62728"}
W, H = 340, 220  # one chart
ML, MR, MT, MB = 58, 14, 30, 42  # margins


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def ticks(lo, hi, log):
    if log:
        out, e = [], math.floor(math.log10(lo))
        while 10**e <= hi * 1.0001:
            for m in (1, 2, 5):
                v = m * 10**e
                if lo / 1.0001 <= v <= hi * 1.0001:
                    out.append(v)
            e += 1
        return out or [lo, hi]
    step = 10 ** math.floor(math.log10(max(hi - lo, 1e-9)))
    while (hi - lo) / step > 6:
        step *= 2
    v, out = math.floor(lo / step) * step, []
    while v <= hi + 1e-9:
        if v >= lo - 1e-9:
            out.append(v)
        v += step
    return out


def fmt(v):
    return f"{v:g}" if v == 0 or v >= 0.01 else f"{v:.0e}"


def chart(x0, y0, title, points, xlog, xname, xlabels=None):
    """points: {command: [(x, y), ...]}; xlabels: category names when x is an index."""
    parts = [f'<g transform="translate({x0},{y0})">',
             f'<text x="{W / 2}" y="16" text-anchor="middle" font-weight="bold">{esc(title)}</text>']
    xs = [x for pts in points.values() for x, _ in pts]
    ys = [y for pts in points.values() for _, y in pts]
    if not xs:
        return "".join(parts) + "</g>"
    ylog = max(ys) / max(min(ys), 1e-9) > 30
    xlo, xhi = min(xs), max(xs)
    ylo, yhi = (min(ys), max(ys)) if ylog else (0, max(ys) * 1.1)
    if xlo == xhi:
        xlo, xhi = xlo - 1, xhi + 1
    if ylo == yhi:
        yhi = ylo + 1

    def sx(x):
        a, b = (math.log10(xlo), math.log10(xhi)) if xlog else (xlo, xhi)
        v = math.log10(x) if xlog else x
        return ML + (v - a) / (b - a) * (W - ML - MR)

    def sy(y):
        a, b = (math.log10(ylo), math.log10(yhi)) if ylog else (ylo, yhi)
        v = math.log10(max(y, 1e-9)) if ylog else y
        return H - MB - (v - a) / (b - a) * (H - MT - MB)

    parts.append(f'<rect x="{ML}" y="{MT}" width="{W - ML - MR}" height="{H - MT - MB}" fill="none" stroke="#999"/>')
    for t in ticks(ylo, yhi, ylog):
        parts.append(f'<line x1="{ML}" x2="{W - MR}" y1="{sy(t):.1f}" y2="{sy(t):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{ML - 4}" y="{sy(t) + 4:.1f}" text-anchor="end">{fmt(t)}</text>')
    xt = range(len(xlabels)) if xlabels else sorted(set(xs))  # the measured points
    last = -1e9
    for t in xt:
        if sx(t) - last < 28:  # too close to the previous label: the point is still drawn
            continue
        last = sx(t)
        label = xlabels[t] if xlabels else fmt(t)
        parts.append(f'<text x="{sx(t):.1f}" y="{H - MB + 14}" text-anchor="middle">{esc(str(label))}</text>')
    parts.append(f'<text x="{ML + (W - ML - MR) / 2}" y="{H - 8}" text-anchor="middle">{esc(xname)}'
                 f'{" (log)" if xlog else ""}</text>')
    if ylog:
        parts.append(f'<text x="{ML + 4}" y="{MT + 12}" fill="#777">log scale</text>')
    for i, (cmd, pts) in enumerate(sorted(points.items())):
        pts = sorted(pts)
        colour = COLOURS.get(cmd, "#2ca02c")
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in pts:
            parts.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{colour}"/>')
        parts.append(f'<text x="{W - MR - 6}" y="{H - MB - 8 - 13 * i}" text-anchor="end" fill="{colour}">'
                     f'{esc(cmd)}</text>')
    parts.append("</g>")
    return "".join(parts)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: growth_svg.py growth.csv growth.svg")
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    charts = []
    for r, (series, title, xlog) in enumerate(SERIES):
        sel = [row for row in rows if row["series"] == series]
        labels = None
        if series == "window":  # minutes, and "all" last
            order = sorted({row["x"] for row in sel}, key=lambda x: (x == "all", float(x) if x != "all" else 0))
            labels = order
        for c, measure in enumerate(MEASURES):
            points = defaultdict(list)
            for row in sel:
                x = labels.index(row["x"]) if labels else float(row["x"])
                points[row["command"]].append((x, float(row[measure[0]])))
            charts.append(chart(c * W, 40 + r * H, measure[1], points, xlog and not labels, title, labels))
    width, height = 2 * W, 40 + len(SERIES) * H
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
           f'font-size="11"><rect width="100%" height="100%" fill="white"/>'
           f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="14" font-weight="bold">'
           f'gpucost: how time and memory grow (tools/bench/growth.sh)</text>' + "".join(charts) + "</svg>\n")
    with open(sys.argv[2], "w") as f:
        f.write(svg)


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# --prometheus against a real Prometheus, side by side with the same samples as a --query-gpu CSV:
# GPUS GPUs of one host over DAYS days at 15 s, four DCGM gauges (gen_prom_openmetrics.py),
# backfilled with `promtool tsdb create-blocks-from openmetrics`, served by Prometheus on
# 127.0.0.1; `gpucost extract --prometheus` and `gpucost extract query.csv` over the same window,
# interleaved, each with its wall time and peak RSS (/usr/bin/time -v).
#
#   tools/bench/prometheus.sh [GPUCOST [GPUS [DAYS [RUNS]]]]     (defaults: build/src/cli/gpucost 64 7 2)
#
# Environment:
#   PER_HOST   GPUs per host: hosts node0001, node0002, ... (default: one host, node01); no CSV then,
#              only the --prometheus runs
#   OUT        the work folder (default tools/bench/out/prom-GPUSg-DAYSd, gitignored); its tsdb/ and
#              query.csv are kept and reused (generating and backfilling 30 days takes long)
#   JOBS       -j of the --prometheus runs (default 2)
#   ENCODINGS  the Accept-Encoding of the --prometheus runs, as GPUCOST_PROMETHEUS_ACCEPT_ENCODING
#              takes it: "identity" (gpucost's choice on loopback), "any" (gzip) (default "identity")
#   BEFORE     another gpucost binary timed the same way (e.g. a build of the previous commit)
# Needs prometheus, promtool (Debian's prometheus package) and python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gpucost=$(realpath "${1:-build/src/cli/gpucost}")
gpus=${2:-64} days=${3:-7} runs=${4:-2}
jobs=${JOBS:-2} encodings=${ENCODINGS:-identity}
out=${OUT:-$here/out/prom-${gpus}g-${days}d}
mkdir -p "$out"

# The TSDB is backfilled two hours at a time (one OpenMetrics slice per promtool run: promtool
# reads its whole input once per block, so one month-long file would be read 360 times); each
# slice done is marked, so an interrupted backfill goes on where it stopped.
per_host=(${PER_HOST:+--per-host "$PER_HOST"})
slices=$(python3 -c "import math; print(math.ceil($days * 12))")
mkdir -p "$out/tsdb" "$out/slices-done"
for k in $(seq 0 $((slices - 1))); do
  [ -f "$out/slices-done/$k" ] && continue
  [ "$k" = 0 ] && echo "backfilling $gpus GPUs x $days days, $slices two-hour slices ..." >&2
  python3 "$here/gen_prom_openmetrics.py" "$out" "$gpus" "$days" "${per_host[@]}" --slice "$k"
  promtool tsdb create-blocks-from openmetrics "$out/dcgm.om" "$out/tsdb" >>"$out/promtool.log"
  rm -f "$out/dcgm.om"
  touch "$out/slices-done/$k"
done
if [ -z "${PER_HOST:-}" ] && [ ! -f "$out/query.csv" ]; then
  python3 "$here/gen_prom_openmetrics.py" "$out" "$gpus" "$days" --csv-only
fi

prom_pid=""
cleanup() { [ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null && wait "$prom_pid" 2>/dev/null; true; }
trap cleanup EXIT
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export NO_PROXY='*' no_proxy='*'
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 15s\nscrape_configs: []\n' >"$out/prometheus.yml"
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/tsdb" --storage.tsdb.retention.time=100y \
  --web.listen-address="127.0.0.1:$port" --query.lookback-delta=1s >"$out/prometheus.log" 2>&1 &
prom_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 600); do
  curl -sf "$base/-/ready" >/dev/null && break
  sleep 0.1
done
curl -sf "$base/-/ready" >/dev/null || { tail "$out/prometheus.log"; exit 1; }

from=2025-06-01T00:00:00Z
to=$(python3 -c "import datetime as d; print((d.datetime(2025,6,1,tzinfo=d.timezone.utc)+d.timedelta(days=$days)).strftime('%Y-%m-%dT%H:%M:%SZ'))")
window=(--from "$from" --to "$to" --tz UTC -q)

# measure LABEL CMD...: one run, its wall time (s) and peak RSS (MB) on one line
measure() {
  local label=$1
  shift
  /usr/bin/time -v "$@" >"$out/last.json" 2>"$out/time.txt" || { cat "$out/time.txt"; exit 1; }
  awk -v label="$label" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i] }
    /Maximum resident set size/ { rss = $NF / 1024 }
    END { printf "%-40s %8.2f s %8.0f MB\n", label, s, rss }' "$out/time.txt"
}

echo "# $gpus GPUs x $days days, 4 metrics at 15 s; $(nproc) cores; $(date -u +%FT%TZ)"
csv=""
[ -z "${PER_HOST:-}" ] && csv=$out/query.csv
csv_size=none
[ -n "$csv" ] && csv_size="$(du -m "$csv" | cut -f1) MB"
echo "# ${PER_HOST:+$PER_HOST GPUs per host; }CSV: $csv_size; TSDB: $(du -sm "$out/tsdb" | cut -f1) MB"
for r in $(seq "$runs"); do
  for enc in $encodings; do
    measure "prometheus -j$jobs ($enc) run $r" env GPUCOST_PROMETHEUS_ACCEPT_ENCODING="$enc" \
      "$gpucost" extract --prometheus "$base" -j "$jobs" "${window[@]}"
    cp "$out/last.json" "$out/prom.json"
  done
  if [ -n "${BEFORE:-}" ]; then
    measure "before: prometheus run $r" "$BEFORE" extract --prometheus "$base" -j "$jobs" "${window[@]}"
  fi
  [ -n "$csv" ] || continue
  measure "csv -j$jobs run $r" "$gpucost" extract --host node01 "$csv" -j "$jobs" "${window[@]}"
  cp "$out/last.json" "$out/csv.json"
done
if [ -z "$csv" ]; then
  python3 - "$out/prom.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
n = [g["indicators"].get("samples", {}).get("value") or 0 for g in a["gpus"]]
print(f"# GPUs {len(n)} on {len({g.get('host') for g in a['gpus']})} hosts; samples {sum(n):.0f}")
EOF
  exit 0
fi
# The same samples: the same count of samples per GPU from both.
python3 - "$out/prom.json" "$out/csv.json" <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sa = [g["indicators"].get("samples", {}).get("value") for g in a["gpus"]]
sb = [g["indicators"].get("samples", {}).get("value") for g in b["gpus"]]
print(f"# GPUs {len(sa)} / {len(sb)}; samples equal: {sa == sb}")
EOF

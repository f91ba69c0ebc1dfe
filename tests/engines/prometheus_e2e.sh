#!/usr/bin/env bash
# --prometheus against a real Prometheus (Debian's `prometheus` package): dcgm-exporter's /metrics
# for two hosts over twenty minutes (testdata/dcgm-openmetrics/make_openmetrics.py) backfilled with
# `promtool tsdb create-blocks-from openmetrics`, served by Prometheus on 127.0.0.1 (a free port,
# no scrape targets), and read with `gpucost extract/breakeven --prometheus`; the same samples as
# nvidia-smi --query-gpu CSV give the same indicators and the same verdict. Writes only into a
# temporary folder; Prometheus is stopped on every exit.
#   prometheus_e2e.sh GPUCOST TESTDATA
# Exit 77 (skipped) when not root or when prometheus, promtool, python3 or jq is missing.
set -uo pipefail
gpucost=$1 testdata=$2

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root (the engines tests run as root in CI)"
for tool in prometheus promtool python3 jq curl; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (Debian: apt-get install prometheus jq curl python3)"
done

tmp=$(mktemp -d)
prom_pid=""
cleanup() {
  if [ -n "$prom_pid" ]; then
    kill "$prom_pid" 2>/dev/null
    wait "$prom_pid" 2>/dev/null
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY GPUCOST_PROMETHEUS_TOKEN \
  GPUCOST_PROMETHEUS_TOKEN_FILE GPUCOST_PROMETHEUS_USER GPUCOST_PROMETHEUS_PASSWORD GPUCOST_PROMETHEUS_PASSWORD_FILE
export NO_PROXY='*' no_proxy='*'

fail() {
  echo "FAIL: $*"
  [ -f "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err"
  [ -f "$tmp/prometheus.log" ] && tail -5 "$tmp/prometheus.log" | sed 's/^/  prometheus: /'
  exit 1
}

# 1. The exporter's output as OpenMetrics with timestamps, and its nvidia-smi twins.
python3 "$testdata/dcgm-openmetrics/make_openmetrics.py" "$tmp" || fail "make_openmetrics.py failed"
promtool tsdb create-blocks-from openmetrics "$tmp/dcgm.om" "$tmp/tsdb" >"$tmp/promtool.log" 2>&1 ||
  { cat "$tmp/promtool.log"; fail "promtool could not backfill dcgm.om"; }

# 2. Prometheus on a free port of 127.0.0.1, no scrape targets. The samples are of 2025: a long
# retention keeps them. A lookback of 1 s stands in for the staleness markers a live scrape
# writes when a target goes away (backfilled data has none): a missed scrape is a missing point,
# as on a live server, not the last value repeated for five minutes.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 15s\nscrape_configs: []\n' >"$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" --storage.tsdb.retention.time=100y \
  --web.listen-address="127.0.0.1:$port" --query.lookback-delta=1s >"$tmp/prometheus.log" 2>&1 &
prom_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 300); do
  curl -sf "$base/-/ready" >/dev/null && break
  kill -0 "$prom_pid" 2>/dev/null || fail "prometheus exited at start"
  sleep 0.1
done
curl -sf "$base/-/ready" >/dev/null || fail "prometheus was not ready after 30 s"

window=(--from 2025-06-12T08:00:00Z --to 2025-06-12T08:20:15Z --tz UTC)
run() {  # run OUT ARGS...: gpucost ARGS > $tmp/OUT, stderr in $tmp/err; fails on a non-zero exit
  local out=$1
  shift
  "$gpucost" "$@" >"$tmp/$out" 2>"$tmp/err" || fail "gpucost $* (exit $?)"
}

# compare A.json B.json KEYS-REGEX MIN: every GPU indicator of B (the CSV's) whose key matches
# and that has a value equals A's (the same within 1e-9, relative); at least MIN compared.
compare() {
  python3 - "$tmp/$1" "$tmp/$2" "$3" "$4" <<'EOF'
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys, least = re.compile(sys.argv[3]), int(sys.argv[4])
# Prometheus carries dcgm-exporter's energy counter, the CSV cannot: the energy's bounds are
# the counter's there (exact but for the edges), the power samples' extremes here.
skipped = re.compile(r"^energy_(low|high)_kwh$")
assert len(a["gpus"]) == len(b["gpus"]), (len(a["gpus"]), len(b["gpus"]))
n = 0
for ga, gb in zip(a["gpus"], b["gpus"]):
    for key, ind in gb["indicators"].items():
        if not keys.search(key) or skipped.search(key) or ind.get("value") is None:
            continue
        va = ga["indicators"].get(key, {}).get("value")
        vb = ind["value"]
        assert va is not None, f"GPU {gb.get('index')}: {key} is absent from Prometheus' features"
        assert abs(va - vb) <= 1e-9 * max(1.0, abs(vb)), f"GPU {gb.get('index')}: {key} {va} != {vb}"
        n += 1
assert n >= least, f"only {n} indicators compared"
print(f"{n} indicators equal")
EOF
}

# 3. node01: the same indicators from Prometheus as from the CSV.
run prom1.json extract --prometheus "$base" --match 'Hostname="node01"' "${window[@]}"
run csv1.json extract --host node01 "$tmp/query_node01.csv" "${window[@]}"
compare prom1.json csv1.json 'power|energy|util|temp|clock|pclk|mclk|busy|coverage|samples' 40 ||
  fail "node01: Prometheus and the CSV give other indicators"
a=$(jq '.host.indicators.energy_kwh.value' "$tmp/prom1.json")
b=$(jq '.host.indicators.energy_kwh.value' "$tmp/csv1.json")
[ "$a" != null ] && python3 -c "import sys; sys.exit(0 if abs($a - $b) <= 1e-9 * abs($b) else 1)" ||
  fail "node01: host energy $a kWh from Prometheus (the counter), $b from the CSV (power)"

# 4. The verdict: breakeven from both.
config="$testdata/samples/h100-server.toml"
run prom1.verdict breakeven --json -c "$config" --prometheus "$base" --match 'Hostname="node01"' "${window[@]}"
run csv1.verdict breakeven --json -c "$config" --host node01 "$tmp/query_node01.csv" "${window[@]}"
# All of it but the time zone the CSV's local times were read in (Prometheus' times are UTC) and
# what says how the energy was measured (the counter there, power here): numbers equal within
# 1e-9, relative (the counter's increase and the power integral round differently).
python3 - "$tmp/prom1.verdict" "$tmp/csv1.verdict" >"$tmp/verdict.diff" <<'EOF2' || { cat "$tmp/verdict.diff"; fail "breakeven differs"; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for doc in (a, b):
    doc["job"].pop("logs_tz", None)
    for key in ("method", "from_power_kwh", "power_vs_counter_pct", "gpu_methods"):
        doc.get("energy", {}).pop(key, None)
diffs = []
def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y: diffs.append(f"{path}.{k}: only in {'Prometheus' if k in x else 'the CSV'}")
            else: walk(x[k], y[k], f"{path}.{k}")
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for i, (u, v) in enumerate(zip(x, y)): walk(u, v, f"{path}[{i}]")
    elif isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        if abs(x - y) > 1e-9 * max(1.0, abs(y)): diffs.append(f"{path}: {x} != {y}")
    elif x != y: diffs.append(f"{path}: {x!r} != {y!r}")
for d in diffs: print(d)
sys.exit(1 if diffs else 0)
EOF2
[ "$(jq '.above_line' "$tmp/prom1.verdict")" != null ] && [ "$(jq '.premium' "$tmp/prom1.verdict")" != null ] ||
  fail "breakeven gave no verdict"

# 5. node02's three minutes without a scrape: the same coverage gap as the CSV without those rows.
run prom2.json extract --prometheus "$base" --match 'Hostname="node02"' "${window[@]}"
run csv2.json extract --host node02 "$tmp/query_node02.csv" "${window[@]}"
compare prom2.json csv2.json 'coverage|gap|samples|sample_interval|power_w|util' 8 ||
  fail "node02: the gap reads otherwise from Prometheus than from the CSV"
cov=$(jq '.gpus[0].indicators.coverage.value' "$tmp/prom2.json")
python3 -c "import sys; sys.exit(0 if $cov < 0.9 else 1)" || fail "node02: coverage $cov, expected the gap in it"

# 6. prep writes the events of both hosts, named by the server.
run all.events prep --prometheus "$base" "${window[@]}"
n=$(grep -c '"kind":"sample"' "$tmp/all.events")
[ "$n" -eq $((81 * 2 + 81 - 12)) ] || fail "prep: $n samples, expected 231"
grep -q "\"path\":\"prometheus:$base\"" "$tmp/all.events" || fail "prep: the summary does not name prometheus:$base"
# The window read in slices of 10 points (9 slices), fetched one at a time or four at once: the
# same events, byte for byte, as in one query.
GPUCOST_PROMETHEUS_MAX_POINTS=10 run j1.events prep --prometheus "$base" -j 1 "${window[@]}"
GPUCOST_PROMETHEUS_MAX_POINTS=10 run j4.events prep --prometheus "$base" -j 4 "${window[@]}"
cmp -s "$tmp/j1.events" "$tmp/j4.events" || fail "prep: -j 1 and -j 4 give other events"
grep -v '"type":"summary"' "$tmp/all.events" >"$tmp/all.samples"
grep -v '"type":"summary"' "$tmp/j1.events" | cmp -s - "$tmp/all.samples" || fail "prep: slices give other events"
# 7. A Slurm job scopes the query: its saved sacct record (job 4242 on node01 over the window
# above) gives the window and the node, no --from, --to or --match: the same indicators.
printf '%s\n' 'JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode' \
  '4242|train|alice|2025-06-12T08:00:00|2025-06-12T08:20:14|node01|billing=16,cpu=16,gres/gpu=2,mem=64G,node=1||COMPLETED|0:0' \
  >"$tmp/job.txt"
run job.json extract --prometheus "$base" --slurm-job 4242 --tz UTC "$tmp/job.txt"
grep -q "scoped to Slurm job 4242: nodes node01" "$tmp/err" || fail "--slurm-job did not scope the query: $(cat "$tmp/err")"
[ "$(jq -r '.window.chosen_by' "$tmp/job.json")" = slurm ] || fail "the job's window was not chosen by slurm"
compare job.json prom1.json 'power_w|util|temp|clock|samples' 20 || fail "--slurm-job: other indicators than --match"
# 8. A job on both nodes in one run: a GPU is (host, index), and the document equals node01's and
# node02's extracts merged (all but what says how it was made); a two-node Slurm job scopes the
# query to both hosts and prices them in one command.
run both.json extract --prometheus "$base" "${window[@]}"
run merged.json merge "$tmp/prom1.json" "$tmp/prom2.json"
strip() { jq -S 'del(.window.chosen_by, .window.merged_from, .inputs, .input_summary)' "$tmp/$1"; }
diff <(strip both.json) <(strip merged.json) >"$tmp/both.diff" ||
  { head -20 "$tmp/both.diff"; fail "two hosts in one run differ from their merged extracts"; }
[ "$(jq '.gpus | length' "$tmp/both.json")" -eq 3 ] || fail "two hosts in one run: not 3 GPUs"
printf '%s\n' 'JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode' \
  '4343|train|alice|2025-06-12T08:00:00|2025-06-12T08:20:14|node[01-02]|billing=32,cpu=32,gres/gpu=3,mem=128G,node=2||COMPLETED|0:0' \
  >"$tmp/job2.txt"
run job2.verdict breakeven --json -c "$config" --prometheus "$base" --slurm-job 4343 --tz UTC "$tmp/job2.txt"
grep -q "scoped to Slurm job 4343: nodes node\[01-02\]" "$tmp/err" || fail "--slurm-job 4343: $(cat "$tmp/err")"
[ "$(jq -r '.job.host' "$tmp/job2.verdict")" = node01,node02 ] && [ "$(jq '.job.gpus' "$tmp/job2.verdict")" -eq 3 ] &&
  [ "$(jq '.hosts | length' "$tmp/job2.verdict")" -eq 2 ] || fail "the two-node job was not priced on both hosts"

echo "ok: Prometheus $(prometheus --version 2>&1 | head -1 | awk '{print $3}') and the CSV agree"

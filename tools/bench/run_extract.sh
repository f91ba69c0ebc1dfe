#!/usr/bin/env bash
# Speed and memory of `gpucost extract` against `gpucost prep` on the same input, and extract's
# peak RSS as the input grows.
#
#   tools/bench/run_extract.sh [GPUCOST]
#
#   GPUCOST  the gpucost binary (default build/src/cli/gpucost); build a Release one first:
#              cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUCOST_BUILD_TESTS=OFF
#              cmake --build build-bench && tools/bench/run_extract.sh build-bench/src/cli/gpucost
#
# Environment: RUNS (best of, default 3), KERN_MB (default 240), BIG_MB (default 2048: the
# largest dmon input, fed through stdin), NO_PIN=1 to skip `taskset -c 1`.
#
# Inputs (generated into tools/bench/out/, gitignored, when missing):
#   day-query.csv  a day of 8 GPUs at 1 Hz: gen_logs.py --format query-csv --gpus 8
#                  --interval-ms 1000 --mb 86 (697 216 rows, 86 MB)
#   kern-KERN_MB.log  gen_hostlogs.py --format kernlog (same start, 14:22:18 on 2024-06-12)
#   dmon-512mb-s1.txt  gen_logs.py --format dmon --gpus 8 --mb 512 (shared with run.sh)
#
# Rows (best of RUNS, /usr/bin/time -f '%e %M'):
#   1. prep and extract of the day + the kern.log: extract must run at the speed of prep.
#   2. python3 tools/bench/py_extract_baseline.py on the day (three indicators only).
#   3. extract of 100 MB, 512 MB and BIG_MB of dmon (1 Hz, --start/--interval; the big one is
#      the 512 MB file repeated through stdin): peak RSS must not grow with the input.
#   4. extract of the day with incident storms: 10^6 AER records (gen_hostlogs.py --format
#      aer-storm, 489 MB), the same 4 times through stdin, and 10^6 Xid lines (xid-storm,
#      175 MB): peak RSS must not grow with the number of incidents either.
# Results go to stdout and to tools/bench/out/extract_results.md. Outputs are written to a
# temporary file, never with -o /dev/null (see run_trace.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
gpucost="${1:-$root/build/src/cli/gpucost}"
runs="${RUNS:-3}"
kern_mb="${KERN_MB:-240}"
big_mb="${BIG_MB:-2048}"
out="$here/out"

die() { echo "run_extract.sh: $*" >&2; exit 2; }
[[ -x "$gpucost" ]] || die "no gpucost binary at $gpucost (build one first, see the header of this script)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing: apt-get install -y time"
pin=()
if [[ -z "${NO_PIN:-}" ]] && command -v taskset >/dev/null && taskset -c 1 true 2>/dev/null; then pin=(taskset -c 1); fi

mkdir -p "$out"
day="$out/day-query.csv"
kern="$out/kern-${kern_mb}mb-s1.log"
dmon="$out/dmon-512mb-s1.txt"
[[ -s "$day" ]] || python3 "$here/gen_logs.py" --format query-csv --gpus 8 --interval-ms 1000 --mb 86 -o "$day"
[[ -s "$kern" ]] || python3 "$here/gen_hostlogs.py" --format kernlog --mb "$kern_mb" -o "$kern"
[[ -s "$dmon" ]] || python3 "$here/gen_logs.py" --format dmon --gpus 8 --mb 512 -o "$dmon"
aer="$out/aer-storm.log"
xid="$out/xid-storm.log"
[[ -s "$aer" ]] || python3 "$here/gen_hostlogs.py" --format aer-storm --mb 489 -o "$aer"
[[ -s "$xid" ]] || python3 "$here/gen_hostlogs.py" --format xid-storm --mb 175 -o "$xid"
[[ -s "$out/dmon-100mb.txt" ]] || head -c 100000000 "$dmon" | sed '$d' > "$out/dmon-100mb.txt"

tmp="$(mktemp)"; result="$(mktemp)"; trap 'rm -f "$tmp" "$result"' EXIT
load0="$(cut -d' ' -f1-3 /proc/loadavg)"

# best LABEL BYTES CMD...: best wall of RUNS, max RSS; prints a table row.
rows=()
best() {
  local label=$1 bytes=$2; shift 2
  local best_s="" rss=0 s m
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$result" "$@" > /dev/null 2>&1 || die "failed: $*"
    read -r s m < "$result"
    if [[ -z "$best_s" ]] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then best_s=$s; fi
    (( m > rss )) && rss=$m
  done
  rows+=("$(awk -v l="$label" -v b="$bytes" -v e="$best_s" -v m="$rss" 'BEGIN {
    printf "| %s | %.0f | %.2f | %.0f | %.1f |", l, b / 1e6, e, (e > 0 ? b / 1e6 / e : 0), m * 1024 / 1e6 }')")
  echo "${rows[-1]}"
}
bytes() { stat -c %s "$@" | awk '{ s += $1 } END { print s }'; }

both=$(bytes "$day" "$kern")
best "prep: day of 8 GPUs + kern.log" "$both" "${pin[@]}" "$gpucost" prep -q --tz UTC -o "$tmp" "$day" "$kern"
best "extract: day of 8 GPUs + kern.log" "$both" "${pin[@]}" "$gpucost" extract -q --tz UTC -o "$tmp" "$day" "$kern"
best "extract: day of 8 GPUs" "$(bytes "$day")" "${pin[@]}" "$gpucost" extract -q --tz UTC -o "$tmp" "$day"
best "python3 baseline (3 indicators): day" "$(bytes "$day")" "${pin[@]}" python3 "$here/py_extract_baseline.py" "$day"
dmon_opts=(--tz UTC --start 2024-06-10T00:00:00Z --interval 1 --input-format dmon)
best "extract: dmon 100 MB" "$(bytes "$out/dmon-100mb.txt")" "${pin[@]}" "$gpucost" extract -q "${dmon_opts[@]}" -o "$tmp" "$out/dmon-100mb.txt"
best "extract: dmon 512 MB" "$(bytes "$dmon")" "${pin[@]}" "$gpucost" extract -q "${dmon_opts[@]}" -o "$tmp" "$dmon"
reps=$(( (big_mb * 1000000 + $(bytes "$dmon") - 1) / $(bytes "$dmon") ))
big_cmd="for i in \$(seq $reps); do cat '$dmon'; done | ${pin[*]} '$gpucost' extract -q ${dmon_opts[*]} -o '$tmp' -"
best "extract: dmon $((reps * 512)) MB via stdin" "$(( reps * $(bytes "$dmon") ))" bash -c "$big_cmd"
best "extract: day + 10^6 AER records" "$(bytes "$day" "$aer")" "${pin[@]}" "$gpucost" extract -q --tz UTC -o "$tmp" "$day" "$aer"
storm4_cmd="for i in 1 2 3 4; do cat '$aer'; done | ${pin[*]} '$gpucost' extract -q --tz UTC -o '$tmp' '$day' -"
best "extract: day + 4 x 10^6 AER records via stdin" "$(( $(bytes "$day") + 4 * $(bytes "$aer") ))" bash -c "$storm4_cmd"
best "extract: day + 10^6 Xids" "$(bytes "$day" "$xid")" "${pin[@]}" "$gpucost" extract -q --tz UTC -o "$tmp" "$day" "$xid"

{
  echo "Measured $(date -u +%Y-%m-%d) with $("$gpucost" --version 2>/dev/null | head -1) on $(nproc) cores, load $load0 at the start; best of $runs."
  echo
  echo "| run | input MB | wall s | MB/s | peak RSS MB |"
  echo "|---|---:|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
} | tee "$out/extract_results.md"

#!/usr/bin/env bash
# How cost grows: time and peak memory of `gpucost prep` and `gpucost extract` against the size
# of the input, the number of GPUs on the host, the number of files (rotations) and the length
# of the --from/--to window; a CSV of the measurements and an SVG plot of them.
#
#   tools/bench/growth.sh [GPUCOST]
#
#   GPUCOST  the gpucost binary (default build/src/cli/gpucost); this script builds nothing (see
#            tools/bench/compare.sh's header for a Release build)
#
# Environment (lists are space-separated):
#   SIZES      MB of the 8-GPU query CSV (default "10 30 100 300 1000"; add 4000 on a machine
#              with the disk and the time)
#   GPUS_LIST  GPUs per host, each a GPUS_MB query CSV (default "1 2 4 8 16 32 64", GPUS_MB 100)
#   FILES_LIST rotations a FILES_MB query CSV is cut into, each with its header (default
#              "1 10 100 1000 2000", FILES_MB 100)
#   WINDOWS_MIN --from/--to windows, minutes from the first sample of the WINDOW_MB query CSV
#              (default "10 30 60 120 all", WINDOW_MB 300; its samples span ~2.8 h per 100 MB)
#   RUNS       best of (default 3); JOBS: -j of the measured commands (default 1; pinned to one
#              core with taskset when JOBS is 1 and NO_PIN is unset); SEED (default 1)
#
# Inputs are generated into tools/bench/out/ (gitignored) by gen_logs.py when missing. Each
# point is the best wall time of RUNS runs under `/usr/bin/time -f '%e %U %S %M'` and its
# largest peak RSS. The CSV goes to tools/bench/out/growth.csv, the plot to
# tools/bench/out/growth.svg (growth_svg.py), a Markdown summary to stdout and growth.md.
set -euo pipefail
export LC_ALL=C

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
die() { echo "growth.sh: $*" >&2; exit 2; }
note() { echo "growth.sh: $*" >&2; }
gpucost="${1:-$root/build/src/cli/gpucost}"
[[ -x "$gpucost" ]] || die "no gpucost binary at $gpucost"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (GNU time: apt-get install -y time)"
command -v python3 >/dev/null || die "python3 missing: the generators and the plot need it"
sizes="${SIZES:-10 30 100 300 1000}"
gpus_list="${GPUS_LIST:-1 2 4 8 16 32 64}"
gpus_mb="${GPUS_MB:-100}"
files_list="${FILES_LIST:-1 10 100 1000 2000}"
files_mb="${FILES_MB:-100}"
windows="${WINDOWS_MIN:-10 30 60 120 all}"
window_mb="${WINDOW_MB:-300}"
runs="${RUNS:-3}"
jobs="${JOBS:-1}"
seed="${SEED:-1}"
out="$here/out"
mkdir -p "$out"
pin=()
if [[ "$jobs" == 1 && -z "${NO_PIN:-}" ]] && command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null; then
  pin=(taskset -c 0)
fi

query_csv() {  # query_csv MB GPUS: the generated file's path
  local f="$out/query-${1}mb-g${2}-s${seed}.csv"
  [[ "$2" == 8 ]] && f="$out/query-${1}mb-s${seed}.csv"  # shared with compare.sh and run.sh
  if [[ ! -s "$f" ]]; then
    note "generating $(basename "$f")"
    python3 "$here/gen_logs.py" --format query-csv --gpus "$2" --mb "$1" --seed "$seed" -o "$f.part" >/dev/null
    mv "$f.part" "$f"
  fi
  echo "$f"
}

# rotations SRC N: SRC cut at line boundaries into N files in a directory of their own, each
# starting with SRC's header line (as nvidia-smi writes one per file); prints the directory.
rotations() {
  local src="$1" n="$2" dir
  dir="$out/rotations-$(basename "$src" .csv)-$n"
  if [[ ! -f "$dir/.done" ]]; then
    note "cutting $(basename "$src") into $n files"
    rm -rf "$dir"; mkdir -p "$dir"
    python3 - "$src" "$n" "$dir" <<'PY'
import os, sys
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(src, "rb") as f:
    header = f.readline()
    body = f.read()
step = len(body) // n
start = 0
for i in range(n):
    end = len(body)
    if i < n - 1:
        nl = body.find(b"\n", min(start + step, len(body)))
        end = len(body) if nl < 0 else nl + 1
    with open(os.path.join(out, "query.csv.%05d" % i), "wb") as w:
        w.write(header)
        w.write(body[start:end])
    start = end
PY
    touch "$dir/.done"
  fi
  echo "$dir"
}

csv="$out/growth.csv"
echo "series,x,command,wall_s,cpu_s,rss_mb,input_mb" > "$csv"
tfile="$(mktemp)"; trap 'rm -f "$tfile"' EXIT
# measure SERIES X INPUT_MB LABEL ARGS...: `gpucost ARGS`, best wall of RUNS runs, largest RSS;
# one CSV line.
measure() {
  local series="$1" x="$2" mb="$3" cmd="$4" best="" cpu="" rss=0 i e u s k
  shift 4
  for (( i = 0; i < runs; i++ )); do
    "${pin[@]}" /usr/bin/time -f '%e %U %S %M' -o "$tfile" "$gpucost" "$@" -j "$jobs" -q > /dev/null 2>&1 ||
      die "failed: gpucost $*"
    read -r e u s k < <(tail -n 1 "$tfile")
    if [[ -z "$best" ]] || awk -v a="$e" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best="$e"; cpu="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
    fi
    (( k > rss )) && rss="$k"
  done
  echo "$series,$x,$cmd,$best,$cpu,$(awk -v k="$rss" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }'),$mb" >> "$csv"
  note "$series $x: $cmd ${best} s, $(awk -v k="$rss" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }') MB"
}

# 1. input size (8 GPUs)
for mb in $sizes; do
  f="$(query_csv "$mb" 8)"; cat "$f" > /dev/null
  measure size "$mb" "$mb" prep prep --tz UTC "$f" -o /dev/null
  measure size "$mb" "$mb" extract extract --tz UTC "$f" -o /dev/null
done
# 2. GPUs per host (same size)
for g in $gpus_list; do
  f="$(query_csv "$gpus_mb" "$g")"; cat "$f" > /dev/null
  measure gpus "$g" "$gpus_mb" prep prep --tz UTC "$f" -o /dev/null
  measure gpus "$g" "$gpus_mb" extract extract --tz UTC "$f" -o /dev/null
done
# 3. files: the same bytes in 1 ... 2000 rotations (prep merges them by time; extract too)
src="$(query_csv "$files_mb" 8)"
for n in $files_list; do
  dir="$(rotations "$src" "$n")"; cat "$dir"/query.csv.* > /dev/null
  measure files "$n" "$files_mb" prep prep --tz UTC "$dir/query.csv.*" -o /dev/null
  measure files "$n" "$files_mb" extract extract --tz UTC "$dir/query.csv.*" -o /dev/null
done
# 4. window length: the same file, a longer --from/--to window each time
f="$(query_csv "$window_mb" 8)"; cat "$f" > /dev/null
first="$(sed -n 2p "$f" | cut -d, -f1 | tr '/' '-' | sed 's/ /T/; s/\.[0-9]*$//')"
for w in $windows; do
  if [[ "$w" == all ]]; then
    measure window all "$window_mb" extract extract --tz UTC "$f" -o /dev/null
  else
    to="$(date -u -d "${first/T/ } UTC + $w minutes" +%Y-%m-%dT%H:%M:%S)"
    measure window "$w" "$window_mb" extract extract --tz UTC --from "$first" --to "$to" "$f" -o /dev/null
  fi
done

python3 "$here/growth_svg.py" "$csv" "$out/growth.svg"
cpu_model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
{
  echo "## growth.sh, $(date -u +%Y-%m-%d) $(date -u +%H:%M) UTC"
  echo
  echo "- machine: $(uname -m), ${cpu_model:-unknown CPU}, $(nproc) cores; -j $jobs; pinned: ${pin[*]:-no}"
  echo "- commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "?"); best of $runs; plot: tools/bench/out/growth.svg"
  echo
  echo "| series | x | command | wall s | CPU s | peak RSS MB | input MB |"
  echo "|---|---:|---|---:|---:|---:|---:|"
  tail -n +2 "$csv" | awk -F, '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }'
} | tee "$out/growth.md"

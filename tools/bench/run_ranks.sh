#!/usr/bin/env bash
# The ranks of a distributed job: `gpucost trace` on W rank traces at once (one job, matched
# across ranks) against reading the same traces each alone, J at a time (docs/performance.md,
# "Ranks of a job").
#
#   tools/bench/run_ranks.sh [GPUCOST [SIZE_MB [WORLD]]]
#
#   GPUCOST  the gpucost binary to measure (default build/src/cli/gpucost); this script builds
#            nothing (see run_trace.sh's header for a Release build)
#   SIZE_MB  size of each rank's trace in MB (10^6 bytes of JSON, default 200)
#   WORLD    ranks of the job (default 8)
#
# Environment: RUNS (default 3, best-of), SEED (default 1), JOBS (default nproc: the -j of the
#              job run and the parallelism of the read), TARGET_RATIO (default 1.2).
#
# Inputs: gen_trace.py writes rank-0 ... rank-(WORLD-1) of one job (distributedInfo rank and
# world size, the same loop on every rank; seed SEED x 1000 + rank, so that each rank's kernel
# times differ and waits and stragglers appear; a rank's trace may end a step earlier, whose
# collectives are then unmatched, as with a real job's traces cut at a size) into tools/bench/out/ranks-SIZEmb-wWORLD/
# (gitignored) when missing. Times, best of RUNS, wall from a nanosecond clock, peak RSS from
# /usr/bin/time %M (the largest of the processes for the read):
#   1. read:  xargs -P JOBS: `gpucost trace -q TRACE` on each trace alone, the per-trace
#             analysis without the job (what reading the traces costs in gpucost)
#   2. job:   `gpucost trace -q -j JOBS DIR`: the same traces as one job (alignment, matching,
#             waits, straggler, exposed communication)
#   3. floor: `cat` of the traces to /dev/null (page cache), for scale
# Target: job wall <= TARGET_RATIO x read wall. Results to stdout and out/ranks_results.md.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
gpucost="${1:-$root/build/src/cli/gpucost}"
size_mb="${2:-200}"
world="${3:-8}"
runs="${RUNS:-3}"
seed="${SEED:-1}"
jobs="${JOBS:-$(nproc)}"
target="${TARGET_RATIO:-1.2}"
out="$here/out"
dir="$out/ranks-${size_mb}mb-w${world}"

die() { echo "run_ranks.sh: $*" >&2; exit 2; }
[[ -x "$gpucost" ]] || die "no gpucost binary at $gpucost (build one first, see run_trace.sh's header)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing: apt-get install -y time"
(( world >= 2 )) || die "WORLD must be 2 or more, not $world"

mkdir -p "$dir"
load0="$(cut -d' ' -f1-3 /proc/loadavg)"
traces=()
for (( r = 0; r < world; r++ )); do
  t="$dir/rank-$r.pt.trace.json"
  [[ -s "$t" ]] || python3 "$here/gen_trace.py" --mb "$size_mb" --seed "$(( seed * 1000 + r ))" --rank "$r" --world-size "$world" -o "$t"
  traces+=("$t")
done
bytes="$(cat "${traces[@]}" | wc -c)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
now_ns() { date +%s%N; }
log="$out/ranks_times.log"
: > "$log"

# best LABEL CMD... : the best wall of RUNS runs into best_s, the largest peak RSS (kB) into best_rss.
best() {
  local label="$1"; shift
  local i t0 t1 e m
  best_s="" best_rss=0
  for (( i = 0; i < runs; i++ )); do
    rm -f "$tmp"/rss.*
    t0="$(now_ns)"
    "$@" || die "failed: $label"
    t1="$(now_ns)"
    e="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
    m="$( { cat "$tmp"/rss.* 2>/dev/null || true; } | awk '{ if ($1 > m) m = $1 } END { print m + 0 }')"
    echo "$label: run $i: wall ${e}s maxrss ${m}kB" >> "$log"
    if [[ -z "$best_s" ]] || awk -v a="$e" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then best_s="$e"; fi
    if (( m > best_rss )); then best_rss="$m"; fi
  done
}

# One trace alone, its peak RSS in a file of its own (xargs runs them side by side).
export GPUCOST_BENCH="$gpucost" GPUCOST_BENCH_TMP="$tmp"
read_one() { /usr/bin/time -f '%M' -o "$GPUCOST_BENCH_TMP/rss.$(basename "$1")" "$GPUCOST_BENCH" trace -q "$1" > /dev/null; }
export -f read_one
read_all() { printf '%s\0' "${traces[@]}" | xargs -0 -P "$jobs" -n 1 bash -c 'read_one "$0"'; }
job() { /usr/bin/time -f '%M' -o "$tmp/rss.job" "$gpucost" trace -q -j "$jobs" "$dir" > "$tmp/job.txt"; }
floor() { cat "${traces[@]}" > /dev/null; }

cat "${traces[@]}" > /dev/null  # page cache
best "floor" floor; floor_s="$best_s"
best "read" read_all; read_s="$best_s"; read_rss="$best_rss"
best "job" job; job_s="$best_s"; job_rss="$best_rss"
summary="$(grep -m1 -iE "straggler|ranks" "$tmp/job.txt" || true)"

{
  echo "gpucost: $gpucost ($("$gpucost" --version 2>&1 | head -n 1)); repo HEAD: $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); -j $jobs; best of $runs"
  echo "load average before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "job: $world ranks x ${size_mb} MB = $bytes bytes in $dir"
  echo
  echo "| run | best wall s | MB/s | peak RSS MB (largest process) |"
  echo "|---|---:|---:|---:|"
  awk -v b="$bytes" -v e="$floor_s" 'BEGIN { printf "| cat to /dev/null (floor) | %.3f | %.0f | |\n", e, b / 1e6 / e }'
  awk -v b="$bytes" -v e="$read_s" -v m="$read_rss" -v j="$jobs" \
    'BEGIN { printf "| read: gpucost trace, each trace alone, %d at a time | %.3f | %.0f | %.1f |\n", j, e, b / 1e6 / e, m * 1024 / 1e6 }'
  awk -v b="$bytes" -v e="$job_s" -v m="$job_rss" -v j="$jobs" \
    'BEGIN { printf "| job: gpucost trace -j %d DIR | %.3f | %.0f | %.1f |\n", j, e, b / 1e6 / e, m * 1024 / 1e6 }'
  echo
  ratio="$(awk -v a="$job_s" -v b="$read_s" 'BEGIN { printf "%.2f", a / b }')"
  if awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r <= t) }'; then v=PASS; else v=FAIL; fi
  echo "- $v: job / read = $job_s / $read_s = $ratio (target <= $target)"
  echo "- info: the job's first line about its ranks: ${summary:-none}"
} | tee "$out/ranks_results.md"

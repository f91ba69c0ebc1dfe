#!/usr/bin/env bash
# Side by side: gpucost and its yardsticks (grep -cE, mawk, the Python baselines, HTA) on the
# same generated files, interleaved, with ratios.
#
#   tools/bench/compare.sh [GPUCOST [SIZE_MB]]
#
#   GPUCOST  the gpucost binary (default build/src/cli/gpucost); this script builds nothing:
#              cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUCOST_BUILD_TESTS=OFF
#              cmake --build build-bench && tools/bench/compare.sh build-bench/src/cli/gpucost
#   SIZE_MB  size of the kern.log, query CSV, dmon and journal JSON inputs (MB = 10^6 bytes,
#            default 300)
#
# Environment:
#   RUNS         rounds (default 5): every command of a group runs once per round, in turn
#                (gpucost, yardstick, gpucost, yardstick, ...), so a drift of the machine's speed
#                hits both sides of a pair alike
#   CPU          the core the timed commands are pinned to with taskset (default 1; 0 when the
#                machine has one core); NO_PIN=1 to not pin
#   TRACE_MB     size of the Kineto trace (default 300; its .gz copy is made in the same pass)
#   PY_MB        the slice of the query CSV / dmon the Python split baseline reads (default
#                min(SIZE_MB, 100)); gpucost is timed on the same slice for that pair (with
#                PY_MB >= SIZE_MB the baseline joins the mawk group on the whole file)
#   PY_TRACE_MB  the trace py_trace_baseline.py reads (default min(TRACE_MB, 100): json.load
#                holds ~6x the file in memory)
#   HTA_MB, HTA_RUNS  the trace HolisticTraceAnalysis reads (default min(TRACE_MB, 100)) and its
#                rounds (default 1: HTA reads 6-21 MB/s); HTA runs only when `import hta` works,
#                with PYTHONPATH=$HTA_PATH when set (../shared/anchors/hta/README.md says how to
#                bring the pinned version onto the machine; commit none of it)
#   CONFIG       the cost config for breakeven and report (default testdata/samples/a100x2.toml)
#   SEED         generator seed (default 1)
#   ONLY         a regular expression: only the groups whose input it matches ("kern.log",
#                "journal JSON", "query CSV", "dmon", "trace"; e.g. ONLY=kern for both kern.log
#                groups, one core and -j N), and only their inputs are generated
#   SMOKE=1      a check that everything runs, for CI: 5 MB inputs and a 5 MB trace, RUNS=1, no
#                Python baselines, no HTA (well under a minute). Its ratios mean nothing: at 5 MB
#                start-up dominates and CPU times have 10 ms resolution. An explicit SIZE_MB,
#                RUNS or TRACE_MB still wins over its defaults.
#
# Inputs (generated into tools/bench/out/, gitignored, when missing; seeded, shared with run.sh,
# run_trace.sh): kern-SIZEmb-sSEED.log (gen_hostlogs.py --format kernlog), query-SIZEmb-sSEED.csv
# and dmon-SIZEmb-sSEED.txt (gen_logs.py, 8 GPUs), journal-SIZEmb-sSEED.json (gen_hostlogs.py
# --format journal-json), trace-TRACE_MBmb-sSEED.pt.trace.json and .gz (gen_trace.py).
#
# Groups (each command under `/usr/bin/time -f '%e %U %S %M'`, pinned; wall time from the shell's
# microsecond clock around it; the input in the page cache):
#   kern.log      gpucost prep --tz UTC --year 2024 -q | grep -cE 'nvidia|NVRM|Xid|AER|thermal'
#                 (its count goes to a file: with stdout on /dev/null GNU grep stops at the first
#                 match, even with -c) | the same count in mawk
#   journal JSON  gpucost prep | grep -cE on the MESSAGE field | the same count in mawk
#   query CSV, dmon  gpucost prep --tz UTC -q (dmon: --start 2024-06-12T14:22:18 --interval 1)
#                 | mawk splitting the same columns; then gpucost prep and py_baseline.py on the
#                 PY_MB slice; then prep | extract | breakeven -c CONFIG | report -c CONFIG
#   trace         gpucost prep of the .json | of the .json.gz; gpucost prep | py_trace_baseline.py
#                 on the PY_TRACE_MB trace; gpucost prep | HTA's run_hta.py on the HTA_MB trace
#   every core    unpinned: gpucost -j 1 | gpucost -j $(nproc) on the kern.log (and its .gz), the
#                 journal JSON, the query CSV (and its .gz; extract, report), the dmon (extract)
#                 and the trace (and its .gz); the .gz copies are made with gzip -6 when missing
# A row's figures are medians over the rounds (peak RSS: the largest); its ratio is the median of
# the per-round ratios: yardstick wall / gpucost wall (> 1: gpucost is faster), and for extract,
# breakeven and report their CPU time (user + sys) / prep's (or / extract's). The "found" column
# is what each side found in an extra, untimed run: gpucost's events, the yardstick's lines
# (where both count rows or GPU ops, a note says when they differ).
# Targets: prep of kern.log >= 1.5x grep -cE (wall ratio); prep of query CSV and dmon
# >= 500 MB/s on one core; prep of the trace >= 1000 MB/s, of its .gz >= 600 MB/s (MB of JSON);
# extract <= 1.3x prep's CPU; report <= 1.2x extract's CPU; -j $(nproc) >= 1.7x -j 1 (wall, 2 cores)
# for one kern.log, journal JSON, query CSV, dmon and trace.
# The table, PASS/FAIL against the targets, the date, machine and commit go to stdout and
# to tools/bench/out/compare.md; every run is in tools/bench/out/compare.log. The exit status is
# 0 whatever the verdicts; 2 when a tool is missing or a command fails.
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
die() { echo "compare.sh: $*" >&2; exit 2; }
note() { echo "compare.sh: $*" >&2; }

smoke="${SMOKE:-}"
[[ "$smoke" == 0 ]] && smoke=""
gpucost="${1:-$root/build/src/cli/gpucost}"
if [[ -n "$smoke" ]]; then dflt_mb=5 dflt_trace=5 dflt_runs=1; else dflt_mb=300 dflt_trace=300 dflt_runs=5; fi
size_mb="${2:-$dflt_mb}"
runs="${RUNS:-$dflt_runs}"
trace_mb="${TRACE_MB:-$dflt_trace}"
seed="${SEED:-1}"
[[ "$size_mb" =~ ^[1-9][0-9]*$ ]] || die "SIZE_MB must be a positive integer, not '$size_mb'"
[[ "$trace_mb" =~ ^[1-9][0-9]*$ ]] || die "TRACE_MB must be a positive integer, not '$trace_mb'"
py_mb="${PY_MB:-$(( size_mb < 100 ? size_mb : 100 ))}"
py_trace_mb="${PY_TRACE_MB:-$(( trace_mb < 100 ? trace_mb : 100 ))}"
hta_mb="${HTA_MB:-$(( trace_mb < 100 ? trace_mb : 100 ))}"
hta_runs="${HTA_RUNS:-1}"
config="${CONFIG:-$root/testdata/samples/a100x2.toml}"
hta_dir="$root/../shared/anchors/hta"
out="$here/out"
[[ "$seed" =~ ^[0-9]+$ ]] || die "SEED must be a whole number, not '$seed'"
only="${ONLY:-}"
# wanted INPUT: true when the groups of INPUT run (ONLY).
wanted() { [[ -z "$only" || "$1" =~ $only ]]; }
for v in runs py_mb py_trace_mb hta_mb hta_runs; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "${v^^} must be a positive integer, not '${!v}'"
done

# ---- tools ----------------------------------------------------------------------------------------
[[ -x "$gpucost" ]] || die "no gpucost binary at $gpucost (build a Release one first, see the header of this script)"
gpucost="$(cd "$(dirname "$gpucost")" && pwd)/$(basename "$gpucost")"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (GNU time: apt-get install -y time)"
command -v python3 >/dev/null || die "python3 missing: the input generators need it"
for g in gen_logs.py gen_hostlogs.py gen_trace.py py_baseline.py py_trace_baseline.py; do
  [[ -f "$here/$g" ]] || die "generator or baseline missing: $here/$g"
done
[[ -f "$config" ]] || die "no cost config at $config (CONFIG=...)"
have_mawk=1
command -v mawk >/dev/null || { have_mawk=0; note "mawk missing (apt-get install -y mawk): no mawk rows"; }
cpu="${CPU:-1}"
(( $(nproc) > 1 )) || cpu="${CPU:-0}"
pin=()
if [[ -z "${NO_PIN:-}" ]]; then
  if command -v taskset >/dev/null && taskset -c "$cpu" true 2>/dev/null; then
    pin=(taskset -c "$cpu")
  else
    note "cannot pin to core $cpu with taskset: running unpinned"
  fi
fi
if [[ -n "${EPOCHREALTIME:-}" ]]; then
  now_us() { local t="$EPOCHREALTIME"; echo "${t/./}"; }
else
  now_us() { echo $(( $(date +%s%N) / 1000 )); }
fi

# ---- inputs ---------------------------------------------------------------------------------------
mkdir -p "$out"
load0="$(cut -d' ' -f1-3 /proc/loadavg)"
# gen FILE GENERATOR ARGS...: run the generator into FILE.part, then rename (an interrupted run
# leaves no truncated input behind).
gen() {
  local f="$1" g="$2"; shift 2
  [[ -s "$f" ]] && return 0
  note "generating $(basename "$f")"
  python3 "$here/$g" "$@" -o "$f.part" >/dev/null || die "generator failed: $g $* -o $f.part"
  mv "$f.part" "$f"
}
klog="$out/kern-${size_mb}mb-s${seed}.log"
jjson="$out/journal-${size_mb}mb-s${seed}.json"
qcsv="$out/query-${size_mb}mb-s${seed}.csv"
dmon="$out/dmon-${size_mb}mb-s${seed}.txt"
trace="$out/trace-${trace_mb}mb-s${seed}.pt.trace.json"
wanted "kern.log" && gen "$klog" gen_hostlogs.py --format kernlog --mb "$size_mb" --seed "$seed"
wanted "journal JSON" && gen "$jjson" gen_hostlogs.py --format journal-json --mb "$size_mb" --seed "$seed"
wanted "query CSV" && gen "$qcsv" gen_logs.py --format query-csv --gpus 8 --mb "$size_mb" --seed "$seed"
wanted "dmon" && gen "$dmon" gen_logs.py --format dmon --gpus 8 --mb "$size_mb" --seed "$seed"
if wanted "trace" && [[ ! -s "$trace" || ! -s "$trace.gz" ]]; then
  note "generating $(basename "$trace") and its .gz"
  python3 "$here/gen_trace.py" --mb "$trace_mb" --seed "$seed" -o "$trace.part" --gzip "$trace.gz.part" >/dev/null \
    || die "generator failed: gen_trace.py --mb $trace_mb"
  mv "$trace.part" "$trace"; mv "$trace.gz.part" "$trace.gz"
fi
# slice SRC MB: a prefix of whole lines of SRC; prints its path.
slice() {
  local src="$1" mb="$2" dst
  dst="$out/$(basename "$src").slice${mb}"
  if [[ ! -s "$dst" ]]; then
    head -c "$(( mb * 1000000 ))" "$src" | python3 -c '
import sys
data = sys.stdin.buffer.read()
sys.stdout.buffer.write(data[: data.rfind(b"\n") + 1])' > "$dst.part"
    mv "$dst.part" "$dst"
  fi
  echo "$dst"
}
# trace_of MB: the trace of that size with the same seed (the main one when MB = TRACE_MB).
trace_of() {
  local f="$out/trace-${1}mb-s${seed}.pt.trace.json"
  [[ -s "$f" ]] || gen "$f" gen_trace.py --mb "$1" --seed "$seed"
  echo "$f"
}

# ---- HTA ------------------------------------------------------------------------------------------
hta_py=(python3)
[[ -n "${HTA_PATH:-}" ]] && hta_py=(env "PYTHONPATH=$HTA_PATH${PYTHONPATH:+:$PYTHONPATH}" python3)
hta_status=""
if [[ -n "$smoke" ]]; then
  hta_status="skipped: HTA (SMOKE=1)"
elif [[ ! -f "$hta_dir/run_hta.py" ]]; then
  hta_status="skipped: HTA runner not found at $hta_dir/run_hta.py (see ../shared/anchors/hta/README.md)"
elif ! "${hta_py[@]}" -c 'import hta.trace_analysis' >/dev/null 2>&1; then
  hta_status="skipped: HTA not installed (see ../shared/anchors/hta/README.md)"
fi

# ---- measuring ------------------------------------------------------------------------------------
tfile="$(mktemp)"; efile="$(mktemp)"; trap 'rm -f "$tfile" "$efile"' EXIT
log="$out/compare.log"
{ echo "# compare.sh $(date -u +%Y-%m-%dT%H:%M:%SZ): gpucost $gpucost, runs $runs, pinned: ${pin[*]:-no}"; } > "$log"

# A group is a list of members (commands) that run in turn, round after round. Member m of group g:
declare -A m_label m_cmd m_sink m_count m_bytes m_found m_n g_work
declare -A W C M   # per run "g:m:round": wall s, user+sys CPU s, peak RSS kB
groups=0
declare -A g_unpinned
# new_group WORK [unpinned]: a group's commands are pinned to one core unless "unpinned" (-j N).
new_group() { groups=$(( groups + 1 )); m_n[$groups]=0; g_work[$groups]="$1"; g_unpinned[$groups]="${2:-}"; }
# member LABEL BYTES SINK COUNTER CMD...: add a command to the current group. BYTES: its input
# (uncompressed) for MB/s; SINK: where its stdout goes; COUNTER: events (gpucost prep's event
# lines), value (stdout is a count), lines (stdout lines), ops (GPU ops of gpucost's trace_device
# events), pyops (of py_trace_baseline.py's lines), or - (none).
member() {
  local g=$groups m="${m_n[$groups]}"
  m_label[$g:$m]="$1"; m_bytes[$g:$m]="$2"; m_sink[$g:$m]="$3"; m_count[$g:$m]="$4"; shift 4
  m_cmd[$g:$m]="$(printf '%q ' "$@")"
  m_n[$g]=$(( m + 1 ))
}
# run_group N: N rounds of the current group, then the counts (one untimed run per counter).
run_group() {
  local g=$groups n="$1" i m t0 t1 pe u s k cmd=() names=() on=("${pin[@]}")
  [[ -n "${g_unpinned[$g]}" ]] && on=()
  for (( m = 0; m < m_n[$g]; m++ )); do
    names+=("${m_label[$g:$m]}")
    echo "# group $g, member $m: ${m_label[$g:$m]}: ${m_cmd[$g:$m]}" >> "$log"
  done
  note "${g_work[$g]}: $n round(s) of $(printf '%s, ' "${names[@]}" | sed 's/, $//')"
  for (( i = 0; i < n; i++ )); do
    for (( m = 0; m < m_n[$g]; m++ )); do
      eval "cmd=(${m_cmd[$g:$m]})"
      t0="$(now_us)"
      if ! "${on[@]}" /usr/bin/time -f '%e %U %S %M' -o "$tfile" "${cmd[@]}" > "${m_sink[$g:$m]}" 2> "$efile"; then
        die "failed: ${cmd[*]}: $(grep -v '^Command exited' "$efile" | tail -n 3 | tr '\n' ' ')"
      fi
      t1="$(now_us)"
      read -r pe u s k < <(tail -n 1 "$tfile")
      W[$g:$m:$i]="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e6 }')"
      C[$g:$m:$i]="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
      M[$g:$m:$i]="$k"
      echo "${m_label[$g:$m]} | round $i | wall ${W[$g:$m:$i]} s (time %e $pe) | user $u s sys $s s | maxrss $k kB" >> "$log"
    done
  done
  for (( m = 0; m < m_n[$g]; m++ )); do
    m_found[$g:$m]="$(found "$g" "$m")"
  done
}
# found G M: run member M once, untimed, and count what it found.
found() {
  local g="$1" m="$2" cmd=()
  eval "cmd=(${m_cmd[$g:$m]})"
  case "${m_count[$g:$m]}" in
    events) echo "$({ "${cmd[@]}" 2>/dev/null || true; } | grep -c '"type":"event"' || true) events" ;;
    value) echo "$("${cmd[@]}" 2>/dev/null || true) lines" ;;
    lines) { "${cmd[@]}" 2>/dev/null || true; } | awk 'END { print NR " lines" }' ;;
    ops) { "${cmd[@]}" 2>/dev/null || true; } \
      | awk '/"kind":"trace_device"/ { if (match($0, /"ops":[0-9]+/)) n += substr($0, RSTART + 6, RLENGTH - 6) } END { print n + 0 " GPU ops" }' ;;
    pyops) { "${cmd[@]}" 2>/dev/null || true; } \
      | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^ops=/) n += substr($i, 5) } END { print n + 0 " GPU ops" }' ;;
    *) echo "" ;;
  esac
}
# median of the arguments
median() {
  printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END {
    if (NR == 0) print 0; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
# figures G M: sets f_wall f_cpu f_mbs f_rss (medians over the rounds; RSS the largest, in MB).
figures() {
  local g="$1" m="$2" i n k ws=() cs=() rss=0
  n="$(rounds_of "$g")"
  for (( i = 0; i < n; i++ )); do
    ws+=("${W[$g:$m:$i]}"); cs+=("${C[$g:$m:$i]}")
    k="${M[$g:$m:$i]}"
    (( k > rss )) && rss="$k"
  done
  f_wall="$(median "${ws[@]}")"; f_cpu="$(median "${cs[@]}")"
  f_mbs="$(awk -v b="${m_bytes[$g:$m]}" -v e="$f_wall" 'BEGIN { printf "%.0f", (e > 0 ? b / 1e6 / e : 0) }')"
  f_wall="$(printf '%.3f' "$f_wall")" f_cpu="$(printf '%.2f' "$f_cpu")"
  f_rss="$(awk -v k="$rss" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')"
}
rounds_of() { local i=0; while [[ -n "${W[$1:0:$i]:-}" ]]; do i=$(( i + 1 )); done; echo "$i"; }
# ratio G A B KIND: the median over the rounds of B / A, KIND wall or cpu. A CPU time under the
# 10 ms resolution of /usr/bin/time counts as 0.01 s.
ratio() {
  local g="$1" a="$2" b="$3" kind="$4" i n rs=() x y
  n="$(rounds_of "$g")"
  for (( i = 0; i < n; i++ )); do
    if [[ "$kind" == wall ]]; then x="${W[$g:$a:$i]}" y="${W[$g:$b:$i]}"; else x="${C[$g:$a:$i]}" y="${C[$g:$b:$i]}"; fi
    rs+=("$(awk -v x="$x" -v y="$y" 'BEGIN { if (x < 0.01) x = 0.01; if (y < 0.01) y = 0.01; printf "%.4f", y / x }')")
  done
  median "${rs[@]}"
}

# ---- rows -----------------------------------------------------------------------------------------
rows=() verdicts=() skipped=()
[[ -n "$smoke" ]] && skipped+=("skipped: the Python baselines (SMOKE=1)")
[[ -n "$only" ]] && skipped+=("skipped: the groups of inputs that ONLY='$only' does not match")
[[ -n "$hta_status" ]] && skipped+=("$hta_status")
mb_of() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
# row WORK A B KIND TARGET: a table row of the current group: member A (gpucost) against member B
# (a yardstick, a later stage, or - for none). KIND: wall (B wall / A wall) or cpu (B CPU / A CPU).
# TARGET: ratio>=X, ratio<=X, mbs>=X (A's MB/s) or - (none).
row() {
  local work="$1" a="$2" b="$3" kind="$4" target="$5" g=$groups
  local aw ac am ar bw bc bm br r="—" rtxt="—" ttxt="—" v="—" op x val what
  figures "$g" "$a"; aw="$f_wall" ac="$f_cpu" am="$f_mbs" ar="$f_rss"
  if [[ "$b" != - ]]; then
    figures "$g" "$b"; bw="$f_wall" bc="$f_cpu" bm="$f_mbs" br="$f_rss"
    r="$(ratio "$g" "$a" "$b" "$kind")"
    if [[ "$kind" == wall ]]; then rtxt="$(printf '%.2f wall' "$r")"; else rtxt="$(printf '%.2f CPU' "$r")"; fi
  fi
  if [[ "$target" != - ]]; then
    what="${target%%[<>]=*}" op="${target#"$what"}" x="${op:2}" op="${op:0:2}"
    if [[ "$what" == ratio ]]; then val="$r"; ttxt="ratio $op $x"; else val="$am"; ttxt="gpucost $op $x MB/s"; fi
    ttxt="${ttxt/>=/≥}"; ttxt="${ttxt/<=/≤}"
    if awk -v v="$val" -v x="$x" -v op="$op" 'BEGIN { exit !(op == ">=" ? v + 0 >= x + 0 : v + 0 <= x + 0) }'; then v=PASS; else v=FAIL; fi
    verdicts+=("- $v: $work, ${m_label[$g:$a]}$([[ "$b" != - ]] && echo " vs ${m_label[$g:$b]}"): $(
      if [[ "$what" == ratio ]]; then printf '%s' "$rtxt"; else printf '%s MB/s' "$am"; fi) (target: $ttxt)")
  fi
  local fa="${m_found[$g:$a]:-}" fb=""
  [[ "$b" != - ]] && fb="${m_found[$g:$b]:-}"
  local ftxt="—"
  if [[ -n "$fa" || -n "$fb" ]]; then ftxt="${fa:-—}"; [[ "$b" != - ]] && ftxt="$ftxt / ${fb:-—}"; fi
  # rows against a split of every row, or GPU ops against GPU ops: the counts must agree
  if [[ "$b" != - && "${m_count[$g:$a]}:${m_count[$g:$b]}" =~ ^(events:lines|ops:pyops)$ && "${fa%% *}" != "${fb%% *}" ]]; then
    skipped+=("note: $work: gpucost found ${fa}, ${m_label[$g:$b]} ${fb}: they should agree")
  fi
  if [[ "$b" == - ]]; then
    rows+=("| $work | $(mb_of "${m_bytes[$g:$a]}") | ${m_label[$g:$a]} | $aw | $ac | $am | $ar | — | | | | | — | $ttxt | $v | $ftxt |")
  else
    rows+=("| $work | $(mb_of "${m_bytes[$g:$a]}") | ${m_label[$g:$a]} | $aw | $ac | $am | $ar | ${m_label[$g:$b]} | $bw | $bc | $bm | $br | $rtxt | $ttxt | $v | $ftxt |")
  fi
}
bytes_of() { stat -c %s "$1"; }
warm() { cat "$@" > /dev/null; }
null=/dev/null

# ---- kern.log -------------------------------------------------------------------------------------
kern_re='nvidia|NVRM|Xid|AER|thermal'
if wanted "kern.log"; then
n="$(bytes_of "$klog")"; warm "$klog"
new_group "kern.log"
member "prep" "$n" "$null" events "$gpucost" prep --tz UTC --year 2024 -q "$klog"
member "grep -cE" "$n" "$out/grep.count" value grep -cE "$kern_re" "$klog"
(( have_mawk )) && member "mawk count" "$n" "$null" value mawk "/$kern_re/ { n++ } END { print n + 0 }" "$klog"
run_group "$runs"
row "kern.log" 0 1 wall "ratio>=1.5"
(( have_mawk )) && row "kern.log" 0 2 wall -
fi

# ---- journal JSON ---------------------------------------------------------------------------------
journal_re='"MESSAGE":"[^"]*(NVRM|nvidia|AER|temperature|Lid |sleep operation|will suspend)'
if wanted "journal JSON"; then
n="$(bytes_of "$jjson")"; warm "$jjson"
new_group "journal JSON"
member "prep" "$n" "$null" events "$gpucost" prep --tz UTC --year 2024 -q "$jjson"
member "grep -cE" "$n" "$out/grep.count" value grep -cE "$journal_re" "$jjson"
(( have_mawk )) && member "mawk count" "$n" "$null" value mawk "/$journal_re/ { n++ } END { print n + 0 }" "$jjson"
run_group "$runs"
row "journal JSON" 0 1 wall -
(( have_mawk )) && row "journal JSON" 0 2 wall -
fi

# ---- query CSV and dmon ---------------------------------------------------------------------------
for fmt in query-csv dmon; do
  # shellcheck disable=SC2016  # mawk programs
  if [[ "$fmt" == query-csv ]]; then
    f="$qcsv" work="query CSV" opts=(--tz UTC)
    mawk_prog='NR > 1 { print $1, $5 }' mawk_args=(-F', ')
  else
    f="$dmon" work="dmon" opts=(--tz UTC --start 2024-06-12T14:22:18 --interval 1)
    mawk_prog='$1 !~ /^#/ { print $1, $2 }' mawk_args=()
  fi
  wanted "$work" || continue
  n="$(bytes_of "$f")"; warm "$f"
  # speed against the yardsticks
  py=""
  if [[ -z "$smoke" ]]; then
    if (( py_mb >= size_mb )); then py="$f"; else py="$(slice "$f" "$py_mb")"; fi
  fi
  new_group "$work"
  member "prep" "$n" "$null" events "$gpucost" prep "${opts[@]}" -q "$f"
  (( have_mawk )) && member "mawk split" "$n" "$null" lines mawk "${mawk_args[@]}" "$mawk_prog" "$f"
  [[ "$py" == "$f" ]] && member "python3 split" "$n" "$null" lines python3 "$here/py_baseline.py" "$fmt" "$f"
  run_group "$runs"
  j=1
  if (( have_mawk )); then row "$work" 0 "$j" wall "mbs>=500"; j=$(( j + 1 )); else row "$work" 0 - wall "mbs>=500"; fi
  [[ "$py" == "$f" ]] && row "$work" 0 "$j" wall -
  if [[ -n "$py" && "$py" != "$f" ]]; then
    np="$(bytes_of "$py")"; warm "$py"
    new_group "$work (${py_mb} MB slice)"
    member "prep" "$np" "$null" events "$gpucost" prep "${opts[@]}" -q "$py"
    member "python3 split" "$np" "$null" lines python3 "$here/py_baseline.py" "$fmt" "$py"
    run_group "$runs"
    row "$work (${py_mb} MB slice)" 0 1 wall -
  fi
  # the cost of the answer against the cost of reading the file
  new_group "$work, the answer"
  member "prep" "$n" "$null" - "$gpucost" prep "${opts[@]}" -q "$f"
  member "extract" "$n" "$null" - "$gpucost" extract "${opts[@]}" -q -o "$out/cmp.features.json" "$f"
  member "breakeven" "$n" "$null" - "$gpucost" breakeven "${opts[@]}" -q -c "$config" -o "$out/cmp.breakeven.txt" "$f"
  member "report" "$n" "$null" - "$gpucost" report "${opts[@]}" -q -c "$config" -o "$out/cmp.report.html" "$f"
  run_group "$runs"
  row "$work" 0 1 cpu "ratio<=1.3"
  row "$work" 0 2 cpu -
  row "$work" 0 3 cpu -
  row "$work" 1 3 cpu "ratio<=1.2"
done

# ---- Kineto trace ---------------------------------------------------------------------------------
if wanted "trace"; then
n="$(bytes_of "$trace")"; warm "$trace" "$trace.gz"
new_group "trace"
member "prep .json" "$n" "$null" ops "$gpucost" prep -q "$trace"
member "prep .json.gz" "$n" "$null" ops "$gpucost" prep -q "$trace.gz"
# with PY_TRACE_MB = TRACE_MB the Python baseline reads the same trace: it joins this group
py_here=""; [[ -z "$smoke" ]] && (( py_trace_mb == trace_mb )) && py_here=1
[[ -n "$py_here" ]] && member "py_trace_baseline.py" "$n" "$null" pyops python3 "$here/py_trace_baseline.py" "$trace"
run_group "$runs"
row "trace" 0 - wall "mbs>=1000"
row "trace (.gz: $(mb_of "$(bytes_of "$trace.gz")") MB)" 1 - wall "mbs>=600"
[[ -n "$py_here" ]] && row "trace" 0 2 wall -
if [[ -z "$smoke" && -z "$py_here" ]]; then
  pt="$(trace_of "$py_trace_mb")"; np="$(bytes_of "$pt")"; warm "$pt"
  new_group "trace (${py_trace_mb} MB)"
  member "prep" "$np" "$null" ops "$gpucost" prep -q "$pt"
  member "py_trace_baseline.py" "$np" "$null" pyops python3 "$here/py_trace_baseline.py" "$pt"
  run_group "$runs"
  row "trace (${py_trace_mb} MB)" 0 1 wall -
fi
if [[ -z "$hta_status" ]]; then
  ht="$(trace_of "$hta_mb")"; nh="$(bytes_of "$ht")"; warm "$ht"
  new_group "trace (${hta_mb} MB)"
  member "prep" "$nh" "$null" - "$gpucost" prep -q "$ht"
  member "HTA (run_hta.py)" "$nh" "$out/cmp.hta.json" - "${hta_py[@]}" "$hta_dir/run_hta.py" "$ht"
  run_group "$hta_runs"
  row "trace (${hta_mb} MB)" 0 1 wall -
  hta_err="$(python3 -c 'import json, sys; print("; ".join(f"{k}: {v}" for k, v in json.load(open(sys.argv[1])).get("errors", {}).items()))' \
    "$out/cmp.hta.json" 2>/dev/null || echo "its output is not JSON: see $out/cmp.hta.json")"
  [[ -n "$hta_err" ]] && skipped+=("note: HTA raised: $hta_err")
fi
fi

# ---- every core: -j 1 against -j N, unpinned -------------------------------------------------------
# The same command on one thread and on every core (the issue's target: >= 1.7x on 2 cores for one
# large kern.log, query CSV, dmon, journal JSON and trace). Output is identical (cli.jobs-identical).
cores="$(nproc)"
if (( cores > 1 )); then
  # gz_of FILE: FILE gzip-compressed as logrotate leaves it (level 6), made once; prints its path.
  gz_of() {
    [[ -s "$1.gz" ]] || { note "compressing $(basename "$1")"; gzip -6 -c "$1" > "$1.gz.part" && mv "$1.gz.part" "$1.gz"; }
    echo "$1.gz"
  }
  # jobs_group WORK FILE TARGET CMD...: CMD -j $cores against CMD -j 1 on FILE; the ratio (-j 1's
  # wall / -j N's) is the speed-up.
  jobs_group() {
    local work="$1" f="$2" target="$3" n; shift 3
    n="$(bytes_of "$f")"; warm "$f"
    new_group "$work, -j $cores vs -j 1" unpinned
    member "$1 -j $cores" "$n" "$null" - "$gpucost" "$1" -j "$cores" "${@:2}" "$f"
    member "$1 -j 1" "$n" "$null" - "$gpucost" "$1" -j 1 "${@:2}" "$f"
    run_group "$runs"
    row "$work (-j $cores)" 0 1 wall "$target"
  }
  ratio_target="ratio>=1.7"
  if wanted "kern.log"; then
    jobs_group "kern.log" "$klog" "$ratio_target" prep --tz UTC --year 2024 -q
    jobs_group "kern.log.gz" "$(gz_of "$klog")" - prep --tz UTC --year 2024 -q
  fi
  wanted "journal JSON" && jobs_group "journal JSON" "$jjson" "$ratio_target" prep --tz UTC --year 2024 -q
  if wanted "query CSV"; then
    jobs_group "query CSV" "$qcsv" "$ratio_target" prep --tz UTC -q
    jobs_group "query CSV.gz" "$(gz_of "$qcsv")" - prep --tz UTC -q
    jobs_group "query CSV, extract" "$qcsv" - extract --tz UTC -q -o "$out/cmp.features.json"
    jobs_group "query CSV, report" "$qcsv" - report --tz UTC -q -c "$config" -o "$out/cmp.report.html"
  fi
  if wanted "dmon"; then
    jobs_group "dmon" "$dmon" "$ratio_target" prep --tz UTC --start 2024-06-12T14:22:18 --interval 1 -q
    jobs_group "dmon, extract" "$dmon" - extract --tz UTC --start 2024-06-12T14:22:18 --interval 1 -q \
      -o "$out/cmp.features.json"
  fi
  if wanted "trace"; then
    jobs_group "trace" "$trace" "$ratio_target" prep -q
    jobs_group "trace.gz" "$trace.gz" - prep -q
  fi
else
  skipped+=("skipped: -j 1 against -j N (this machine has one core)")
fi

# ---- the table ------------------------------------------------------------------------------------
head_of() { git -C "$1" rev-parse --short HEAD 2>/dev/null || echo "?"; }
cpu_model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)"
{
  echo "## compare.sh, $(date -u +%Y-%m-%d) $(date -u +%H:%M) UTC${smoke:+ (SMOKE: 5 MB inputs, ratios not meaningful)}"
  echo
  echo "- machine: $(uname -m), ${cpu_model:-unknown CPU}, $(nproc) cores; pinned: ${pin[*]:-no}; load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
  echo "- commit $(head_of "$root") (this script's tree); binary $gpucost ($("$gpucost" --version 2>&1 | head -n 1), HEAD of the tree it lies in: $(head_of "$(dirname "$gpucost")"))"
  echo "- inputs of ${size_mb} MB (trace ${trace_mb} MB), seed $seed; medians of $runs interleaved rounds$( [[ -z "$hta_status" ]] && echo ", HTA $hta_runs"); cost config $(basename "$config")"
  echo
  echo "| work | MB | gpucost | wall s | CPU s | MB/s | RSS MB | yardstick | wall s | CPU s | MB/s | RSS MB | ratio | target | verdict | found (gpucost / yardstick) |"
  echo "|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Ratio: \"wall\" = yardstick wall / gpucost wall (above 1: gpucost is faster); \"CPU\" = the right-hand command's CPU (user + sys) / the left-hand one's. Each is the median of the per-round ratios. MB/s = input bytes (uncompressed) / 10^6 / median wall; RSS = the largest peak of the rounds."
  echo
  if [[ -n "$smoke" ]]; then
    echo "Against the issue's targets (SMOKE: 5 MB inputs, start-up dominates: not meaningful):"
  else
    echo "Against the issue's targets:"
  fi
  echo
  printf '%s\n' "${verdicts[@]}"
  (( ${#skipped[@]} )) && printf -- '- %s\n' "${skipped[@]}"
} | tee "$out/compare.md"

#!/usr/bin/env bash
# Each input file is opened at most twice (pipeline::probe_inputs looks at it once, then it is
# read), counted with strace's openat trace; pipes and stdin still read in the same run.
#   open_counts.sh GPUCOST TESTDATA     exit 0 = pass, 77 = skipped (no strace, or no ptrace), else fail
set -uo pipefail
gpucost=$1
samples=$2/samples
export NO_COLOR=1 TZ=UTC
command -v strace > /dev/null || { echo "SKIP: strace is not installed"; exit 77; }
strace -o /dev/null true 2> /dev/null || { echo "SKIP: strace cannot trace here (ptrace not permitted)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

files=(faults-xid79_query.csv faults-xid79_kern.log faults-storm_dmesg.txt)
# A `prep` of several inputs looks at each ahead for its first event (the time-ordered merge);
# the look-ahead keeps its reader for the first 16 inputs, so those are opened twice too.
check() {  # check NAME FILE... -- ARGS...: runs gpucost ARGS under strace in the samples folder
  local name=$1
  shift
  local names=()
  while [ "$1" != "--" ]; do names+=("$1"); shift; done
  shift
  # LeakSanitizer cannot run under ptrace: a sanitizer build counts its opens without it.
  (cd "$samples" && ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
     strace -f -e trace=openat -o "$work/$name.trace" "$gpucost" "$@" > "$work/$name.out" 2> "$work/$name.err") ||
    fail "$name: exit $?: $(cat "$work/$name.err")"
  for f in "${names[@]}"; do
    local n
    n=$(grep -c "\"$f\"" "$work/$name.trace")
    [ "$n" -ge 1 ] || fail "$name: $f never opened"
    [ "$n" -le 2 ] || fail "$name: $f opened $n times, want at most 2: $(grep "\"$f\"" "$work/$name.trace")"
  done
}

check breakeven "${files[@]}" -- breakeven -c faults.toml "${files[@]}"
check extract "${files[@]}" -- extract "${files[@]}"
check report "${files[@]}" -- report -c faults.toml -o "$work/report.html" "${files[@]}"
check prep faults-xid79_query.csv -- prep faults-xid79_query.csv
check prep-several "${files[@]}" -- prep "${files[@]}"
trace=../trace/h100_rank3_modern.pt.trace.json  # read whole when its turn comes: no look-ahead
check prep-trace faults-xid79_query.csv "$trace" -- prep faults-xid79_query.csv "$trace"
check batch "${files[@]:0:2}" -- batch -c faults.toml --state "$work/batch-state.json" "${files[@]:0:2}"
check features worked-example.features.json -- breakeven -c worked-example.toml worked-example.features.json

# A pipe and stdin are not looked at ahead: what they hold is all read, as from the file.
(cd "$samples" && "$gpucost" breakeven -c faults.toml "${files[@]}") > "$work/direct.out" 2> /dev/null || fail "direct run"
(cd "$samples" && "$gpucost" breakeven -c faults.toml <(cat faults-xid79_query.csv) faults-xid79_kern.log - \
   < faults-storm_dmesg.txt) > "$work/piped.out" 2> /dev/null || fail "run over a pipe and stdin"
cmp -s "$work/direct.out" "$work/piped.out" || fail "pipe and stdin read differently: $(diff "$work/direct.out" "$work/piped.out")"
echo "ok"

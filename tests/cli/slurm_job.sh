#!/usr/bin/env bash
# --slurm-job without a Slurm: a stand-in sacct on PATH (tests/engines/slurm_e2e.sh runs the real
# one) answers as sacct does, so that each path of the sacct run is checked:
#   - the command and its environment (TZ=UTC, SLURM_TIME_FORMAT=%s, -j ID -P --format=...)
#   - a job read back: the window is its start and end (chosen_by slurm), the record is its own
#   - sacct not on PATH; sacct failing (slurmdbd unreachable: its stderr in the message); a job
#     sacct does not know; an id that is not a job id; a job that never started
#   slurm_job.sh GPUCOST TESTDATA
set -euo pipefail
gpucost=$(realpath "$1")
testdata=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export LC_ALL=C
fail() { echo "FAIL: slurm-job: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || { echo "SKIPPED: slurm-job: jq is not installed"; exit 77; }

mkdir bin
# The stand-in: records its arguments and environment, then answers per SACCT_MODE.
cat > bin/sacct <<'EOF'
#!/bin/bash
printf '%s\n' "$@" > "$SACCT_LOG"
printf 'TZ=%s\nSLURM_TIME_FORMAT=%s\n' "$TZ" "$SLURM_TIME_FORMAT" >> "$SACCT_LOG"
header='JobID|JobName|User|Start|End|NodeList|AllocTRES|ConsumedEnergyRaw|State|ExitCode'
case $SACCT_MODE in
  ok) echo "$header"
      echo '4242|finetune|alice|1718186400|1718187600|gpu01|billing=16,cpu=16,gres/gpu=2,node=1|1100000|COMPLETED|0:0'
      echo '4242.batch|batch||1718186400|1718187600|gpu01|cpu=16,gres/gpu=2,mem=0,node=1|1100000|COMPLETED|0:0' ;;
  unknown) echo "$header" ;;
  never) echo "$header"; echo '4242|x|alice|1718186400|1718186400|None assigned||0|CANCELLED by 0|0:0' ;;
  down) echo "sacct: error: slurm_persist_conn_open_without_init: failed to open persistent connection to host:127.0.0.1:6819: Connection refused" >&2
        echo "sacct: error: Problem talking to the database: Connection refused" >&2
        exit 1 ;;
esac
EOF
chmod +x bin/sacct
export SACCT_LOG="$work/sacct.log"
csv="$testdata/sacct/job_4242_query.csv"

# A job read back; the telemetry's local times in Berlin, sacct's in epoch seconds.
PATH="$work/bin:$PATH" SACCT_MODE=ok TZ=Europe/Berlin \
  "$gpucost" extract -q --tz Europe/Berlin --host gpu01 --slurm-job 4242 "$csv" -o job.json || fail "extract exited $?"
[ "$(cat sacct.log)" = "$(printf '%s\n' -j 4242 -P \
  --format=JobID,JobName,User,Start,End,NodeList,AllocTRES,ConsumedEnergyRaw,State,ExitCode TZ=UTC SLURM_TIME_FORMAT=%s)" ] ||
  fail "sacct was run as: $(cat sacct.log)"
jq -e '.window.chosen_by == "slurm" and .window.from == "2024-06-12T10:00:00Z" and .window.to == "2024-06-12T10:20:00Z"
       and .jobs[0].id == "4242" and .jobs[0].gpus == 2 and .jobs[0].energy_j == 1100000 and (.gpus | length) == 2' \
  job.json > /dev/null || fail "job.json: $(jq -c '{window, jobs}' job.json)"
# The same from a saved file, with prep: the job event alone when no other input is named.
PATH="$work/bin:$PATH" SACCT_MODE=ok "$gpucost" prep -q --host login01 --slurm-job 4242 > events.jsonl ||
  fail "prep --slurm-job exited $?"
[ "$(jq -s 'map(select(.kind == "job")) | length' events.jsonl)" = 1 ] || fail "prep --slurm-job: $(cat events.jsonl)"
ls "${TMPDIR:-/tmp}"/gpucost-sacct-* > /dev/null 2>&1 && fail "the sacct answer's temp folder was left behind"

# expect MODE PATTERN ARGS...: gpucost exits 2 with PATTERN in its stderr.
expect() {
  local mode=$1 pattern=$2 rc=0
  shift 2
  PATH="$work/bin:$PATH" SACCT_MODE=$mode "$gpucost" extract -q "$@" "$csv" -o none.json 2> err.txt || rc=$?
  { [ "$rc" -eq 2 ] && grep -q -- "$pattern" err.txt; } || fail "$mode $*: exit $rc: $(cat err.txt)"
}
expect down "sacct -j 4242 failed (exit status 1): sacct: error: slurm_persist_conn_open_without_init" --slurm-job 4242
grep -q "hint: sacct must reach slurmdbd" err.txt || fail "no hint for an unreachable slurmdbd: $(cat err.txt)"
expect unknown "slurm-job 999: sacct knows no such job" --slurm-job 999
expect never "Slurm job 4242 never ran (CANCELLED)" --slurm-job 4242
expect ok "'42;rm' is not a Slurm job id" --slurm-job '42;rm'
expect ok "sacct's answer cannot be read as --input-format query-csv" --slurm-job 4242 --input-format query-csv
# sacct not on PATH (a PATH of an empty folder).
mkdir empty
rc=0
PATH="$work/empty" "$gpucost" extract -q --slurm-job 4242 "$csv" 2> err.txt > /dev/null || rc=$?
{ [ "$rc" -eq 2 ] && grep -q "slurm-job: sacct is not on PATH" err.txt; } || fail "without sacct: exit $rc: $(cat err.txt)"
echo "PASS: slurm-job"

#!/usr/bin/env bash
# gpucost record with a stand-in nvidia-smi on PATH (real-shaped --query-gpu CSV) and a stand-in
# training command: the command's exit status is kept, the run folder holds the telemetry, the
# log and the metadata, and breakeven priced the run.
#   record.sh GPUCOST TESTDATA CASE        exit 0 = pass, anything else = fail with a message
set -uo pipefail
gpucost=$1
testdata=$2
case_name=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export TZ=UTC LC_ALL=C

fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir bin
# The stand-in: the header and a row per GPU every 0.2 s (the shape of testdata/query-csv/*),
# until it is stopped; it records its arguments.
cat > bin/nvidia-smi <<'SMI'
#!/bin/sh
echo "$@" > "$(dirname "$0")/smi-args.txt"
echo "timestamp, index, pci.bus_id, power.draw [W], temperature.gpu, utilization.gpu [%], utilization.memory [%], clocks.current.sm [MHz], clocks.max.sm [MHz], memory.used [MiB]"
while :; do
  now=$(date -u '+%Y/%m/%d %H:%M:%S.000')
  echo "$now, 0, 00000000:18:00.0, 301.25 W, 66, 97 %, 41 %, 1965 MHz, 1980 MHz, 60211 MiB"
  echo "$now, 1, 00000000:32:00.0, 298.50 W, 64, 95 %, 40 %, 1965 MHz, 1980 MHz, 60207 MiB"
  sleep 0.2
done
SMI
chmod +x bin/nvidia-smi
config=$testdata/samples/workstation.toml

case $case_name in
  exit-status)
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record --config "$config" --run-dir run --interval-ms 200 \
      --ledger runs.sqlite -o verdict.txt --report run.html \
      -- sh -c 'echo step 1; echo oops >&2; sleep 1.5; echo step 2; exit 3' \
      > out.txt 2> err.txt
    status=$?
    [ "$status" = 3 ] || fail "exit status $status, want the command's 3: $(cat err.txt)"
    grep -q 'step 1' out.txt && grep -q 'step 2' out.txt || fail "the command's stdout was not shown: $(cat out.txt)"
    grep -q 'oops' err.txt || fail "the command's stderr was not shown"
    grep -q 'step 2' run/train.log && grep -q oops run/train.log || fail "train.log lacks the output: $(cat run/train.log)"
    [ "$(grep -c ', 0, 00000000:18' run/telemetry.csv)" -ge 3 ] || fail "too few samples: $(cat run/telemetry.csv)"
    grep -q -- '--query-gpu=timestamp,index,pci.bus_id,power.draw' bin/smi-args.txt || fail "query: $(cat bin/smi-args.txt)"
    grep -q -- '-lms=200' bin/smi-args.txt || fail "interval: $(cat bin/smi-args.txt)"
    grep -q '"schema": "gpucost.run"' run/run.json || fail "no metadata"
    grep -q '"exit_status": 3' run/run.json || fail "metadata: $(cat run/run.json)"
    grep -q '"command": \["sh", "-c", "echo step 1;' run/run.json || fail "metadata command: $(cat run/run.json)"
    [ -s verdict.txt ] || fail "breakeven wrote no verdict: $(cat err.txt)"
    [ -s runs.sqlite ] || fail "no ledger row"
    grep -q '<section id="verdict"' run.html || fail "--report wrote no report: $(cat err.txt)"
    # The sampler was stopped: no nvidia-smi stand-in is left running.
    sleep 0.5
    pgrep -f "$work/bin/nvidia-smi" > /dev/null && fail "the sampler is still running"
    ;;
  no-nvidia-smi)
    # Without nvidia-smi: it says so, records the rest, keeps the status; breakeven reports what is missing.
    PATH="/usr/bin:/bin" "$gpucost" record --config "$config" --run-dir run -o verdict.txt -- sh -c 'echo hello; exit 0' \
      > out.txt 2> err.txt
    status=$?
    grep -q 'nvidia-smi is not on PATH' err.txt || fail "no note about nvidia-smi: $(cat err.txt)"
    [ "$status" != 0 ] || fail "exit status 0 without anything to price: $(cat err.txt)"
    grep -q hello run/train.log || fail "no training log"
    grep -q '"nvidia_smi": null' run/run.json || fail "metadata: $(cat run/run.json)"
    ;;
  sigterm)
    # SIGTERM sent to gpucost reaches the command; gpucost exits with the command's status.
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record --config "$config" --run-dir run --interval-ms 200 \
      -o verdict.txt -- sh -c 'trap "echo got-term; exit 143" TERM; echo ready; while :; do sleep 0.1; done' \
      > out.txt 2> err.txt &
    pid=$!
    for _ in $(seq 50); do grep -q ready out.txt 2> /dev/null && break; sleep 0.1; done
    sleep 0.5
    kill -TERM "$pid"
    wait "$pid"
    status=$?
    [ "$status" = 143 ] || fail "exit status $status, want 143: $(cat err.txt)"
    grep -q got-term run/train.log || fail "the command did not get SIGTERM: $(cat run/train.log)"
    grep -q '"exit_status": 143' run/run.json || fail "metadata: $(cat run/run.json)"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok: $case_name"

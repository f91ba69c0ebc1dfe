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
# The stand-in, shaped like the real one: a pause (the driver's start-up), the header unless
# --format has noheader, then a row per GPU (the shape of testdata/query-csv/*, local time to the
# millisecond); once, or every 0.2 s with -lms/-l until it is stopped. It appends its arguments,
# a line per call, to bin/smi-args.txt.
cat > bin/nvidia-smi <<'SMI'
#!/bin/sh
echo "$@" >> "$(dirname "$0")/smi-args.txt"
if [ "$1" = pmon ]; then  # pmon -s um -o DT: the header pair, then a row per GPU and process each second
  echo "#Date       Time        gpu         pid   type     fb     sm    mem    enc    dec    jpg    ofa    command "
  echo "#YYYYMMDD   HH:MM:SS    Idx           #    C/G     MB      %      %      %      %      %      %    name "
  while :; do
    now=$(date '+%Y%m%d   %H:%M:%S')
    echo " $now      0        4242     C  60000     95     41      -      -      -      -    python           "
    echo " $now      1        4242     C  60000     93     40      -      -      -      -    python           "
    sleep 1
  done
fi
loop=0
header=1
for a in "$@"; do
  case $a in
    -l|-l=*|-lms|-lms=*) loop=1 ;;
    --format=*noheader*) header=0 ;;
  esac
done
sleep 0.2
[ $header = 1 ] && echo "timestamp, index, pci.bus_id, power.draw [W], temperature.gpu, utilization.gpu [%], utilization.memory [%], clocks.current.sm [MHz], clocks.max.sm [MHz], memory.used [MiB]"
while :; do
  now=$(date '+%Y/%m/%d %H:%M:%S.%3N')
  echo "$now, 0, 00000000:18:00.0, 301.25 W, 66, 97 %, 41 %, 1965 MHz, 1980 MHz, 60211 MiB"
  echo "$now, 1, 00000000:32:00.0, 298.50 W, 64, 95 %, 40 %, 1965 MHz, 1980 MHz, 60207 MiB"
  [ $loop = 1 ] || exit 0
  sleep 0.2
done
SMI
chmod +x bin/nvidia-smi
config=$testdata/samples/workstation.toml

case $case_name in
  exit-status)
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record --config "$config" --run-dir run --interval-ms 200 \
      --ledger runs.sqlite -o verdict.txt --report run.html --by user \
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
    # pmon beside it, once a second (its shortest -d), and breakeven --by splits the run with it.
    grep -q -- '^pmon -s um -o DT -d 1$' bin/smi-args.txt || fail "pmon: $(cat bin/smi-args.txt)"
    grep -q ' 4242 ' run/pmon.txt || fail "no pmon rows: $(cat run/pmon.txt)"
    "$gpucost" breakeven --config "$config" --by process run/telemetry.csv run/pmon.txt > by.txt 2>> err.txt ||
      fail "breakeven --by: $(cat err.txt)"
    grep -q '^cost by user' verdict.txt || fail "record --by user split nothing: $(cat verdict.txt)"
    grep -q '^cost by process' by.txt && grep -q ' 4242 python ' by.txt || fail "no split by process: $(cat by.txt)"
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
  same-second)
    # Default run folders are never shared: a dated name already taken (here by a finished run, for
    # every second this case may last, and by a folder without run.json: a run still going) gets
    # -2, -3, ...; every command runs, in turn or at the same time.
    now=$(date +%s)
    for s in $(seq -2 30); do
      d=gpucost-run-$(date -d "@$((now + s))" +%Y%m%d-%H%M%S)
      mkdir "$d"
      echo '{}' > "$d/run.json"
      mkdir "$d-2"
    done
    for i in 1 2 3; do
      PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c "$config" -o "verdict$i.txt" \
        -- sh -c "echo run$i >> ran.txt" > /dev/null 2> "err$i.txt"
      status=$?
      [ "$status" = 0 ] || fail "run $i: exit status $status: $(cat "err$i.txt")"
    done
    for i in 4 5 6; do
      PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c "$config" -o "verdict$i.txt" \
        -- sh -c "echo run$i >> ran.txt" > /dev/null 2> "err$i.txt" &
    done
    for i in 4 5 6; do
      wait -n || fail "a concurrent run failed: $(cat err4.txt err5.txt err6.txt)"
    done
    [ "$(sort ran.txt | tr '\n' ' ')" = "run1 run2 run3 run4 run5 run6 " ] || fail "commands run: $(cat ran.txt)"
    runs=$(ls -d gpucost-run-*-[3-9]/run.json 2> /dev/null | wc -l)
    [ "$runs" = 6 ] || fail "want 6 new run folders numbered -3 and up, got $runs: $(ls -d gpucost-run-*-[0-9]*)"
    for f in gpucost-run-*-[3-9]; do
      [ -s "$f/telemetry.csv" ] || fail "$f: no telemetry"
    done
    find gpucost-run-*-2 -mindepth 1 | grep -q . && fail "a run went into a folder without run.json: $(find gpucost-run-*-2)"
    ;;
  run-dir-taken)
    # --run-dir naming a folder that holds a run: refused, saying that the command was not run.
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c "$config" --run-dir run -o verdict.txt \
      -- sh -c 'echo first >> ran.txt; sleep 0.6' > /dev/null 2> err1.txt || fail "first run: $(cat err1.txt)"
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c "$config" --run-dir run -o verdict.txt \
      -- sh -c 'echo second >> ran.txt' > /dev/null 2> err.txt
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, want 2: $(cat err.txt)"
    [ "$(cat ran.txt)" = first ] || fail "ran: $(cat ran.txt)"
    grep -q 'gpucost: error: run: .*already holds a run.*the command was not run' err.txt || fail "message: $(cat err.txt)"
    grep -q 'hint: .*--run-dir' err.txt || fail "hint: $(cat err.txt)"
    ;;
  bad-config)
    # A config error is found before the command runs: a typo must not cost a training run.
    printf 'currency = "EUR"\n[electricity]\nprice_per_kwh = 0.3\n[local]\nhardware_prize = 3000\n' > bad.toml
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c bad.toml --run-dir run \
      -- sh -c 'echo ran >> ran.txt' > /dev/null 2> err.txt
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, want 2: $(cat err.txt)"
    [ ! -e ran.txt ] || fail "the command ran despite the bad config"
    [ ! -e run ] || fail "a run folder was made: $(ls run)"
    grep -q "unknown key 'local.hardware_prize'.*the command was not run" err.txt || fail "message: $(cat err.txt)"
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c bad.toml --cloud no-such-offer --run-dir run \
      -- sh -c 'echo ran >> ran.txt' > /dev/null 2> err.txt
    [ $? = 2 ] && [ ! -e ran.txt ] || fail "a bad --cloud still ran the command: $(cat err.txt)"
    ;;
  too-short)
    # A command that ends before the sampler's first row: the samples taken at its start and at its
    # exit span the run, which is priced.
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -c "$config" --run-dir run -o verdict.txt -- true \
      > out.txt 2> err.txt
    status=$?
    [ "$status" = 0 ] || fail "exit status $status, want 0: $(cat err.txt)"
    grep -q 'nothing .* to price' err.txt && fail "nothing priced: $(cat err.txt)"
    [ "$(grep -c ', 0, 00000000:18' run/telemetry.csv)" -ge 2 ] || fail "want 2 samples or more: $(cat run/telemetry.csv)"
    [ "$(grep -c '^timestamp' run/telemetry.csv)" = 1 ] || fail "one header: $(cat run/telemetry.csv)"
    [ "$(grep -v -- '-l' bin/smi-args.txt | grep -vc '^pmon ')" = 2 ] || fail "want a sample at the start and at the exit: $(cat bin/smi-args.txt)"
    grep -q '^job ' verdict.txt || fail "no verdict: $(cat verdict.txt err.txt)"
    ;;
  fail-above)
    # The command's status when it failed; --fail-above's 3 only when it succeeded.
    above=(-c "$config" --set local.hardware_price=50000000 --set cloud.cold_start_s=0)
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q "${above[@]}" --fail-above --run-dir run1 -o v.txt -- sleep 0.6 2> err.txt
    status=$?
    [ "$status" = 3 ] || fail "succeeded, above the line: exit status $status, want 3: $(cat err.txt)"
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q "${above[@]}" --fail-above --run-dir run2 -o v.txt -- sh -c 'sleep 0.6; exit 5' 2> err.txt
    status=$?
    [ "$status" = 5 ] || fail "failed (5), above the line: exit status $status, want 5: $(cat err.txt)"
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q "${above[@]}" --run-dir run3 -o v.txt -- sleep 0.6 2> err.txt
    status=$?
    [ "$status" = 0 ] || fail "succeeded, above the line, no --fail-above: exit status $status, want 0: $(cat err.txt)"
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c "$config" --fail-above --run-dir run4 -o v.txt -- sleep 0.6 2> err.txt
    status=$?
    [ "$status" = 0 ] || fail "succeeded, below the line: exit status $status, want 0: $(cat err.txt)"
    "$gpucost" record --help > help.txt
    footer=$(sed -n '/^Exit status/,$p' help.txt)
    grep -q "the command's" <<< "$footer" || fail "the footer says nothing of the command's status: $footer"
    grep -q -- '3 .*--fail-above' <<< "$footer" || fail "the footer says nothing of --fail-above: $footer"
    ;;
  texts)
    # What record prints for people: times to the millisecond at most, a training log without
    # times placed at the run's start (no "give --start"), nothing said twice.
    head -30 "$testdata/trainlog/lightning_epoch_bars.log" > train-out.txt
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -c "$config" --run-dir run --interval-ms 200 -o verdict.txt \
      --report run.html -- sh -c "sleep 0.5; cat train-out.txt" > out.txt 2> err.txt
    status=$?
    [ "$status" = 0 ] || fail "exit status $status: $(cat err.txt)"
    grep -q 'give --start' err.txt && fail "asks for --start: $(cat err.txt)"
    grep -Eq '[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{4,}' err.txt verdict.txt && fail "times finer than ms: $(cat err.txt verdict.txt)"
    grep -Eq 'Written by [^<]*[0-9]{2}:[0-9]{2}:[0-9]{2}Z by gpucost record' run.html \
      || fail "footer: $(grep -o 'Written by[^<]*' run.html)"
    dup=$(grep '^gpucost: ' err.txt | sort | uniq -d)
    [ -z "$dup" ] || fail "said twice: $dup"
    grep -q '"exit_status": 0' run/run.json || fail "metadata: $(cat run/run.json)"
    ;;
  gpu-handles)
    # record scans --proc-root's tree (a fixture: deterministic) before the command, every interval
    # and after it: the tree's 6 holders (8 process-GPU pairs) are `held` at the first scan and
    # `still_held` at the last, nothing in between since the tree does not change; the stream is
    # priced beside the telemetry, and prep and extract read it without a malformed line.
    tree=$testdata/proc-trees/basic
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -c "$config" --run-dir run --interval-ms 200 \
      --proc-root "$tree" -o verdict.txt -- sleep 1 > out.txt 2> err.txt
    status=$?
    [ "$status" = 0 ] || fail "exit status $status: $(cat err.txt)"
    f=run/gpu-handles.jsonl
    head -1 "$f" | grep -q '"schema":"gpucost.events"' || fail "no header: $(head -1 "$f")"
    [ "$(grep -c '"kind":"gpu_handle"' "$f")" = 16 ] || fail "want 16 events: $(cat "$f")"
    [ "$(grep -c '"state":"held"' "$f")" = 8 ] || fail "want 8 held: $(cat "$f")"
    [ "$(grep -c '"state":"still_held"' "$f")" = 8 ] || fail "want 8 still_held: $(cat "$f")"
    grep -q '"state":"released"' "$f" && fail "released, but the tree did not change: $(cat "$f")"
    grep '"state":"held"' "$f" | grep '"gpu":0,' | grep -q '"source":"procs",.*"pid":1234,.*"uid":1000,"user":"alice","comm":"python","command":"python train.py --epochs 3","devices":"/dev/nvidia0,/dev/nvidia1,/dev/nvidiactl,/dev/nvidia-uvm","gpus":"0,1","start_ns":1718193600500000000,' \
      || fail "1234 on GPU 0: $(grep '"pid":1234' "$f")"
    grep -q '"role"' "$f" && fail "a role for a fixture's pids: $(cat "$f")"
    tail -1 "$f" | grep -q '"type":"summary".*scans of .*proc-trees/basic/proc' || fail "summary: $(tail -1 "$f")"
    grep -q 'note: record: 1 of 10 processes could not be read at one scan' err.txt || fail "no note of the unreadable: $(cat err.txt)"
    grep -qi 'malformed' err.txt && fail "malformed lines: $(cat err.txt)"
    grep -q '^job ' verdict.txt || fail "no verdict: $(cat verdict.txt err.txt)"
    "$gpucost" prep "$f" > prepped.jsonl 2> prep-err.txt || fail "prep: $(cat prep-err.txt)"
    [ "$(grep -c '"kind":"gpu_handle"' prepped.jsonl)" = 16 ] || fail "prep did not pass them through: $(cat prepped.jsonl)"
    [ -s prep-err.txt ] && fail "prep warned: $(cat prep-err.txt)"
    "$gpucost" extract run/telemetry.csv "$f" -o features.json 2> extract-err.txt || fail "extract: $(cat extract-err.txt)"
    grep -qi 'malformed' extract-err.txt && fail "extract: $(cat extract-err.txt)"
    # A bad --device-pattern stops record before the command runs.
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -q -c "$config" --run-dir run2 --device-pattern '(' \
      -- sh -c 'echo ran >> ran.txt' > /dev/null 2> err.txt
    [ $? = 2 ] && [ ! -e ran.txt ] || fail "a bad --device-pattern still ran the command: $(cat err.txt)"
    grep -q "device-pattern '(': .*the command was not run" err.txt || fail "message: $(cat err.txt)"
    ;;
  gpu-handles-live)
    # On this machine's /proc, with --device-pattern naming a stand-in device file: a process
    # holding it from before the run is `other` (held at the first scan, still held at the end);
    # the command and its child hold it too (`command`), and are released once they ended.
    mkdir dev
    : > dev/nvidia0
    sleep 60 3< dev/nvidia0 &
    other=$!
    trap 'kill "$other" 2> /dev/null; rm -rf "$work"' EXIT
    PATH="$work/bin:/usr/bin:/bin" "$gpucost" record -c "$config" --run-dir run --interval-ms 200 \
      --device-pattern "^$work/dev/" -o verdict.txt -- sh -c "exec 3< $work/dev/nvidia0; sleep 1; true" > out.txt 2> err.txt
    status=$?
    [ "$status" = 0 ] || fail "exit status $status: $(cat err.txt)"
    f=run/gpu-handles.jsonl
    grep -q "\"gpu\":0,\"kind\":\"gpu_handle\",\"pid\":$other,\"state\":\"held\",.*\"command\":\"sleep 60\",\"devices\":\"$work/dev/nvidia0\",\"gpus\":\"0\",.*\"role\":\"other\"" "$f" \
      || fail "the other holder: $(cat "$f")"
    grep -q "\"pid\":$other,\"state\":\"still_held\"" "$f" || fail "the other holder at the end: $(cat "$f")"
    grep '"state":"held"' "$f" | grep '"role":"command"' | grep -q '"command":"sh -c exec 3<' || fail "the command: $(cat "$f")"
    grep '"state":"held"' "$f" | grep '"role":"command"' | grep -q '"command":"sleep 1"' || fail "the command's child: $(cat "$f")"
    [ "$(grep '"state":"released"' "$f" | grep -c '"role":"command"')" = 2 ] || fail "want the command's 2 released: $(cat "$f")"
    grep '"role":"command"' "$f" | grep -q '"still_held"' && fail "the command still held after its end: $(cat "$f")"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok: $case_name"

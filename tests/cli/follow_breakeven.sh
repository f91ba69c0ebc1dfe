#!/usr/bin/env bash
# breakeven --follow (docs/live.md): a query CSV and a training log written while it runs. The
# textfile is rewritten each period (its update time moves, gpucost_up 1, the job's wall time
# grows) and passes promtool; the training log's end ends the run by itself with exit 0 and one
# ledger row; SIGTERM ends a second run within a second with exit 0; with nothing to price yet
# the textfile says gpucost_up 0; SIGHUP re-reads the config; extract --follow rewrites its
# document each period.
#   follow_breakeven.sh GPUCOST TESTDATA     exit 0 = pass, else fail
set -uo pipefail
gpucost=$1
config=$2/samples/workstation.toml
export NO_COLOR=1 TZ=UTC GPUCOST_FOLLOW_POLL_MS=100
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
metric() { awk -v m="$1" '$1 ~ "^"m"[{ ]" { print $2 }' "$work/p.prom" 2> /dev/null | head -n 1; }

now=$(date -u +%s)
stamp() { date -u -d "@$1" '+%Y/%m/%d %H:%M:%S.000'; }
row() { printf '%s, 0, NVIDIA GeForce RTX 4090, %d.00 W, %d %%\n' "$(stamp "$1")" $((250 + $1 % 50)) 90; }
echo 'timestamp, index, name, power.draw [W], utilization.gpu [%]' > "$work/q.csv"
for i in $(seq 0 19); do row $((now - 200 + i * 5)) >> "$work/q.csv"; done
printf '%s - INFO - transformers.trainer - ***** Running training *****\n' \
  "$(date -u -d "@$((now - 200))" '+%m/%d/%Y %H:%M:%S')" > "$work/train.log"

# 1. No sample yet: gpucost_up 0, then SIGTERM.
"$gpucost" breakeven --follow --every 1s -c "$config" --host ws --prom "$work/p.prom" -o "$work/none.txt" \
  "$work/absent-*.csv" 2> "$work/none.err" &
pid=$!
sleep 1
[ "$(metric gpucost_up)" = 0 ] || fail "no sample yet, but gpucost_up is '$(metric gpucost_up)': $(cat "$work/none.err")"
kill -TERM "$pid"; wait "$pid"; pid=
rm -f "$work/p.prom"

# 2. A live job: updates each second, ended by the training log.
"$gpucost" breakeven --follow --every 1s -c "$config" --host ws --prom "$work/p.prom" --ledger "$work/l.db" \
  --json -o "$work/out.json" "$work/q.csv" "$work/train.log" 2> "$work/live.err" &
pid=$!
sleep 1.2
first_update=$(metric gpucost_last_update_timestamp_seconds)
first_wall=$(metric gpucost_job_wall_seconds)
[ "$(metric gpucost_up)" = 1 ] || fail "gpucost_up is not 1 after the first update: $(cat "$work/live.err")"
for i in $(seq 20 39); do row $((now - 200 + i * 5)) >> "$work/q.csv"; sleep 0.07; done
sleep 1.2
second_update=$(metric gpucost_last_update_timestamp_seconds)
second_wall=$(metric gpucost_job_wall_seconds)
awk -v a="$first_update" -v b="$second_update" 'BEGIN { exit !(b > a) }' ||
  fail "the textfile was not rewritten: update time $first_update then $second_update"
awk -v a="$first_wall" -v b="$second_wall" 'BEGIN { exit !(b > a) }' ||
  fail "the job's wall time did not grow with the rows: $first_wall s then $second_wall s"
if command -v promtool > /dev/null; then
  promtool check metrics < "$work/p.prom" > "$work/promtool.txt" 2>&1 || fail "promtool: $(cat "$work/promtool.txt")"
else
  echo "note: promtool is not installed: the textfile's syntax is not checked"
fi
{
  printf '%s - INFO - transformers.trainer - Saving model checkpoint to out\n' \
    "$(date -u -d "@$((now - 5))" '+%m/%d/%Y %H:%M:%S')"
  echo 'Training completed. Do not forget to share your model on huggingface.co/models =)'
} >> "$work/train.log"
for _ in $(seq 1 40); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
kill -0 "$pid" 2> /dev/null && fail "the training log's end did not end the run within 4 s"
wait "$pid"
status=$?
pid=
[ "$status" -eq 0 ] || fail "exit $status at the training log's end: $(cat "$work/live.err")"
runs=$("$gpucost" history --ledger "$work/l.db" --json | grep -o '"run_id"' | wc -l)
[ "$runs" -eq 1 ] || fail "$runs ledger rows, not one: the ledger is written when the window closes"
grep -q '"energy"' "$work/out.json" || fail "-o holds no breakeven JSON"

# 3. SIGHUP re-reads the config (a dearer kWh prices the next update higher); SIGTERM ends the
#    run within a second, exit 0, the last update written.
cp "$config" "$work/costs.toml"
"$gpucost" breakeven --follow --every 1s -c "$work/costs.toml" --host ws --prom "$work/p3.prom" "$work/q.csv" \
  > /dev/null 2> "$work/term.err" &
pid=$!
sleep 1.2
electricity() { awk '$1 ~ /^gpucost_local_cost_component[{].*component="electricity"/ { print $2 }' "$work/p3.prom"; }
cheap=$(electricity)
sed -i 's/^price_per_kwh = 0.32 /price_per_kwh = 0.64 /' "$work/costs.toml"
kill -HUP "$pid"
sleep 1.5
dear=$(electricity)
awk -v a="$cheap" -v b="$dear" 'BEGIN { exit !(b > 1.9 * a) }' ||
  fail "SIGHUP did not reload the config: electricity $cheap then $dear EUR"
grep -q 'SIGHUP: config reloaded' "$work/term.err" || fail "no note of the reload: $(cat "$work/term.err")"
start=$(date +%s%N)
kill -TERM "$pid"
wait "$pid"
status=$?
pid=
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[ "$status" -eq 0 ] || fail "exit $status after SIGTERM: $(cat "$work/term.err")"
[ "$elapsed_ms" -lt 1000 ] || fail "SIGTERM took $elapsed_ms ms"
grep -q '^gpucost_up{host="ws"} 1' "$work/p3.prom" || fail "no last update after SIGTERM"
# 4. extract --follow: the features document rewritten each period.
wall() { grep -o '"wall_s": {"id": "F001", "value": [0-9.]*' "$work/f.json" | grep -o '[0-9.]*$'; }
"$gpucost" extract --follow --every 1s --host ws -o "$work/f.json" "$work/q.csv" 2> "$work/extract.err" &
pid=$!
sleep 1.2
extract_first=$(wall)
for i in $(seq 40 45); do row $((now - 200 + i * 5)) >> "$work/q.csv"; done
sleep 1.3
extract_second=$(wall)
kill -TERM "$pid"
wait "$pid"
status=$?
pid=
[ "$status" -eq 0 ] || fail "extract --follow: exit $status after SIGTERM: $(cat "$work/extract.err")"
awk -v a="$extract_first" -v b="$extract_second" 'BEGIN { exit !(b > a) }' ||
  fail "extract --follow did not rewrite -o: wall_s $extract_first then $extract_second"

echo "PASS: textfile rewritten each second (wall $first_wall -> $second_wall s), ended by the training log with one ledger row, SIGTERM in $elapsed_ms ms"

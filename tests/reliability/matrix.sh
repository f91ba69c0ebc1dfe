#!/usr/bin/env bash
# The bad inputs (docs/reliability.md) that a golden case cannot express: generated
# inputs, closed pipes, file-size limits, files that change while they are read.
#   matrix.sh GPUCOST CASE
# Exit 0 = pass, 77 = skipped (CTest SKIP_RETURN_CODE), anything else = fail with a message.
set -uo pipefail
gpucost=$1
case_name=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export TZ=UTC LC_ALL=C

header='# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk 
# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz '
row='    0    412     58     61     97     38      0      0      0      0   2619   1755 '

fail() { echo "FAIL: $*" >&2; exit 1; }

# A dmon log of n rows.
make_dmon() {
  { echo "$header"; yes "$row" | head -n "$1"; } > "$2"
}

# The summary's count of `key` for the first input.
count() { grep -o "\"$1\":[0-9]*" "$2" | head -1 | cut -d: -f2; }

case $case_name in
  stdout-closed)
    # `gpucost prep big.log | head -1`: quiet, status 0 or 141 (SIGPIPE), nothing on stderr.
    make_dmon 400000 big.txt
    "$gpucost" prep -q --start 2024-06-12T14:00:00Z big.txt 2> err.txt | head -1 > first.txt
    status=${PIPESTATUS[0]}
    [ "$status" = 0 ] || [ "$status" = 141 ] || fail "exit status $status, expected 0 or 141"
    [ ! -s err.txt ] || fail "stderr not empty: $(head -3 err.txt)"
    grep -q '"schema":"gpucost.events"' first.txt || fail "the first line is not the header"
    ;;
  full-disk)
    # -o past a file-size limit: exit 2, the temporary file removed, the old output intact.
    make_dmon 200000 big.txt
    echo "OLD OUTPUT" > out.jsonl
    ( ulimit -f 64; "$gpucost" prep -q --start 2024-06-12T14:00:00Z big.txt -o out.jsonl 2> err.txt )
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, expected 2 ($(cat err.txt))"
    grep -q "write failed" err.txt || fail "no 'write failed' error: $(cat err.txt)"
    [ "$(cat out.jsonl)" = "OLD OUTPUT" ] || fail "the old output was changed"
    ls out.jsonl.tmp.* > /dev/null 2>&1 && fail "a temporary file was left behind"
    [ "$(wc -l < err.txt)" -le 2 ] || fail "more than one error line and a hint: $(cat err.txt)"
    ;;
  line-64mb)
    # One 64 MiB line between two good rows: malformed with its length; the rows around it kept.
    { echo "$header"; echo "$row"; head -c 67108864 /dev/zero | tr '\0' '7'; echo; echo "$row"; } > long.txt
    "$gpucost" prep --start 2024-06-12T14:00:00Z long.txt > out.jsonl 2> err.txt
    status=$?
    [ "$status" = 0 ] || fail "exit status $status: $(head -3 err.txt)"
    [ "$(count malformed out.jsonl)" = 1 ] || fail "malformed: $(count malformed out.jsonl), expected 1"
    [ "$(count events out.jsonl)" = 2 ] || fail "events: $(count events out.jsonl), expected 2"
    grep -q "line too long (67108864 bytes)" err.txt || fail "the long line is not reported with its length"
    [ "$(stat -c %s err.txt)" -lt 4096 ] || fail "stderr echoes the long line"
    if [ -x /usr/bin/time ] && [ -z "${GPUCOST_SANITIZED:-}" ]; then
      /usr/bin/time -f '%M' -o rss.txt "$gpucost" prep -q --start 2024-06-12T14:00:00Z long.txt -o /dev/null
      rss_kb=$(tail -1 rss.txt)
      [ "$rss_kb" -lt 40000 ] || fail "peak RSS ${rss_kb} KB for a 64 MiB line (bounded: < 40 MB)"
    fi
    ;;
  no-read-permission)
    echo "$header" > locked.txt
    chmod 000 locked.txt
    as_user=()
    if cat locked.txt > /dev/null 2>&1; then
      # root reads anything: run gpucost as nobody when setpriv can drop to it.
      chmod 755 "$work"
      if command -v setpriv > /dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups "$gpucost" --version > /dev/null 2>&1; then
        as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
      else
        echo "SKIPPED: running as root and cannot drop to nobody (setpriv): the case cannot be checked"
        exit 77
      fi
    fi
    "${as_user[@]}" "$gpucost" prep locked.txt > out.txt 2> err.txt
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, expected 2"
    grep -q "Permission denied" err.txt || fail "no 'Permission denied': $(cat err.txt)"
    [ ! -s out.txt ] || fail "output written before the error"
    ;;
  grows-while-read)
    # A writer appends rows while gpucost reads: whatever it saw is accounted for.
    make_dmon 200000 live.txt
    ( for _ in $(seq 1 50); do yes "$row" | head -n 2000 >> live.txt; done ) &
    writer=$!
    "$gpucost" prep --start 2024-06-12T14:00:00Z live.txt > out.jsonl 2> err.txt
    status=$?
    wait "$writer"
    [ "$status" = 0 ] || fail "exit status $status: $(head -3 err.txt)"
    lines=$(count lines out.jsonl); ev=$(count event_lines out.jsonl)
    ign=$(count ignored out.jsonl); bad=$(count malformed out.jsonl)
    [ "$lines" = $((ev + ign + bad)) ] || fail "lines $lines != $ev + $ign + $bad"
    [ "$lines" -ge 200002 ] || fail "read fewer lines ($lines) than the file had at the start"
    ;;
  shrinks-while-read)
    # The file is cut while gpucost reads it: no crash, every line read is accounted for.
    make_dmon 600000 cut.txt
    ( sleep 0.05; truncate -s 1000000 cut.txt ) &
    cutter=$!
    "$gpucost" prep --start 2024-06-12T14:00:00Z cut.txt > out.jsonl 2> err.txt
    status=$?
    wait "$cutter"
    [ "$status" = 0 ] || fail "exit status $status: $(head -3 err.txt)"
    lines=$(count lines out.jsonl); ev=$(count event_lines out.jsonl)
    ign=$(count ignored out.jsonl); bad=$(count malformed out.jsonl)
    [ "$lines" = $((ev + ign + bad)) ] || fail "lines $lines != $ev + $ign + $bad"
    ;;
  pipe-inputs)
    # Inputs that can be read once: a named pipe and the shell's <(...) (a /dev/fd path). Every
    # stage reads them once (no look ahead that would eat the data and then wait for more), and
    # gives what the same file gives; batch refuses them, as it does stdin.
    make_dmon 5000 d.txt
    opts=(-q --tz UTC --start 2024-06-12T14:00:00Z)
    "$gpucost" prep "${opts[@]}" d.txt -o file.jsonl || fail "prep of the file"
    mkfifo fifo
    { cat d.txt > fifo & } 2>/dev/null
    timeout 20 "$gpucost" prep "${opts[@]}" fifo -o fifo.jsonl || fail "prep of a named pipe: exit $?"
    cmp -s <(grep -v '"summary"' file.jsonl) <(grep -v '"summary"' fifo.jsonl) || fail "a named pipe gives other events"
    timeout 20 "$gpucost" prep "${opts[@]}" <(gzip -c d.txt) -o subst.jsonl || fail "prep of <(gzip -c ...): exit $?"
    cmp -s <(grep -v '"summary"' file.jsonl) <(grep -v '"summary"' subst.jsonl) || fail "<(...) gives other events"
    "$gpucost" extract "${opts[@]}" d.txt -o file.json || fail "extract of the file"
    timeout 20 "$gpucost" extract "${opts[@]}" <(cat d.txt) -o subst.json || fail "extract of <(...): exit $?"
    cmp -s file.json subst.json || fail "extract of <(...) differs from extract of the file"
    timeout 20 "$gpucost" extract "${opts[@]}" <(cat d.txt) <(head -c 0 d.txt) -o two.json || fail "extract of two <(...): exit $?"
    printf '[electricity]\nprice_per_kwh = 0.30\n[local]\nhardware_price = 2000\nlifetime_years = 4\nuse_hours_per_year = 2000\n[cloud]\nrate_per_hour = 1.2\n' > c.toml
    "$gpucost" breakeven -q --config c.toml d.txt --start 2024-06-12T14:00:00Z > be-file.txt 2> be.err ||
      fail "breakeven of the file: $(head -2 be.err)"
    timeout 20 "$gpucost" breakeven -q --config c.toml <(cat d.txt) --start 2024-06-12T14:00:00Z > be.txt 2> be.err ||
      fail "breakeven of <(...): exit $?: $(head -2 be.err)"
    cmp -s <(sed 1d be-file.txt) <(sed 1d be.txt) || fail "breakeven of <(...) differs from breakeven of the file"
    rc=0
    timeout 20 "$gpucost" batch --config c.toml --state st.json <(cat d.txt) 2> batch.err || rc=$?
    [ "$rc" = 2 ] && grep -q "is a pipe or a device, it cannot be resumed" batch.err ||
      fail "batch of <(...): exit $rc: $(head -2 batch.err)"
    ;;
  many-rotations)
    # 1500 hourly rotations (disjoint in time) read under `ulimit -n 64`: the merge opens each
    # log when it reaches its first event and closes it when done, so this works where one
    # open file per input would not; every event is kept, in time order.
    mkdir rot
    awk 'BEGIN { for (h = 0; h < 1500; h++) {
      f = sprintf("rot/gpu-%05d.csv", 1499 - h)   # names in reverse time order
      print "timestamp, index, power.draw [W], utilization.gpu [%]" > f
      d = int(h / 24)   # 28-day months: every date valid
      for (m = 0; m < 3; m++) printf "2024/%02d/%02d %02d:%02d:00.000, 0, %d.00 W, %d %%\n", 1 + int(d / 28), 1 + d % 28, h % 24, m * 20, 100 + h % 50, h % 100 > f
      close(f) } }'
    ( ulimit -n 64
      "$gpucost" prep -q --tz UTC 'rot/*.csv' -o rot.jsonl || fail "prep of 1500 rotations under ulimit -n 64: exit $?"
      "$gpucost" extract -q --tz UTC 'rot/*.csv' -o rot.json || fail "extract of 1500 rotations under ulimit -n 64: exit $?" ) || exit 1
    events=$(grep -c '"type":"event"' rot.jsonl)
    [ "$events" = 4500 ] || fail "prep kept $events events of 4500"
    grep '"type":"event"' rot.jsonl | grep -o '"ts_ns":[0-9]*' | cut -d: -f2 > ts.txt
    sort -n -c ts.txt || fail "prep's events of the rotations are not in time order"
    grep -q '"samples": {"id": "F015", "value": 4500' rot.json || fail "extract did not count 4500 samples: $(grep -m1 '"samples"' rot.json)"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "PASS: $case_name"

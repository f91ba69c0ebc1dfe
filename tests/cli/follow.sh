#!/usr/bin/env bash
# prep --follow against a writer (docs/live.md): a query CSV written a row at a time and rotated
# by rename, a kernel log rotated by copytruncate, a file that appears later under a glob, a
# gzip'd rotation beside them. The follower's events must be those of one prep over the final
# files, each exactly once, in each file's order; SIGTERM ends it within a second with exit 0;
# idle, it uses no CPU to speak of; its memory does not grow with what it reads. The glob q.csv*
# also finds the renamed q.csv.1, whose rows were read before the rename: not read again.
#   follow.sh GPUCOST MODE [quick]     MODE: inotify or poll; quick (a sanitizer build): no
#   memory check (ASan's quarantine holds freed memory); exit 0 = pass, else fail
set -uo pipefail
gpucost=$1
mode=${2:-inotify}
quick=${3:-}
export NO_COLOR=1 TZ=UTC
if [ "$mode" = poll ]; then export GPUCOST_FOLLOW_INOTIFY=0 GPUCOST_FOLLOW_POLL_MS=100; fi
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$work"' EXIT
fail() { echo "FAIL ($mode): $*" >&2; exit 1; }
d=$work/logs
mkdir -p "$d"

header='timestamp, index, power.draw [W], utilization.gpu [%]'
row() { printf '2024/06/12 10:%02d:%02d.000, 0, %d.00 W, %d %%\n' $(($1 / 60)) $(($1 % 60)) $((100 + $1 % 200)) $(($1 % 100)); }
kern() { printf '2024-06-12T10:%02d:%02d.000000+00:00 box kernel: [ %d.000000] NVRM: Xid (PCI:0000:01:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0)\n' $(($1 / 60)) $(($1 % 60)) $((1000 + $1)); }

echo "$header" > "$d/q.csv"
for i in $(seq 0 9); do row "$i" >> "$d/q.csv"; done
kern 0 > "$d/kern.log"
echo "$header" > "$d/old.csv"  # an earlier rotation, compressed: not followed
row 999 >> "$d/old.csv"
gzip "$d/old.csv"

"$gpucost" prep --follow -q --host box "$d/q.csv*" "$d/kern.log" "$d/late-*.csv" "$d/*.gz" > "$work/live.jsonl" \
  2> "$work/live.err" &
pid=$!
sleep 0.5
kill -0 "$pid" 2> /dev/null || fail "the follower ended early: $(cat "$work/live.err")"

# The writer: rows at a steady rate, rotations between them.
for i in $(seq 10 59); do
  row "$i" >> "$d/q.csv"
  [ $((i % 10)) -eq 0 ] && kern "$i" >> "$d/kern.log"
  if [ "$i" -eq 25 ]; then  # rename: the old file's last rows first, then the new one
    mv "$d/q.csv" "$d/q.csv.1"
    echo "$header" > "$d/q.csv"
  fi
  if [ "$i" -eq 35 ]; then  # copytruncate: a copy, then the file emptied in place
    cp "$d/kern.log" "$d/kern.log.1"
    sleep 0.8  # the follower has read the file to its end first (logrotate's lost-lines window)
    : > "$d/kern.log"
  fi
  if [ "$i" -eq 40 ]; then  # a file that appears under the glob
    echo "$header" > "$d/late-1.csv"
    row 3000 >> "$d/late-1.csv"
  fi
  sleep 0.02
done
sleep 1
rss_before=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
for i in $(seq 60 2059); do row "$i" >> "$d/q.csv"; done  # a burst: memory must not follow it
sleep 1
rss_after=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status")
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
t0=$(ticks)
sleep 3  # nothing appended: the follower sleeps
t1=$(ticks)
start=$(date +%s%N)
kill -TERM "$pid"
wait "$pid"
status=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
pid=
[ "$status" -eq 0 ] || fail "exit $status after SIGTERM: $(cat "$work/live.err")"
[ "$elapsed_ms" -lt 1000 ] || fail "SIGTERM took $elapsed_ms ms to end it"
[ $((t1 - t0)) -le 3 ] || fail "idle for 3 s it used $((t1 - t0)) clock ticks of CPU (1 % of a core is 3)"
[ -n "$quick" ] || [ $((rss_after - rss_before)) -lt 4096 ] ||
  fail "RSS grew from $rss_before kB to $rss_after kB over 2000 rows"

# The same files read once, after the fact.
"$gpucost" prep -q --host box "$d/q.csv.1" "$d/q.csv" "$d/kern.log.1" "$d/kern.log" "$d/late-1.csv" \
  > "$work/once.jsonl" || fail "prep over the final files failed"
events() { grep '"type":"event"' "$1"; }
events "$work/live.jsonl" | sort > "$work/live.sorted"
events "$work/once.jsonl" | sort > "$work/once.sorted"
n=$(wc -l < "$work/once.sorted")
[ "$n" -eq $((2060 + 6 + 1)) ] || fail "prep over the final files gave $n events, not 2067"
cmp -s "$work/live.sorted" "$work/once.sorted" || {
  diff "$work/once.sorted" "$work/live.sorted" | head -5 >&2
  fail "the follower's events differ from one prep over the final files"
}
# Each file's own order: q.csv's samples (all but late-1.csv's, row 3000) in the order of its rows.
late_ts=$((1718186400 + 3000))000000000
live_ts=$(events "$work/live.jsonl" | grep '"source":"query-csv"' | grep -o '"ts_ns":[0-9]*' | cut -d: -f2 |
  grep -vx "$late_ts" | tr '\n' ' ')
sorted_ts=$(printf '%s\n' $live_ts | sort -n | tr '\n' ' ')
[ "$live_ts" = "$sorted_ts" ] || fail "the samples did not come in their rows' order"
grep -q '"renamed or removed while followed (a rotation): read to its end"' "$work/live.jsonl" ||
  fail "the summary does not note the rename"
grep -q 'copytruncate' "$work/live.jsonl" || fail "the summary does not note the copytruncate"
grep -q 'old.csv.gz' "$work/live.jsonl" && fail "the compressed rotation was read"
echo "PASS ($mode): $n events as one prep gives them; SIGTERM ended it in $elapsed_ms ms; idle CPU $((t1 - t0)) ticks in 3 s; RSS $rss_before -> $rss_after kB"

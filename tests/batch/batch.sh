#!/usr/bin/env bash
# gpucost batch across runs: a growing log read on from where the last run stopped, a rotation
# (rename + new file + gzip of the old one) counted exactly once, the lock, a corrupt state, the
# replayed lines of a resumed log counted once, a log with nothing new counted as no event.
#   batch.sh GPUCOST TESTDATA CASE        exit 0 = pass, anything else = fail with a message
set -uo pipefail
gpucost=$1
testdata=$2
case_name=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export TZ=UTC LC_ALL=C

fail() { echo "FAIL: $*" >&2; exit 1; }

csv_header='timestamp, index, pci.bus_id, name, power.draw [W], temperature.gpu, utilization.gpu [%], utilization.memory [%], memory.used [MiB], clocks.current.sm [MHz], clocks.max.sm [MHz]'
# Telemetry rows for seconds FIRST..LAST (one GPU), appended to FILE.
csv_rows() {
  local s
  for ((s = $1; s <= $2; s++)); do
    printf '2024/06/12 14:%02d:%02d.000, 0, 00000000:18:00.0, NVIDIA H100 80GB HBM3, 612.50 W, 71, 97 %%, 40 %%, 60000 MiB, 1980 MHz, 1980 MHz\n' \
      $((s / 60)) $((s % 60)) >> "$3"
  done
}
# Kernel log lines (RFC 3339 stamps) for seconds FIRST..LAST: an Xid every 5 s, else a harmless line.
kern_lines() {
  local s
  for ((s = $1; s <= $2; s++)); do
    if ((s % 5 == 0)); then
      printf '2024-06-12T14:%02d:%02d.000000+00:00 box kernel: [ %d.000000] NVRM: Xid (PCI:0000:18:00): 13, pid=4242, name=python, Graphics SM Warp Exception\n' \
        $((s / 60)) $((s % 60)) $((1000 + s)) >> "$3"
    else
      printf '2024-06-12T14:%02d:%02d.000000+00:00 box kernel: [ %d.000000] usb 1-2: new high-speed USB device number %d\n' \
        $((s / 60)) $((s % 60)) $((1000 + s)) $s >> "$3"
    fi
  done
}
# Four Xid lines, one every 5 s from second FIRST, in the kernel-log FORMAT, appended to FILE:
# syslog (RFC 3164, no year), journal (journalctl short-precise, no year), dmesg (ISO stamps).
xid_lines() {
  local format=$1 s
  for ((s = $2; s < $2 + 20; s += 5)); do
    case $format in
      syslog) printf 'Jun 12 14:%02d:%02d box kernel: [ %d.000000] NVRM: Xid (PCI:0000:18:00): 13, pid=4242, name=python, Graphics SM Warp Exception\n' \
                $((s / 60)) $((s % 60)) $((1000 + s)) ;;
      journal) printf 'Jun 12 14:%02d:%02d.000000 box kernel: NVRM: Xid (PCI:0000:18:00): 13, pid=4242, name=python, Graphics SM Warp Exception\n' \
                 $((s / 60)) $((s % 60)) ;;
      dmesg) printf '2024-06-12T14:%02d:%02d,000000+00:00 NVRM: Xid (PCI:0000:18:00): 13, pid=4242, name=python, Graphics SM Warp Exception\n' \
               $((s / 60)) $((s % 60)) ;;
    esac
  done >> "$3"
}
# Runs batch; its stderr goes to FILE. The rest of the arguments are batch's.
run_batch() {
  local err=$1
  shift
  "$gpucost" batch --host box --config "$testdata/samples/workstation.toml" -o out.txt "$@" 2> "$err"
}
# "new lines" and "events" of the total line of a batch run's stderr.
total() { sed -n 's/^gpucost: batch: total: .*inputs, \([0-9]*\) new lines, \([0-9]*\) events$/\1 \2/p' "$1"; }
# "new lines" and "events" of one input's line (FILE NAME).
input_total() { sed -n "s/^gpucost: batch: $2: .*: \\([0-9]*\\) new lines, \\([0-9]*\\) events$/\\1 \\2/p" "$1"; }
# The host's Xid count of a Prometheus textfile.
prom_xids() { sed -n 's/^gpucost_host_xid_errors{host="box"} \([0-9]*\)$/\1/p' "$1"; }

case $case_name in
  growing)
    # Run 1 reads 10 rows; 5 are appended; run 2 reads those 5 only; run 3 reads nothing.
    echo "$csv_header" > tel.csv
    csv_rows 0 9 tel.csv
    run_batch e1.txt --state st.json tel.csv || fail "run 1: exit $?: $(cat e1.txt)"
    [ "$(total e1.txt)" = "11 10" ] || fail "run 1: $(total e1.txt), want 11 lines, 10 events: $(cat e1.txt)"
    grep -q '"schema": "gpucost.batch-state"' st.json || fail "no state file written"
    csv_rows 10 14 tel.csv
    run_batch e2.txt --state st.json tel.csv || fail "run 2: exit $?: $(cat e2.txt)"
    [ "$(total e2.txt)" = "5 5" ] || fail "run 2: $(total e2.txt), want 5 5: $(cat e2.txt)"
    grep -q 'tel.csv: resumed, lines 11-16' e2.txt || fail "run 2 did not resume at line 11: $(cat e2.txt)"
    grep -q 'Wall' out.txt || grep -q '[0-9]' out.txt || fail "run 2 priced nothing"
    run_batch e3.txt --state st.json tel.csv || fail "run 3: exit $?: $(cat e3.txt)"
    [ "$(total e3.txt)" = "0 0" ] || fail "run 3: $(total e3.txt), want 0 0: $(cat e3.txt)"
    grep -q 'nothing priced' e3.txt || fail "run 3 does not say that nothing was priced: $(cat e3.txt)"
    # A line being written (no newline yet) waits for the next run.
    printf '2024/06/12 14:00:15.000, 0, 00000000:18:00.0, NVIDIA H100' >> tel.csv
    run_batch e4.txt --state st.json tel.csv || fail "run 4: exit $?"
    [ "$(total e4.txt)" = "0 0" ] || fail "run 4 read a half-written line: $(total e4.txt)"
    printf ' 80GB HBM3, 612.50 W, 71, 97 %%, 40 %%, 60000 MiB, 1980 MHz, 1980 MHz\n' >> tel.csv
    run_batch e5.txt --state st.json tel.csv || fail "run 5: exit $?: $(cat e5.txt)"
    [ "$(total e5.txt)" = "1 1" ] || fail "run 5: $(total e5.txt), want the completed line: $(cat e5.txt)"
    # The window went on from the previous run's end (14:00:14) to the new sample.
    grep -q '"priced_to_ns": 1718200815000000000' st.json || fail "priced_to_ns: $(grep priced_to st.json)"
    ;;
  rotation)
    # Three runs across two rotations (logrotate: rename, new file, later gzip of the old one)
    # count every line once: the same totals as one run over the final set.
    echo "$csv_header" > tel.csv
    csv_rows 0 59 tel.csv
    kern_lines 0 59 kern.log
    run_batch e1.txt --state st.json kern.log tel.csv || fail "run 1: exit $?: $(cat e1.txt)"
    kern_lines 60 79 kern.log                      # written before the rotation
    mv kern.log kern.log.1
    kern_lines 80 119 kern.log
    csv_rows 60 119 tel.csv
    run_batch e2.txt --state st.json kern.log kern.log.1 tel.csv || fail "run 2: exit $?: $(cat e2.txt)"
    grep -q 'kern.log.1: resumed, lines 60-80' e2.txt || fail "run 2: kern.log.1 not resumed: $(cat e2.txt)"
    kern_lines 120 139 kern.log
    gzip -n kern.log.1 && mv kern.log.1.gz kern.log.2.gz   # the second rotation
    mv kern.log kern.log.1
    kern_lines 140 179 kern.log
    csv_rows 120 179 tel.csv
    run_batch e3.txt --state st.json kern.log kern.log.1 kern.log.2.gz tel.csv || fail "run 3: exit $?: $(cat e3.txt)"
    grep -q 'kern.log.2.gz: rotated copy of .*kern.log.1' e3.txt || fail "run 3: the gzipped rotation not recognised: $(cat e3.txt)"
    # A fourth run with nothing new reads nothing.
    run_batch e4.txt --state st.json kern.log kern.log.1 kern.log.2.gz tel.csv || fail "run 4: exit $?"
    [ "$(total e4.txt)" = "0 0" ] || fail "run 4: $(total e4.txt), want 0 0"
    # The reference: one run over the whole set with a fresh state.
    run_batch all.txt --state fresh.json kern.log kern.log.1 kern.log.2.gz tel.csv || fail "whole set: exit $?"
    sum_lines=0 sum_events=0
    for e in e1.txt e2.txt e3.txt; do
      read -r l ev <<< "$(total $e)"
      sum_lines=$((sum_lines + l)) sum_events=$((sum_events + ev))
    done
    read -r all_l all_ev <<< "$(total all.txt)"
    # 180 kernel lines (36 Xid events) + 1 header + 180 rows (events).
    [ "$all_l $all_ev" = "361 216" ] || fail "whole set: $all_l lines, $all_ev events, want 361 216: $(cat all.txt)"
    [ "$sum_lines $sum_events" = "$all_l $all_ev" ] ||
      fail "three runs: $sum_lines lines, $sum_events events; one run: $all_l, $all_ev"
    ;;
  lock)
    # A run while another holds the lock exits 2 and says why; --wait queues behind it.
    echo "$csv_header" > tel.csv
    csv_rows 0 9 tel.csv
    flock st.json.lock sleep 3 &
    holder=$!
    sleep 0.5
    run_batch e1.txt --state st.json tel.csv
    status=$?
    [ "$status" = 2 ] || fail "exit status $status while locked, want 2: $(cat e1.txt)"
    grep -q 'another gpucost batch run holds' e1.txt || fail "no clear message: $(cat e1.txt)"
    grep -q -- '--wait' e1.txt || fail "no hint about --wait: $(cat e1.txt)"
    [ ! -e st.json ] || fail "the refused run wrote the state"
    run_batch e2.txt --state st.json --wait tel.csv || fail "--wait: exit $?: $(cat e2.txt)"
    [ "$(total e2.txt)" = "11 10" ] || fail "--wait: $(total e2.txt)"
    wait "$holder"
    ;;
  corrupt-state)
    echo "$csv_header" > tel.csv
    csv_rows 0 9 tel.csv
    echo '{"schema": "gpucost.batch-state", "version": 1, "files": [{"path": 3' > st.json
    run_batch e1.txt --state st.json tel.csv
    status=$?
    [ "$status" = 2 ] || fail "exit status $status, want 2"
    grep -q 'not a usable batch state file' e1.txt || fail "no clear error: $(cat e1.txt)"
    grep -q 'hint: move it aside' e1.txt || fail "no hint: $(cat e1.txt)"
    echo '{"schema": "gpucost.batch-state", "version": 99, "files": []}' > st.json
    run_batch e2.txt --state st.json tel.csv
    [ $? = 2 ] && grep -q 'version 99' e2.txt || fail "a future version is not refused: $(cat e2.txt)"
    ;;
  clocks)
    # A year-less kern.log copied without its time (mtime 2028: year 2027) beside the 2026
    # telemetry: dated by the telemetry, its Xid 13 priced; under --year 2027, a warning.
    cp "$testdata/clocks/gpu07_query.csv" tel.csv
    cp "$testdata/clocks/gpu07_kern.log" kern.log
    touch -m -d 2028-03-01T12:00:00Z kern.log
    run_batch e1.txt --state st.json kern.log tel.csv || fail "run 1: exit $?: $(cat e1.txt)"
    grep -q 'kern.log: stamps without a year: 2027 .* 2026 used' e1.txt || fail "no re-dating note: $(cat e1.txt)"
    grep -q 'batch: kern.log: new, lines 0-8' e1.txt || fail "inputs not listed in command-line order: $(cat e1.txt)"
    grep -q 'Xid 13' out.txt || fail "the Xid 13 is not priced: $(cat out.txt)"
    run_batch e2.txt --state st2.json --year 2027 kern.log tel.csv || fail "run 2: exit $?: $(cat e2.txt)"
    grep -q 'warning: kern.log: its 5 events fall 1 year after the telemetry ends' e2.txt ||
      fail "no warning for events outside the telemetry: $(cat e2.txt)"
    ;;
  replay-syslog | replay-journal | replay-dmesg)
    # The lines replayed to restore the parser's state on a resumed run emit no event, also
    # those a parser holds back (stamps without a year wait for the end of the input) or keeps
    # open (a dmesg record waits for its continuation lines). Run 2 reads four new Xid lines and
    # counts four, even with a window (--from) that reaches back over run 1's.
    format=${case_name#replay-}
    echo "$csv_header" > tel.csv
    csv_rows 0 29 tel.csv
    xid_lines "$format" 2 kern.log
    touch -m -d 2024-06-12T15:00:00Z kern.log
    run_batch e1.txt --state st.json --prom p1.prom kern.log tel.csv || fail "run 1: exit $?: $(cat e1.txt)"
    [ "$(input_total e1.txt kern.log)" = "4 4" ] || fail "run 1: kern.log $(input_total e1.txt kern.log), want 4 4: $(cat e1.txt)"
    [ "$(prom_xids p1.prom)" = 4 ] || fail "run 1: $(prom_xids p1.prom) Xids, want 4"
    csv_rows 30 59 tel.csv
    xid_lines "$format" 32 kern.log
    touch -m -d 2024-06-12T15:00:00Z kern.log
    run_batch e2.txt --state st.json --prom p2.prom --from 2024-06-12T14:00:00Z kern.log tel.csv ||
      fail "run 2: exit $?: $(cat e2.txt)"
    grep -q 'kern.log: resumed, lines 4-8' e2.txt || fail "run 2 did not resume kern.log at line 4: $(cat e2.txt)"
    [ "$(input_total e2.txt kern.log)" = "4 4" ] ||
      fail "run 2: kern.log $(input_total e2.txt kern.log), want 4 new lines, 4 events: $(cat e2.txt)"
    [ "$(total e2.txt)" = "34 34" ] || fail "run 2: $(total e2.txt), want 34 34: $(cat e2.txt)"
    [ "$(prom_xids p2.prom)" = 4 ] || fail "run 2: $(prom_xids p2.prom) Xids, want the 4 new ones"
    # Run 3: new telemetry, nothing new in kern.log: it is unchanged and reports no event.
    csv_rows 60 89 tel.csv
    run_batch e3.txt --state st.json --prom p3.prom kern.log tel.csv || fail "run 3: exit $?: $(cat e3.txt)"
    grep -q 'kern.log: unchanged, lines 8-8' e3.txt || fail "run 3: kern.log not unchanged: $(cat e3.txt)"
    [ "$(input_total e3.txt kern.log)" = "0 0" ] || fail "run 3: kern.log $(input_total e3.txt kern.log), want 0 0"
    [ "$(prom_xids p3.prom)" = 0 ] || fail "run 3: $(prom_xids p3.prom) Xids, want none"
    ;;
  unchanged)
    # A log with nothing new since the last run reports 0 new lines and 0 events: not the events its parser lets go at the end of the replayed lines, here the kernel-log
    # and dmesg sections of an nvidia-bug-report.log still open at its end ("bug.log: unchanged
    # ..., 0 new lines, 1 events" before), and they are not priced again.
    echo "$csv_header" > tel.csv
    csv_rows 0 29 tel.csv
    xid_lines syslog 2 kern.log.1
    touch -m -d 2024-06-12T15:00:00Z kern.log.1
    cp "$testdata/bug-report/nvidia-bug-report_a100_535.log" bug.log
    run_batch e1.txt --state st.json --fill none kern.log.1 bug.log tel.csv || fail "run 1: exit $?: $(cat e1.txt)"
    [ "$(input_total e1.txt bug.log)" = "263 11" ] || fail "run 1: bug.log $(input_total e1.txt bug.log), want 263 11"
    csv_rows 30 59 tel.csv
    run_batch e2.txt --state st.json --fill none kern.log.1 bug.log tel.csv || fail "run 2: exit $?: $(cat e2.txt)"
    for name in kern.log.1 bug.log; do
      grep -q "batch: $name: unchanged" e2.txt || fail "run 2: $name not unchanged: $(cat e2.txt)"
      [ "$(input_total e2.txt "$name")" = "0 0" ] ||
        fail "run 2: $name $(input_total e2.txt "$name") new lines and events, want 0 0: $(cat e2.txt)"
    done
    [ "$(total e2.txt)" = "30 30" ] || fail "run 2: $(total e2.txt), want the 30 new rows only: $(cat e2.txt)"
    ;;
  replay-smi-q | replay-smi-xml | replay-journal-json | replay-torch-table)
    # A record open where the replay stops (an nvidia-smi -q snapshot or XML document cut at
    # 4 KiB, a json-pretty object, a table's footer) is neither emitted again nor reported as
    # malformed by the next line. Run 1 reads a sample; run 2 reads its last record appended
    # once more (SAMPLE, first line of that record, "new lines events" wanted of run 2).
    case $case_name in
      replay-smi-q) set -- smi-q/v100x2_410_loop.txt 314 "313 4" ;;
      replay-smi-xml) set -- smi-xml/a5000x2_590_v13_loop.xml 559 "558 4" ;;
      replay-journal-json) set -- journal-json/mw_a3000_pretty_sd252.json 109 "14 1" ;;
      replay-torch-table) set -- torch-table/legacy_bottleneck_torch13.txt 1 "38 8" ;;
    esac
    name=$(basename "$1")
    cp "$testdata/$1" "$name"
    run_batch e1.txt --state st.json --strict "$name" || fail "run 1: exit $?: $(cat e1.txt)"
    tail -n "+$2" "$testdata/$1" >> "$name"
    run_batch e2.txt --state st.json --strict "$name" || fail "run 2: exit $?: $(cat e2.txt)"
    [ "$(input_total e2.txt "$name")" = "$3" ] ||
      fail "run 2: $(input_total e2.txt "$name") new lines and events, want $3: $(cat e2.txt)"
    ! grep -q 'malformed' e2.txt || fail "run 2 reports replayed lines as malformed: $(cat e2.txt)"
    ! grep -q 'fewer GPU blocks' e2.txt || fail "run 2 takes the snapshot cut at 4 KiB for one of fewer GPUs: $(cat e2.txt)"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok: $case_name"

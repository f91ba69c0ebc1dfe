#!/usr/bin/env bash
# -j N prints what -j 1 prints: `prep` and `extract` of every raw log in testdata/ and in
# ../shared/corpus (when it is there; said when it is not), plain and, for every fourth plain one,
# gzip and zstd compressed (decompression then runs on its own thread); and the stages on several
# inputs at once. Output, messages and exit status must be byte-identical.
#   jobs_identical.sh GPUCOST SOURCE_DIR [quick]     exit 0 = pass, else fail
# quick (the sanitizer build, where each run costs ~10x): the compressed logs of testdata/ and
# the bundled sample jobs (several GPUs), each of these also gzip-compressed; the Release build's
# run covers the rest and the corpus.
set -uo pipefail
gpucost=$1
src=$2
quick=${3:-}
every=4
[ -n "$quick" ] && every=1
export NO_COLOR=1 TZ=UTC LC_ALL=C
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
failed=0
compared=0

# run NAME JOBS ARGS...: gpucost ARGS with -j JOBS; stdout, stderr and status in $work/NAME.JOBS.
# With more than one job a raw log is cut into chunks of 150 bytes (GPUCOST_CHUNK_BYTES; 128 KiB
# by default), so that the small logs here are parsed in many chunks side by side.
run() {
  local name=$1 jobs=$2 chunk=
  shift 2
  [ "$jobs" -gt 1 ] && chunk=150
  GPUCOST_CHUNK_BYTES=$chunk "$gpucost" "$1" -j "$jobs" "${@:2}" > "$work/$name.$jobs.out" 2> "$work/$name.$jobs.err"
  echo "exit $?" >> "$work/$name.$jobs.err"
}

# same NAME ARGS...: runs ARGS with -j 1 and -j 3 and compares
same() {
  local name=$1
  shift
  run "$name" 1 "$@"
  run "$name" 3 "$@"
  compared=$((compared + 1))
  if ! cmp -s "$work/$name.1.out" "$work/$name.3.out" || ! cmp -s "$work/$name.1.err" "$work/$name.3.err"; then
    echo "FAIL: gpucost $* prints differently with -j 3 than with -j 1" >&2
    diff "$work/$name.1.out" "$work/$name.3.out" | head -5 >&2
    diff "$work/$name.1.err" "$work/$name.3.err" | head -5 >&2
    failed=1
  fi
}

check_file() {  # check_file PATH: prep and extract, -j 1 against -j 3
  local path=$1 name
  name=$(printf '%s' "$path" | tr -c 'A-Za-z0-9._-' '_')
  same "$name.prep" prep -q "$path"
  same "$name.extract" extract -q "$path"
}

inputs=()
if [ -n "$quick" ]; then
  while IFS= read -r -d '' f; do inputs+=("$f"); done < <(
    find "$src/testdata" -path "$src/testdata/golden" -prune -o -type f \( -name '*.gz' -o -name '*.zst' \) -print0 |
      sort -z)
  while IFS= read -r -d '' f; do inputs+=("$f"); done < <(
    find "$src/testdata/samples" -type f \( -name '*_query.csv' -o -name '*_DT.txt' \) -print0 | sort -z)
else
  while IFS= read -r -d '' f; do inputs+=("$f"); done < <(
    find "$src/testdata" -path "$src/testdata/golden" -prune -o -type f \
      \( -name '*.txt' -o -name '*.log' -o -name '*.csv' -o -name '*.json' -o -name '*.xml' -o -name '*.gz' \
         -o -name '*.zst' -o -name '*.log.[0-9]' \) -print0 | sort -z)
fi
corpus=$src/../shared/corpus
if [ -n "$quick" ]; then
  echo "note: quick run (sanitizer build): the compressed logs and the sample jobs of testdata/; the Release build's run compares the rest and the corpus"
elif [ -d "$corpus" ]; then
  while IFS= read -r -d '' f; do inputs+=("$f"); done < <(
    find "$corpus" -type f ! -name '*.md' -print0 | sort -z)
else
  echo "note: $corpus is not here: only testdata/ is compared"
fi

# Every input plain; every fourth (quick: every) plain one also gzip- and zstd-compressed.
n=0
for f in "${inputs[@]}"; do
  check_file "$f"
  case $f in
    *.gz | *.zst) ;;
    *)
      n=$((n + 1))
      [ $((n % every)) = 1 ] || continue
      base=$work/$(basename "$f")
      gzip -c "$f" > "$base.gz" && check_file "$base.gz"
      if command -v zstd > /dev/null; then zstd -q -c "$f" > "$base.zst" && check_file "$base.zst"; fi
      ;;
  esac
done

# Several inputs at once: the GPUs of several telemetry logs walked side by side, host logs
# dated against them, and a merge of rotations.
samples=$src/testdata/samples
same several.breakeven breakeven -q --config "$samples/h100-server.toml" "$samples/report-h100x2_query.csv" \
  "$samples/report-h100x2_kern.log"
same several.report report -q --config "$samples/h100-server.toml" -o - "$samples/report-h100x2_query.csv" \
  "$samples/report-h100x2_kern.log"
# Several profiler traces, parsed side by side: the ranks of a job (a directory), two runs' ranks
# with a telemetry log between them (the traces' buffers handed on in input or merge order), and
# a gzip-compressed copy among them.
traces=$src/testdata/trace
gzip -c "$traces/diff/after/rank-1.pt.trace.json" > "$work/after-rank-1.pt.trace.json.gz"
same traces.trace trace -q "$traces/ranks" "$traces/diff/before" "$work/after-rank-1.pt.trace.json.gz"
same traces.prep prep -q "$traces/ranks" "$samples/report-h100x2_query.csv" "$traces/diff/after"
same traces.extract extract -q --host x "$traces/diff/before" "$samples/report-h100x2_query.csv" "$traces/ranks"
same traces.breakeven breakeven -q --config "$src/testdata/attribution/lab.toml" --host lab \
  "$src/testdata/attribution/lab_query.csv" "$traces/ranks" "$traces/diff/before"
same several.prep prep -q "$samples/faults-storm_query.csv" "$samples/faults-storm_dmesg.txt" \
  "$samples/faults-xid79_kern.log"

# Logs whose chunks cannot start from a copy of the state before: the state a row reads moved
# (the sample count of rows without time, a time of day crossing midnight, identities of rows
# without an index), a cut row, a header that changes, clocks going back over a DST change.
gen=$work/gen
mkdir -p "$gen"
awk 'BEGIN {
  print "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk"
  print "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz"
  for (c = 0; c < 60; c++) {
    if (c == 30) { print "# gpu    pwr     sm    mem"; print "# Idx      W      %      %" }
    for (g = 0; g < 4; g++) {
      if (c == 17 && g == 0) print "    0    301     40"  # cut short: the parse finds it malformed
      if (c >= 30) printf "    %d %6d %6d %6d\n", g, 300 + c, 50 + g, 10
      else printf "    %d %6d     45     40 %6d     10      0      0      0      0   2619   1980\n", g, 300 + c, 50 + g
    }
  }
}' > "$gen/dmon_no_time.txt"
awk 'BEGIN {
  print "#Time        gpu    pwr  gtemp     sm"
  print "#HH:MM:SS    Idx      W      C      %"
  for (s = 0; s < 40; s++) {
    t = 86400 - 20 + s; t = t % 86400
    for (g = 0; g < 2; g++) printf " %02d:%02d:%02d %6d %6d     40     90\n", int(t / 3600), int(t % 3600 / 60), t % 60, g, 200 + s
  }
}' > "$gen/dmon_T_midnight.txt"
awk 'BEGIN {
  print "pci.bus_id, power.draw [W], utilization.gpu [%]"
  for (s = 0; s < 50; s++) {
    print "00000000:3B:00.0, " 200 + s " W, 90 %"
    if (s % 7 != 3) print "00000000:AF:00.0, " 210 + s " W, 91 %"
    if (s == 25) print "pci.bus_id, power.draw [W], utilization.gpu [%]"
  }
}' > "$gen/query_no_index_no_time.csv"
awk 'BEGIN {  # Europe/Berlin, 2024-10-27: 02:00-03:00 CEST, then again as CET
  print "timestamp, index, power.draw [W]"
  for (s = 0; s < 120; s++) {
    m = s < 60 ? s : s - 60; h = s < 60 ? 1 : 2
    for (g = 0; g < 2; g++) printf "2024/10/27 %02d:%02d:30.000, %d, %d.5 W\n", h, m, g, 200 + s
  }
  for (s = 0; s < 60; s++) for (g = 0; g < 2; g++) printf "2024/10/27 02:%02d:40.000, %d, %d.5 W\n", s, g, 300 + s
  for (s = 0; s < 30; s++) for (g = 0; g < 2; g++) printf "2024/10/27 03:%02d:40.000, %d, %d.5 W\n", s, g, 400 + s
}' > "$gen/query_fall_back.csv"
awk 'BEGIN {  # journalctl -o json-pretty whose third object never closes: chunks must end in it
  for (i = 0; i < 3; i++) {
    print "{"
    printf "        \"__REALTIME_TIMESTAMP\" : \"%d\",\n", 1751266701035801 + i * 1000000
    print "        \"_TRANSPORT\" : \"kernel\","
    print "        \"MESSAGE\" : \"NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.\""
    if (i != 2) print "}"
  }
  for (i = 0; i < 2000; i++) printf "        \"FIELD_%d\" : \"value\",\n", i
}' > "$gen/journal_unclosed.json"
awk 'BEGIN {  # kern.log over New Year, no year in the stamps: the events wait for it
  split("pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0|nvidia 0000:01:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)|nvidia 0000:01:00.0:   device [10de:2684] error status/mask=00000001/0000e000|nvidia 0000:01:00.0:    [ 0] RxErr", aer, "|")
  for (i = 0; i < 400; i++) {
    t = 86400 - 200 + i * 3; jan = t >= 86400; s = t % 86400
    stamp = sprintf("%s %2d %02d:%02d:%02d", jan ? "Jan" : "Dec", jan ? 1 : 31, int(s / 3600), int(s % 3600 / 60), s % 60)
    if (i % 23 == 5) { for (k = 1; k <= 4; k++) printf "%s node7 kernel: [%5d.000100] %s\n", stamp, 100 + i, aer[k]; continue }
    if (i % 37 == 9) print "    an indented continuation line"
    if (i % 51 == 20) print "garbage without a stamp"
    printf "%s node7 kernel: [%5d.000200] %s\n", stamp, 100 + i, i % 6 == 0 ? "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus." : "usb 1-3: new high-speed USB device number 7 using xhci_hcd"
  }
}' > "$gen/kern_new_year.log"
touch -d '2025-01-01 12:00:00 UTC' "$gen/kern_new_year.log"
awk 'BEGIN {  # journalctl short-monotonic over reboots, with continuation lines
  for (b = 0; b < 3; b++) {
    if (b > 0) print "-- Reboot --"
    for (i = 0; i < 120; i++) {
      printf "[%6d.%06d] node7 kernel: %s\n", i * 2, i, i % 9 == 0 ? "NVRM: Xid (PCI:0000:01:00): 13, pid=1, Graphics Exception" : "ACPI: button: Lid closed"
      if (i % 9 == 0) printf "[%6d.%06d] node7 kernel: NVRM: GPU at PCI:0000:01:00: GPU-1234\n", i * 2, i
      if (i % 17 == 3) print "   continuation of the line before"
    }
  }
}' > "$gen/journal_mono_reboots.txt"
# Plain files are read by the workers themselves (direct reads): a byte-order mark, CRLF lines, a
# line longer than --max-line (from its chunk on, one thread reads), a last line without '\n'.
awk 'BEGIN {
  printf "\357\273\277"
  for (i = 0; i < 300; i++) {
    stamp = sprintf("Jun 12 14:%02d:%02d", int(i / 60), i % 60)
    if (i == 150) { printf "%s node7 kernel: [ 1200.000100] ", stamp; for (k = 0; k < 7000; k++) printf "0123456789"; print "" }
    printf "%s node7 kernel: [%5d.000200] %s%s\n", stamp, 100 + i,
      i % 7 == 0 ? "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus." : "usb 1-3: new high-speed USB device number 7 using xhci_hcd",
      i % 5 == 0 ? "\r" : ""
  }
  printf "Jun 12 14:59:59 node7 kernel: [ 9999.000000] NVRM: Xid (PCI:0000:01:00): 13, pid=1, no newline"
}' > "$gen/kern_direct.log"
awk 'BEGIN {
  print "timestamp, index, power.draw [W]"
  for (s = 0; s < 200; s++) for (g = 0; g < 2; g++) printf "2024/06/12 10:%02d:%02d.000, %d, %d.5 W\n", int(s / 60), s % 60, g, 200 + s
  printf "2024/06/12 11:00:00.000, 0, 99.5 W"
}' > "$gen/query_no_final_newline.csv"
same gen.kern_direct prep -q --max-line 65536 --year 2024 "$gen/kern_direct.log"
same gen.kern_direct.extract extract -q --max-line 65536 --year 2024 "$gen/kern_direct.log"
same gen.query_no_final_newline prep -q "$gen/query_no_final_newline.csv"
same gen.kern_new_year prep -q "$gen/kern_new_year.log"
same gen.kern_new_year.year prep -q --year 2024 "$gen/kern_new_year.log"
same gen.kern_new_year.extract extract -q "$gen/kern_new_year.log"
same gen.journal_mono_reboots prep -q --format journal-text "$gen/journal_mono_reboots.txt"
same gen.journal_unclosed prep -q "$gen/journal_unclosed.json"
same gen.query_fall_back prep -q --tz Europe/Berlin "$gen/query_fall_back.csv"
same gen.dmon_no_time prep -q "$gen/dmon_no_time.txt"
same gen.dmon_no_time.start prep -q --start 2024-06-12T10:00:00 --interval 2 "$gen/dmon_no_time.txt"
same gen.dmon_T_midnight prep -q --date 2024-06-12 "$gen/dmon_T_midnight.txt"
same gen.query_no_index prep -q --start 2024-06-12T10:00:00Z "$gen/query_no_index_no_time.csv"
same gen.query_dst prep -q --tz Europe/Berlin "$src/testdata/cli/query_a100x2_dst.csv"

# The reading thread counts a dmon table's cycles ahead of the parse (its skimmer). A miscount only
# costs time (the chunk is parsed again when joined), so the output alone cannot show one: on a
# clean table without times, no chunk may be parsed again.
awk 'BEGIN {
  print "# gpu    pwr  gtemp     sm"
  print "# Idx      W      C      %"
  for (c = 0; c < 80; c++) for (g = 0; g < 4; g++) printf " %4d %6d %6d %6d\n", g, 300 + c, 50 + g, 90
}' > "$gen/dmon_clean.txt"
again=$(GPUCOST_CHUNK_BYTES=150 "$gpucost" prep -vv -j 3 -q --start 2024-06-12T10:00:00Z "$gen/dmon_clean.txt" 2>&1 \
  >/dev/null | sed -n 's/.* chunks on [0-9]* threads, \([0-9]*\) parsed again.*/\1/p')
compared=$((compared + 1))
if [ "$again" != "0" ]; then
  echo "FAIL: a clean dmon table without times had chunks parsed again at -j 3 ('$again'): the skimmer miscounted" >&2
  failed=1
fi

echo "$compared comparisons of -j 1 and -j 3"
exit $failed

#!/usr/bin/env bash
# The default breakeven answer fits one terminal screen (docs/outputs.md, "The default answer"): at
# most 25 lines of at most 100 columns, for every golden that shows it, and the README's quick start.
#   one_screen.sh TESTDATA        exit 0 = pass, else fail naming the answer that is too big
set -uo pipefail
golden=$1/golden
fail() { echo "FAIL: $*" >&2; exit 1; }
count=0
for dir in "$golden"/breakeven-sample "$golden"/breakeven-compare-clouds "$golden"/breakeven-summary-*; do
  out=$dir/stdout.expected
  [ -f "$out" ] || fail "$out is missing"
  lines=$(wc -l < "$out")
  width=$(LC_ALL=C.UTF-8 wc -L < "$out")
  [ "$lines" -le 25 ] || fail "$(basename "$dir"): $lines lines, more than one screen (25)"
  [ "$width" -le 100 ] || fail "$(basename "$dir"): a line of $width columns, more than 100"
  count=$((count + 1))
done
[ "$count" -ge 6 ] || fail "only $count one-screen answers found"
echo "ok: $count answers within 25 lines of 100 columns"

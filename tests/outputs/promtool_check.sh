#!/bin/sh
# Validates Prometheus textfiles with `promtool check metrics` (the parser and linter of Prometheus
# itself): each must pass with no lint message. Checked: the textfiles of the bundled samples, of a
# job with work counted and of a catalogue offer (which adds the price age and the offer's info
# metric); the expected textfiles under testdata/outputs/; and every golden whose stdout is a
# textfile. Skipped, and says so, when promtool is not installed (Debian package prometheus;
# .ci/run installs it). Usage: promtool_check.sh GPUCOST TESTDATA WORKDIR
set -eu
gpucost=$1 testdata=$2 work=$3
if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIPPED: promtool not found: the textfiles were not validated (apt-get install prometheus)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
failed=0
check() {  # check FILE: exit 0 and nothing said, or the file fails
  if promtool check metrics < "$1" > "$work/promtool.out" 2>&1 && [ ! -s "$work/promtool.out" ]; then
    echo "ok      $1"
  else
    echo "FAILED  $1"
    sed 's/^/  /' "$work/promtool.out"
    failed=1
  fi
}
# The third case counts work (cost per unit) and takes the busy share from SM active.
for case in "samples/workstation.toml workstation samples/rtx4090_finetune_query.csv" \
  "samples/a100x2.toml a100 samples/a100x2_train_dmon_DT.txt" \
  "work/reference.toml work work/reference.features.json --set=cloud.busy_share=sm_active" \
  "samples/workstation.toml offer samples/rtx4090_finetune_query.csv --cloud=runpod-rtx4090-community --set=exchange.USD=0.92 --set=exchange.date=\"2026-11-28\""; do
  set -- $case
  config=$1 host=$2 input=$3
  shift 3
  "$gpucost" breakeven -q --config "$testdata/$config" --host "$host" --tz UTC "$testdata/$input" "$@" \
    -o "$work/$host.txt" --prom "$work/$host.prom"
  check "$work/$host.prom"
done
grep -q '^gpucost_cloud_price_age_seconds{' "$work/offer.prom" || {
  echo "FAILED  $work/offer.prom has no gpucost_cloud_price_age_seconds: the catalogue offer case checks nothing"
  failed=1
}
for f in "$testdata"/outputs/*.prom; do check "$f"; done
for f in "$testdata"/golden/*/stdout.expected; do
  if head -n 1 "$f" | grep -q '^# HELP gpucost_'; then check "$f"; fi
done
[ "$failed" = 0 ] || exit 1
echo "promtool: every textfile passes"

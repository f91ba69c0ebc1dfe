#!/bin/sh
# Validates the Prometheus textfile of the bundled sample with `promtool check metrics` (the
# parser and linter of Prometheus itself). Skipped, and says so, when promtool is not installed
# (Debian package prometheus; .ci/run installs it). Usage: promtool_check.sh GPUCOST TESTDATA WORKDIR
set -eu
gpucost=$1 testdata=$2 work=$3
if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIPPED: promtool not found: the textfile was not validated (apt-get install prometheus)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
for case in "workstation.toml workstation rtx4090_finetune_query.csv" "a100x2.toml a100 a100x2_train_dmon_DT.txt"; do
  set -- $case
  "$gpucost" breakeven -q --config "$testdata/samples/$1" --host "$2" --tz UTC "$testdata/samples/$3" \
    -o "$work/$2.txt" --prom "$work/$2.prom"
  echo "promtool check metrics < $2.prom"
  if ! promtool check metrics < "$work/$2.prom" > "$work/$2.promtool" 2>&1; then
    cat "$work/$2.promtool"
    echo "FAILED: promtool found problems in $work/$2.prom"
    exit 1
  fi
  cat "$work/$2.promtool"
done
echo "promtool: both textfiles pass"

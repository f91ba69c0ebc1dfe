#!/bin/sh
# Validates the Prometheus textfiles of the bundled samples and of a job with work counted with `promtool check metrics` (the
# parser and linter of Prometheus itself). Skipped, and says so, when promtool is not installed
# (Debian package prometheus; .ci/run installs it). Usage: promtool_check.sh GPUCOST TESTDATA WORKDIR
set -eu
gpucost=$1 testdata=$2 work=$3
if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIPPED: promtool not found: the textfile was not validated (apt-get install prometheus)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
# The third case counts work (cost per unit) and takes the busy share from SM active.
for case in "samples/workstation.toml workstation samples/rtx4090_finetune_query.csv" \
  "samples/a100x2.toml a100 samples/a100x2_train_dmon_DT.txt" \
  "work/reference.toml work work/reference.features.json --set=cloud.busy_share=sm_active"; do
  set -- $case
  "$gpucost" breakeven -q --config "$testdata/$1" --host "$2" --tz UTC "$testdata/$3" ${4:-} \
    -o "$work/$2.txt" --prom "$work/$2.prom"
  echo "promtool check metrics < $2.prom"
  if ! promtool check metrics < "$work/$2.prom" > "$work/$2.promtool" 2>&1; then
    cat "$work/$2.promtool"
    echo "FAILED: promtool found problems in $work/$2.prom"
    exit 1
  fi
  cat "$work/$2.promtool"
done
echo "promtool: the three textfiles pass"

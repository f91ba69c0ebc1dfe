#!/usr/bin/env bash
# A job on several hosts priced in one run equals one extract per host merged: the same features
# document but for what says how it was made (chosen_by, merged_from), and the same breakeven.
#   one_run_vs_merge.sh GPUCOST TESTDATA
set -euo pipefail
gpucost=$1 testdata=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dir="$testdata/multinode"
"$gpucost" extract "$dir/dcgm_2nodes.json" -o "$tmp/one-run.json" 2>"$tmp/err"
# Telemetry alone names both hosts: no host log, so no word of host logs or incidents.
if grep -q "warning" "$tmp/err"; then
  cat "$tmp/err"
  echo "FAIL: a warning for telemetry of two hosts alone"
  exit 1
fi
"$gpucost" extract -q "$dir/dcgm_node01.json" -o "$tmp/node01.json"
"$gpucost" extract -q "$dir/dcgm_node02.json" -o "$tmp/node02.json"
"$gpucost" merge "$tmp/node01.json" "$tmp/node02.json" -o "$tmp/merged.json"
strip() { jq -S 'del(.window.chosen_by, .window.merged_from)' "$1"; }
if ! diff <(strip "$tmp/one-run.json") <(strip "$tmp/merged.json") >"$tmp/diff"; then
  head -40 "$tmp/diff"
  echo "FAIL: one run of two hosts differs from their merged extracts"
  exit 1
fi
[ "$(jq -r '.window.chosen_by' "$tmp/one-run.json")" = samples ] || { echo "FAIL: chosen_by"; exit 1; }
[ "$(jq '.gpus | map(.host) | unique | length' "$tmp/one-run.json")" -eq 2 ] || { echo "FAIL: GPU hosts"; exit 1; }
config="$dir/h100-node.toml"
"$gpucost" breakeven -q --json -c "$config" "$dir/dcgm_2nodes.json" >"$tmp/one-run.verdict"
"$gpucost" breakeven -q --json -c "$config" "$tmp/merged.json" >"$tmp/merged.verdict"
if ! diff <(jq -S . "$tmp/one-run.verdict") <(jq -S . "$tmp/merged.verdict") >"$tmp/diff"; then
  head -40 "$tmp/diff"
  echo "FAIL: breakeven of the one run differs from that of the merge"
  exit 1
fi
echo "ok: one run of two hosts equals their merged extracts"

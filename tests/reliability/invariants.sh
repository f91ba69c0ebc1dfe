#!/usr/bin/env bash
# Invariants on generated and bundled input (docs/reliability.md):
#   deterministic  the same input gives byte-identical output on every run (prep, extract, trace)
#   stages         prep | extract - gives the same features as extract on the raw logs
#   shards         prep over time-ordered shards of a log gives the events of the whole log, and
#                  extract over the shards the features of the whole
#   accounting     lines = event_lines + ignored + malformed for every input of every run
#   invariants.sh GPUCOST TESTDATA CASE
set -uo pipefail
gpucost=$1
testdata=$2
case_name=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export TZ=UTC LC_ALL=C
common=(--tz UTC --host inv -q)

fail() { echo "FAIL: $*" >&2; exit 1; }

# A generated query CSV: 2 GPUs, 1 s apart, n cycles, values that vary, one malformed row.
make_query() {
  awk -v n="$1" 'BEGIN {
    print "timestamp, index, power.draw [W], temperature.gpu, utilization.gpu [%], clocks.current.sm [MHz]"
    for (i = 0; i < n; i++) {
      s = i % 60; m = int(i / 60) % 60; h = 10 + int(i / 3600)
      for (g = 0; g < 2; g++)
        printf "2024/06/12 %02d:%02d:%02d.%03d, %d, %.2f W, %d, %d %%, %d MHz\n", h, m, s, 100 + g, g,
               250 + (i * 7 + g * 13) % 150, 60 + (i + g) % 25, (i * 3 + g) % 101, 1400 + (i * 11) % 400
      if (i == int(n / 2)) print "2024/06/12 not a row"
    }
  }' > "$2"
}

# lines == event_lines + ignored + malformed for every input in a prep summary.
check_accounting() {
  tail -1 "$1" | grep -o '"lines":[0-9]*,"events":[0-9]*,"event_lines":[0-9]*,"ignored":[0-9]*,"malformed":[0-9]*' |
    while IFS=, read -r l e el ig ma; do
      l=${l#*:}; el=${el#*:}; ig=${ig#*:}; ma=${ma#*:}
      [ "$l" = $((el + ig + ma)) ] || { echo "accounting broken in $1: lines $l != $el + $ig + $ma"; exit 1; }
    done || fail "$(cat)"
}

inputs=("$testdata/samples/a100x2_train_dmon_DT.txt" "$testdata/samples/report-h100x2_query.csv"
        "$testdata/samples/report-h100x2_kern.log" "$testdata/trace/h100_rank3_modern.pt.trace.json.gz")

case $case_name in
  deterministic)
    make_query 3000 gen.csv
    for run in 1 2 3; do
      "$gpucost" prep "${common[@]}" --year 2024 gen.csv "${inputs[@]}" -o "prep$run.jsonl" || fail "prep run $run"
      "$gpucost" extract "${common[@]}" --year 2024 gen.csv "${inputs[@]}" -o "extract$run.json" || fail "extract run $run"
      "$gpucost" trace "${common[@]}" "${inputs[3]}" -o "trace$run.txt" || fail "trace run $run"
    done
    for kind in prep1.jsonl:prep extract1.json:extract trace1.txt:trace; do
      first=${kind%%:*}; stem=${kind#*:}
      for run in 2 3; do
        other=$(ls "$stem$run".*)
        cmp -s "$first" "$other" || fail "$stem output differs between run 1 and run $run"
      done
    done
    check_accounting prep1.jsonl
    ;;
  stages)
    make_query 2000 gen.csv
    for set in "gen.csv" "${inputs[0]}" "${inputs[1]} ${inputs[2]}" "${inputs[3]} ${inputs[1]}"; do
      # shellcheck disable=SC2086  # the set is a list of paths
      "$gpucost" extract "${common[@]}" --year 2024 $set -o raw.json || fail "extract on raw: $set"
      # shellcheck disable=SC2086
      "$gpucost" prep "${common[@]}" --year 2024 $set -o events.jsonl || fail "prep: $set"
      "$gpucost" extract "${common[@]}" events.jsonl -o staged.json || fail "extract on events: $set"
      cmp -s raw.json staged.json || fail "prep | extract differs from extract on the raw logs for: $set"
      check_accounting events.jsonl
    done
    # Overlapping inputs (a file given twice, a rotated copy that repeats the end of the live
    # log): extract counts their events once, as prep does, so that the two paths agree and the
    # numbers are those of the single file.
    rotated=("$testdata/cli/rotated/query.csv" "$testdata/cli/rotated/query.csv.1.gz")
    for set in "gen.csv gen.csv" "${rotated[*]}"; do
      # shellcheck disable=SC2086
      "$gpucost" extract "${common[@]}" $set -o raw.json || fail "extract on raw: $set"
      # shellcheck disable=SC2086
      "$gpucost" prep "${common[@]}" $set -o events.jsonl || fail "prep: $set"
      "$gpucost" extract "${common[@]}" events.jsonl -o staged.json || fail "extract on events: $set"
      cmp -s raw.json staged.json || fail "prep | extract differs from extract on the raw logs for: $set"
    done
    "$gpucost" extract "${common[@]}" gen.csv -o once.json || fail "extract gen.csv"
    "$gpucost" extract "${common[@]}" gen.csv gen.csv -o twice.json || fail "extract gen.csv gen.csv"
    cmp -s once.json twice.json || fail "a file given twice changes the features"
    ;;
  shards)
    make_query 3000 whole.csv
    # Three time-ordered shards, each a complete CSV with its header (as -f rotation writes them).
    head -1 whole.csv > header
    total=$(($(wc -l < whole.csv) - 1))
    tail -n +2 whole.csv | split -l $(((total + 2) / 3)) - part.
    i=0
    for p in part.*; do cat header "$p" > "shard$i.csv"; i=$((i + 1)); done
    "$gpucost" prep "${common[@]}" whole.csv -o whole.jsonl || fail "prep whole"
    "$gpucost" prep "${common[@]}" shard0.csv shard1.csv shard2.csv -o shards.jsonl || fail "prep shards"
    grep '"type":"event"' whole.jsonl > whole.events
    grep '"type":"event"' shards.jsonl > shards.events
    cmp -s whole.events shards.events || fail "the events of the shards differ from the events of the whole"
    "$gpucost" extract "${common[@]}" whole.csv -o whole.json || fail "extract whole"
    "$gpucost" extract "${common[@]}" shard2.csv shard0.csv shard1.csv -o shards.json || fail "extract shards"
    cmp -s whole.json shards.json || fail "extract over the shards (in any order) differs from extract over the whole"
    check_accounting whole.jsonl
    check_accounting shards.jsonl
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name"

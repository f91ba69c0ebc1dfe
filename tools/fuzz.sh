#!/usr/bin/env bash
# Builds the libFuzzer targets (tools/fuzz) with clang in build-fuzz/ and runs each for N seconds
# (default 20), seeded from testdata/. Fails (exit 1) on any crash, leak, timeout, out-of-memory
# or sanitizer report; prints the executions per target. Needs clang and libclang-rt-14-dev.
#   tools/fuzz.sh [SECONDS] [TARGET...]      e.g. tools/fuzz.sh 600 prep_dmon config
# Environment: FUZZ_JOBS (targets run side by side, default nproc), FUZZ_WORK (work dir,
# default build-fuzz/work: seeds, corpora, logs and crash inputs), FUZZ_BUILD (a build dir
# configured with -DGPUCOST_FUZZ=ON to use instead of build-fuzz/).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
secs=${1:-20}
shift || true
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
work=${FUZZ_WORK:-$root/build-fuzz/work}
cxx=${CXX_FUZZ:-clang++}

all_targets=(prep_dmon prep_pmon prep_query_csv prep_smi_q prep_smi_xml prep_dcgmi prep_syslog prep_dmesg
             prep_journal_json prep_journal_text prep_bug_report prep_torch_table prep_nsys prep_kineto prep_trainlog prep_prometheus_json prep_sacct prep_exposition prep_detect event_stream
             features extract config time_zone)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

# FUZZ_BUILD=DIR: a build configured with -DGPUCOST_FUZZ=ON already (CI's sanitizer build, which
# builds the tests too); else build-fuzz/, configured here.
build=${FUZZ_BUILD:-build-fuzz}
echo "== fuzz build ($build, $cxx)"
if [ -z "${FUZZ_BUILD:-}" ]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DGPUCOST_FUZZ=ON -DGPUCOST_BUILD_TESTS=OFF -DGPUCOST_WERROR=OFF >/dev/null
fi
# shellcheck disable=SC2046  # one word per target
cmake --build "$build" -j "$jobs" $(printf -- '--target fuzz_%s ' "${targets[@]}")

# Seeds: testdata files per target, copied (prep targets: with an option byte in front, see
# tools/fuzz/fuzz_target.cpp: 0x00 = no options, 0x1b = --start --interval --year --boot-time).
seed_dirs() {
  case $1 in
    prep_dmon) echo testdata/dmon ;;
    prep_pmon) echo testdata/pmon ;;
    prep_query_csv) echo testdata/query-csv ;;
    prep_smi_q) echo testdata/smi-q ;;
    prep_smi_xml) echo testdata/smi-xml ;;
    prep_dcgmi) echo testdata/dcgmi ;;
    prep_syslog) echo testdata/kernlog ;;
    prep_dmesg) echo testdata/dmesg ;;
    prep_journal_json) echo testdata/journal-json ;;
    prep_journal_text) echo testdata/journal-text ;;
    prep_bug_report) echo testdata/bug-report ;;
    prep_torch_table) echo testdata/torch-table ;;
    prep_nsys) echo testdata/nsys ;;
    prep_kineto) echo testdata/trace ;;
    prep_trainlog) echo testdata/trainlog ;;
    prep_prometheus_json) echo testdata/prometheus-json ;;
    prep_sacct) echo testdata/sacct ;;
    prep_exposition) echo testdata/exposition ;;
    prep_detect) echo testdata/dmon testdata/pmon testdata/query-csv testdata/smi-q testdata/smi-xml testdata/dcgmi \
                      testdata/kernlog testdata/dmesg testdata/journal-json testdata/journal-text testdata/bug-report \
                      testdata/torch-table testdata/nsys testdata/trace testdata/trainlog testdata/prometheus-json testdata/sacct testdata/exposition ;;
  esac
}
make_seeds() {  # target dir
  local t=$1 dir=$2 f n=0
  rm -rf "$dir" && mkdir -p "$dir"
  case $t in
    prep_*)
      for d in $(seed_dirs "$t"); do
        for f in "$d"/*; do
          [ -f "$f" ] || continue
          n=$((n + 1))
          { printf '\000'; cat "$f"; } >"$dir/seed$n-0"
          { printf '\033'; cat "$f"; } >"$dir/seed$n-1b"
        done
      done ;;
    event_stream)
      for f in $(grep -l '"schema": *"gpucost.events"' -r testdata/golden); do n=$((n + 1)); cp "$f" "$dir/seed$n"; done ;;
    features)
      for f in $(grep -l '"schema": *"gpucost.features"' -r testdata/golden); do n=$((n + 1)); cp "$f" "$dir/seed$n"; done ;;
    extract)  # an option byte (window flags, threshold, chain window), then an events stream
      for f in $(grep -l '"schema": *"gpucost.events"' -r testdata/golden); do
        n=$((n + 1))
        { printf '\000'; cat "$f"; } >"$dir/seed$n-0"
        { printf '\017'; cat "$f"; } >"$dir/seed$n-f"
      done ;;
    time_zone)  # the machine's zone files (not kept in the tree): fixed and DST zones, slim or fat
      for f in UTC Europe/Berlin America/New_York Australia/Lord_Howe Europe/Dublin Africa/Casablanca Asia/Kolkata; do
        [ -f "/usr/share/zoneinfo/$f" ] || continue
        n=$((n + 1)); cp "/usr/share/zoneinfo/$f" "$dir/seed$n"
      done ;;
    config)
      for f in testdata/samples/*.toml; do
        n=$((n + 1)); cp "$f" "$dir/seed$n"
        { cat "$f"; printf '\000electricity.price_per_kwh=0.3\nlocal.lifetime_years = 4'; } >"$dir/seed$n-set"
      done
      for f in data/cloud-offers.toml testdata/clouds/*.toml testdata/clouds/sky/*/*/vms.csv; do
        n=$((n + 1)); cp "$f" "$dir/seed$n"
      done ;;
  esac
}

run_one() {  # target -> 0 clean, 1 finding
  local t=$1 out=$work/$1
  rm -rf "$out/artifacts" && mkdir -p "$out/corpus" "$out/artifacts"
  make_seeds "$t" "$out/seeds"
  # -max_len: the biggest seeds are ~40 kB; longer inputs add time, not coverage.
  # FUZZ_RUNS=N (CI): a fixed number of runs from a fixed seed, so that a run that passes here
  # passes on any machine; otherwise fuzz for $secs seconds.
  local budget="-max_total_time=$secs"
  [ -n "${FUZZ_RUNS:-}" ] && budget="-runs=$FUZZ_RUNS -seed=1"
  if (cd "$out" && "$root/$build/tools/fuzz/fuzz_$t" $budget -timeout=5 -rss_limit_mb=512 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$out/artifacts/" corpus seeds >"$out/log" 2>&1) &&
     ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:' "$out/log"; then
    echo "$t ok"
  else
    echo "$t FAILED"
  fi
}
export -f run_one make_seeds seed_dirs
export root secs work build FUZZ_RUNS

echo "== fuzzing ${#targets[@]} targets, ${secs}s each, $jobs at a time"
mkdir -p "$work"
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}' >"$work/results"

fail=0
printf '%-18s %12s %8s %10s  %s\n' target executions seconds corpus result
for t in "${targets[@]}"; do
  log=$work/$t/log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  time=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  units=$(find "$work/$t/corpus" -type f | wc -l)
  res=$(grep -E "^$t " "$work/results" | awk '{print $2}')
  printf '%-18s %12s %8s %10s  %s\n' "$t" "${execs:-?}" "${time:-?}" "$units" "${res:-FAILED}"
  if [ "$res" != ok ]; then
    fail=1
    echo "---- $t: $log (crash inputs in $work/$t/artifacts)"
    grep -E -A30 '==[0-9]+== ?ERROR|runtime error:|accounting broken|^SUMMARY' "$log" | head -60 || tail -30 "$log"
  fi
done
[ $fail -eq 0 ] && echo "== fuzzing passed" || { echo "== fuzzing FAILED"; exit 1; }

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
trap 'rm -rf "$work"' EXIT
failed=0
compared=0

# run NAME JOBS ARGS...: gpucost ARGS with -j JOBS; stdout, stderr and status in $work/NAME.JOBS
run() {
  local name=$1 jobs=$2
  shift 2
  "$gpucost" "$1" -j "$jobs" "${@:2}" > "$work/$name.$jobs.out" 2> "$work/$name.$jobs.err"
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
same several.prep prep -q "$samples/faults-storm_query.csv" "$samples/faults-storm_dmesg.txt" \
  "$samples/faults-xid79_kern.log"

echo "$compared comparisons of -j 1 and -j 3"
exit $failed

#!/usr/bin/env bash
# Error messages that name their source and hint in its syntax: a closed stdout is not a full disk,
# a --set value is corrected with --set, a config file's value names the file.
#   messages.sh GPUCOST TESTDATA        exit 0 = pass, else fail with the first wrong message
set -uo pipefail
gpucost=$1
testdata=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export NO_COLOR=1 TZ=UTC
sample=$testdata/samples/rtx4090_finetune_query.csv
config=$testdata/samples/workstation.toml
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect NAME STATUS PATTERN -- command...
  local name=$1 want=$2 pattern=$3
  shift 4
  "$@" > "$work/out" 2> "$work/err"
  local status=$?
  [ "$status" = "$want" ] || fail "$name: exit $status, want $want: $(cat "$work/err")"
  grep -qF -- "$pattern" "$work/err" || fail "$name: stderr lacks '$pattern': $(cat "$work/err")"
}

# stdout closed: the hint says so (it used to say "check the free space").
"$gpucost" prep --host h "$sample" >&- 2> "$work/err"
[ $? = 2 ] || fail "prep >&-: want exit 2: $(cat "$work/err")"
grep -qF 'stdout: write failed: Bad file descriptor' "$work/err" || fail "prep >&-: $(cat "$work/err")"
grep -qF 'hint: stdout is closed' "$work/err" || fail "prep >&-: hint: $(cat "$work/err")"
grep -q 'free space' "$work/err" && fail "prep >&-: still blames the disk: $(cat "$work/err")"
if [ -w /dev/full ]; then
  # A full disk, through stdout (-o /dev/full itself is refused: a device is never opened as an output).
  expect "prep > /dev/full" 2 'hint: check the free space' -- \
    sh -c 'exec "$0" prep --host h -o /dev/stdout "$1" > /dev/full' "$gpucost" "$sample"
  expect "prep -o /dev/full" 2 '/dev/full: is a device, not a regular file: not written' -- \
    "$gpucost" prep --host h -o /dev/full "$sample"
fi
# stdin closed: nothing on stdout (no stream header), the error names stdin; a file input likewise.
for args in "" "-" "--host h -"; do
  "$gpucost" prep $args <&- > "$work/out" 2> "$work/err"
  [ $? = 2 ] || fail "prep $args <&-: want exit 2: $(cat "$work/err")"
  [ ! -s "$work/out" ] || fail "prep $args <&-: wrote to stdout: $(head -c 300 "$work/out")"
  grep -qF '<stdin>: standard input is closed' "$work/err" || fail "prep $args <&-: $(cat "$work/err")"
done

# A --set value is corrected in --set syntax, a file's in TOML, and the file is named.
expect "--set currency" 2 'hint: use three capital letters, e.g. --set currency=EUR' -- \
  "$gpucost" breakeven -c "$config" --set currency=eur "$sample"
grep -qF 'error: --set: currency '"'"'eur'"'"' is not a currency code' "$work/err" || fail "--set currency: $(cat "$work/err")"
sed 's/^currency = "EUR"/currency = "eu"/' "$config" > "$work/costs.toml"
expect "file currency" 2 "error: $work/costs.toml: currency 'eu' is not a currency code" -- \
  "$gpucost" breakeven -c "$work/costs.toml" "$sample"
grep -qF 'e.g. currency = "EUR"' "$work/err" || fail "file currency: hint: $(cat "$work/err")"
expect "--set exchange" 2 'e.g. --set exchange.USD=0.92' -- \
  "$gpucost" breakeven -c "$config" --set exchange.USD=abc "$sample"
expect "--set number" 2 'hint: e.g. --set local.hardware_price=0.30' -- \
  "$gpucost" breakeven -c "$config" --set local.hardware_price=cheap "$sample"
# --mode: the textfile node_exporter reads gets the mode asked for, even under umask 077.
(umask 077 && "$gpucost" breakeven -q -c "$config" --tz UTC --host h --mode 0644 --prom "$work/g.prom" -o "$work/t.txt" "$sample") ||
  fail "--mode 0644: $(cat "$work/err")"
[ "$(stat -c %a "$work/g.prom")" = 644 ] || fail "--mode 0644 gave $(stat -c %a "$work/g.prom")"
expect "--mode bad" 2 "error: --mode: 'rw' is not a file mode in octal" -- \
  "$gpucost" breakeven -c "$config" --mode rw --prom "$work/h.prom" "$sample"
[ ! -e "$work/h.prom" ] || fail "--mode rw still wrote the textfile"
# A typo of a command, a subcommand or an option names the nearest one (exit 2); nothing is
# suggested when no name is close.
typo() {  # typo NAME ERROR HINT -- command...
  local name=$1 error=$2 hint=$3
  shift 4
  expect "$name" 2 "gpucost: error: $error" -- "$@"
  grep -qxF -- "  hint: $hint" "$work/err" || fail "$name: hint: $(cat "$work/err")"
  [ ! -s "$work/out" ] || fail "$name: wrote to stdout: $(cat "$work/out")"
}
typo "brekeven" "unknown command 'brekeven'" "did you mean 'gpucost breakeven'?" -- "$gpucost" brekeven "$sample"
typo "reprot" "unknown command 'reprot'" "did you mean 'gpucost report'?" -- "$gpucost" reprot -o r.html "$sample"
typo "offers lst" "unknown command 'offers lst'" "did you mean 'gpucost offers list'?" -- "$gpucost" offers lst
typo "--confg" "unknown option '--confg'" "did you mean '--config'?" -- \
  "$gpucost" breakeven --confg "$config" "$sample"
typo "--confg=" "unknown option '--confg'" "did you mean '--config'?" -- \
  "$gpucost" breakeven "--confg=$config" "$sample"
typo "offers list --kinds" "unknown option '--kinds'" "did you mean '--kind'?" -- "$gpucost" offers list --kinds spot
typo "far command" "unknown command 'xyzzy'" "run 'gpucost --help' for the list of commands" -- "$gpucost" xyzzy
typo "far option" "unknown option '--qqqqqq'" "run 'gpucost breakeven --help' for its options" -- \
  "$gpucost" breakeven --qqqqqq "$sample"
# Other errors keep CLI11's message: an option's value is not taken for a misspelt name.
expect "no command" 2 "A subcommand is required" -- "$gpucost"
expect "no value" 2 "gpucost: error: --tz" -- "$gpucost" breakeven --tz
grep -q unknown "$work/err" && fail "no value: $(cat "$work/err")"

# A --clouds file whose offer lacks a field: the error names the field, the hint every field.
printf '[[offer]]\nname = "colo"\nprovider = "X"\ninstance = "i"\ngpu_model = "RTX 4090"\ncurrency = "EUR"\ndate_seen = "2026-01-01"\nsource = "quote"\n' \
  > "$work/mine.toml"
expect "--clouds missing field" 2 "offer 'colo': 'price_per_hour' is missing" -- \
  "$gpucost" offers list --clouds "$work/mine.toml"
grep -qF 'hint: an [[offer]] needs name, provider, instance, gpu_model, price_per_hour, currency, date_seen and source' \
  "$work/err" || fail "--clouds missing field: hint: $(cat "$work/err")"
# libcurl is opened at the first fetch, not linked: without it, the fetch (not gpucost) fails and
# says how to get it. Port 9 on loopback: nothing is sent anywhere.
GPUCOST_LIBCURL=/nonexistent/libcurl.so.4 expect "no libcurl" 2 'cannot load libcurl: /nonexistent/libcurl.so.4' -- \
  "$gpucost" offers update --provider aws --region us-east-1 --endpoint aws=http://127.0.0.1:9/ --dry-run
grep -qF 'hint: gpucost fetches over HTTP with libcurl (ABI 4); install it: apt-get install libcurl4' "$work/err" ||
  fail "no libcurl: hint: $(cat "$work/err")"
echo "ok"

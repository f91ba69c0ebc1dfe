#!/usr/bin/env bash
# The host of a run comes from the logs (docs/formats.md, "Host"): inputs that name no host (a
# query CSV) take the one host the other inputs name; only when none names one is it this
# machine's name, and the answer says so; --host wins. The same through prep | extract.
#   host_from_logs.sh GPUCOST TESTDATA        exit 0 = pass
set -uo pipefail
gpucost=$1 testdata=$2
samples=$testdata/samples
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export TZ=UTC LC_ALL=C GPUCOST_TODAY=2026-12-02 XDG_DATA_HOME=$work/no-user-data
csv=$samples/report-h100x2_query.csv kern=$samples/report-h100x2_kern.log
config=(-c "$samples/h100-server.toml" --tz Europe/Berlin)
machine=$(hostname)
[ "$machine" != h100box ] || fail "this machine is called h100box: the test cannot tell the names apart"

# 1. The kernel log names h100box: the CSV's samples take it.
out=$("$gpucost" breakeven "${config[@]}" "$csv" "$kern" 2>/dev/null) || fail "breakeven CSV + kern.log failed"
grep -q "on 2 GPUs, host h100box," <<<"$out" || fail "the kernel log's host was not taken: $(grep '^job' <<<"$out")"
grep -q "this machine's name" <<<"$out" && fail "a host the logs name is said to be this machine's"
json=$("$gpucost" breakeven --json "${config[@]}" "$csv" "$kern" 2>/dev/null)
grep -q '"host": "h100box", "host_basis": "logs"' <<<"$json" || fail "JSON: no host h100box from the logs"

# 2. The CSV alone names no host: this machine's name, said.
out=$("$gpucost" breakeven "${config[@]}" "$csv" 2>/dev/null) || fail "breakeven CSV failed"
grep -q "host $machine: this machine's name, no input names a host; --host sets it" <<<"$out" ||
  fail "the assumed host is not said: $(head -5 <<<"$out")"
json=$("$gpucost" breakeven --json "${config[@]}" "$csv" 2>/dev/null)
grep -q "\"host\": \"$machine\", \"host_basis\": \"machine\"" <<<"$json" || fail "JSON: host_basis is not machine"

# 3. --host wins over the logs.
out=$("$gpucost" breakeven "${config[@]}" --host rack7 "$csv" "$kern" 2>/dev/null)
grep -q "host rack7," <<<"$out" || fail "--host did not win"
grep -q "this machine's name" <<<"$out" && fail "--host is said to be this machine's name"

# 4. The pipeline gives the same host and the same words: the stream's header carries the basis.
"$gpucost" prep --tz Europe/Berlin "$csv" "$kern" >"$work/both.events" 2>/dev/null || fail "prep failed"
head -1 "$work/both.events" | grep -q '"host_basis":"logs"' || fail "prep's header lacks host_basis: $(head -1 "$work/both.events")"
grep -q '"source":"query-csv","host":"h100box"' "$work/both.events" || fail "prep: the CSV's events lack host h100box"
"$gpucost" extract "$work/both.events" -o "$work/both.json" 2>/dev/null || fail "extract failed"
grep -q '"basis": "logs"' "$work/both.json" || fail "features: no host basis"
out=$("$gpucost" breakeven "${config[@]}" "$work/both.json" 2>/dev/null)
grep -q "host h100box," <<<"$out" || fail "pipeline: not host h100box"
"$gpucost" prep --tz Europe/Berlin "$csv" 2>/dev/null | "$gpucost" extract - 2>/dev/null |
  "$gpucost" breakeven "${config[@]}" - >"$work/alone.txt" 2>/dev/null || fail "pipeline of the CSV alone failed"
grep -q "host $machine: this machine's name" "$work/alone.txt" || fail "pipeline: the assumed host is not said"
# 5. The host names are read ahead from the kernel log's start: under -v that look-ahead is not
# logged as an input of its own (it was, with an empty name: "info: : 12 lines ...").
"$gpucost" prep -v --tz Europe/Berlin "$csv" "$kern" 2>"$work/v.log" >/dev/null || fail "prep -v failed"
grep -q 'info: : ' "$work/v.log" && fail "-v logs an input without a name: $(grep 'info: : ' "$work/v.log")"
[ "$(grep -c ' lines (' "$work/v.log")" = 2 ] || fail "-v should sum up each of the 2 inputs once: $(cat "$work/v.log")"
"$gpucost" prep -vv --tz Europe/Berlin "$kern" 2>"$work/vv.log" >/dev/null || fail "prep -vv failed"
grep -q "report-h100x2_kern.log (its start, read ahead" "$work/vv.log" || fail "-vv does not name the look-ahead"
echo "ok: the host from the logs, this machine's name said, --host first, the same through prep | extract, -v's lines"

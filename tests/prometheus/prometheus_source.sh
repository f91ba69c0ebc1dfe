#!/usr/bin/env bash
# --prometheus URL against tests/prometheus/fake_prometheus.py on 127.0.0.1, which serves the saved
# answers of testdata/prometheus-json/ through Prometheus' query_range: what the server gives must
# be what the saved file gives (nothing leaves this machine: the proxies are unset).
#   prometheus_source.sh GPUCOST TESTDATA CASE
# Cases: same-as-file, split, gaps, token, basic-auth, errors. Without python3 the test says so and
# passes.
set -uo pipefail
gpucost=$1 testdata=$2 case=$3
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (the stand-in server needs it)"; exit 0; }

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
unset GPUCOST_PROMETHEUS_TOKEN GPUCOST_PROMETHEUS_TOKEN_FILE GPUCOST_PROMETHEUS_USER GPUCOST_PROMETHEUS_PASSWORD \
  GPUCOST_PROMETHEUS_PASSWORD_FILE GPUCOST_PROMETHEUS_CA_FILE GPUCOST_PROMETHEUS_INSECURE GPUCOST_PROMETHEUS_MAX_POINTS
export NO_PROXY='*' no_proxy='*' GPUCOST_HTTP_BACKOFF_MS=10

fail() { echo "FAIL ($case): $*"; [ -f "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err"; exit 1; }

# serve FILE [SERVER-ARGS...]: the stand-in on a free port, its base URL in $base. The lookback of
# 1 s stands in for Prometheus' staleness markers: a series missing from a scrape has no point there.
serve() {
  local series=$1
  shift
  python3 "$here/fake_prometheus.py" --series "$series" --port-file "$tmp/port" --log "$tmp/hits.log" \
    --lookback-ms 1000 "$@" &
  server_pid=$!
  for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
  [ -s "$tmp/port" ] || fail "the stand-in server did not start"
  base="http://127.0.0.1:$(cat "$tmp/port")"
}

# run NAME ARGS...: gpucost ARGS, stdout to $tmp/NAME, stderr to $tmp/err, exit status in $rc.
run() {
  local name=$1
  shift
  "$gpucost" "$@" >"$tmp/$name" 2>"$tmp/err"
  rc=$?
}
hits() { grep -c "api/v1/query_range" "$tmp/hits.log" || true; }

h100="$testdata/prometheus-json/dcgm_h100x2_10min.json"
k8s="$testdata/prometheus-json/dcgm_k8s_a100_pods.jsonl"
# The saved answers start at 2024-06-12T13:02:15Z, a point every 15 s for ten minutes.
window=(--from 2024-06-12T13:02:15Z --to 2024-06-12T13:12:30Z)

case $case in
same-as-file)
  serve "$h100"
  run from-server.json extract --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "extract --prometheus: exit $rc"
  run from-file.json extract "$h100" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "extract of the saved file: exit $rc"
  cmp -s "$tmp/from-server.json" "$tmp/from-file.json" || fail "the features differ from the saved file's"
  [ "$(hits)" -eq 1 ] || fail "expected 1 query for 41 points, got $(hits)"
  grep -q 'query=%7B__name__%3D~%22DCGM_FI_DEV_POWER_USAGE%7C' "$tmp/hits.log" || fail "no __name__ regex selector"
  grep -q '&start=1718197335&end=1718197949.999&step=15' "$tmp/hits.log" || fail "start, end or step not as asked"
  # prep: the same events (the summary names the input by its URL).
  run server.events prep --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "prep --prometheus: exit $rc"
  run file.events prep "$h100" "${window[@]}"
  cmp -s <(grep '"type":"event"' "$tmp/server.events") <(grep '"type":"event"' "$tmp/file.events") ||
    fail "prep --prometheus wrote other events than prep of the saved file"
  grep -q "\"path\":\"prometheus:$base\"" "$tmp/server.events" || fail "the summary does not name prometheus:$base"
  # breakeven: the same verdict and figures.
  run server.verdict breakeven --json -c "$testdata/samples/h100-server.toml" --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "breakeven --prometheus: exit $rc"
  run file.verdict breakeven --json -c "$testdata/samples/h100-server.toml" "$h100" "${window[@]}"
  cmp -s <(grep -v '"path"' "$tmp/server.verdict") <(grep -v '"path"' "$tmp/file.verdict") ||
    fail "breakeven --prometheus differs from breakeven of the saved file"
  # --match narrows the selector; a host that is not there is an error, not an empty answer.
  run matched.json extract --prometheus "$base" --match 'Hostname="node01"' --match 'gpu=~"0|1"' "${window[@]}"
  [ "$rc" -eq 0 ] && cmp -s "$tmp/matched.json" "$tmp/from-file.json" || fail "--match of the host changed the answer"
  grep -q '%2CHostname%3D%22node01%22%2Cgpu%3D~%220%7C1%22%7D' "$tmp/hits.log" || fail "the matchers are not in the selector"
  run none.json extract --prometheus "$base" --match 'Hostname="node99"' "${window[@]}"
  [ "$rc" -eq 2 ] && grep -q 'no dcgm-exporter or nvidia_gpu_exporter series from 2024-06-12T13:02:15Z' "$tmp/err" ||
    fail "no clear error for a --match without series (exit $rc)"
  ;;
split)
  # Ranges of at most 10 steps: 41 points in 5 queries, the same features.
  serve "$h100" --max-points 10
  run from-file.json extract "$h100" "${window[@]}"
  run refused.json extract --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 2 ] && grep -q 'exceeded maximum resolution of 11,000 points per timeseries' "$tmp/err" ||
    fail "the server's point limit is not shown (exit $rc)"
  : >"$tmp/hits.log"
  GPUCOST_PROMETHEUS_MAX_POINTS=10 run from-server.json extract --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "extract in ranges: exit $rc"
  [ "$(hits)" -eq 5 ] || fail "expected 5 ranges, got $(hits)"
  grep -q '&start=1718197335&end=1718197470&' "$tmp/hits.log" && grep -q '&start=1718197485&end=1718197620&' \
    "$tmp/hits.log" || fail "the ranges do not follow each other on the step grid"
  cmp -s "$tmp/from-server.json" "$tmp/from-file.json" || fail "the features of 5 ranges differ from the saved file's"
  # A step of 30 s asks every other point.
  GPUCOST_PROMETHEUS_MAX_POINTS=10 run step30.events prep --prometheus "$base" --step 30s "${window[@]}"
  [ "$rc" -eq 0 ] && grep -q '&step=30' "$tmp/hits.log" || fail "--step 30s not asked (exit $rc)"
  [ "$(grep -c '"kind":"sample"' "$tmp/step30.events")" -eq 42 ] || fail "--step 30s: expected 21 x 2 samples"
  ;;
gaps)
  # A stale series (4 missing steps) and a NaN: the gap reaches coverage as from the saved file.
  serve "$k8s"
  k8s_window=(--from 2024-06-12T13:02:15Z --to 2024-06-12T13:07:15Z)
  run from-server.json extract --prometheus "$base" "${k8s_window[@]}"
  [ "$rc" -eq 0 ] || fail "extract --prometheus: exit $rc"
  run from-file.json extract "$k8s" "${k8s_window[@]}"
  cmp -s "$tmp/from-server.json" "$tmp/from-file.json" || fail "the features differ from the saved file's"
  python3 - "$tmp/from-server.json" <<'EOF' || fail "no coverage gap"
import json, sys
gpu = json.load(open(sys.argv[1]))["gpus"][0]["indicators"]
cov = gpu["coverage"]["value"]
assert cov is not None and cov < 1, cov
EOF
  ;;
token)
  serve "$h100" --token 's3cr3t-t0ken'
  run out.json extract --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 2 ] && grep -q 'HTTP 401' "$tmp/err" && grep -q 'GPUCOST_PROMETHEUS_TOKEN' "$tmp/err" ||
    fail "no credentials: no HTTP 401 error with a hint (exit $rc)"
  printf 's3cr3t-t0ken\n' >"$tmp/token"
  GPUCOST_PROMETHEUS_TOKEN_FILE="$tmp/token" run out.json extract --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "GPUCOST_PROMETHEUS_TOKEN_FILE: exit $rc"
  GPUCOST_PROMETHEUS_TOKEN=wrong run out.json extract -v --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 2 ] || fail "a wrong token: exit $rc"
  GPUCOST_PROMETHEUS_TOKEN=s3cr3t-t0ken run out.events prep -v --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "GPUCOST_PROMETHEUS_TOKEN: exit $rc"
  ! grep -q 's3cr3t' "$tmp/err" "$tmp/out.events" || fail "the token leaked into the output"
  ;;
basic-auth)
  serve "$h100" --basic 'alice:pa55word'
  GPUCOST_PROMETHEUS_USER=alice GPUCOST_PROMETHEUS_PASSWORD=pa55word run out.json extract --prometheus "$base" \
    "${window[@]}"
  [ "$rc" -eq 0 ] || fail "basic auth from the environment: exit $rc"
  GPUCOST_PROMETHEUS_USER=alice run out.json extract --prometheus "$base" "${window[@]}"
  [ "$rc" -eq 2 ] && grep -q 'GPUCOST_PROMETHEUS_USER is set without GPUCOST_PROMETHEUS_PASSWORD' "$tmp/err" ||
    fail "a user without a password is not refused (exit $rc)"
  # In the URL (it would show in ps, history and logs): refused, the password never shown, the
  # environment's variables named; a user with an empty password too.
  : >"$tmp/hits.log"
  run out.events prep --prometheus "http://alice:pa55word@${base#http://}" "${window[@]}"
  [ "$rc" -eq 2 ] || fail "basic auth in the URL: exit $rc, expected 2"
  grep -q "^gpucost: error: --prometheus: '$base' holds a user name or password: refused$" "$tmp/err" ||
    fail "no one-line refusal"
  grep -q 'hint: .*GPUCOST_PROMETHEUS_USER.*GPUCOST_PROMETHEUS_PASSWORD_FILE.*GPUCOST_PROMETHEUS_TOKEN' "$tmp/err" ||
    fail "the hint does not name the variables"
  ! grep -q 'pa55word' "$tmp/err" "$tmp/out.events" || fail "the password leaked into the output"
  [ "$(hits)" -eq 0 ] || fail "the server was asked"
  run out.json extract --prometheus "http://alice@${base#http://}" "${window[@]}"
  [ "$rc" -eq 2 ] && grep -q 'holds a user name or password' "$tmp/err" && ! grep -q 'alice' "$tmp/err" ||
    fail "a user without a password: exit $rc, or the user shown"
  ;;
errors)
  serve "$h100"
  expect() {  # expect PATTERN ARGS...: exit 2 and one error line matching PATTERN, with a hint
    local pattern=$1
    shift
    run out "$@"
    [ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2"
    grep -q "^gpucost: error: .*$pattern" "$tmp/err" || fail "$*: no error matching '$pattern'"
    grep -q '^  hint: ' "$tmp/err" || fail "$*: no hint"
  }
  expect 'prometheus:http://127.0.0.1:1: no answer: ' extract --prometheus http://127.0.0.1:1 "${window[@]}"
  expect 'HTTP 503 (after 3 tries): the server says "the query was cancelled' extract --prometheus "$base/s/503" "${window[@]}"
  expect 'the answer is not a Prometheus API response' extract --prometheus "$base/s/html" "${window[@]}"
  expect 'HTTP 404' extract --prometheus "$base/s/404" "${window[@]}"
  expect 'no --from' extract --prometheus "$base"
  expect "is not an http(s) URL" extract --prometheus "127.0.0.1:9090" "${window[@]}"
  expect 'is not a base URL' extract --prometheus "$base/api/v1/query_range" "${window[@]}"
  expect "is not a label matcher" extract --prometheus "$base" --match 'Hostname=node01' "${window[@]}"
  grep -q "hint: the value goes in double quotes: --match 'Hostname=\"node01\"'" "$tmp/err" || fail "no quoting hint"
  expect "'fast' is not a duration" extract --prometheus "$base" --step fast "${window[@]}"
  expect 'the window .* is empty' extract --prometheus "$base" --from 2024-06-12T13:12:30Z --to 2024-06-12T13:02:15Z
  # --match picks series of a saved answer too; of a log without labels it is refused.
  expect '\-\-match: no input has Prometheus series' extract --match 'Hostname="node01"' \
    "$testdata/prometheus-json/h100x2_10min_query.csv"
  expect '\-\-header: only with --prometheus' extract --header 'X-Scope-OrgID: t1' "$h100"
  expect '\-\-step: only with --prometheus' breakeven -c "$testdata/samples/h100-server.toml" --step 15s "$h100"
  [ "$(wc -l <"$tmp/err")" -eq 2 ] || fail "the error is not one line and a hint"
  ;;
https-redirect)
  # From https, a redirect is followed to https only: never down to plain http.
  command -v openssl >/dev/null || { echo "SKIP: openssl is not installed (the https stand-in needs a certificate)"; exit 77; }
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null || fail "openssl could not make a certificate"
  serve "$h100" --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem"
  https_base="https://127.0.0.1:$(cat "$tmp/port")"
  export GPUCOST_PROMETHEUS_CA_FILE="$tmp/cert.pem" GPUCOST_PROMETHEUS_TOKEN=s3cr3t
  run out.json extract --prometheus "$https_base/s/moved" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "an https redirect to https: exit $rc"
  run out.json extract --prometheus "$https_base/s/downgrade" "${window[@]}"
  [ "$rc" -eq 2 ] && grep -q 'HTTP 302 to another protocol, not followed (an https URL is only followed to https)' \
    "$tmp/err" || fail "a redirect from https to http: exit $rc"
  ! grep -q s3cr3t "$tmp/err" || fail "the token was shown"
  ;;
hostile)
  # A server's words reach stderr quoted, on one line, escaped: no escape byte, no line of its own.
  serve "$h100"
  run out.json extract --prometheus "$base/s/hostile" "${window[@]}"
  [ "$rc" -eq 2 ] || fail "a 500: exit $rc, expected 2"
  grep -qF 'HTTP 500 (after 3 tries): the server says "\x1b]0;owned\a\x1b[31mred\x1b[0m gpucost: error: forged"' \
    "$tmp/err" || fail "the server's error is not quoted and escaped"
  cp "$tmp/err" "$tmp/err.500"
  run out.json extract --prometheus "$base/s/warns" "${window[@]}"
  [ "$rc" -eq 0 ] || fail "a warning: exit $rc"
  grep -qF 'the server warns: "\x1b]0;owned' "$tmp/err" || fail "the warning is not quoted and escaped"
  [ "$(grep -c 'the server warns' "$tmp/err")" -eq 1 ] || fail "the server's warning is not said once"
  for f in "$tmp/err.500" "$tmp/err"; do
    ! grep -q $'\033' "$f" || fail "an escape byte reached stderr"
    ! grep -q $'\a' "$f" || fail "a BEL reached stderr"
    ! grep -q '^gpucost: error: forged' "$f" || fail "the server printed a line of its own"
  done
  ;;
*)
  echo "unknown case $case"
  exit 2
  ;;
esac
echo "ok ($case)"

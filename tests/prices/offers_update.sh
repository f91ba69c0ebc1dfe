#!/usr/bin/env bash
# gpucost offers update against the recorded price lists of testdata/price-lists/, served on
# 127.0.0.1 by tests/prices/fixture_server.py (nothing leaves this machine: the proxies are unset).
#   offers_update.sh GPUCOST TESTDATA CASE
# Cases: end-to-end, dry-run, retry-429, fail-500, truncated, invalid-json, fail-fast-404,
# keep-other-providers, gcp, hostile, no-network. Without python3 the test says so and passes.
set -uo pipefail
gpucost=$1 testdata=$2 case=$3
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed (the fixture server needs it)"; exit 0; }

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY GPUCOST_GCP_API_KEY
export NO_PROXY='*' no_proxy='*' GPUCOST_HTTP_BACKOFF_MS=10 HOME="$tmp/home" XDG_DATA_HOME="$tmp/xdg"
mkdir -p "$HOME" "$XDG_DATA_HOME"

python3 "$here/fixture_server.py" --root "$testdata/price-lists" --port-file "$tmp/port" --log "$tmp/hits.log" &
server_pid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || { echo "FAIL: the fixture server did not start"; exit 1; }
base="http://127.0.0.1:$(cat "$tmp/port")"

fail() { echo "FAIL ($case): $*"; [ -f "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err"; exit 1; }
# update [SCENARIO-FOR-AZURE SCENARIO-FOR-AWS SCENARIO-FOR-ECB] ARGS...: runs the update, rc in $rc.
endpoint() { [ "$1" = plain ] && echo "$base/$2" || echo "$base/s/$1/$2"; }
update() {
  local az=$1 aw=$2 ec=$3
  shift 3
  "$gpucost" offers update --endpoint "azure=$(endpoint "$az" azure)" --endpoint "aws=$(endpoint "$aw" aws)" \
    --endpoint "ecb=$(endpoint "$ec" ecb)" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
hits() { grep -c "^$1 $2" "$tmp/hits.log" || true; }
good_catalogue() {
  update plain plain plain -o "$tmp/offers.toml"
  [ "$rc" -eq 0 ] || fail "a plain update failed (rc $rc)"
  cp "$tmp/offers.toml" "$tmp/before.toml"
}
unchanged() { cmp -s "$tmp/before.toml" "$tmp/offers.toml" || fail "the earlier catalogue changed"; }

case $case in
end-to-end)
  update plain plain plain -o "$tmp/offers.toml"
  [ "$rc" -eq 0 ] || fail "exit $rc"
  c="$tmp/offers.toml"
  grep -q '^name = "aws-p3.8xlarge"$' "$c" || fail "no aws-p3.8xlarge"
  grep -q '^price_per_hour = 12.24$' "$c" || fail "the p3.8xlarge price is not 12.24"
  grep -q '^name = "aws-p3.8xlarge-reserved-3y"$' "$c" || fail "no 3-year reservation"
  grep -q '^name = "azure-nc24ads-a100-v4"$' "$c" || fail "no azure-nc24ads-a100-v4"
  grep -q '^price_per_hour = 3.673$' "$c" || fail "the NC24ads A100 v4 price is not 3.673"
  grep -q '^name = "azure-nc24ads-a100-v4-spot"$' "$c" || fail "no spot offer"
  grep -q '^name = "azure-nd96isr-h100-v5"$' "$c" || fail "no azure-nd96isr-h100-v5 (page 2)"
  # 19303 USD for one year: 19303 / 8760 = 2.203539 per hour.
  grep -q '^price_per_hour = 2.203539$' "$c" || fail "the 1-year reservation is not amortised to 2.203539"
  grep -q '^\[exchange\]$' "$c" && grep -q '^USD = 1.3486$' "$c" && grep -q '^date = "2010-04-20"$' "$c" ||
    fail "no [exchange] table with the ECB rates"
  ! grep -qi 'windows\|low priority\|westus2\|r5d\|c3.xlarge' "$c" ||
    fail "a Windows, Low Priority, other-region or non-GPU offer"
  [ "$(grep -c '^\[\[offer\]\]$' "$c")" -eq 15 ] || fail "expected 15 offers, got $(grep -c '^\[\[offer\]\]$' "$c")"
  # Savings plans, from their own price file: each plan's rate, its term and kind.
  grep -q '^name = "aws-p3.8xlarge-savings-plan-compute-1y"$' "$c" || fail "no Compute Savings Plan"
  grep -q '^name = "aws-p3.8xlarge-savings-plan-ec2-instance-1y-partial-upfront"$' "$c" ||
    fail "no EC2 Instance Savings Plan"
  grep -q '^kind = "savings-plan"$' "$c" && grep -q '^price_per_hour = 8.6424$' "$c" ||
    fail "the Compute Savings Plan's kind or rate is wrong"
  [ "$(hits plain /aws/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json)" -eq 1 ] ||
    fail "the savings plans' index was not fetched once"
  grep -q '^name = "azure-nc24ads-a100-v4-savings-plan-3y"$' "$c" || fail "no Azure savings plan"
  grep -q 'api-version=2023-01-01-preview' "$tmp/hits.log" || fail "Azure was not asked for the version with savings plans"
  # Reservations paid upfront keep their payment and term.
  grep -q '^name = "aws-p3.8xlarge-reserved-1y-partial-upfront"$' "$c" || fail "no Partial Upfront reservation"
  grep -q '^upfront = 131472$' "$c" || fail "the All Upfront reservation lost its payment"
  [ "$(hits plain /azure/api/retail/prices)" -eq 2 ] || fail "the Azure pages were not both fetched"
  grep -q 'skip=100' "$tmp/hits.log" || fail "NextPageLink was not followed"
  grep -q 'gcp: skipped: GPUCOST_GCP_API_KEY is not set' "$tmp/err" || fail "no note that gcp was skipped"
  # The catalogue goes where breakeven looks for it, and breakeven still lists its offers.
  update plain plain plain
  [ "$rc" -eq 0 ] && [ -s "$XDG_DATA_HOME/gpucost/offers.toml" ] ||
    fail "not written to \$XDG_DATA_HOME/gpucost/offers.toml"
  "$gpucost" breakeven --list-clouds >"$tmp/list" 2>"$tmp/err" || fail "breakeven --list-clouds failed"
  grep -q 'aws-p5.48xlarge' "$tmp/list" || fail "breakeven --list-clouds lists no offers"
  # An answer in euros prices the updated USD offer with the newest ECB rates: the recorded ones
  # are of 2010, older than those built into gpucost (2026-10-02: 3.673 / 1.1225 = 3.27216 EUR/h).
  eur() {
    "$gpucost" breakeven -c "$testdata/samples/workstation.toml" --set currency=EUR --cloud azure-nc24ads-a100-v4 \
      --tz Europe/Berlin --host workstation --json "$testdata/samples/rtx4090_finetune_query.csv" >"$tmp/eur.json" \
      2>"$tmp/err" || fail "breakeven in EUR with the stored rates failed"
  }
  eur
  grep -q '"rate_per_hour": 3.2721' "$tmp/eur.json" || fail "not converted at 1.1225: $(grep -o '"rate_per_hour": [0-9.]*' "$tmp/eur.json")"
  grep -q '"exchange_source": "ECB euro reference rates of 2026-10-02 built into gpucost"' "$tmp/eur.json" ||
    fail "not the built-in rates"
  # The stored rates as of a later day win (1.3486 USD per EUR: 3.673 / 1.3486 = 2.72357 EUR/h),
  # and more than 90 days on breakeven warns that they are old.
  sed -i 's/^date = "2010-04-20"$/date = "2026-11-30"/' "$XDG_DATA_HOME/gpucost/offers.toml"
  eur
  grep -q '"rate_per_hour": 2.7235' "$tmp/eur.json" || fail "not converted at 1.3486: $(grep -o '"rate_per_hour": [0-9.]*' "$tmp/eur.json")"
  grep -q '"exchange_source": "ECB euro reference rates of 2026-11-30"' "$tmp/eur.json" || fail "no exchange_source"
  grep -q 'warning: the exchange rate' "$tmp/err" && fail "a warning on rates of 2 days"
  GPUCOST_TODAY=2027-04-01 eur
  grep -q 'warning: the exchange rate USD->EUR 0.74151 is of 2026-11-30, 122 days ago (the ECB.s reference rate gpucost offers update stored): run gpucost offers update' "$tmp/err" ||
    fail "no warning on the rates' age"
  ;;
dry-run)
  good_catalogue
  update plain plain plain -o "$tmp/offers.toml" --dry-run
  [ "$rc" -eq 0 ] || fail "exit $rc"
  unchanged
  grep -Eq '^aws-p3.8xlarge +12.2400 +12.2400 +\+0.0 %' "$tmp/out" || fail "no before/after line for aws-p3.8xlarge"
  grep -Eq '^azure-nc24ads-a100-v4 +3.6730 +3.6730 ' "$tmp/out" || fail "no before/after line for azure-nc24ads-a100-v4"
  grep -q 'dry run: nothing written' "$tmp/err" || fail "no dry-run note"
  # Against the built-in catalogue: its azure-nc24ads-a100-v4 at 3.67.
  rm "$tmp/offers.toml"
  update plain plain plain -o "$tmp/offers.toml" --dry-run
  [ "$rc" -eq 0 ] && [ ! -e "$tmp/offers.toml" ] || fail "a dry run wrote a catalogue"
  grep -Eq '^azure-nc24ads-a100-v4 +3.6700 +3.6730 +\+0.1 % +built-in' "$tmp/out" ||
    fail "no change against the built-in price"
  grep -Eq '^aws-p3.8xlarge +new +12.2400' "$tmp/out" || fail "a new offer is not marked new"
  ;;
retry-429)
  update 429 plain plain -o "$tmp/offers.toml"
  [ "$rc" -eq 0 ] || fail "exit $rc after a 429"
  [ "$(hits 429 /azure/api/retail/prices)" -eq 4 ] || fail "expected 2 tries of each of the 2 pages"
  grep -q 'HTTP 429; try 2 of 3' "$tmp/err" || fail "no note of the retry"
  grep -q '^name = "azure-nd96isr-h100-v5"$' "$tmp/offers.toml" || fail "the pages after the 429 are missing"
  ;;
fail-500)
  good_catalogue
  update 500 plain plain -o "$tmp/offers.toml"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  [ "$(hits 500 /azure/api/retail/prices)" -eq 3 ] || fail "expected 3 tries, got $(hits 500 /azure/api/retail/prices)"
  grep -q 'HTTP 500 (after 3 tries)' "$tmp/err" || fail "the error does not say HTTP 500 after 3 tries"
  unchanged
  for f in "$tmp"/offers.toml?*; do [ -e "$f" ] && fail "a temporary file was left behind: $f"; done
  ;;
truncated)
  good_catalogue
  update plain truncated plain -o "$tmp/offers.toml"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  [ "$(hits truncated /aws/offers/v1.0/aws/AmazonEC2/current/region_index.json)" -eq 3 ] ||
    fail "a cut body was not retried"
  unchanged
  ;;
invalid-json)
  good_catalogue
  update invalid plain plain -o "$tmp/offers.toml"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  grep -q 'azure: .*not JSON' "$tmp/err" || fail "the error does not say the answer is not JSON"
  unchanged
  ;;
fail-fast-404)
  good_catalogue
  update plain plain 404 -o "$tmp/offers.toml"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  [ "$(hits 404 /ecb/stats/eurofxref/eurofxref-daily.xml)" -eq 1 ] || fail "a 404 was retried"
  grep -q 'ecb: .*HTTP 404' "$tmp/err" || fail "the error does not name the ECB and the 404"
  unchanged
  ;;
keep-other-providers)
  good_catalogue
  # Azure alone, its list now failing on AWS's side would not matter: the AWS offers stay.
  update plain 500 plain -o "$tmp/offers.toml" --provider azure
  [ "$rc" -eq 0 ] || fail "exit $rc"
  [ "$(hits 500 /aws/offers/v1.0/aws/AmazonEC2/current/region_index.json)" -eq 0 ] || fail "AWS was asked"
  grep -q '^name = "aws-p3.8xlarge"$' "$tmp/offers.toml" || fail "the AWS offers of the earlier catalogue were dropped"
  grep -q '^name = "azure-nc24ads-a100-v4"$' "$tmp/offers.toml" || fail "no Azure offers"
  grep -q '8 kept from before' "$tmp/err" || fail "the note does not count the offers kept"
  # A GPU filter replaces only that GPU's offers.
  update plain plain plain -o "$tmp/offers.toml" --provider azure --gpu H100
  [ "$rc" -eq 0 ] || fail "exit $rc with --gpu"
  grep -q '^name = "azure-nc24ads-a100-v4"$' "$tmp/offers.toml" || fail "--gpu H100 dropped the A100 offers"
  ;;
gcp)
  update plain plain plain -o "$tmp/offers.toml" --provider gcp --endpoint "gcp=$base/gcp"
  [ "$rc" -eq 2 ] && grep -q 'GPUCOST_GCP_API_KEY' "$tmp/err" ||
    fail "--provider gcp without a key did not fail with a hint"
  GPUCOST_GCP_API_KEY=fixture-key-123 update plain plain plain -o "$tmp/offers.toml" --provider gcp \
    --endpoint "gcp=$base/gcp"
  [ "$rc" -eq 0 ] || fail "exit $rc"
  c="$tmp/offers.toml"
  grep -q '^name = "gcp-gpu-a100-40gb"$' "$c" || fail "no gcp-gpu-a100-40gb"
  grep -q '^price_per_hour = 2.933908$' "$c" || fail "the A100 GPU price is not 2.933908"
  grep -q '^per_gpu = true$' "$c" && grep -q '^confirmed = false$' "$c" || fail "not a per-GPU, unconfirmed offer"
  grep -q "vCPUs and memory are billed on top" "$c" || fail "the note does not say the VM is not included"
  ! grep -q 'fixture-key-123' "$c" "$tmp/err" || fail "the API key leaked into the catalogue or the notes"
  # The key goes in the X-goog-api-key header, never in the URL.
  grep -q '^key-header fixture-key-123$' "$tmp/hits.log" || fail "the key was not sent in the header"
  ! grep -q 'key=' "$tmp/hits.log" || fail "the key is in a URL: $(grep 'key=' "$tmp/hits.log")"
  # With the key in a header, a redirect is not followed (libcurl would send the header along).
  : >"$tmp/hits.log"
  GPUCOST_GCP_API_KEY=fixture-key-123 update plain plain plain -o "$tmp/offers.toml" --provider gcp \
    --endpoint "gcp=$base/s/redirect/gcp"
  [ "$rc" -eq 2 ] && grep -q 'HTTP 302 (a redirect, not followed while a key goes in a header)' "$tmp/err" ||
    fail "a redirect with the key: exit $rc"
  [ "$(hits plain /gcp/v1/services/6F81-5844-456A/skus)" -eq 0 ] || fail "the redirect was followed"
  # Credentials in an endpoint's URL: refused, never shown.
  update plain plain plain -o "$tmp/offers.toml" --endpoint "aws=http://u:hunter2@127.0.0.1:1/aws"
  [ "$rc" -eq 2 ] && grep -q 'error: --endpoint aws=http://127.0.0.1:1/aws: holds a user name or password: refused' \
    "$tmp/err" && ! grep -q hunter2 "$tmp/err" || fail "an endpoint with a password: exit $rc"
  ;;
hostile)
  # A 500 whose body holds escape sequences and a forged line: quoted, one line, escaped, cut.
  update hostile plain plain -o "$tmp/offers.toml"
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  grep -qF 'hint: the server said "\x1b]0;owned\a\x1b[31mred\x1b[0m gpucost: error: forged xxx' "$tmp/err" ||
    fail "the body is not quoted and escaped"
  grep -q 'xxx…"$' "$tmp/err" || fail "the body is not cut with …"
  ! grep -q $'\033' "$tmp/err" || fail "an escape byte reached stderr"
  ! grep -q '^gpucost: error: forged' "$tmp/err" || fail "the server printed a line of its own"
  ;;
no-network)
  good_catalogue
  # Port 1 of 127.0.0.1: connection refused, as when offline.
  "$gpucost" offers update --endpoint azure=http://127.0.0.1:1/azure --endpoint "aws=$base/aws" \
    --endpoint "ecb=$base/ecb" -o "$tmp/offers.toml" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
  grep -Eq 'no network: the built-in catalogue of [0-9]{4}-[0-9]{2}-[0-9]{2} stays in use; --clouds FILE for your own' \
    "$tmp/err" || fail "no 'no network' line"
  unchanged
  ;;
*)
  echo "unknown case $case"
  exit 2
  ;;
esac
echo "ok ($case)"

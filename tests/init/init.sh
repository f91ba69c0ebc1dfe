#!/usr/bin/env bash
# gpucost init end to end: the starter file loads back into breakeven on the bundled sample,
# -o refuses to overwrite without --force, and nvidia-smi is asked (a stand-in on PATH) only when
# no logs and no --gpu say what the GPUs are, and not with --no-probe.
#   init.sh GPUCOST TESTDATA CASE        exit 0 = pass, anything else = fail with a message
set -uo pipefail
gpucost=$1
testdata=$2
case_name=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export TZ=UTC LC_ALL=C

fail() { echo "FAIL: $*" >&2; exit 1; }

log=$testdata/samples/rtx4090_finetune_query.csv
mkdir bin empty
# The stand-in: what nvidia-smi --query-gpu=name,memory.total,power.limit --format=csv,noheader
# prints on an 8-GPU H100 machine; it records its arguments.
cat > bin/nvidia-smi <<'SMI'
#!/bin/sh
echo "$@" > "${0%/*}/smi-args.txt"
for i in 0 1 2 3 4 5 6 7; do echo "NVIDIA H100 80GB HBM3, 81559 MiB, 700.00 W"; done
SMI
chmod +x bin/nvidia-smi

case $case_name in
  roundtrip)
    "$gpucost" init -o cost.toml "$log" 2> err.txt || fail "init: $(cat err.txt)"
    grep -q '^offer = "vast-rtx4090"$' cost.toml || fail "no offer of the RTX 4090: $(cat cost.toml)"
    grep -q 'wrote cost.toml' err.txt || fail "no note of the file written: $(cat err.txt)"
    # As written, breakeven names the first key left to set.
    "$gpucost" breakeven -c cost.toml "$log" > out.txt 2> err.txt
    status=$?
    [ "$status" = 2 ] || fail "breakeven on the bare starter: exit $status, want 2"
    grep -q "missing required key 'electricity.price_per_kwh'" err.txt || fail "breakeven: $(cat err.txt)"
    "$gpucost" breakeven -c cost.toml --set electricity.price_per_kwh=0.30 --set local.hardware_price=3200 \
      --json "$log" > out.json 2> err.txt || fail "breakeven with the starter: $(cat err.txt)"
    grep -q '"premium"' out.json || fail "no premium: $(cat out.json)"
    grep -q '"offer": "vast-rtx4090"' out.json || fail "the offer was not priced: $(cat out.json)"
    # --country DE: EUR, the price from data/electricity-prices.toml, the USD offer with its rate
    # from the built-in ECB table: breakeven prices it as written (the machine's price aside).
    "$gpucost" init --country DE -o de.toml "$log" 2> err.txt || fail "init --country: $(cat err.txt)"
    grep -q '^currency = "EUR"$' de.toml && grep -q '^price_per_kwh = ' de.toml || fail "country: $(cat de.toml)"
    grep -q '^USD = 0.890869$' de.toml && grep -q '^date = "2026-10-02"$' de.toml || fail "no rate: $(cat de.toml)"
    grep -q '^# Set before breakeven can price: local.hardware_price\.$' de.toml || fail "still asks for the rate"
    "$gpucost" breakeven -c de.toml --set local.hardware_price=3200 "$log" > out.txt 2> err.txt ||
      fail "breakeven with the DE starter: $(cat err.txt)"
    grep -q 'note: exchange USD->EUR 0.890869 of 2026-10-02, from config' err.txt || fail "no exchange note: $(cat err.txt)"
    grep -q 'warning' err.txt && fail "a warning: $(cat err.txt)"
    # Nothing known: the cloud rate is the third key to give.
    "$gpucost" init --no-probe -o none.toml 2> err.txt || fail "init --no-probe: $(cat err.txt)"
    "$gpucost" breakeven -c none.toml --set electricity.price_per_kwh=0.30 --set local.hardware_price=3200 \
      --set cloud.rate_per_hour=0.5 "$log" > out.txt 2> err.txt || fail "breakeven with the bare starter: $(cat err.txt)"
    ;;
  force)
    "$gpucost" init --no-probe -o cost.toml 2> err.txt || fail "init: $(cat err.txt)"
    cp cost.toml before.toml
    "$gpucost" init --no-probe --country GB -o cost.toml > out.txt 2> err.txt
    status=$?
    [ "$status" = 2 ] || fail "overwrote without --force (exit $status)"
    grep -q 'cost.toml: exists: not overwritten' err.txt || fail "message: $(cat err.txt)"
    cmp -s cost.toml before.toml || fail "the file changed"
    "$gpucost" init --no-probe --country GB --force -o cost.toml 2> err.txt || fail "--force: $(cat err.txt)"
    grep -q '^currency = "GBP"$' cost.toml || fail "--force did not replace the file: $(cat cost.toml)"
    ls -a | grep -q 'tmp' && fail "a temporary file was left: $(ls -a)"
    ;;
  probe)
    PATH="$work/bin" "$gpucost" init > out.toml 2> err.txt || fail "init: $(cat err.txt)"
    grep -q -- '--query-gpu=name,memory.total,power.limit --format=csv,noheader' bin/smi-args.txt \
      || fail "query: $(cat bin/smi-args.txt)"
    grep -q 'GPUs: 8 x NVIDIA H100 80GB HBM3, from nvidia-smi on this machine' out.toml || fail "GPUs: $(head -20 out.toml)"
    grep -q 'each GPU: 81559 MiB of memory, power limit 700 W' out.toml || fail "memory: $(head -20 out.toml)"
    grep -q '^offer = ' out.toml || fail "no offer for 8 H100: $(cat out.toml)"
    rm bin/smi-args.txt
    # --no-probe, logs or --gpu: nvidia-smi is not run.
    PATH="$work/bin" "$gpucost" init --no-probe > /dev/null 2>&1 || fail "init --no-probe"
    PATH="$work/bin" "$gpucost" init "$log" > /dev/null 2>&1 || fail "init LOG"
    PATH="$work/bin" "$gpucost" init --gpu A100 > /dev/null 2>&1 || fail "init --gpu"
    [ -e bin/smi-args.txt ] && fail "nvidia-smi was run"
    # A failing nvidia-smi: a note, and the starter without GPUs.
    printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' \
      > bin/nvidia-smi
    PATH="$work/bin" "$gpucost" init > out.toml 2> err.txt || fail "init with a failing nvidia-smi: $(cat err.txt)"
    grep -q 'nvidia-smi failed (exit status 9): NVIDIA-SMI has failed' err.txt || fail "note: $(cat err.txt)"
    grep -q 'GPUs: unknown' out.toml || fail "GPUs: $(head -20 out.toml)"
    ;;
  no-nvidia-smi)
    PATH="$work/empty" "$gpucost" init > out.toml 2> err.txt || fail "init: $(cat err.txt)"
    grep -q 'nvidia-smi is not on PATH' err.txt || fail "no note: $(cat err.txt)"
    grep -q 'nvidia-smi is not on PATH' out.toml || fail "no note in the file: $(head -20 out.toml)"
    ;;
  unknown-gpu)
    # A typo in --gpu is an error with the nearest model, not a config whose estimates all fail later.
    "$gpucost" init --no-probe --gpu "RTX 4909" -o typo.toml 2> err.txt
    status=$?
    [ "$status" = 2 ] || fail "--gpu 'RTX 4909': exit $status, want 2: $(cat err.txt)"
    grep -q "hint: did you mean 'RTX 4090'?" err.txt || fail "no suggestion: $(cat err.txt)"
    [ ! -e typo.toml ] || fail "a config was written"
    "$gpucost" init --no-probe --gpu "NVIDIA GeForce RTX 4090" -o ok.toml 2> err.txt || fail "a known name: $(cat err.txt)"
    # Without any config, breakeven points at init rather than at the first missing key.
    "$gpucost" breakeven "$log" > /dev/null 2> err.txt
    [ $? = 2 ] || fail "breakeven without a config: $(cat err.txt)"
    grep -q 'no configuration given' err.txt && grep -q 'gpucost init -o my.toml' err.txt ||
      fail "breakeven without a config: $(cat err.txt)"
    ;;
  exchange)
    # The rate init writes is the newest: the user catalogue's (gpucost offers update) when it is
    # as recent as the built-in table (2026-10-02), else the built-in one.
    export XDG_DATA_HOME=$work/data
    mkdir -p data/gpucost
    printf '[exchange]\nbase = "EUR"\ndate = "2026-11-30"\nsource = "test"\nUSD = 1.25\nJPY = 180.0\n' \
      > data/gpucost/offers.toml
    "$gpucost" init --country DE -o new.toml "$log" 2> err.txt || fail "init: $(cat err.txt)"
    # 1 / 1.25 = 0.8 EUR per USD
    grep -q '^USD = 0.8$' new.toml && grep -q '^date = "2026-11-30"$' new.toml || fail "not the update's: $(cat new.toml)"
    grep -q 'ECB euro reference rates of 2026-11-30 (gpucost offers update' new.toml || fail "source: $(cat new.toml)"
    # JPY per USD through the euro: 180 / 1.25 = 144
    "$gpucost" init --country JP -o jp.toml "$log" 2> err.txt || fail "init JP: $(cat err.txt)"
    grep -q '^USD = 144$' jp.toml || fail "JPY per USD: $(grep -A8 '^\[exchange\]' jp.toml)"
    sed -i 's/2026-11-30/2010-04-20/' data/gpucost/offers.toml
    "$gpucost" init --country DE -o old.toml "$log" 2> err.txt || fail "init: $(cat err.txt)"
    grep -q '^USD = 0.890869$' old.toml && grep -q '^date = "2026-10-02"$' old.toml ||
      fail "an older update's rates over the built-in ones: $(cat old.toml)"
    # breakeven likewise takes the newer of the two when the config has no rate; a config's always wins.
    cfg=$testdata/samples/workstation.toml
    run() { "$gpucost" breakeven -c "$cfg" --tz UTC --host workstation --cloud runpod-rtx4090-community --json "$@" "$log"; }
    run > out.json 2> err.txt || fail "breakeven: $(cat err.txt)"
    grep -q '"exchange_source": "ECB euro reference rates of 2026-10-02 built into gpucost"' out.json ||
      fail "not the built-in rates: $(grep exchange out.json)"
    grep -q '"exchange_date": "2026-10-02"' out.json || fail "the reference rates' day: $(grep exchange out.json)"
    sed -i 's/2010-04-20/2026-11-30/' data/gpucost/offers.toml
    run > out.json 2> err.txt || fail "breakeven: $(cat err.txt)"
    grep -q '"exchange_source": "ECB euro reference rates of 2026-11-30"' out.json || fail "not the update's: $(grep exchange out.json)"
    run --set exchange.USD=0.9 > out.json 2> err.txt || fail "breakeven: $(cat err.txt)"
    grep -q '"exchange_rate": 0.9,' out.json || fail "the config's rate did not win: $(grep exchange out.json)"
    # More than 90 days old: one warning, whichever rate converted the offer.
    GPUCOST_TODAY=2027-03-01 run > out.json 2> err.txt || fail "breakeven: $(cat err.txt)"
    [ "$(grep -c 'warning: the exchange rate' err.txt)" = 1 ] &&
      grep -q 'warning: the exchange rate USD->EUR 0.8 is of 2026-11-30, 91 days ago .*run gpucost offers update' err.txt ||
      fail "no warning on the update's rates: $(cat err.txt)"
    GPUCOST_TODAY=2027-02-28 run > out.json 2> err.txt || fail "breakeven: $(cat err.txt)"
    grep -q 'warning: the exchange rate' err.txt && fail "a warning at 90 days: $(cat err.txt)"
    rm data/gpucost/offers.toml
    GPUCOST_TODAY=2027-03-01 run > out.json 2> err.txt || fail "breakeven: $(cat err.txt)"
    [ "$(grep -c 'warning: the exchange rate' err.txt)" = 1 ] &&
      grep -q 'warning: the exchange rate USD->EUR 0.890869 is of 2026-10-02, 150 days ago (the ECB.s reference rate built into gpucost)' err.txt ||
      fail "no warning on the built-in rates: $(cat err.txt)"
    GPUCOST_TODAY=2027-03-01 run --set exchange.USD=0.9 --set 'exchange.date="2026-11-01"' > out.json 2> err.txt ||
      fail "breakeven: $(cat err.txt)"
    [ "$(grep -c 'warning: the exchange rate' err.txt)" = 1 ] &&
      grep -q "warning: the exchange rate USD->EUR 0.9 is of 2026-11-01, 120 days ago (the config's \[exchange\])" err.txt ||
      fail "no warning on the config's rate: $(cat err.txt)"
    ;;
  *) fail "unknown case $case_name" ;;
esac
exit 0

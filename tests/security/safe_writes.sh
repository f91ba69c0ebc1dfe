#!/usr/bin/env bash
# The threat model of docs/security.md, case by case: links, FIFOs and devices planted where
# gpucost writes, untrusted text reaching the terminal, odd files where it reads. Each case plants
# its trap in a fresh folder, runs gpucost under a timeout (nothing may hang), and checks that
# nothing outside the intended file changed and that no control character reached the output.
# Cases that need another user (chown) skip when not root.
#   safe_writes.sh GPUCOST TESTDATA CASE     exit 0 = pass, 77 = skipped, else fail
set -uo pipefail
gpucost=$1
samples=$2/samples
case_name=$3
export NO_COLOR=1 TZ=UTC GPUCOST_FOLLOW_POLL_MS=100
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2> /dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# The sample job: runs in a second, prices without a network.
job=(-c "$samples/workstation.toml" --tz Europe/Berlin --host workstation
     "$samples/rtx4090_finetune_query.csv" "$samples/rtx4090_finetune_train.log")
# gpucost under a 20-second limit: 124 means it hung.
g() { timeout -k 2 20 "$gpucost" "$@"; }
victim() { printf 'the victim file: must not change\n' > victim; chmod 0644 victim; }
victim_intact() {
  [ "$(cat victim 2> /dev/null)" = 'the victim file: must not change' ] || fail "the victim changed: $(head -c 200 victim)"
}
mode_of() { stat -c '%a' "$1"; }
no_control() {  # no ESC, BEL or other C0 control except newline and tab in the file
  if LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177]')" "$1"; then
    fail "$1 holds a control character: $(od -c "$1" | head -n 5)"
  fi
}

case "$case_name" in
  output-link)
    # -o through a link to a victim: the link is replaced by the new file, the victim untouched.
    victim
    ln -s "$work/victim" out.txt
    g breakeven "${job[@]}" -o out.txt 2> err.txt || fail "breakeven: $(cat err.txt)"
    victim_intact
    [ -f out.txt ] && [ ! -L out.txt ] || fail "out.txt is not a regular file now"
    grep -q 'Owning cost' out.txt || fail "out.txt: $(head -n 3 out.txt)"
    ;;
  prom-fifo)
    # A FIFO at --prom's name (an attacker's reader would get the textfile): refused, no hang.
    mkfifo gpu.prom
    g breakeven "${job[@]}" --prom gpu.prom -o out.txt 2> err.txt
    status=$?
    [ "$status" = 2 ] || fail "exit $status (124 = hung), want 2: $(cat err.txt)"
    grep -q 'gpu.prom: is a FIFO, not a regular file: not written' err.txt || fail "message: $(cat err.txt)"
    [ -p gpu.prom ] || fail "the FIFO was replaced"
    ;;
  device)
    # /dev/full and a link to it: the device is never opened; /dev/null is a discard.
    g breakeven "${job[@]}" -o /dev/full 2> err.txt
    [ $? = 2 ] || fail "/dev/full: $(cat err.txt)"
    grep -q '/dev/full: is a device, not a regular file' err.txt || fail "message: $(cat err.txt)"
    g breakeven "${job[@]}" -o /dev/null 2> err.txt || fail "/dev/null: $(cat err.txt)"
    g breakeven "${job[@]}" -o /dev/stdout > stdout.txt 2> err.txt || fail "/dev/stdout: $(cat err.txt)"
    grep -q 'Owning cost' stdout.txt || fail "/dev/stdout got nothing"
    ;;
  setuid-mode)
    # The new file never copies setuid/setgid/sticky, nor the mode of another user's file.
    touch gpu.prom && chmod 4755 gpu.prom
    (umask 022 && g breakeven "${job[@]}" --prom gpu.prom -o out.txt 2> err.txt) || fail "$(cat err.txt)"
    [ "$(mode_of gpu.prom)" = 755 ] || fail "gpu.prom mode $(mode_of gpu.prom), want 755 (ours, setuid cleared)"
    [ "$(mode_of out.txt)" = 644 ] || fail "out.txt mode $(mode_of out.txt), want 644"
    if [ "$(id -u)" = 0 ]; then
      touch theirs.prom && chmod 0666 theirs.prom && chown nobody theirs.prom
      (umask 022 && g breakeven "${job[@]}" --prom theirs.prom -o out.txt 2> err.txt) || fail "$(cat err.txt)"
      [ "$(mode_of theirs.prom)" = 644 ] || fail "theirs.prom mode $(mode_of theirs.prom), want 644 (not 666)"
      [ "$(stat -c %u theirs.prom)" = 0 ] || fail "theirs.prom is not root's now"
    fi
    (umask 022 && g breakeven "${job[@]}" --mode 0640 --prom m.prom -o out.txt 2> err.txt) || fail "$(cat err.txt)"
    [ "$(mode_of m.prom)" = 640 ] || fail "--mode 0640 gave $(mode_of m.prom)"
    ;;
  ledger)
    # A dangling link, a FIFO and another user's empty file at --ledger's name: refused, nothing
    # created where the link points; a new ledger is 0600.
    ln -s "$work/elsewhere.db" l.db
    g breakeven "${job[@]}" -o out.txt --ledger l.db 2> err.txt
    [ $? = 2 ] || fail "dangling link: $(cat err.txt)"
    grep -q 'l.db: is a symbolic link: not opened as a ledger' err.txt || fail "message: $(cat err.txt)"
    [ ! -e elsewhere.db ] || fail "a database was created where the link points"
    [ ! -e out.txt ] || fail "an output was written although the ledger was refused"
    mkfifo f.db
    g breakeven "${job[@]}" -o out.txt --ledger f.db 2> err.txt
    [ $? = 2 ] || fail "FIFO: $(cat err.txt)"
    (umask 022 && g breakeven "${job[@]}" -o out.txt --ledger new.db 2> err.txt) || fail "new: $(cat err.txt)"
    [ "$(mode_of new.db)" = 600 ] || fail "new ledger mode $(mode_of new.db), want 600"
    if [ "$(id -u)" = 0 ]; then
      touch empty.db && chown nobody empty.db
      g breakeven "${job[@]}" -o out.txt --ledger empty.db 2> err.txt
      [ $? = 2 ] || fail "empty file of another user: $(cat err.txt)"
      [ ! -s empty.db ] || fail "the empty file became a database"
    fi
    ;;
  record-run-dir)
    # A run folder is one record made: an existing one (with a link planted in it) is refused
    # before the command runs, and the victim is untouched.
    victim
    mkdir shared && ln -s "$work/victim" shared/train.log
    PATH="/usr/bin:/bin" g record -q -c "$samples/workstation.toml" --run-dir shared -o v.txt \
      -- sh -c 'echo ran > ran.txt' > /dev/null 2> err.txt
    [ $? = 2 ] || fail "exit status: $(cat err.txt)"
    victim_intact
    [ ! -e ran.txt ] || fail "the command ran"
    grep -q 'record writes only into a folder it makes itself' err.txt || fail "message: $(cat err.txt)"
    PATH="/usr/bin:/bin" g record -q -c "$samples/workstation.toml" --run-dir mine -o v.txt -- true \
      > /dev/null 2> err.txt
    [ -f mine/run.json ] || fail "no run.json: $(cat err.txt)"
    [ "$(mode_of mine/run.json)" = 600 ] || fail "run.json mode $(mode_of mine/run.json), want 600"
    ;;
  follow-link)
    # prep --follow -o through a link: the link is replaced, the victim untouched; SIGTERM ends it.
    victim
    ln -s "$work/victim" live.events
    cp "$samples/rtx4090_finetune_query.csv" q.csv
    timeout -k 2 20 "$gpucost" prep --follow --tz UTC --host ws -o live.events q.csv 2> err.txt &
    pid=$!
    sleep 1
    kill -TERM "$pid"
    wait "$pid"
    status=$?
    pid=
    [ "$status" = 0 ] || fail "exit $status: $(cat err.txt)"
    victim_intact
    [ -f live.events ] && [ ! -L live.events ] || fail "live.events is not a regular file"
    grep -q '"kind"' live.events || fail "no events: $(head -c 300 live.events)"
    ;;
  batch-lock)
    # batch's lock through a link: refused, the victim untouched.
    victim
    ln -s "$work/victim" state.json.lock
    g batch --state state.json -c "$samples/workstation.toml" --host ws \
      "$samples/rtx4090_finetune_query.csv" -o out.json 2> err.txt
    [ $? = 2 ] || fail "exit status: $(cat err.txt)"
    victim_intact
    grep -q 'state.json.lock' err.txt || fail "message: $(cat err.txt)"
    ;;
  config-fifo)
    # A config that is a FIFO: refused at once; under --follow a SIGHUP reload that meets one
    # keeps the old config, and SIGTERM is still answered.
    mkfifo fifo.toml
    g breakeven -c fifo.toml "$samples/rtx4090_finetune_query.csv" 2> err.txt
    [ $? = 2 ] || fail "exit status (124 = hung): $(cat err.txt)"
    grep -q 'fifo.toml: is a FIFO, not a regular file' err.txt || fail "message: $(cat err.txt)"
    cp "$samples/workstation.toml" cfg.toml
    cp "$samples/rtx4090_finetune_query.csv" q.csv
    timeout -k 2 20 "$gpucost" breakeven --follow --every 1s -c cfg.toml --tz UTC --host ws --prom p.prom \
      -o out.txt q.csv 2> err.txt &
    pid=$!
    sleep 1
    rm cfg.toml && mkfifo cfg.toml
    kill -HUP "$pid"
    sleep 0.5
    kill -TERM "$pid"
    wait "$pid"
    status=$?
    pid=
    [ "$status" = 0 ] || fail "exit $status after SIGTERM (124 = hung): $(cat err.txt)"
    grep -q 'cfg.toml: is a FIFO' err.txt || fail "the reload did not say why: $(cat err.txt)"
    ;;
  escapes)
    # Control characters in a log line, an input's name and a config value reach stderr escaped.
    esc=$(printf '\033')
    { head -n 3 "$samples/rtx4090_finetune_query.csv"
      printf '%s]0;owned\a%s[31mred, 0, x, 1 W\n' "$esc" "$esc"; } > bad.csv
    g prep --tz UTC --host ws bad.csv > /dev/null 2> err.txt
    no_control err.txt
    grep -q '\\x1b\]0;owned\\a' err.txt || fail "the excerpt is not shown escaped: $(cat err.txt)"
    g prep --tz UTC "missing-$esc[2J.csv" > /dev/null 2> err.txt
    [ $? = 2 ] || fail "a missing input: $(cat err.txt)"
    no_control err.txt
    # A host name with escapes (from the logs or --host) in the human table.
    g breakeven -c "$samples/workstation.toml" --tz UTC --host "ws${esc}[2J${esc}]0;x" \
      "$samples/rtx4090_finetune_query.csv" > table.txt 2> err.txt || fail "breakeven: $(cat err.txt)"
    grep -q 'Owning cost' table.txt || fail "no table: $(head -n 3 table.txt)"
    no_control table.txt
    printf 'currency = "EUR\033[2J"\n' > esc.toml
    g breakeven -c esc.toml "$samples/rtx4090_finetune_query.csv" > out.txt 2> err.txt
    no_control err.txt
    no_control out.txt
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "PASS: $case_name"

#!/usr/bin/env bash
# gpucost procs (docs/procs.md): the fixture tree testdata/proc-trees/basic (laid out like a real
# /proc, with sysfs DRM nodes and an etc/passwd) prints the expected table and JSON; the options'
# errors; and a live scan of this machine, where a background process holds a file whose path
# --device-pattern names: its pid, start time, command and device are reported.
#   procs.sh GPUCOST TESTDATA CASE        exit 0 = pass, 77 = skipped, else fail with a message
set -uo pipefail
gpucost=$1
testdata=$2
case_name=$3
work=$(mktemp -d)
holder=
cleanup() {
  [ -n "$holder" ] && kill "$holder" 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
export TZ=UTC LC_ALL=C
fail() { echo "FAIL: $*" >&2; exit 1; }

# The block of holder PID in a gpucost.procs document (from its "pid" line to its closing brace).
holder_block() { awk -v pid="$2" '$0 ~ "^      \"pid\": " pid ", " {b = 1} b {print} b && /^    }/ {exit}' "$1"; }

# A background process holding $work/dev/nvidia0 open on fd 3, shaped like a CUDA process's handle.
start_holder() {
  mkdir -p "$work/dev"
  : > "$work/dev/nvidia0"
  sleep 300 3< "$work/dev/nvidia0" &
  holder=$!
  for _ in $(seq 50); do [ -e "/proc/$holder/fd/3" ] && break; sleep 0.1; done
  [ -e "/proc/$holder/fd/3" ] || fail "the holder did not start"
}

case $case_name in
  fixture-json)
    # cwd-relative root, so that the document names it the same wherever the tests run
    (cd "$testdata/proc-trees" && "$gpucost" procs --json --proc-root basic) > out.json 2> err.txt \
      || fail "exit status $?: $(cat err.txt)"
    diff -u "$testdata/proc-trees/expected/basic.json" out.json > diff.txt || fail "the document differs: $(cat diff.txt)"
    grep -q 'warning: 1 process could not be read (fd: Not a directory; users root 1)' err.txt \
      || fail "no warning about the unreadable process: $(cat err.txt)"
    (cd "$testdata/proc-trees" && "$gpucost" procs --json -q --proc-root basic) > /dev/null 2> err.txt
    [ -s err.txt ] && fail "-q still warns: $(cat err.txt)"
    ;;
  fixture-table)
    (cd "$testdata/proc-trees" && "$gpucost" procs --proc-root basic/) > out.txt 2> err.txt \
      || fail "exit status $?: $(cat err.txt)"
    diff -u "$testdata/proc-trees/expected/basic.txt" out.txt > diff.txt || fail "the table differs: $(cat diff.txt)"
    [ -s err.txt ] && fail "the table says it, stderr need not: $(cat err.txt)"
    # a pattern adds a path; -o writes the file
    (cd "$testdata/proc-trees" && "$gpucost" procs --proc-root basic --device-pattern 'slurm-[0-9]+\.out$' -o "$work/o.txt") \
      2> err.txt || fail "-o: $(cat err.txt)"
    grep -Eq '^2345 +alice .*nvidia1,/home/alice/slurm-4242\.out +slurm job 4242 +/opt/tf/bin/worker --rank 1$' o.txt \
      || fail "--device-pattern: $(cat o.txt)"
    ;;
  errors)
    "$gpucost" procs --proc-root "$testdata/proc-trees/basic/proc" > out.txt 2> err.txt
    [ $? = 2 ] || fail "a /proc itself as the root: exit status not 2"
    grep -q "gpucost: error: --proc-root .*basic/proc: no proc folder in it" err.txt || fail "message: $(cat err.txt)"
    grep -q "hint: .*looks like a /proc itself: give the folder that holds it" err.txt || fail "hint: $(cat err.txt)"
    "$gpucost" procs --proc-root "$testdata/proc-trees/basic" --device-pattern '(' > out.txt 2> err.txt
    [ $? = 2 ] || fail "a bad pattern: exit status not 2"
    grep -q "gpucost: error: --device-pattern '(': missing ): (" err.txt || fail "message: $(cat err.txt)"
    [ -s out.txt ] && fail "output despite the error: $(cat out.txt)"
    "$gpucost" procs --proc-root "$work/none" > out.txt 2> err.txt
    [ $? = 2 ] || fail "a missing root: exit status not 2"
    grep -q "hint: give the root of a tree that holds proc/" err.txt || fail "hint: $(cat err.txt)"
    ;;
  untrusted)
    # A planted tree (docs/security.md): a maps linked to /dev/zero, a FIFO, a cmdline linked to
    # a secret, an argv with escape sequences and a forged row. Refused with reasons, at once.
    cp -a "$testdata/proc-trees/basic" tree
    printf 'top-secret\n' > secret
    ln -sf /dev/zero tree/proc/1234/maps
    rm tree/proc/3456/maps && mkfifo tree/proc/3456/maps
    ln -sf "$work/secret" tree/proc/2345/cmdline
    printf 'python3\0\033]0;owned\a\0--x\033[31m\0evil\n9999  root  forged\0' > tree/proc/5678/cmdline
    timeout 20 "$gpucost" procs --proc-root tree > out.txt 2> err.txt || fail "exit status $?: $(cat err.txt)"
    ! grep -q top-secret out.txt || fail "the secret was read: $(cat out.txt)"
    ! grep -q $'\033' out.txt err.txt || fail "an escape byte reached the terminal"
    ! grep -q '^9999' out.txt || fail "a forged row: $(cat out.txt)"
    grep -qF 'python3 \x1b]0;owned\a --x\x1b[31m evil\n9999  root  forged' out.txt || fail "argv not escaped: $(cat out.txt)"
    grep -q '^3 files of the tree left unread or read in part (1234/maps: a symbolic link (not followed); ' out.txt \
      || fail "no line on the refused files: $(cat out.txt)"
    timeout 20 "$gpucost" procs --json --proc-root tree > out.json 2> err.txt || fail "--json: exit status $?"
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' out.json || fail "not valid JSON"
    grep -q 'warning: 3 files of the tree left unread' err.txt || fail "no warning with --json: $(cat err.txt)"
    ;;
  live)
    [ -r /proc/self/stat ] || { echo "SKIPPED: no /proc here"; exit 77; }
    start_holder
    "$gpucost" procs --json --device-pattern "^$work/dev/" > out.json 2> err.txt || fail "exit status $?: $(cat err.txt)"
    block=$(holder_block out.json "$holder")
    [ -n "$block" ] || fail "pid $holder not listed: $(cat out.json)"
    grep -q '"command": "sleep 300"' <<< "$block" || fail "command: $block"
    grep -q "\"path\": \"$work/dev/nvidia0\", \"kind\": \"gpu\", \"gpu\": 0, \"pci\": null, \"fds\": 1, " <<< "$block" \
      || fail "device: $block"
    grep -q '"by_pattern": true' <<< "$block" || fail "by_pattern: $block"
    grep -q "\"uid\": $(id -u)," <<< "$block" || fail "uid: $block"
    # the start: ps's (to the second) is gpucost's start_ns truncated
    start_ns=$(grep -o '"start_ns": [0-9]*' <<< "$block" | grep -o '[0-9]*$')
    ps_start=$(date -d "$(ps -o lstart= -p "$holder")" +%s) || fail "ps -o lstart failed"
    diff_s=$((start_ns / 1000000000 - ps_start))
    [ "${diff_s#-}" -le 1 ] || fail "start: gpucost $start_ns ns, ps $ps_start s"
    # the table's row
    "$gpucost" procs --device-pattern "^$work/dev/" > out.txt 2> err.txt || fail "table: $(cat err.txt)"
    grep -Eq "^$holder +[^ ]+ +[0-9-]+ [0-9:]+ +0 +$work/dev/nvidia0 +.* sleep 300$" out.txt || fail "table row: $(cat out.txt)"
    # without the pattern it is not a device handle
    "$gpucost" procs --json > out.json 2> err.txt || fail "no pattern: $(cat err.txt)"
    [ -z "$(holder_block out.json "$holder")" ] || fail "listed without --device-pattern"
    ;;
  live-unreadable)
    # A user who may not read others' fd/ and maps: the root-owned holder is counted unreadable,
    # with a warning, never silently left out.
    [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null || { echo "SKIPPED: needs root and setpriv"; exit 77; }
    start_holder
    setpriv --reuid=65534 --regid=65534 --clear-groups "$gpucost" procs --json --device-pattern "^$work/dev/" \
      > out.json 2> err.txt || fail "exit status $?: $(cat err.txt)"
    [ -z "$(holder_block out.json "$holder")" ] || fail "nobody read root's fd/: $(cat out.json)"
    grep -q "{\"pid\": $holder, \"uid\": 0, \"user\": \"root\", \"comm\": \"sleep\", \"what\": \"fd, maps\", \"reason\": \"Permission denied\"}" out.json \
      || fail "the holder is not listed as unreadable: $(grep -A3 '"unreadable"' out.json)"
    grep -q 'warning: [0-9]* process.* could not be read (.*fd, maps: Permission denied.*; users .*root' err.txt \
      || fail "warning: $(cat err.txt)"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok: $case_name"

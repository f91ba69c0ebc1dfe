#!/usr/bin/env bash
# A subcommand given no input while stdin is a terminal refuses at once (exit 2, a hint), instead
# of waiting silently; "-" on a terminal is read, with a note. The terminal is a pty from script(1).
#   stdin_terminal.sh GPUCOST TESTDATA     exit 0 = pass, 77 = skipped (no script(1)), else fail
set -uo pipefail
gpucost=$1
config=$2/samples/workstation.toml
export NO_COLOR=1
command -v script > /dev/null || { echo "SKIP: script(1) (bsdutils) is not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for cmd in "breakeven -c $config" prep extract "report -c $config" trace; do
  sub=${cmd%% *}
  # timeout: a regression waits for the terminal, and must fail here rather than hang.
  timeout 10 script -qec "$gpucost $cmd" "$work/$sub.typescript" < /dev/null > "$work/$sub.out" 2>&1
  status=$?
  [ "$status" = 2 ] || fail "$sub with no input on a terminal: exit $status, want 2: $(cat "$work/$sub.out")"
  grep -q 'no input given, and stdin is a terminal' "$work/$sub.out" || fail "$sub: no message: $(cat "$work/$sub.out")"
  grep -q 'hint: name the logs' "$work/$sub.out" || fail "$sub: no hint: $(cat "$work/$sub.out")"
done

# Not a terminal (a pipe, /dev/null): read as before, no refusal.
"$gpucost" prep < /dev/null > "$work/empty.jsonl" 2> "$work/empty.err" || fail "prep < /dev/null: $(cat "$work/empty.err")"
grep -q 'stdin is a terminal' "$work/empty.err" && fail "prep < /dev/null was refused"
echo "ok"

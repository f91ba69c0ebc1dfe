#!/usr/bin/env bash
# README.md's quick-start output is what `tools/quickstart.sh run` prints on a machine in UTC: the
# command shown ("$ gpucost breakeven ...") is run from the repository root under TZ=UTC with a
# bare environment, and every line of the block (but "...", which elides) appears in its output,
# in the same order.
#   readme_quickstart.sh GPUCOST REPO_ROOT        exit 0 = pass, else fail with the first difference
set -uo pipefail
gpucost=$1
root=$2
cd "$root" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }

block=$(awk '/^## Quick start/ {q = 1} q && /^```text/ {b = 1; next} b && /^```/ {exit} b {print}' README.md)
[ -n "$block" ] || fail "README.md has no text block under '## Quick start'"
command_line=$(printf '%s\n' "$block" | sed -n 's/^\$ gpucost //p' | head -1)
[ -n "$command_line" ] || fail "the block does not start with the command ('\$ gpucost breakeven ...')"
grep -qF "echo \"\\\$ gpucost breakeven \${sample_args[*]}\"" tools/quickstart.sh || fail "quickstart.sh no longer echoes its command"
quick_args=$(sed -n '/^sample_args=(/,/)/p' tools/quickstart.sh | tr -d '()\n' | sed 's/^sample_args=//; s/  */ /g; s/^ //; s/ $//')
[ "breakeven $quick_args" = "$command_line" ] || fail "README shows 'gpucost $command_line', quickstart.sh runs 'gpucost breakeven $quick_args'"

# shellcheck disable=SC2086  # the README's command, split as the shell would
output=$(env -i PATH=/usr/bin:/bin TZ=UTC "$gpucost" $command_line 2>&1) || fail "the command failed: $output"
rest=$output
while IFS= read -r line; do
  case $line in '$ '*|'...'|'') continue ;; esac
  case $rest in
    *"$line"*) rest=${rest#*"$line"} ;;
    *) fail "README line not printed (or out of order): '$line'
--- the command printed:
$output" ;;
  esac
done <<< "$block"
echo "ok"

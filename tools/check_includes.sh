#!/usr/bin/env bash
# The stages' include graph points one way: a file may include its own stage and the stages
# below it, never one above. The order is docs/ARCHITECTURE.md's ("The stages, in include
# order"), read from there:
#   core < io < prep, procs < extract < breakeven < report, outputs, prices < pipeline < record < cli
# Peers (one rank) never include each other. The parsers are a leaf: only pipeline and cli
# include prep (the contract they share with the rest, formats and events, is in core). A
# file's stage is its folder: include/gpucost/<stage>/ or src/<stage>/ (src/cli is the
# binary). Both <gpucost/<stage>/...> and private "<stage>/..." or "../..." includes are
# checked; tests/ and tools/ are not stages.
#   check_includes.sh [REPO_ROOT]      exit 0 = pass, else one line per offending include
set -uo pipefail
cd "${1:-$(dirname "$0")/..}" || exit 1

# file: stage it includes: why (an include against the order that must stay, for now): none
allowed=''

# The order, from docs/ARCHITECTURE.md's line "Include order: core < io < ...".
order_line=$(grep -m1 '^Include order: ' docs/ARCHITECTURE.md | sed 's/^Include order: //; s/`//g')
[ -n "$order_line" ] || { echo "docs/ARCHITECTURE.md has no line 'Include order: core < io < ...'"; exit 1; }
stages=$(echo "$order_line" | sed 's/[<,]/ /g' | tr -s ' ')
ranks=$(echo "$order_line" | awk '{ r = 0; for (i = 1; i <= NF; i++) { if ($i == "<") { r++; continue } if ($i == ",") continue; printf "%d ", r } }' FS=' ' | sed 's/ $//')

files=$(find include src -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.inc' \) | LC_ALL=C sort)
# shellcheck disable=SC2086  # the paths have no spaces
grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' $files |
  awk -F: -v allowed="$allowed" -v files="$files" -v stage_list="$stages" -v rank_list="$ranks" '
BEGIN {
  split(stage_list, order, " ")
  split(rank_list, ranks, " ")
  for (i in order) rank[order[i]] = ranks[i]
  n = split(files, list, "\n")
  for (i = 1; i <= n; i++) exists[list[i]] = 1
  n = split(allowed, lines, "\n")
  for (i = 1; i <= n; i++) {
    split(lines[i], parts, ": ")
    if (parts[2] != "") allow[parts[1] ": " parts[2]] = 1
  }
}
function stage_of(path,   p) {
  if (path ~ /^include\/gpucost\/[^\/]+\//) { split(path, p, "/"); return p[3] }
  if (path ~ /^src\/[^\/]+\//) { split(path, p, "/"); return p[2] }
  return ""
}
function normalise(path,   p, n, i, out, k) {
  n = split(path, p, "/")
  k = 0
  for (i = 1; i <= n; i++) {
    if (p[i] == "." || p[i] == "") continue
    if (p[i] == ".." && k > 0) { k--; continue }
    out[++k] = p[i]
  }
  path = ""
  for (i = 1; i <= k; i++) path = path (i > 1 ? "/" : "") out[i]
  return path
}
{
  file = $1; line = $2
  text = $0
  sub(/^[^:]*:[0-9]+:[ \t]*#[ \t]*include[ \t]*/, "", text)
  stage = stage_of(file)
  if (stage == "") next
  if (!(stage in rank)) {
    if (!(stage in unplaced)) printf "%s: stage %s is not in the order: place it in check_includes.sh\n", file, stage
    unplaced[stage] = 1
    bad = 1
    next
  }
  target = ""
  if (text ~ /^<gpucost\//) {
    target = text; sub(/^<gpucost\//, "", target); sub(/\/.*/, "", target)
  } else if (text ~ /^"/) {
    path = text; sub(/^"/, "", path); sub(/".*/, "", path)
    dir = file; sub(/\/[^\/]*$/, "", dir)
    here = normalise(dir "/" path)
    # next to the file when it is there or the path climbs out of its folder, else on the
    # private include path of the library (src/)
    target = stage_of((here in exists || path ~ /^\.\.?\//) ? here : "src/" path)
  }
  if (target == "" || target == stage || !(target in rank)) next
  if (target == "prep" && stage != "pipeline" && stage != "cli" && !((file ": " target) in allow)) {
    printf "%s:%s: stage %s may not include prep (only pipeline and cli do; the shared contract is core)\n", file, line, stage
    bad = 1
    next
  }
  if (rank[target] < rank[stage]) next
  if ((file ": " target) in allow) next
  printf "%s:%s: stage %s may not include stage %s\n", file, line, stage, target
  bad = 1
}
END { exit bad }'
status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: includes against the stage order ($order_line; only pipeline and cli include prep)"
  exit 1
fi
echo "ok: every include of include/ and src/ follows the stage order ($order_line; prep only under pipeline and cli), $(printf '%s\n' "$allowed" | grep -c ':') exceptions"

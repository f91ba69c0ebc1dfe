#!/usr/bin/env bash
# cmake --install into a temporary prefix: the binary runs, the man page and the completion are
# where man and bash-completion look for them.   install_layout.sh BUILD_DIR PREFIX
set -euo pipefail
build=$1
prefix=$2
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" > /dev/null
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$prefix/bin/gpucost" ] || fail "no bin/gpucost"
"$prefix/bin/gpucost" --version | grep -q '^gpucost ' || fail "the installed binary does not run"
man_page=$(find "$prefix/share/man/man1" -name 'gpucost.1*' | head -1)
[ -n "$man_page" ] || fail "no man page under share/man/man1"
grep -q '^\.TH GPUCOST 1' "$man_page" || fail "the man page has no .TH line"
completion="$prefix/share/bash-completion/completions/gpucost"
[ -f "$completion" ] || fail "no bash completion under share/bash-completion/completions"
bash -n "$completion" || fail "the completion script does not parse"
if command -v groff > /dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$man_page" 2>&1 || true)
  [ -z "$warnings" ] || fail "groff warns about the man page: $warnings"
fi
echo "PASS: install layout"

#!/usr/bin/env bash
# The library never prints: only src/cli/ talks to people. Any write to stdout or stderr from
# src/ outside src/cli/ fails this test, but for the files listed below, each with its reason.
#   no_print_outside_cli.sh REPO_ROOT        exit 0 = pass, else the offending lines
set -uo pipefail
cd "$1" || exit 1
# file: why it may touch stdout/stderr
allowed='
src/io/atomic_file.cpp: "-" is stdout: the stream is handed to the caller, which writes the output
src/record/record.cpp: the training command'"'"'s own output is teed to the terminal, as the user ran it
src/record/process.cpp: between fork and exec the child sets up its streams and reports a failed exec
src/core/log.cpp: -v / GPUCOST_LOG turn on the progress log on stderr
'
pattern='fmt::print\(|std::(cout|cerr|clog)|(^|[^a-z_])(printf|puts|perror)\(|fputs\(|(fwrite|fprintf|fputc|putc|fflush)\([^;]*std(out|err)|STD(OUT|ERR)_FILENO|(^|[^"a-z_<])std(out|err)([^a-z_">:]|$)'
found=$(grep -rnE "$pattern" src --include='*.cpp' --include='*.hpp' | grep -v '^src/cli/' |
        grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
bad=""
while IFS= read -r line; do
  [ -n "$line" ] || continue
  file=${line%%:*}
  printf '%s\n' "$allowed" | grep -q "^$file:" || bad="$bad$line"$'\n'
done <<< "$found"
if [ -n "$bad" ]; then
  echo "FAIL: the library writes to stdout/stderr (only src/cli/ may; return the text or a Notice instead):"
  printf '%s' "$bad"
  exit 1
fi
echo "ok: no writes to stdout/stderr in src/ outside src/cli/ (but the $(printf '%s\n' "$allowed" | grep -c ':') files listed, each with its reason)"

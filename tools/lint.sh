#!/usr/bin/env bash
# Static analysis of src/: the layout (clang-format), cppcheck and a short, curated clang-tidy
# check list. All must be clean; CI runs this. Needs a configured build directory for compile_commands.json:
#   tools/lint.sh [BUILD_DIR]     (default build-lint, configured here when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-lint}
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f "$build/compile_commands.json" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUCOST_BUILD_TESTS=OFF >/dev/null
fi
# Generated sources (the Xid table, the cloud offers) must exist for the analysers to see them.
cmake --build "$build" -j "$jobs" >/dev/null

echo "== clang-format (.clang-format): every C++ file laid out as the tool lays it out"
fmt=$(command -v clang-format-14 || command -v clang-format)
# shellcheck disable=SC2046  # one word per file
if ! "$fmt" --dry-run --Werror $(git ls-files 'src/*.cpp' 'src/*.hpp' 'include/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'tools/*.cpp') \
     2>"$build/clang-format.log"; then
  grep -E '^[^ ].*: (error|warning):' "$build/clang-format.log" | cut -d: -f1 | sort -u | sed 's/^/  not formatted: /'
  echo "clang-format: run  $fmt -i FILE  on the files above"
  exit 1
fi

echo "== cppcheck"
# cloud_offers.cpp #includes a file generated into the build tree: cppcheck cannot see it.
cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --inline-suppr --std=c++20 \
         -I include -I src -I "$build/src" --suppress=missingIncludeSystem \
         --suppress=internalAstError:src/breakeven/cloud_offers.cpp src/

echo "== clang-tidy (static analyzer: ${GPUCOST_TIDY_ANALYZER:-shallow})"
# The checks are in .clang-tidy; headers of this tree only (not the generated ones in the build).
# The static analyzer's path search was three quarters of the stage's time; its shallow mode
# (less inlining across calls, fewer paths per function) keeps the checks of each function and
# costs little. GPUCOST_TIDY_ANALYZER=deep runs the full search (worth it before a release).
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy)
analyzer_args=()
case ${GPUCOST_TIDY_ANALYZER:-shallow} in
  shallow) analyzer_args=(-extra-arg=-Xclang -extra-arg=-analyzer-config -extra-arg=-Xclang -extra-arg=mode=shallow) ;;
  deep) ;;
  *) echo "GPUCOST_TIDY_ANALYZER: shallow or deep, not '$GPUCOST_TIDY_ANALYZER'" >&2; exit 2 ;;
esac
set +e
"$tidy" -quiet -j "$jobs" -p "$build" "${analyzer_args[@]}" \
        -header-filter="$(pwd)/(include|src)/.*" "$(pwd)/src/.*\.cpp$" > "$build/clang-tidy.log" 2>&1
status=$?
set -e
# run-clang-tidy colours its messages even into a file: strip the colour codes before looking.
found=$(sed 's/\x1b\[[0-9;]*m//g' "$build/clang-tidy.log" | grep -E ' (warning|error): ' | sort -u || true)
[ -z "$found" ] || echo "$found"
if [ $status -ne 0 ] || [ -n "$found" ]; then
  echo "clang-tidy: problems above (full log: $build/clang-tidy.log)"
  exit 1
fi
echo "== lint clean"

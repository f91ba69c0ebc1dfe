#!/usr/bin/env bash
# Re-blesses every expected output from what the current build prints: the golden cases
# (testdata/golden/*), the Prometheus textfile, the ledger history, the findings note, and the
# generated completion script and man page. Review `git diff` afterwards: every change must be one
# you meant.
#   tools/update_golden.sh [BUILD_DIR] [CTEST_REGEX]     (default build; all of the above)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
regex=${2:-'^(golden\.|outputs\.prom-golden$|outputs\.ledger-history$|findings\.suggest-note$|completion\..*-in-sync$)'}
[ -f "$build/CTestTestfile.cmake" ] || { echo "update_golden: $build is not a build with tests (configure with -DGPUCOST_BUILD_TESTS=ON)" >&2; exit 2; }
cmake --build "$build"
# Cases that read another case's expected output (breakeven-features-file reads extract-dmon's)
# need a second pass to see the first pass's result.
for pass in 1 2; do
  GPUCOST_UPDATE_GOLDEN=1 ctest --test-dir "$build" -R "$regex" -j "$(nproc 2>/dev/null || echo 2)" > /dev/null || true
done
ctest --test-dir "$build" -R "$regex" -j "$(nproc 2>/dev/null || echo 2)" --output-on-failure | tail -3
git status --short -- testdata tools/completion docs/gpucost.1

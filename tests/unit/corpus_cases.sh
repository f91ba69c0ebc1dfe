#!/usr/bin/env bash
# The unit cases that read ../shared/corpus (tagged [conformance] or [corpus]), or exit 77
# (ctest: SKIPPED) with the reason when the corpus is not there.
#   corpus_cases.sh UNIT_TESTS CORPUS_DIR
set -euo pipefail
unit_tests=$1 corpus=$2
if [ ! -d "$corpus/logs" ]; then
  echo "corpus not found at $corpus: the conformance cases are skipped"
  exit 77
fi
exec "$unit_tests" "[conformance],[corpus]"

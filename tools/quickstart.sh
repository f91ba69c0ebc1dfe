#!/usr/bin/env bash
# The two README commands. On a fresh Debian 12 machine (run as root, or with sudo available):
#   tools/quickstart.sh run    install what is missing, build (Release), run gpucost breakeven on the samples
#   tools/quickstart.sh test   the same, then build and pass every test
# Idempotent: packages already installed are not reinstalled; the build directory is reused.
# Environment: GPUCOST_BUILD_DIR (default build); GPUCOST_CMAKE_ARGS, extra CMake arguments
# without spaces inside one (CI: a -Werror RelWithDebInfo build with assertions, in build-ci).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
build_dir=${GPUCOST_BUILD_DIR:-build}
packages=(cmake g++ make ninja-build pkg-config tzdata
          libcli11-dev libfmt-dev libspdlog-dev libsimdjson-dev catch2 libtomlplusplus-dev
          zlib1g-dev libzstd-dev libhowardhinnant-date-dev libpugixml-dev libre2-dev libsqlite3-dev
          libcurl4-openssl-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "quickstart: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

jobs=$(nproc 2>/dev/null || echo 2)
read -r -a extra_cmake_args <<< "${GPUCOST_CMAKE_ARGS:-}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUCOST_BUILD_TESTS="$([ "$mode" = test ] && echo ON || echo OFF)" \
      "${extra_cmake_args[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs"

gpucost="$build_dir/src/cli/gpucost"
echo
# The sample (telemetry and the training log) was logged in Berlin on a host named workstation: --tz and --host say so, so that the
# figures are the same on every machine (README.md shows this command and its output).
sample_args=(--config testdata/samples/workstation.toml --tz Europe/Berlin --host workstation
             testdata/samples/rtx4090_finetune_query.csv testdata/samples/rtx4090_finetune_train.log)
echo "\$ gpucost breakeven ${sample_args[*]}"
"$gpucost" breakeven "${sample_args[@]}"

if [ "$mode" = test ]; then
  echo
  ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
fi

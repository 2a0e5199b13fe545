#!/usr/bin/env bash
# Builds the release .deb and prints its path (last line). With no argument: configures
# build-package/ (Release, no tests, benchmarks or fuzzers; CUDA when nvcc is found, as the
# default preset does), builds it and runs `cpack -G DEB`. With an existing build folder (CI
# passes `build`, already built by scripts/test.sh): packages what is built there.
# Needs dpkg-dev (dpkg-shlibdeps computes the package's dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="${TOMOWB_JOBS:-$(nproc)}"
if [[ $# -ge 1 && -f "$1/CMakeCache.txt" ]]; then
  buildDir="$1"
  shift
  cmake --build "$buildDir" --target tomowb tomowb-cli -j "$jobs" >&2
else
  buildDir=build-package
  cmake --preset default -B "$buildDir" -DCMAKE_BUILD_TYPE=Release \
    -DTOMOWB_TESTS=OFF -DTOMOWB_BENCH=OFF -DTOMOWB_FUZZ=OFF "$@" >&2
  cmake --build "$buildDir" -j "$jobs" >&2
fi
rm -f "$buildDir"/tomowb_*.deb
(cd "$buildDir" && cpack -G DEB >&2)
deb=$(ls -t "$buildDir"/tomowb_*.deb | head -n 1)
realpath "$deb"

#!/usr/bin/env bash
# Configures, builds and runs the test suite with a CMake preset (default: "default").
# GPU tests (ctest label "gpu") skip with a message when no CUDA device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
jobs="$(nproc)"
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$jobs"
ctest --preset "$preset" -j "$jobs" --timeout 900

#!/usr/bin/env bash
# Builds the command line and runs the headless main job: the modified Shepp-Logan phantom,
# projected, reconstructed with FDK and measured. Extra arguments go to `tomowb-cli demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default
cmake --build --preset default --target tomowb-cli -j "$(nproc)"
./build/cli/tomowb-cli demo "$@"

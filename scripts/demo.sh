#!/usr/bin/env bash
# The main job. With a display: builds the workbench and opens it on the built-in demo (press Run,
# or pass --run). Without one (or with TOMOWB_HEADLESS=1): builds the command line and runs the
# headless demo (Shepp-Logan phantom -> projections -> FDK -> metrics, written to tomowb-demo/).
# Extra arguments go to `tomowb --demo` or `tomowb-cli demo` respectively.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -z "${TOMOWB_HEADLESS:-}" ]; then
  cmake --build --preset default --target tomowb -j "$(nproc)"
  exec ./build/gui/tomowb --demo "$@"
fi
echo "demo.sh: no display (DISPLAY is unset): running the headless demo with tomowb-cli"
cmake --build --preset default --target tomowb-cli -j "$(nproc)"
./build/cli/tomowb-cli demo "$@"

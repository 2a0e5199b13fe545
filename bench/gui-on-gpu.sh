#!/usr/bin/env bash
# The window on the GPU machine (issue #21, point 9), in two device calls made back to back
# (each carries one archive of scripts/gui-pack.sh: the device tool takes 64 MiB a call):
#   bench/gui-on-gpu.sh unpack   carry [".guipack/tomowb.tar.xz", ".gl"] (also builds the gpu
#                                preset's tomowb_test_cuda and runs the GPU FDK, SIRT and device
#                                tests behind the window's previews and default device)
#   bench/gui-on-gpu.sh run      carry [".guipack/mesa.tar.xz", ".gl"]
# SKIP_GUI_TESTS=1 ... run: the scripted session only.
# RESPONSIVENESS_RUNS=N ... run: only bench/gui-responsiveness.sh (N launches a mode, two screens).
# `run` starts the packed Xvfb (GLX through Mesa's swrast, the client's GLX through NVIDIA's
# vendor library), then runs the window's own GUI tests, and a scripted session (scripts/
# gui-session.sh): the demo with GPU FDK of 512^3 in two kernel variants, the compare view, the
# ET demo with GPU SIRT and the variant sweep, each with screenshots and run summaries (live
# preview times, event-loop stalls) and responsiveness.json. Results go to $OUT (at most 8 files
# come back: the screenshots travel as one tar).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/gui-on-gpu-out}"
mkdir -p "$out"
# Outside the repo: a call re-copies .guipack/ and drops what it does not carry.
here=/tmp/tomowb-gui
parts=/tmp/tomowb-gui-parts
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
case "${1:-}" in
  unpack)
    rm -rf "$here" && mkdir -p "$here"
    tar -xJf .guipack/tomowb.tar.xz -C "$here" && echo "unpacked the window into $here"
    rm -rf "$parts" && mkdir -p "$parts"
    cp .guipack/mesa.tar.xz.part-* "$parts/" 2>/dev/null || true
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
    # The core's GPU tests behind the window's live previews and default device (gpu preset).
    [ -n "${SKIP_GPU_TESTS:-}" ] && exit 0
    {
      start=$(date +%s)
      cmake --preset gpu >/dev/null && timeout 300 cmake --build build-gpu -j 16 --target tomowb_test_cuda 2>&1 | tail -3
      echo "build: $(($(date +%s) - start)) s"
      build-gpu/tests/tomowb_test_cuda --gtest_filter='GpuFdk.*:GpuDevices.*:GpuEtSirt.*' 2>&1 | tail -40
    } >"$out/gpu-tests.txt" 2>&1
    tail -5 "$out/gpu-tests.txt"
    exit 0
    ;;
  run) ;;
  *)
    echo "usage: bench/gui-on-gpu.sh unpack|run" >&2
    exit 2
    ;;
esac
[ -x "$here/tomowb/bin/tomowb" ] || { echo "gui-on-gpu.sh: run 'unpack' first (the warm machine keeps it)" >&2; exit 1; }
# The Mesa archive comes whole, or as split(1) parts when a call cannot carry it beside the rest.
if [ -f .guipack/mesa.tar.xz ]; then
  tar -xJf .guipack/mesa.tar.xz -C "$here"
else
  cp .guipack/mesa.tar.xz.part-* "$parts/"
  cat "$parts"/mesa.tar.xz.part-* | tar -xJ -C "$here"
fi
ln -sf "$here/tomowb/bin/xkbcomp" /usr/bin/xkbcomp
# The layout tests start private Xvfbs of given sizes by these paths (tests/support/GuiTestMain).
ln -sf "$here/tomowb/bin/Xvfb" /usr/bin/Xvfb
mkdir -p /usr/share/X11 && ln -sfn "$here/tomowb/share/xkb" /usr/share/X11/xkb
# shellcheck disable=SC1091
source "$here/tomowb/env.sh"
# The GUI tests start tomowb and tomowb-cli and read test data by the paths of the build here
# (/work/main/build/..., /work/main/tests/data): give them those paths.
if [ "$PWD" != /work/main ] && [ ! -e /work/main ]; then mkdir -p /work && ln -s "$PWD" /work/main; fi
mkdir -p build/gui build/cli
ln -sf "$here/tomowb/bin/tomowb" build/gui/tomowb
ln -sf "$here/tomowb/bin/tomowb-cli" build/cli/tomowb-cli
Xvfb :99 -screen 0 2560x1600x24 +extension GLX -nolisten tcp -xkbdir "$XKB_DIR" >"$out/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null' EXIT
sleep 2
export DISPLAY=:99
if [ -n "${RESPONSIVENESS_RUNS:-}" ]; then
  # Only the repeated responsiveness benchmark (bench/gui-responsiveness.sh), on this 2560x1600
  # screen and on a 1920x1080 one, each mode RESPONSIVENESS_RUNS launches.
  Xvfb :98 -screen 0 1920x1080x24 +extension GLX -nolisten tcp -xkbdir "$XKB_DIR" >/dev/null 2>&1 &
  xvfb2=$!
  trap 'kill $xvfb $xvfb2 2>/dev/null' EXIT
  sleep 2
  for screen in 2560x1600 1920x1080; do
    display=:99
    [ "$screen" = 1920x1080 ] && display=:98
    DISPLAY=$display SCREEN=$screen RUNS=$RESPONSIVENESS_RUNS TOMOWB=tomowb \
      bash bench/gui-responsiveness.sh "/tmp/responsiveness-$screen" \
      >"$out/responsiveness-$screen.txt" 2>&1
    tail -6 "$out/responsiveness-$screen.txt"
  done
  tar -C /tmp -cf "$out/responsiveness.tar" --exclude='*.png' responsiveness-2560x1600 \
    responsiveness-1920x1080
  exit 0
fi
shots=$(mktemp -d)
(
  echo "== GPU"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  [ -n "${SKIP_GUI_TESTS:-}" ] && { echo "GUI tests skipped (SKIP_GUI_TESTS)"; exit 0; }
  echo "== the window's GUI tests on this machine, one process per suite (a crash stops one)"
  start=$(date +%s)
  total_ok=0 total_failed=0 bad_suites=""
  for suite in $(tomowb_test_gui --gtest_list_tests 2>/dev/null | grep -v '^ ' | sed 's/\.$//'); do
    if [ "$suite" = LayoutFit ]; then  # in its own 1920x1080 screen, as ctest runs it
      env -u DISPLAY TOMOWB_TEST_XVFB_SCREEN=1920x1080x24 timeout 240 tomowb_test_gui \
        --gtest_filter="$suite.*" >/tmp/suite.log 2>&1
    else
      timeout 240 tomowb_test_gui --gtest_filter="$suite.*" >/tmp/suite.log 2>&1
    fi
    rc=$?
    ok=$(grep -c '^\[       OK \]' /tmp/suite.log)
    failed=$(grep -c '^\[  FAILED  \].*ms)$' /tmp/suite.log)
    total_ok=$((total_ok + ok)) total_failed=$((total_failed + failed))
    echo "$suite: exit $rc, $ok passed, $failed failed"
    if [ "$rc" -ne 0 ]; then
      bad_suites="$bad_suites $suite"
      grep -E 'Failure|FAILED|Expected|Which is|Actual|Segmentation|what\(\)|^\[ RUN' /tmp/suite.log | tail -25
    fi
  done
  echo "GUI tests: $total_ok passed, $total_failed failed, suites not passing:${bad_suites:- none}; $(($(date +%s) - start)) s"
) >"$out/gui-tests.txt" 2>&1
TOMOWB=tomowb timeout 480 bash scripts/gui-session.sh "$shots" gpu >"$out/session.txt" 2>&1
echo "session: exit $?" >>"$out/session.txt"
tar -C "$shots" -cf "$out/screens.tar" .
cp "$shots"/fdk/responsiveness.json "$out/responsiveness-gpu.json" 2>/dev/null || true
ls -la "$out"

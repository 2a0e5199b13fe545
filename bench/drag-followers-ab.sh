#!/usr/bin/env bash
# The window/level drag (issue #21, point 11) with the following views drawn with every move
# (TOMOWB_FOLLOWER_RENDER_MS=0, as before) and at most every 100 ms (the default): 3 launches
# each of the CPU demo (FDK 256^3) under Xvfb, `tomowb --measure`s 60-move drag. Usage:
# bench/drag-followers-ab.sh   (results in /tmp/dragab/MODE-RUN/responsiveness.json)
# Env: VOLUME (reconstructed edge, default 256), MODES (default "0 100"), RUNS (default 3).
set -u
cd "$(dirname "$0")/.."
VOLUME=${VOLUME:-256}
for mode in ${MODES:-0 100}; do
  for i in $(seq "${RUNS:-3}"); do
    out=/tmp/dragab/$mode-$i; rm -rf $out; mkdir -p $out
    export XDG_CONFIG_HOME=$(mktemp -d)
    TOMOWB_FOLLOWER_RENDER_MS=$mode timeout 300 xvfb-run -a -s "-screen 0 1920x1200x24 +extension GLX" \
      build/gui/tomowb --reset-settings --demo --demo-size 256 --run --volume-size $VOLUME --device cpu \
      --variant fdk.bp.cpu --measure --screenshot-dir $out --quit-after-run > $out/log.txt 2>&1
    python3 -c "
import json,sys
d=json.load(open('$out/responsiveness.json'))['windowLevelDrag']
r=json.load(open('$out/responsiveness.json'))
print('$mode', '$i', d['volume'], round(d['framesPerSecond'],1), round(d['medianFrameMs'],1), round(d['p95FrameMs'],1), r['launchToWindowMs'], r['launchToFirstSliceMs'], d.get('glRenderer'))"
  done
done

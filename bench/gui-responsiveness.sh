#!/usr/bin/env bash
# The window's responsiveness (issue #21, point 11), repeated: RUNS launches of `tomowb --measure`
# per mode, each the demo reconstructed with FDK on DEVICE (the GPU machine: gpu, 512^3,
# fdk.bp.tex; here: cpu, 256^3, fdk.bp.cpu), then the 60-move window/level drag on the result.
# A mode is a value of TOMOWB_ONE_RENDER_PER_FRAME: 1 (the default: views asked to render at
# once take turns, one per frame), 0 (all in the same frame, as before). Prints one line per
# launch and a table of min / median / max per mode.
# Usage: bench/gui-responsiveness.sh OUTDIR
# Env: DEVICE (gpu|cpu, default gpu), VOLUME, VARIANT, RUNS (default 5), MODES (default "1 0"),
#      SCREEN (default 2560x1600), TOMOWB (default build/gui/tomowb). Needs DISPLAY, or runs
#      each launch in its own xvfb-run of that screen.
set -u
out="${1:?usage: gui-responsiveness.sh OUTDIR}"
device=${DEVICE:-gpu}
if [ "$device" = gpu ]; then volume=${VOLUME:-512} variant=${VARIANT:-fdk.bp.tex}
else volume=${VOLUME:-256} variant=${VARIANT:-fdk.bp.cpu}; fi
app=${TOMOWB:-build/gui/tomowb}
screen=${SCREEN:-2560x1600}
mkdir -p "$out"
for mode in ${MODES:-1 0}; do
  for i in $(seq "${RUNS:-5}"); do
    dir="$out/mode$mode-run$i"
    rm -rf "$dir" && mkdir -p "$dir"
    XDG_CONFIG_HOME=$(mktemp -d)
    export XDG_CONFIG_HOME
    cmd=("$app" --reset-settings --demo --demo-size 256 --run --volume-size "$volume"
      --device "$device" --variant "$variant" --measure --screenshot-dir "$dir" --quit-after-run)
    if [ -n "${DISPLAY:-}" ]; then
      TOMOWB_ONE_RENDER_PER_FRAME=$mode timeout 300 "${cmd[@]}" >"$dir/log.txt" 2>&1
    else
      TOMOWB_ONE_RENDER_PER_FRAME=$mode timeout 300 xvfb-run -a -s \
        "-screen 0 ${screen}x24 +extension GLX" "${cmd[@]}" >"$dir/log.txt" 2>&1
    fi
    echo "mode $mode run $i: exit $?"
  done
done
python3 - "$out" "${MODES:-1 0}" "$device" "$volume" "$variant" "$screen" <<'PY'
import glob, json, os, statistics, sys
out, modes, device, volume, variant, screen = sys.argv[1:7]
def spread(values):
    if not values: return "–"
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"
rows, renderer = [], "?"
for mode in modes.split():
    keys = {"window": [], "first": [], "p99": [], "max": [], "fps": [], "frame": [], "p95": []}
    for f in sorted(glob.glob(os.path.join(out, f"mode{mode}-run*", "responsiveness.json"))):
        r = json.load(open(f))
        keys["window"].append(r["launchToWindowMs"])
        keys["first"].append(r["launchToFirstSliceMs"])
        t = r["runs"][0]["timings"]
        keys["p99"].append(t["stallP99Ms"]); keys["max"].append(t["stallMaxMs"])
        d = r.get("windowLevelDrag") or {}
        if d:
            keys["fps"].append(d["framesPerSecond"]); keys["frame"].append(d["medianFrameMs"])
            keys["p95"].append(d["p95FrameMs"]); renderer = d.get("glRenderer", renderer)
        slow = [e for e in t.get("slowestEvents", []) if e["event"].startswith("UpdateRequest")][:1]
        for e in slow:
            parts = ", ".join(f"{s['name'].replace('render tomowb::render::', '')} {s['ms']:.0f}"
                              for s in e["scopes"] if s["depth"] == 0)
            print(f"mode {mode} {os.path.basename(os.path.dirname(f))}: slowest paint {e['ms']:.0f} ms ({parts})")
    n = len(keys["p99"])
    rows.append(f"| {mode} | {n} | {spread(keys['window'])} | {spread(keys['first'])} | {spread(keys['p99'])} | "
                f"{spread(keys['max'])} | {spread(keys['fps'])} | {spread(keys['frame'])} | {spread(keys['p95'])} |")
print(f"\nFDK {volume}^3 {variant} on {device}, screen {screen}, OpenGL: {renderer}")
print("| one render per frame | launches | launch to window, ms | launch to first slice, ms | stall p99 during the run, ms | longest stall, ms | drag fps | drag median frame, ms | drag p95 frame, ms |")
print("|---|---:|---|---|---|---|---|---|---|")
print("\n".join(rows))
PY

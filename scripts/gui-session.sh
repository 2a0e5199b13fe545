#!/usr/bin/env bash
# A scripted session of the window (issue #21, points 9 and 11), the same on this machine and on
# the GPU machine (bench/gui-on-gpu.sh):
#   fdk/   the Shepp-Logan demo, FDK of 512^3 in two kernel variants one after another (GPU:
#          fdk.bp.tex and fdk.bp.layered16; CPU: fdk.bp.cpu and fdk.bp.cpu-f64 at 256^3), the
#          compare view on the two, and responsiveness.json (launch to window, launch to first
#          slice, per run the live preview times and event-loop stalls, the window/level drag
#          frame rate on the result)
#   sirt/  the ET demo, SIRT on the device, then the variant sweep on that device
#   pet/   the TOF-PET demo reconstructed with DIRECT on the device
# Each folder holds the screenshots and run summaries (run-summary*.json). Needs a display with
# OpenGL (DISPLAY set); without one it starts xvfb-run. Usage:
#   scripts/gui-session.sh OUTDIR [gpu|cpu]      (TOMOWB: the binary, default build/gui/tomowb)
set -euo pipefail
out="${1:?usage: gui-session.sh OUTDIR [gpu|cpu]}"
device="${2:-gpu}"
app="${TOMOWB:-build/gui/tomowb}"
mkdir -p "$out/fdk" "$out/sirt"
XDG_CONFIG_HOME="$(mktemp -d)"
export XDG_CONFIG_HOME
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
launch() {
  if [ -z "${DISPLAY:-}" ]; then
    xvfb-run -a -s "-screen 0 1920x1200x24 +extension GLX" "$@"
  else
    "$@"
  fi
}
if [ "$device" = gpu ]; then
  fdk_variants=fdk.bp.tex,fdk.bp.layered16 size=512 sirt_iterations=100
else
  fdk_variants=fdk.bp.cpu,fdk.bp.cpu-f64 size=256 sirt_iterations=30
fi
echo "== FDK ($device, $fdk_variants, ${size}^3), compare, responsiveness"
launch "$app" --reset-settings --demo --demo-size 256 --run --volume-size "$size" \
  --device "$device" --variant "$fdk_variants" --compare --measure \
  --screenshot-dir "$out/fdk" --quit-after-run
echo "== ET demo: SIRT ($device, $sirt_iterations iterations), then the variant sweep"
launch "$app" --reset-settings --demo et --demo-size 256 --run --algorithm sirt \
  --iterations "$sirt_iterations" --device "$device" --sweep --screenshot-dir "$out/sirt" \
  --quit-after-run
echo "== PET demo: DIRECT on the device ($device), contrast recovery per iteration"
mkdir -p "$out/pet"
launch "$app" --reset-settings --demo pet --run --device "$device" --screenshot-dir "$out/pet" \
  --quit-after-run
python3 - "$out" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
r = json.load(open(os.path.join(out, "fdk", "responsiveness.json")))
print(f"launch to window {r['launchToWindowMs']:.0f} ms, launch to first slice "
      f"{r['launchToFirstSliceMs']:.0f} ms in {r['actionsToFirstSlice']} actions")
for run in r["runs"]:
    t = run.get("timings", {})
    print(f"run {run.get('run')}: {t.get('variant')} {run.get('seconds', 0):.2f} s, "
          f"{t.get('previews')} previews, first {t.get('firstPreviewMs', -1):.0f} ms, longest gap "
          f"{t.get('longestPreviewGapMs', 0):.0f} ms, stall p99 {t.get('stallP99Ms', 0):.1f} ms, "
          f"max {t.get('stallMaxMs', 0):.1f} ms")
    # What held the event loop longest (render/EventTrace.h): the three slowest events.
    for e in t.get("slowestEvents", [])[:3]:
        parts = ", ".join(f"{s['name']} {s['ms']:.0f}" for s in e["scopes"] if s["depth"] == 0)
        print(f"    {e['ms']:.0f} ms: {e['event']} to {e['receiver']}" + (f" ({parts})" if parts else ""))
d = r.get("windowLevelDrag") or {}
if d:
    print(f"W/L drag on {d['volume']}: {d['framesPerSecond']:.1f} fps (median frame "
          f"{d['medianFrameMs']:.1f} ms, p95 {d['p95FrameMs']:.1f} ms, {d['openGl']} OpenGL: {d.get('glRenderer', '?')})")
for f in sorted(glob.glob(os.path.join(out, "sirt", "run-summary-*.json"))):
    s = json.load(open(f)); t = s.get("timings", {})
    print(f"SIRT run {s['run']}: {s['seconds']:.2f} s, {t.get('previews')} previews, longest gap "
          f"{t.get('longestPreviewGapMs', 0):.0f} ms, stall max {t.get('stallMaxMs', 0):.1f} ms")
for f in sorted(glob.glob(os.path.join(out, "pet", "run-summary*.json"))):
    s = json.load(open(f)); rec = s.get("record") or {}
    print(f"PET run {s['run']}: {s['state']}, {s['seconds']:.2f} s, {s.get('previewsShown')} previews, "
          f"device {json.dumps(rec.get('parameters', {}).get('device', rec.get('device', '?')))[:80]}")
PY

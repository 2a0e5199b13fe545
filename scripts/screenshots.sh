#!/usr/bin/env bash
# Starts tomowb on the Shepp-Logan demo, runs CPU FDK and saves PNG screenshots of the main window
# during and after the run (tomowb-during-run.png, tomowb-after-run.png, tomowb-views.png) and a
# summary (run-summary.json, with the longest event-loop stall during the run) into OUT (default:
# BUILD/screenshots). Then the CNR demo with --tour: CNR ROIs placed on the inserts while the run
# goes on, and one screenshot per main dock (tomowb-cnr.png, tomowb-geometry.png,
# tomowb-consistency.png, tomowb-projections.png) into OUT/tour. Uses a private Xvfb with Mesa's
# software OpenGL when no display is set. Usage: scripts/screenshots.sh [BUILD] [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
out="${2:-$build/screenshots}"
app="$build/gui/tomowb"
[ -x "$app" ] || { echo "screenshots.sh: $app is not built (cmake --build --preset default)"; exit 1; }
rm -rf "$out"
mkdir -p "$out"
export QT_QPA_PLATFORM=xcb
# A throw-away settings folder, so the screenshots show the default layout.
XDG_CONFIG_HOME="$(mktemp -d)"
export XDG_CONFIG_HOME
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
launch() {
  if [ -z "${DISPLAY:-}" ]; then
    xvfb-run -a -s "-screen 0 1920x1200x24" timeout 600 "$@"
  else
    timeout 600 "$@"
  fi
}
launch "$app" --demo --demo-size "${DEMO_SIZE:-128}" --run --volume-size "${VOLUME_SIZE:-256}" \
  --screenshot-dir "$out" --quit-after-run
launch "$app" --reset-settings --demo cnr --demo-size "${DEMO_SIZE:-128}" --run \
  --volume-size "${DEMO_SIZE:-128}" --screenshot-dir "$out/tour" --quit-after-run --tour
for f in tomowb-during-run.png tomowb-after-run.png tomowb-views.png run-summary.json \
         tour/tomowb-cnr.png tour/tomowb-geometry.png tour/tomowb-consistency.png \
         tour/tomowb-projections.png; do
  [ -s "$out/$f" ] || { echo "screenshots.sh: $out/$f is missing"; exit 1; }
done
echo "screenshots.sh: wrote $(cd "$out" && find . -type f | sort | tr '\n' ' ')into $out"
python3 - "$out/run-summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
r = s["record"]
print(f"run {s['run']}: {r['title']}, {s['state']} in {s['seconds']:.2f} s, "
      f"{s['previewsShown']} live previews, longest event-loop stall during the run "
      f"{s['maxEventLoopStallMsDuringRun']:.0f} ms")
PY

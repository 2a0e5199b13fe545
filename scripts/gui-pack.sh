#!/usr/bin/env bash
# Packs the window, its GUI tests and the CLI, built here (Debian 12, the default preset with
# CUDA), to run on the GPU machine (Ubuntu 24.04 without Qt, VTK, X or Mesa), as two archives of
# under 64 MiB each (the device tool carries at most 64 MiB a call):
#   OUTDIR/tomowb.tar.xz  tomowb, tomowb_test_gui, tomowb-cli, their library closure, Qt's xcb and
#                         offscreen plugins, Xvfb, xkbcomp, the XKB data and fonts
#   OUTDIR/mesa.tar.xz    Mesa's swrast driver and its closure (LLVM): Xvfb's GLX extension;
#                         and VTK's libraries (to balance the two)
# Left out on purpose: the C and C++ runtimes, CUDA's libraries and the GL dispatch libraries
# (libglvnd), which the GPU machine has or gets from .gl/*.deb (bench/gui-on-gpu.sh).
# Usage: scripts/gui-pack.sh [BUILD] [OUTDIR]   (defaults: build, .guipack)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
outdir="${2:-.guipack}"
for f in "$build/gui/tomowb" "$build/tests/tomowb_test_gui" "$build/cli/tomowb-cli"; do
  [ -x "$f" ] || { echo "gui-pack.sh: $f is not built (ninja -C $build tomowb tomowb_test_gui tomowb-cli)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/tomowb
mkdir -p "$out/bin" "$out/lib/dri" "$out/plugins/platforms" "$out/plugins/xcbglintegrations" \
  "$out/plugins/imageformats" "$out/share/fonts"
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libstdc\+\+|libgcc_s|libcuda\.so|libGL\.so|libGLX\.so|libGLdispatch|libEGL\.so|libOpenGL|libnvidia|libcufft|libcudart|libcublas|libnvrtc|libnvJitLink|libcurand)'
closure() {
  ldd "$@" 2>/dev/null | awk '/=> \//{print $1" "$3}' | while read -r name path; do
    echo "$name" | grep -qE "$skip" || echo "$path"
  done | sort -u
}
lib=/usr/lib/x86_64-linux-gnu
qt=$lib/qt6/plugins
cp -L "$qt/platforms/libqxcb.so" "$qt/platforms/libqoffscreen.so" "$out/plugins/platforms/"
cp -L "$qt"/xcbglintegrations/*.so "$out/plugins/xcbglintegrations/"
cp -L "$qt/imageformats/libqsvg.so" "$out/plugins/imageformats/" 2>/dev/null || true
mkdir -p "$out/plugins/iconengines" "$out/share/dcmtk"
cp -L "$qt/iconengines/libqsvgicon.so" "$out/plugins/iconengines/" 2>/dev/null || true
cp -L /usr/share/libdcmtk17/dicom.dic "$out/share/dcmtk/"  # DCMTK's data dictionary
cp -L "$build/gui/tomowb" "$build/tests/tomowb_test_gui" "$build/cli/tomowb-cli" \
  /usr/bin/Xvfb /usr/bin/xkbcomp /usr/bin/xvfb-run "$out/bin/"
strip --strip-unneeded "$out/bin/tomowb" "$out/bin/tomowb_test_gui" "$out/bin/tomowb-cli"
for f in $(closure "$out"/bin/tomowb "$out"/bin/tomowb_test_gui "$out"/bin/tomowb-cli \
  "$out"/bin/Xvfb "$out"/bin/xkbcomp "$out"/plugins/*/*.so); do
  cp -Ln "$f" "$out/lib/"
done
cp -r /usr/share/X11/xkb "$out/share/xkb"
cp -L /usr/share/fonts/truetype/dejavu/DejaVuSans*.ttf "$out/share/fonts/" 2>/dev/null || true
cat >"$out/env.sh" <<'ENV'
# Source me: the packed libraries, plugins and fonts, and the client's GLX through NVIDIA's
# vendor library (GLX_VENDOR=mesa renders in software instead).
H=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH=$H/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export QT_PLUGIN_PATH=$H/plugins LIBGL_DRIVERS_PATH=$H/lib/dri PATH=$H/bin:$PATH
export FONTCONFIG_FILE=$H/fonts.conf XKB_DIR=$H/share/xkb DCMDICTPATH=$H/share/dcmtk/dicom.dic
printf '<?xml version="1.0"?><fontconfig><dir>%s/share/fonts</dir><cachedir>/tmp/fc-cache</cachedir></fontconfig>\n' "$H" >"$FONTCONFIG_FILE"
export __GLX_VENDOR_LIBRARY_NAME=${GLX_VENDOR:-nvidia}
ENV
mesa=$tmp/mesa/tomowb
mkdir -p "$mesa/lib/dri"
cp -L "$lib/libGLX_mesa.so.0" "$mesa/lib/"
cp -L "$lib/dri/swrast_dri.so" "$mesa/lib/dri/"
for f in $(closure "$mesa/lib/libGLX_mesa.so.0" "$mesa/lib/dri/swrast_dri.so"); do
  [ -e "$out/lib/$(basename "$f")" ] || cp -Ln "$f" "$mesa/lib/"
done
# VTK's libraries travel with Mesa, so that each archive plus the working tree stays under the
# 64 MiB a device call carries (unpacked into one folder, the two make one tree).
mv "$out"/lib/libvtk* "$mesa/lib/"
mkdir -p "$outdir"
XZ_OPT="-9 -T2" tar -C "$tmp" -cJf "$outdir/tomowb.tar.xz" tomowb
# SKIP_MESA=1: the window changed, Mesa and VTK did not (a faster repack).
[ -n "${SKIP_MESA:-}" ] || XZ_OPT="-9 -T2" tar -C "$tmp/mesa" -cJf "$outdir/mesa.tar.xz" tomowb
ls -la "$outdir"/*.tar.xz
for f in "$outdir"/*.tar.xz; do
  [ "$(stat -c %s "$f")" -lt $((45 * 1024 * 1024)) ] || { echo "gui-pack.sh: $f is over 45 MiB (the working tree travels beside it)" >&2; exit 1; }
done

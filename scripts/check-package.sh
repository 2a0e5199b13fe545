#!/usr/bin/env bash
# Checks a tomowb .deb the way a user gets it: installs it with apt-get (which pulls the
# dependencies dpkg-shlibdeps recorded), runs `tomowb-cli demo` from /usr/bin into a temporary
# folder, checks the outputs, reads an HDF5 volume back (through the installed reader program),
# checks the desktop files and that tomowb links no Qt 5 library, then removes the package again.
# Needs root (or sudo). Usage: scripts/check-package.sh DEB
set -euo pipefail
if [[ $# -ne 1 || ! -f "$1" ]]; then
  echo "usage: $0 path/to/tomowb_VERSION_ARCH.deb" >&2
  exit 2
fi
deb=$(realpath "$1")
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo=sudo; fi
work=$(mktemp -d)
installed=0
cleanup() {
  if [[ $installed -eq 1 ]]; then $sudo apt-get remove -y tomowb >/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "check-package: FAIL: $*" >&2; exit 1; }

echo "== package"
dpkg-deb -I "$deb" | sed -n '/Package:/,$p'
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
echo "$contents"

echo "== install"
# No recommends: the check must work offline, with only the dependencies the package declares.
$sudo apt-get install -y --no-install-recommends "$deb"
installed=1
[[ -x /usr/bin/tomowb-cli ]] || fail "/usr/bin/tomowb-cli missing"

echo "== tomowb-cli demo"
/usr/bin/tomowb-cli demo --size 32 --views 48 -o "$work/demo"
for f in recon.mhd truth.mhd geometry.json summary.json; do
  [[ -s "$work/demo/$f" ]] || fail "tomowb-cli demo did not write $f"
done
find "$work/demo" -type f -printf '  %P (%s bytes)\n'

if ldd /usr/bin/tomowb-cli | grep -q libhdf5; then
  # A build with HDF5 reads it through its reader program, which the package must hold.
  grep -qx './usr/libexec/tomowb/tomowb-hdf5-reader' <<<"$contents" ||
    fail "tomowb-cli reads HDF5 but the package has no /usr/libexec/tomowb/tomowb-hdf5-reader"
  echo "== HDF5: written by tomowb-cli, read back through /usr/libexec/tomowb/tomowb-hdf5-reader"
  /usr/bin/tomowb-cli -q phantom --size 32 --views 48 -o "$work/p.json"
  /usr/bin/tomowb-cli -q --no-record recon fdk -i "$work/p.json" --size 32 -o "$work/r.h5"
  info=$(/usr/bin/tomowb-cli info "$work/r.h5") ||
    fail "tomowb-cli info cannot read the HDF5 volume it wrote"
  grep -q '32 x 32 x 32' <<<"$info" && grep -q 'value range' <<<"$info" ||
    fail "tomowb-cli info did not read the HDF5 volume's samples: $info"
  echo "  32 x 32 x 32 volume and its samples read back"
fi

if grep -qx './usr/bin/tomowb' <<<"$contents"; then
  echo "== tomowb"
  [[ -x /usr/bin/tomowb ]] || fail "/usr/bin/tomowb missing"
  if ldd /usr/bin/tomowb | grep -q 'not found'; then
    ldd /usr/bin/tomowb | grep 'not found'
    fail "tomowb has unresolved libraries"
  fi
  qt5=$(ldd /usr/bin/tomowb | grep -ci qt5 || true)
  [[ $qt5 -eq 0 ]] || fail "tomowb links $qt5 Qt 5 libraries"
  for f in /usr/share/applications/tomowb.desktop \
           /usr/share/icons/hicolor/scalable/apps/tomowb.svg \
           /usr/share/mime/packages/tomowb.xml; do
    [[ -f $f ]] || fail "$f missing"
  done
  if [[ -f /usr/share/mime/globs2 ]]; then
    grep -q 'x-metaimage-header:\*\.mhd' /usr/share/mime/globs2 ||
      fail "the MIME database does not know *.mhd (update-mime-database did not run?)"
  fi
  echo "  no Qt 5 libraries; desktop entry, icon and MIME types installed"
fi

echo "== remove"
$sudo apt-get remove -y tomowb
installed=0
[[ ! -e /usr/bin/tomowb-cli ]] || fail "/usr/bin/tomowb-cli still there after removal"
echo "check-package: OK"

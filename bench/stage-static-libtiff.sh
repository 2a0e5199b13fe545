#!/usr/bin/env bash
# The GPU machine's image has no libtiff. To measure the TIFF outputs there (a folder of slices
# written by every rank at once, issue #22 point 6), this stages Debian's static libtiff and the
# static libraries it needs into build-carry/libtiff/ (ignored by git, about 5 MB), to be carried
# to the device (`run` with carry ["build-carry"]). bench/run-scale-on-gpu.sh builds with it
# when it is there. Run here, on the Debian machine with libtiff-dev installed.
set -euo pipefail
cd "$(dirname "$0")/.."
to=build-carry/libtiff
lib=/usr/lib/x86_64-linux-gnu
rm -rf "$to" && mkdir -p "$to/include" "$to/lib"
cp /usr/include/x86_64-linux-gnu/tiff{,conf,io,vers}.h "$to/include/"
# libtiff first, then what it calls (the link order of static archives).
for a in tiff webp Lerc deflate jbig jpeg lzma zstd z; do
  cp "$lib/lib$a.a" "$to/lib/"
done
du -sh "$to"

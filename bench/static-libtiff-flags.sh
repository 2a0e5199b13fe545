# Sourced by the device scripts: with build-carry/libtiff (bench/stage-static-libtiff.sh, carried
# to the device) sets tiffFlags to the CMake options that build TIFF support from Debian's static
# archives (the device image has no libtiff); else leaves it empty.
tiffFlags=()
if [ -f "${root:-$PWD}/build-carry/libtiff/lib/libtiff.a" ]; then
  _t="${root:-$PWD}/build-carry/libtiff"
  _deps=""; for _a in webp Lerc deflate jbig jpeg lzma zstd z; do _deps+="$_t/lib/lib$_a.a "; done
  tiffFlags=(-DTOMOWB_TIFF=ON -DTIFF_INCLUDE_DIR="$_t/include" -DTIFF_LIBRARY="$_t/lib/libtiff.a"
    -DCMAKE_CXX_STANDARD_LIBRARIES="$_deps-lm -lpthread"
    -DCMAKE_CUDA_STANDARD_LIBRARIES="$_deps-lm -lpthread")
fi

#!/usr/bin/env bash
# Builds parallelproj (github KUL-recon-lab/libparallelproj, Apache-2.0; commit in
# bench/parallelproj/PARALLELPROJ_COMMIT) from its public source, and our driver pp_lm_bench against
# it, outside our own build (our CMake never builds bench/parallelproj), offline.
#
# Input:  build-parallelproj/parallelproj-src.tar.gz (git-ignored; never committed). Made with
#           git --git-dir=<libparallelproj mirror> archive --format=tar.gz --prefix=parallelproj/ \
#             $(cat bench/parallelproj/PARALLELPROJ_COMMIT) CMakeLists.txt CMakePresets.json VERSION \
#             LICENSE README.md cmake include src tests docs/theory_background.rst docs/c_api.rst \
#             docs/changelog.rst docs/installation.rst -o build-parallelproj/parallelproj-src.tar.gz
#         and carried to the GPU machine with carry ["build-parallelproj/parallelproj-src.tar.gz"].
# Output: build-parallelproj/src/parallelproj        (their source, unpacked)
#         build-parallelproj/install/{include,lib}   (their library: libparallelproj.so, CUDA)
#         build-parallelproj/bin/pp_lm_bench          (our driver, linked against it)
#
# Their CMakeLists (cmake_minimum_required 3.31) is used as it is: -DUSE_CUDA=ON -DBUILD_PYTHON=OFF
# -DBUILD_TESTS=OFF, Release, CMAKE_CUDA_ARCHITECTURES=$CUDA_ARCH. Its configure step downloads
# nothing (no FetchContent or ExternalProject; nanobind and Python only with BUILD_PYTHON=ON), needs
# only the CUDA toolkit (>= 12.0). Where CMake is older than 3.31 (Debian 12 has 3.25) or
# PP_BUILD=nvcc, the same sources (src/*.cu + src/parallelproj_info.cpp, their compile definitions)
# are compiled with nvcc directly into the same install layout. Both link the shared CUDA runtime,
# as our driver does (one runtime in the process).
#
# PP_BACKEND=cpu builds their OpenMP library (USE_CUDA=OFF) into build-parallelproj/install-cpu and
# our driver's host build (pp_ops_cpu.cpp) as build-parallelproj/bin/pp_lm_bench_cpu, to check the
# driver on a machine without a GPU (not for timings).
#
# Environment: CUDA_ARCH (90), JOBS (nproc), PP_BUILD (auto|cmake|nvcc), PP_BACKEND (cuda|cpu),
#   PP_DIR (build-parallelproj under the repository), PP_TARBALL, NLOHMANN_INCLUDE (folder holding
#   nlohmann/json.hpp; default: the compiler's search path, else /usr/include or /usr/local/include).
set -euo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="${PP_DIR:-$repo/build-parallelproj}"
tarball="${PP_TARBALL:-$dir/parallelproj-src.tar.gz}"
arch="${CUDA_ARCH:-90}"
jobs="${JOBS:-$(nproc)}"
backend="${PP_BACKEND:-cuda}"
mode="${PP_BUILD:-auto}"
commit="$(cat "$here/PARALLELPROJ_COMMIT")"

if [[ ! -f "$tarball" ]]; then
  echo "build-parallelproj.sh: $tarball is missing; make it as the header of this script says" >&2
  exit 1
fi
if command -v git > /dev/null; then
  tar_commit="$(zcat "$tarball" | git get-tar-commit-id 2> /dev/null || true)"
  if [[ -n "$tar_commit" && "$tar_commit" != "$commit" ]]; then
    echo "build-parallelproj.sh: the tarball is commit $tar_commit, PARALLELPROJ_COMMIT says $commit" >&2
    exit 1
  fi
fi

rm -rf "$dir/src"
mkdir -p "$dir/src" "$dir/bin"
tar -xzf "$tarball" -C "$dir/src"
src="$dir/src/parallelproj"
test -f "$src/include/parallelproj.h"
version="$(tr -d '[:space:]' < "$src/VERSION")"
numeric="${version%%.dev*}"
IFS=. read -r vmajor vminor vpatch <<< "$numeric"

if [[ "$backend" == cpu ]]; then
  prefix="$dir/install-cpu"
  libdir_build="$dir/build-lib-cpu"
else
  prefix="$dir/install"
  libdir_build="$dir/build-lib"
fi
rm -rf "$prefix" "$libdir_build"

cmake_ok=0
if command -v cmake > /dev/null; then
  cmv="$(cmake --version | head -n 1 | sed 's/[^0-9.]*\([0-9.]*\).*/\1/')"
  if printf '%s\n%s\n' "3.31" "$cmv" | sort -V -C; then cmake_ok=1; fi
fi
if [[ "$mode" == auto ]]; then mode=$([[ $cmake_ok == 1 ]] && echo cmake || echo nvcc); fi
echo "== parallelproj $version (commit $commit), backend $backend, library build: $mode," \
  "sm_$arch, -j$jobs; $(g++ --version | head -n 1)"
[[ "$backend" == cuda ]] && nvcc --version | tail -n 2 | head -n 1

defs=(-DPARALLELPROJ_EXPORTS "-DPROJECT_VERSION=\"$numeric\"" "-DPARALLELPROJ_VERSION_STRING=\"$version\""
  -DPROJECT_VERSION_MAJOR="$vmajor" -DPROJECT_VERSION_MINOR="$vminor" -DPROJECT_VERSION_PATCH="$vpatch")
if [[ "$mode" == cmake ]]; then
  gen=()
  if [[ -z "${CMAKE_GENERATOR:-}" ]] && command -v ninja > /dev/null; then gen=(-G Ninja); fi
  use_cuda=$([[ "$backend" == cuda ]] && echo ON || echo OFF)
  # CUDAARCHS would override CMAKE_CUDA_ARCHITECTURES' default; we pass the architecture explicitly.
  env -u CUDAARCHS cmake -S "$src" -B "$libdir_build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DUSE_CUDA="$use_cuda" -DBUILD_PYTHON=OFF -DBUILD_TESTS=OFF -DBUILD_LIBRARY=ON -DINSTALL_DEVEL=ON \
    -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_RUNTIME_LIBRARY=Shared \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib
  cmake --build "$libdir_build" -j "$jobs"
  cmake --install "$libdir_build"
else
  mkdir -p "$prefix/include" "$prefix/lib" "$libdir_build"
  cp -r "$src/include/." "$prefix/include/"
  so="libparallelproj.so.$numeric"
  if [[ "$backend" == cuda ]]; then
    objs=()
    pids=()
    for f in "$src"/src/*.cu "$src/src/parallelproj_info.cpp"; do
      o="$libdir_build/$(basename "$f").o"
      nvcc -O3 -DNDEBUG -std=c++17 -arch="sm_$arch" -Xcompiler -fPIC -DPARALLELPROJ_CUDA=1 "${defs[@]}" \
        -I"$src/include" -c "$f" -o "$o" &
      pids+=($!)
      objs+=("$o")
    done
    for p in "${pids[@]}"; do wait "$p"; done
    nvcc -shared -cudart shared -arch="sm_$arch" -Xlinker -soname,"libparallelproj.so.$vmajor" \
      "${objs[@]}" -o "$prefix/lib/$so"
  else
    g++ -O3 -DNDEBUG -std=c++17 -fopenmp -fPIC -shared -DPARALLELPROJ_CUDA=0 "${defs[@]}" \
      -I"$src/include" "$src"/src/*.cpp -Wl,-soname,"libparallelproj.so.$vmajor" -o "$prefix/lib/$so"
  fi
  ln -sf "$so" "$prefix/lib/libparallelproj.so.$vmajor"
  ln -sf "libparallelproj.so.$vmajor" "$prefix/lib/libparallelproj.so"
fi
test -f "$prefix/include/parallelproj.h"
ls -la "$prefix"/lib/libparallelproj.so*

# Our geometry against our simulator's (header-only), where our header is present.
if [[ -f "$repo/recon/pet/DetectorHits.h" ]]; then
  g++ -O2 -std=c++17 -I"$repo" -I"$here" "$here/check_geometry.cpp" -o "$dir/bin/check_geometry"
  "$dir/bin/check_geometry"
fi

# Our driver.
json_inc=()
if [[ -n "${NLOHMANN_INCLUDE:-}" ]]; then
  json_inc=(-I"$NLOHMANN_INCLUDE")
elif ! echo '#include <nlohmann/json.hpp>' | g++ -std=c++17 -x c++ -fsyntax-only - 2> /dev/null; then
  for d in /usr/include /usr/local/include; do
    [[ -f "$d/nlohmann/json.hpp" ]] && json_inc=(-I"$d") && break
  done
fi
flags=(-O3 -std=c++17 -Wall -Wextra -I"$here" -I"$prefix/include" "${json_inc[@]}" "-DPP_COMMIT=\"$commit\"")
obj="$dir/build-driver-$backend"
rm -rf "$obj"
mkdir -p "$obj"
if [[ "$backend" == cuda ]]; then
  cuda_inc="$(dirname "$(command -v nvcc)")/../include"
  nvcc -O3 -std=c++17 -arch="sm_$arch" -I"$here" -c "$here/pp_ops_cuda.cu" -o "$obj/pp_ops_cuda.o"
  g++ "${flags[@]}" -I"$cuda_inc" -c "$here/pp_lm_bench.cpp" -o "$obj/pp_lm_bench.o"
  g++ "${flags[@]}" -I"$cuda_inc" -c "$here/pp_selfcheck.cpp" -o "$obj/pp_selfcheck.o"
  nvcc -cudart shared -arch="sm_$arch" "$obj"/*.o -L"$prefix/lib" -lparallelproj \
    -Xlinker -rpath,"$prefix/lib" -o "$dir/bin/pp_lm_bench"
  out="$dir/bin/pp_lm_bench"
else
  g++ "${flags[@]}" -fopenmp "$here/pp_lm_bench.cpp" "$here/pp_selfcheck.cpp" "$here/pp_ops_cpu.cpp" \
    -L"$prefix/lib" -lparallelproj -Wl,-rpath,"$prefix/lib" -o "$dir/bin/pp_lm_bench_cpu"
  out="$dir/bin/pp_lm_bench_cpu"
fi
ls -la "$out"
ldd "$out" | grep -E 'parallelproj|cudart' || true
echo "build-parallelproj.sh: done in ${SECONDS} s"

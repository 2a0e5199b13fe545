#!/usr/bin/env bash
# Installs every Debian 12 package the build, the tests and the fuzzers need. Idempotent: skips
# apt-get when everything is already there. Run as root (or with sudo available).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  nlohmann-json3-dev libcli11-dev libeigen3-dev libtiff-dev libgtest-dev
  clang libclang-rt-14-dev clang-format clang-tidy
  # The workbench (tomowb): Qt 6 and VTK 9 (never VTK's Qt 5 module), and an X server with Mesa's
  # software OpenGL for the GUI tests and screenshots (reference/dependencies.md); libqt6svg6
  # carries the SVG icon engine the toolbar icons need.
  qt6-base-dev libqt6opengl6-dev libqt6svg6 libvtk9-dev xvfb xauth libgl1-mesa-dri
  # DICOM export and import (DCMTK), OpenSSL for SHA-256 hashes (run records, provenance), the
  # independent checkers the DICOM tests run: dciodvfy (dicom3tools), gdcminfo (libgdcm-tools)
  # and dcmdump (dcmtk); orthanc, the PACS the send-to-PACS tests start (their own, on free ports)
  libdcmtk-dev libssl-dev dicom3tools libgdcm-tools dcmtk orthanc
  # Slab runs shared over MPI ranks (docs/scale.md): Open MPI and its mpirun; serial HDF5 for
  # volumes written slab by slab (.h5)
  libopenmpi-dev openmpi-bin libhdf5-dev
  # Cluster submission (docs/scale.md, "Cluster"): the slurm tests start a real single-node SLURM
  # (tests/support/slurm-single-node.sh: munged, slurmctld, slurmd as root, no systemd) and the
  # clients sbatch, squeue, sacct, scancel, srun
  slurmctld slurmd slurm-client munge
  # ... and submit through a real sshd of their own on 127.0.0.1 (tests/support/sshd-single-host.sh),
  # fetching results with scp
  openssh-server openssh-client
  # Compiler cache shared by the build folders; dpkg-dev for the .deb (CPack)
  ccache dpkg-dev file
  # A test whose tomowb-cli run hangs shows every thread's stack before it is killed
  # (tests/support/TestSupport.h, waitForChild)
  gdb
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA compiler $(/usr/local/cuda/bin/nvcc --version | tail -n 2 | head -n 1)"
else
  echo "setup: no /usr/local/cuda/bin/nvcc: building without the CUDA kernels"
fi

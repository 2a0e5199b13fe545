// pp_selfcheck.h — checks of how the driver hands our events to parallelproj, run before anything
// is timed (pp_selfcheck.cpp): a point-source event set whose TOF back-projection must peak at the
// source (the sign convention and the axis order), the same with the TOF sign flipped (must not),
// crystal order swapped with the sign (must give the same values), the sum over all TOF bins
// against parallelproj's non-TOF projector (what makes the non-TOF sensitivity the right one for
// list-mode ML-EM), and the adjoint test of the list-mode pair with zero-mean random vectors.
#pragma once

#include <cstdint>
#include <string>

#include "pp_scanner.h"

namespace ppbench {

struct GridSpec {
  int nx = 144, ny = 144, nz = 48;
  double voxelMm = 4.0;
  double originMm[3] = {0, 0, 0};  // centre of voxel (0, 0, 0), x y z
  std::size_t voxels() const { return std::size_t(nx) * ny * nz; }
  static GridSpec centred(int nx, int ny, int nz, double voxelMm) {
    GridSpec g;
    g.nx = nx;
    g.ny = ny;
    g.nz = nz;
    g.voxelMm = voxelMm;
    g.originMm[0] = -0.5 * (nx - 1) * voxelMm;
    g.originMm[1] = -0.5 * (ny - 1) * voxelMm;
    g.originMm[2] = -0.5 * (nz - 1) * voxelMm;
    return g;
  }
};

// parallelproj's image arguments in its axis order (z, y, x): pp_common.h.
struct PpImageArgs {
  int dim[3];
  float origin[3];
  float voxel[3];
  explicit PpImageArgs(const GridSpec& g)
      : dim{g.nz, g.ny, g.nx},
        origin{float(g.originMm[2]), float(g.originMm[1]), float(g.originMm[0])},
        voxel{float(g.voxelMm), float(g.voxelMm), float(g.voxelMm)} {}
};

struct SelfCheckResult {
  bool passed = false;
  std::string markdown;  // one bullet per check, with its numbers
};

// Host arrays through parallelproj's C API (it copies host pointers to the GPU itself).
SelfCheckResult runSelfCheck(const ScannerSpec& scanner, const GridSpec& grid, float numSigmas,
                             int threadsPerBlock, int device, int events, std::uint64_t seed);

}  // namespace ppbench

// DIRECT's system-response (SR) kernels (reference/direct-tof-pet.md, sections 3.1-3.3): per view
// a kernel separable in the view frame, the TOF Gaussian along t times the LOR resolution across
// it (radial, varying with the voxel's signed LOR distance rho = x . r, and axial), truncated to
// one common ellipsoid of +-3 sigma of the widest kernel and normalised to sum 1 per class.
//
//   back-projection (gather):    b(i) = sum_o k_{v,c(i)}(o) z(i + o)
//   forward projection (gather): y(j) = sum_o x(j + o) k_{v,c(j+o)}(-o)
//
// the second being the exact transpose of the first (the forward kernel looked up at the source
// voxel's class, flipped). Offsets are sorted by (dz, dy, dx), so the support being centrally
// symmetric, the offset of -offsets[i] is offsets[n - 1 - i].
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/VolumeGrid.h"
#include "recon/pet/ViewBinning.h"

namespace tomowb::pet {

// How the radial LOR resolution (FWHM) varies with |rho| (section 3.2, the seed's Fig. 7 and
// Table III, linear between the given points):
//   Invariant: radialFwhmMm everywhere;
//   Variant1:  radialFwhmMm at referenceRadiusMm, edgeFwhmMm (10) at the FOV edge, linear;
//   Variant2:  radialFwhmMm at the centre, edgeFwhmMm (12) at the edge, linear;
//   Variant3:  radialFwhmMm at the centre, edgeFwhmMm (11.17) at the edge, quadratic.
enum class LorWidthProfile { Invariant, Variant1, Variant2, Variant3 };
std::string toString(LorWidthProfile profile);  // "invariant", "variant1", ...
LorWidthProfile parseLorWidthProfile(std::string_view text,
                                     std::string_view parameter = "lor-kernel");

struct DirectKernelParams {
  double tofFwhmPs = 400.0;
  double tofSigmaFactor = 1.0;  // > 1 for data deposited with the TOF kernel (Deposition.h)
  LorWidthProfile profile = LorWidthProfile::Invariant;
  double radialFwhmMm = 5.8;
  double edgeFwhmMm = 0.0;          // 0: the profile's own (10, 12, 11.17 mm)
  double referenceRadiusMm = 75.0;  // Variant1
  double fovEdgeMm = 0.0;           // 0: half the grid's transverse width
  double axialFwhmMm = 5.8;
  double truncationSigmas = 3.0;
  // The seed's asymmetric test kernel (section 3.2): g_r(r) = N(r; 0, s)/2 + N(r; -sgn(rho) s,
  // 2 s)/2, wider on the side facing the FOV centre.
  bool asymmetric = false;

  double edgeFwhm() const noexcept;
  double radialFwhmAt(double absRhoMm, double fovEdge) const noexcept;
  double tofSigmaMm() const noexcept;
  // Throws ParameterError naming the field (widths <= 0 or > 1000 mm, sigmas outside [1, 6]...).
  void validate() const;
};

struct KernelOffset {
  std::int32_t dx = 0, dy = 0, dz = 0;
};

// The kernel tables for one grid and view binning: per view its offsets and, per class, the
// kernel's value at each offset (float64; the GPU takes float32 copies), and per azimuth the class
// of every transverse pixel.
class DirectKernels {
 public:
  // Throws ParameterError for non-isotropic transverse voxels (x and y must match), or
  // OutOfMemoryError when the tables would not fit (naming their size).
  DirectKernels(const VolumeGrid& grid, const ViewBinning& views, const DirectKernelParams& params);

  const VolumeGrid& grid() const noexcept { return grid_; }
  const ViewBinning& views() const noexcept { return views_; }
  const DirectKernelParams& params() const noexcept { return params_; }
  // Radial classes (x 2 for asymmetric kernels: the second half for rho < 0); 1 for invariant
  // symmetric kernels.
  int classCount() const noexcept { return classCount_; }
  double classStepMm() const noexcept { return classStepMm_; }
  double fovEdgeMm() const noexcept { return fovEdgeMm_; }
  // Whether every class has the same kernel and the kernel is symmetric (FFT-able).
  bool invariantSymmetric() const noexcept { return classCount_ == 1 && !params_.asymmetric; }

  std::span<const KernelOffset> offsets(int view) const noexcept;
  int offsetCount(int view) const noexcept;
  int maxOffsetCount() const noexcept { return maxOffsets_; }
  // values(view)[c * offsetCount(view) + i] = k_{view,c}(offsets(view)[i]) (normalised).
  std::span<const double> values(int view) const noexcept;
  // Sum of the class's kernel over the support before normalisation (section 6.3: 0.9707 for a
  // well-sampled 3-sigma ellipsoid).
  double unnormalisedSum(int view, int cls) const noexcept;
  // classMap(azimuth)[y * nx + x]: the class of transverse pixel (x, y) in views of that azimuth.
  std::span<const std::uint16_t> classMap(int azimuth) const noexcept;
  // The largest offset along each axis over every view (the GPU kernels' halo).
  KernelOffset reach() const noexcept { return reach_; }

 private:
  VolumeGrid grid_;
  ViewBinning views_;
  DirectKernelParams params_;
  int classCount_ = 1, maxOffsets_ = 0;
  double classStepMm_ = 1, fovEdgeMm_ = 0;
  KernelOffset reach_;
  std::vector<std::vector<KernelOffset>> offsets_;
  std::vector<std::vector<double>> values_;
  std::vector<std::vector<double>> sums_;
  std::vector<std::vector<std::uint16_t>> classMaps_;
};

}  // namespace tomowb::pet

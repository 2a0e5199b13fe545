#include "recon/pet/SystemResponse.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::pet {

std::string toString(LorWidthProfile profile) {
  switch (profile) {
    case LorWidthProfile::Invariant:
      return "invariant";
    case LorWidthProfile::Variant1:
      return "variant1";
    case LorWidthProfile::Variant2:
      return "variant2";
    case LorWidthProfile::Variant3:
      return "variant3";
  }
  return "?";
}

LorWidthProfile parseLorWidthProfile(std::string_view text, std::string_view parameter) {
  for (LorWidthProfile p : {LorWidthProfile::Invariant, LorWidthProfile::Variant1,
                            LorWidthProfile::Variant2, LorWidthProfile::Variant3})
    if (text == toString(p)) return p;
  throw ParameterError(parameter, "'" + std::string(text) +
                                      "' is not a LOR kernel (invariant, variant1, variant2, "
                                      "variant3)");
}

double DirectKernelParams::edgeFwhm() const noexcept {
  if (edgeFwhmMm > 0) return edgeFwhmMm;
  switch (profile) {
    case LorWidthProfile::Invariant:
      return radialFwhmMm;
    case LorWidthProfile::Variant1:
      return 10.0;
    case LorWidthProfile::Variant2:
      return 12.0;
    case LorWidthProfile::Variant3:
      return 11.17;
  }
  return radialFwhmMm;
}

double DirectKernelParams::radialFwhmAt(double absRhoMm, double fovEdge) const noexcept {
  const double rho = std::min(absRhoMm, fovEdge);
  const double edge = edgeFwhm();
  double fwhm = radialFwhmMm;
  switch (profile) {
    case LorWidthProfile::Invariant:
      break;
    case LorWidthProfile::Variant1:
      fwhm = radialFwhmMm +
             (edge - radialFwhmMm) * (rho - referenceRadiusMm) / (fovEdge - referenceRadiusMm);
      break;
    case LorWidthProfile::Variant2:
      fwhm = radialFwhmMm + (edge - radialFwhmMm) * rho / fovEdge;
      break;
    case LorWidthProfile::Variant3:
      fwhm = radialFwhmMm + (edge - radialFwhmMm) * (rho / fovEdge) * (rho / fovEdge);
      break;
  }
  return std::max(fwhm, 0.25 * radialFwhmMm);  // variant1 inside its reference radius
}

double DirectKernelParams::tofSigmaMm() const noexcept {
  return kSpeedOfLightMmPerPs * tofFwhmPs / 2.0 / kFwhmPerSigma * tofSigmaFactor;
}

void DirectKernelParams::validate() const {
  auto check = [](const char* name, double value, double lo, double hi) {
    if (!(value >= lo && value <= hi))
      throw ParameterError(name, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                     "], got " + std::to_string(value));
  };
  check("tof-fwhm-ps", tofFwhmPs, 1.0, 10000.0);
  check("tof-sigma-factor", tofSigmaFactor, 0.1, 10.0);
  check("radial-fwhm-mm", radialFwhmMm, 0.01, 1000.0);
  if (edgeFwhmMm != 0) check("edge-fwhm-mm", edgeFwhmMm, 0.01, 1000.0);
  check("axial-fwhm-mm", axialFwhmMm, 0.01, 1000.0);
  check("truncation-sigmas", truncationSigmas, 1.0, 6.0);
  if (fovEdgeMm != 0) check("fov-edge-mm", fovEdgeMm, 1.0, 10000.0);
  if (profile == LorWidthProfile::Variant1) check("reference-radius-mm", referenceRadiusMm, 0, 1e4);
}

namespace {

// The radial factor of the kernel as a density (integrates to 1 over r).
double radialDensity(double r, double sigma, bool asymmetric, double sign) {
  const double norm = 1.0 / std::sqrt(2.0 * std::numbers::pi);
  if (!asymmetric) return norm / sigma * std::exp(-0.5 * r * r / (sigma * sigma));
  const double shift = -sign * sigma;
  const double wide = 2.0 * sigma;
  return 0.5 * norm / sigma * std::exp(-0.5 * r * r / (sigma * sigma)) +
         0.5 * norm / wide * std::exp(-0.5 * (r - shift) * (r - shift) / (wide * wide));
}

double gaussianDensity(double t, double sigma) {
  return std::exp(-0.5 * t * t / (sigma * sigma)) / (std::sqrt(2.0 * std::numbers::pi) * sigma);
}

// The classes of one azimuth's transverse pixels: |rho| in steps of `step` (the last class
// takes the rest), the second half for rho < 0 when asymmetric.
std::vector<std::uint16_t> classMapOf(const VolumeGrid& grid, double phi, int baseClasses,
                                      double step, bool asymmetric) {
  const std::int64_t nx = grid.shape.nx, ny = grid.shape.ny;
  const double s = std::sin(phi), c = std::cos(phi);
  std::vector<std::uint16_t> map(static_cast<std::size_t>(nx * ny));
  for (std::int64_t y = 0; y < ny; ++y)
    for (std::int64_t x = 0; x < nx; ++x) {
      const double wx = grid.originMm.x() + double(x) * grid.voxelSizeMm.x();
      const double wy = grid.originMm.y() + double(y) * grid.voxelSizeMm.y();
      const double rho = -wx * s + wy * c;
      const long quantised = std::lround(std::abs(rho) / step);
      int cls = baseClasses == 1 ? 0 : static_cast<int>(std::min<long>(quantised, baseClasses - 1));
      if (asymmetric && rho < 0) cls += baseClasses;
      map[static_cast<std::size_t>(y * nx + x)] = static_cast<std::uint16_t>(cls);
    }
  return map;
}

// The integer offsets inside the ellipsoid of semi-axes `semi` (along t, r, a) of a view frame,
// sorted by (dz, dy, dx).
std::vector<KernelOffset> supportOf(const ViewFrame& f, const Eigen::Vector3d& voxel,
                                    const Eigen::Vector3d& semi) {
  int half[3];
  for (int axis = 0; axis < 3; ++axis) {
    const double extent = std::sqrt(semi[0] * semi[0] * f.tof[axis] * f.tof[axis] +
                                    semi[1] * semi[1] * f.radial[axis] * f.radial[axis] +
                                    semi[2] * semi[2] * f.axial[axis] * f.axial[axis]);
    half[axis] = static_cast<int>(std::floor(extent / voxel[axis] + 1e-9));
  }
  std::vector<KernelOffset> list;
  for (int dz = -half[2]; dz <= half[2]; ++dz)
    for (int dy = -half[1]; dy <= half[1]; ++dy)
      for (int dx = -half[0]; dx <= half[0]; ++dx) {
        const Eigen::Vector3d d(dx * voxel.x(), dy * voxel.y(), dz * voxel.z());
        const double t = d.dot(f.tof) / semi[0], r = d.dot(f.radial) / semi[1],
                     a = d.dot(f.axial) / semi[2];
        if (t * t + r * r + a * a <= 1.0 + 1e-12) list.push_back({dx, dy, dz});
      }
  return list;
}

}  // namespace

DirectKernels::DirectKernels(const VolumeGrid& grid, const ViewBinning& views,
                             const DirectKernelParams& params)
    : grid_(grid), views_(views), params_(params) {
  params.validate();
  views.validate();
  const Eigen::Vector3d& voxel = grid.voxelSizeMm;
  if (std::abs(voxel.x() - voxel.y()) > 1e-9 * voxel.x())
    throw ParameterError("grid", "DIRECT needs square transverse voxels (x and y sizes equal)");
  classStepMm_ = voxel.x();
  fovEdgeMm_ = params.fovEdgeMm > 0 ? params.fovEdgeMm : 0.5 * double(grid.shape.nx) * voxel.x();
  if (params.profile == LorWidthProfile::Variant1 && !(fovEdgeMm_ > params.referenceRadiusMm))
    throw ParameterError("reference-radius-mm",
                         "must lie inside the FOV edge (" + std::to_string(fovEdgeMm_) + " mm)");
  const int baseClasses = params.profile == LorWidthProfile::Invariant
                              ? 1
                              : static_cast<int>(std::lround(fovEdgeMm_ / classStepMm_)) + 1;
  classCount_ = params.asymmetric ? 2 * baseClasses : baseClasses;
  for (int a = 0; a < views.azimuths; ++a)
    classMaps_.push_back(classMapOf(grid, (a + 0.5) * views.azimuthStepRad(), baseClasses,
                                    classStepMm_, params.asymmetric));

  // Per class: the radial sigma and the side (for asymmetric kernels).
  std::vector<double> sigmaR(static_cast<std::size_t>(classCount_)), side(sigmaR.size(), 1.0);
  double maxSigmaR = 0;
  for (int cls = 0; cls < classCount_; ++cls) {
    const int base = cls % baseClasses;
    sigmaR[cls] = params.radialFwhmAt(base * classStepMm_, fovEdgeMm_) / kFwhmPerSigma;
    side[cls] = cls >= baseClasses ? -1.0 : 1.0;
    maxSigmaR = std::max(maxSigmaR, sigmaR[cls]);
  }
  const double sigmaT = params.tofSigmaMm();
  const double sigmaA = params.axialFwhmMm / kFwhmPerSigma;
  const double cut = params.truncationSigmas;
  const Eigen::Vector3d semi(
      cut * sigmaT, params.asymmetric ? cut * 2.0 * maxSigmaR + maxSigmaR : cut * maxSigmaR,
      cut * sigmaA);
  const double cellVolume = voxel.x() * voxel.y() * voxel.z();

  std::uint64_t tableBytes = 0;
  for (int v = 0; v < views.count(); ++v) {
    const ViewFrame f = views.frame(v);
    std::vector<KernelOffset> list = supportOf(f, voxel, semi);
    const auto n = static_cast<std::int64_t>(list.size());
    tableBytes += std::uint64_t(n) * std::uint64_t(classCount_) * sizeof(double);
    checkHostAllocation(tableBytes, "the DIRECT kernel tables");
    std::vector<double> vals(static_cast<std::size_t>(n * classCount_), 0.0);
    std::vector<double> sums(static_cast<std::size_t>(classCount_), 0.0);
    for (int cls = 0; cls < classCount_; ++cls) {
      double sum = 0;
      double* row = vals.data() + static_cast<std::ptrdiff_t>(cls) * n;
      for (std::int64_t i = 0; i < n; ++i) {
        const KernelOffset& o = list[static_cast<std::size_t>(i)];
        const Eigen::Vector3d d(o.dx * voxel.x(), o.dy * voxel.y(), o.dz * voxel.z());
        row[i] = gaussianDensity(d.dot(f.tof), sigmaT) *
                 radialDensity(d.dot(f.radial), sigmaR[cls], params.asymmetric, side[cls]) *
                 gaussianDensity(d.dot(f.axial), sigmaA);
        sum += row[i];
      }
      sums[cls] = sum * cellVolume;
      if (sum > 0)
        for (std::int64_t i = 0; i < n; ++i) row[i] /= sum;
    }
    maxOffsets_ = std::max(maxOffsets_, static_cast<int>(n));
    for (const KernelOffset& o : list) {
      reach_.dx = std::max(reach_.dx, std::abs(o.dx));
      reach_.dy = std::max(reach_.dy, std::abs(o.dy));
      reach_.dz = std::max(reach_.dz, std::abs(o.dz));
    }
    offsets_.push_back(std::move(list));
    values_.push_back(std::move(vals));
    sums_.push_back(std::move(sums));
  }
}

std::span<const KernelOffset> DirectKernels::offsets(int view) const noexcept {
  return offsets_[static_cast<std::size_t>(view)];
}
int DirectKernels::offsetCount(int view) const noexcept {
  return static_cast<int>(offsets_[static_cast<std::size_t>(view)].size());
}
std::span<const double> DirectKernels::values(int view) const noexcept {
  return values_[static_cast<std::size_t>(view)];
}
double DirectKernels::unnormalisedSum(int view, int cls) const noexcept {
  return sums_[static_cast<std::size_t>(view)][static_cast<std::size_t>(cls)];
}
std::span<const std::uint16_t> DirectKernels::classMap(int azimuth) const noexcept {
  return classMaps_[static_cast<std::size_t>(azimuth)];
}

}  // namespace tomowb::pet

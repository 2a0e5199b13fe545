// DIRECT's correction histo-images (CorrectionImages.h; reference/direct-tof-pet.md, 5.4).
#include "recon/pet/CorrectionImages.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/pet/DetectorHits.h"

namespace tomowb::pet {

namespace {

// What epsilon needs of the scanner: the hit model and the acceptance limits.
struct Acceptance {
  DetectorHitModel hits;
  double halfAxialMm = 0;
  double fovRadiusMm = 0;
  double maxTanTilt = 0;  // min(scanner acceptance, views' maxTilt)
};

Acceptance acceptanceOf(const ScannerModel& scanner, const ViewBinning& views) {
  scanner.validate();
  views.validate();
  Acceptance a;
  a.hits = detectorHitModel(scanner);
  a.halfAxialMm = a.hits.halfAxialMm;
  a.fovRadiusMm = a.hits.fovRadiusMm;
  const double tilt =
      std::min(scanner.axialAcceptanceDeg * std::numbers::pi / 180.0, views.maxTiltRad);
  a.maxTanTilt = std::tan(tilt);
  return a;
}

// The transverse part of one azimuth sample through (x, y): the in-plane distances to the
// detector face in both senses, or false when the line misses the crystals or the field of view.
bool transverseExits(const Acceptance& a, double x, double y, double cosPhi, double sinPhi,
                     double& forward, double& backward) {
  if (x * x + y * y >= a.hits.radiusMm * a.hits.radiusMm) return false;
  if (std::abs(-x * sinPhi + y * cosPhi) > a.fovRadiusMm) return false;
  const Vec3<double> p{x, y, 0.0};
  int module = 0;
  forward = exitDistance(a.hits, p, Vec3<double>{cosPhi, sinPhi, 0.0}, &module);
  if (!(forward > 0) ||
      !hitOnCrystals(a.hits, Vec3<double>{x + forward * cosPhi, y + forward * sinPhi, 0.0}, module))
    return false;
  backward = exitDistance(a.hits, p, Vec3<double>{-cosPhi, -sinPhi, 0.0}, &module);
  return backward > 0 &&
         hitOnCrystals(a.hits, Vec3<double>{x - backward * cosPhi, y - backward * sinPhi, 0.0},
                       module);
}

// sin(atan(t)).
double sinOfAtan(double t) {
  return t / std::sqrt(1.0 + t * t);
}

// The cos(theta) integral over the tilts in [tanLow, tanHigh] whose both ends hit |z| <= H: the
// hit at in-plane distance s lies at z + s tan(theta) (forward) and z - s' tan(theta) (backward).
double acceptedTiltIntegral(double z, double forward, double backward, double halfAxial,
                            double tanLow, double tanHigh) {
  const double low = std::max({tanLow, (-halfAxial - z) / forward, (z - halfAxial) / backward});
  const double high = std::min({tanHigh, (halfAxial - z) / forward, (z + halfAxial) / backward});
  return high > low ? sinOfAtan(high) - sinOfAtan(low) : 0.0;
}

struct ViewCell {
  std::vector<double> cosPhi, sinPhi;  // the azimuth samples
  double tanLow = 0, tanHigh = 0;      // the cell's tilts, clipped to the acceptance
  double weight = 0;                   // 2 / (4 pi) x the azimuth sample's width
};

// The view's cell, or its tilt sub-range `part` of `parts` (equal tilt widths).
ViewCell cellOf(const ViewBinning& views, int view, const Acceptance& a, int samples, int part = 0,
                int parts = 1) {
  ViewCell c;
  const double dPhi = views.azimuthStepRad();
  const double phi0 = views.azimuthOf(view) * dPhi;
  for (int q = 0; q < samples; ++q) {
    const double phi = phi0 + (q + 0.5) * dPhi / samples;
    c.cosPhi.push_back(std::cos(phi));
    c.sinPhi.push_back(std::sin(phi));
  }
  const double width = views.tiltStepRad() / parts;
  const double theta0 = -views.maxTiltRad + views.tiltOf(view) * views.tiltStepRad() + part * width;
  c.tanLow = std::max(std::tan(theta0), -a.maxTanTilt);
  c.tanHigh = std::min(std::tan(theta0 + width), a.maxTanTilt);
  c.weight = 2.0 / (4.0 * std::numbers::pi) * dPhi / samples;
  return c;
}

void checkSameLayout(const HistoImages& a, const HistoImages& b, const char* what) {
  const VolumeGrid &ga = a.grid(), &gb = b.grid();
  if (!(ga.shape == gb.shape) || ga.voxelSizeMm != gb.voxelSizeMm || ga.originMm != gb.originMm ||
      a.views().azimuths != b.views().azimuths || a.views().tilts != b.views().tilts ||
      a.views().maxTiltRad != b.views().maxTiltRad)
    throw ParameterError(what, "its grid or views differ from the data's");
}

// Linear weights of the two neighbours of coordinate f along an axis of n voxels (0 for a
// neighbour outside); false when neither is inside.
bool axisWeights(double f, std::int64_t n, std::int64_t& first, double weights[2]) {
  const double floor = std::floor(f);
  first = static_cast<std::int64_t>(floor);
  if (first < -1 || first >= n) return false;
  const double w = f - floor;
  weights[0] = first >= 0 ? 1 - w : 0.0;
  weights[1] = first + 1 < n ? w : 0.0;
  return true;
}

// Trilinear sample of a volume at continuous voxel coordinates, 0 beyond the outer centres' cells.
float trilinear(const Volume& v, double fx, double fy, double fz) {
  std::int64_t x0 = 0, y0 = 0, z0 = 0;
  double wx[2], wy[2], wz[2];
  if (!axisWeights(fx, v.nx(), x0, wx) || !axisWeights(fy, v.ny(), y0, wy) ||
      !axisWeights(fz, v.nz(), z0, wz))
    return 0.0f;
  double sum = 0;
  for (int dz = 0; dz < 2; ++dz)
    for (int dy = 0; dy < 2; ++dy)
      for (int dx = 0; dx < 2; ++dx) {
        const double w = wz[dz] * wy[dy] * wx[dx];
        if (w > 0) sum += w * double(v.at(x0 + dx, y0 + dy, z0 + dz));
      }
  return static_cast<float>(sum);
}

void checkAttenuationMap(const Volume& mu) {
  if (mu.empty()) throw ParameterError("attenuation", "the mu map is empty");
  for (const float m : mu.voxels())
    if (!std::isfinite(m) || m < 0)
      throw ParameterError("attenuation", "the mu map holds a negative or non-finite value");
}

// One pass of a normalised, truncated Gaussian along an axis of one view's volume.
void smoothAxis(std::span<float> volume, const VolumeShape& s, int axis,
                const std::vector<double>& taps) {
  const std::int64_t n[3] = {s.nx, s.ny, s.nz};
  const std::int64_t stride[3] = {1, s.nx, s.nx * s.ny};
  const std::int64_t length = n[axis], step = stride[axis];
  const auto radius = static_cast<std::int64_t>(taps.size()) - 1;
  const std::int64_t lines = s.voxelCount() / length;
  // Lines along `axis`: enumerate the other two coordinates.
  const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;
#pragma omp parallel for schedule(static)
  for (std::int64_t line = 0; line < lines; ++line) {
    const std::int64_t i1 = line % n[a1], i2 = line / n[a1];
    const std::int64_t base = i1 * stride[a1] + i2 * stride[a2];
    std::vector<double> in(static_cast<std::size_t>(length));
    for (std::int64_t i = 0; i < length; ++i)
      in[static_cast<std::size_t>(i)] = volume[static_cast<std::size_t>(base + i * step)];
    for (std::int64_t i = 0; i < length; ++i) {
      double sum = 0, weight = 0;
      for (std::int64_t k = -radius; k <= radius; ++k) {
        const std::int64_t j = i + k;
        if (j < 0 || j >= length) continue;
        const double w = taps[static_cast<std::size_t>(std::abs(k))];
        sum += w * in[static_cast<std::size_t>(j)];
        weight += w;
      }
      volume[static_cast<std::size_t>(base + i * step)] = static_cast<float>(sum / weight);
    }
  }
}

// epsilon of one cell (or tilt sub-range) at every voxel centre of the grid, into `image`.
void fillDetection(const Acceptance& a, const ViewCell& cell, const VolumeGrid& grid,
                   std::span<float> image) {
  const VolumeShape& s = grid.shape;
#pragma omp parallel for schedule(dynamic, 4)
  for (std::int64_t pixel = 0; pixel < s.nx * s.ny; ++pixel) {
    const std::int64_t ix = pixel % s.nx, iy = pixel / s.nx;
    const double x = grid.originMm.x() + double(ix) * grid.voxelSizeMm.x();
    const double y = grid.originMm.y() + double(iy) * grid.voxelSizeMm.y();
    std::vector<double> forward, backward;
    for (std::size_t q = 0; q < cell.cosPhi.size(); ++q) {
      double f = 0, b = 0;
      if (transverseExits(a, x, y, cell.cosPhi[q], cell.sinPhi[q], f, b)) {
        forward.push_back(f);
        backward.push_back(b);
      }
    }
    for (std::int64_t iz = 0; iz < s.nz; ++iz) {
      const double z = grid.originMm.z() + double(iz) * grid.voxelSizeMm.z();
      double sum = 0;
      for (std::size_t q = 0; q < forward.size(); ++q)
        sum += acceptedTiltIntegral(z, forward[q], backward[q], a.halfAxialMm, cell.tanLow,
                                    cell.tanHigh);
      image[static_cast<std::size_t>(iz * s.nx * s.ny + pixel)] =
          static_cast<float>(sum * cell.weight);
    }
  }
}

// Where a mu map can be > 0 (trilinear samples reach one voxel beyond a voxel's centre).
struct MuBox {
  Eigen::Vector3d low, high;
  bool empty = false;
};

// The whole map's box.
MuBox boxOf(const Volume& mu) {
  MuBox box;
  for (int k = 0; k < 3; ++k) {
    const double n = double(k == 0 ? mu.nx() : k == 1 ? mu.ny() : mu.nz());
    box.low[k] = mu.originMm()[k] - mu.voxelSizeMm()[k];
    box.high[k] = mu.originMm()[k] + n * mu.voxelSizeMm()[k];
  }
  return box;
}

// The box around the voxels with mu > 0 (lines are integrated only there: a body in a wide map
// takes a fraction of its box).
MuBox supportOf(const Volume& mu) {
  std::int64_t lowIndex[3] = {mu.nx(), mu.ny(), mu.nz()}, highIndex[3] = {-1, -1, -1};
  for (std::int64_t z = 0; z < mu.nz(); ++z)
    for (std::int64_t y = 0; y < mu.ny(); ++y)
      for (std::int64_t x = 0; x < mu.nx(); ++x)
        if (mu.at(x, y, z) > 0) {
          const std::int64_t i[3] = {x, y, z};
          for (int k = 0; k < 3; ++k) {
            lowIndex[k] = std::min(lowIndex[k], i[k]);
            highIndex[k] = std::max(highIndex[k], i[k]);
          }
        }
  MuBox box;
  box.empty = highIndex[0] < 0;
  for (int k = 0; k < 3; ++k) {
    box.low[k] = mu.originMm()[k] + double(lowIndex[k] - 1) * mu.voxelSizeMm()[k];
    box.high[k] = mu.originMm()[k] + double(highIndex[k] + 1) * mu.voxelSizeMm()[k];
  }
  return box;
}

// The midpoint-rule integral of mu along the line through `point`, clipped to `box`.
double integrateLine(const Volume& mu, const MuBox& box, const Eigen::Vector3d& point,
                     const Eigen::Vector3d& direction, double stepMuVoxels) {
  if (box.empty) return 0.0;
  double sHigh = std::numeric_limits<double>::infinity(), sLow = -sHigh;
  for (int k = 0; k < 3; ++k) {
    if (direction[k] == 0) {
      if (point[k] <= box.low[k] || point[k] >= box.high[k]) return 0.0;
      continue;
    }
    double a = (box.low[k] - point[k]) / direction[k], b = (box.high[k] - point[k]) / direction[k];
    if (a > b) std::swap(a, b);
    sLow = std::max(sLow, a);
    sHigh = std::min(sHigh, b);
  }
  if (!(sHigh > sLow)) return 0.0;
  const double step = stepMuVoxels * mu.voxelSizeMm().minCoeff();
  const auto steps = static_cast<std::int64_t>(std::ceil((sHigh - sLow) / step));
  const double h = (sHigh - sLow) / double(steps);
  const Eigen::Vector3d inverse = mu.voxelSizeMm().cwiseInverse();
  double sum = 0;
  for (std::int64_t i = 0; i < steps; ++i) {
    const Eigen::Vector3d p = point + (sLow + (double(i) + 0.5) * h) * direction;
    const Eigen::Vector3d f = (p - mu.originMm()).cwiseProduct(inverse);
    sum += trilinear(mu, f.x(), f.y(), f.z());
  }
  return sum * h;
}

// The integral of mu along direction `tof` through every voxel centre of the grid, into `out`:
// integrals on a plane grid perpendicular to `tof` (axes `radial`, `axial`), read bilinearly.
void fillLineIntegrals(const Volume& mu, const MuBox& support, const VolumeGrid& grid,
                       const Eigen::Vector3d& tof, const Eigen::Vector3d& radial,
                       const Eigen::Vector3d& axial, const AttenuationParams& params,
                       std::span<float> out) {
  const VolumeShape& s = grid.shape;
  const double spacing = params.planeSpacingVoxels * grid.voxelSizeMm.minCoeff();
  // The plane grid (radial p, axial q) over the projections of the grid's voxel centres.
  double pMin = std::numeric_limits<double>::infinity(), pMax = -pMin, qMin = pMin, qMax = -pMin;
  for (int corner = 0; corner < 8; ++corner) {
    const Eigen::Vector3d c =
        grid.originMm + grid.voxelSizeMm.cwiseProduct(Eigen::Vector3d(
                            double(corner & 1 ? s.nx - 1 : 0), double(corner & 2 ? s.ny - 1 : 0),
                            double(corner & 4 ? s.nz - 1 : 0)));
    pMin = std::min(pMin, c.dot(radial));
    pMax = std::max(pMax, c.dot(radial));
    qMin = std::min(qMin, c.dot(axial));
    qMax = std::max(qMax, c.dot(axial));
  }
  const auto np = static_cast<std::int64_t>(std::ceil((pMax - pMin) / spacing)) + 2;
  const auto nq = static_cast<std::int64_t>(std::ceil((qMax - qMin) / spacing)) + 2;
  std::vector<double> plane(static_cast<std::size_t>(np * nq));
#pragma omp parallel for schedule(dynamic, 8)
  for (std::int64_t node = 0; node < np * nq; ++node) {
    const std::int64_t column = node % np, row = node / np;
    const double p = pMin + double(column) * spacing, q = qMin + double(row) * spacing;
    plane[static_cast<std::size_t>(node)] =
        integrateLine(mu, support, p * radial + q * axial, tof, params.stepMuVoxels);
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t index = 0; index < s.voxelCount(); ++index) {
    const std::int64_t ix = index % s.nx, iy = (index / s.nx) % s.ny, iz = index / (s.nx * s.ny);
    const Eigen::Vector3d c = grid.originMm + grid.voxelSizeMm.cwiseProduct(Eigen::Vector3d(
                                                  double(ix), double(iy), double(iz)));
    const double fp = std::clamp((c.dot(radial) - pMin) / spacing, 0.0, double(np - 1));
    const double fq = std::clamp((c.dot(axial) - qMin) / spacing, 0.0, double(nq - 1));
    const auto p0 = std::min(static_cast<std::int64_t>(fp), np - 2);
    const auto q0 = std::min(static_cast<std::int64_t>(fq), nq - 2);
    const double wp = fp - double(p0), wq = fq - double(q0);
    const auto at = [&](std::int64_t p, std::int64_t q) {
      return plane[static_cast<std::size_t>(q * np + p)];
    };
    out[static_cast<std::size_t>(index)] =
        static_cast<float>((1 - wq) * ((1 - wp) * at(p0, q0) + wp * at(p0 + 1, q0)) +
                           wq * ((1 - wp) * at(p0, q0 + 1) + wp * at(p0 + 1, q0 + 1)));
  }
}

// The direction frame of tilt `tiltRad` at the view's azimuth.
void tiltedFrame(double azimuthRad, double tiltRad, Eigen::Vector3d& tof, Eigen::Vector3d& radial,
                 Eigen::Vector3d& axial) {
  const double cp = std::cos(azimuthRad), sp = std::sin(azimuthRad);
  const double ct = std::cos(tiltRad), st = std::sin(tiltRad);
  tof = Eigen::Vector3d(ct * cp, ct * sp, st);
  radial = Eigen::Vector3d(-sp, cp, 0.0);
  axial = Eigen::Vector3d(-st * cp, -st * sp, ct);
}
}  // namespace

void SensitivityParams::validate() const {
  if (azimuthSamples < 1 || azimuthSamples > 64)
    throw ParameterError("azimuthSamples",
                         "must be from 1 to 64, got " + std::to_string(azimuthSamples));
}

void AttenuationParams::validate() const {
  if (!(planeSpacingVoxels >= 0.05 && planeSpacingVoxels <= 4))
    throw ParameterError("planeSpacingVoxels", "must be in [0.05, 4]");
  if (!(stepMuVoxels >= 0.05 && stepMuVoxels <= 4))
    throw ParameterError("stepMuVoxels", "must be in [0.05, 4]");
  if (tiltSamples < 1 || tiltSamples > 32)
    throw ParameterError("tiltSamples", "must be from 1 to 32, got " + std::to_string(tiltSamples));
}

void BackgroundParams::validate() const {
  if (!(smoothingSigmaVoxels >= 0 && smoothingSigmaVoxels <= 20))
    throw ParameterError("smoothingSigmaVoxels", "must be in [0, 20] voxels");
  if (!(truncationSigmas >= 1 && truncationSigmas <= 6))
    throw ParameterError("truncationSigmas", "must be in [1, 6]");
}

double detectionProbabilityAt(const ScannerModel& scanner, const ViewBinning& views, int view,
                              const Eigen::Vector3d& pointMm, const SensitivityParams& params) {
  params.validate();
  const Acceptance a = acceptanceOf(scanner, views);
  const ViewCell cell = cellOf(views, view, a, params.azimuthSamples);
  double sum = 0;
  for (std::size_t q = 0; q < cell.cosPhi.size(); ++q) {
    double forward = 0, backward = 0;
    if (!transverseExits(a, pointMm.x(), pointMm.y(), cell.cosPhi[q], cell.sinPhi[q], forward,
                         backward))
      continue;
    sum += acceptedTiltIntegral(pointMm.z(), forward, backward, a.halfAxialMm, cell.tanLow,
                                cell.tanHigh);
  }
  return sum * cell.weight;
}

HistoImages detectionProbabilities(const ScannerModel& scanner, const VolumeGrid& grid,
                                   const ViewBinning& views, const SensitivityParams& params,
                                   JobContext& context) {
  params.validate();
  const Acceptance a = acceptanceOf(scanner, views);
  HistoImages out(grid, views);
  for (int v = 0; v < views.count(); ++v) {
    context.throwIfCancelled();
    fillDetection(a, cellOf(views, v, a, params.azimuthSamples), grid, out.view(v));
    context.reportProgress("sensitivity", double(v + 1) / views.count());
  }
  return out;
}

double attenuationLineIntegral(const Volume& mu, const Eigen::Vector3d& pointMm,
                               const Eigen::Vector3d& direction, double stepMuVoxels) {
  return integrateLine(mu, boxOf(mu), pointMm, direction, stepMuVoxels);
}

HistoImages attenuationFactors(const Volume& mu, const VolumeGrid& grid, const ViewBinning& views,
                               const AttenuationParams& params, JobContext& context) {
  params.validate();
  views.validate();
  checkAttenuationMap(mu);
  const MuBox support = supportOf(mu);
  HistoImages out(grid, views);
  for (int v = 0; v < views.count(); ++v) {
    context.throwIfCancelled();
    const ViewFrame f = views.frame(v);
    std::span<float> image = out.view(v);
    fillLineIntegrals(mu, support, grid, f.tof, f.radial, f.axial, params, image);
    for (float& value : image) value = std::exp(-value);
    context.reportProgress("attenuation", double(v + 1) / views.count());
  }
  return out;
}

HistoImages multiplicativeFactors(const ScannerModel& scanner, const VolumeGrid& grid,
                                  const ViewBinning& views, const Volume* muPerMm,
                                  const SensitivityParams& sensitivity,
                                  const AttenuationParams& attenuation, JobContext& context) {
  if (!muPerMm) return detectionProbabilities(scanner, grid, views, sensitivity, context);
  sensitivity.validate();
  attenuation.validate();
  checkAttenuationMap(*muPerMm);
  const MuBox support = supportOf(*muPerMm);
  const Acceptance a = acceptanceOf(scanner, views);
  HistoImages m(grid, views);
  const auto n = static_cast<std::size_t>(grid.shape.voxelCount());
  std::vector<float> epsilon(n), integral(n);
  const int parts = attenuation.tiltSamples;
  for (int v = 0; v < views.count(); ++v) {
    const ViewFrame f = views.frame(v);
    std::span<float> out = m.view(v);
    for (int k = 0; k < parts; ++k) {
      context.throwIfCancelled();
      fillDetection(a, cellOf(views, v, a, sensitivity.azimuthSamples, k, parts), grid, epsilon);
      const double tilt = -views.maxTiltRad + views.tiltOf(v) * views.tiltStepRad() +
                          (k + 0.5) * views.tiltStepRad() / parts;
      Eigen::Vector3d tof, radial, axial;
      tiltedFrame(f.azimuthRad, tilt, tof, radial, axial);
      fillLineIntegrals(*muPerMm, support, grid, tof, radial, axial, attenuation, integral);
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < n; ++i)
        out[i] += static_cast<float>(double(epsilon[i]) * std::exp(-double(integral[i])));
    }
    context.reportProgress("sensitivity and attenuation", double(v + 1) / views.count());
  }
  return m;
}

void smoothViews(HistoImages& histo, double sigmaVoxels, double truncationSigmas,
                 JobContext& context) {
  if (!(sigmaVoxels > 0)) return;
  const auto radius = static_cast<std::int64_t>(std::ceil(truncationSigmas * sigmaVoxels));
  std::vector<double> taps(static_cast<std::size_t>(radius + 1));
  for (std::int64_t k = 0; k <= radius; ++k)
    taps[static_cast<std::size_t>(k)] =
        std::exp(-0.5 * double(k * k) / (sigmaVoxels * sigmaVoxels));
  const VolumeShape& s = histo.grid().shape;
  for (int v = 0; v < histo.viewCount(); ++v) {
    context.throwIfCancelled();
    for (int axis = 0; axis < 3; ++axis)
      if ((axis == 0 ? s.nx : axis == 1 ? s.ny : s.nz) > 1)
        smoothAxis(histo.view(v), s, axis, taps);
  }
}

HistoImages additiveFactors(const ScannerModel& scanner, std::span<const ListModeEvent> events,
                            const VolumeGrid& grid, const ViewBinning& views,
                            const BackgroundParams& params, const HistoImages* scatter,
                            JobContext& context, DepositionReport* report) {
  params.validate();
  HistoImages b(grid, views);
  DepositionParams deposition;
  deposition.mode = params.deposition;
  deposition.stream = EventStream::Delayed;
  const DepositionReport r = depositEvents(scanner, events, deposition, b, context);
  if (report) *report = r;
  smoothViews(b, params.smoothingSigmaVoxels, params.truncationSigmas, context);
  if (scatter) {
    checkSameLayout(b, *scatter, "scatter");
    std::span<float> out = b.values();
    std::span<const float> add = scatter->values();
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += add[i];
  }
  return b;
}

}  // namespace tomowb::pet

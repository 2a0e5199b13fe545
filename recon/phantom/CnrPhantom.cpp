#include "recon/phantom/CnrPhantom.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "recon/core/Error.h"

namespace tomowb::phantom {

namespace {

void checkPositive(double value, const char* name) {
  if (!(value > 0.0) || !std::isfinite(value))
    throw ParameterError(name, "must be finite and > 0, got " + std::to_string(value));
}

std::string insertName(std::size_t i) {
  return "insert " + std::to_string(i);
}

// Inclusive voxel index range along one axis whose centres lie within [loMm, hiMm].
std::pair<std::int64_t, std::int64_t> voxelRange(double loMm, double hiMm, double originMm,
                                                 double voxelMm, std::int64_t n) {
  const auto lo = static_cast<std::int64_t>(std::ceil((loMm - originMm) / voxelMm));
  const auto hi = static_cast<std::int64_t>(std::floor((hiMm - originMm) / voxelMm));
  return {std::max<std::int64_t>(lo, 0), std::min<std::int64_t>(hi, n - 1)};
}

// Calls visit(index, worldPosition) for each voxel of `grid` whose centre lies in the box.
template <typename Visit>
void forVoxelsInBox(const Volume& grid, const Eigen::Vector3d& boxMin,
                    const Eigen::Vector3d& boxMax, Visit visit) {
  const Eigen::Vector3d& o = grid.originMm();
  const Eigen::Vector3d& h = grid.voxelSizeMm();
  const auto [x0, x1] = voxelRange(boxMin.x(), boxMax.x(), o.x(), h.x(), grid.nx());
  const auto [y0, y1] = voxelRange(boxMin.y(), boxMax.y(), o.y(), h.y(), grid.ny());
  const auto [z0, z1] = voxelRange(boxMin.z(), boxMax.z(), o.z(), h.z(), grid.nz());
  for (std::int64_t z = z0; z <= z1; ++z)
    for (std::int64_t y = y0; y <= y1; ++y)
      for (std::int64_t x = x0; x <= x1; ++x)
        visit(grid.index(x, y, z),
              grid.worldPosition(static_cast<double>(x), static_cast<double>(y),
                                 static_cast<double>(z)));
}

}  // namespace

CnrPhantom::CnrPhantom(CnrPhantomParams params) : params_(std::move(params)) {
  const CnrPhantomParams& p = params_;
  checkPositive(p.cylinderRadiusMm, "cnr.cylinderRadiusMm");
  checkPositive(p.cylinderLengthMm, "cnr.cylinderLengthMm");
  checkPositive(p.waterAttenuationPerMm, "cnr.waterAttenuationPerMm");
  checkPositive(p.backgroundWidthMm, "cnr.backgroundWidthMm");
  if (!(p.backgroundGapMm >= 0.0) || !std::isfinite(p.backgroundGapMm))
    throw ParameterError("cnr.backgroundGapMm",
                         "must be finite and >= 0, got " + std::to_string(p.backgroundGapMm));
  if (p.insertDiametersMm.empty())
    throw ParameterError("cnr.insertDiametersMm", "needs at least one diameter");
  for (double d : p.insertDiametersMm) checkPositive(d, "cnr.insertDiametersMm");
  if (p.contrasts.empty()) throw ParameterError("cnr.contrasts", "needs at least one contrast");
  if (p.ringRadiiMm.size() != p.contrasts.size())
    throw ParameterError("cnr.ringRadiiMm", "needs one radius per contrast: got " +
                                                std::to_string(p.ringRadiiMm.size()) +
                                                " radii for " + std::to_string(p.contrasts.size()) +
                                                " contrasts");
  for (double c : p.contrasts)
    if (!(c > -1.0) || !std::isfinite(c))
      throw ParameterError("cnr.contrasts", "must be finite and > -1, got " + std::to_string(c));
  for (double r : p.ringRadiiMm)
    if (!(r >= 0.0) || !std::isfinite(r))
      throw ParameterError("cnr.ringRadiiMm", "must be finite and >= 0, got " + std::to_string(r));

  const std::size_t perRing = p.insertDiametersMm.size();
  const double water = p.waterAttenuationPerMm;
  for (std::size_t ring = 0; ring < p.contrasts.size(); ++ring) {
    for (std::size_t j = 0; j < perRing; ++j) {
      const double angle =
          2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(perRing) +
          std::numbers::pi * static_cast<double>(ring) / static_cast<double>(perRing);
      CnrInsert insert;
      insert.centreMm =
          p.ringRadiiMm[ring] * Eigen::Vector3d(std::cos(angle), std::sin(angle), 0.0);
      insert.diameterMm = p.insertDiametersMm[j];
      insert.contrast = p.contrasts[ring];
      insert.valuePerMm = water * (1.0 + p.contrasts[ring]);
      inserts_.push_back(insert);
    }
  }

  const double gap = p.backgroundGapMm;
  for (std::size_t i = 0; i < inserts_.size(); ++i) {
    const CnrInsert& a = inserts_[i];
    const double ra = 0.5 * a.diameterMm;
    if (a.centreMm.head<2>().norm() + ra + gap > p.cylinderRadiusMm ||
        ra + gap > 0.5 * p.cylinderLengthMm)
      throw ParameterError("cnr.ringRadiiMm", insertName(i) + " (diameter " +
                                                  std::to_string(a.diameterMm) +
                                                  " mm) does not fit inside the cylinder with a " +
                                                  std::to_string(gap) + " mm gap");
    for (std::size_t j = i + 1; j < inserts_.size(); ++j) {
      const CnrInsert& b = inserts_[j];
      if ((a.centreMm - b.centreMm).norm() < ra + 0.5 * b.diameterMm + gap)
        throw ParameterError("cnr.ringRadiiMm", insertName(i) + " and " + insertName(j) +
                                                    " are closer than the " + std::to_string(gap) +
                                                    " mm gap");
    }
  }

  Cylinder body;
  body.radiusMm = p.cylinderRadiusMm;
  body.halfLengthMm = 0.5 * p.cylinderLengthMm;
  body.density = water;
  std::vector<Ellipsoid> spheres;
  for (const CnrInsert& insert : inserts_)
    spheres.push_back(
        Ellipsoid::sphere(insert.centreMm, 0.5 * insert.diameterMm, water * insert.contrast));
  phantom_ = Phantom("cnr", std::move(spheres), {body});
}

std::vector<std::int64_t> CnrPhantom::insertVoxels(const Volume& grid, std::size_t insertIndex,
                                                   double insetMm) const {
  const CnrInsert& insert = inserts_.at(insertIndex);
  const double radius = 0.5 * insert.diameterMm - insetMm;
  if (!(insetMm >= 0.0) || !(radius > 0.0))
    throw ParameterError("insetMm", "must be >= 0 and less than the insert's radius (" +
                                        std::to_string(0.5 * insert.diameterMm) + " mm), got " +
                                        std::to_string(insetMm));
  std::vector<std::int64_t> voxels;
  const Eigen::Vector3d half = Eigen::Vector3d::Constant(radius);
  forVoxelsInBox(grid, insert.centreMm - half, insert.centreMm + half,
                 [&](std::int64_t index, const Eigen::Vector3d& p) {
                   if ((p - insert.centreMm).squaredNorm() <= radius * radius)
                     voxels.push_back(index);
                 });
  return voxels;
}

std::vector<std::int64_t> CnrPhantom::backgroundVoxels(const Volume& grid,
                                                       std::size_t insertIndex) const {
  const CnrInsert& insert = inserts_.at(insertIndex);
  const double gap = params_.backgroundGapMm;
  const double radius = 0.5 * insert.diameterMm;
  const double inner = radius + gap;
  const double outer = inner + params_.backgroundWidthMm;
  const double wallRadius = params_.cylinderRadiusMm - gap;
  const double wallHalfLength = 0.5 * params_.cylinderLengthMm - gap;
  std::vector<std::int64_t> voxels;
  const Eigen::Vector3d half(outer, outer, radius);
  forVoxelsInBox(
      grid, insert.centreMm - half, insert.centreMm + half,
      [&](std::int64_t index, const Eigen::Vector3d& p) {
        const double r2 = (p - insert.centreMm).head<2>().squaredNorm();
        if (r2 < inner * inner || r2 > outer * outer) return;
        if (p.head<2>().squaredNorm() > wallRadius * wallRadius || std::abs(p.z()) > wallHalfLength)
          return;
        for (const CnrInsert& other : inserts_) {
          const double clear = 0.5 * other.diameterMm + gap;
          if ((p - other.centreMm).squaredNorm() < clear * clear) return;
        }
        voxels.push_back(index);
      });
  return voxels;
}

Phantom cnrPhantom(const CnrPhantomParams& params) {
  return CnrPhantom(params).phantom();
}

}  // namespace tomowb::phantom

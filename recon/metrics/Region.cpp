#include "recon/metrics/Region.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "recon/core/Error.h"

namespace tomowb::metrics {

namespace {

// Shortest text that reads back to the value: "0.8", "40", "12.5".
std::string numberText(double value) {
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

std::string slabText(std::int64_t zBegin, std::int64_t zEnd) {
  return "slices " + std::to_string(zBegin) + ".." + std::to_string(zEnd);
}

// Voxel centres exactly on a boundary count as in; this keeps them in despite rounding in the
// square root (1e-9 voxel is far below any meaningful radius).
constexpr double kBoundaryToleranceVoxels = 1e-9;

// The x-range [ceil(centre - halfWidth), floor(centre + halfWidth)] clipped to [0, nx).
RowSpan spanAround(double centre, double halfWidth, std::int64_t nx) {
  const double low = std::ceil(centre - halfWidth - kBoundaryToleranceVoxels);
  const double high = std::floor(centre + halfWidth + kBoundaryToleranceVoxels);
  RowSpan span;
  span.xBegin = static_cast<std::int64_t>(std::max(low, 0.0));
  span.xEnd = static_cast<std::int64_t>(std::min(high + 1.0, static_cast<double>(nx)));
  return span;
}

}  // namespace

std::string shapeText(const VolumeShape& shape) {
  return std::to_string(shape.nx) + "x" + std::to_string(shape.ny) + "x" + std::to_string(shape.nz);
}

// --- Region ------------------------------------------------------------------------------------

Region Region::whole() {
  return Region();
}

Region Region::centralCylinder(double radiusFraction) {
  if (!std::isfinite(radiusFraction) || !(radiusFraction > 0.0))
    throw ParameterError(
        "region.cylinder.radius",
        "fraction of the half-size must be finite and > 0, got " + numberText(radiusFraction));
  Region region;
  region.parts_.emplace_back(Cylinder{radiusFraction, true});
  return region;
}

Region Region::centralCylinderMm(double radiusMm) {
  if (!std::isfinite(radiusMm) || !(radiusMm > 0.0))
    throw ParameterError("region.cylinder.radiusMm",
                         "must be finite and > 0, got " + numberText(radiusMm));
  Region region;
  region.parts_.emplace_back(Cylinder{radiusMm, false});
  return region;
}

Region Region::slab(std::int64_t zBegin, std::int64_t zEnd) {
  if (zBegin < 0)
    throw ParameterError("region.slab", "first slice must be >= 0, got " + std::to_string(zBegin));
  if (zEnd <= zBegin)
    throw ParameterError("region.slab", "end slice must be > first slice, got " +
                                            slabText(zBegin, zEnd) + " (the end is exclusive)");
  Region region;
  region.parts_.emplace_back(Slab{zBegin, zEnd});
  return region;
}

Region Region::sphere(const Eigen::Vector3d& centreMm, double radiusMm) {
  if (!centreMm.allFinite()) throw ParameterError("region.sphere.centreMm", "must be finite");
  if (!std::isfinite(radiusMm) || !(radiusMm > 0.0))
    throw ParameterError("region.sphere.radiusMm",
                         "must be finite and > 0, got " + numberText(radiusMm));
  Region region;
  region.parts_.emplace_back(Sphere{centreMm, radiusMm});
  return region;
}

Region Region::mask(std::vector<std::uint8_t> voxels, VolumeShape shape, std::string label) {
  if (shape.nx < 1 || shape.ny < 1 || shape.nz < 1)
    throw ParameterError("region.mask", "'" + label + "': shape " + shapeText(shape) +
                                            " must be at least 1 in every axis");
  if (static_cast<std::int64_t>(voxels.size()) != shape.voxelCount())
    throw ParameterError("region.mask", "'" + label + "' holds " + std::to_string(voxels.size()) +
                                            " values, its shape " + shapeText(shape) + " needs " +
                                            std::to_string(shape.voxelCount()));
  Region region;
  region.parts_.emplace_back(
      Mask{std::make_shared<const std::vector<std::uint8_t>>(std::move(voxels)), shape,
           std::move(label)});
  return region;
}

Region Region::mask(const Volume& maskVolume, std::string label) {
  if (maskVolume.empty()) throw ParameterError("region.mask", "'" + label + "' is an empty volume");
  std::vector<std::uint8_t> voxels(maskVolume.voxels().size());
  std::transform(maskVolume.voxels().begin(), maskVolume.voxels().end(), voxels.begin(),
                 [](float v) { return static_cast<std::uint8_t>(v != 0.0f && !std::isnan(v)); });
  return mask(std::move(voxels), maskVolume.shape(), std::move(label));
}

Region Region::operator&(const Region& other) const {
  Region region = *this;
  region.parts_.insert(region.parts_.end(), other.parts_.begin(), other.parts_.end());
  region.name_.clear();
  // A name given to either side stays visible: "background slices 10..20".
  if (!name_.empty() || !other.name_.empty()) {
    for (const Region* side : {this, &other}) {
      if (side->name_.empty() && side->isWhole()) continue;
      if (!region.name_.empty()) region.name_ += ' ';
      region.name_ += side->description();
    }
  }
  return region;
}

Region Region::slices(std::int64_t zBegin, std::int64_t zEnd) const {
  return *this & slab(zBegin, zEnd);
}

Region Region::named(std::string name) const {
  Region region = *this;
  region.name_ = std::move(name);
  return region;
}

std::string Region::description() const {
  if (!name_.empty()) return name_;
  if (parts_.empty()) return "whole volume";
  std::string text;
  for (const Part& part : parts_) {
    if (!text.empty()) text += ' ';
    if (const auto* cylinder = std::get_if<Cylinder>(&part)) {
      text +=
          "cylinder r=" + numberText(cylinder->radius) + (cylinder->radiusIsFraction ? "" : "mm");
    } else if (const auto* slab = std::get_if<Slab>(&part)) {
      text += slabText(slab->zBegin, slab->zEnd);
    } else if (const auto* sphere = std::get_if<Sphere>(&part)) {
      text += "sphere (" + numberText(sphere->centreMm.x()) + "," +
              numberText(sphere->centreMm.y()) + "," + numberText(sphere->centreMm.z()) +
              ")mm r=" + numberText(sphere->radiusMm) + "mm";
    } else {
      text += std::get<Mask>(part).label;
    }
  }
  return text;
}

BoundRegion Region::bind(const Volume& volume, std::string_view parameter) const {
  return BoundRegion(*this, volume.shape(), volume.voxelSizeMm(), volume.originMm(), parameter);
}

BoundRegion Region::bind(const VolumeShape& shape, const Eigen::Vector3d& voxelSizeMm,
                         const Eigen::Vector3d& originMm, std::string_view parameter) const {
  return BoundRegion(*this, shape, voxelSizeMm, originMm, parameter);
}

std::vector<std::uint8_t> Region::toMask(const Volume& volume) const {
  return bind(volume).toMask();
}

std::int64_t Region::voxelCount(const Volume& volume) const {
  return bind(volume).voxelCount();
}

// --- BoundRegion -------------------------------------------------------------------------------

BoundRegion::BoundRegion(const Region& region, const VolumeShape& shape,
                         const Eigen::Vector3d& voxelSizeMm, const Eigen::Vector3d& originMm,
                         std::string_view parameter)
    : shape_(shape),
      description_(region.description()),
      parameter_(parameter),
      zEnd_(shape.nz),
      voxelSizeMm_(voxelSizeMm) {
  const std::string where = "region '" + description_ + "'";
  if (shape.nx < 1 || shape.ny < 1 || shape.nz < 1)
    throw ParameterError(parameter_, where + ": the volume " + shapeText(shape) + " is empty");
  if (!voxelSizeMm.allFinite() || !(voxelSizeMm.minCoeff() > 0.0) || !originMm.allFinite())
    throw ParameterError(parameter_, where + ": the volume's voxel size or origin is invalid");

  const double halfSizeMm = 0.5 * std::min(static_cast<double>(shape.nx) * voxelSizeMm.x(),
                                           static_cast<double>(shape.ny) * voxelSizeMm.y());
  std::vector<SharedMask> masks;
  for (const Region::Part& part : region.parts_) addPart(part, originMm, halfSizeMm, masks);
  combineMasks(masks);
  countVoxels();
}

void BoundRegion::addPart(const Region::Part& part, const Eigen::Vector3d& originMm,
                          double halfSizeMm, std::vector<SharedMask>& masks) {
  if (const auto* cylinder = std::get_if<Region::Cylinder>(&part)) {
    cylinders_.push_back(
        {cylinder->radiusIsFraction ? cylinder->radius * halfSizeMm : cylinder->radius});
  } else if (const auto* slab = std::get_if<Region::Slab>(&part)) {
    if (slab->zEnd > shape_.nz)
      throw ParameterError(
          parameter_, "region '" + description_ + "': " + slabText(slab->zBegin, slab->zEnd) +
                          " reach beyond the volume's " + std::to_string(shape_.nz) + " slices");
    zBegin_ = std::max(zBegin_, slab->zBegin);
    zEnd_ = std::min(zEnd_, slab->zEnd);
  } else if (const auto* sphere = std::get_if<Region::Sphere>(&part)) {
    spheres_.push_back(
        {(sphere->centreMm - originMm).cwiseQuotient(voxelSizeMm_), sphere->radiusMm});
  } else {
    const auto& mask = std::get<Region::Mask>(part);
    if (!(mask.shape == shape_))
      throw ParameterError(parameter_, "region '" + description_ + "': mask shape " +
                                           shapeText(mask.shape) + " does not match the volume's " +
                                           shapeText(shape_));
    masks.push_back(mask.voxels);
  }
}

void BoundRegion::combineMasks(const std::vector<SharedMask>& masks) {
  if (masks.empty()) return;
  if (masks.size() == 1) {
    mask_ = masks.front();
    return;
  }
  auto combined = std::make_shared<std::vector<std::uint8_t>>(*masks.front());
  for (std::size_t m = 1; m < masks.size(); ++m)
    for (std::size_t i = 0; i < combined->size(); ++i)
      (*combined)[i] = static_cast<std::uint8_t>((*combined)[i] != 0 && (*masks[m])[i] != 0);
  mask_ = std::move(combined);
}

void BoundRegion::countVoxels() {
  sliceCounts_.assign(static_cast<std::size_t>(shape_.nz), 0);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t z = 0; z < shape_.nz; ++z) {
    std::int64_t count = 0;
    for (std::int64_t y = 0; y < shape_.ny; ++y) {
      const RowSpan span = rowSpan(y, z);
      if (span.empty()) continue;
      if (const std::uint8_t* row = maskRow(y, z)) {
        for (std::int64_t x = span.xBegin; x < span.xEnd; ++x) count += row[x] != 0;
      } else {
        count += span.xEnd - span.xBegin;
      }
    }
    sliceCounts_[static_cast<std::size_t>(z)] = count;
  }
  voxelCount_ = 0;
  for (const std::int64_t count : sliceCounts_) voxelCount_ += count;
}

RowSpan BoundRegion::rowSpan(std::int64_t y, std::int64_t z) const noexcept {
  if (z < zBegin_ || z >= zEnd_) return {};
  RowSpan span{0, shape_.nx};
  const double centreX = 0.5 * static_cast<double>(shape_.nx - 1);
  const double centreY = 0.5 * static_cast<double>(shape_.ny - 1);
  const auto intersect = [&span](RowSpan other) {
    span.xBegin = std::max(span.xBegin, other.xBegin);
    span.xEnd = std::min(span.xEnd, other.xEnd);
  };
  for (const CylinderMm& cylinder : cylinders_) {
    const double dyMm = (static_cast<double>(y) - centreY) * voxelSizeMm_.y();
    const double remaining = cylinder.radiusMm * cylinder.radiusMm - dyMm * dyMm;
    if (remaining < 0.0) return {};
    intersect(spanAround(centreX, std::sqrt(remaining) / voxelSizeMm_.x(), shape_.nx));
  }
  for (const SphereIndex& sphere : spheres_) {
    const double dyMm = (static_cast<double>(y) - sphere.centreIndex.y()) * voxelSizeMm_.y();
    const double dzMm = (static_cast<double>(z) - sphere.centreIndex.z()) * voxelSizeMm_.z();
    const double remaining = sphere.radiusMm * sphere.radiusMm - dyMm * dyMm - dzMm * dzMm;
    if (remaining < 0.0) return {};
    intersect(
        spanAround(sphere.centreIndex.x(), std::sqrt(remaining) / voxelSizeMm_.x(), shape_.nx));
  }
  if (span.empty()) return {};
  return span;
}

bool BoundRegion::contains(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept {
  if (x < 0 || y < 0 || z < 0 || x >= shape_.nx || y >= shape_.ny || z >= shape_.nz) return false;
  const RowSpan span = rowSpan(y, z);
  if (x < span.xBegin || x >= span.xEnd) return false;
  const std::uint8_t* row = maskRow(y, z);
  return row == nullptr || row[x] != 0;
}

void BoundRegion::throwIfEmpty() const {
  if (voxelCount_ == 0)
    throw ParameterError(parameter_, "region '" + description_ + "' selects no voxel of the " +
                                         shapeText(shape_) + " volume");
}

std::vector<std::uint8_t> BoundRegion::toMask() const {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(shape_.voxelCount()), 0);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t z = 0; z < shape_.nz; ++z) {
    for (std::int64_t y = 0; y < shape_.ny; ++y) {
      const RowSpan span = rowSpan(y, z);
      const std::uint8_t* in = maskRow(y, z);
      std::uint8_t* out = mask.data() + (z * shape_.ny + y) * shape_.nx;
      for (std::int64_t x = span.xBegin; x < span.xEnd; ++x)
        out[x] = static_cast<std::uint8_t>(in == nullptr || in[x] != 0);
    }
  }
  return mask;
}

}  // namespace tomowb::metrics

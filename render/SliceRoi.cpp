// SliceRoi: see the header. The geometry is metrics::PlanarRoi's: a voxel belongs to an ROI when
// its centre does, the rule of recon/metrics/Region.h, so ROI statistics agree with the metrics
// module.
#include "render/SliceRoi.h"

namespace tomowb::render {

metrics::PlanarRoi SliceRoi::planar() const noexcept {
  metrics::PlanarRoi p;
  p.shape =
      shape == Rectangle ? metrics::PlanarRoi::Shape::Rectangle : metrics::PlanarRoi::Shape::Circle;
  p.axis = axis;
  p.sliceMm = sliceMm;
  p.centreMm = centreMm;
  p.halfSizeMm = halfSizeMm;
  return p;
}

std::int64_t roiSliceIndex(const Volume& volume, const SliceRoi& roi) noexcept {
  return metrics::nearestSliceIndex(volume, roi.axis, roi.sliceMm);
}

std::vector<std::int64_t> roiVoxelIndices(const Volume& volume, const SliceRoi& roi) {
  return metrics::planarRoiVoxels(volume, roi.planar());
}

}  // namespace tomowb::render

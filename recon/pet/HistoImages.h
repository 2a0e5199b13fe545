// HistoImages: one image-grid volume per DIRECT view (reference/direct-tof-pet.md, section 2):
// the events of view v deposited at their most likely annihilation points (data d_v), or the
// per-view correction factors (multiplicative m_v: sensitivity x attenuation; additive b_v:
// randoms and scatter). Stored view after view, each view's volume x fastest, so one view is a
// contiguous block of grid.shape.voxelCount() floats.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "recon/core/HostMemory.h"
#include "recon/core/VolumeGrid.h"
#include "recon/pet/ViewBinning.h"

namespace tomowb::pet {

class HistoImages {
 public:
  HistoImages() = default;
  // Zero-filled. Throws ParameterError for an empty grid or views, OutOfMemoryError (naming the
  // size) when views x voxels floats do not fit in host memory.
  HistoImages(const VolumeGrid& grid, const ViewBinning& views);

  const VolumeGrid& grid() const noexcept { return grid_; }
  const ViewBinning& views() const noexcept { return views_; }
  int viewCount() const noexcept { return views_.count(); }
  std::int64_t voxelsPerView() const noexcept { return grid_.shape.voxelCount(); }
  bool empty() const noexcept { return values_.empty(); }

  std::span<float> view(int v) noexcept;
  std::span<const float> view(int v) const noexcept;
  std::span<float> values() noexcept { return values_; }
  std::span<const float> values() const noexcept { return values_; }
  float* data() noexcept { return values_.data(); }
  const float* data() const noexcept { return values_.data(); }
  double total() const noexcept;  // sum over every view and voxel, in float64

 private:
  VolumeGrid grid_;
  ViewBinning views_;
  std::vector<float, HostBufferAllocator<float>> values_;
};

}  // namespace tomowb::pet

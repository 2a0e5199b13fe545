#include "recon/projector/ProjectorVariants.h"

#include "recon/projector/JosephProjector.h"
#include "recon/projector/VoxelBackprojector.h"

namespace tomowb::projector {

KernelVariant josephForwardCpuVariant() {
  KernelVariant v;
  v.name = "et.fp.cpu";
  v.role = VariantRole::ForwardProjector;
  v.model = "joseph";
  v.description =
      "CPU Joseph forward projector (ray-driven, slice-interpolated), float64 sums, OpenMP over "
      "detector rows: the reference of the et.fp. family";
  v.forwardProject = [](const Volume& volume, ProjectionStack& projections,
                        std::span<const std::int64_t> views, JobContext& context) {
    josephForward(volume, projections, views, &context);
  };
  return v;
}

KernelVariant josephBackprojectCpuVariant() {
  KernelVariant v;
  v.name = "et.bp.cpu-matched";
  v.role = VariantRole::Backprojector;
  v.model = "joseph";
  v.description =
      "CPU exact transpose of et.fp.cpu (scatter with the Joseph weights, float64 sums): a "
      "matched pair for least-squares SIRT";
  v.backprojectViews = [](const ProjectionStack& projections, Volume& volume,
                          std::span<const std::int64_t> views, JobContext& context) {
    josephBackproject(projections, volume, views, &context);
  };
  v.adjointOf = "et.fp.cpu";
  return v;
}

KernelVariant voxelBackprojectCpuVariant() {
  KernelVariant v;
  v.name = "et.bp.cpu-voxel";
  v.role = VariantRole::Backprojector;
  v.model = "voxel";
  v.description =
      "CPU voxel-driven backprojection (bilinear on the detector, float64 sums), the seed's "
      "unmatched partner of the Joseph projector";
  v.backprojectViews = [](const ProjectionStack& projections, Volume& volume,
                          std::span<const std::int64_t> views, JobContext& context) {
    voxelBackproject(projections, volume, views, &context);
  };
  v.supports = [](const Geometry& geometry,
                  const VolumeGrid& /*grid*/) -> std::optional<std::string> {
    return flatDetectorRefusal(geometry, "et.bp.cpu-voxel (voxel-driven backprojection)");
  };
  return v;
}

}  // namespace tomowb::projector

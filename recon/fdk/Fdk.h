// FDK (Feldkamp-Davis-Kress) cone-beam reconstruction, and parallel-beam FBP through the same
// code: weight (FdkWeightPlan), ramp-filter rows (RampFilter), backproject with a registered
// kernel variant (default "fdk.bp.cpu"). The result is in absolute units: reconstructing the
// analytic projections of a phantom gives back its attenuation values (docs/fdk.md).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "recon/core/GpuRunOptions.h"
#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/fdk/RampFilter.h"
#include "recon/job/JobContext.h"

namespace tomowb::fdk {

// The grid type of every layer (recon/core/VolumeGrid.h), by its old name here.
using tomowb::VolumeGrid;

// The grid FDK reconstructs by default: centred, cubic voxels of `voxelMm` (<= 0: the detector
// pitch scaled to the isocentre), covering the field of view in-plane and the detector's height
// at the isocentre (arc detectors: those of the flat detectors spanning the same fan,
// flatEquivalentGeometry). Throws ParameterError for a geometry without views.
VolumeGrid fieldOfViewGrid(const Geometry& geometry, double voxelMm = 0.0);

// The grid an iterative method fits on by default: fieldOfViewGrid's, and for a helical orbit
// every slice a ray through the field of view reaches, not only FDK's completely measured slab.
// A fit on the slab alone has nowhere to put the attenuation the measured rays saw beyond it (the
// long-object problem): its residual stalls (the 64 demo: relative residual 0.38 on the slab
// against 0.07 on this grid after two PWLS iterations from FDK).
VolumeGrid illuminatedGrid(const Geometry& geometry, double voxelMm = 0.0);

// How a GPU variant runs (recon/core/GpuRunOptions.h), by its old name here.
using tomowb::GpuRunOptions;

// A mirrored pair of z-slabs of a slab run (recon/scale/SlabRun.h, issue #22): slices [z0, z1)
// of `whole`, in its lower half, and their mirror images [nz - z1, nz - z0), reconstructed
// together by a z-mirror GPU kernel, as the whole volume would be. The projections given with it
// hold, per view, the detector rows of `bands` (of `geometry`'s detector) one band after the
// other; the volume has FdkParams::volume's x and y and 2 (z1 - z0) slices: the lower slab's,
// then the upper's. A slab off the detector's centre row cannot use the mirror kernels alone
// (its mirror slices are not in it); paired with its mirror image it can, at twice the speed of
// the kernels without the mirror (docs/scale.md).
struct FdkMirrorPair {
  Geometry geometry;  // the whole detector
  VolumeGrid whole;   // the whole volume, centred on the detector's centre row
  std::int64_t z0 = 0, z1 = 0;
  struct RowBand {
    std::int64_t first = 0, rows = 0;
  };
  std::vector<RowBand> bands;  // one, or two mirror images of each other
};

struct FdkParams {
  VolumeGrid volume;
  RampFilterParams filter;
  RedundancyMode redundancy = RedundancyMode::Auto;
  // Reconstruct a short scan below pi + fan angle (less one step) with a warning instead of
  // refusing it (FdkWeightPlan).
  bool allowIncomplete = false;
  bool fieldOfViewMask = false;  // zero voxels outside the cylinder every view sees
  std::string variant = "fdk.bp.cpu";
  GpuRunOptions gpu;
  // Set: the projections are a mirrored slab pair's bands (a GPU z-mirror variant only).
  const FdkMirrorPair* mirrorPair = nullptr;
};

struct FdkReport {
  std::string variant;
  std::string weighting;  // FdkWeightPlan::summary()
  std::vector<std::string> warnings;
  std::string kernel;  // the kernel that ran (a GPU variant may fall back, saying why)
  std::string device;  // "CPU, 16 threads" or "2 x NVIDIA H100 80GB HBM3"
  std::string plan;    // GPU: GpuFdkPlan::summary()
  double filterSeconds = 0;
  double backprojectSeconds = 0;
  double voxelUpdates = 0;
  double uploadSeconds = 0, uploadBytes = 0;  // host -> device (GPU runs)
  double downloadSeconds = 0, downloadBytes = 0;
  // GPU runs: the part of the downloads nothing hid (a task's last chunk is backprojected in
  // pieces of rows, each piece downloaded while the next one runs): from the end of a task's last
  // backprojection to the end of its download, summed over tasks.
  double downloadTailSeconds = 0;
  double totalSeconds = 0;  // the whole reconstructFdk call
  // GPU runs: the host volume's allocation (zero fill and pinning, on its own thread beside the
  // device work) and how long the work waited for it: on the GPU, from a task's last
  // backprojection to its first download, when the downloads ran in pieces (the host enqueues
  // them ahead and waits for the volume early, off the critical path); else the host's wait.
  double hostVolumeSeconds = 0, hostVolumeWaitSeconds = 0;
  // GPU runs: the host's preparation (weights, matrices, plan), the devices' (buffers, cuFFT
  // plans; the slowest device) and the first chunk's upload and filtering (which nothing hides).
  double hostSetupSeconds = 0, deviceSetupSeconds = 0, firstChunkSeconds = 0;
  // GPU runs, the slowest device's: building the tasks' kernel inputs (texture arrays) and the
  // end of its thread after the last download (telemetry, buffers freed).
  double inputsSeconds = 0, teardownSeconds = 0;
  double backprojectGups() const {
    return backprojectSeconds > 0 ? voxelUpdates / backprojectSeconds / 1e9 : 0;
  }
};

// The geometry of the filtered stack: the detector widened by the plan's column extension.
Geometry extendedGeometry(const Geometry& geometry, FdkWeightPlan::ColumnExtension extension);

// Weighted and filtered copy of the projections, ready for any backprojection variant.
ProjectionStack filterProjections(const ProjectionStack& projections, const FdkWeightPlan& plan,
                                  const RampFilterParams& filter, JobContext& context);

void applyFieldOfViewMask(Volume& volume, double radiusMm);

// Throws ParameterError for unusable parameters, Cancelled when the token is set.
Volume reconstructFdk(const ProjectionStack& projections, const FdkParams& params,
                      JobContext& context, FdkReport* report = nullptr);

// reconstructFdk into a volume the caller keeps between runs (a batch of scans on one grid, the
// benchmark): `volume` must have params.volume's shape; its voxel size and origin are set from it
// and every voxel is overwritten. Its storage stays allocated (and pinned when a GPU is present),
// so the run skips the allocation of the host volume, which with two GPUs costs more than their
// backprojection (issue #22). On a throw `volume` keeps its storage, zero-filled. Throws
// ParameterError for another shape or an empty volume, as reconstructFdk otherwise.
void reconstructFdkInto(const ProjectionStack& projections, const FdkParams& params, Volume& volume,
                        JobContext& context, FdkReport* report = nullptr);

// FDK as a Job for the CLI's and the GUI's run controllers.
class FdkJob : public Job {
 public:
  FdkJob(const ProjectionStack& projections, FdkParams params)
      : projections_(projections), params_(std::move(params)) {}
  std::string_view name() const override { return "fdk"; }
  void run(JobContext& context) override {
    result_ = reconstructFdk(projections_, params_, context, &report_);
  }
  Volume& result() noexcept { return result_; }
  const FdkReport& report() const noexcept { return report_; }

 private:
  const ProjectionStack& projections_;
  FdkParams params_;
  Volume result_;
  FdkReport report_;
};

}  // namespace tomowb::fdk

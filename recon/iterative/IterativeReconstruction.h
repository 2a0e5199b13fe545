// Iterative reconstruction: SIRT, OS-SIRT and SART (reference/sirt-et.md section 3, after ASTRA
// and CIL) through the ordered-subset solver (OrderedSubsetSolver.h), and CGLS (Cgls.h), each as a
// Job over a projector pair (recon/operator/ProjectorPair.h). One SIRT update is
//
//   x <- P_C( x + lambda C_s A_s^T R (b - A_s x) )
//
// over the views of subset s: all views for SIRT, interleaved subsets for OS-SIRT, one view at a
// time for SART. R = 1 / row sums (A 1, per ray) and C_s = 1 / column sums (A_s^T 1, per voxel),
// with sums below 1e-6 of their largest set to 0 (rays that miss the volume, voxels no ray sees);
// P_C clamps to the bounds. With a mask, only its voxels are unknowns (the weights are computed
// with it, the rest stays 0). The projectors are registry variants ("et.fp.", "et.bp."), so a
// matched pair gives least-squares SIRT and the seed's unmatched pair gives the usual ET one.
// Every iteration reports its residual through the JobContext's IterationSink, can hand its
// volume to the views, and checks the cancel token (per subset).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/iterative/PwlsOptions.h"
#include "recon/job/JobContext.h"

namespace tomowb::iterative {

// Pwls: penalised weighted least squares by OS-SQS (PwlsSqs.h), for CT.
enum class IterativeMethod { Sirt, OsSirt, Sart, Cgls, Pwls };
std::string toString(IterativeMethod method);  // "sirt", "os-sirt", "sart", "cgls", "pwls"
// Throws ParameterError listing the names for anything else.
IterativeMethod iterativeMethodFromString(std::string_view name);

struct IterativeParams {
  IterativeMethod method = IterativeMethod::Sirt;
  fdk::VolumeGrid volume;
  int iterations = 50;      // the most iterations (one iteration = one sweep over all views)
  double relaxation = 1.0;  // lambda, 0 < lambda < 2
  int subsets = 5;          // OS-SIRT and PWLS
  std::optional<double> lowerBound, upperBound;  // box constraint (lowerBound 0: non-negative)
  // Stop early when the weighted residual falls by less than this fraction in one iteration
  // (0: run every iteration).
  double stopRelativeChange = 0.0;
  std::string forwardVariant = "et.fp.cpu";
  std::string backVariant = "et.bp.cpu-voxel";
  fdk::GpuRunOptions gpu;
  // Volume to start from (same grid shape; empty: zero), e.g. another run's result.
  std::shared_ptr<const Volume> initialVolume;
  // Voxels to reconstruct: non-zero voxels of this volume (same shape; empty: all).
  std::shared_ptr<const Volume> mask;
  int publishEvery = 1;  // hand the iterate to the views every N iterations (when they want it)
  // PWLS: the penalty, momentum and change-based stop, and the statistical weights w of its cost
  // (same shape as the projections, finite and >= 0; empty: 1 for every ray).
  PwlsOptions pwls;
  std::shared_ptr<const ProjectionStack> weights;
  // PWLS: a volume each iterate is measured against (the metric "RMSE"; same grid shape).
  std::shared_ptr<const Volume> reference;
};

struct IterativeReport {
  std::string method;
  std::string forwardVariant, backVariant;
  std::string device;
  std::vector<IterationRecord> iterations;
  std::string stopReason;   // "50 iterations", "residual changed by less than 1e-4", ...
  double setupSeconds = 0;  // the row and column sums
  double forwardSeconds = 0, backprojectSeconds = 0;
  double voxelUpdates = 0;  // forward and back, voxels x views each
  double totalSeconds = 0;
  std::vector<std::string> warnings;
};

// The tomogram an ET user expects from a tilt series: the detector's columns across (x), the
// rows along the tilt axis (z) and `thicknessVoxels` through the specimen (y), voxels of the
// detector pitch, centred on the tilt axis. Other geometries get the FDK field-of-view grid.
fdk::VolumeGrid tomogramGrid(const Geometry& geometry, std::int64_t thicknessVoxels);

// Interleaved subsets: subset s holds views s, s + n, s + 2n... (SIRT: one subset; SART: one view
// per subset, in an order that spreads consecutive views apart).
std::vector<std::vector<std::int64_t>> viewSubsets(IterativeMethod method, std::int64_t viewCount,
                                                   int subsets);

// Host memory the whole run needs at its peak beyond the inputs: on the host, the volume, its
// update, the column weights (stored per subset, or one scratch volume) and three projection-
// sized buffers (row weights, ones, residual); with both projectors on a GPU, the volume only.
std::uint64_t hostMemoryBytes(const ProjectionStack& projections, const IterativeParams& params);

// Throws ParameterError for unusable parameters (naming them), OutOfMemoryError before any
// allocation when hostMemoryBytes() does not fit, Cancelled when asked.
Volume reconstructIterative(const ProjectionStack& projections, const IterativeParams& params,
                            JobContext& context, IterativeReport* report = nullptr);

class IterativeJob : public Job {
 public:
  IterativeJob(const ProjectionStack& projections, IterativeParams params)
      : projections_(projections), params_(std::move(params)) {}
  std::string_view name() const override { return "iterative"; }
  void run(JobContext& context) override {
    result_ = reconstructIterative(projections_, params_, context, &report_);
  }
  Volume& result() noexcept { return result_; }
  const IterativeReport& report() const noexcept { return report_; }

 private:
  const ProjectionStack& projections_;
  IterativeParams params_;
  Volume result_;
  IterativeReport report_;
};

}  // namespace tomowb::iterative

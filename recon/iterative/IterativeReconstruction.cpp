#include "recon/iterative/IterativeReconstruction.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/iterative/Cgls.h"
#include "recon/iterative/IterationLog.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/iterative/PwlsSqs.h"
#include "recon/iterative/cuda/FusedSirt.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::iterative {

namespace {

void checkParams(const ProjectionStack& projections, const IterativeParams& p) {
  if (projections.empty()) throw ParameterError("projections", "no projections to reconstruct");
  const VolumeShape& s = p.volume.shape;
  if (s.nx < 1 || s.ny < 1 || s.nz < 1) throw ParameterError("volume", "the grid is empty");
  if (p.iterations < 1 || p.iterations > 1000000)
    throw ParameterError("iterations", "must be 1..1000000, got " + std::to_string(p.iterations));
  const bool pwls = p.method == IterativeMethod::Pwls;
  if (p.method != IterativeMethod::Cgls && !pwls && !(p.relaxation > 0.0 && p.relaxation < 2.0))
    throw ParameterError("relaxation", "must lie in (0, 2), got " + std::to_string(p.relaxation));
  if ((p.method == IterativeMethod::OsSirt || pwls) &&
      (p.subsets < 1 || p.subsets > projections.viewCount()))
    throw ParameterError("subsets", "must be 1.." + std::to_string(projections.viewCount()) +
                                        " (the view count), got " + std::to_string(p.subsets));
  if (p.method == IterativeMethod::Cgls && (p.lowerBound || p.upperBound))
    throw ParameterError("bounds",
                         "CGLS solves the unconstrained least-squares problem and takes no "
                         "bounds; use SIRT with a lower bound for a non-negative solution");
  if (p.lowerBound && p.upperBound && *p.lowerBound > *p.upperBound)
    throw ParameterError("bounds", "the lower bound exceeds the upper bound");
  if (!(p.stopRelativeChange >= 0.0 && p.stopRelativeChange < 1.0))
    throw ParameterError("stop", "the relative residual change must lie in [0, 1)");
  if (p.initialVolume && p.initialVolume->shape() != s)
    throw ParameterError("initial volume",
                         "its shape differs from the reconstruction grid's; reconstruct on the "
                         "grid of the run it comes from");
  if (p.mask && p.mask->shape() != s)
    throw ParameterError("mask", "its shape differs from the reconstruction grid's");
  if (!pwls && (p.weights || p.reference))
    throw ParameterError(p.weights ? "weights" : "reference",
                         "only PWLS takes statistical weights and a reference volume");
  if (!pwls) return;
  if (!(p.pwls.beta >= 0 && std::isfinite(p.pwls.beta)))
    throw ParameterError("beta",
                         "must be a finite number >= 0, got " + std::to_string(p.pwls.beta));
  if (!(p.pwls.delta > 0 && std::isfinite(p.pwls.delta)))
    throw ParameterError("delta",
                         "must be a finite number > 0, got " + std::to_string(p.pwls.delta));
  if (!(p.pwls.stopChange >= 0.0 && p.pwls.stopChange < 1.0))
    throw ParameterError("stopChange", "the relative change must lie in [0, 1)");
  if (p.stopRelativeChange != 0.0)
    throw ParameterError("stop", "PWLS stops on the change of x (stopChange), not on the residual");
  if (p.reference && p.reference->shape() != s)
    throw ParameterError("reference", "its shape differs from the reconstruction grid's");
  if (p.weights) {
    const ProjectionStack& w = *p.weights;
    if (w.viewCount() != projections.viewCount() || w.rows() != projections.rows() ||
        w.cols() != projections.cols())
      throw ParameterError("weights", "their shape differs from the projections'");
    for (const float v : w.pixels())
      if (!(v >= 0.0f && std::isfinite(v)))
        throw ParameterError("weights", "must be finite and >= 0, got " + std::to_string(v));
  }
}

}  // namespace

std::string toString(IterativeMethod method) {
  switch (method) {
    case IterativeMethod::Sirt:
      return "sirt";
    case IterativeMethod::OsSirt:
      return "os-sirt";
    case IterativeMethod::Sart:
      return "sart";
    case IterativeMethod::Cgls:
      return "cgls";
    case IterativeMethod::Pwls:
      return "pwls";
  }
  return "?";
}

IterativeMethod iterativeMethodFromString(std::string_view name) {
  for (const IterativeMethod m :
       {IterativeMethod::Sirt, IterativeMethod::OsSirt, IterativeMethod::Sart,
        IterativeMethod::Cgls, IterativeMethod::Pwls})
    if (name == toString(m)) return m;
  throw ParameterError("method", "unknown iterative method '" + std::string(name) +
                                     "'; known: sirt, os-sirt, sart, cgls, pwls");
}

fdk::VolumeGrid tomogramGrid(const Geometry& geometry, std::int64_t thicknessVoxels) {
  if (geometry.viewCount() < 1) throw ParameterError("geometry", "has no views");
  if (thicknessVoxels < 1)
    throw ParameterError("thickness",
                         "must be at least 1 voxel, got " + std::to_string(thicknessVoxels));
  bool singleAxis = geometry.beam() == BeamKind::Parallel;
  for (const View& v : geometry.views())
    singleAxis = singleAxis && std::abs(v.v.normalized().z()) > 1.0 - 1e-9;
  if (!singleAxis) return fdk::illuminatedGrid(geometry);
  const View& first = geometry.view(0);
  const double across = first.u.norm(), along = first.v.norm();
  const DetectorShape& d = geometry.detector();
  return fdk::VolumeGrid::centred({d.cols, thicknessVoxels, d.rows},
                                  Eigen::Vector3d(across, across, along));
}

std::vector<std::vector<std::int64_t>> viewSubsets(IterativeMethod method, std::int64_t viewCount,
                                                   int subsets) {
  std::vector<std::vector<std::int64_t>> out;
  if (method == IterativeMethod::Sirt) subsets = 1;
  if (method == IterativeMethod::Sart) {
    // Golden-ratio order: each next view lies far in angle from the last few.
    std::vector<std::int64_t> order(static_cast<std::size_t>(viewCount));
    std::iota(order.begin(), order.end(), 0);
    const auto key = [](std::int64_t i) {
      const double g = static_cast<double>(i) * 0.6180339887498949;
      return g - std::floor(g);
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::int64_t a, std::int64_t b) { return key(a) < key(b); });
    for (const std::int64_t v : order) out.push_back({v});
    return out;
  }
  subsets = std::clamp<int>(subsets, 1, static_cast<int>(std::max<std::int64_t>(viewCount, 1)));
  out.resize(static_cast<std::size_t>(subsets));
  for (std::int64_t v = 0; v < viewCount; ++v)
    out[static_cast<std::size_t>(v % subsets)].push_back(v);
  return out;
}

std::uint64_t hostMemoryBytes(const ProjectionStack& projections, const IterativeParams& params) {
  const VolumeShape& s = params.volume.shape;
  const std::uint64_t volume = productOrThrow("volume size", {s.nx, s.ny, s.nz, 4});
  const std::uint64_t stack = productOrThrow(
      "projection stack size",
      {projections.viewCount(), projections.rows(), projections.cols(), std::int64_t{4}});
  const KernelVariant* fp = VariantRegistry::builtins().find(params.forwardVariant);
  const KernelVariant* bp = VariantRegistry::builtins().find(params.backVariant);
  if (params.method == IterativeMethod::Cgls) {
    // x, s and p; r and q.
    const double total = 3.0 * double(volume) + 2.0 * double(stack);
    return total >= 0x1p64 ? UINT64_MAX : static_cast<std::uint64_t>(total);
  }
  if (params.method == IterativeMethod::Pwls) {
    // x and the rule's arrays; with both projectors on a GPU they live there: the volume only.
    if (fp && bp && fp->needsGpu && bp->needsGpu) return volume;
    const PwlsRule::Footprint f = PwlsRule::footprint(params.pwls, params.weights != nullptr);
    const double total = (1.0 + f.volumes) * double(volume) + double(f.stacks) * double(stack);
    return total >= 0x1p64 ? UINT64_MAX : static_cast<std::uint64_t>(total);
  }
  if (fp && bp && fp->fusedSirt && bp->fusedSirt) return volume;
  const auto subsets = static_cast<std::uint64_t>(params.method == IterativeMethod::Sirt ? 1
                                                  : params.method == IterativeMethod::OsSirt
                                                      ? std::max(1, params.subsets)
                                                      : projections.viewCount());
  const double stored = double(subsets) * double(volume);
  const std::uint64_t weights =
      stored > SirtRule::kMaxStoredWeightBytes ? volume : subsets * volume;
  // x, update, and the weights (or the scratch volume); ones (a volume) only while the row
  // weights are made, before the column weights exist: max(ones, weights) covers both.
  const double total =
      2.0 * double(volume) + double(std::max(weights, volume)) + 3.0 * double(stack);
  return total >= 0x1p64 ? UINT64_MAX : static_cast<std::uint64_t>(total);
}

Volume reconstructIterative(const ProjectionStack& projections, const IterativeParams& params,
                            JobContext& context, IterativeReport* reportOut) {
  checkParams(projections, params);
  const VariantRegistry& registry = VariantRegistry::builtins();
  const KernelVariant& fp = registry.require(params.forwardVariant);
  const KernelVariant& bp = registry.require(params.backVariant);
  const op::ProjectorProblem problem{&projections.geometry(), params.volume, params.gpu};
  if (const std::optional<std::string> why =
          op::whyNotSupported(registry, fp.name, bp.name, problem))
    throw ParameterError(
        fp.role == VariantRole::ForwardProjector ? "backprojector" : "forward projector", *why);
  // The whole job once, before the first allocation: the volume alone may fit where the job
  // does not, and 16 GiB zeroed before the second volume is refused help nobody (review D4).
  {
    const VolumeShape& s = params.volume.shape;
    checkHostAllocation(hostMemoryBytes(projections, params),
                        toString(params.method) + " of a " + std::to_string(s.nx) + "x" +
                            std::to_string(s.ny) + "x" + std::to_string(s.nz) +
                            (params.method == IterativeMethod::Cgls
                                 ? " volume (the volume, two volume-sized and two "
                                   "projection-sized buffers)"
                             : params.method == IterativeMethod::Pwls
                                 ? " volume (the volume, the SQS denominator, the penalty's "
                                   "gradient and curvature, the update and the residual)"
                                 : " volume (the volume, its update, the column weights and "
                                   "three projection-sized buffers)"));
  }
  const auto started = Clock::now();
  IterativeReport report;
  report.method = toString(params.method);
  report.forwardVariant = fp.name;
  report.backVariant = bp.name;
  if (!bp.adjointOf.empty() && bp.adjointOf != fp.name)
    report.warnings.push_back(bp.name + " is the transpose of " + bp.adjointOf + ", not of " +
                              fp.name + ": the pair is unmatched");
  const float lower = params.lowerBound ? static_cast<float>(*params.lowerBound) : -INFINITY;
  const float upper = params.upperBound ? static_cast<float>(*params.upperBound) : INFINITY;

  // Both projectors offer the fused path (the GPU parallel-beam pair): SIRT and its kin run
  // there fused, the data resident.
  if (fp.fusedSirt && bp.fusedSirt && params.method != IterativeMethod::Cgls &&
      params.method != IterativeMethod::Pwls) {
    report.device = "GPU";
    const VolumeGrid& grid = params.volume;
    Volume x = grid.makeVolume();
    if (params.initialVolume)
      std::copy(params.initialVolume->voxels().begin(), params.initialVolume->voxels().end(),
                x.voxels().begin());
    op::HostArrayOps::clampMasked(x.voxels(), params.mask ? params.mask->data() : nullptr, lower,
                                  upper);
    cuda::reconstructIterativeGpu(projections, params, x, context, report);
    report.totalSeconds = secondsSince(started);
    if (reportOut) *reportOut = std::move(report);
    return x;
  }

  std::unique_ptr<op::ProjectorPair> pair =
      op::bindProjectorPair(registry, fp.name, bp.name, problem);
  report.device = pair->device();
  const op::ArrayOps& ops = pair->ops();
  std::unique_ptr<op::Array> x = pair->makeVolume();
  if (params.initialVolume) ops.upload(params.initialVolume->voxels(), *x);
  std::unique_ptr<const op::Array> mask;
  if (params.mask) mask = pair->useVolume(*params.mask);
  ops.clampMasked(*x, mask.get(), lower, upper);
  const std::unique_ptr<const op::Array> data = pair->useProjections(projections);
  const double dataNorm = dataNormOf(projections);
  if (params.method == IterativeMethod::Cgls) {
    if (!pair->matched())
      report.warnings.push_back(
          "CGLS assumes the backprojector is the forward projector's "
          "transpose; " +
          bp.name + " is not that of " + fp.name +
          ", so the iterates need not converge (use --matched)");
    runCgls(*pair, *data, mask.get(), *x, params, dataNorm, report, context);
  } else if (params.method == IterativeMethod::Pwls) {
    if (!pair->matched())
      report.warnings.push_back(
          "PWLS-SQS assumes the backprojector is the forward projector's "
          "transpose; " +
          bp.name + " is not that of " + fp.name + ", so the cost need not fall");
    std::unique_ptr<const op::Array> weights, reference;
    if (params.weights) weights = pair->useProjections(*params.weights);
    if (params.reference) reference = pair->useVolume(*params.reference);
    SubsetProblem subsetProblem{
        *pair, *data, mask.get(),
        lower, upper, viewSubsets(params.method, projections.viewCount(), params.subsets)};
    PwlsRule rule(params.pwls, weights.get(), reference.get());
    runOrderedSubsets(subsetProblem, rule, *x, params, dataNorm, report, context);
  } else {
    SubsetProblem subsetProblem{
        *pair, *data, mask.get(),
        lower, upper, viewSubsets(params.method, projections.viewCount(), params.subsets)};
    SirtRule rule(params.relaxation);
    runOrderedSubsets(subsetProblem, rule, *x, params, dataNorm, report, context);
  }
  report.totalSeconds = secondsSince(started);
  if (reportOut) *reportOut = std::move(report);
  return pair->takeVolume(std::move(x));
}

}  // namespace tomowb::iterative

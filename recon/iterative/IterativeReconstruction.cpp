#include "recon/iterative/IterativeReconstruction.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/cuda/GpuEt.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::iterative {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Sums below this fraction of the largest are treated as zero (ASTRA uses an absolute 1e-6, which
// would drop every weight of a tilt series in mm with nanometre pixels).
constexpr double kRelativeSumThreshold = 1e-6;
// Per-subset column weights are kept when they fit in this much memory, else recomputed (one
// extra backprojection of ones per subset).
constexpr double kMaxStoredWeightBytes = 2.0 * 1024 * 1024 * 1024;

// 1/sum where the sum is above threshold x max, else 0; `scale` multiplies the inverse.
void invertSums(std::span<float> sums, double scale) {
  float largest = 0.0f;
  for (const float s : sums) largest = std::max(largest, s);
  const double threshold = kRelativeSumThreshold * static_cast<double>(largest);
  const auto n = static_cast<std::int64_t>(sums.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const double s = sums[static_cast<std::size_t>(i)];
    sums[static_cast<std::size_t>(i)] = s > threshold && s > 0 ? static_cast<float>(scale / s) : 0;
  }
}

void checkParams(const ProjectionStack& projections, const IterativeParams& p) {
  if (projections.empty()) throw ParameterError("projections", "no projections to reconstruct");
  const VolumeShape& s = p.volume.shape;
  if (s.nx < 1 || s.ny < 1 || s.nz < 1) throw ParameterError("volume", "the grid is empty");
  if (p.iterations < 1 || p.iterations > 1000000)
    throw ParameterError("iterations", "must be 1..1000000, got " + std::to_string(p.iterations));
  if (!(p.relaxation > 0.0 && p.relaxation < 2.0))
    throw ParameterError("relaxation", "must lie in (0, 2), got " + std::to_string(p.relaxation));
  if (p.method == IterativeMethod::OsSirt && (p.subsets < 1 || p.subsets > projections.viewCount()))
    throw ParameterError("subsets", "must be 1.." + std::to_string(projections.viewCount()) +
                                        " (the view count), got " + std::to_string(p.subsets));
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
}

const KernelVariant& requireProjector(const std::string& name, bool forward) {
  const KernelVariant& v = VariantRegistry::builtins().require(name);
  if (forward && !v.forwardProject)
    throw ParameterError("forward projector",
                         "'" + name + "' is not a forward projector (the et.fp. family)");
  if (!forward && !v.backprojectViews)
    throw ParameterError("backprojector",
                         "'" + name + "' is not a backprojector (the et.bp. family)");
  return v;
}

void applyMaskAndBounds(Volume& x, const Volume* mask, const IterativeParams& p) {
  const auto n = static_cast<std::int64_t>(x.voxelCount());
  float* v = x.data();
  const float* m = mask ? mask->data() : nullptr;
  const float lo = p.lowerBound ? static_cast<float>(*p.lowerBound) : -INFINITY;
  const float hi = p.upperBound ? static_cast<float>(*p.upperBound) : INFINITY;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float value = std::clamp(v[i], lo, hi);
    if (m && m[i] == 0.0f) value = 0.0f;
    v[i] = value;
  }
}

std::string deviceText(const KernelVariant& fp, const KernelVariant& bp) {
  std::string cpu = "CPU, " + std::to_string(omp_get_max_threads()) + " threads";
  if (fp.needsGpu && bp.needsGpu) return "GPU";
  if (fp.needsGpu || bp.needsGpu) return "GPU and " + cpu;
  return cpu;
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
  }
  return "?";
}

IterativeMethod iterativeMethodFromString(std::string_view name) {
  for (const IterativeMethod m :
       {IterativeMethod::Sirt, IterativeMethod::OsSirt, IterativeMethod::Sart})
    if (name == toString(m)) return m;
  throw ParameterError(
      "method", "unknown iterative method '" + std::string(name) + "'; known: sirt, os-sirt, sart");
}

fdk::VolumeGrid tomogramGrid(const Geometry& geometry, std::int64_t thicknessVoxels) {
  if (geometry.viewCount() < 1) throw ParameterError("geometry", "has no views");
  if (thicknessVoxels < 1)
    throw ParameterError("thickness",
                         "must be at least 1 voxel, got " + std::to_string(thicknessVoxels));
  bool singleAxis = geometry.beam() == BeamKind::Parallel;
  for (const View& v : geometry.views())
    singleAxis = singleAxis && std::abs(v.v.normalized().z()) > 1.0 - 1e-9;
  if (!singleAxis) return fdk::VolumeGrid::coveringFieldOfView(geometry);
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

namespace {

// R: inverse row sums, the forward projection of ones (of the mask's voxels).
ProjectionStack rowWeightsOf(const KernelVariant& fp, const Geometry& geometry,
                             const fdk::VolumeGrid& grid, const Volume* mask, JobContext& context) {
  ProjectionStack rowWeights(geometry);
  Volume ones(grid.shape, grid.voxelSizeMm, grid.originMm);
  if (mask)
    std::transform(mask->voxels().begin(), mask->voxels().end(), ones.voxels().begin(),
                   [](float m) { return m != 0.0f ? 1.0f : 0.0f; });
  else
    std::fill(ones.voxels().begin(), ones.voxels().end(), 1.0f);
  fp.forwardProject(ones, rowWeights, {}, context);
  invertSums(rowWeights.pixels(), 1.0);
  if (std::none_of(rowWeights.pixels().begin(), rowWeights.pixels().end(),
                   [](float r) { return r > 0; }))
    throw ParameterError("volume", "no ray of the projections crosses the reconstruction grid");
  return rowWeights;
}

// C_s: the relaxation over the column sums of each subset, kept when they fit in
// kMaxStoredWeightBytes, else recomputed per subset (one more backprojection of ones).
class ColumnWeights {
 public:
  ColumnWeights(const KernelVariant& bp, const ProjectionStack& projections,
                const IterativeParams& params,
                const std::vector<std::vector<std::int64_t>>& subsets, JobContext& context)
      : bp_(bp), params_(params), subsets_(subsets), ones_(projections.geometry()) {
    std::fill(ones_.pixels().begin(), ones_.pixels().end(), 1.0f);
    const double bytes = static_cast<double>(subsets.size()) *
                         static_cast<double>(params.volume.shape.voxelCount()) * 4.0;
    if (bytes > kMaxStoredWeightBytes) return;
    for (std::size_t s = 0; s < subsets.size(); ++s) {
      context.throwIfCancelled();
      stored_.push_back(compute(s, context));
      context.reportProgress("weights",
                             static_cast<double>(s + 1) / static_cast<double>(subsets.size()));
    }
  }
  // The weights of subset s: stored, or computed into `scratch`.
  const float* of(std::size_t s, Volume& scratch, JobContext& context) const {
    if (!stored_.empty()) return stored_[s].data();
    scratch = compute(s, context);
    return scratch.data();
  }

 private:
  Volume compute(std::size_t s, JobContext& context) const {
    const fdk::VolumeGrid& grid = params_.volume;
    Volume c(grid.shape, grid.voxelSizeMm, grid.originMm);
    bp_.backprojectViews(ones_, c, subsets_[s], context);
    invertSums(c.voxels(), params_.relaxation);
    if (params_.mask) applyMaskAndBounds(c, params_.mask.get(), IterativeParams{});
    return c;
  }

  const KernelVariant& bp_;
  const IterativeParams& params_;
  const std::vector<std::vector<std::int64_t>>& subsets_;
  ProjectionStack ones_;
  std::vector<Volume> stored_;
};

// r = b - A x over the views, replaced by R r; adds ||r||^2 and ||r||_R^2. One parallel loop
// over all the views' pixels.
void weightResidual(const ProjectionStack& projections, const ProjectionStack& rowWeights,
                    ProjectionStack& residual, const std::vector<std::int64_t>& views,
                    double& residual2, double& weighted2) {
  const std::int64_t pixelsPerView = projections.pixelsPerView();
  const auto count = static_cast<std::int64_t>(views.size()) * pixelsPerView;
  double r2 = 0, w2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : r2, w2)
  for (std::int64_t j = 0; j < count; ++j) {
    const std::int64_t i =
        views[static_cast<std::size_t>(j / pixelsPerView)] * pixelsPerView + j % pixelsPerView;
    const double diff =
        static_cast<double>(projections.data()[i]) - static_cast<double>(residual.data()[i]);
    const double weight = rowWeights.data()[i];
    r2 += diff * diff;
    w2 += weight * diff * diff;
    residual.data()[i] = static_cast<float>(diff * weight);
  }
  residual2 += r2;
  weighted2 += w2;
}

// The stop rule: empty while the weighted residual still falls by at least the fraction asked.
std::string convergenceReason(const IterativeParams& params, const IterativeReport& report) {
  const std::size_t n = report.iterations.size();
  if (params.stopRelativeChange <= 0 || n < 2) return {};
  const double before = report.iterations[n - 2].weightedResidualNorm;
  const double now = report.iterations[n - 1].weightedResidualNorm;
  const double change = before > 0 ? (before - now) / before : 0.0;
  if (change >= params.stopRelativeChange) return {};
  char text[160];
  std::snprintf(text, sizeof text, "the weighted residual fell by %.3g (< %.3g) in iteration %zu",
                change, params.stopRelativeChange, n);
  return text;
}

struct IterationTotals {
  double forwardSeconds = 0, backSeconds = 0, updates = 0, residual2 = 0, weighted2 = 0;
};

// Records iteration `iteration` in the report and tells the context (sinks, telemetry, progress).
void recordIteration(const IterationTotals& t, int iteration, double dataNorm, double seconds,
                     const IterativeParams& params, IterativeReport& report, JobContext& context) {
  IterationRecord record;
  record.algorithm = report.method;
  record.iteration = iteration;
  record.maxIterations = params.iterations;
  record.residualNorm = std::sqrt(t.residual2);
  record.weightedResidualNorm = std::sqrt(t.weighted2);
  record.relativeResidual = dataNorm > 0 ? record.residualNorm / dataNorm : 0.0;
  record.seconds = seconds;
  report.iterations.push_back(record);
  report.forwardSeconds += t.forwardSeconds;
  report.backprojectSeconds += t.backSeconds;
  report.voxelUpdates += t.updates;
  context.publishTelemetry(
      {"iterative.forward", report.forwardVariant, t.forwardSeconds, t.updates / 2, 0, -1, 0});
  context.publishTelemetry(
      {"iterative.backproject", report.backVariant, t.backSeconds, t.updates / 2, 0, -1, 0});
  context.reportIteration(record);
  context.reportProgress(
      "iteration " + std::to_string(iteration) + "/" + std::to_string(params.iterations),
      static_cast<double>(iteration) / params.iterations);
}

void iterateOnHost(const ProjectionStack& projections, const IterativeParams& params,
                   const KernelVariant& fp, const KernelVariant& bp, Volume& x, JobContext& context,
                   IterativeReport& report) {
  const auto started = Clock::now();
  const fdk::VolumeGrid& grid = params.volume;
  const Volume* mask = params.mask.get();
  const std::vector<std::vector<std::int64_t>> subsets =
      viewSubsets(params.method, projections.viewCount(), params.subsets);
  context.reportProgress("weights", 0.0);
  const ProjectionStack rowWeights = rowWeightsOf(fp, projections.geometry(), grid, mask, context);
  const ColumnWeights columnWeights(bp, projections, params, subsets, context);
  report.setupSeconds = secondsSince(started);

  double dataNorm2 = 0;
  for (const float b : projections.pixels()) dataNorm2 += static_cast<double>(b) * b;
  const double dataNorm = std::sqrt(dataNorm2);
  ProjectionStack residual(projections.geometry());
  Volume update(grid.shape, grid.voxelSizeMm, grid.originMm), scratch;
  const double voxels = static_cast<double>(grid.shape.voxelCount());
  const auto n = static_cast<std::int64_t>(x.voxelCount());
  report.stopReason = std::to_string(params.iterations) + " iterations";
  for (int iteration = 1; iteration <= params.iterations; ++iteration) {
    const auto iterationStart = Clock::now();
    IterationTotals t;
    for (std::size_t s = 0; s < subsets.size(); ++s) {
      context.throwIfCancelled();
      const std::vector<std::int64_t>& views = subsets[s];
      auto clock = Clock::now();
      fp.forwardProject(x, residual, views, context);
      t.forwardSeconds += secondsSince(clock);
      weightResidual(projections, rowWeights, residual, views, t.residual2, t.weighted2);
      std::fill(update.voxels().begin(), update.voxels().end(), 0.0f);
      clock = Clock::now();
      bp.backprojectViews(residual, update, views, context);
      t.backSeconds += secondsSince(clock);
      t.updates += 2.0 * voxels * static_cast<double>(views.size());
      const float* c = columnWeights.of(s, scratch, context);
      float* xv = x.data();
      const float* u = update.data();
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) xv[i] += c[i] * u[i];
      applyMaskAndBounds(x, mask, params);
    }
    recordIteration(t, iteration, dataNorm, secondsSince(iterationStart), params, report, context);
    const std::string converged = convergenceReason(params, report);
    if (!converged.empty()) report.stopReason = converged;
    if (context.wantsIntermediates() && params.publishEvery > 0 &&
        (iteration % params.publishEvery == 0 || iteration == params.iterations ||
         !converged.empty()))
      context.publishIntermediate(x, "iteration " + std::to_string(iteration));
    if (!converged.empty()) break;
  }
}

}  // namespace

std::uint64_t hostMemoryBytes(const ProjectionStack& projections, const IterativeParams& params) {
  const VolumeShape& s = params.volume.shape;
  const std::uint64_t volume = productOrThrow("volume size", {s.nx, s.ny, s.nz, 4});
  const std::uint64_t stack = productOrThrow(
      "projection stack size",
      {projections.viewCount(), projections.rows(), projections.cols(), std::int64_t{4}});
  const KernelVariant* fp = VariantRegistry::builtins().find(params.forwardVariant);
  const KernelVariant* bp = VariantRegistry::builtins().find(params.backVariant);
  if (fp && bp && fp->needsGpu && bp->needsGpu) return volume;
  const auto subsets = static_cast<std::uint64_t>(params.method == IterativeMethod::Sirt ? 1
                                                  : params.method == IterativeMethod::OsSirt
                                                      ? std::max(1, params.subsets)
                                                      : projections.viewCount());
  const double stored = double(subsets) * double(volume);
  const std::uint64_t weights = stored > kMaxStoredWeightBytes ? volume : subsets * volume;
  // x, update, and the weights (or the scratch volume); ones (a volume) only while the row
  // weights are made, before the column weights exist: max(ones, weights) covers both.
  const double total =
      2.0 * double(volume) + double(std::max(weights, volume)) + 3.0 * double(stack);
  return total >= 0x1p64 ? UINT64_MAX : static_cast<std::uint64_t>(total);
}

Volume reconstructIterative(const ProjectionStack& projections, const IterativeParams& params,
                            JobContext& context, IterativeReport* reportOut) {
  checkParams(projections, params);
  const KernelVariant& fp = requireProjector(params.forwardVariant, true);
  const KernelVariant& bp = requireProjector(params.backVariant, false);
  // The whole job once, before the first allocation: the volume alone may fit where the job
  // does not, and 16 GiB zeroed before the second volume is refused help nobody (review D4).
  {
    const VolumeShape& s = params.volume.shape;
    checkHostAllocation(hostMemoryBytes(projections, params),
                        toString(params.method) + " of a " + std::to_string(s.nx) + "x" +
                            std::to_string(s.ny) + "x" + std::to_string(s.nz) +
                            " volume (the volume, its update, the column weights and three "
                            "projection-sized buffers)");
  }
  const auto started = Clock::now();
  IterativeReport report;
  report.method = toString(params.method);
  report.forwardVariant = fp.name;
  report.backVariant = bp.name;
  report.device = deviceText(fp, bp);
  if (!bp.adjointOf.empty() && bp.adjointOf != fp.name)
    report.warnings.push_back(bp.name + " is the transpose of " + bp.adjointOf + ", not of " +
                              fp.name + ": the pair is unmatched");

  const fdk::VolumeGrid& grid = params.volume;
  Volume x(grid.shape, grid.voxelSizeMm, grid.originMm);
  if (params.initialVolume)
    std::copy(params.initialVolume->voxels().begin(), params.initialVolume->voxels().end(),
              x.voxels().begin());
  applyMaskAndBounds(x, params.mask.get(), params);
  // Both projectors on the GPU: the whole algorithm runs there, the data resident.
  if (fp.needsGpu && bp.needsGpu)
    cuda::reconstructIterativeGpu(projections, params, x, context, report);
  else
    iterateOnHost(projections, params, fp, bp, x, context, report);
  report.totalSeconds = secondsSince(started);
  if (reportOut) *reportOut = std::move(report);
  return x;
}

}  // namespace tomowb::iterative

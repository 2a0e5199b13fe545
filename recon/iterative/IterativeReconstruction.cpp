#include "recon/iterative/IterativeReconstruction.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "recon/core/Error.h"
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
  const std::string cpu = "CPU, " + std::to_string(omp_get_max_threads()) + " threads";
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

Volume reconstructIterative(const ProjectionStack& projections, const IterativeParams& params,
                            JobContext& context, IterativeReport* reportOut) {
  checkParams(projections, params);
  const KernelVariant& fp = requireProjector(params.forwardVariant, true);
  const KernelVariant& bp = requireProjector(params.backVariant, false);
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
  const Volume* mask = params.mask.get();
  applyMaskAndBounds(x, mask, params);

  const Geometry& geometry = projections.geometry();
  const std::vector<std::vector<std::int64_t>> subsets =
      viewSubsets(params.method, projections.viewCount(), params.subsets);
  const std::span<const std::int64_t> allViews;

  // R: inverse row sums, the forward projection of ones (of the mask).
  context.reportProgress("weights", 0.0);
  ProjectionStack rowWeights(geometry);
  {
    Volume ones(grid.shape, grid.voxelSizeMm, grid.originMm);
    if (mask)
      std::transform(mask->voxels().begin(), mask->voxels().end(), ones.voxels().begin(),
                     [](float m) { return m != 0.0f ? 1.0f : 0.0f; });
    else
      std::fill(ones.voxels().begin(), ones.voxels().end(), 1.0f);
    fp.forwardProject(ones, rowWeights, allViews, context);
  }
  invertSums(rowWeights.pixels(), 1.0);
  double rayCount = 0;
  for (const float r : rowWeights.pixels()) rayCount += r > 0 ? 1 : 0;
  if (rayCount == 0)
    throw ParameterError("volume", "no ray of the projections crosses the reconstruction grid");

  // C_s: relaxation over the column sums of each subset.
  ProjectionStack onesStack(geometry);
  std::fill(onesStack.pixels().begin(), onesStack.pixels().end(), 1.0f);
  const auto columnWeights = [&](const std::vector<std::int64_t>& views) {
    Volume c(grid.shape, grid.voxelSizeMm, grid.originMm);
    bp.backprojectViews(onesStack, c, views, context);
    invertSums(c.voxels(), params.relaxation);
    if (mask) applyMaskAndBounds(c, mask, IterativeParams{});
    return c;
  };
  const bool storeWeights =
      static_cast<double>(subsets.size()) * static_cast<double>(grid.shape.voxelCount()) * 4.0 <=
      kMaxStoredWeightBytes;
  std::vector<Volume> storedColumnWeights;
  if (storeWeights)
    for (std::size_t s = 0; s < subsets.size(); ++s) {
      context.throwIfCancelled();
      storedColumnWeights.push_back(columnWeights(subsets[s]));
      context.reportProgress("weights",
                             static_cast<double>(s + 1) / static_cast<double>(subsets.size()));
    }
  report.setupSeconds = secondsSince(started);

  double dataNorm2 = 0;
  for (const float b : projections.pixels()) dataNorm2 += static_cast<double>(b) * b;
  const double dataNorm = std::sqrt(dataNorm2);

  ProjectionStack residual(geometry);
  Volume update(grid.shape, grid.voxelSizeMm, grid.originMm);
  const std::int64_t pixelsPerView = projections.pixelsPerView();
  const double voxels = static_cast<double>(grid.shape.voxelCount());
  report.stopReason = std::to_string(params.iterations) + " iterations";
  for (int iteration = 1; iteration <= params.iterations; ++iteration) {
    const auto iterationStart = Clock::now();
    double forwardSeconds = 0, backSeconds = 0, updates = 0;
    double residual2 = 0, weighted2 = 0;
    for (std::size_t s = 0; s < subsets.size(); ++s) {
      context.throwIfCancelled();
      const std::vector<std::int64_t>& views = subsets[s];
      auto t = Clock::now();
      fp.forwardProject(x, residual, views, context);
      forwardSeconds += secondsSince(t);
      // r = b - A x over the subset's views, then R r.
      for (const std::int64_t v : views) {
        const float* b = projections.viewPixels(v).data();
        const float* rw = rowWeights.viewPixels(v).data();
        float* r = residual.viewPixels(v).data();
        double r2 = 0, w2 = 0;
#pragma omp parallel for schedule(static) reduction(+ : r2, w2)
        for (std::int64_t i = 0; i < pixelsPerView; ++i) {
          const double diff = static_cast<double>(b[i]) - static_cast<double>(r[i]);
          r2 += diff * diff;
          w2 += static_cast<double>(rw[i]) * diff * diff;
          r[i] = static_cast<float>(diff * static_cast<double>(rw[i]));
        }
        residual2 += r2;
        weighted2 += w2;
      }
      std::fill(update.voxels().begin(), update.voxels().end(), 0.0f);
      t = Clock::now();
      bp.backprojectViews(residual, update, views, context);
      backSeconds += secondsSince(t);
      updates += 2.0 * voxels * static_cast<double>(views.size());
      const Volume computed = storeWeights ? Volume() : columnWeights(views);
      const float* c = storeWeights ? storedColumnWeights[s].data() : computed.data();
      float* xv = x.data();
      const float* u = update.data();
      const auto n = static_cast<std::int64_t>(x.voxelCount());
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < n; ++i) xv[i] += c[i] * u[i];
      applyMaskAndBounds(x, mask, params);
    }
    IterationRecord record;
    record.algorithm = report.method;
    record.iteration = iteration;
    record.maxIterations = params.iterations;
    record.residualNorm = std::sqrt(residual2);
    record.weightedResidualNorm = std::sqrt(weighted2);
    record.relativeResidual = dataNorm > 0 ? record.residualNorm / dataNorm : 0.0;
    record.seconds = secondsSince(iterationStart);
    report.iterations.push_back(record);
    report.forwardSeconds += forwardSeconds;
    report.backprojectSeconds += backSeconds;
    report.voxelUpdates += updates;
    context.publishTelemetry({"iterative.forward", fp.name, forwardSeconds, updates / 2, 0, -1, 0});
    context.publishTelemetry(
        {"iterative.backproject", bp.name, backSeconds, updates / 2, 0, -1, 0});
    context.reportIteration(record);
    context.reportProgress(
        "iteration " + std::to_string(iteration) + "/" + std::to_string(params.iterations),
        static_cast<double>(iteration) / params.iterations);
    const bool last = iteration == params.iterations;
    bool converged = false;
    if (params.stopRelativeChange > 0 && iteration > 1) {
      const double before = report.iterations[report.iterations.size() - 2].weightedResidualNorm;
      const double change = before > 0 ? (before - record.weightedResidualNorm) / before : 0.0;
      if (change < params.stopRelativeChange) {
        converged = true;
        char text[160];
        std::snprintf(text, sizeof text,
                      "the weighted residual fell by %.3g (< %.3g) in iteration %d", change,
                      params.stopRelativeChange, iteration);
        report.stopReason = text;
      }
    }
    if (context.wantsIntermediates() && params.publishEvery > 0 &&
        (iteration % params.publishEvery == 0 || last || converged))
      context.publishIntermediate(x, "iteration " + std::to_string(iteration));
    if (converged) break;
  }
  report.totalSeconds = secondsSince(started);
  if (reportOut) *reportOut = std::move(report);
  return x;
}

}  // namespace tomowb::iterative

#include "recon/fdk/Fdk.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>

#include "recon/core/Error.h"
#include "recon/core/PendingVolume.h"
#include "recon/fdk/ArcRebinning.h"
#include "recon/fdk/HelicalBackprojector.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::fdk {

VolumeGrid fieldOfViewGrid(const Geometry& arcOrFlat, double voxelMm) {
  if (arcOrFlat.viewCount() == 0) throw ParameterError("geometry", "has no views");
  // Arc detectors: the grid of the flat detectors that span the same fan (ArcFrame.h).
  const Geometry geometry =
      arcOrFlat.hasCylindricalViews() ? flatEquivalentGeometry(arcOrFlat) : arcOrFlat;
  // A helical orbit takes helical weights only; incomplete coverage is the run's to refuse.
  const bool helical = HelicalOrbit::sourcesLeaveThePlane(geometry);
  const FdkWeightPlan plan(geometry, helical ? RedundancyMode::Auto : RedundancyMode::None,
                           helical);
  const ViewFrame& f = plan.frame(0);
  const double voxel = voxelMm > 0 ? voxelMm : f.isocentrePitchMm;
  const auto inPlane =
      std::max<std::int64_t>(std::int64_t(std::ceil(2.0 * plan.fieldOfViewRadiusMm() / voxel)), 1);
  const double heightMm = double(geometry.detector().rows) * geometry.view(0).v.norm() *
                          f.sourceToIsocentreMm / f.sourceToDetectorMm;
  if (const HelicalOrbit* orbit = plan.helicalOrbit()) {
    // A helix: the slices whose every line is measured, centred on them.
    const double first = orbit->firstCompleteZMm(), last = orbit->lastCompleteZMm();
    const VolumeShape shape{
        inPlane, inPlane,
        std::max<std::int64_t>(std::int64_t(std::floor((last - first) / voxel)) + 1, 1)};
    VolumeGrid grid = VolumeGrid::centred(shape, Eigen::Vector3d::Constant(voxel));
    grid.originMm.z() += 0.5 * (first + last);
    return grid;
  }
  const VolumeShape shape{inPlane, inPlane,
                          std::max<std::int64_t>(std::int64_t(heightMm / voxel), 1)};
  return VolumeGrid::centred(shape, Eigen::Vector3d::Constant(voxel));
}

VolumeGrid illuminatedGrid(const Geometry& geometry, double voxelMm) {
  VolumeGrid grid = fieldOfViewGrid(geometry, voxelMm);
  if (!HelicalOrbit::sourcesLeaveThePlane(geometry)) return grid;
  // Every ray from a source to a detector row edge, between the nearest and farthest points of
  // the field-of-view cylinder (radius: half the grid's width).
  const double voxel = grid.voxelSizeMm.z();
  const double radius = 0.5 * double(grid.shape.nx) * grid.voxelSizeMm.x();
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (const View& v : geometry.views()) {
    const Eigen::Vector2d source(v.source.x(), v.source.y());
    const Eigen::Vector2d detector(v.detectorCentre.x(), v.detectorCentre.y());
    const double sourceToAxis = source.norm(), sourceToDetector = (detector - source).norm();
    const double halfHeight = 0.5 * double(geometry.detector().rows) * v.v.norm();
    for (const double edge : {v.detectorCentre.z() - halfHeight, v.detectorCentre.z() + halfHeight})
      for (const double depth : {sourceToAxis - radius, sourceToAxis + radius}) {
        const double z = v.source.z() + (edge - v.source.z()) * depth / sourceToDetector;
        low = std::min(low, z);
        high = std::max(high, z);
      }
  }
  const auto slices = std::max<std::int64_t>(std::int64_t(std::ceil((high - low) / voxel)), 1);
  grid = VolumeGrid::centred({grid.shape.nx, grid.shape.ny, slices}, grid.voxelSizeMm);
  grid.originMm.z() += 0.5 * (low + high);
  return grid;
}

Geometry extendedGeometry(const Geometry& g, FdkWeightPlan::ColumnExtension e) {
  if (e.before == 0 && e.after == 0) return g;
  std::vector<View> views = g.views();
  for (View& v : views) v.detectorCentre += 0.5 * double(e.after - e.before) * v.u;
  return Geometry(g.beam(), {g.detector().cols + e.before + e.after, g.detector().rows},
                  std::move(views));
}

ProjectionStack filterProjections(const ProjectionStack& projections, const FdkWeightPlan& plan,
                                  const RampFilterParams& filter, JobContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const FdkWeightPlan::ColumnExtension extension = plan.filterExtension();
  ProjectionStack filtered(extendedGeometry(projections.geometry(), extension));
  const std::int64_t views = projections.viewCount();
  const std::int64_t rows = projections.rows(), cols = projections.cols();
  const std::int64_t filteredCols = filtered.cols();
  const CancelToken& cancel = context.cancelToken();
  // Everything that can be refused is refused here, before the parallel region: an exception
  // must never leave an OpenMP region (std::terminate).
  checkRampFilterParams(filter);
  std::int64_t done = 0;
  std::exception_ptr failure;  // the first exception inside the region, rethrown after it
  std::atomic<bool> failed{false};
#pragma omp parallel
  {
    // One filter per thread: Eigen's FFT caches plans and is not thread-safe. Unit spacing
    // here; the 1/pitch at the isocentre is part of weightView(). Built inside a try, and every
    // thread still reaches the worksharing loop (which all threads of the team must meet).
    std::optional<RampFilter<float>> ramp;
    std::vector<float> weighted;
    const auto fail = [&] {
#pragma omp critical(tomowbFdkFilterFailure)
      if (!failure) failure = std::current_exception();
      failed = true;
    };
    try {
      ramp.emplace(filteredCols, 1.0, filter);
      weighted.resize(static_cast<std::size_t>(rows * cols));
    } catch (...) {
      fail();
    }
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t v = 0; v < views; ++v) {
      if (cancel.requested() || failed.load(std::memory_order_relaxed)) continue;
      try {
        const std::span<const float> in = projections.viewPixels(v);
        std::copy(in.begin(), in.end(), weighted.begin());
        plan.weightView(v, weighted);
        std::span<float> out = filtered.viewPixels(v);
        for (std::int64_t r = 0; r < rows; ++r) {
          std::span<float> row =
              out.subspan(std::size_t(r * filteredCols), std::size_t(filteredCols));
          std::copy_n(weighted.begin() + r * cols, cols, row.begin() + extension.before);
          ramp->filterRow(row);
        }
#pragma omp critical(tomowbFdkFilterProgress)
        context.reportProgress("filter", double(++done) / double(views));
      } catch (...) {
        fail();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
  context.throwIfCancelled();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  context.publishTelemetry({"fdk.filter", "cpu", seconds, 0.0, 0.0});
  return filtered;
}

void applyFieldOfViewMask(Volume& volume, double radiusMm) {
  const double r2 = radiusMm * radiusMm;
  const std::int64_t nx = volume.nx(), ny = volume.ny(), nz = volume.nz();
#pragma omp parallel for schedule(static)
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) {
        const Eigen::Vector3d p = volume.worldPosition(double(x), double(y), double(z));
        if (p.x() * p.x() + p.y() * p.y() > r2) volume.at(x, y, z) = 0.0f;
      }
}

namespace {
// Forwards telemetry and keeps the backprojection's numbers for the report.
class ReportingTelemetry : public TelemetrySink {
 public:
  ReportingTelemetry(const JobContext& outer, FdkReport& report) : outer_(outer), report_(report) {}
  void publish(const TelemetryEvent& e) override {
    if (e.step == "fdk.backproject") {
      report_.backprojectSeconds += e.seconds;
      report_.voxelUpdates += e.voxelUpdates;
    } else if (e.step == "fdk.filter") {
      report_.filterSeconds += e.seconds;
    }
    outer_.publishTelemetry(e);
  }

 private:
  const JobContext& outer_;
  FdkReport& report_;
};

// Progress of the whole job: filtering is about a tenth of the work.
class ScaledProgress : public ProgressSink {
 public:
  explicit ScaledProgress(const JobContext& outer) : outer_(outer) {}
  void report(std::string_view stage, double fraction) override {
    outer_.reportProgress(stage, stage == "filter" ? 0.1 * fraction : 0.1 + 0.9 * fraction);
  }

 private:
  const JobContext& outer_;
};
// Hands the backprojection's partial sums on to the caller's sink.
class IntermediateForwarder : public IntermediateVolumeSink {
 public:
  explicit IntermediateForwarder(const JobContext& outer) : outer_(outer) {}
  void publish(const Volume& volume, std::string_view label, double valueScale) override {
    outer_.publishIntermediate(volume, label, valueScale);
  }
  bool wantsVolumeNow() const override { return outer_.intermediateWantedNow(); }

 private:
  const JobContext& outer_;
};
}  // namespace

namespace {

// Zeros every voxel, on every core (a reused volume that a failed run must not leave half written,
// or that a CPU backprojection adds into).
void zeroVoxels(Volume& volume) {
  float* data = volume.data();
  const std::int64_t count = volume.voxelCount();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) data[i] = 0.0f;
}

// The volume `into` holds on params.volume's grid (its shape checked, its voxel size and origin
// set), taken out of `into`; or a fresh zero-filled one when `into` is null.
Volume reusedOrNew(Volume* into, const VolumeGrid& grid, bool zeroed) {
  if (into == nullptr) return Volume(grid.shape, grid.voxelSizeMm, grid.originMm);
  Volume volume = std::move(*into);
  volume.setVoxelSizeMm(grid.voxelSizeMm);
  volume.setOriginMm(grid.originMm);
  if (zeroed) zeroVoxels(volume);
  return volume;
}

void checkVolumeToReuse(const Volume& into, const VolumeGrid& grid) {
  const VolumeShape& have = into.shape();
  const VolumeShape& want = grid.shape;
  if (have == want && !into.empty()) return;
  throw ParameterError("volume", "the volume to reconstruct into has " + std::to_string(have.nx) +
                                     " x " + std::to_string(have.ny) + " x " +
                                     std::to_string(have.nz) + " voxels and the grid asks for " +
                                     std::to_string(want.nx) + " x " + std::to_string(want.ny) +
                                     " x " + std::to_string(want.nz));
}

// A throw after the caller's volume was taken (reconstructFdkInto) hands its storage back,
// zero-filled: no partial result stays in it.
class VolumeGiveBack {
 public:
  VolumeGiveBack(Volume* into, Volume& volume) noexcept : into_(into), volume_(volume) {}
  ~VolumeGiveBack() {
    if (into_ == nullptr || returned_ || volume_.empty()) return;
    *into_ = std::move(volume_);
    zeroVoxels(*into_);
  }
  VolumeGiveBack(const VolumeGiveBack&) = delete;
  VolumeGiveBack& operator=(const VolumeGiveBack&) = delete;
  VolumeGiveBack(VolumeGiveBack&&) = delete;
  VolumeGiveBack& operator=(VolumeGiveBack&&) = delete;
  void returned() noexcept { returned_ = true; }

 private:
  Volume* into_;
  Volume& volume_;
  bool returned_ = false;
};

// GPU variants weight, filter and backproject on the device and report their own telemetry; the
// host volume is allocated beside that work (PendingVolume) and waited for when the first slab
// comes back. (Downloading several GPUs' slabs into a volume that is not pinned, through pinned
// staging buffers, saves pinning the volume but ran at 11 GB/s a GPU on the two-H100 machine
// against 26 to 55 GB/s straight into pinned memory: not done.) A volume to reuse is not zeroed
// first: the GPU's slabs tile the grid and overwrite it. On a throw `volume` holds the reused
// storage (for VolumeGiveBack).
void reconstructOnGpu(const KernelVariant& variant, const ProjectionStack& projections,
                      const FdkWeightPlan& plan, const FdkParams& params, JobContext& context,
                      FdkReport& report, Volume* into, Volume& volume) {
  std::optional<PendingVolume> pending;
  if (into != nullptr)
    pending.emplace(reusedOrNew(into, params.volume, false));
  else
    pending.emplace(params.volume);
  try {
    variant.reconstruct(projections, plan, params, *pending, context, report);
  } catch (...) {
    if (into != nullptr) volume = pending->take();
    throw;
  }
  volume = pending->take();
  report.hostVolumeSeconds = pending->allocationSeconds();
}

// The CPU variants: filter, then backproject (a helix: with per-voxel redundancy weights).
void reconstructOnCpu(const KernelVariant& variant, const ProjectionStack& projections,
                      const FdkWeightPlan& plan, const FdkParams& params, JobContext& context,
                      FdkReport& report, Volume* into, Volume& volume) {
  volume = reusedOrNew(into, params.volume, true);
  report.device = "CPU, " + std::to_string(omp_get_max_threads()) + " threads";
  ReportingTelemetry telemetry(context, report);
  ScaledProgress progress(context);
  IntermediateForwarder intermediates(context);
  JobContext inner(context.cancelToken(), &progress, &telemetry,
                   context.wantsIntermediates() ? &intermediates : nullptr);
  const ProjectionStack filtered = filterProjections(projections, plan, params.filter, inner);
  if (const HelicalOrbit* helix = plan.helicalOrbit()) {
    // Helical: the backprojection that weights each voxel over its conjugate rays
    // (HelicalBackprojector.h), for either CPU variant.
    report.kernel = "helical weighted backprojection (CPU, float64 sums; " + variant.name + ")";
    backprojectHelical(filtered, *helix, kHelicalFlatFraction, volume, inner);
  } else {
    report.kernel = variant.name;
    variant.backproject(filtered, volume, inner);
  }
}

// reconstructFdk into a fresh volume (into == null) or into *into, which on return (or on a
// throw, zero-filled) holds the result's storage again.
Volume reconstruct(const ProjectionStack& projections, const FdkParams& params, JobContext& context,
                   FdkReport* reportOut, Volume* into) {
  if (projections.empty()) throw ParameterError("projections", "no projections to reconstruct");
  checkRampFilterParams(params.filter);  // before the volume is allocated
  if (into != nullptr) checkVolumeToReuse(*into, params.volume);
  if (projections.geometry().hasCylindricalViews()) {
    // Arc detectors: FDK on the flat detectors tangent to them (ArcRebinning.h).
    FdkReport report;
    Volume volume = reconstruct(rebinArcToFlat(projections), params, context, &report, into);
    report.warnings.insert(report.warnings.begin(),
                           "the arc (cylindrical) detector's projections were resampled "
                           "(bilinear) onto the flat detector tangent to it at its centre for FDK");
    if (reportOut) *reportOut = std::move(report);
    return volume;
  }
  const KernelVariant& variant = VariantRegistry::builtins().require(params.variant);
  if (!variant.backproject)
    throw ParameterError("variant", "'" + variant.name + "' is not an FDK backprojector");
  if (params.mirrorPair != nullptr && !variant.reconstruct)
    throw ParameterError("variant", "a mirrored slab pair runs on a GPU z-mirror kernel, not on '" +
                                        variant.name + "'");
  const Geometry& geometry =
      params.mirrorPair != nullptr ? params.mirrorPair->geometry : projections.geometry();
  FdkReport report;
  report.variant = variant.name;
  const FdkWeightPlan plan(geometry, params.redundancy, params.allowIncomplete);
  report.weighting = plan.summary();
  report.warnings = plan.warnings();
  if (const std::optional<std::string> refused = refusalOf(variant, geometry, params.volume))
    throw ParameterError("variant", *refused);
  const HelicalOrbit* helix = plan.helicalOrbit();
  if (helix && variant.reconstruct)
    throw ParameterError("variant", "'" + variant.name +
                                        "' runs on the GPU, whose FDK kernels have no per-voxel "
                                        "helical redundancy weight: helical FDK runs on the CPU "
                                        "(fdk.bp.cpu)");

  const auto started = std::chrono::steady_clock::now();
  Volume volume;
  VolumeGiveBack giveBack(into, volume);
  if (variant.reconstruct)  // (a helix on a GPU variant was refused above)
    reconstructOnGpu(variant, projections, plan, params, context, report, into, volume);
  else
    reconstructOnCpu(variant, projections, plan, params, context, report, into, volume);
  context.throwIfCancelled();
  if (params.fieldOfViewMask) applyFieldOfViewMask(volume, plan.fieldOfViewRadiusMm());
  report.totalSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (reportOut) *reportOut = std::move(report);
  giveBack.returned();
  return volume;
}

}  // namespace

Volume reconstructFdk(const ProjectionStack& projections, const FdkParams& params,
                      JobContext& context, FdkReport* report) {
  return reconstruct(projections, params, context, report, nullptr);
}

void reconstructFdkInto(const ProjectionStack& projections, const FdkParams& params, Volume& volume,
                        JobContext& context, FdkReport* report) {
  volume = reconstruct(projections, params, context, report, &volume);
}

}  // namespace tomowb::fdk

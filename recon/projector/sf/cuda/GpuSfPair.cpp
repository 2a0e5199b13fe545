// The separable-footprint projectors on the GPU (GpuSf.h): the per-view tables in float64 from the
// geometry, the device-resident pair the solvers run on, the host-to-host entries of the
// registered variants and their registration.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/geometry/ArcFrame.h"
#include "recon/operator/cuda/DeviceArrayOps.cuh"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/cuda/EtDeviceProjector.h"
#include "recon/projector/sf/SeparableFootprintProjector.h"
#include "recon/projector/sf/cuda/GpuSf.h"
#include "recon/projector/sf/cuda/SfKernels.cuh"

namespace tomowb::cuda {

namespace {

using sfgpu::SfGpuShape;
using sfgpu::SfGpuView;

constexpr const char* kWho = "separable-footprint GPU projector";
// Amplitude-scaled views the transpose holds at once.
constexpr std::uint64_t kScaledBytes = std::uint64_t{512} << 20;
// Shared memory per block of the atomic forward projector: the tile of detector rows.
constexpr std::size_t kTileBytes = std::size_t{96} * 1024;
// Views per launch (grid dimension y).
constexpr std::int64_t kViewsPerLaunch = 32768;

enum class ForwardKind { Gather, Atomic, WuFessler };

// Footprint records of the Wu-Fessler forward projector's batch of views (kernel 1, the sort).
// At most this much (both lanes together; less where the GPU has less to spare): enough views per
// launch that the accumulate kernel's blocks fill the GPU (a few thousand warps).
constexpr std::uint64_t kRecordBytes = std::uint64_t{4} << 30;

// Bytes per voxel column and view of the Wu-Fessler forward projector's records: keys and values
// twice (the sort's double buffer), weights, lines, width.
std::uint64_t recordBytesPerColumn(int cells, bool trapezoid) {
  return 16 + 4 * std::uint64_t(cells) + (trapezoid ? 48 : 16) + 1;
}
// The Wu-Fessler transpose's transaxial sums h and footprints of a batch of views (at least one
// view's, whatever this says).
constexpr std::uint64_t kTransaxialBytes = std::uint64_t{1} << 30;

// What the kernels need of a problem: the shape, every view's table, the slices each view can
// reach and the widest footprint.
struct SfAnalysis {
  SfGpuShape shape{};
  std::vector<SfGpuView> views;
  std::vector<std::pair<std::int64_t, std::int64_t>> reach;  // slices [first, last] per view
  int capacity = 0;                                          // footprint cells per voxel column
  std::uint64_t recordBudget = 0;  // bytes the Wu-Fessler forward projector's records may take
  double widest = 0;               // in detector columns
};

bool isTrapezoid(const KernelVariant& v) {
  return v.model == "sf-tt";
}

bool amplitudeA1(const GpuRunOptions& gpu) {
  const auto it = gpu.tunables.find("amplitude");
  if (it == gpu.tunables.end() || it->second == "a2") return false;
  if (it->second == "a1") return true;
  throw ParameterError("amplitude", "must be a1 or a2, got '" + it->second + "'");
}

// The table of an arc view (ArcFrame.h; the CPU reference's SfView does the same in world mm).
SfGpuView arcViewTable(const Geometry& geometry, std::int64_t index, const VolumeGrid& grid) {
  const ArcFrame f = arcFrame(geometry, index);
  const Eigen::Vector3d& o = grid.originMm;
  const Eigen::Vector3d& d = grid.voxelSizeMm;
  const Eigen::Vector3d& s = f.source;
  // Offsets from the source along e and n, and the row numerator's linear part, per index.
  auto linear = [&](const Eigen::Vector3d& dir) {
    return std::array<double, 3>{dir.x() * d.x(), dir.y() * d.y(),
                                 dir.x() * (o.x() - s.x()) + dir.y() * (o.y() - s.y())};
  };
  const auto alongE = linear(f.e), alongN = linear(f.n);
  const double cx = 0.5 * double(grid.shape.nx - 1), cy = 0.5 * double(grid.shape.ny - 1);
  const double scale = 1.0 / std::hypot(alongE[0] * cx + alongE[1] * cy + alongE[2],
                                        alongN[0] * cx + alongN[1] * cy + alongN[2]);
  // row = centreRow + (R (v.(X - S)) / r - h0) / |v|: numerator R v.(X - S) / |v| + (centreRow -
  // h0 / |v|) r over the depth r.
  const double k = f.radius / f.rowPitch;
  SfGpuView v{};
  v.arc = 1;
  v.a0 = alongE[0] * scale;
  v.a1 = alongE[1] * scale;
  v.a3 = alongE[2] * scale;
  v.d0 = alongN[0] * scale;
  v.d1 = alongN[1] * scale;
  v.d3 = alongN[2] * scale;
  v.r0 = k * f.v.x() * d.x() * scale;
  v.r1 = k * f.v.y() * d.y() * scale;
  v.r2 = k * f.v.z() * d.z() * scale;
  v.r3 = k * f.v.dot(o - s) * scale;
  v.r4 = f.centreRow - f.axialOffset / f.rowPitch;
  v.colCentre = f.centreColumn;
  v.colScale = f.radius / f.columnPitch;
  v.sx = (s.x() - o.x()) / d.x();
  v.sy = (s.y() - o.y()) / d.y();
  const Eigen::Vector3d base = f.axialOffset * f.v - f.centreRow * f.rowPitch * f.v;
  const Eigen::Vector3d rowStep = f.rowPitch * f.v;
  v.baseX = float(base.x());
  v.baseY = float(base.y());
  v.baseZ = float(base.z());
  v.uX = float(f.radius * f.n.x());
  v.uY = float(f.radius * f.n.y());
  v.uZ = float(f.radius * f.n.z());
  v.wX = float(f.radius * f.e.x());
  v.wY = float(f.radius * f.e.y());
  v.wZ = float(f.radius * f.e.z());
  v.vX = float(rowStep.x());
  v.vY = float(rowStep.y());
  v.vZ = float(rowStep.z());
  v.angle0 = float(-f.centreColumn * f.columnPitch / f.radius);
  v.angleStep = float(f.columnPitch / f.radius);
  return v;
}

SfGpuView viewTable(const Geometry& geometry, std::int64_t index, const VolumeGrid& grid) {
  const View& view = geometry.view(index);
  if (view.surface == DetectorSurface::Cylinder) return arcViewTable(geometry, index, grid);
  const DetectorShape& det = geometry.detector();
  ProjectionMatrix p = geometry.projectionMatrix(index);
  const Eigen::Vector4d centre(view.detectorCentre.x(), view.detectorCentre.y(),
                               view.detectorCentre.z(), 1.0);
  if (p.row(2).dot(centre) < 0) p = -p;
  const Eigen::Vector3d& o = grid.originMm;
  const Eigen::Vector3d& d = grid.voxelSizeMm;
  // Rows of P times the index-to-world map (P[.][2] of the column and depth rows are 0).
  auto row = [&](int r) {
    return std::array<double, 4>{p(r, 0) * d.x(), p(r, 1) * d.y(), p(r, 2) * d.z(),
                                 p(r, 0) * o.x() + p(r, 1) * o.y() + p(r, 2) * o.z() + p(r, 3)};
  };
  const auto col = row(0), rw = row(1), dep = row(2);
  const double cx = 0.5 * double(grid.shape.nx - 1), cy = 0.5 * double(grid.shape.ny - 1);
  const double scale = 1.0 / (dep[0] * cx + dep[1] * cy + dep[3]);
  SfGpuView v{};
  v.a0 = col[0] * scale;
  v.a1 = col[1] * scale;
  v.a3 = col[3] * scale;
  v.d0 = dep[0] * scale;
  v.d1 = dep[1] * scale;
  v.d3 = dep[3] * scale;
  v.r0 = rw[0] * scale;
  v.r1 = rw[1] * scale;
  v.r2 = rw[2] * scale;
  v.r3 = rw[3] * scale;
  v.sx = (view.source.x() - o.x()) / d.x();
  v.sy = (view.source.y() - o.y()) / d.y();
  const Eigen::Vector3d corner = view.detectorCentre - 0.5 * double(det.cols - 1) * view.u -
                                 0.5 * double(det.rows - 1) * view.v - view.source;
  v.baseX = float(corner.x());
  v.baseY = float(corner.y());
  v.baseZ = float(corner.z());
  v.uX = float(view.u.x());
  v.uY = float(view.u.y());
  v.uZ = float(view.u.z());
  v.vX = float(view.v.x());
  v.vY = float(view.v.y());
  v.vZ = float(view.v.z());
  return v;
}

// The footprint width (detector columns) of voxel column (x, y) (index units), as the kernels
// compute it.
double depthAt(const SfGpuView& v, double x, double y) {
  const double n = v.d0 * x + v.d1 * y + v.d3;
  return v.arc ? std::hypot(v.a0 * x + v.a1 * y + v.a3, n) : n;
}

double columnAt(const SfGpuView& v, double x, double y) {
  const double e = v.a0 * x + v.a1 * y + v.a3, n = v.d0 * x + v.d1 * y + v.d3;
  return v.arc ? v.colCentre + v.colScale * std::atan2(e, n) : e / n;
}

double footprintWidth(const SfGpuView& v, double x, double y) {
  double lo = 1e300, hi = -1e300;
  for (int i = 0; i < 4; ++i) {
    const double px = x + ((i & 1) ? 0.5 : -0.5), py = y + ((i & 2) ? 0.5 : -0.5);
    const double t = columnAt(v, px, py);
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  return hi - lo;
}

SfAnalysis analyse(const Geometry& geometry, const VolumeGrid& grid, bool trapezoid, bool a1) {
  SfAnalysis a;
  const VolumeShape& s = grid.shape;
  a.shape = {int(s.nx),
             int(s.ny),
             int(s.nz),
             int(geometry.detector().cols),
             int(geometry.detector().rows),
             float(grid.voxelSizeMm.x()),
             float(grid.voxelSizeMm.y()),
             float(grid.voxelSizeMm.x()),
             float(grid.voxelSizeMm.y()),
             a1 ? 1 : 0,
             trapezoid ? 1 : 0};
  const double nx = double(s.nx), ny = double(s.ny), rows = double(geometry.detector().rows);
  for (std::int64_t i = 0; i < geometry.viewCount(); ++i) {
    const SfGpuView v = viewTable(geometry, i, grid);
    a.views.push_back(v);
    // The widest footprint: the grid's corners, edge midpoints and centre (the nearest voxels to
    // the source are on its boundary), with a margin; the kernels flag a wider one.
    for (const double fx : {0.0, 0.5, 1.0})
      for (const double fy : {0.0, 0.5, 1.0})
        a.widest = std::max(a.widest, footprintWidth(v, fx * (nx - 1), fy * (ny - 1)));
    a.widest = std::max(
        a.widest, footprintWidth(v, std::clamp(v.sx, 0.0, nx - 1), std::clamp(v.sy, 0.0, ny - 1)));
    // The slices a view can reach: rows are affine in z at each xy point; over the grid's square
    // their extremes lie at its corners (flat: a projective map) or, on an arc, where the depth
    // (the distance from the source's axis) is least: the square's point nearest the source.
    std::vector<std::pair<double, double>> points;
    for (const double x : {-0.5, nx - 0.5})
      for (const double y : {-0.5, ny - 0.5}) points.emplace_back(x, y);
    if (v.arc)
      points.emplace_back(std::clamp(v.sx, -0.5, nx - 0.5), std::clamp(v.sy, -0.5, ny - 0.5));
    double lo = 1e300, hi = -1e300;
    for (const auto& [x, y] : points) {
      const double den = depthAt(v, x, y), num = v.r0 * x + v.r1 * y + v.r3 + v.r4 * den;
      const double margin = 1.0 + (trapezoid ? 2.0 : 1.0) * std::abs(v.r2 / den);
      for (const double r : {-0.5 - margin, rows - 0.5 + margin}) {
        const double z = (r * den - num) / v.r2;
        lo = std::min(lo, z);
        hi = std::max(hi, z);
      }
    }
    a.reach.emplace_back(std::int64_t(std::max(-1.0, std::floor(lo) - 1)),
                         std::int64_t(std::min(double(s.nz), std::ceil(hi) + 1)));
  }
  // A trapezoid of width w touches at most floor(w) + 2 cells; 10 % over the sampled widest.
  a.capacity = sfgpu::footprintCapacity(int(std::floor(1.1 * a.widest)) + 2);
  return a;
}

std::optional<std::string> gpuUnsupportedReason(const Geometry& geometry, const VolumeGrid& grid) {
  if (auto why = projector::sfUnsupportedReason(geometry, grid)) return why;
  const SfAnalysis a = analyse(geometry, grid, true, false);
  if (a.capacity == 0)
    return "a voxel's footprint spans " + std::to_string(int(std::ceil(a.widest))) +
           " detector columns, more than the GPU kernels' " +
           std::to_string(sfgpu::kMaxFootprintCells) +
           ": the voxels are much larger than the detector pixels (use a finer grid or the CPU "
           "pair)";
  return std::nullopt;
}

class GpuSfPair final : public op::ProjectorPair {
 public:
  GpuSfPair(const KernelVariant& forward, const KernelVariant& back,
            const op::ProjectorProblem& problem, int device, SfAnalysis analysed, ForwardKind kind,
            int sliceChunk)
      : forward_(forward),
        back_(back),
        problem_(problem),
        device_(device),
        a_(std::move(analysed)),
        kind_(kind),
        wuFesslerBack_(back.name.find("wu-fessler") != std::string::npos),
        sliceChunk_(sliceChunk),
        ops_(device, stream_),
        overflow_(sizeof(int), "separable-footprint overflow flag") {
    allViews_.resize(a_.views.size());
    std::iota(allViews_.begin(), allViews_.end(), std::int64_t{0});
    const std::uint64_t viewBytes = std::uint64_t(a_.shape.rows) * std::uint64_t(a_.shape.cols) * 4;
    chunkViews_ = std::int64_t(
        std::clamp<std::uint64_t>(kScaledBytes / viewBytes, 1, std::uint64_t(a_.views.size())));
    tileRows_ = int(std::clamp<std::size_t>(kTileBytes / (4 * std::size_t(a_.shape.cols)), 1,
                                            std::size_t(a_.shape.rows)));
  }

  const std::string& forwardName() const noexcept override { return forward_.name; }
  const std::string& adjointName() const noexcept override { return back_.name; }
  // Every GPU SF kernel of a model weighs a voxel-cell pair with the same device functions, so any
  // forward projector and backprojector of one model are each other's transpose to float32
  // rounding (GpuSfTest's adjoint test runs every combination).
  bool matched() const noexcept override { return forward_.model == back_.model; }
  std::string device() const override {
    return ops_.describe() + ", resident (" + forward_.name + " + " + back_.name + ")";
  }
  const op::ArrayOps& ops() const noexcept override { return ops_; }
  const op::ProjectorProblem& problem() const noexcept override { return problem_; }

  std::unique_ptr<op::Array> makeVolume() const override {
    select();
    return std::make_unique<DeviceArray>(voxels(), stream_, "a volume on the GPU");
  }
  std::unique_ptr<op::Array> makeProjections() const override {
    select();
    return std::make_unique<DeviceArray>(pixels(), stream_, "projections on the GPU");
  }
  std::unique_ptr<const op::Array> useVolume(const Volume& volume) const override {
    if (volume.shape() != problem_.grid.shape)
      throw ParameterError("volume", "its shape differs from the reconstruction grid's");
    std::unique_ptr<op::Array> a = makeVolume();
    ops_.upload(volume.voxels(), *a);
    return a;
  }
  std::unique_ptr<const op::Array> useProjections(const ProjectionStack& stack) const override {
    if (stack.viewCount() != std::int64_t(a_.views.size()) || stack.rows() != a_.shape.rows ||
        stack.cols() != a_.shape.cols)
      throw ParameterError("projections", "their shape differs from the geometry's");
    std::unique_ptr<op::Array> a = makeProjections();
    ops_.upload(stack.pixels(), *a);
    return a;
  }
  Volume takeVolume(std::unique_ptr<op::Array> volume) const override {
    Volume out = problem_.grid.makeVolume();
    ops_.download(*volume, out.voxels());
    return out;
  }

  void forward(const op::Array& volume, op::Array& projections, std::span<const std::int64_t> views,
               JobContext& context) override {
    std::lock_guard guard = enter(volume, projections, context);
    const CallPlan& plan = planFor(views);
    clearOverflow();
    if (kind_ == ForwardKind::Atomic) {
      forwardAtomic(volume, projections, plan);
      finish("forward projection");
      return;
    }
    if (!zFirst_.bytes()) zFirst_ = DeviceMemory(voxels() * 4, "a z-first copy of the volume");
    sfgpu::launchTransposeToZFirst(volume.data(), zFirst_.as<float>(), a_.shape, stream_);
    const float* source = zFirst_.as<float>();
    const std::int64_t count = std::int64_t(plan.list.size());
    if (kind_ == ForwardKind::WuFessler) {
      forwardWuFessler(source, projections, plan, context);
      finish("forward projection");
      return;
    }
    for (std::int64_t first = 0; first < count; first += kViewsPerLaunch) {
      const int n = int(std::min(kViewsPerLaunch, count - first));
      const SfGpuView* v = plan.views.as<SfGpuView>() + first;
      const std::int64_t* out = plan.viewIndex.as<std::int64_t>() + first;
      sfgpu::launchForwardGather(source, v, out, n, a_.shape, nullptr, projections.data(),
                                 overflow_.as<int>(), stream_);
    }
    finish("forward projection");
  }

  void adjoint(const op::Array& projections, op::Array& volume, std::span<const std::int64_t> views,
               JobContext& context) override {
    std::lock_guard guard = enter(volume, projections, context);
    const CallPlan& plan = planFor(views);
    clearOverflow();
    if (!scaled_.bytes())
      scaled_ = DeviceMemory(
          std::size_t(chunkViews_) * std::size_t(a_.shape.rows) * std::size_t(a_.shape.cols) * 4,
          "amplitude-scaled views");
    if (wuFesslerBack_) {
      adjointWuFessler(projections, volume, plan, context);
      finish("backprojection");
      return;
    }
    for (const ViewChunk& chunk : plan.chunks) {
      context.throwIfCancelled();
      sfgpu::launchScaleCells(projections.data(), plan.viewIndex.as<std::int64_t>() + chunk.first,
                              plan.views.as<SfGpuView>() + chunk.first, int(chunk.count), a_.shape,
                              scaled_.as<float>(), stream_);
      sfgpu::launchBackGather(scaled_.as<float>(), plan.views.as<SfGpuView>() + chunk.first,
                              chunk.start.as<std::int32_t>(), chunk.list.as<std::int32_t>(),
                              a_.shape, a_.capacity, sliceChunk_, volume.data(),
                              overflow_.as<int>(), stream_);
    }
    finish("backprojection");
  }

  op::ViewSelection select(std::span<const std::int64_t> views) const noexcept override {
    return {views, std::int64_t(a_.views.size()), std::int64_t(a_.shape.rows) * a_.shape.cols};
  }

 private:
  // Views [first, first + count) of a call's list and, per chunk of slices, the ones (indices
  // from `first`) that reach it.
  struct ViewChunk {
    std::int64_t first = 0, count = 0;
    DeviceMemory start, list;
  };
  struct CallPlan {
    std::vector<std::int64_t> list;
    DeviceMemory views, viewIndex;
    std::vector<ViewChunk> chunks;
    // The atomic forward projector's two groups: views whose detector column changes faster
    // along x (run on the volume as it is) and along y (on the x-y swapped copy).
    std::int64_t groupCount[2] = {0, 0};
    DeviceMemory groupViews[2], groupIndex[2];
  };

  void forwardAtomic(const op::Array& volume, op::Array& projections, const CallPlan& plan) {
    for (int g = 0; g < 2; ++g) {
      if (plan.groupCount[g] == 0) continue;
      const float* source = volume.data();
      SfGpuShape shape = a_.shape;
      if (g == 1) {
        if (!swapped_.bytes()) swapped_ = DeviceMemory(voxels() * 4, "an x-y swapped volume");
        sfgpu::launchTransposeXy(volume.data(), swapped_.as<float>(), a_.shape, stream_);
        source = swapped_.as<float>();
        std::swap(shape.nx, shape.ny);
        std::swap(shape.voxelX, shape.voxelY);
      }
      for (std::int64_t first = 0; first < plan.groupCount[g]; first += kViewsPerLaunch)
        sfgpu::launchForwardAtomic(source, plan.groupViews[g].as<SfGpuView>() + first,
                                   plan.groupIndex[g].as<std::int64_t>() + first,
                                   int(std::min(kViewsPerLaunch, plan.groupCount[g] - first)),
                                   shape, a_.capacity, tileRows_, projections.data(),
                                   overflow_.as<int>(), stream_);
    }
  }

  // Views per batch of the Wu-Fessler forward projector: its records within the budget.
  std::int64_t wuFesslerBatch() const {
    const std::uint64_t columns = std::uint64_t(a_.shape.nx) * std::uint64_t(a_.shape.ny);
    const std::uint64_t perView = columns * recordBytesPerColumn(a_.capacity, a_.shape.trapezoid);
    const std::uint64_t byInt = std::uint64_t(std::numeric_limits<std::int32_t>::max()) / columns;
    return std::int64_t(std::clamp<std::uint64_t>(std::min(a_.recordBudget / perView, byInt), 1,
                                                  std::max<std::uint64_t>(1, a_.views.size())));
  }

  // Two lanes (the pair's stream and a side stream), each with its own records, take the batches
  // in turn: one batch's kernel 2 (a single wave whose groups finish unevenly) overlaps the next
  // batch's footprints, sort and kernel 2.
  void forwardWuFessler(const float* zFirst, op::Array& projections, const CallPlan& plan,
                        JobContext& context) {
    const std::int64_t count = std::int64_t(plan.list.size());
    const std::int64_t batch = std::max<std::int64_t>(1, std::min(wuFesslerBatch() / 2, count));
    const std::size_t items = std::size_t(batch) * std::size_t(a_.shape.nx) * a_.shape.ny;
    const std::size_t lines = a_.shape.trapezoid ? 6 : 2;
    if (recordItems_ < items) {
      recordSortBytes_ = sfgpu::wuFesslerSortBytes(int(items), 32);
      for (DeviceMemory& lane : records_) {
        lane = DeviceMemory();
        lane = DeviceMemory(items * (16 + 4 * std::size_t(a_.capacity) + 8 * lines + 1) +
                                recordSortBytes_ + std::size_t{8} * 256,
                            "the Wu-Fessler footprint records");
      }
      recordItems_ = items;
    }
    sfgpu::WuFesslerRecords r[2]{};
    for (int lane = 0; lane < 2; ++lane) {
      auto* base = records_[lane].as<unsigned char>();
      std::size_t at = 0;
      auto take = [&](std::size_t bytes) {
        void* p = base + at;
        at += (bytes + 255) / 256 * 256;
        return p;
      };
      r[lane].lines = static_cast<double*>(take(items * 8 * lines));
      r[lane].keys[0] = static_cast<std::uint32_t*>(take(items * 4));
      r[lane].keys[1] = static_cast<std::uint32_t*>(take(items * 4));
      r[lane].values[0] = static_cast<std::int32_t*>(take(items * 4));
      r[lane].values[1] = static_cast<std::int32_t*>(take(items * 4));
      r[lane].weights = static_cast<float*>(take(items * 4 * std::size_t(a_.capacity)));
      r[lane].widths = static_cast<unsigned char*>(take(items));
      r[lane].sortBytes = recordSortBytes_;
      r[lane].sortStorage = take(recordSortBytes_);
    }
    const cudaStream_t streams[2] = {stream_, sideStream_};
    TOMOWB_CUDA_CHECK(cudaEventRecord(forkEvent_, stream_), "separable-footprint forward");
    TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(sideStream_, forkEvent_, 0),
                      "separable-footprint forward");
    int lane = 0;
    for (std::int64_t first = 0; first < count; first += batch, lane ^= 1) {
      context.throwIfCancelled();
      const int n = int(std::min(batch, count - first));
      const SfGpuView* v = plan.views.as<SfGpuView>() + first;
      const std::int64_t* out = plan.viewIndex.as<std::int64_t>() + first;
      sfgpu::launchWuFesslerFootprints(v, n, a_.shape, a_.capacity, r[lane], overflow_.as<int>(),
                                       streams[lane]);
      sfgpu::launchWuFesslerForward(zFirst, v, out, n, a_.shape, a_.capacity, r[lane],
                                    projections.data(), streams[lane]);
    }
    TOMOWB_CUDA_CHECK(cudaEventRecord(joinEvent_, sideStream_), "separable-footprint forward");
    TOMOWB_CUDA_CHECK(cudaStreamWaitEvent(stream_, joinEvent_, 0), "separable-footprint forward");
  }

  // Bytes per voxel column and view of the Wu-Fessler transpose's buffers.
  static std::uint64_t transaxialBytesPerColumn(int cells, bool trapezoid, int rows) {
    return 5 + 4 * std::uint64_t(cells) + (trapezoid ? 48 : 16) + 4 * std::uint64_t(rows);
  }

  void adjointWuFessler(const op::Array& projections, op::Array& volume, const CallPlan& plan,
                        JobContext& context) {
    const std::int64_t count = std::int64_t(plan.list.size());
    const std::uint64_t columns = std::uint64_t(a_.shape.nx) * std::uint64_t(a_.shape.ny);
    const std::uint64_t perView =
        columns * transaxialBytesPerColumn(a_.capacity, a_.shape.trapezoid, a_.shape.rows);
    const std::uint64_t byInt = std::uint64_t(std::numeric_limits<std::int32_t>::max()) / columns;
    const std::int64_t batch = std::int64_t(std::clamp<std::uint64_t>(
        std::min({kTransaxialBytes / perView, byInt, std::uint64_t(chunkViews_)}), 1,
        std::uint64_t(count)));
    const std::size_t items = std::size_t(batch) * columns;
    if (!transaxial_.bytes() || transaxialItems_ < items) {
      transaxial_ = DeviceMemory();
      transaxial_ = DeviceMemory(std::size_t(batch) * perView + std::size_t{8} * 256,
                                 "the Wu-Fessler transpose's footprints and sums");
      transaxialItems_ = items;
    }
    auto* base = transaxial_.as<unsigned char>();
    std::size_t at = 0;
    auto take = [&](std::size_t bytes) {
      void* p = base + at;
      at += (bytes + 255) / 256 * 256;
      return p;
    };
    sfgpu::WuFesslerBackBuffers b{};
    b.lines = static_cast<double*>(take(items * 8 * (a_.shape.trapezoid ? 6 : 2)));
    b.h = static_cast<float*>(take(items * 4 * std::size_t(a_.shape.rows)));
    b.weights = static_cast<float*>(take(items * 4 * std::size_t(a_.capacity)));
    b.firsts = static_cast<std::int32_t*>(take(items * 4));
    b.widths = static_cast<unsigned char*>(take(items));
    for (std::int64_t first = 0; first < count; first += batch) {
      context.throwIfCancelled();
      const int n = int(std::min(batch, count - first));
      std::int64_t lo = a_.shape.nz, hi = -1;
      for (std::int64_t k = first; k < first + n; ++k) {
        const auto [from, to] = a_.reach[std::size_t(plan.list[std::size_t(k)])];
        lo = std::min(lo, std::max<std::int64_t>(from, 0));
        hi = std::max(hi, std::min<std::int64_t>(to, a_.shape.nz - 1));
      }
      if (hi < lo) continue;
      sfgpu::launchScaleCells(projections.data(), plan.viewIndex.as<std::int64_t>() + first,
                              plan.views.as<SfGpuView>() + first, n, a_.shape, scaled_.as<float>(),
                              stream_);
      sfgpu::launchWuFesslerBack(scaled_.as<float>(), plan.views.as<SfGpuView>() + first, n,
                                 a_.shape, a_.capacity, sliceChunk_, int(lo), int(hi), b,
                                 volume.data(), overflow_.as<int>(), stream_);
    }
  }

  std::size_t voxels() const { return std::size_t(problem_.grid.shape.voxelCount()); }
  std::size_t pixels() const {
    return a_.views.size() * std::size_t(a_.shape.rows) * std::size_t(a_.shape.cols);
  }
  void select() const { TOMOWB_CUDA_CHECK(cudaSetDevice(device_), "selecting the GPU"); }
  std::lock_guard<std::mutex> enter(const op::Array& volume, const op::Array& projections,
                                    JobContext& context) const {
    context.throwIfCancelled();
    requireDevice(volume, voxels(), "volume");
    requireDevice(projections, pixels(), "projections");
    select();
    return std::lock_guard<std::mutex>(etgpu::deviceLock(device_));
  }
  static void requireDevice(const op::Array& a, std::size_t size, const char* what) {
    if (a.space() != op::MemorySpace::Device || a.size() != size)
      throw ParameterError(what, "not an array of this GPU pair");
  }
  void clearOverflow() {
    TOMOWB_CUDA_CHECK(cudaMemsetAsync(overflow_.as<int>(), 0, sizeof(int), stream_),
                      "separable-footprint overflow flag");
  }
  void finish(const char* what) {
    int overflow = 0;
    copyNow(&overflow, overflow_.as<int>(), sizeof overflow, cudaMemcpyDeviceToHost, stream_, what);
    if (overflow)
      throw std::logic_error(std::string(kWho) + ": " + what +
                             (overflow & 2 ? ": a detector column's voxel list overflowed"
                                           : ": a footprint wider than the kernels' capacity of " +
                                                 std::to_string(a_.capacity) + " columns"));
  }

  template <typename T>
  DeviceMemory upload(const std::vector<T>& host, const char* what) {
    DeviceMemory d(host.size() * sizeof(T), what);
    copyNow(d.as<void>(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream_,
            what);
    return d;
  }

  const CallPlan& planFor(std::span<const std::int64_t> views) {
    std::vector<std::int64_t> key =
        views.empty() ? allViews_ : projector::checkedViewList(*problem_.geometry, views);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    CallPlan plan;
    plan.list = key;
    std::vector<SfGpuView> tables;
    tables.reserve(key.size());
    for (const std::int64_t v : key) tables.push_back(a_.views[std::size_t(v)]);
    plan.views = upload(tables, "separable-footprint view tables");
    plan.viewIndex = upload(key, "separable-footprint view list");
    if (kind_ == ForwardKind::Atomic) {
      std::vector<SfGpuView> groupTables[2];
      std::vector<std::int64_t> groupViews[2];
      for (const std::int64_t v : key) {
        const SfGpuView& t = a_.views[std::size_t(v)];
        const bool swap = alongY(t);
        groupTables[swap].push_back(swap ? swapped(t) : t);
        groupViews[swap].push_back(v);
      }
      for (int g = 0; g < 2; ++g) {
        plan.groupCount[g] = std::int64_t(groupViews[g].size());
        if (groupViews[g].empty()) continue;
        plan.groupViews[g] = upload(groupTables[g], "separable-footprint view tables");
        plan.groupIndex[g] = upload(groupViews[g], "separable-footprint view list");
      }
    }
    for (std::int64_t first = 0; first < std::int64_t(key.size()); first += chunkViews_)
      plan.chunks.push_back(
          viewChunk(key, first, std::min(chunkViews_, std::int64_t(key.size()) - first)));
    return plans_.emplace(std::move(key), std::move(plan)).first->second;
  }

  // Views [first, first + count) of a list, and per chunk of slices the ones that reach it.
  ViewChunk viewChunk(const std::vector<std::int64_t>& list, std::int64_t first,
                      std::int64_t count) {
    ViewChunk c;
    c.first = first;
    c.count = count;
    const std::int64_t chunks = (a_.shape.nz + sliceChunk_ - 1) / sliceChunk_;
    std::vector<std::int32_t> start{0}, reaching;
    for (std::int64_t z = 0; z < chunks; ++z) {
      const std::int64_t z0 = z * sliceChunk_, z1 = z0 + sliceChunk_ - 1;
      for (std::int64_t k = 0; k < count; ++k) {
        const auto [lo, hi] = a_.reach[std::size_t(list[std::size_t(first + k)])];
        if (hi >= z0 && lo <= z1) reaching.push_back(std::int32_t(k));
      }
      start.push_back(std::int32_t(reaching.size()));
    }
    if (reaching.empty()) reaching.push_back(0);
    c.start = upload(start, "separable-footprint view chunks");
    c.list = upload(reaching, "separable-footprint view chunks");
    return c;
  }

  const KernelVariant& forward_;
  const KernelVariant& back_;
  op::ProjectorProblem problem_;
  int device_;
  SfAnalysis a_;
  ForwardKind kind_;
  bool wuFesslerBack_;
  int sliceChunk_;
  Stream stream_;
  DeviceArrayOps ops_;
  // Whether a view's detector column changes faster along y than along x at the grid's centre.
  bool alongY(const SfGpuView& v) const {
    const double x = 0.5 * double(a_.shape.nx - 1), y = 0.5 * double(a_.shape.ny - 1);
    // Flat: the quotient's derivatives; arc: the fan angle's (atan2(e, n)), of the same form.
    const double c = (v.a0 * x + v.a1 * y + v.a3) / (v.d0 * x + v.d1 * y + v.d3);
    return std::abs(v.a1 - c * v.d1) > std::abs(v.a0 - c * v.d0);
  }
  // The table of a view for the x-y swapped volume.
  static SfGpuView swapped(SfGpuView v) {
    std::swap(v.a0, v.a1);
    std::swap(v.d0, v.d1);
    std::swap(v.r0, v.r1);
    std::swap(v.sx, v.sy);
    return v;
  }

  DeviceMemory overflow_, zFirst_, scaled_, swapped_, transaxial_;
  DeviceMemory records_[2];
  Stream sideStream_;
  Event forkEvent_, joinEvent_;
  std::size_t recordItems_ = 0, recordSortBytes_ = 0, transaxialItems_ = 0;
  std::int64_t chunkViews_ = 1;
  int tileRows_ = 1;
  std::vector<std::int64_t> allViews_;
  std::map<std::vector<std::int64_t>, CallPlan> plans_;
};

bool isGpuSf(const KernelVariant& v) {
  return v.needsGpu && (v.model == "sf-tr" || v.model == "sf-tt") && v.name.rfind("sf.", 0) == 0;
}

// The host entries' partner: a forward projector's backprojector of its model, or the forward
// projector a backprojector is the transpose of.
const KernelVariant& partnerOf(const KernelVariant& v) {
  for (const KernelVariant& other : VariantRegistry::builtins().all()) {
    if (!isGpuSf(other) || other.model != v.model) continue;
    if (v.role == VariantRole::ForwardProjector && other.role == VariantRole::Backprojector)
      return other;
    if (v.role == VariantRole::Backprojector && other.name == v.adjointOf) return other;
  }
  throw ParameterError(v.name, "no GPU separable-footprint partner of model " + v.model);
}

void forwardOnGpu(const KernelVariant& variant, const Volume& volume, ProjectionStack& projections,
                  std::span<const std::int64_t> views, JobContext& context) {
  const op::ProjectorProblem problem{&projections.geometry(), VolumeGrid::of(volume), {}};
  std::string why;
  std::unique_ptr<op::ProjectorPair> pair =
      bindGpuSfPair(variant, partnerOf(variant), problem, why);
  if (!pair) throw ParameterError(variant.name, why);
  std::unique_ptr<const op::Array> x = pair->useVolume(volume);
  std::unique_ptr<op::Array> p = pair->makeProjections();
  pair->forward(*x, *p, views, context);
  std::vector<float> all(p->size());
  pair->ops().download(*p, all);
  const std::size_t perView = std::size_t(projections.rows() * projections.cols());
  for (const std::int64_t v : projector::checkedViewList(projections.geometry(), views))
    std::copy_n(all.begin() + std::ptrdiff_t(std::size_t(v) * perView), perView,
                projections.data() + std::size_t(v) * perView);
}

void backprojectOnGpu(const KernelVariant& variant, const ProjectionStack& projections,
                      Volume& volume, std::span<const std::int64_t> views, JobContext& context) {
  const op::ProjectorProblem problem{&projections.geometry(), VolumeGrid::of(volume), {}};
  std::string why;
  std::unique_ptr<op::ProjectorPair> pair =
      bindGpuSfPair(partnerOf(variant), variant, problem, why);
  if (!pair) throw ParameterError(variant.name, why);
  std::unique_ptr<const op::Array> y = pair->useProjections(projections);
  std::unique_ptr<op::Array> b = pair->makeVolume();
  pair->adjoint(*y, *b, views, context);
  std::vector<float> sum(b->size());
  pair->ops().download(*b, sum);
  float* out = volume.data();
  for (std::size_t i = 0; i < sum.size(); ++i) out[i] += sum[i];
}

KernelVariant gpuSfVariant(std::string name, VariantRole role, std::string model,
                           std::string description, std::string adjointOf) {
  KernelVariant v;
  v.name = std::move(name);
  v.role = role;
  v.model = std::move(model);
  v.description = std::move(description);
  v.adjointOf = std::move(adjointOf);
  v.needsGpu = true;
  v.tunables = {{"amplitude", "a2",
                 "a2: l_phi0 of the voxel centre's ray times 1/cos(theta) of the cell's ray (Wu "
                 "and Fessler); a1: both from the cell's ray"}};
  if (role == VariantRole::Backprojector)
    v.tunables.push_back({"slices", "16", "slices per thread of the transpose (8 or 16)"});
  v.supports = gpuUnsupportedReason;
  v.bindDevicePair = bindGpuSfPair;
  if (role == VariantRole::ForwardProjector)
    v.forwardProject = [name = v.name](const Volume& volume, ProjectionStack& projections,
                                       std::span<const std::int64_t> views, JobContext& context) {
      forwardOnGpu(VariantRegistry::builtins().require(name), volume, projections, views, context);
    };
  else
    v.backprojectViews = [name = v.name](const ProjectionStack& projections, Volume& volume,
                                         std::span<const std::int64_t> views, JobContext& context) {
      backprojectOnGpu(VariantRegistry::builtins().require(name), projections, volume, views,
                       context);
    };
  return v;
}

}  // namespace

std::unique_ptr<op::ProjectorPair> bindGpuSfPair(const KernelVariant& forward,
                                                 const KernelVariant& back,
                                                 const op::ProjectorProblem& problem,
                                                 std::string& why) {
  if (!isGpuSf(forward) || !isGpuSf(back) || forward.model != back.model) {
    why = "the pair is not two GPU separable-footprint projectors of one model";
    return nullptr;
  }
  if (auto reason = gpuUnsupportedReason(*problem.geometry, problem.grid))
    throw ParameterError(kWho, *reason);
  const std::vector<int> devices = devicesToUse(problem.gpu.devices);
  const int device = devices.front();
  SfAnalysis a =
      analyse(*problem.geometry, problem.grid, isTrapezoid(forward), amplitudeA1(problem.gpu));
  const ForwardKind kind = forward.name.find("atomic") != std::string::npos ? ForwardKind::Atomic
                           : forward.name.find("wu-fessler") != std::string::npos
                               ? ForwardKind::WuFessler
                               : ForwardKind::Gather;
  const int slices = tunableInt(problem.gpu.tunables, "slices", 16, 8, 16);
  if (slices != 8 && slices != 16)
    throw ParameterError("slices", "must be 8 or 16, got " + std::to_string(slices));
  // The pair's scratch (a z-first or x-y swapped volume, the scaled views) and what a solver keeps
  // beside it: six volumes and three projection stacks, as for the ET pair.
  const std::uint64_t volume = std::uint64_t(problem.grid.shape.voxelCount()) * 4;
  const std::uint64_t viewBytes = std::uint64_t(a.shape.rows) * std::uint64_t(a.shape.cols) * 4;
  const std::uint64_t stack = viewBytes * a.views.size();
  const std::uint64_t oneViewTransaxial =
      std::uint64_t(a.shape.nx) * std::uint64_t(a.shape.ny) *
      (4 * std::uint64_t(a.shape.rows) + 4 * std::uint64_t(a.capacity) + 53);
  const std::uint64_t transaxial = back.name.find("wu-fessler") != std::string::npos
                                       ? std::max(kTransaxialBytes, oneViewTransaxial)
                                       : 0;
  std::uint64_t needed = 7 * volume + 3 * stack + std::min(kScaledBytes, stack) + transaxial +
                         (std::uint64_t{64} << 20);
  const std::uint64_t usable = etgpu::usableBytes({device}, problem.gpu.memoryLimitBytes);
  if (kind == ForwardKind::WuFessler) {
    // The records take what is left, up to kRecordBytes, at least two views' (one per lane) with
    // the sort's scratch.
    const std::uint64_t oneView = std::uint64_t(a.shape.nx) * std::uint64_t(a.shape.ny) *
                                  recordBytesPerColumn(a.capacity, a.shape.trapezoid);
    const std::uint64_t least = 3 * oneView;
    a.recordBudget = std::clamp<std::uint64_t>(usable > needed ? usable - needed : 0, least,
                                               std::max(least, kRecordBytes));
    needed += a.recordBudget;
  }
  if (needed > usable) {
    why = "the pair and a solver's arrays need " + formatBytes(needed) + ", GPU " +
          std::to_string(device) + " has " + formatBytes(usable) + " usable";
    return nullptr;
  }
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  return std::make_unique<GpuSfPair>(forward, back, problem, device, std::move(a), kind, slices);
}

void registerGpuSfVariants(VariantRegistry& registry) {
  constexpr VariantRole kFp = VariantRole::ForwardProjector;
  constexpr VariantRole kBp = VariantRole::Backprojector;
  for (const auto& [suffix, model, label] :
       {std::tuple<std::string, std::string, std::string>{"", "sf-tr", "SF-TR"},
        {"-tt", "sf-tt", "SF-TT"}}) {
    registry.add(gpuSfVariant(
        "sf.fp.gather" + suffix, kFp, model,
        "GPU " + label +
            " forward projector, gather: a block per detector column lists the voxel columns its "
            "band meets, a thread per row sums them; deterministic",
        ""));
    registry.add(gpuSfVariant(
        "sf.fp.atomic" + suffix, kFp, model,
        "GPU " + label +
            " forward projector, scatter: a thread per voxel column adds into a shared-memory "
            "tile of rows (atomicAdd: float order varies, about 1e-7 relative)",
        ""));
    registry.add(gpuSfVariant(
        "sf.fp.wu-fessler" + suffix, kFp, model,
        "GPU " + label +
            " forward projector, Wu and Fessler's scheme: voxel columns grouped by their first "
            "detector column (a radix sort on the GPU), a thread per row sums each column over z "
            "once and spreads it over the footprint; deterministic",
        ""));
    registry.add(gpuSfVariant(
        "sf.bp.gather" + suffix, kBp, model,
        "GPU exact transpose of sf.fp.wu-fessler" + suffix +
            " (and of the model's other GPU forward projectors, which compute the same weights): "
            "a thread per voxel column and chunk of slices gathers every view; deterministic",
        "sf.fp.wu-fessler" + suffix));
    registry.add(gpuSfVariant(
        "sf.bp.wu-fessler" + suffix, kBp, model,
        "GPU exact transpose of sf.fp.wu-fessler" + suffix +
            ", Wu and Fessler's three kernels: footprints, the transaxial sums h per voxel column "
            "and row, their spread over the slices (a thread per voxel column); deterministic",
        "sf.fp.wu-fessler" + suffix));
  }
}

}  // namespace tomowb::cuda

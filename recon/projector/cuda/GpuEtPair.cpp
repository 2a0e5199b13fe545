// The GPU parallel-beam projector pair, resident on one device (GpuEt.h, bindGpuEtPair): the
// volume and the projections stay in device memory between calls, so a solver written over the
// projector-pair interface (CGLS, the ordered-subset solver) runs without a host copy per
// iteration. Aligned single-axis problems hold the slices the detector rows see as one slab
// ([view][slice][col] projections); general 3-D problems the whole volume ([view][row][col]).
#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/operator/cuda/DeviceArrayOps.cuh"
#include "recon/projector/cuda/EtDeviceProjector.h"
#include "recon/projector/cuda/GpuEt.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cuda {

namespace {

using namespace etgpu;  // NOLINT(google-build-using-namespace): the device projector's internals

class GpuEtPair final : public op::ProjectorPair {
 public:
  GpuEtPair(const KernelVariant& forward, const KernelVariant& back,
            const op::ProjectorProblem& problem, int device, EtProblem analysed,
            ForwardSpec forwardSpec, BackSpec backSpec)
      : forward_(forward),
        back_(back),
        problem_(problem),
        device_(device),
        p_(std::move(analysed)),
        fpSpec_(std::move(forwardSpec)),
        bpSpec_(std::move(backSpec)),
        ops_(device, stream_) {
    TOMOWB_CUDA_CHECK(cudaSetDevice(device_), "selecting the GPU");
    slices_ = p_.singleAxis() ? p_.axis.sliceCount : p_.shape.nz;
    firstSlice_ = p_.singleAxis() ? p_.axis.firstSlice : 0;
    rowsHeld_ = p_.singleAxis() ? p_.axis.sliceCount : p_.rows;
    dims_ = p_.singleAxis() ? sliceDims(p_, slices_) : volumeDims(p_);
    projector_ = std::make_unique<DeviceProjector>(p_, fpSpec_, bpSpec_, slices_);
    allViews_.resize(std::size_t(p_.views));
    std::iota(allViews_.begin(), allViews_.end(), std::int64_t{0});
  }

  const std::string& forwardName() const noexcept override { return forward_.name; }
  const std::string& adjointName() const noexcept override { return back_.name; }
  bool matched() const noexcept override { return back_.adjointOf == forward_.name; }
  std::string device() const override {
    return ops_.describe() + ", resident (" + projector_->forwardLabel() + " + " +
           projector_->backLabel() + ")";
  }
  const op::ArrayOps& ops() const noexcept override { return ops_; }
  const op::ProjectorProblem& problem() const noexcept override { return problem_; }

  std::unique_ptr<op::Array> makeVolume() const override {
    select();
    return std::make_unique<DeviceArray>(std::size_t(p_.shape.voxelCount()), stream_,
                                         "a volume on the GPU");
  }
  std::unique_ptr<op::Array> makeProjections() const override {
    select();
    return std::make_unique<DeviceArray>(projectionCount(), stream_, "projections on the GPU");
  }
  std::unique_ptr<const op::Array> useVolume(const Volume& volume) const override {
    if (volume.shape() != p_.shape)
      throw ParameterError("volume", "its shape differs from the reconstruction grid's");
    std::unique_ptr<op::Array> a = makeVolume();
    ops_.upload(volume.voxels(), *a);
    return a;
  }
  std::unique_ptr<const op::Array> useProjections(const ProjectionStack& stack) const override {
    if (stack.viewCount() != p_.views || stack.rows() != p_.rows || stack.cols() != p_.cols)
      throw ParameterError("projections", "their shape differs from the geometry's");
    std::unique_ptr<op::Array> a = makeProjections();
    if (p_.singleAxis()) {
      uploadSliceRows(p_, stack.data(), firstSlice_, slices_, a->data(), stream_);
      TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream_), "uploading projections");
    } else {
      ops_.upload(stack.pixels(), *a);
    }
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
    const ViewTable& table = tableFor(views, true);
    et::FpEpilogue e;
    e.out = projections.data();
    projector_->forward(volume.data() + slabOffset(), dims_, table, e, stream_);
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream_), "forward projection");
  }

  void adjoint(const op::Array& projections, op::Array& volume, std::span<const std::int64_t> views,
               JobContext& context) override {
    std::lock_guard guard = enter(volume, projections, context);
    const ViewTable& table = tableFor(views, false);
    float* partial = nullptr;
    if (DeviceProjector::needsPartial(p_, table.count)) {
      if (!partial_.bytes())
        partial_ = DeviceMemory(std::size_t(slices_ * p_.slice2d()) * 4, "partial sums");
      partial = partial_.as<float>();
    }
    et::BpEpilogue e;
    e.volume = volume.data() + slabOffset();
    projector_->backproject(projections.data(), dims_, table, e, partial, stream_);
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream_), "backprojection");
  }

  op::ViewSelection select(std::span<const std::int64_t> views) const noexcept override {
    return {views, p_.views, rowsHeld_ * p_.cols};
  }

 private:
  void select() const { TOMOWB_CUDA_CHECK(cudaSetDevice(device_), "selecting the GPU"); }
  // Before a projection: the cancel check, the arrays' check, the device and its lock.
  std::lock_guard<std::mutex> enter(const op::Array& volume, const op::Array& projections,
                                    JobContext& context) const {
    context.throwIfCancelled();
    requireDevice(volume, p_.shape.voxelCount(), "volume");
    requireDevice(projections, std::int64_t(projectionCount()), "projections");
    select();
    return std::lock_guard<std::mutex>(deviceLock(device_));
  }
  std::size_t projectionCount() const {
    return std::size_t(p_.views) * std::size_t(rowsHeld_) * std::size_t(p_.cols);
  }
  std::size_t slabOffset() const { return std::size_t(firstSlice_ * p_.slice2d()); }
  static void requireDevice(const op::Array& a, std::int64_t size, const char* what) {
    if (a.space() != op::MemorySpace::Device || a.size() != std::size_t(size))
      throw ParameterError(what, "not an array of this GPU pair");
  }
  // The view table of a view list (every view if empty), built once per list.
  const ViewTable& tableFor(std::span<const std::int64_t> views, bool forward) {
    std::vector<std::int64_t> key =
        views.empty() ? allViews_ : projector::checkedViewList(*problem_.geometry, views);
    auto& cache = forward ? forwardTables_ : backTables_;
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache
               .emplace(key,
                        makeViewTable(p_, key, stream_, forward && fpSpec_.kind == FpKind::Fast))
               .first;
    return it->second;
  }

  const KernelVariant& forward_;
  const KernelVariant& back_;
  op::ProjectorProblem problem_;
  int device_;
  EtProblem p_;
  ForwardSpec fpSpec_;
  BackSpec bpSpec_;
  Stream stream_;
  DeviceArrayOps ops_;
  std::unique_ptr<DeviceProjector> projector_;
  std::int64_t slices_ = 0, firstSlice_ = 0, rowsHeld_ = 0;
  et::SlabDims dims_;
  std::vector<std::int64_t> allViews_;
  std::map<std::vector<std::int64_t>, ViewTable> forwardTables_, backTables_;
  DeviceMemory partial_;
};

}  // namespace

std::unique_ptr<op::ProjectorPair> bindGpuEtPair(const KernelVariant& forward,
                                                 const KernelVariant& back,
                                                 const op::ProjectorProblem& problem,
                                                 std::string& why) {
  if (!forward.needsGpu || !back.needsGpu) {
    why = "one of the pair runs on the CPU";
    return nullptr;
  }
  const std::vector<int> devices = devicesToUse(problem.gpu.devices);
  const int device = devices.front();
  const VolumeGrid& grid = problem.grid;
  EtProblem p = analyseProblem(*problem.geometry, grid.shape, grid.voxelSizeMm, grid.originMm);
  ForwardSpec fp = forwardSpecFor(forward.name, problem.gpu.tunables);
  BackSpec bp = backSpecFor(back.name, problem.gpu.tunables);
  const std::int64_t slices = p.singleAxis() ? p.axis.sliceCount : p.shape.nz;
  if (p.singleAxis()) {
    std::int64_t cap = slices;
    if (forwardUsesTexture(fp)) cap = std::min(cap, kMaxLayers * et::texelSlices(fp.texel));
    if (backUsesTexture(bp)) cap = std::min(cap, kMaxLayers * et::texelSlices(bp.texel));
    if (cap < slices) {
      why = std::to_string(slices) + " slices exceed the layered textures' " + std::to_string(cap);
      return nullptr;
    }
  } else if (p.shape.nz > 16384 || p.shape.nx > 16384 || p.shape.ny > 16384) {
    why = "the volume exceeds a 3-D texture (16384 per side)";
    return nullptr;
  }
  // The pair's textures and partial sums, and what a solver keeps beside them: five volumes and
  // three projection stacks (SIRT: the iterate, its update, the column weights, ones; CGLS: x, s,
  // p; the data, the row weights and the residual).
  const std::uint64_t volume = std::uint64_t(p.shape.voxelCount()) * 4;
  const std::uint64_t stack = std::uint64_t(p.views) *
                              std::uint64_t(p.singleAxis() ? slices : p.rows) *
                              std::uint64_t(p.cols) * 4;
  const std::uint64_t needed = DeviceProjector::bytesFor(p, fp, bp, slices) + 6 * volume +
                               3 * stack + (std::uint64_t{64} << 20);
  const std::uint64_t usable = usableBytes({device}, problem.gpu.memoryLimitBytes);
  if (needed > usable) {
    why = "the pair and a solver's arrays need " + formatBytes(needed) + ", GPU " +
          std::to_string(device) + " has " + formatBytes(usable) + " usable";
    return nullptr;
  }
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");  // the pair's stream lives there
  return std::make_unique<GpuEtPair>(forward, back, problem, device, std::move(p), std::move(fp),
                                     std::move(bp));
}

}  // namespace tomowb::cuda

// One device's buffers of the GPU FDK pipeline (GpuFdk.cpp): the kernel's input (KernelInput:
// a chunk's filtered views in the form the kernel's row reads, GpuFdkInput, and the batched
// launch through the row's function), the cuFFT ramp filter of a chunk's rows (RowFilter), the
// small pinned double buffer for projections in pageable memory (PinnedStaging) and the texture
// arrays they use. Moved out of GpuFdk.cpp unchanged (issue #18, point 5); included by it only.
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "recon/core/Error.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/fdk/GpuFdkKernelTable.h"
#include "recon/fdk/cuda/FdkBatch.h"
#include "recon/fdk/cuda/FdkKernels.cuh"
#include "recon/fdk/cuda/FftPlanPool.h"

namespace tomowb::cuda::fdkgpu {

using kernels::TaskShape;
using kernels::ViewMatrix;

// The tunables every kernel reads (each row lists the ones that matter to it).
struct KernelSpec {
  int viewsPerLaunch = fdk::kGpuFdkDefaultViewsPerLaunch;  // tex-multi's K
  int zPerThread = 8;                                      // slab, soft-mirror
};

// TOMOWB_FDK_PIPELINE=uniform: the pipeline as it was before its ends overlapped (issue #22):
// equal chunks, each task's slab downloaded after its last chunk, cuFFT plans made per run and
// destroyed after it, the view matrices copied into constant memory per chunk. For A/B runs of
// the benchmark on one machine.
inline bool uniformPipeline() {
  static const bool uniform = [] {
    const char* text = std::getenv("TOMOWB_FDK_PIPELINE");  // NOLINT(concurrency-mt-unsafe)
    return text != nullptr && std::string(text) == "uniform";
  }();
  return uniform;
}

// ---- small RAII helpers ----------------------------------------------------------------------

inline void checkFft(cufftResult status, const char* call, const char* what) {
  if (status != CUFFT_SUCCESS)
    throw CudaError(std::string(what) + ": " + call + " failed with cuFFT status " +
                    std::to_string(int(status)));
}

// A (layered) CUDA array with a texture object: linear filtering, border zero, unnormalised.
class TextureArray {
 public:
  TextureArray() = default;
  TextureArray(int width, int height, int layers, cudaChannelFormatDesc desc, bool layered) {
    const cudaExtent extent =
        make_cudaExtent(size_t(width), size_t(height), layered ? size_t(layers) : 0);
    TOMOWB_CUDA_CHECK(
        cudaMalloc3DArray(&array_, &desc, extent, layered ? cudaArrayLayered : cudaArrayDefault),
        "texture array for the filtered views");
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array_;
    cudaTextureDesc tex{};
    tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = cudaAddressModeBorder;
    tex.filterMode = cudaFilterModeLinear;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 0;
    TOMOWB_CUDA_CHECK(cudaCreateTextureObject(&texture_, &res, &tex, nullptr), "texture object");
  }
  ~TextureArray() { release(); }
  TextureArray(TextureArray&& o) noexcept
      : array_(std::exchange(o.array_, nullptr)), texture_(std::exchange(o.texture_, 0)) {}
  TextureArray& operator=(TextureArray&& o) noexcept {
    std::swap(array_, o.array_);
    std::swap(texture_, o.texture_);
    return *this;
  }
  cudaArray_t array() const { return array_; }
  cudaTextureObject_t texture() const { return texture_; }

 private:
  void release() {
    if (texture_) cudaDestroyTextureObject(texture_);
    if (array_) cudaFreeArray(array_);
  }
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t texture_ = 0;
};

// ---- one device's input for the backprojection kernels -----------------------------------------

// Holds up to `capacity` filtered views of `rows` x `cols` in the form the kernel's row reads
// (its GpuFdkInput).
class KernelInput {
 public:
  KernelInput(const fdk::GpuFdkKernel& kernel, int capacity, int rows, int cols)
      : kernel_(kernel), capacity_(capacity), rows_(rows), cols_(cols) {
    switch (kernel.input) {
      case fdk::GpuFdkInput::Linear:
        linear_ =
            DeviceMemory(std::size_t(capacity) * rows * cols * 4, "views for the naive kernel");
        break;
      case fdk::GpuFdkInput::TexturePerView:
        for (int i = 0; i < capacity; ++i)
          arrays_.emplace_back(cols, rows, 0, cudaCreateChannelDesc<float>(), false);
        for (const TextureArray& a : arrays_) textures_.push_back(a.texture());
        break;
      case fdk::GpuFdkInput::Layered:
      case fdk::GpuFdkInput::Hybrid:
        arrays_.emplace_back(cols, rows, capacity, cudaCreateChannelDesc<float>(), true);
        break;
      case fdk::GpuFdkInput::MirrorHalf2:
      case fdk::GpuFdkInput::MirrorHybrid:
        arrays_.emplace_back(cols, rows, capacity, cudaCreateChannelDescHalf2(), true);
        linear_ = DeviceMemory(std::size_t(capacity) * rows * cols * 4, "half2 mirror staging");
        break;
      case fdk::GpuFdkInput::MirrorFloat2:
        arrays_.emplace_back(cols, rows, capacity, cudaCreateChannelDesc<float2>(), true);
        linear_ = DeviceMemory(std::size_t(capacity) * rows * cols * 8, "float2 mirror staging");
        break;
      case fdk::GpuFdkInput::SoftMirror:
        linear_ =
            DeviceMemory(std::size_t(capacity) * (rows + 3) * (cols + 2) * 16, "soft-mirror grid");
        break;
      case fdk::GpuFdkInput::SoftMirrorHalf:
        linear_ = DeviceMemory(std::size_t(capacity) * (rows + 2) * (cols + 2) * 16,
                               "soft-mirror half grid");
        break;
      case fdk::GpuFdkInput::Padded:
        linear_ = DeviceMemory(std::size_t(capacity) * (rows + 3) * (cols + 3) * 4,
                               "zero-bordered views for the software kernel");
        break;
    }
    // The hybrids' grid of the views their kernels sample with loads (none: 0 bytes).
    if (every_ > 0)
      hybridGrid_ = DeviceMemory(fdk::loadPathGridBytes(kernel.input, capacity, rows, cols),
                                 "the hybrid kernel's grid of its load-path views");
  }

  // Fills views [0, count) from filtered rows in device memory: view k, row r at
  // src + (k * rows + r) * pitch, `cols` valid floats per row. The mirror inputs pair row r with
  // row mirrorRows-1-r of its view and read views mirrorRows rows apart (a z-mirror task's rows
  // and their mirror rows, kernels::RowBands); 0: the input's own rows. firstView: the scan's
  // index of view 0 (the hybrid kernels sample the scan's views v with v % N == N - 1 with loads,
  // whatever the chunks, so that the result does not depend on how the views are chunked).
  void fill(const float* src, int count, int pitch, cudaStream_t stream, int mirrorRows = 0,
            std::int64_t firstView = 0) {
    const int bufferRows = mirrorRows > 0 ? mirrorRows : rows_;
    count_ = count;
    src_ = src;
    pitch_ = pitch;
    switch (kernel_.input) {
      case fdk::GpuFdkInput::Linear:
        TOMOWB_CUDA_CHECK(
            cudaMemcpy2DAsync(linear_.as<float>(), std::size_t(cols_) * 4, src,
                              std::size_t(pitch) * 4, std::size_t(cols_) * 4,
                              std::size_t(count) * rows_, cudaMemcpyDeviceToDevice, stream),
            "views for the naive kernel");
        break;
      case fdk::GpuFdkInput::TexturePerView:
        for (int k = 0; k < count; ++k)
          TOMOWB_CUDA_CHECK(
              cudaMemcpy2DToArrayAsync(arrays_[std::size_t(k)].array(), 0, 0,
                                       src + std::size_t(k) * rows_ * pitch, std::size_t(pitch) * 4,
                                       std::size_t(cols_) * 4, std::size_t(rows_),
                                       cudaMemcpyDeviceToDevice, stream),
              "view into its texture");
        break;
      case fdk::GpuFdkInput::Layered:
      case fdk::GpuFdkInput::Hybrid:
        copyToLayers(src, pitch, 4, count, stream);
        break;
      case fdk::GpuFdkInput::MirrorHalf2:
      case fdk::GpuFdkInput::MirrorHybrid:
        kernels::launchToMirrorHalf2(src, count, rows_, bufferRows, cols_, pitch,
                                     linear_.as<void>(), stream);
        copyToLayers(linear_.as<float>(), cols_, 4, count, stream);
        break;
      case fdk::GpuFdkInput::MirrorFloat2:
        kernels::launchToMirrorFloat2(src, count, rows_, bufferRows, cols_, pitch,
                                      linear_.as<void>(), stream);
        copyToLayers(linear_.as<float>(), cols_, 8, count, stream);
        break;
      case fdk::GpuFdkInput::SoftMirror:
      case fdk::GpuFdkInput::SoftMirrorHalf:
        kernels::launchToSoftMirror(src, count, rows_, bufferRows, cols_, pitch,
                                    kernel_.input == fdk::GpuFdkInput::SoftMirrorHalf,
                                    linear_.as<void>(), stream);
        break;
      case fdk::GpuFdkInput::Padded:
        kernels::launchToPadded(src, count, rows_, cols_, pitch, linear_.as<float>(), stream);
        break;
    }
    fillLoadPathViews(src, count, pitch, bufferRows, firstView, stream);  // the hybrids only
    TOMOWB_CUDA_CHECK(cudaGetLastError(), "converting filtered views");
  }

  // Backprojects the filled views (matrices [first, first + count_) of `matrices`, device copy in
  // `deviceMatrices`) into `volume` with the row's launch function, at most kMaxViewsPerLaunch
  // views per batch.
  void backproject(const ViewMatrix* hostMatrices, const ViewMatrix* deviceMatrices, float* volume,
                   const TaskShape& shape, const KernelSpec& spec, cudaStream_t stream,
                   int residentMatrixFirst = -1) const {
    FdkBatch batch;
    batch.layered = arrays_.empty() ? 0 : arrays_[0].texture();
    batch.perView = textures_.data();
    batch.linear = linear_.as<void>();
    batch.hybridGrid = hybridGrid_.as<void>();
    batch.hybridEvery = every_;
    batch.hybridPhase = phase_;
    batch.rows = rows_;
    batch.cols = cols_;
    batch.hostMatrices = hostMatrices;
    batch.deviceMatrices = deviceMatrices;
    batch.residentMatrixFirst = residentMatrixFirst;
    batch.volume = volume;
    batch.shape = shape;
    batch.viewsPerLaunch = spec.viewsPerLaunch;
    batch.zPerThread = spec.zPerThread;
    batch.stream = stream;
    for (int first = 0; first < count_; first += kernels::kMaxViewsPerLaunch) {
      batch.first = first;
      batch.count = std::min(count_ - first, kernels::kMaxViewsPerLaunch);
      kernel_.launch(batch);
      TOMOWB_CUDA_CHECK(cudaGetLastError(), "backprojection kernel launch");
    }
  }

 private:
  void copyToLayers(const float* src, int pitchFloats, int elementBytes, int count,
                    cudaStream_t stream) {
    cudaMemcpy3DParms p{};
    // pitchFloats counts elements of elementBytes; the array's element has the same size.
    p.srcPtr = make_cudaPitchedPtr(const_cast<float*>(src),
                                   std::size_t(pitchFloats) * std::size_t(elementBytes),
                                   std::size_t(cols_), std::size_t(rows_));
    p.dstArray = arrays_[0].array();
    p.extent = make_cudaExtent(std::size_t(cols_), std::size_t(rows_), std::size_t(count));
    p.kind = cudaMemcpyDeviceToDevice;
    TOMOWB_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream), "views into the layered texture");
  }

  // The hybrid inputs' grid of the views the kernel samples with loads: those v of [0, count)
  // with (firstView + v) % N == N - 1, that is N - 1 - phase_ and every N-th after it.
  void fillLoadPathViews(const float* src, int count, int pitch, int bufferRows,
                         std::int64_t firstView, cudaStream_t stream) {
    if (every_ == 0) return;  // fewer views than N: the texture samples them all
    phase_ = int(firstView % every_);
    const int firstLoad = every_ - 1 - phase_;
    if (count <= firstLoad) return;
    const int loads = (count - firstLoad + every_ - 1) / every_;
    const float* first = src + std::size_t(firstLoad) * bufferRows * pitch;
    if (kernel_.input == fdk::GpuFdkInput::MirrorHybrid)
      kernels::launchToSoftMirror(first, loads, rows_, bufferRows, cols_, pitch, true,
                                  hybridGrid_.as<void>(), stream, every_, true);
    else
      kernels::launchToQuads(first, loads, rows_, bufferRows, cols_, pitch, every_,
                             hybridGrid_.as<void>(), stream);
  }

  const fdk::GpuFdkKernel& kernel_;
  int capacity_, rows_, cols_;
  // The hybrid inputs' N (0: no load path; fdk::loadPathEvery) and their grid of those views.
  int every_ = fdk::loadPathEvery(kernel_.input, capacity_);
  int phase_ = 0;  // the filled views' first scan index % N
  DeviceMemory hybridGrid_;
  int count_ = 0;
  const float* src_ = nullptr;
  int pitch_ = 0;
  DeviceMemory linear_;
  std::vector<TextureArray> arrays_;
  std::vector<cudaTextureObject_t> textures_;  // TexturePerView: arrays_' textures, by view
};

// ---- the filter on one device ------------------------------------------------------------------

// cuFFT plans for in-place R2C/C2R of rows of fftLength samples stored fftStride floats apart,
// in sub-batches of at most kFftRows rows (bounds cuFFT's work area).
class RowFilter {
 public:
  static constexpr int kFftRows = 4096;
  RowFilter(int fftLength, int fftStride, const std::vector<float>& response, cudaStream_t stream)
      : fftLength_(fftLength),
        fftStride_(fftStride),
        response_(response.size() * 4, "ramp response") {
    TOMOWB_CUDA_CHECK(cudaGetDevice(&device_), "the current GPU");
    copyNow(response_.as<void>(), response.data(), response.size() * 4, cudaMemcpyHostToDevice,
            stream, "ramp response");
  }
  ~RowFilter() {
    for (auto& [rows, plans] : plans_) {
      if (uniformPipeline())
        destroyFftPlans(plans);
      else
        releaseFftPlans(keyFor(rows), plans);
    }
  }
  RowFilter(const RowFilter&) = delete;
  RowFilter& operator=(const RowFilter&) = delete;

  // Makes (or takes from the pool, FftPlanPool.h) the plans a filter of each of `rowCounts` rows
  // will use, and their work area, before the clock runs.
  void prepare(const std::vector<long long>& rowCounts) {
    for (const long long rowCount : rowCounts) {
      if (rowCount >= kFftRows) (void)plansFor(kFftRows);
      if (rowCount % kFftRows != 0) (void)plansFor(int(rowCount % kFftRows));
    }
  }

  void filter(float* rows, long long rowCount, cudaStream_t stream) {
    for (long long first = 0; first < rowCount; first += kFftRows) {
      const int n = int(std::min<long long>(kFftRows, rowCount - first));
      const FftPlanPair& plans = plansFor(n);
      checkFft(cufftSetStream(plans.forward, stream), "cufftSetStream", "ramp filter");
      checkFft(cufftSetStream(plans.inverse, stream), "cufftSetStream", "ramp filter");
      float* data = rows + first * fftStride_;
      checkFft(cufftExecR2C(plans.forward, data, reinterpret_cast<cufftComplex*>(data)),
               "cufftExecR2C", "ramp filter");
      kernels::launchApplyResponse(data, n, fftLength_, fftStride_, response_.as<float>(), stream);
      checkFft(cufftExecC2R(plans.inverse, reinterpret_cast<cufftComplex*>(data), data),
               "cufftExecC2R", "ramp filter");
    }
  }

 private:
  FftPlanKey keyFor(int rows) const { return {device_, fftLength_, fftStride_, rows}; }

  // The plans of `n` rows with this filter's work area (grown if they need more: the filter
  // stream's earlier transforms use the old one, so a new area is only made before the first).
  const FftPlanPair& plansFor(int n) {
    auto it = plans_.find(n);
    if (it != plans_.end()) return it->second;
    FftPlanPair plans = acquireFftPlans(keyFor(n));
    try {
      if (plans.workBytes > workBytes_) {
        work_ = DeviceMemory(plans.workBytes, "ramp filter work area");
        workBytes_ = plans.workBytes;
        for (auto& [rows, held] : plans_) setWorkArea(held);
      }
      setWorkArea(plans);
      return plans_.emplace(n, plans).first->second;
    } catch (...) {
      releaseFftPlans(keyFor(n), plans);
      throw;
    }
  }
  void setWorkArea(const FftPlanPair& plans) {
    if (workBytes_ == 0) return;
    checkFft(cufftSetWorkArea(plans.forward, work_.as<void>()), "cufftSetWorkArea",
             "ramp filter plan");
    checkFft(cufftSetWorkArea(plans.inverse, work_.as<void>()), "cufftSetWorkArea",
             "ramp filter plan");
  }

  int device_ = 0;
  int fftLength_, fftStride_;
  DeviceMemory response_;
  DeviceMemory work_;
  std::size_t workBytes_ = 0;
  std::map<int, FftPlanPair> plans_;
};

// Seed 001's small pinned double buffer, for projections in pageable memory (a stack that was not
// registered with CUDA): the device thread copies the next few views into one half while the
// other half's DMA runs, so uploads stay asynchronous and the pinned footprint stays small.
class PinnedStaging {
 public:
  static constexpr std::int64_t kViews = 8;
  explicit PinnedStaging(std::size_t viewBytes) : bytes_(viewBytes * kViews) {
    for (float*& b : buffers_)
      if (cudaHostAlloc(reinterpret_cast<void**>(&b), bytes_, cudaHostAllocDefault) != cudaSuccess)
        b = nullptr;
    if (!buffers_[0] || !buffers_[1]) {
      release();
      (void)cudaGetLastError();  // clear the failed call: the caller copies from pageable memory
    }
  }
  ~PinnedStaging() { release(); }
  PinnedStaging(const PinnedStaging&) = delete;
  PinnedStaging& operator=(const PinnedStaging&) = delete;
  bool usable() const { return buffers_[0] != nullptr; }

  // Uploads `count` views of `rowBytes` bytes each (host view stride `hostViewBytes`) into
  // `device`, views `deviceViewBytes` apart there (0: rowBytes), ordered on `stream`.
  void upload(char* device, const char* host, std::int64_t count, std::size_t rowBytes,
              std::size_t hostViewBytes, cudaStream_t stream, std::size_t deviceViewBytes = 0) {
    if (deviceViewBytes == 0) deviceViewBytes = rowBytes;
    for (std::int64_t first = 0; first < count; first += kViews) {
      const std::int64_t n = std::min(kViews, count - first);
      const int b = next_;
      next_ ^= 1;
      if (used_[b]) TOMOWB_CUDA_CHECK(cudaEventSynchronize(copied_[b]), "pinned staging");
      char* stage = reinterpret_cast<char*>(buffers_[b]);
#pragma omp parallel for schedule(static) num_threads(4)
      for (std::int64_t k = 0; k < n; ++k)
        std::memcpy(stage + std::size_t(k) * rowBytes,
                    host + std::size_t(first + k) * hostViewBytes, rowBytes);
      TOMOWB_CUDA_CHECK(
          cudaMemcpy2DAsync(device + std::size_t(first) * deviceViewBytes, deviceViewBytes, stage,
                            rowBytes, rowBytes, std::size_t(n), cudaMemcpyHostToDevice, stream),
          "uploading projections");
      TOMOWB_CUDA_CHECK(cudaEventRecord(copied_[b], stream), "pinned staging");
      used_[b] = true;
    }
  }

 private:
  void release() {
    for (float*& b : buffers_) {
      if (b) cudaFreeHost(b);
      b = nullptr;
    }
  }
  std::size_t bytes_;
  float* buffers_[2] = {nullptr, nullptr};
  Event copied_[2];
  bool used_[2] = {false, false};
  int next_ = 0;
};

}  // namespace tomowb::cuda::fdkgpu

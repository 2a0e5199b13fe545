// The device-resident DIRECT pairs (GpuDirect.h): per-view tables in float32 from the float64
// DirectKernels, the gather-tex / gather-reg / cuFFT schemes, and their registration.
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <complex>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/operator/cuda/DeviceArrayOps.cuh"
#include "recon/pet/GpuDirect.h"
#include "recon/pet/cuda/DirectFftKernels.cuh"
#include "recon/pet/cuda/DirectGpuKernels.cuh"

namespace tomowb::pet {

namespace {

using cuda::DeviceArray;
using cuda::DeviceArrayOps;
using cuda::DeviceMemory;

const char* schemeSuffix(GpuDirectScheme s) {
  switch (s) {
    case GpuDirectScheme::GatherTex:
      return "gather-tex";
    case GpuDirectScheme::GatherReg:
      return "gather-reg";
    case GpuDirectScheme::Fft:
      return "fft";
  }
  return "?";
}

void checkCufft(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS)
    throw Error(std::string("cuFFT error ") + std::to_string(int(r)) + " in " + what);
}

// The smallest n' >= n whose prime factors are 2, 3, 5 and 7 (sizes cuFFT is fast on).
int goodFftSize(int n) {
  for (int m = std::max(n, 1);; ++m) {
    int r = m;
    for (int p : {2, 3, 5, 7})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

// A 3-D cudaArray with a point-sampling, border-addressed texture over it (gather-tex input).
class TextureVolume {
 public:
  TextureVolume(int nx, int ny, int nz) : nx_(nx), ny_(ny), nz_(nz) {
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    TOMOWB_CUDA_CHECK(cudaMalloc3DArray(&array_, &desc, make_cudaExtent(nx, ny, nz)),
                      "DIRECT texture volume");
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array_;
    cudaTextureDesc tex{};
    for (auto& mode : tex.addressMode) mode = cudaAddressModeBorder;
    tex.filterMode = cudaFilterModePoint;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 0;
    TOMOWB_CUDA_CHECK(cudaCreateTextureObject(&texture_, &res, &tex, nullptr),
                      "DIRECT texture object");
  }
  ~TextureVolume() {
    if (texture_) cudaDestroyTextureObject(texture_);
    if (array_) cudaFreeArray(array_);
  }
  TextureVolume(const TextureVolume&) = delete;
  TextureVolume& operator=(const TextureVolume&) = delete;
  // Copies `nx*ny*nz` floats at `from` (device) into the array, ordered on `stream`.
  void fill(const float* from, cudaStream_t stream) {
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(const_cast<float*>(from), std::size_t(nx_) * sizeof(float),
                                   std::size_t(nx_), std::size_t(ny_));
    p.dstArray = array_;
    p.extent = make_cudaExtent(nx_, ny_, nz_);
    p.kind = cudaMemcpyDeviceToDevice;
    TOMOWB_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream), "DIRECT texture upload");
  }
  cudaTextureObject_t texture() const noexcept { return texture_; }

 private:
  int nx_, ny_, nz_;
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t texture_ = 0;
};

// Host-side float32 tables of every view, laid out as the device copy.
struct HostTables {
  std::vector<int4> offsets;
  std::vector<float> values;
  std::vector<gpu::Group> groups;
  std::vector<float> groupForward, groupBack;
  std::vector<unsigned short> classMaps;
  struct Where {
    std::size_t offsets, values, groups, groupValues, classMap;
    int offsetCount, groupCount;
  };
  std::vector<Where> where;
};

// The support's (dx, dy) columns: offsets sorted by (dy, dx, dz), runs of consecutive dz cut
// into groups of at most kRun; `members` gets each group's offset indices.
std::vector<gpu::Group> groupsOf(std::span<const KernelOffset> offsets,
                                 std::vector<std::vector<int>>& members) {
  std::vector<int> order(offsets.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const KernelOffset &p = offsets[a], &q = offsets[b];
    return std::tie(p.dy, p.dx, p.dz) < std::tie(q.dy, q.dx, q.dz);
  });
  std::vector<gpu::Group> groups;
  members.clear();
  for (int idx : order) {
    const KernelOffset& o = offsets[idx];
    const bool extend = !groups.empty() && groups.back().dx == o.dx && groups.back().dy == o.dy &&
                        groups.back().count < gpu::kRun &&
                        groups.back().dz0 + groups.back().count == o.dz;
    if (extend) {
      ++groups.back().count;
      members.back().push_back(idx);
    } else {
      groups.push_back({short(o.dx), short(o.dy), short(o.dz), 1});
      members.push_back({idx});
    }
  }
  return groups;
}

HostTables buildTables(const DirectKernels& k) {
  HostTables h;
  const int classes = k.classCount();
  const VolumeShape& s = k.grid().shape;
  const std::size_t plane = std::size_t(s.nx * s.ny);
  for (int a = 0; a < k.views().azimuths; ++a) {
    const auto map = k.classMap(a);
    h.classMaps.insert(h.classMaps.end(), map.begin(), map.end());
  }
  for (int v = 0; v < k.views().count(); ++v) {
    const auto offsets = k.offsets(v);
    const auto values = k.values(v);
    const int n = static_cast<int>(offsets.size());
    HostTables::Where w{h.offsets.size(),
                        h.values.size(),
                        h.groups.size(),
                        h.groupForward.size(),
                        std::size_t(k.views().azimuthOf(v)) * plane,
                        n,
                        0};
    for (const KernelOffset& o : offsets) h.offsets.push_back(make_int4(o.dx, o.dy, o.dz, 0));
    for (double value : values) h.values.push_back(static_cast<float>(value));
    std::vector<std::vector<int>> members;  // per group: offset indices
    const std::vector<gpu::Group> groups = groupsOf(offsets, members);
    w.groupCount = static_cast<int>(groups.size());
    h.groups.insert(h.groups.end(), groups.begin(), groups.end());
    for (int c = 0; c < classes; ++c)
      for (std::size_t g = 0; g < groups.size(); ++g)
        for (int r = 0; r < gpu::kRun; ++r) {
          const bool used = r < static_cast<int>(members[g].size());
          const int i = used ? members[g][static_cast<std::size_t>(r)] : 0;
          h.groupBack.push_back(
              used ? static_cast<float>(values[std::size_t(c) * n + std::size_t(i)]) : 0.0f);
          h.groupForward.push_back(
              used ? static_cast<float>(values[std::size_t(c) * n + std::size_t(n - 1 - i)])
                   : 0.0f);
        }
    h.where.push_back(w);
  }
  return h;
}

template <typename T>
DeviceMemory uploadVector(const std::vector<T>& v, cudaStream_t stream, const char* what) {
  DeviceMemory m(std::max<std::size_t>(v.size(), 1) * sizeof(T), what);
  cuda::copyNow(m.as<void>(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice, stream, what);
  return m;
}

std::uint64_t usableBytes(int device, std::uint64_t limit) {
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  std::size_t freeBytes = 0, total = 0;
  cuda::freeDeviceMemory(freeBytes, total);
  const std::uint64_t usable = freeBytes > (std::size_t{256} << 20) ? freeBytes - (256u << 20) : 0;
  return limit ? std::min<std::uint64_t>(usable, limit) : usable;
}

class GpuDirectPair final : public DirectPair {
 public:
  GpuDirectPair(const DirectProblem& problem, std::shared_ptr<const DirectKernels> kernels,
                GpuDirectScheme forward, GpuDirectScheme back, int device)
      : direct_(problem),
        kernels_(std::move(kernels)),
        forward_(forward),
        back_(back),
        device_(device),
        ops_(device, stream_) {
    problem_.geometry = nullptr;
    problem_.grid = problem.grid;
    problem_.gpu = problem.gpu;
    forwardName_ = std::string("direct.fp.") + schemeSuffix(forward);
    adjointName_ = std::string("direct.bp.") + schemeSuffix(back);
    const VolumeShape& s = problem.grid.shape;
    shape_ = {int(s.nx), int(s.ny), int(s.nz), kernels_->classCount()};
    const HostTables h = buildTables(*kernels_);
    offsets_ = uploadVector(h.offsets, stream_, "DIRECT offsets");
    values_ = uploadVector(h.values, stream_, "DIRECT kernel values");
    groups_ = uploadVector(h.groups, stream_, "DIRECT groups");
    groupForward_ = uploadVector(h.groupForward, stream_, "DIRECT forward group values");
    groupBack_ = uploadVector(h.groupBack, stream_, "DIRECT back group values");
    classMaps_ = uploadVector(h.classMaps, stream_, "DIRECT class maps");
    std::vector<gpu::ViewTable> tables;
    for (std::size_t v = 0; v < h.where.size(); ++v) {
      const HostTables::Where& w = h.where[v];
      gpu::ViewTable t;
      t.offsets = offsets_.as<int4>() + w.offsets;
      t.values = values_.as<float>() + w.values;
      t.offsetCount = w.offsetCount;
      t.groups = groups_.as<gpu::Group>() + w.groups;
      t.groupForward = groupForward_.as<float>() + w.groupValues;
      t.groupBack = groupBack_.as<float>() + w.groupValues;
      t.groupCount = w.groupCount;
      t.classMap = classMaps_.as<unsigned short>() + w.classMap;
      tables.push_back(t);
    }
    tables_ = uploadVector(tables, stream_, "DIRECT view tables");
    viewList_ = DeviceMemory(std::size_t(problem.views.count()) * sizeof(int), "DIRECT view list");
    if (forward == GpuDirectScheme::GatherTex || back == GpuDirectScheme::GatherTex)
      texture_ = std::make_unique<TextureVolume>(shape_.nx, shape_.ny, shape_.nz);
    if (forward == GpuDirectScheme::Fft || back == GpuDirectScheme::Fft) prepareFft();
  }
  GpuDirectPair(const GpuDirectPair&) = delete;
  GpuDirectPair& operator=(const GpuDirectPair&) = delete;
  GpuDirectPair(GpuDirectPair&&) = delete;
  GpuDirectPair& operator=(GpuDirectPair&&) = delete;
  ~GpuDirectPair() override {
    if (planForward_) cufftDestroy(planForward_);
    if (planInverse_) cufftDestroy(planInverse_);
  }

  const std::string& forwardName() const noexcept override { return forwardName_; }
  const std::string& adjointName() const noexcept override { return adjointName_; }
  bool matched() const noexcept override { return true; }
  std::string device() const override {
    return ops_.describe() + ", resident (" + forwardName_ + " + " + adjointName_ + ")";
  }
  const op::ArrayOps& ops() const noexcept override { return ops_; }
  const op::ProjectorProblem& problem() const noexcept override { return problem_; }
  const DirectKernels& kernels() const noexcept override { return *kernels_; }
  const DirectProblem& directProblem() const noexcept override { return direct_; }

  std::unique_ptr<op::Array> makeVolume() const override {
    select();
    return std::make_unique<DeviceArray>(voxels(), stream_, "an image on the GPU");
  }
  std::unique_ptr<op::Array> makeProjections() const override {
    select();
    return std::make_unique<DeviceArray>(voxels() * std::size_t(direct_.views.count()), stream_,
                                         "histo-images on the GPU");
  }
  std::unique_ptr<const op::Array> useVolume(const Volume& volume) const override {
    if (volume.shape() != problem_.grid.shape)
      throw ParameterError("volume", "its shape differs from the reconstruction grid's");
    std::unique_ptr<op::Array> a = makeVolume();
    ops_.upload(volume.voxels(), *a);
    return a;
  }
  std::unique_ptr<const op::Array> useHistoImages(const HistoImages& histo) const override {
    if (histo.grid().shape != problem_.grid.shape || histo.views().count() != direct_.views.count())
      throw ParameterError("histo-images", "their grid or views differ from the problem's");
    std::unique_ptr<op::Array> a = makeProjections();
    ops_.upload(histo.values(), *a);
    return a;
  }
  HistoImages takeHistoImages(const op::Array& array) const override {
    HistoImages out(problem_.grid, direct_.views);
    ops_.download(array, out.values());
    return out;
  }
  Volume takeVolume(std::unique_ptr<op::Array> volume) const override {
    Volume out = problem_.grid.makeVolume();
    ops_.download(*volume, out.voxels());
    return out;
  }

  void forward(const op::Array& volume, op::Array& projections, std::span<const std::int64_t> views,
               JobContext& context) override {
    std::lock_guard guard(mutex_);
    context.throwIfCancelled();
    select();
    const int count = uploadViews(views);
    switch (forward_) {
      case GpuDirectScheme::GatherReg:
        gpu::launchForwardReg(volume.data(), tables_.as<gpu::ViewTable>(), viewList_.as<int>(),
                              count, shape_, projections.data(), stream_);
        break;
      case GpuDirectScheme::GatherTex:
        texture_->fill(volume.data(), stream_);
        gpu::launchForwardTex(texture_->texture(), tables_.as<gpu::ViewTable>(),
                              viewList_.as<int>(), count, shape_, projections.data(), stream_);
        break;
      case GpuDirectScheme::Fft:
        forwardFft(volume.data(), projections.data());
        break;
    }
    TOMOWB_CUDA_CHECK(cudaGetLastError(), forwardName_.c_str());
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream_), forwardName_.c_str());
  }

  void adjoint(const op::Array& projections, op::Array& volume, std::span<const std::int64_t> views,
               JobContext& context) override {
    std::lock_guard guard(mutex_);
    context.throwIfCancelled();
    select();
    const int count = uploadViews(views);
    const std::size_t perView = voxels();
    switch (back_) {
      case GpuDirectScheme::GatherReg:
        gpu::launchBackReg(projections.data(), tables_.as<gpu::ViewTable>(), viewList_.as<int>(),
                           count, shape_, volume.data(), stream_);
        break;
      case GpuDirectScheme::GatherTex:
        for (int k = 0; k < count; ++k) {
          const int v = hostViews_[std::size_t(k)];
          texture_->fill(projections.data() + std::size_t(v) * perView, stream_);
          gpu::launchBackTex(texture_->texture(), tables_.as<gpu::ViewTable>() + v, shape_,
                             volume.data(), stream_);
        }
        break;
      case GpuDirectScheme::Fft:
        backFft(projections.data(), volume.data());
        break;
    }
    TOMOWB_CUDA_CHECK(cudaGetLastError(), adjointName_.c_str());
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream_), adjointName_.c_str());
  }

 private:
  std::size_t voxels() const noexcept { return std::size_t(problem_.grid.shape.voxelCount()); }
  void select() const { TOMOWB_CUDA_CHECK(cudaSetDevice(device_), "selecting the GPU"); }

  int uploadViews(std::span<const std::int64_t> views) {
    hostViews_.clear();
    if (views.empty())
      for (int v = 0; v < direct_.views.count(); ++v) hostViews_.push_back(v);
    else
      for (std::int64_t v : views) {
        if (v < 0 || v >= direct_.views.count())
          throw ParameterError("views", "view " + std::to_string(v) + " does not exist");
        hostViews_.push_back(static_cast<int>(v));
      }
    cuda::copyNow(viewList_.as<void>(), hostViews_.data(), hostViews_.size() * sizeof(int),
                  cudaMemcpyHostToDevice, stream_, "DIRECT view list");
    return static_cast<int>(hostViews_.size());
  }

  // --- cuFFT (invariant symmetric kernels): the kernel of view v is a fixed stencil, so both
  // operators are one circular convolution of the zero-padded arrays (padding >= the reach, so
  // nothing wraps into the grid).
  void prepareFft() {
    const KernelOffset reach = kernels_->reach();
    px_ = goodFftSize(shape_.nx + reach.dx);
    py_ = goodFftSize(shape_.ny + reach.dy);
    pz_ = goodFftSize(shape_.nz + reach.dz);
    spectrum_ = std::size_t(pz_) * py_ * (px_ / 2 + 1);
    const std::size_t padded = std::size_t(px_) * py_ * pz_;
    padded_ = DeviceMemory(padded * sizeof(float), "DIRECT FFT padded volume");
    inputSpectrum_ = DeviceMemory(spectrum_ * sizeof(cufftComplex), "DIRECT FFT spectrum");
    product_ = DeviceMemory(spectrum_ * sizeof(cufftComplex), "DIRECT FFT product");
    kernelSpectra_ = DeviceMemory(spectrum_ * sizeof(cufftComplex) * direct_.views.count(),
                                  "DIRECT FFT kernel spectra");
    checkCufft(cufftPlan3d(&planForward_, pz_, py_, px_, CUFFT_R2C), "R2C plan");
    checkCufft(cufftPlan3d(&planInverse_, pz_, py_, px_, CUFFT_C2R), "C2R plan");
    checkCufft(cufftSetStream(planForward_, stream_), "R2C stream");
    checkCufft(cufftSetStream(planInverse_, stream_), "C2R stream");
    std::vector<float> stencil(padded);
    for (int v = 0; v < direct_.views.count(); ++v) {
      std::fill(stencil.begin(), stencil.end(), 0.0f);
      const auto offsets = kernels_->offsets(v);
      const auto values = kernels_->values(v);
      for (std::size_t i = 0; i < offsets.size(); ++i) {
        const KernelOffset& o = offsets[i];
        const int x = (o.dx + px_) % px_, y = (o.dy + py_) % py_, z = (o.dz + pz_) % pz_;
        stencil[(std::size_t(z) * py_ + y) * px_ + x] = static_cast<float>(values[i]);
      }
      cuda::copyNow(padded_.as<void>(), stencil.data(), padded * sizeof(float),
                    cudaMemcpyHostToDevice, stream_, "DIRECT FFT kernel");
      checkCufft(cufftExecR2C(planForward_, padded_.as<cufftReal>(),
                              kernelSpectra_.as<cufftComplex>() + std::size_t(v) * spectrum_),
                 "kernel spectrum");
    }
    TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream_), "DIRECT FFT kernel spectra");
  }

  void forwardFft(const float* image, float* out) {
    gpu::launchPad(image, shape_.nx, shape_.ny, shape_.nz, padded_.as<float>(), px_, py_, pz_,
                   stream_);
    checkCufft(
        cufftExecR2C(planForward_, padded_.as<cufftReal>(), inputSpectrum_.as<cufftComplex>()),
        "forward R2C");
    const float scale = 1.0f / (float(px_) * float(py_) * float(pz_));
    for (int v : hostViews_) {
      gpu::launchSpectrumProduct(inputSpectrum_.as<cufftComplex>(),
                                 kernelSpectra_.as<cufftComplex>() + std::size_t(v) * spectrum_,
                                 product_.as<cufftComplex>(), spectrum_, false, stream_);
      checkCufft(cufftExecC2R(planInverse_, product_.as<cufftComplex>(), padded_.as<cufftReal>()),
                 "forward C2R");
      gpu::launchCrop(padded_.as<float>(), px_, py_, scale, out + std::size_t(v) * voxels(),
                      shape_.nx, shape_.ny, shape_.nz, false, stream_);
    }
  }

  void backFft(const float* histo, float* out) {
    TOMOWB_CUDA_CHECK(
        cudaMemsetAsync(product_.as<void>(), 0, spectrum_ * sizeof(cufftComplex), stream_),
        "DIRECT FFT back");
    for (int v : hostViews_) {
      gpu::launchPad(histo + std::size_t(v) * voxels(), shape_.nx, shape_.ny, shape_.nz,
                     padded_.as<float>(), px_, py_, pz_, stream_);
      checkCufft(
          cufftExecR2C(planForward_, padded_.as<cufftReal>(), inputSpectrum_.as<cufftComplex>()),
          "back R2C");
      gpu::launchSpectrumProduct(inputSpectrum_.as<cufftComplex>(),
                                 kernelSpectra_.as<cufftComplex>() + std::size_t(v) * spectrum_,
                                 product_.as<cufftComplex>(), spectrum_, true, stream_);
    }
    checkCufft(cufftExecC2R(planInverse_, product_.as<cufftComplex>(), padded_.as<cufftReal>()),
               "back C2R");
    gpu::launchCrop(padded_.as<float>(), px_, py_, 1.0f / (float(px_) * float(py_) * float(pz_)),
                    out, shape_.nx, shape_.ny, shape_.nz, true, stream_);
  }

  DirectProblem direct_;
  op::ProjectorProblem problem_;
  std::shared_ptr<const DirectKernels> kernels_;
  GpuDirectScheme forward_, back_;
  int device_;
  std::string forwardName_, adjointName_;
  gpu::Shape shape_;
  cuda::Stream stream_;
  DeviceArrayOps ops_;
  DeviceMemory offsets_, values_, groups_, groupForward_, groupBack_, classMaps_, tables_,
      viewList_;
  std::vector<int> hostViews_;
  std::unique_ptr<TextureVolume> texture_;
  int px_ = 0, py_ = 0, pz_ = 0;
  std::size_t spectrum_ = 0;
  DeviceMemory padded_, inputSpectrum_, product_, kernelSpectra_;
  cufftHandle planForward_ = 0, planInverse_ = 0;
  std::mutex mutex_;
};

// Device bytes a pair and an EM solver's arrays need: the tables, three images and three
// histo-image sets (data, factors, ratio) beside the pair's scratch.
std::uint64_t neededBytes(const DirectKernels& k, GpuDirectScheme f, GpuDirectScheme b) {
  std::uint64_t tables = 0;
  for (int v = 0; v < k.views().count(); ++v)
    tables += std::uint64_t(k.offsetCount(v)) * (16 + 4 * std::uint64_t(k.classCount()) * 3);
  const std::uint64_t image = std::uint64_t(k.grid().shape.voxelCount()) * 4;
  std::uint64_t needed = tables + 8 * image + 4 * image * std::uint64_t(k.views().count());
  if (f == GpuDirectScheme::Fft || b == GpuDirectScheme::Fft) {
    const KernelOffset r = k.reach();
    const std::uint64_t spectrum = std::uint64_t(goodFftSize(int(k.grid().shape.nz) + r.dz)) *
                                   goodFftSize(int(k.grid().shape.ny) + r.dy) *
                                   (goodFftSize(int(k.grid().shape.nx) + r.dx) / 2 + 1) * 8;
    needed += spectrum * (std::uint64_t(k.views().count()) + 4);
  }
  return needed;
}

}  // namespace

std::unique_ptr<DirectPair> makeGpuDirectPair(const DirectProblem& problem,
                                              std::shared_ptr<const DirectKernels> kernels,
                                              GpuDirectScheme forward, GpuDirectScheme back,
                                              std::string& why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    why = "no CUDA device is present";
    return nullptr;
  }
  if ((forward == GpuDirectScheme::Fft || back == GpuDirectScheme::Fft) &&
      !kernels->invariantSymmetric()) {
    why = "the FFT projectors need an invariant symmetric kernel (the LOR kernel is " +
          toString(kernels->params().profile) +
          (kernels->params().asymmetric ? ", asymmetric)" : ")");
    return nullptr;
  }
  if (problem.grid.shape.nx > 32767 || problem.grid.shape.ny > 32767 ||
      problem.grid.shape.nz > 32767) {
    why = "the grid is too large for the GPU DIRECT kernels";
    return nullptr;
  }
  const std::vector<int> devices = cuda::devicesToUse(problem.gpu.devices);
  const int device = devices.front();
  const std::uint64_t needed = neededBytes(*kernels, forward, back);
  const std::uint64_t usable = usableBytes(device, problem.gpu.memoryLimitBytes);
  if (needed > usable) {
    why = "the DIRECT pair and an EM solver's arrays need " + formatBytes(needed) + ", GPU " +
          std::to_string(device) + " has " + formatBytes(usable) +
          " usable: use fewer views or a smaller grid";
    return nullptr;
  }
  TOMOWB_CUDA_CHECK(cudaSetDevice(device), "selecting the GPU");
  return std::make_unique<GpuDirectPair>(problem, std::move(kernels), forward, back, device);
}

namespace {

GpuDirectScheme schemeOf(const std::string& name) {
  if (name.ends_with("gather-tex")) return GpuDirectScheme::GatherTex;
  if (name.ends_with("fft")) return GpuDirectScheme::Fft;
  return GpuDirectScheme::GatherReg;
}

std::unique_ptr<op::ProjectorPair> bindGpu(const KernelVariant& forward, const KernelVariant& back,
                                           const DirectProblem& problem, std::string& why) {
  if (!forward.needsGpu || !back.needsGpu) {
    why = "a GPU DIRECT projector pairs only with another GPU DIRECT projector";
    return nullptr;
  }
  auto kernels = std::make_shared<const DirectKernels>(problem.grid, problem.views, problem.kernel);
  return makeGpuDirectPair(problem, std::move(kernels), schemeOf(forward.name), schemeOf(back.name),
                           why);
}

}  // namespace

void registerGpuDirectVariants(VariantRegistry& registry) {
  struct Entry {
    const char* suffix;
    const char* forward;
    const char* back;
    qa::AccuracyClass accuracy;
  };
  const Entry entries[] = {
      {"gather-tex",
       "GPU DIRECT forward projector, the seed's gather: a thread per (x, y) column and 16 z, the "
       "image through a 3-D texture, the source's kernel class per offset; deterministic",
       "GPU DIRECT backprojector, the seed's gather through a 3-D texture, one view per launch; "
       "deterministic",
       qa::AccuracyClass::Exact},
      {"gather-reg",
       "GPU DIRECT forward projector, register reuse: the support grouped by (dx, dy) column, each "
       "input column loaded once into registers for up to 4 dz; all views of a subset in one "
       "launch; deterministic",
       "GPU DIRECT backprojector, register reuse, a subset's views summed per thread in order; "
       "deterministic",
       qa::AccuracyClass::Exact},
      {"fft",
       "GPU DIRECT forward projector by cuFFT convolution (invariant symmetric kernels only); "
       "deterministic",
       "GPU DIRECT backprojector by cuFFT convolution, the views' spectra summed before one "
       "inverse FFT (invariant symmetric kernels only); deterministic",
       qa::AccuracyClass::Exact},
  };
  for (const Entry& e : entries) {
    KernelVariant fp;
    fp.name = std::string("direct.fp.") + e.suffix;
    fp.role = VariantRole::PetForwardProjector;
    fp.description = e.forward;
    fp.needsGpu = true;
    fp.model = "direct";
    fp.accuracyClass = e.accuracy;
    fp.bindDirectPair = bindGpu;
    KernelVariant bp = fp;
    bp.name = std::string("direct.bp.") + e.suffix;
    bp.role = VariantRole::PetBackprojector;
    bp.description = e.back;
    bp.adjointOf = fp.name;
    registry.add(std::move(fp));
    registry.add(std::move(bp));
  }
}

}  // namespace tomowb::pet

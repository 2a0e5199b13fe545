// The GPU projectors of the iterative algorithms on one device, as the fused SIRT (GpuEt.cpp) and
// the device-resident projector pair (GpuEtPair.cpp) both use them: textures, the variants'
// kernel specs and tunables, the problem analysis (aligned single-axis slices or general 3-D),
// view tables and the DeviceProjector that launches a pair's kernels (each variant's kernel kind
// comes from its row in EtProjectorTable.h). Moved out of GpuEt.cpp (issue #18); included by
// CUDA-side C++ sources only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "recon/core/Error.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/CudaResources.h"
#include "recon/device/GpuDevices.h"
#include "recon/device/GpuRunSupport.h"
#include "recon/geometry/Geometry.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/SingleAxisGeometry.h"
#include "recon/projector/cuda/EtKernels.cuh"
#include "recon/projector/cuda/EtProjectorTable.h"

namespace tomowb::cuda::etgpu {

using et::Texel;
using Tunables = std::map<std::string, std::string>;

inline cudaChannelFormatDesc channelFor(Texel t) {
  switch (t) {
    case Texel::Float:
      return cudaCreateChannelDesc<float>();
    case Texel::Float2:
      return cudaCreateChannelDesc<float2>();
    case Texel::Float4:
      return cudaCreateChannelDesc<float4>();
    case Texel::Half2:
      return cudaCreateChannelDescHalf2();
  }
  return cudaCreateChannelDesc<float>();
}

inline cudaTextureDesc linearBorderTexture() {
  cudaTextureDesc tex{};
  tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = cudaAddressModeBorder;
  tex.filterMode = cudaFilterModeLinear;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = 0;
  return tex;
}

// A layered CUDA array written through a surface and read through a texture (linear filtering,
// border zero, unnormalised coordinates).
class LayeredTexture {
 public:
  LayeredTexture() = default;
  LayeredTexture(int width, int height, int layers, Texel texel, const char* what) {
    try {
      const cudaChannelFormatDesc desc = channelFor(texel);
      TOMOWB_CUDA_CHECK(cudaMalloc3DArray(&array_, &desc,
                                          make_cudaExtent(std::size_t(width), std::size_t(height),
                                                          std::size_t(layers)),
                                          cudaArrayLayered | cudaArraySurfaceLoadStore),
                        what);
      cudaResourceDesc res{};
      res.resType = cudaResourceTypeArray;
      res.res.array.array = array_;
      const cudaTextureDesc tex = linearBorderTexture();
      TOMOWB_CUDA_CHECK(cudaCreateTextureObject(&texture_, &res, &tex, nullptr), what);
      TOMOWB_CUDA_CHECK(cudaCreateSurfaceObject(&surface_, &res), what);
    } catch (...) {
      release();
      throw;
    }
  }
  ~LayeredTexture() { release(); }
  LayeredTexture(LayeredTexture&& o) noexcept
      : array_(std::exchange(o.array_, nullptr)),
        texture_(std::exchange(o.texture_, 0)),
        surface_(std::exchange(o.surface_, 0)) {}
  LayeredTexture& operator=(LayeredTexture&& o) noexcept {
    std::swap(array_, o.array_);
    std::swap(texture_, o.texture_);
    std::swap(surface_, o.surface_);
    return *this;
  }
  LayeredTexture(const LayeredTexture&) = delete;
  LayeredTexture& operator=(const LayeredTexture&) = delete;
  cudaTextureObject_t texture() const { return texture_; }
  cudaSurfaceObject_t surface() const { return surface_; }

 private:
  void release() {
    if (surface_) cudaDestroySurfaceObject(surface_);
    if (texture_) cudaDestroyTextureObject(texture_);
    if (array_) cudaFreeArray(array_);
    surface_ = 0;
    texture_ = 0;
    array_ = nullptr;
  }
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t texture_ = 0;
  cudaSurfaceObject_t surface_ = 0;
};

// A 3-D float array with a texture, filled from a linear volume by cudaMemcpy3D.
class VolumeTexture {
 public:
  VolumeTexture() = default;
  VolumeTexture(int nx, int ny, int nz) : nx_(nx), ny_(ny), nz_(nz) {
    try {
      const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
      TOMOWB_CUDA_CHECK(
          cudaMalloc3DArray(&array_, &desc,
                            make_cudaExtent(std::size_t(nx), std::size_t(ny), std::size_t(nz))),
          "3-D texture of the volume");
      cudaResourceDesc res{};
      res.resType = cudaResourceTypeArray;
      res.res.array.array = array_;
      const cudaTextureDesc tex = linearBorderTexture();
      TOMOWB_CUDA_CHECK(cudaCreateTextureObject(&texture_, &res, &tex, nullptr),
                        "3-D texture of the volume");
    } catch (...) {
      release();
      throw;
    }
  }
  ~VolumeTexture() { release(); }
  VolumeTexture(VolumeTexture&& o) noexcept
      : array_(std::exchange(o.array_, nullptr)),
        texture_(std::exchange(o.texture_, 0)),
        nx_(o.nx_),
        ny_(o.ny_),
        nz_(o.nz_) {}
  VolumeTexture& operator=(VolumeTexture&& o) noexcept {
    std::swap(array_, o.array_);
    std::swap(texture_, o.texture_);
    std::swap(nx_, o.nx_);
    std::swap(ny_, o.ny_);
    std::swap(nz_, o.nz_);
    return *this;
  }
  VolumeTexture(const VolumeTexture&) = delete;
  VolumeTexture& operator=(const VolumeTexture&) = delete;
  cudaTextureObject_t texture() const { return texture_; }

  void fill(const float* volume, cudaStream_t stream) {
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(const_cast<float*>(volume), std::size_t(nx_) * 4,
                                   std::size_t(nx_), std::size_t(ny_));
    p.dstArray = array_;
    p.extent = make_cudaExtent(std::size_t(nx_), std::size_t(ny_), std::size_t(nz_));
    p.kind = cudaMemcpyDeviceToDevice;
    TOMOWB_CUDA_CHECK(cudaMemcpy3DAsync(&p, stream), "the volume into its 3-D texture");
  }

 private:
  void release() {
    if (texture_) cudaDestroyTextureObject(texture_);
    if (array_) cudaFreeArray(array_);
    texture_ = 0;
    array_ = nullptr;
  }
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t texture_ = 0;
  int nx_ = 0, ny_ = 0, nz_ = 0;
};

// Constant memory is per device: launches that reload it must not interleave, so every user of
// a device (a SIRT device thread, a host-to-host variant call) holds that device's lock.
inline std::mutex& deviceLock(int device) {
  static std::array<std::mutex, 64> locks;
  return locks[std::size_t(device) % locks.size()];
}

inline std::string deviceName(int device) {
  const std::vector<GpuDevice> all = listGpuDevices();
  return device < int(all.size()) ? all[std::size_t(device)].name : "GPU";
}

// ---- variants and their tunables ---------------------------------------------------------------

struct ForwardSpec {
  std::string name;
  FpKind kind = FpKind::Fast;
  Texel texel = Texel::Float;
  int layers = 1;         // texels per thread (fast)
  int angles = 16;        // views per block (fast)
  int segments = 8;       // segments per ray (seed ordering (d))
  int segmentPlanes = 0;  // planes per synchronised segment (fast; 0: none)
  int bandPlanes = 0;     // planes per launch (fast; -1: whole rays, 0: automatic)
};

struct BackSpec {
  std::string name;
  BpKind kind = BpKind::Fast;
  Texel texel = Texel::Float;
  int layers = 1;
  bool maxima = true;  // fast: the update epilogue leaves max |x| per slice for the half2 packing
};

// Defaults of the fast kernels: bench/results/2026-11-23-h100-sirt-et.md (H100, 2048^2 x 180
// views, 10-slice stacks) says which sweep chose them.
constexpr const char* kDefaultFpTexel = "half2";
constexpr int kDefaultFpLayers = 1;
constexpr int kDefaultAngles = 8;
constexpr int kDefaultSegmentPlanes = 0;
constexpr int kDefaultBandPlanes = 0;
constexpr const char* kDefaultBpTexel = "half2";
constexpr int kDefaultBpLayers = 2;
constexpr int kDefaultBpMaxima = 1;
// Automatic bands (ray segments by relaunch): slices wider than this walk their rays in bands
// of kAutoBandPlanes planes, so that the band all blocks of a launch read stays in the 50 MB L2.
constexpr std::int64_t kAutoBandAbove = 2048;
constexpr int kAutoBandPlanes = 1024;

inline Texel tunableTexel(const Tunables& tunables, const std::string& name, const char* fallback) {
  const auto it = tunables.find(name);
  const std::string value = it == tunables.end() ? fallback : it->second;
  if (value == "float") return Texel::Float;
  if (value == "float2") return Texel::Float2;
  if (value == "float4") return Texel::Float4;
  if (value == "half2") return Texel::Half2;
  throw ParameterError("tunable " + name,
                       "must be float, float2, float4 or half2, got '" + value + "'");
}

inline std::string texelName(Texel t) {
  switch (t) {
    case Texel::Float:
      return "float";
    case Texel::Float2:
      return "float2";
    case Texel::Float4:
      return "float4";
    case Texel::Half2:
      return "half2";
  }
  return "?";
}

inline ForwardSpec forwardSpecFor(const std::string& name, const Tunables& tunables) {
  ForwardSpec s;
  s.name = name;
  const EtProjectorRow* row = findEtProjector(name, VariantRole::ForwardProjector);
  if (!row)
    throw ParameterError("forward projector", "'" + name + "' is not a GPU forward projector");
  s.kind = row->forward;
  s.segments = tunableInt(tunables, "segments", 8, 1, 64);
  s.texel =
      s.kind == FpKind::Fast ? tunableTexel(tunables, "fp-texel", kDefaultFpTexel) : Texel::Float;
  s.layers = tunableInt(tunables, "fp-layers", kDefaultFpLayers, 1, 4);
  if (s.layers == 3) throw ParameterError("tunable fp-layers", "must be 1, 2 or 4");
  s.angles = tunableInt(tunables, "angles", kDefaultAngles, 1, 32);
  if (s.angles != 4 && s.angles != 8 && s.angles != 16 && s.angles != 2 && s.angles != 1)
    throw ParameterError("tunable angles", "must be 1, 2, 4, 8 or 16");
  s.segmentPlanes = tunableInt(tunables, "segment-planes", kDefaultSegmentPlanes, 0, 1 << 20);
  s.bandPlanes = tunableInt(tunables, "band-planes", kDefaultBandPlanes, -1, 1 << 20);
  return s;
}

inline BackSpec backSpecFor(const std::string& name, const Tunables& tunables) {
  BackSpec s;
  s.name = name;
  const EtProjectorRow* row = findEtProjector(name, VariantRole::Backprojector);
  if (!row) throw ParameterError("backprojector", "'" + name + "' is not a GPU backprojector");
  s.kind = row->back;
  s.texel =
      s.kind == BpKind::Fast ? tunableTexel(tunables, "bp-texel", kDefaultBpTexel) : Texel::Float;
  s.layers = tunableInt(tunables, "bp-layers", kDefaultBpLayers, 1, 8);
  if (s.layers != 1 && s.layers != 2 && s.layers != 4 && s.layers != 8)
    throw ParameterError("tunable bp-layers", "must be 1, 2, 4 or 8");
  s.maxima = tunableInt(tunables, "bp-maxima", kDefaultBpMaxima, 0, 1) == 1;
  return s;
}

inline bool forwardUsesTexture(const ForwardSpec& s) {
  return s.kind != FpKind::Matched;
}
inline bool backUsesTexture(const BackSpec& s) {
  return s.kind != BpKind::Matched;
}

// ---- the problem on the host -------------------------------------------------------------------

struct EtProblem {
  VolumeShape shape;
  Eigen::Vector3d voxelSizeMm = Eigen::Vector3d::Ones();
  Eigen::Vector3d originMm = Eigen::Vector3d::Zero();
  std::int64_t views = 0, rows = 0, cols = 0;
  projector::SingleAxisGeometry axis;
  std::vector<et::SliceFpView> sliceFp;
  std::vector<et::SliceBpView> sliceBp;
  std::vector<et::VolumeFpView> volumeFp;
  std::vector<et::VolumeBpView> volumeBp;
  bool singleAxis() const { return axis.aligned; }
  std::int64_t slice2d() const { return shape.nx * shape.ny; }
};

// The 3-D Joseph parametrisation and voxel matrix of every view (JosephProjector.cpp's planeRay
// and VoxelBackprojector.cpp's setupView, in float).
inline void fillVolumeTables(const Geometry& g, EtProblem& p) {
  const Eigen::Vector3d& size = p.voxelSizeMm;
  Eigen::Matrix4d indexToWorld = Eigen::Matrix4d::Identity();
  indexToWorld.topLeftCorner<3, 3>() = size.asDiagonal();
  indexToWorld.topRightCorner<3, 1>() = p.originMm;
  for (std::int64_t k = 0; k < g.viewCount(); ++k) {
    const View& view = g.view(k);
    const Eigen::Vector3d dir = view.rayDirection.normalized();
    const Eigen::Vector3d corner = view.detectorCentre -
                                   0.5 * static_cast<double>(p.cols - 1) * view.u -
                                   0.5 * static_cast<double>(p.rows - 1) * view.v;
    const Eigen::Vector3d q0 = (corner - p.originMm).cwiseQuotient(size);
    const Eigen::Vector3d dq = dir.cwiseQuotient(size);
    const Eigen::Vector3d du = view.u.cwiseQuotient(size), dv = view.v.cwiseQuotient(size);
    int a = 0;
    dq.cwiseAbs().maxCoeff(&a);
    const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
    const double gb = dq[b] / dq[a], gc = dq[c] / dq[a];
    et::VolumeFpView f{};
    f.pb0 = float(q0[b] - q0[a] * gb);
    f.pbc = float(du[b] - du[a] * gb);
    f.pbr = float(dv[b] - dv[a] * gb);
    f.gb = float(gb);
    f.pc0 = float(q0[c] - q0[a] * gc);
    f.pcc = float(du[c] - du[a] * gc);
    f.pcr = float(dv[c] - dv[a] * gc);
    f.gc = float(gc);
    f.weight = float(1.0 / std::abs(dq[a]));
    f.axis = a;
    f.slot = int(k);
    p.volumeFp.push_back(f);
    const Eigen::Matrix<double, 3, 4> m = g.projectionMatrix(k) * indexToWorld;
    et::VolumeBpView bv{};
    for (int col = 0; col < 4; ++col) {
      bv.m[col] = float(m(0, col));
      bv.m[4 + col] = float(m(1, col));
    }
    bv.weight = float(size.prod() / std::abs(view.u.cross(view.v).dot(dir)));
    bv.slot = int(k);
    p.volumeBp.push_back(bv);
  }
}

inline EtProblem analyseProblem(const Geometry& g, const VolumeShape& shape,
                                const Eigen::Vector3d& voxelSizeMm,
                                const Eigen::Vector3d& originMm) {
  g.validate();
  if (g.beam() != BeamKind::Parallel)
    throw ParameterError("geometry",
                         "the GPU projectors of the iterative algorithms are parallel-beam only "
                         "(electron tomography); use et.fp.cpu with et.bp.cpu-matched or "
                         "et.bp.cpu-voxel for cone beams");
  if (shape.nx < 1 || shape.ny < 1 || shape.nz < 1)
    throw ParameterError("volume", "the grid is empty");
  if (!(voxelSizeMm.minCoeff() > 0)) throw ParameterError("volume", "voxel sizes must be > 0");
  EtProblem p;
  p.shape = shape;
  p.voxelSizeMm = voxelSizeMm;
  p.originMm = originMm;
  p.views = g.viewCount();
  p.rows = g.detector().rows;
  p.cols = g.detector().cols;
  // Texture limits of the H100 (2-D layered: 32768 x 32768 x 2048; 3-D: 16384 per side).
  if (p.cols > 32768 || p.views > 32768 || p.rows > 32768)
    throw ParameterError("projections",
                         "the GPU projectors take at most 32768 columns, rows and "
                         "views");
  if (shape.nx > 32768 || shape.ny > 32768)
    throw ParameterError("volume", "the GPU projectors take slices of at most 32768 x 32768");
  p.axis =
      projector::SingleAxisGeometry::analyse(g, projector::VoxelGrid{shape, voxelSizeMm, originMm});
  if (p.axis.aligned) {
    for (std::int64_t k = 0; k < p.views; ++k) {
      const projector::SliceViewCoefficients& c = p.axis.views[std::size_t(k)];
      p.sliceFp.push_back({float(c.rayOffset), float(c.rayStep), float(c.planeStep),
                           float(c.forwardWeight), c.dominantAxis, int(k)});
      p.sliceBp.push_back({float(c.cx), float(c.cy), float(c.c0), float(c.backWeight), int(k)});
    }
  } else {
    if (shape.nx > 16384 || shape.ny > 16384 || shape.nz > 16384)
      throw ParameterError("volume",
                           "the general 3-D GPU path takes at most 16384 voxels per "
                           "side (3-D texture limit)");
    fillVolumeTables(g, p);
  }
  return p;
}

inline std::string pathText(const EtProblem& p) {
  return p.singleAxis() ? "aligned single-axis (slice kernels)" : "general 3-D (volume kernels)";
}

// ---- view tables on a device -------------------------------------------------------------------

struct ViewTable {
  int count = 0;
  DeviceMemory sliceFp, sliceBp, volumeFp, volumeBp, slots;
};

// `forwardByAxis`: the forward table groups the views by dominant axis (each group in list
// order), so that the blocks running at one time walk planes of one orientation (et.fp.fast).
inline ViewTable makeViewTable(const EtProblem& p, std::span<const std::int64_t> views,
                               cudaStream_t stream, bool forwardByAxis = false) {
  ViewTable t;
  t.count = int(views.size());
  std::vector<int> slots;
  for (const std::int64_t v : views) slots.push_back(int(v));
  t.slots = DeviceMemory(slots.size() * sizeof(int), "view table");
  copyNow(t.slots.as<void>(), slots.data(), slots.size() * sizeof(int), cudaMemcpyHostToDevice,
          stream, "view table");
  const auto upload = [&](const auto& all, DeviceMemory& out) {
    using Entry = typename std::decay_t<decltype(all)>::value_type;
    std::vector<Entry> picked;
    for (const std::int64_t v : views) picked.push_back(all[std::size_t(v)]);
    out = DeviceMemory(picked.size() * sizeof(Entry), "view table");
    copyNow(out.as<void>(), picked.data(), picked.size() * sizeof(Entry), cudaMemcpyHostToDevice,
            stream, "view table");
  };
  if (p.singleAxis()) {
    if (forwardByAxis) {
      std::vector<std::int64_t> sorted(views.begin(), views.end());
      std::stable_sort(sorted.begin(), sorted.end(), [&](std::int64_t a, std::int64_t b) {
        return p.sliceFp[std::size_t(a)].axis < p.sliceFp[std::size_t(b)].axis;
      });
      std::vector<et::SliceFpView> picked;
      for (const std::int64_t v : sorted) picked.push_back(p.sliceFp[std::size_t(v)]);
      t.sliceFp = DeviceMemory(picked.size() * sizeof(et::SliceFpView), "view table");
      copyNow(t.sliceFp.as<void>(), picked.data(), picked.size() * sizeof(et::SliceFpView),
              cudaMemcpyHostToDevice, stream, "view table");
    } else {
      upload(p.sliceFp, t.sliceFp);
    }
    upload(p.sliceBp, t.sliceBp);
  } else {
    upload(p.volumeFp, t.volumeFp);
    upload(p.volumeBp, t.volumeBp);
  }
  return t;
}

// ---- the two kernels of a pair on one device ---------------------------------------------------

inline int ceilDiv(std::int64_t a, std::int64_t b) {
  return int((a + b - 1) / b);
}

// Layered textures hold at most 2048 layers.
constexpr std::int64_t kMaxLayers = 2048;

class DeviceProjector {
 public:
  // Inputs for slabs of up to `maxSlices` slices (single axis) or the whole volume (general).
  DeviceProjector(const EtProblem& p, ForwardSpec fp, BackSpec bp, std::int64_t maxSlices)
      : p_(p), fp_(std::move(fp)), bp_(std::move(bp)) {
    if (p.singleAxis()) {
      if (forwardUsesTexture(fp_)) {
        const int g = et::texelSlices(fp_.texel);
        fpLayers_ = LayeredTexture(int(p.shape.nx), int(p.shape.ny), ceilDiv(maxSlices, g),
                                   fp_.texel, "the forward projector's texture");
        if (fp_.texel == Texel::Half2) fpScales_ = halfScaleBuffers(maxSlices);
      }
      if (backUsesTexture(bp_)) {
        const int g = et::texelSlices(bp_.texel);
        bpLayers_ = LayeredTexture(int(p.cols), int(p.views), ceilDiv(maxSlices, g), bp_.texel,
                                   "the backprojector's texture");
        if (bp_.texel == Texel::Half2) bpScales_ = halfScaleBuffers(maxSlices);
      }
    } else {
      // The whole volume, or one z-slab of it (the streamed 3-D path).
      if (forwardUsesTexture(fp_))
        fpVolume_ = VolumeTexture(int(p.shape.nx), int(p.shape.ny),
                                  int(std::min<std::int64_t>(maxSlices, p.shape.nz)));
      if (backUsesTexture(bp_))
        bpLayers_ = LayeredTexture(int(p.cols), int(p.rows),
                                   int(std::min<std::int64_t>(p.views, et::kVolumeViewsPerLaunch)),
                                   Texel::Float, "the backprojector's texture");
    }
  }

  // Device bytes of the inputs for `maxSlices` (the arrays' padding is covered by the planner's
  // margin).
  static std::uint64_t bytesFor(const EtProblem& p, const ForwardSpec& fp, const BackSpec& bp,
                                std::int64_t maxSlices) {
    std::uint64_t bytes = 0;
    if (p.singleAxis()) {
      if (forwardUsesTexture(fp))
        bytes += std::uint64_t(ceilDiv(maxSlices, et::texelSlices(fp.texel))) *
                     std::uint64_t(p.slice2d()) * std::uint64_t(et::texelBytes(fp.texel)) +
                 16 * std::uint64_t(maxSlices);
      if (backUsesTexture(bp))
        bytes += std::uint64_t(ceilDiv(maxSlices, et::texelSlices(bp.texel))) *
                     std::uint64_t(p.cols * p.views) * std::uint64_t(et::texelBytes(bp.texel)) +
                 16 * std::uint64_t(maxSlices);
    } else {
      if (forwardUsesTexture(fp))
        bytes += std::uint64_t(std::min<std::int64_t>(maxSlices, p.shape.nz)) *
                 std::uint64_t(p.slice2d()) * 4;
      if (backUsesTexture(bp))
        bytes += std::uint64_t(p.cols * p.rows) *
                 std::uint64_t(std::min<std::int64_t>(p.views, et::kVolumeViewsPerLaunch)) * 4;
    }
    return bytes;
  }

  // Where a backprojection epilogue may leave max |x| per slice for the next forward (half2
  // texels of the aligned path; null otherwise).
  unsigned* forwardMaxima() const {
    return p_.singleAxis() && forwardUsesTexture(fp_) && fp_.texel == Texel::Half2
               ? fpScales_.as<unsigned>()
               : nullptr;
  }

  // Planes per launch of et.fp.fast for slices whose longest side has `planes` voxels.
  int bandPlanes(int planes) const {
    if (fp_.bandPlanes > 0) return std::min(fp_.bandPlanes, planes);
    if (fp_.bandPlanes == 0 && planes > kAutoBandAbove) return kAutoBandPlanes;
    return planes;
  }

  // Whether a backprojection of `views` views takes several launches (needs a partial buffer).
  static bool needsPartial(const EtProblem& p, std::int64_t views) {
    return views > (p.singleAxis() ? et::kSliceViewsPerLaunch : et::kVolumeViewsPerLaunch);
  }

  // The forward projection of the table's views of slab `x` (dims d) with epilogue `e`.
  // `maximaReady`: forwardMaxima() already holds max |x| per slice (the last backprojection's
  // epilogue computed it), so the half2 packing skips its pass over x.
  void forward(const float* x, const et::SlabDims& d, const ViewTable& t, et::FpEpilogue e,
               cudaStream_t s, bool maximaReady = false) {
    if (p_.singleAxis()) {
      if (forwardUsesTexture(fp_)) {
        const float* scale = nullptr;
        if (fp_.texel == Texel::Half2) {
          if (!maximaReady) {
            TOMOWB_CUDA_CHECK(
                cudaMemsetAsync(fpScales_.as<unsigned>(), 0, std::size_t(d.slices) * 4, s),
                "half scales");
            et::launchSliceMaxAbs(x, d, fpScales_.as<unsigned>(), s);
          }
          et::launchHalfScales(fpScales_.as<unsigned>(), d.slices, scaleOf(fpScales_),
                               invScaleOf(fpScales_), s);
          scale = scaleOf(fpScales_);
          e.invScale = invScaleOf(fpScales_);
        }
        et::launchPackSlices(fp_.texel, x, d, scale, fpLayers_.surface(), s);
        TOMOWB_CUDA_CHECK(cudaGetLastError(), "packing the volume into its texture");
      }
      for (int first = 0; first < t.count; first += et::kSliceViewsPerLaunch) {
        const int n = std::min(t.count - first, et::kSliceViewsPerLaunch);
        et::setSliceFpViews(t.sliceFp.as<et::SliceFpView>() + first, n, s);
        switch (fp_.kind) {
          case FpKind::Unordered:
          case FpKind::Strips:
          case FpKind::StripsAngles:
          case FpKind::Segments: {
            const int planes = int(std::max(p_.shape.nx, p_.shape.ny));
            et::launchSliceForwardSeed(int(fp_.kind), fpLayers_.texture(), d, n,
                                       ceilDiv(planes, fp_.segments), e, s);
            break;
          }
          case FpKind::Fast: {
            // Rays walked in bands of planes, one launch per band (seed 004's segments as
            // ASTRA does them), when the slice is too wide for L2.
            const int planes = int(std::max(p_.shape.nx, p_.shape.ny));
            const int band = bandPlanes(planes);
            for (int p0 = 0; p0 < planes; p0 += band) {
              et::FpEpilogue eb = e;
              eb.planeFirst = p0;
              eb.planeLast = p0 + band - 1;
              eb.first = p0 == 0;
              eb.last = p0 + band >= planes;
              if (!eb.last) eb.norms = nullptr;
              et::launchSliceForwardFast(fp_.texel, fp_.layers, fp_.angles, fp_.segmentPlanes,
                                         fpLayers_.texture(), d, n, eb, s);
            }
            break;
          }
          case FpKind::Matched:
            et::launchSliceForwardMatched(x, d, n, e, s);
            break;
        }
        TOMOWB_CUDA_CHECK(cudaGetLastError(), (fp_.name + " launch").c_str());
      }
      return;
    }
    if (forwardUsesTexture(fp_)) fpVolume_.fill(x, s);
    for (int first = 0; first < t.count; first += et::kVolumeViewsPerLaunch) {
      const int n = std::min(t.count - first, et::kVolumeViewsPerLaunch);
      et::setVolumeFpViews(t.volumeFp.as<et::VolumeFpView>() + first, n, s);
      if (fp_.kind == FpKind::Matched)
        et::launchVolumeForwardMatched(x, d, n, e, s);
      else
        et::launchVolumeForwardTex(fpVolume_.texture(), d, n, e, s);
      TOMOWB_CUDA_CHECK(cudaGetLastError(), (fp_.name + " launch (3-D)").c_str());
    }
  }

  // The backprojection of the table's views of sinogram `r` with epilogue `e` (its first/last
  // describe the whole backprojection); `partial` (slab-sized) when needsPartial().
  void backproject(const float* r, const et::SlabDims& d, const ViewTable& t, et::BpEpilogue e,
                   float* partial, cudaStream_t s) {
    const bool first = e.first, last = e.last;
    e.partial = partial;
    if (p_.singleAxis()) {
      if (backUsesTexture(bp_)) {
        const float* scale = nullptr;
        if (bp_.texel == Texel::Half2) {
          TOMOWB_CUDA_CHECK(
              cudaMemsetAsync(bpScales_.as<unsigned>(), 0, std::size_t(d.rows) * 4, s),
              "half scales");
          et::launchRowMaxAbs(r, d, t.slots.as<int>(), t.count, bpScales_.as<unsigned>(), s);
          et::launchHalfScales(bpScales_.as<unsigned>(), d.rows, scaleOf(bpScales_),
                               invScaleOf(bpScales_), s);
          scale = scaleOf(bpScales_);
          e.invScale = invScaleOf(bpScales_);
        }
        et::launchPackRows(bp_.texel, r, d, t.slots.as<int>(), t.count, scale, bpLayers_.surface(),
                           s);
        TOMOWB_CUDA_CHECK(cudaGetLastError(), "packing the residual into its texture");
      }
      for (int b0 = 0; b0 < t.count; b0 += et::kSliceViewsPerLaunch) {
        const int n = std::min(t.count - b0, et::kSliceViewsPerLaunch);
        e.first = first && b0 == 0;
        e.last = last && b0 + n == t.count;
        assert(e.last || partial);
        switch (bp_.kind) {
          case BpKind::Voxel:
            et::setSliceBpViews(t.sliceBp.as<et::SliceBpView>() + b0, n, s);
            et::launchSliceBackVoxel(bpLayers_.texture(), d, n, e, s);
            break;
          case BpKind::Fast:
            et::setSliceBpViews(t.sliceBp.as<et::SliceBpView>() + b0, n, s);
            et::launchSliceBackFast(bp_.texel, bp_.layers, bpLayers_.texture(), d, n, e, s);
            break;
          case BpKind::Matched:
            et::setSliceFpViews(t.sliceFp.as<et::SliceFpView>() + b0, n, s);
            et::launchSliceBackMatched(r, d, n, e, s);
            break;
        }
        TOMOWB_CUDA_CHECK(cudaGetLastError(), (bp_.name + " launch").c_str());
      }
      return;
    }
    for (int b0 = 0; b0 < t.count; b0 += et::kVolumeViewsPerLaunch) {
      const int n = std::min(t.count - b0, et::kVolumeViewsPerLaunch);
      e.first = first && b0 == 0;
      e.last = last && b0 + n == t.count;
      if (bp_.kind == BpKind::Matched) {
        et::setVolumeFpViews(t.volumeFp.as<et::VolumeFpView>() + b0, n, s);
        et::launchVolumeBackMatched(r, d, n, e, s);
      } else {
        et::setVolumeBpViews(t.volumeBp.as<et::VolumeBpView>() + b0, n, s);
        et::launchGatherViews(r, d, n, bpLayers_.surface(), s);
        et::launchVolumeBackVoxel(bpLayers_.texture(), d, n, e, s);
      }
      TOMOWB_CUDA_CHECK(cudaGetLastError(), (bp_.name + " launch (3-D)").c_str());
    }
  }

  // "et.fp.fast (float2 x 2 texels, 8 views per block)" and the like.
  std::string forwardLabel() const {
    if (!p_.singleAxis())
      return fp_.name +
             (fp_.kind == FpKind::Matched ? " (3-D, software bilinear)" : " (3-D, tex3D bilinear)");
    switch (fp_.kind) {
      case FpKind::Fast:
        return fp_.name + " (" + texelName(fp_.texel) + " texels x " + std::to_string(fp_.layers) +
               ", " + std::to_string(fp_.angles) + " views per block" +
               (fp_.segmentPlanes ? ", segments of " + std::to_string(fp_.segmentPlanes) : "") +
               (bandPlanes(planesOf()) < planesOf()
                    ? ", bands of " + std::to_string(bandPlanes(planesOf())) + " planes"
                    : "") +
               ")";
      case FpKind::Segments:
        return fp_.name + " (" + std::to_string(fp_.segments) + " segments per ray)";
      default:
        return fp_.name;
    }
  }
  int planesOf() const { return int(std::max(p_.shape.nx, p_.shape.ny)); }
  std::string backLabel() const {
    if (!p_.singleAxis())
      return bp_.name + (bp_.kind == BpKind::Matched ? " (3-D gather)" : " (3-D voxel-driven)");
    if (bp_.kind == BpKind::Fast)
      return bp_.name + " (" + texelName(bp_.texel) + " texels x " + std::to_string(bp_.layers) +
             ")";
    return bp_.name;
  }

 private:
  // [maxBits | scale | invScale], `count` of each.
  static DeviceMemory halfScaleBuffers(std::int64_t count) {
    return DeviceMemory(std::size_t(count) * 12, "half2 scales");
  }
  float* scaleOf(const DeviceMemory& m) const {
    return reinterpret_cast<float*>(m.as<char>() + m.bytes() / 3);
  }
  float* invScaleOf(const DeviceMemory& m) const {
    return reinterpret_cast<float*>(m.as<char>() + 2 * (m.bytes() / 3));
  }

  const EtProblem& p_;
  ForwardSpec fp_;
  BackSpec bp_;
  LayeredTexture fpLayers_, bpLayers_;
  VolumeTexture fpVolume_;
  DeviceMemory fpScales_, bpScales_;
};

inline et::SlabDims sliceDims(const EtProblem& p, std::int64_t slices) {
  et::SlabDims d;
  d.nx = int(p.shape.nx);
  d.ny = int(p.shape.ny);
  d.slices = int(slices);
  d.cols = int(p.cols);
  d.rows = int(slices);
  d.views = int(p.views);
  return d;
}

inline et::SlabDims volumeDims(const EtProblem& p) {
  et::SlabDims d;
  d.nx = int(p.shape.nx);
  d.ny = int(p.shape.ny);
  d.slices = int(p.shape.nz);
  d.cols = int(p.cols);
  d.rows = int(p.rows);
  d.views = int(p.views);
  return d;
}

// Slices [z0, z0 + n) of the volume for the 3-D kernels (the streamed general path).
inline et::SlabDims volumeSlabDims(const EtProblem& p, std::int64_t z0, std::int64_t n) {
  et::SlabDims d = volumeDims(p);
  d.slices = int(n);
  d.zFirst = int(z0);
  d.volumeSlices = int(p.shape.nz);
  return d;
}

// Uploads the detector rows of slices [z0, z0 + n) (single axis) of every view into `device`
// ([view][slice][col]), ordered on `stream`.
inline void uploadSliceRows(const EtProblem& p, const float* host, std::int64_t z0, std::int64_t n,
                            float* device, cudaStream_t stream) {
  const std::size_t cols = std::size_t(p.cols), rowBytes = cols * 4;
  const std::size_t hostPitch = std::size_t(p.rows) * rowBytes,
                    devPitch = std::size_t(n) * rowBytes;
  if (p.axis.rowDirection > 0) {
    TOMOWB_CUDA_CHECK(
        cudaMemcpy2DAsync(device, devPitch, host + std::size_t(p.axis.rowOf(z0)) * cols, hostPitch,
                          devPitch, std::size_t(p.views), cudaMemcpyHostToDevice, stream),
        "uploading projections");
    return;
  }
  for (std::int64_t s = 0; s < n; ++s)
    TOMOWB_CUDA_CHECK(
        cudaMemcpy2DAsync(device + std::size_t(s) * cols, devPitch,
                          host + std::size_t(p.axis.rowOf(z0 + s)) * cols, hostPitch, rowBytes,
                          std::size_t(p.views), cudaMemcpyHostToDevice, stream),
        "uploading projections");
}

// Device bytes usable on every listed GPU: the free memory less a reserve, at most `limit` (0: no
// limit).
inline std::uint64_t usableBytes(const std::vector<int>& devices, std::uint64_t limit) {
  // Kept free for the runtime, cuFFT or the display.
  constexpr std::uint64_t kReserve = std::uint64_t{256} << 20;
  std::uint64_t usable = std::numeric_limits<std::uint64_t>::max();
  for (int d : devices) {
    std::size_t freeBytes = 0, totalBytes = 0;
    TOMOWB_CUDA_CHECK(cudaSetDevice(d), "selecting the GPU");
    cuda::freeDeviceMemory(freeBytes, totalBytes);
    usable = std::min<std::uint64_t>(usable, freeBytes > kReserve ? freeBytes - kReserve : 0);
  }
  if (limit) usable = std::min(usable, limit);
  return usable;
}

}  // namespace tomowb::cuda::etgpu

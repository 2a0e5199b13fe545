// ListModeSimulatorCuda.cu: the GPU list-mode simulator's kernels (GpuListModeSimulator.h). The
// physics is the CPU simulator's (ListModeSimulator.h) through the same host/device functions of
// DetectorHits.h and AttenuationPath.h, in float32; random numbers come from one curand
// Philox4x32-10 stream per thread (trues) or per event (randoms). Detected coincidences are
// appended with one atomic per group of converged threads (a warp's detections share one
// counter update), so their order varies between runs while the set of events does not.
#include <cooperative_groups.h>
#include <curand_kernel.h>

#include "recon/device/CudaCheck.h"
#include "recon/pet/ListModeEvent.h"
#include "recon/pet/cuda/ListModeSimulatorKernels.cuh"

namespace tomowb::pet::gpu {

namespace {

namespace cg = cooperative_groups;
using Vec3f = Vec3<float>;
using Rng = curandStatePhilox4_32_10_t;

constexpr float kSpeedOfLightMmPerPs = 0.299792458f;

struct Packed {
  std::uint32_t w[3];
};

__device__ Packed pack(int c1, int r1, int c2, int r2, int tofLsb, unsigned flags) {
  Packed p;
  p.w[0] = std::uint32_t(c1) | (std::uint32_t(r1) << 16);
  p.w[1] = std::uint32_t(c2) | (std::uint32_t(r2) << 16);
  p.w[2] = (std::uint32_t(tofLsb) & 0xffffu) | (flags << 16);
  return p;
}

__device__ void store(std::uint32_t* out, unsigned long long at, const Packed& p) {
  out[3 * at] = p.w[0];
  out[3 * at + 1] = p.w[1];
  out[3 * at + 2] = p.w[2];
}

// Uniform index in [0, n) from 32 random bits.
__device__ std::uint32_t pickIndex(Rng& rng, std::uint32_t n) {
  return std::uint32_t((std::uint64_t(curand(&rng)) * n) >> 32);
}

// d turned by two small angles about axes normal to it (ListModeSimulator.cpp's deviate).
__device__ Vec3f deviate(Vec3f d, float angle1, float angle2) {
  const Vec3f axis = fabsf(d.x) < 0.9f ? Vec3f{1, 0, 0} : Vec3f{0, 1, 0};
  Vec3f e1{axis.y * d.z - axis.z * d.y, axis.z * d.x - axis.x * d.z, axis.x * d.y - axis.y * d.x};
  e1 = (1.0f / norm(e1)) * e1;
  const Vec3f e2{d.y * e1.z - d.z * e1.y, d.z * e1.x - d.x * e1.z, d.x * e1.y - d.y * e1.x};
  const Vec3f turned = d + angle1 * e1 + angle2 * e2;
  return (1.0f / norm(turned)) * turned;
}

// One annihilation; true with the packed event when the pair is recorded.
__device__ bool simulateDecay(const TruesLaunch& l, Rng& rng, Packed* event) {
  const std::uint32_t j = pickIndex(rng, l.emissionSize);
  const DeviceEmissionEntry& entry = l.emission[j];
  const DeviceEmissionEntry& chosen =
      curand_uniform(&rng) <= entry.threshold ? entry : l.emission[entry.alias];
  const float4 u = curand_uniform4(&rng);
  const Vec3f x{chosen.cornerMm[0] + l.voxelMm[0] * u.x, chosen.cornerMm[1] + l.voxelMm[1] * u.y,
                chosen.cornerMm[2] + l.voxelMm[2] * u.z};
  const float uz = l.bandSin * (2.0f * u.w - 1.0f);
  float sinPhi = 0, cosPhi = 0;
  sincospif(2.0f * curand_uniform(&rng), &sinPhi, &cosPhi);
  const float sinTheta = sqrtf(fmaxf(0.0f, 1.0f - uz * uz));
  const Vec3f d1{sinTheta * cosPhi, sinTheta * sinPhi, uz};
  Vec3f d2 = -1.0f * d1;
  if (l.acollinearitySigmaRad > 0) {
    const float2 a = curand_normal2(&rng);
    d2 = deviate(d2, l.acollinearitySigmaRad * a.x, l.acollinearitySigmaRad * a.y);
  }
  int module1 = 0, module2 = 0;
  const float s1 = exitDistance(l.hits, x, d1, &module1);
  const float s2 = exitDistance(l.hits, x, d2, &module2);
  if (!(s1 > 0) || !(s2 > 0)) return false;
  const Vec3f h1 = x + s1 * d1, h2 = x + s2 * d2;
  if (!hitOnCrystals(l.hits, h1, module1) || !hitOnCrystals(l.hits, h2, module2)) return false;
  float4 blur{0, 0, 0, 0};
  if (l.positioningSigmaMm > 0) {
    blur = curand_normal4(&rng);
    blur.x *= l.positioningSigmaMm;
    blur.y *= l.positioningSigmaMm;
    blur.z *= l.positioningSigmaMm;
    blur.w *= l.positioningSigmaMm;
  }
  int c1 = 0, r1 = 0, c2 = 0, r2 = 0;
  snapToCrystal(l.hits, h1, module1, blur.x, blur.y, &c1, &r1);
  snapToCrystal(l.hits, h2, module2, blur.z, blur.w, &c2, &r2);
  if (!acceptLor(l.hits, crystalCentre<float>(l.hits, c1, r1),
                 crystalCentre<float>(l.hits, c2, r2)))
    return false;
  if (l.attenuation.mu) {
    // Survival exp(-integral): the integral must stay below an Exp(1) draw.
    const float budget = -logf(curand_uniform(&rng));
    const float first = segmentIntegral(l.attenuation, x, h1, budget);
    if (first > budget) return false;
    if (first + segmentIntegral(l.attenuation, x, h2, budget - first) > budget) return false;
  }
  float dtPs = (s1 - s2) / kSpeedOfLightMmPerPs;
  if (l.tofSigmaPs > 0) dtPs += l.tofSigmaPs * curand_normal(&rng);
  if (fabsf(dtPs) > l.halfWindowPs) return false;
  *event = pack(c1, r1, c2, r2, __float2int_rn(dtPs / l.tofLsbPs), 0u);
  return true;
}

__global__ void truesKernel(const TruesLaunch l) {
  const std::uint64_t thread = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t threads = std::uint64_t(gridDim.x) * blockDim.x;
  Rng rng;
  curand_init(l.seed, l.subsequence + thread, 0, &rng);
  for (std::uint64_t i = thread; i < l.decays; i += threads) {
    Packed event;
    if (!simulateDecay(l, rng, &event)) continue;
    // The threads that detected something now append together: one atomic per group.
    const cg::coalesced_group group = cg::coalesced_threads();
    unsigned long long base = 0;
    if (group.thread_rank() == 0) base = atomicAdd(l.count, (unsigned long long)group.size());
    base = group.shfl(base, 0);
    const unsigned long long at = base + group.thread_rank();
    if (at < l.capacity) store(l.out, at, event);
  }
}

__global__ void randomsKernel(const RandomsLaunch l) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= l.randoms + l.delayed) return;
  Rng rng;
  curand_init(l.seed, l.subsequence + i, 0, &rng);
  int c1 = 0, r1 = 0, c2 = l.hits.crystalsPerRing / 2, r2 = 0;
  for (int attempt = 0; attempt < 100000; ++attempt) {
    const int a1 = int(pickIndex(rng, std::uint32_t(l.hits.crystalsPerRing)));
    const int b1 = int(pickIndex(rng, std::uint32_t(l.hits.rings)));
    const int a2 = int(pickIndex(rng, std::uint32_t(l.hits.crystalsPerRing)));
    const int b2 = int(pickIndex(rng, std::uint32_t(l.hits.rings)));
    if (acceptLor(l.hits, crystalCentre<float>(l.hits, a1, b1),
                  crystalCentre<float>(l.hits, a2, b2))) {
      c1 = a1, r1 = b1, c2 = a2, r2 = b2;
      break;
    }
  }
  const float dtPs = (2.0f * curand_uniform(&rng) - 1.0f) * l.halfWindowPs;
  const unsigned flags = i < l.randoms ? unsigned(kEventRandom) : unsigned(kEventDelayed);
  store(l.out, i, pack(c1, r1, c2, r2, __float2int_rn(dtPs / l.tofLsbPs), flags));
}

}  // namespace

void launchTrues(const TruesLaunch& l, cudaStream_t stream) {
  truesKernel<<<l.blocks, l.threads, 0, stream>>>(l);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "pet.simulate.trues launch");
}

void launchRandoms(const RandomsLaunch& l, cudaStream_t stream) {
  const std::uint64_t n = l.randoms + l.delayed;
  if (n == 0) return;
  constexpr int kThreads = 256;
  randomsKernel<<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(l);
  TOMOWB_CUDA_CHECK(cudaGetLastError(), "pet.simulate.randoms launch");
}

}  // namespace tomowb::pet::gpu

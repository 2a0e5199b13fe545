#include "recon/fdk/cuda/FftPlanPool.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "recon/device/CudaCheck.h"

namespace tomowb::cuda::fdkgpu {

bool FftPlanKey::operator<(const FftPlanKey& o) const {
  return std::tie(device, length, stride, batch) < std::tie(o.device, o.length, o.stride, o.batch);
}

namespace {

// Idle pairs per shape: two devices' runs at once, or a run and its retry, need no more.
constexpr std::size_t kIdlePerShape = 2;

struct Pool {
  std::mutex mutex;
  std::map<FftPlanKey, std::vector<FftPlanPair>> idle;
};

// Never destroyed: the plans must not outlive the CUDA runtime at exit, so the idle ones are
// left to the driver's teardown.
Pool& pool() {
  static Pool* const instance = new Pool;  // NOLINT(cppcoreguidelines-owning-memory)
  return *instance;
}

void destroy(FftPlanPair& p) noexcept {
  if (p.forward) cufftDestroy(p.forward);
  if (p.inverse) cufftDestroy(p.inverse);
  p = {};
}

void check(cufftResult status, FftPlanPair& made, const char* call) {
  if (status == CUFFT_SUCCESS) return;
  destroy(made);
  throw CudaError(std::string("ramp filter plan: ") + call + " failed with cuFFT status " +
                  std::to_string(int(status)) +
                  (status == CUFFT_ALLOC_FAILED ? " (GPU out of memory)" : ""));
}

FftPlanPair make(const FftPlanKey& k) {
  FftPlanPair p;
  long long length[1] = {k.length};
  long long realEmbed[1] = {k.stride};
  long long complexEmbed[1] = {k.stride / 2};
  std::size_t forwardBytes = 0, inverseBytes = 0;
  check(cufftCreate(&p.forward), p, "cufftCreate");
  check(cufftCreate(&p.inverse), p, "cufftCreate");
  check(cufftSetAutoAllocation(p.forward, 0), p, "cufftSetAutoAllocation");
  check(cufftSetAutoAllocation(p.inverse, 0), p, "cufftSetAutoAllocation");
  check(cufftMakePlanMany64(p.forward, 1, length, realEmbed, 1, k.stride, complexEmbed, 1,
                            k.stride / 2, CUFFT_R2C, k.batch, &forwardBytes),
        p, "cufftMakePlanMany64 (R2C)");
  check(cufftMakePlanMany64(p.inverse, 1, length, complexEmbed, 1, k.stride / 2, realEmbed, 1,
                            k.stride, CUFFT_C2R, k.batch, &inverseBytes),
        p, "cufftMakePlanMany64 (C2R)");
  p.workBytes = std::max(forwardBytes, inverseBytes);
  return p;
}

}  // namespace

FftPlanPair acquireFftPlans(const FftPlanKey& key) {
  {
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    auto it = p.idle.find(key);
    if (it != p.idle.end() && !it->second.empty()) {
      FftPlanPair plans = it->second.back();
      it->second.pop_back();
      return plans;
    }
  }
  return make(key);  // outside the lock: other threads' runs need not wait for it
}

void releaseFftPlans(const FftPlanKey& key, FftPlanPair plans) noexcept {
  Pool& p = pool();
  std::unique_lock lock(p.mutex);
  try {
    std::vector<FftPlanPair>& idle = p.idle[key];
    if (idle.size() < kIdlePerShape) {
      idle.push_back(plans);
      return;
    }
  } catch (...) {  // no memory for the pool: destroy it instead
  }
  lock.unlock();
  destroy(plans);
}

void destroyFftPlans(FftPlanPair& plans) noexcept {
  destroy(plans);
}

void dropIdleFftPlans() noexcept {
  std::map<FftPlanKey, std::vector<FftPlanPair>> idle;
  {
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    idle.swap(p.idle);
  }
  for (auto& [key, pairs] : idle)
    for (FftPlanPair& plans : pairs) destroy(plans);
}

}  // namespace tomowb::cuda::fdkgpu

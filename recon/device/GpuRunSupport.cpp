#include "recon/device/GpuRunSupport.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

#include "recon/core/Error.h"
#include "recon/device/CudaCheck.h"
#include "recon/device/GpuDevices.h"

namespace tomowb::cuda {

std::vector<int> devicesToUse(const std::vector<int>& requested) {
  const std::vector<GpuDevice> all = listGpuDevices();
  if (all.empty()) throw ParameterError("GPU", "no usable GPU: " + gpuStatus());
  std::vector<int> out;
  if (requested.empty()) {
    for (const GpuDevice& d : all) out.push_back(d.index);
    return out;
  }
  for (int d : requested) {
    if (d < 0 || d >= int(all.size()))
      throw ParameterError("GPU", "device " + std::to_string(d) + " does not exist (" +
                                      std::to_string(all.size()) + " visible)");
    if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  return out;
}

int tunableInt(const std::map<std::string, std::string>& tunables, const std::string& name,
               int fallback, int lo, int hi) {
  const auto it = tunables.find(name);
  if (it == tunables.end()) return fallback;
  try {
    std::size_t used = 0;
    const int value = std::stoi(it->second, &used);
    if (used != it->second.size() || value < lo || value > hi) throw std::invalid_argument("");
    return value;
  } catch (const std::exception&) {
    throw ParameterError("tunable " + name, "must be an integer in [" + std::to_string(lo) + ", " +
                                                std::to_string(hi) + "], got '" + it->second + "'");
  }
}

bool isOutOfMemory(const std::exception& e) {
  return std::string(e.what()).find("out of memory") != std::string::npos;
}

namespace {

// One thread, started with the first release, works through the queue; `pending` counts posted
// releases that have not finished.
struct ReleaseQueue {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<int, std::function<void()>>> queue;
  std::size_t pending = 0;
  bool started = false;

  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return !queue.empty(); });
      auto [device, release] = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      if (cudaSetDevice(device) == cudaSuccess) release();
      cudaGetLastError();
      release = nullptr;  // whatever it held goes before the count drops
      lock.lock();
      --pending;
      changed.notify_all();
    }
  }
};

// Never destroyed: the thread runs until the process ends.
ReleaseQueue& releaseQueue() {
  static ReleaseQueue* const queue = new ReleaseQueue;  // NOLINT(cppcoreguidelines-owning-memory)
  return *queue;
}

}  // namespace

void releaseAfterRun(int device, std::function<void()> release) {
  ReleaseQueue& q = releaseQueue();
  {
    std::lock_guard lock(q.mutex);
    try {
      if (!q.started) {
        std::thread([&q] { q.run(); }).detach();
        q.started = true;
      }
      q.queue.emplace_back(device, std::move(release));
      ++q.pending;
      q.changed.notify_all();
      return;
    } catch (...) {  // no thread or no memory for the queue: release it here
    }
  }
  if (release) release();
}

void waitForReleasedRuns() {
  ReleaseQueue& q = releaseQueue();
  std::unique_lock lock(q.mutex);
  q.changed.wait(lock, [&] { return q.pending == 0; });
}

void freeDeviceMemory(std::size_t& freeBytes, std::size_t& totalBytes) {
  waitForReleasedRuns();
  TOMOWB_CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes), "reading free GPU memory");
}

}  // namespace tomowb::cuda

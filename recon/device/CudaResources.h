// RAII for the CUDA resources of the GPU pipelines (STYLE.md, "RAII for every GPU resource"):
// device memory, streams, events, plus event timing and a stream-ordered blocking copy. Included
// by recon/cuda/*.cpp only; public headers never include it (nor cuda_runtime.h).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "recon/device/CudaCheck.h"

namespace tomowb::cuda {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  DeviceMemory(std::size_t bytes, const char* what) : bytes_(bytes) {
    if (bytes) TOMOWB_CUDA_CHECK(cudaMalloc(&p_, bytes), what);
  }
  ~DeviceMemory() {
    if (p_) cudaFree(p_);
  }
  DeviceMemory(DeviceMemory&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceMemory& operator=(DeviceMemory&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { TOMOWB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "stream"); }
  // A stream of the given priority (cudaDeviceGetStreamPriorityRange: lower numbers first).
  explicit Stream(int priority) {
    TOMOWB_CUDA_CHECK(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, priority), "stream");
  }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  operator cudaStream_t() const { return s_; }  // NOLINT(google-explicit-constructor)

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { TOMOWB_CUDA_CHECK(cudaEventCreate(&e_), "event"); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  operator cudaEvent_t() const { return e_; }  // NOLINT(google-explicit-constructor)

 private:
  cudaEvent_t e_ = nullptr;
};

inline double elapsedSeconds(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  if (cudaEventElapsedTime(&ms, from, to) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0.0;
  }
  return double(ms) * 1e-3;
}

// A blocking copy ordered on `stream`. Plain cudaMemcpy runs on the legacy default stream, which
// our non-blocking streams do not wait for, and from pageable memory it may return before the
// copy has landed: a kernel on `stream` could then read stale data.
inline void copyNow(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                    cudaStream_t stream, const char* what) {
  if (!bytes) return;
  TOMOWB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream), what);
  TOMOWB_CUDA_CHECK(cudaStreamSynchronize(stream), what);
}

}  // namespace tomowb::cuda

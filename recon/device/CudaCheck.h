// TOMOWB_CUDA_CHECK: turns a failed CUDA runtime call into tomowb::CudaError naming the call,
// the file and line and what it was doing. Included by .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "recon/core/Error.h"

namespace tomowb {

class CudaError : public Error {
 public:
  using Error::Error;
};

[[noreturn]] inline void throwCudaError(cudaError_t status, const char* call, const char* file,
                                        int line, const std::string& what) {
  throw CudaError(what + ": " + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cudaGetErrorString(status));
}

}  // namespace tomowb

#define TOMOWB_CUDA_CHECK(call, what)                                            \
  do {                                                                           \
    const cudaError_t tomowbStatus = (call);                                     \
    if (tomowbStatus != cudaSuccess)                                             \
      ::tomowb::throwCudaError(tomowbStatus, #call, __FILE__, __LINE__, (what)); \
  } while (0)

// What the GPU pipelines (GpuFdk.cpp, GpuEt.cpp) share on the host side: the devices a run uses,
// integer tunables by name, and recognising a CUDA out-of-memory error. Plain C++ (no CUDA
// types); compiled with the CUDA sources only.
#pragma once

#include <exception>
#include <map>
#include <string>
#include <vector>

namespace tomowb::cuda {

// Every visible GPU when `requested` is empty, else the requested indices (duplicates dropped).
// Throws ParameterError when there is no usable GPU or an index does not exist.
std::vector<int> devicesToUse(const std::vector<int>& requested);

// The tunable `name` as an integer in [lo, hi], or `fallback` when it is not given; throws
// ParameterError naming the tunable for anything else.
int tunableInt(const std::map<std::string, std::string>& tunables, const std::string& name,
               int fallback, int lo, int hi);

// Whether an error (CudaError from TOMOWB_CUDA_CHECK) reports device memory exhaustion.
bool isOutOfMemory(const std::exception& e);

}  // namespace tomowb::cuda

// What the GPU pipelines (GpuFdk.cpp, GpuEt.cpp) share on the host side: the devices a run uses,
// integer tunables by name, and recognising a CUDA out-of-memory error. Plain C++ (no CUDA
// types); compiled with the CUDA sources only.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
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

// Runs `release` (which frees a finished run's device buffers) on a thread of its own with
// `device` current, so that the run returns its result without waiting for cudaFree (3 ms for a
// 512^3 FDK's 2.4 GB). Runs it here when no thread can be started. Releases must not throw.
void releaseAfterRun(int device, std::function<void()> release);
// Waits until every release posted so far has run. Whatever reads the free memory of a GPU to plan
// a run calls it first (freeDeviceMemory), so that the plan sees what the last run freed.
void waitForReleasedRuns();
// The current device's free and total memory (cudaMemGetInfo) after waitForReleasedRuns; throws
// CudaError when CUDA cannot say.
void freeDeviceMemory(std::size_t& freeBytes, std::size_t& totalBytes);

}  // namespace tomowb::cuda

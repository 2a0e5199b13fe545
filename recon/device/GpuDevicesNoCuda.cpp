// GpuDevices.h for builds without CUDA: no devices.
#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"

namespace tomowb::cuda {

std::vector<GpuDevice> listGpuDevices() {
  return {};
}
std::string gpuStatus() {
  return "built without CUDA (TOMOWB_CUDA=OFF)";
}
void warmUpGpuContexts(const std::vector<int>&) {}
void runDeviceSelfTest(int) {
  throw Error("built without CUDA (TOMOWB_CUDA=OFF)");
}

}  // namespace tomowb::cuda

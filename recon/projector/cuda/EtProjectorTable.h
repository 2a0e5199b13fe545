// EtProjectorTable: the GPU ET family's one descriptor table (issue #18, point 3). One row per
// projector variant: the description and tunables the registry shows, its role, model and
// accuracy class, which forward projector it is the exact transpose of, and the kind of kernel
// it launches (EtDeviceProjector.h reads the kind once per bind; nothing compares names).
// registerGpuEtVariants (GpuEtVariants.cpp) registers every row. Included by CUDA-side sources.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "recon/variant/AccuracyClass.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cuda::etgpu {

enum class FpKind { Unordered, Strips, StripsAngles, Segments, Fast, Matched };
enum class BpKind { Voxel, Fast, Matched };

struct EtProjectorRow {
  std::string name;         // "et.fp.fast"
  std::string description;  // one line
  std::vector<Tunable> tunables;
  VariantRole role = VariantRole::ForwardProjector;  // or Backprojector
  std::string model;                                 // "joseph" or "voxel"
  std::string adjointOf;  // backprojectors: the forward projector it is the exact transpose of
  qa::AccuracyClass accuracy = qa::AccuracyClass::HardwareInterpolation;
  FpKind forward = FpKind::Fast;  // forward projectors: the kernel
  BpKind back = BpKind::Fast;     // backprojectors: the kernel
};

// Every row, forward projectors first, in registration order.
const std::vector<EtProjectorRow>& etProjectorRows();
// The row of that name and role, or null.
const EtProjectorRow* findEtProjector(std::string_view name, VariantRole role);

}  // namespace tomowb::cuda::etgpu

// The DIRECT GPU side through a plain C++ header (no CUDA types; DESIGN.md): the device-resident
// DIRECT pairs (cuda/DirectGpuPair.cpp) and the GPU deposition of list-mode events
// (cuda/DirectGpuDeposition.cpp). Builds without CUDA get the stand-ins of GpuDirectNoCuda.cpp,
// which refuse with a clear message.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "recon/core/GpuRunOptions.h"
#include "recon/pet/Deposition.h"
#include "recon/pet/DirectPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::pet {

// How a GPU DIRECT projector gathers (DirectPair.h lists the variants).
enum class GpuDirectScheme { GatherTex, GatherReg, Fft };

// The GPU pair of a forward and a backprojector scheme on the first GPU of problem.gpu.devices,
// the image and histo-images resident. Null with the reason in `why` (no GPU, FFT with a
// variant or asymmetric kernel, not enough GPU memory: says what would fit).
std::unique_ptr<DirectPair> makeGpuDirectPair(const DirectProblem& problem,
                                              std::shared_ptr<const DirectKernels> kernels,
                                              GpuDirectScheme forward, GpuDirectScheme back,
                                              std::string& why);

// Registers the GPU DIRECT variants (direct.fp.gather-tex, .gather-reg, .fft and their bp
// partners); nothing without CUDA.
void registerGpuDirectVariants(VariantRegistry& registry);

// Deposition on the GPU: the events uploaded once (resident), deposited on demand. The nearest-
// voxel mode counts with uint32 atomics: bit-identical to depositEvents() on the CPU. The
// weighted modes add with float atomics (the same sums to float rounding, order varying).
class GpuEventDeposition {
 public:
  // Throws ParameterError without a GPU, OutOfMemoryError (naming sizes) when the events and
  // the histo-images do not fit.
  GpuEventDeposition(const ScannerModel& scanner, const VolumeGrid& grid, const ViewBinning& views,
                     std::span<const ListModeEvent> events, const GpuRunOptions& gpu);
  ~GpuEventDeposition();
  GpuEventDeposition(const GpuEventDeposition&) = delete;
  GpuEventDeposition& operator=(const GpuEventDeposition&) = delete;

  // Deposits the resident events into device histo-images (zeroed first) and adds them into
  // `histo` (downloaded) unless `download` is false. report.seconds is the kernel time (CUDA
  // events); the upload at construction is in uploadSeconds().
  DepositionReport deposit(const DepositionParams& params, HistoImages* histo);
  double uploadSeconds() const noexcept;

 private:
  void launch(const DepositionParams& params);
  void addInto(const DepositionParams& params, HistoImages& histo);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Deposits events held on the host: uploads them in chunks and adds into `histo`.
DepositionReport depositEventsGpu(const ScannerModel& scanner,
                                  std::span<const ListModeEvent> events,
                                  const DepositionParams& params, HistoImages& histo,
                                  const GpuRunOptions& gpu, JobContext& context);

}  // namespace tomowb::pet

// FftPlanPool: the ramp filter's cuFFT plans, kept between runs (issue #22, point 1). Making a
// batched R2C/C2R plan pair takes about a millisecond, and a run of the GPU FDK needs one pair per
// batch of rows its chunks hold (four or five shapes with the growing first chunks), so a run that
// made them would spend several milliseconds of a 0.08 s budget on them. A RowFilter takes its
// plans from the pool and gives them back when it goes; the window's second run and the
// benchmark's repeats then make none. The pooled plans own no work area (cuFFT's auto allocation
// is off): the RowFilter that holds them gives them its own, so idle plans keep no GPU memory
// beyond cuFFT's small tables. Thread-safe; plans are per device (made on the current one).
#pragma once

#include <cufft.h>

#include <cstddef>

namespace tomowb::cuda::fdkgpu {

struct FftPlanKey {
  int device = 0;
  int length = 0;  // real samples per transform
  int stride = 0;  // floats between rows (real), complex values between rows: stride / 2
  int batch = 0;   // rows per execution
  bool operator<(const FftPlanKey& o) const;
};

struct FftPlanPair {
  cufftHandle forward = 0, inverse = 0;  // R2C, C2R, in place
  std::size_t workBytes = 0;             // the larger of the two work areas
};

// A pooled pair for `key` (on the current device), or a new one. Throws CudaError when cuFFT
// cannot make it (out of GPU memory).
FftPlanPair acquireFftPlans(const FftPlanKey& key);
// Gives a pair back for the next run (at most a few idle pairs per shape are kept).
void releaseFftPlans(const FftPlanKey& key, FftPlanPair plans) noexcept;
// Destroys a pair (not pooled).
void destroyFftPlans(FftPlanPair& plans) noexcept;
// Destroys the idle pairs (the pipeline's retry after running out of GPU memory).
void dropIdleFftPlans() noexcept;

}  // namespace tomowb::cuda::fdkgpu

// Ramp filter of FDK / FBP, applied along detector rows through Eigen's FFT (header-only,
// permissively licensed, float and double on both our machines). The band-limited ramp is built
// from its exact spatial samples (Kak & Slaney, eq. 3.61: h[0] = 1/(4 tau^2), h[odd n] =
// -1/(n pi tau)^2, h[even n] = 0), zero-padded to at least twice the row length so the circular
// convolution does not wrap, and multiplied by a window with a cut-off.
#pragma once

#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tomowb::fdk {

enum class RampWindow { RamLak, SheppLogan, Cosine, Hamming, Hann };

std::string_view toString(RampWindow window);
// Accepts "ram-lak", "shepp-logan", "cosine", "hamming", "hann" (case-insensitive); throws
// ParameterError listing the choices otherwise.
RampWindow rampWindowFromString(std::string_view name);

// The window's gain at frequency f given as a fraction of the Nyquist frequency (0..1), with
// the cut-off `cutoff` (0 < cutoff <= 1): 0 above the cut-off. Closed forms:
//   Ram-Lak 1; Shepp-Logan sinc(f / (2 fc)) = sin(x)/x, x = pi f / (2 fc);
//   cosine cos(pi f / (2 fc)); Hamming 0.54 + 0.46 cos(pi f / fc); Hann 0.5 + 0.5 cos(pi f / fc).
double windowGain(RampWindow window, double f, double cutoff);

struct RampFilterParams {
  RampWindow window = RampWindow::RamLak;
  double cutoff = 1.0;  // fraction of Nyquist, (0, 1]
};

// Throws ParameterError("filter cut-off") unless 0 < cutoff <= 1 (NaN refused). RampFilter's
// constructor calls it; callers that build filters inside a parallel region call it first, so
// that nothing throws inside the region.
void checkRampFilterParams(const RampFilterParams& params);

// Filters rows of `rowLength` samples spaced `sampleSpacingMm` apart (at the isocentre for cone
// beams). The output is the convolution with the ramp kernel, in 1/mm per input unit, so a
// backprojection with the angular step gives absolute attenuation. One instance per thread.
template <typename Scalar>
class RampFilter {
 public:
  // paddedLength: the FFT length, at least 2 * rowLength and even; 0: paddedRowLength(rowLength).
  RampFilter(std::int64_t rowLength, double sampleSpacingMm, RampFilterParams params,
             std::int64_t paddedLength = 0);
  ~RampFilter();
  RampFilter(RampFilter&&) noexcept;
  RampFilter& operator=(RampFilter&&) noexcept;
  RampFilter(const RampFilter&) = delete;
  RampFilter& operator=(const RampFilter&) = delete;

  std::int64_t rowLength() const noexcept { return rowLength_; }
  std::int64_t paddedLength() const noexcept { return paddedLength_; }
  // The filter's real frequency response on the padded grid (bins 0..padded/2), 1/mm units.
  const std::vector<Scalar>& response() const noexcept { return response_; }

  // In place: row.size() must equal rowLength().
  void filterRow(std::span<Scalar> row);

 private:
  struct Fft;
  std::int64_t rowLength_;
  std::int64_t paddedLength_;
  std::vector<Scalar> response_;
  std::vector<Scalar> padded_;
  std::vector<std::complex<Scalar>> spectrum_;
  Fft* fft_ = nullptr;  // Eigen::FFT, kept out of this header
};

// Smallest power of two >= max(2 * rowLength, 64).
std::int64_t paddedRowLength(std::int64_t rowLength);

// The GPU's FFT length. For the plain ramp (Ram-Lak, cut-off 1): the smallest 2^a x m >=
// max(2 * rowLength, 64) with a >= 4 and m one of 1, 3, 5, 7, 9, 15, the lengths cuFFT transforms
// in few passes; rows of 1248 samples take 2560 instead of 4096 (issue #22: the filter shares the
// GPU with the backprojection). The ramp's spatial samples up to the row's length are all in at
// any length >= 2 * rowLength, so it filters the same to rounding. A window or a cut-off below 1
// is sampled on the length's grid and its tails wrap around it (0.5 % of a row's largest value
// between 2560 and 4096): those keep paddedRowLength, the CPU's length.
std::int64_t gpuFftRowLength(std::int64_t rowLength, const RampFilterParams& filter = {});

}  // namespace tomowb::fdk

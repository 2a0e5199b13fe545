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
  RampFilter(std::int64_t rowLength, double sampleSpacingMm, RampFilterParams params);
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

}  // namespace tomowb::fdk

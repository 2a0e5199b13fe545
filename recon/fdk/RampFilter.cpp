#include "recon/fdk/RampFilter.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>
#include <string>
#include <unsupported/Eigen/FFT>
#include <utility>

#include "recon/core/Error.h"

namespace tomowb::fdk {

std::string_view toString(RampWindow window) {
  switch (window) {
    case RampWindow::RamLak:
      return "ram-lak";
    case RampWindow::SheppLogan:
      return "shepp-logan";
    case RampWindow::Cosine:
      return "cosine";
    case RampWindow::Hamming:
      return "hamming";
    case RampWindow::Hann:
      return "hann";
  }
  return "?";
}

RampWindow rampWindowFromString(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::replace(lower.begin(), lower.end(), '_', '-');
  for (RampWindow w : {RampWindow::RamLak, RampWindow::SheppLogan, RampWindow::Cosine,
                       RampWindow::Hamming, RampWindow::Hann})
    if (lower == toString(w)) return w;
  if (lower == "ramlak" || lower == "ramp") return RampWindow::RamLak;
  if (lower == "hanning") return RampWindow::Hann;
  throw ParameterError("filter", "unknown window '" + std::string(name) +
                                     "': choose ram-lak, shepp-logan, cosine, hamming or hann");
}

double windowGain(RampWindow window, double f, double cutoff) {
  if (f > cutoff) return 0.0;
  const double x = std::numbers::pi * f / cutoff;
  switch (window) {
    case RampWindow::RamLak:
      return 1.0;
    case RampWindow::SheppLogan:
      return f == 0.0 ? 1.0 : std::sin(x / 2) / (x / 2);
    case RampWindow::Cosine:
      return std::cos(x / 2);
    case RampWindow::Hamming:
      return 0.54 + 0.46 * std::cos(x);
    case RampWindow::Hann:
      return 0.5 + 0.5 * std::cos(x);
  }
  return 0.0;
}

void checkRampFilterParams(const RampFilterParams& params) {
  if (!(params.cutoff > 0.0) || params.cutoff > 1.0)
    throw ParameterError("filter cut-off", "must be in (0, 1] (fraction of Nyquist), got " +
                                               std::to_string(params.cutoff));
}

std::int64_t paddedRowLength(std::int64_t rowLength) {
  std::int64_t n = 64;
  while (n < 2 * rowLength) n *= 2;
  return n;
}

template <typename Scalar>
struct RampFilter<Scalar>::Fft {
  Eigen::FFT<Scalar> engine;
  Fft() { engine.SetFlag(Eigen::FFT<Scalar>::HalfSpectrum); }
};

template <typename Scalar>
RampFilter<Scalar>::RampFilter(std::int64_t rowLength, double sampleSpacingMm,
                               RampFilterParams params)
    : rowLength_(rowLength), paddedLength_(paddedRowLength(rowLength)) {
  if (rowLength < 1) throw ParameterError("filter row length", "must be >= 1");
  if (!(sampleSpacingMm > 0.0) || !std::isfinite(sampleSpacingMm))
    throw ParameterError("filter sample spacing", "must be finite and > 0");
  checkRampFilterParams(params);
  fft_ = new Fft;  // NOLINT(cppcoreguidelines-owning-memory): pimpl, freed in the destructor
  const std::int64_t n = paddedLength_;
  // Spatial kernel in units of 1/tau^2, laid out circularly; the 1/tau^2 and the tau of the
  // convolution integral leave one 1/tau.
  std::vector<Scalar> kernel(static_cast<std::size_t>(n), Scalar(0));
  kernel[0] = Scalar(0.25);
  for (std::int64_t k = 1; k < n / 2; k += 2) {
    const double value = -1.0 / (std::numbers::pi * std::numbers::pi * double(k) * double(k));
    kernel[static_cast<std::size_t>(k)] = static_cast<Scalar>(value);
    kernel[static_cast<std::size_t>(n - k)] = static_cast<Scalar>(value);
  }
  std::vector<std::complex<Scalar>> spectrum;
  fft_->engine.fwd(spectrum, kernel);
  response_.resize(static_cast<std::size_t>(n / 2 + 1));
  for (std::int64_t k = 0; k <= n / 2; ++k) {
    const double f = 2.0 * static_cast<double>(k) / static_cast<double>(n);
    response_[static_cast<std::size_t>(k)] =
        static_cast<Scalar>(spectrum[static_cast<std::size_t>(k)].real() *
                            windowGain(params.window, f, params.cutoff) / sampleSpacingMm);
  }
  padded_.assign(static_cast<std::size_t>(n), Scalar(0));
}

template <typename Scalar>
RampFilter<Scalar>::~RampFilter() {
  delete fft_;  // NOLINT(cppcoreguidelines-owning-memory)
}

template <typename Scalar>
RampFilter<Scalar>::RampFilter(RampFilter&& other) noexcept
    : rowLength_(other.rowLength_),
      paddedLength_(other.paddedLength_),
      response_(std::move(other.response_)),
      padded_(std::move(other.padded_)),
      spectrum_(std::move(other.spectrum_)),
      fft_(std::exchange(other.fft_, nullptr)) {}

template <typename Scalar>
RampFilter<Scalar>& RampFilter<Scalar>::operator=(RampFilter&& other) noexcept {
  std::swap(rowLength_, other.rowLength_);
  std::swap(paddedLength_, other.paddedLength_);
  std::swap(response_, other.response_);
  std::swap(padded_, other.padded_);
  std::swap(spectrum_, other.spectrum_);
  std::swap(fft_, other.fft_);
  return *this;
}

template <typename Scalar>
void RampFilter<Scalar>::filterRow(std::span<Scalar> row) {
  std::copy(row.begin(), row.end(), padded_.begin());
  std::fill(padded_.begin() + rowLength_, padded_.end(), Scalar(0));
  fft_->engine.fwd(spectrum_, padded_);
  for (std::size_t k = 0; k < response_.size(); ++k) spectrum_[k] *= response_[k];
  fft_->engine.inv(padded_, spectrum_, paddedLength_);
  std::copy(padded_.begin(), padded_.begin() + rowLength_, row.begin());
}

template class RampFilter<float>;
template class RampFilter<double>;

}  // namespace tomowb::fdk

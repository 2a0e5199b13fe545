#include "recon/preprocess/StatisticalWeights.h"

#include <cmath>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::preprocess {

namespace {

// Zero counts read as half a photon, as phantom::addPoissonNoise does.
constexpr double kZeroCountPhotons = 0.5;

void checkIncidentPhotons(double incidentPhotons) {
  if (!(incidentPhotons > 0.0) || !std::isfinite(incidentPhotons))
    throw ParameterError("incidentPhotons",
                         "must be finite and > 0, got " + std::to_string(incidentPhotons));
}

std::string pixelName(const ProjectionStack& stack, std::int64_t index) {
  const std::int64_t perView = stack.pixelsPerView();
  const std::int64_t view = index / perView, inView = index % perView;
  return "view " + std::to_string(view) + ", row " + std::to_string(inView / stack.cols()) +
         ", col " + std::to_string(inView % stack.cols());
}

}  // namespace

void checkNonNegativeFinite(const ProjectionStack& stack, std::string_view source) {
  const std::span<const float> pixels = stack.pixels();
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const float value = pixels[i];
    if (std::isfinite(value) && value >= 0.0f) continue;
    throw ParameterError(source, std::string(std::isfinite(value) ? "a negative value (" +
                                                                        std::to_string(value) + ")"
                                                                  : "a value that is not finite") +
                                     " at " + pixelName(stack, std::int64_t(i)) +
                                     ": counts and weights must be finite and >= 0");
  }
}

PostLogData postLogFromCounts(const ProjectionStack& counts, double incidentPhotons,
                              std::string_view source) {
  checkIncidentPhotons(incidentPhotons);
  checkNonNegativeFinite(counts, source);
  PostLogData out{ProjectionStack(counts.geometry()), counts};
  const double logIncident = std::log(incidentPhotons);
  const float* in = counts.data();
  float* y = out.lineIntegrals.data();
  const std::int64_t n = counts.pixelCount();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const double count = in[i];
    y[i] = static_cast<float>(logIncident - std::log(count > 0.0 ? count : kZeroCountPhotons));
  }
  return out;
}

ProjectionStack weightsFromLineIntegrals(const ProjectionStack& lineIntegrals,
                                         double incidentPhotons, std::string_view source) {
  checkIncidentPhotons(incidentPhotons);
  const std::span<const float> in = lineIntegrals.pixels();
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!std::isfinite(in[i]))
      throw ParameterError(source, "a line integral that is not finite at " +
                                       pixelName(lineIntegrals, std::int64_t(i)));
  ProjectionStack weights(lineIntegrals.geometry());
  float* w = weights.data();
  const std::int64_t n = lineIntegrals.pixelCount();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    w[i] = static_cast<float>(incidentPhotons * std::exp(-static_cast<double>(in[std::size_t(i)])));
  return weights;
}

}  // namespace tomowb::preprocess

#include "recon/phantom/PoissonNoise.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::phantom {

namespace {

// SplitMix64 finaliser: spreads (seed, view) over the whole 64-bit state of each view's
// generator, so neighbouring views and seeds give unrelated streams.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Zero counts read as half a photon (see the header).
constexpr double kZeroCountPhotons = 0.5;
constexpr double kMaxMeanCount = 1e18;

// Checks the inputs (before any parallel loop, where nothing may throw) and calls
// `store(pixel, count)` for every pixel of every view, view v drawing from its own generator.
template <class Store>
void drawCounts(const ProjectionStack& projections, double incidentPhotons, std::uint64_t seed,
                Store store) {
  if (!(incidentPhotons > 0.0) || !std::isfinite(incidentPhotons))
    throw ParameterError("incidentPhotons",
                         "must be finite and > 0, got " + std::to_string(incidentPhotons));
  float minIntegral = 0.0f;
  for (float p : projections.pixels()) {
    if (!std::isfinite(p))
      throw ParameterError("projections", "hold a line integral that is not finite");
    minIntegral = std::min(minIntegral, p);
  }
  const double largestMean = incidentPhotons * std::exp(-static_cast<double>(minIntegral));
  if (!(largestMean <= kMaxMeanCount))
    throw ParameterError("incidentPhotons",
                         "gives a mean count of " + std::to_string(largestMean) +
                             " photons, more than the 1e18 an int64 sampler holds");
  const std::int64_t views = projections.viewCount();
  const std::int64_t perView = projections.pixelsPerView();
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t view = 0; view < views; ++view) {
    std::mt19937_64 generator(mix(seed ^ mix(static_cast<std::uint64_t>(view))));
    std::poisson_distribution<std::int64_t> poisson;
    using Param = std::poisson_distribution<std::int64_t>::param_type;
    const std::span<const float> in = projections.viewPixels(view);
    for (std::int64_t i = 0; i < perView; ++i) {
      const double mean = incidentPhotons * std::exp(-static_cast<double>(in[std::size_t(i)]));
      const double count = mean > 0.0 ? static_cast<double>(poisson(generator, Param(mean))) : 0.0;
      store(view * perView + i, count);
    }
  }
}

}  // namespace

void addPoissonNoise(ProjectionStack& projections, double incidentPhotons, std::uint64_t seed) {
  const double logIncident = std::log(incidentPhotons);
  float* pixels = projections.data();
  drawCounts(projections, incidentPhotons, seed, [&](std::int64_t i, double count) {
    pixels[i] = static_cast<float>(logIncident - std::log(count > 0.0 ? count : kZeroCountPhotons));
  });
}

ProjectionStack drawPoissonCounts(const ProjectionStack& lineIntegrals, double incidentPhotons,
                                  std::uint64_t seed) {
  ProjectionStack counts(lineIntegrals.geometry());
  float* pixels = counts.data();
  drawCounts(lineIntegrals, incidentPhotons, seed,
             [&](std::int64_t i, double count) { pixels[i] = static_cast<float>(count); });
  return counts;
}

}  // namespace tomowb::phantom

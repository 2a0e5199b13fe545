// SimulationSetup: the checks and derived quantities shared by the CPU and GPU simulators.
#include "recon/pet/SimulationSetup.h"

#include <cmath>
#include <numbers>
#include <string>

#include "recon/core/Error.h"
#include "recon/pet/CounterRng.h"

namespace tomowb::pet {

namespace {

constexpr double kDegToRad = std::numbers::pi / 180.0;

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

void checkParams(const ScannerModel& scanner, const ListModeSimulationParams& p) {
  if (!(p.acquisitionSeconds > 0) || !std::isfinite(p.acquisitionSeconds))
    throw ParameterError("acquisitionSeconds", "must be > 0, got " + number(p.acquisitionSeconds));
  if (p.requestedPrompts < 0)
    throw ParameterError("requestedPrompts",
                         "must be >= 0, got " + std::to_string(p.requestedPrompts));
  if (!(p.positronFraction > 0 && p.positronFraction <= 1))
    throw ParameterError("positronFraction",
                         "must be in (0, 1], got " + number(p.positronFraction));
  if (!(p.halfLifeS >= 0) || !std::isfinite(p.halfLifeS))
    throw ParameterError("halfLifeS", "must be >= 0, got " + number(p.halfLifeS));
  if (!(p.randomsFraction >= 0 && p.randomsFraction <= 0.95))
    throw ParameterError("randomsFraction",
                         "must be in [0, 0.95], got " + number(p.randomsFraction));
  if (!(p.emissionBandDeg >= scanner.axialAcceptanceDeg && p.emissionBandDeg <= 90))
    throw ParameterError("emissionBandDeg", "must be in [axialAcceptanceDeg (" +
                                                number(scanner.axialAcceptanceDeg) +
                                                "), 90], got " + number(p.emissionBandDeg));
  if (p.maxBandDecays < 1)
    throw ParameterError("maxBandDecays", "must be >= 1, got " + std::to_string(p.maxBandDecays));
}

// Every voxel with activity must lie inside the ring: the exit through the detector assumes it.
void checkActivityInsideRing(const Volume& activity, const EmissionTable& table, double radiusMm) {
  const Eigen::Vector3d half = 0.5 * activity.voxelSizeMm().cwiseAbs();
  for (std::int64_t voxel : table.voxels) {
    const std::int64_t x = voxel % activity.nx(), y = (voxel / activity.nx()) % activity.ny();
    const Eigen::Vector3d c = activity.worldPosition(double(x), double(y), 0.0);
    const double fx = std::fabs(c.x()) + half.x(), fy = std::fabs(c.y()) + half.y();
    if (std::hypot(fx, fy) >= radiusMm)
      throw ParameterError("activity", "voxel (" + std::to_string(x) + ", " + std::to_string(y) +
                                           ", " +
                                           std::to_string(voxel / (activity.nx() * activity.ny())) +
                                           ") reaches " + number(std::hypot(fx, fy)) +
                                           " mm from the axis, outside the detector ring (" +
                                           number(radiusMm) + " mm)");
  }
}

AttenuationGrid attenuationView(const Volume* mu) {
  AttenuationGrid g;
  if (!mu) return g;
  if (mu->empty()) throw ParameterError("attenuation", "the map is empty");
  const auto values = mu->voxels();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]) || values[i] < 0)
      throw ParameterError("attenuation", "voxel " + std::to_string(i) + " holds " +
                                              number(values[i]) + " /mm; must be finite and >= 0");
  for (int k = 0; k < 3; ++k)
    if (!(mu->voxelSizeMm()[k] > 0)) throw ParameterError("attenuation", "voxel sizes must be > 0");
  g.mu = mu->data();
  g.nx = mu->nx();
  g.ny = mu->ny();
  g.nz = mu->nz();
  for (int k = 0; k < 3; ++k) {
    g.originMm[k] = mu->originMm()[k];
    g.voxelMm[k] = mu->voxelSizeMm()[k];
  }
  return g;
}

}  // namespace

SimulationSetup prepareSimulation(const ScannerModel& scanner, const Volume& activity,
                                  const Volume* attenuationPerMm,
                                  const ListModeSimulationParams& p) {
  scanner.validate();
  checkParams(scanner, p);
  if (activity.empty()) throw ParameterError("activity", "the map is empty");
  for (int k = 0; k < 3; ++k)
    if (!(activity.voxelSizeMm()[k] > 0))
      throw ParameterError("activity", "voxel sizes must be > 0");
  SimulationSetup s;
  s.hits = detectorHitModel(scanner);
  s.emission = buildEmissionTable(activity);
  checkActivityInsideRing(activity, s.emission, scanner.radiusMm);
  s.attenuation = attenuationView(attenuationPerMm);
  s.bandSin = std::sin(p.emissionBandDeg * kDegToRad);
  double seconds = p.acquisitionSeconds;
  if (p.halfLifeS > 0) {
    const double lifetime = p.halfLifeS / std::numbers::ln2;
    seconds = lifetime * -std::expm1(-p.acquisitionSeconds / lifetime);
  }
  s.expectedDecays = s.emission.totalActivityBq * seconds;
  s.expectedBandDecays = s.expectedDecays * p.positronFraction * s.bandSin;
  s.tofSigmaPs = p.timingNoise ? scanner.tofFwhmPs / kFwhmPerSigma : 0.0;
  s.halfWindowPs = 0.5 * scanner.coincidenceWindowPs;
  s.tofLsbPs = scanner.tofLsbPs;
  s.positioningSigmaMm = p.positioningBlur ? scanner.positioningSigmaMm : 0.0;
  s.acollinearitySigmaRad =
      p.acollinearity ? scanner.acollinearityFwhmDeg * kDegToRad / kFwhmPerSigma : 0.0;
  s.randomsPerTrue = p.randomsFraction / (1.0 - p.randomsFraction);
  return s;
}

std::int64_t sampleBandDecays(const SimulationSetup& setup, std::uint64_t seed) {
  CounterRng rng(seed, 0, kTotalSubstream);
  return samplePoisson(setup.expectedBandDecays, rng);
}

RandomsCount sampleRandomsCount(const SimulationSetup& setup,
                                const ListModeSimulationParams& params, std::uint64_t index,
                                std::int64_t trues) {
  RandomsCount count;
  if (!(setup.randomsPerTrue > 0)) return count;
  CounterRng rng(params.seed, index, kChunkCountSubstream);
  const double mean = double(trues) * setup.randomsPerTrue;
  count.randoms = samplePoisson(mean, rng);
  count.delayed = params.delayedWindow ? samplePoisson(mean, rng) : 0;
  return count;
}

}  // namespace tomowb::pet

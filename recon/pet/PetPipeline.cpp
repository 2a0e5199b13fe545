// List mode to a DIRECT image in one call (PetPipeline.h).
#include "recon/pet/PetPipeline.h"

#include <chrono>
#include <cmath>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/pet/GpuDirect.h"

namespace tomowb::pet {

VolumeGrid defaultPetGrid(const ScannerModel& scanner, double voxelMm) {
  if (!(voxelMm > 0 && std::isfinite(voxelMm))) throw ParameterError("voxel", "must be > 0 mm");
  const auto transverse = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(scanner.transaxialFovMm / voxelMm - 1e-9)));
  const auto axial = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::floor(scanner.axialLengthMm() / voxelMm + 1e-9)));
  return VolumeGrid::centred({transverse, transverse, axial}, Eigen::Vector3d::Constant(voxelMm));
}

ViewBinning defaultPetViews(const ScannerModel& scanner) {
  ViewBinning v;
  v.maxTiltRad = scanner.axialAcceptanceDeg * std::numbers::pi / 180.0;
  return v;
}

PetHistoSet makeHistoSet(const ListModeHeader& header, std::span<const ListModeEvent> events,
                         const Volume* muPerMm, const HistoImagingParams& params,
                         JobContext& context) {
  const auto started = std::chrono::steady_clock::now();
  const ScannerModel& scanner = header.scanner;
  scanner.validate();
  const VolumeGrid grid =
      params.grid.shape.voxelCount() > 0 ? params.grid : defaultPetGrid(scanner);
  const ViewBinning views = params.views ? *params.views : defaultPetViews(scanner);
  views.validate();
  PetHistoSet set;
  set.scanner = scanner;
  set.deposition = params.deposition;
  set.acquisitionSeconds = header.acquisitionSeconds;
  set.halfLifeS = header.halfLifeS;
  set.attenuationCorrected = muPerMm != nullptr;

  context.reportProgress("deposition", 0.0);
  const bool gpu = params.device == VariantDevice::Gpu;
  const auto deposit = [&](const DepositionParams& p, HistoImages& histo) {
    return gpu ? depositEventsGpu(scanner, events, p, histo, params.gpu, context)
               : depositEvents(scanner, events, p, histo, context);
  };
  set.data = HistoImages(grid, views);
  DepositionParams prompts;
  prompts.mode = params.deposition;
  set.prompts = deposit(prompts, set.data);
  if (set.prompts.deposited == 0)
    throw ParameterError("list mode", "no prompt lands in the histo-images' grid and views (" +
                                          std::to_string(set.prompts.events) + " prompts)");
  if (params.randomsCorrection && header.delayedCount > 0) {
    BackgroundParams background = params.background;
    background.deposition = params.deposition;
    set.additive =
        additiveFactors(scanner, events, grid, views, background, nullptr, context, &set.delayed);
  }
  set.multiplicative = multiplicativeFactors(scanner, grid, views, muPerMm, params.sensitivity,
                                             params.attenuation, context);
  set.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return set;
}

PetReconResult reconstructHistoSet(const PetHistoSet& set, const PetReconParams& params,
                                   JobContext& context, const DirectMetricsFn& metrics,
                                   const VariantRegistry* registry) {
  DirectReconParams recon = params.recon;
  if (!(recon.kernel.tofFwhmPs > 0)) recon.kernel.tofFwhmPs = set.scanner.tofFwhmPs;
  recon.kernel.tofSigmaFactor = tofSigmaFactor(set.deposition);
  ActivityUnits units;
  units.acquisitionSeconds = set.acquisitionSeconds > 0 ? set.acquisitionSeconds : 1.0;
  units.positronFraction = params.positronFraction;
  units.decayFactor =
      params.decayCorrection ? decayCorrectionFactor(set.acquisitionSeconds, set.halfLifeS) : 1.0;
  units.validate();
  PetReconResult result;
  result.emissions =
      reconstructDirect(set.data, set.multiplicative.empty() ? nullptr : &set.multiplicative,
                        set.additive.empty() ? nullptr : &set.additive, recon, context,
                        &result.report, metrics, registry);
  result.bqPerMlPerEmission = emissionsToBqPerMlFactor(set.data.grid(), units);
  result.activityBqPerMl = emissionsToBqPerMl(result.emissions, units);
  return result;
}

PetReconResult reconstructListMode(const ListModeHeader& header,
                                   std::span<const ListModeEvent> events, const Volume* muPerMm,
                                   const HistoImagingParams& histo, const PetReconParams& params,
                                   JobContext& context, const DirectMetricsFn& metrics,
                                   const VariantRegistry* registry) {
  const PetHistoSet set = makeHistoSet(header, events, muPerMm, histo, context);
  return reconstructHistoSet(set, params, context, metrics, registry);
}

}  // namespace tomowb::pet

// PetRun: a DIRECT TOF-PET reconstruction (issue #20) of the window's PET data as a RunSpec for
// the run controller. The algorithm catalogue (recon/catalog) has no PET descriptor yet (its jobs
// take projection stacks), so this drives the core's one-call pipeline directly, the one
// `tomowb-cli pet recon` uses (recon/pet/PetPipeline.h): deposition of the prompts into histo-
// images, the corrections (sensitivity, attenuation from the data's mu map, randoms from the
// delayed events), then ML-EM / OSEM / RAMLA on a registered DIRECT projector pair. On the worker
// thread it hands every iterate to the views in Bq/mL (scaled like the result, so the slices keep
// one window/level) and reports, per iteration, the phantom's contrast recovery (hot and cold
// spheres) and background noise (recon/pet/PetImageQuality.h) when a phantom is known, which the
// PET quality panel plots. The run's parameters say what the PET DICOM export needs (units,
// acquisition time, isotope, decay correction). Needs only QtCore.
#pragma once

#include <QString>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gui/core/PetData.h"
#include "gui/core/RunController.h"
#include "recon/pet/Deposition.h"
#include "recon/pet/DirectReconstruction.h"
#include "recon/pet/SystemResponse.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

// The run's algorithm id (RunSpec::algorithm; not a catalogue id).
inline const QString kPetAlgorithmId = QStringLiteral("direct");

// Figures each iteration reports (IterationRecord::metrics) when a phantom is known.
inline constexpr const char* kCrcHotMetric = "CRC hot";
inline constexpr const char* kCrcColdMetric = "CRC cold";
inline constexpr const char* kNoiseMetric = "noise";

// Which spheres contrast recovery is measured on.
enum class PetReference {
  None,            // no figures per iteration
  Simulation,      // the phantom the data were simulated from in the window
  DefaultPhantom,  // the default PET phantom (pet::PetPhantomParams{}): files simulated elsewhere
};

struct PetRunSettings {
  pet::EmAlgorithm algorithm = pet::EmAlgorithm::Osem;
  int iterations = 10;
  int subsets = 10;         // OSEM and RAMLA
  double lambda0 = 1.0;     // RAMLA
  double betaPasses = 5.0;  // RAMLA
  pet::LorWidthProfile lorKernel = pet::LorWidthProfile::Invariant;
  double radialFwhmMm = 5.8;
  double axialFwhmMm = 5.8;
  double tofFwhmPs = 0;  // 0: the scanner's
  pet::DepositionMode deposition = pet::DepositionMode::Nearest;
  bool attenuationCorrection = true;  // with the data's mu map (or the default phantom's)
  bool randomsCorrection = true;      // from the delayed events
  VolumeGrid grid;                    // empty shape: the data's grid
  int azimuths = 40;
  int tilts = 3;
  VariantDevice device = VariantDevice::Cpu;
  int gpuIndex = 0;
  std::string forwardVariant, backVariant;  // empty: the registry's defaults for the device
  bool bqPerMl = true;                      // false: emissions per voxel
  double positronFraction = 1.0;            // 1 for simulated data, 0.967 for measured 18F
  bool decayCorrection = false;             // to scan start, the header's half-life
  PetReference reference = PetReference::Simulation;
  int cpuThreads = 0;  // 0: all

  nlohmann::json toJson() const;
};

// The attenuation map a run of these settings uses for `data` (null: none): the data's own, or
// the default phantom's water cylinder for PetReference::DefaultPhantom.
std::shared_ptr<const Volume> petAttenuationMap(const PetDataSet& data,
                                                const PetRunSettings& settings);
// The phantom whose spheres a run measures (null: none).
std::shared_ptr<const pet::PetPhantom> petReferencePhantom(const PetDataSet& data,
                                                           const PetRunSettings& settings);

// The forward and back projector names the run uses (the settings', or the registry's defaults).
std::pair<std::string, std::string> petProjectorNames(const PetRunSettings& settings);

// Host memory (bytes) of the histo-images a run holds: data, multiplicative and additive factors,
// views x voxels floats each, plus the solver's volumes.
double petRunHostBytes(const PetDataSet& data, const PetRunSettings& settings);

// Throws ParameterError naming the setting (grid, subsets above the views, a TOF width out of
// range, a projector that is not a PET one...).
void validatePetRun(const PetDataSet& data, const PetRunSettings& settings);

// The RunSpec (title "DIRECT OSEM 100x100x16 direct.fp.cpu + direct.bp.cpu"). The data are
// shared, not copied. Throws what validatePetRun throws.
RunSpec makePetRun(std::shared_ptr<const PetDataSet> data, const PetRunSettings& settings);

// The label of a PET run's result ("DIRECT OSEM, 10 iterations (Bq/mL)").
QString petResultUnits(const nlohmann::json& parameters);

}  // namespace tomowb::gui

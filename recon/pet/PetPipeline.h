// PetPipeline: list-mode events (+ an optional mu map) to a DIRECT image in one call, shared by
// `tomowb-cli pet recon` and the window (reference/direct-tof-pet.md, sections 2, 3.7, 5.4):
//   1. the prompts deposited into the data histo-images d (Deposition.h),
//   2. the delayed events deposited and smoothed into the additive background b
//      (CorrectionImages.h; none without delayed events or with randoms correction off),
//   3. the multiplicative factors m = epsilon a (CorrectionImages.h),
//   4. DIRECT ML-EM / OSEM / RAMLA (DirectReconstruction.h) with the TOF kernel of the scanner and
//      the deposition's sigma factor,
//   5. the image in emissions per voxel and in Bq/mL (acquisition time of the header, positron
//      fraction, optional decay correction to scan start).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/pet/CorrectionImages.h"
#include "recon/pet/Deposition.h"
#include "recon/pet/DirectReconstruction.h"
#include "recon/pet/HistoImages.h"
#include "recon/pet/ListModeFile.h"
#include "recon/pet/ViewBinning.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::pet {

// The default reconstruction grid of a scanner: cubic voxels of `voxelMm` over its transaxial
// field of view and its axial length (the seed's 144 x 144 x 64 at 4 mm for penn-labr3),
// centred on the isocentre.
VolumeGrid defaultPetGrid(const ScannerModel& scanner, double voxelMm = 4.0);
// The default views of a scanner: 40 azimuths x 3 tilts over its axial acceptance.
ViewBinning defaultPetViews(const ScannerModel& scanner);

struct HistoImagingParams {
  VolumeGrid grid;                   // empty shape: defaultPetGrid(scanner)
  std::optional<ViewBinning> views;  // none: defaultPetViews(scanner)
  DepositionMode deposition = DepositionMode::Nearest;
  bool randomsCorrection = true;  // b from the delayed events (when the file has any)
  BackgroundParams background;    // its deposition follows `deposition`
  SensitivityParams sensitivity;
  AttenuationParams attenuation;
  // Where the events are deposited: the CPU (OpenMP) or the GPU (GpuDirect.h; nearest-voxel
  // counts bit-identical to the CPU's). The corrections are computed on the CPU.
  VariantDevice device = VariantDevice::Cpu;
  GpuRunOptions gpu;
};

// The histo-images of one acquisition: d, m and b (b empty without randoms correction).
struct PetHistoSet {
  HistoImages data, multiplicative, additive;
  DepositionMode deposition = DepositionMode::Nearest;
  ScannerModel scanner;
  double acquisitionSeconds = 0;
  double halfLifeS = 0;
  bool attenuationCorrected = false;
  DepositionReport prompts, delayed;
  double seconds = 0;  // wall time of the deposition and the corrections
};

// Steps 1-3. `muPerMm`: optional, any grid. ParameterError for bad inputs; Cancelled.
PetHistoSet makeHistoSet(const ListModeHeader& header, std::span<const ListModeEvent> events,
                         const Volume* muPerMm, const HistoImagingParams& params,
                         JobContext& context);

struct PetReconParams {
  DirectReconParams recon;        // kernel.tofFwhmPs <= 0: the scanner's; tofSigmaFactor: set here
  double positronFraction = 1.0;  // the simulator's default; 0.967 for measured 18F
  bool decayCorrection = false;   // to scan start with the header's half-life
};

struct PetReconResult {
  Volume emissions;        // emissions per voxel during the acquisition
  Volume activityBqPerMl;  // the same in Bq/mL
  double bqPerMlPerEmission = 0;
  iterative::IterativeReport report;
};

// Steps 4-5 on a histo set. The kernel's TOF width defaults to the scanner's, its sigma factor
// always follows the set's deposition.
PetReconResult reconstructHistoSet(const PetHistoSet& set, const PetReconParams& params,
                                   JobContext& context, const DirectMetricsFn& metrics = {},
                                   const VariantRegistry* registry = nullptr);

// All five steps.
PetReconResult reconstructListMode(const ListModeHeader& header,
                                   std::span<const ListModeEvent> events, const Volume* muPerMm,
                                   const HistoImagingParams& histo, const PetReconParams& params,
                                   JobContext& context, const DirectMetricsFn& metrics = {},
                                   const VariantRegistry* registry = nullptr);

}  // namespace tomowb::pet

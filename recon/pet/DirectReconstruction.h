// DirectReconstruction: DIRECT TOF-PET reconstruction from histo-images (reference/
// direct-tof-pet.md, section 3.7): the data d_v, the multiplicative factors m_v and the additive
// background b_v (CorrectionImages.h) of every view, reconstructed by ML-EM, OSEM or block RAMLA
// (recon/iterative/EmRule.h) through the ordered-subset solver on a registered DIRECT projector
// pair (DirectPair.h). Subsets are groups of views interleaved across azimuths and tilts. With m_v
// a detection probability per emission, the image counts emissions per voxel during the
// acquisition; emissionsToBqPerMl() turns it into an activity concentration.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recon/core/GpuRunOptions.h"
#include "recon/core/Volume.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/pet/HistoImages.h"
#include "recon/pet/SystemResponse.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::pet {

enum class EmAlgorithm { Mlem, Osem, Ramla };
std::string toString(EmAlgorithm algorithm);  // "mlem", "osem", "ramla"
// ParameterError naming `parameter` and listing the names for anything else.
EmAlgorithm parseEmAlgorithm(std::string_view text, std::string_view parameter = "algorithm");

struct DirectReconParams {
  EmAlgorithm algorithm = EmAlgorithm::Osem;
  int iterations = 10;   // passes over every view
  int subsets = 10;      // OSEM and RAMLA (ML-EM: 1); at most the number of views
  double lambda0 = 1.0;  // RAMLA: lambda_n = lambda0 / (1 + n / betaPasses)
  double betaPasses = 5.0;
  DirectKernelParams kernel;  // tofSigmaFactor: from the deposition (tofSigmaFactor(mode))
  VariantDevice device = VariantDevice::Cpu;
  // The DIRECT projectors (empty: the registry's defaultFor(PetForwardProjector /
  // PetBackprojector, device)).
  std::string forwardVariant, backVariant;
  GpuRunOptions gpu;
  int publishEvery = 1;  // hand the iterate to the views every N iterations (when they want it)
  // The start (same grid; empty: uniform, sum(d) / sum(m) per voxel).
  std::shared_ptr<const Volume> initialVolume;

  // Throws ParameterError naming the field.
  void validate() const;
};

// The subsets of `views` for `subsets` subsets: subset s holds every view whose rank in an order
// that interleaves azimuths and tilts is s modulo `subsets` (the azimuths in bit-reversed-like
// spread order, each subset drawing from every tilt). ParameterError for subsets outside
// [1, views].
std::vector<std::vector<std::int64_t>> directViewSubsets(const ViewBinning& views, int subsets);

// Figures measured on the iterate after each iteration (contrast recovery, noise), by name.
using DirectMetricsFn =
    std::function<std::vector<std::pair<std::string, double>>(const Volume& iterate)>;

// The projector names a run uses: the params' or the registry's defaults for the device.
std::pair<std::string, std::string> directProjectorNames(const DirectReconParams& params,
                                                         const VariantRegistry& registry);

// Reconstructs x (emissions per voxel) from d, m (null: 1) and b (null: 0), all on one grid and
// view binning. `registry` defaults to VariantRegistry::builtins(). The report holds one record
// per iteration (objective: -log L; metrics: expected / measured counts, relaxation, then
// `metrics`'). ParameterError for inputs that do not fit; Cancelled when the token is set (no
// output: the caller writes nothing).
Volume reconstructDirect(const HistoImages& data, const HistoImages* multiplicative,
                         const HistoImages* additive, const DirectReconParams& params,
                         JobContext& context, iterative::IterativeReport* report = nullptr,
                         const DirectMetricsFn& metrics = {},
                         const VariantRegistry* registry = nullptr);

// Emissions per voxel -> Bq/mL: x / (acquisitionSeconds x voxel mL x positronFraction) x
// decayFactor (decayFactor: the mean-activity-to-scan-start correction, 1 for none).
struct ActivityUnits {
  double acquisitionSeconds = 1.0;
  double positronFraction = 1.0;  // 0.967 for 18F
  double decayFactor = 1.0;
  // Throws ParameterError naming the field (each > 0 and finite).
  void validate() const;
};
double emissionsToBqPerMlFactor(const VolumeGrid& grid, const ActivityUnits& units);
Volume emissionsToBqPerMl(const Volume& emissions, const ActivityUnits& units);
// The decay factor that brings the mean activity over [0, T] back to scan start for a
// half-life: (T ln2 / t_half) / (1 - 2^(-T / t_half)); 1 for halfLifeS <= 0.
double decayCorrectionFactor(double acquisitionSeconds, double halfLifeS);

}  // namespace tomowb::pet

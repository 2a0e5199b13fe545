// ListModeSimulator: synthetic TOF-PET list mode on the CPU (OpenMP), following
// reference/direct-tof-pet.md section 5.3 without scatter. Each annihilation is drawn from a
// voxelised activity map (EmissionTable: alias table over voxels, then uniform in the voxel); its
// photon pair flies along u with u_z uniform in +-sin(emissionBandDeg) (the band's share of
// isotropic pairs, sin(band), is reported so absolute sensitivities stay right) and phi uniform;
// each photon is followed to the surface through the crystal centres (the mean depth of
// interaction: the cylinder in closed form, or the flat module planes; DetectorHits.h); hits off
// the crystals are lost; optionally the second photon is turned by the acollinearity;
// each hit is moved by the positioning blur along the face and snapped to a crystal; the crystal
// pair must pass the axial acceptance and the transaxial field of view; the pair survives
// attenuation with probability exp(-integral of mu along both photon paths) from an optional
// attenuation map (exact voxel traversal, AttenuationPath.h); the time difference comes from the
// true hit points, dt = t1 - t2 + N(0, FWHM / 2.3548), quantised to tofLsbPs, and pairs outside
// the coincidence window are lost. Randoms (a fraction of the prompts, two uniform crystals that
// pass the acceptance, dt uniform in the window, flag kEventRandom) and an equal-rate delayed
// stream (kEventDelayed) are added per chunk.
//
// Counts: annihilations in the band ~ Poisson(activity x voxel mL x effective seconds x positron
// fraction x band share), or as many as it takes to reach a requested number of prompts.
// Determinism: decay i draws from its own counter-based stream (CounterRng); decays are
// simulated in fixed chunks whose events are shuffled within the chunk (a per-chunk stream) and
// concatenated in chunk order, so the events depend on the seed only, not on the thread count.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/job/JobContext.h"
#include "recon/pet/ListModeEvent.h"
#include "recon/pet/ListModeFile.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::pet {

// Decays per chunk: fixed, since the events depend on it (the shuffle within a chunk).
inline constexpr std::int64_t kSimulationChunkDecays = std::int64_t{1} << 16;

struct ListModeSimulationParams {
  std::uint64_t seed = 1;
  double acquisitionSeconds = 1.0;
  // > 0: simulate until this many prompts (trues + randoms) and stop there; the activity map then
  // only says where decays happen. 0: the counts follow the activity (Poisson).
  std::int64_t requestedPrompts = 0;
  double positronFraction = 1.0;  // annihilations per decay (0.967 for 18F)
  double halfLifeS = 0.0;         // > 0: the map is the activity at scan start and decays
  double randomsFraction = 0.1;   // randoms / prompts, in [0, 0.95]
  bool delayedWindow = true;      // an equal-rate delayed stream when randomsFraction > 0
  bool positioningBlur = true;    // scanner.positioningSigmaMm along the face
  bool acollinearity = true;      // scanner.acollinearityFwhmDeg
  bool timingNoise = true;        // scanner.tofFwhmPs
  double emissionBandDeg = 12.0;  // >= scanner.axialAcceptanceDeg, <= 90
  // Requested prompts: give up (ParameterError) after this many annihilations in the band.
  std::int64_t maxBandDecays = std::int64_t{1} << 40;
};

struct ListModeSimulationReport {
  std::int64_t bandDecays = 0;  // annihilations simulated inside the emission band
  double bandFraction = 0.0;    // sin(emissionBandDeg): the band's share of isotropic pairs
  double activityBq = 0.0;      // decays per second at scan start the data stand for
  double expectedDecays = 0.0;  // mean number of decays during the acquisition (all directions)
  std::int64_t trues = 0, randoms = 0, delayed = 0;
  double seconds = 0.0;  // wall time of the simulation
  int threads = 0;
  std::int64_t prompts() const noexcept { return trues + randoms; }
  double eventsPerSecond() const noexcept {
    return seconds > 0 ? double(prompts() + delayed) / seconds : 0.0;
  }
};

struct SimulatedListMode {
  std::vector<ListModeEvent> events;
  ListModeSimulationReport report;
};

// `activityBqPerMl`: any grid whose active voxels lie inside the detector ring;
// `attenuationPerMm`: optional, any grid (nullptr: no attenuation). ParameterError naming the
// parameter for bad inputs; Cancelled when the context's token is set (checked per chunk).
SimulatedListMode simulateListMode(const ScannerModel& scanner, const Volume& activityBqPerMl,
                                   const Volume* attenuationPerMm,
                                   const ListModeSimulationParams& params, JobContext& context);

// The same, streamed into a list-mode file (ListModeWriter): the events never sit in memory
// together. `headerTemplate` gives the text fields (isotope, scanStart, source); scanner, counts,
// acquisition time and the simulation truth are filled in. Cancelled or failed: nothing is left
// at `path`.
ListModeSimulationReport simulateListModeFile(
    const ScannerModel& scanner, const Volume& activityBqPerMl, const Volume* attenuationPerMm,
    const ListModeSimulationParams& params, const std::filesystem::path& path,
    const ListModeHeader& headerTemplate, JobContext& context);

// The header a simulation's events are written with (counts from the report).
ListModeHeader simulatedListModeHeader(const ScannerModel& scanner,
                                       const ListModeSimulationParams& params,
                                       const ListModeSimulationReport& report,
                                       ListModeHeader headerTemplate = {});

}  // namespace tomowb::pet

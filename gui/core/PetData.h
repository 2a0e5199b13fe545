// PetData: a TOF-PET acquisition as the window holds it (issue #20, point 5): the list-mode
// header and events in memory (recon/pet/ListModeFile.h), where they came from, and for a scan
// simulated in the window the phantom behind it (its spheres are the truth for contrast recovery,
// its water cylinder the attenuation map), the activity map (Bq/mL) and the grid the simulation
// used, which the reconstruction takes by default. Made off the GUI thread by LoadTask
// (simulatePetScan, readPetListMode: progress per chunk, cancel per chunk); shared read-only with
// the views, the histo-image browser and the runs. Needs only QtCore.
#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/job/JobContext.h"
#include "recon/pet/ListModeEvent.h"
#include "recon/pet/ListModeFile.h"
#include "recon/pet/ListModeSimulator.h"
#include "recon/pet/PetPhantom.h"
#include "recon/pet/ScannerModel.h"

namespace tomowb::gui {

struct PetDataSet {
  QString name;        // "PET phantom, penn-labr3, 2.0 M prompts" or the file's name
  QString sourcePath;  // empty for a scan simulated in the window
  pet::ListModeHeader header;
  std::shared_ptr<const std::vector<pet::ListModeEvent>> events;
  // A scan simulated in the window: its phantom, activity (Bq/mL) on `grid` and attenuation map
  // (1/mm, covering the whole water cylinder; null when simulated without attenuation). Null for
  // a loaded file.
  std::shared_ptr<const pet::PetPhantom> phantom;
  std::shared_ptr<const Volume> activity;
  std::shared_ptr<const Volume> attenuation;
  // The reconstruction grid offered first: the simulation's, or defaultPetGrid of the scanner.
  VolumeGrid grid;
  std::optional<pet::ListModeSimulationReport> simulation;
  QStringList warnings;

  std::int64_t promptCount() const noexcept { return header.promptCount; }
  std::int64_t delayedCount() const noexcept { return header.delayedCount; }
  bool simulatedHere() const noexcept { return phantom != nullptr; }
};

// What File > Simulate PET scan… asks for.
struct PetSimulationRequest {
  std::string scanner = "penn-labr3";  // a preset's name or a scanner file
  pet::PetPhantomParams phantom;       // hot spheres, cold spheres, point source, activities
  std::int64_t prompts = 2'000'000;    // simulate until this many prompts
  std::uint64_t seed = 1;
  double randomsFraction = 0.1;  // of the prompts; a delayed window of the same rate when > 0
  bool attenuation = true;       // photons attenuated in the water cylinder
  double voxelMm = 4.0;          // the activity map's (and the reconstruction's) grid
  std::int64_t size = 0;         // transverse voxels; 0: the scanner's field of view
  std::int64_t slices = 0;       // axial voxels; 0: the scanner's axial length
  std::string isotope = "F-18";

  // ParameterError naming the field ("prompts", "voxelMm", ...).
  void validate() const;
};

inline constexpr std::int64_t kMaxSimulatedPrompts = 430'000'000;  // the seed's prompt count

// The grid of a request for a scanner: defaultPetGrid at voxelMm, then size and slices.
VolumeGrid petSimulationGrid(const pet::ScannerModel& scanner, const PetSimulationRequest& request);

// Runs the simulator on the phantom (progress "phantom", then "simulate list mode"; Cancelled
// per chunk). The header's acquisition time is the time the prompts stand for at the phantom's
// activity (the simulator draws decays until the prompts are there, so an image in Bq/mL
// matches the phantom's Bq/mL); its source names the phantom and the seed.
PetDataSet simulatePetScan(const PetSimulationRequest& request, JobContext& context);

// Reads a list-mode file in chunks (progress, Cancelled between chunks). Errors are Error with
// a message for lab staff first and the reader's detail after (petLoadErrorMessage).
PetDataSet readPetListMode(const QString& path, JobContext& context);

// True when the file starts with the list-mode magic (reads 8 bytes), or is named *.lm.
bool isListModePath(const QString& path);

// "scan.lm cannot be opened as PET list mode: it is damaged or was cut short.\n\nDetails: <what>"
// from a reader's error text: what it means for lab staff first, the reader's detail after.
QString petLoadErrorMessage(const QString& path, const std::exception& error);

// "2.00 M", "430 M", "12 345": an event count for labels.
QString countText(std::int64_t count);

}  // namespace tomowb::gui

// PetHistoView: one DIRECT histo-image for the PET data panel's browser (reference/
// direct-tof-pet.md, section 2.2): the prompts of one view (azimuth and tilt cell) deposited at
// their most likely annihilation points, nearest voxel, counts per voxel. The core deposits every
// view at once (recon/pet/Deposition.h: views x voxels floats, hundreds of MB for a browser), so
// this walks the events with the core's own event geometry (EventGeometry.h: locateEvent,
// nearestVoxel; the same float32 arithmetic as the deposition) and keeps one view's image only.
// OpenMP over event chunks, a partial image per thread; Cancelled between chunks. Needs only
// QtCore (none, in fact).
#pragma once

#include <span>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/job/JobContext.h"
#include "recon/pet/ListModeEvent.h"
#include "recon/pet/ScannerModel.h"
#include "recon/pet/ViewBinning.h"

namespace tomowb::gui {

// The prompts of `view` on `grid` (counts per voxel). ParameterError for a view out of range.
Volume depositPetView(const pet::ScannerModel& scanner, std::span<const pet::ListModeEvent> events,
                      const VolumeGrid& grid, const pet::ViewBinning& views, int view,
                      const JobContext* context = nullptr);

}  // namespace tomowb::gui

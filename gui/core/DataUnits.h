// DataUnits: the display units (recon/core/DisplayUnits.h) of what the workspace holds: PET list
// mode shows Bq/ml, a tilt series nm and XY/XZ/YZ views, CT projections 1/mm with HU available
// where the water value is known (the demos' phantoms scale their tables by water's mu), and a
// volume opened on its own lengths in the unit its voxel size reads best in.
#pragma once

#include "recon/core/DisplayUnits.h"

namespace tomowb::gui {

class Workspace;

// `showHu`: the user's HU choice, kept where HU are available.
DisplayUnits displayUnitsOf(const Workspace& workspace, bool showHu = false);

}  // namespace tomowb::gui

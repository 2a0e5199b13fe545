// DataUnits: see the header.
#include "gui/core/DataUnits.h"

#include "gui/core/TiltAngles.h"
#include "gui/core/Workspace.h"

namespace tomowb::gui {

DisplayUnits displayUnitsOf(const Workspace& workspace, bool showHu) {
  DisplayUnits units;
  if (workspace.petData() != nullptr) {
    units = DisplayUnits::forModality(DataModality::Pet);
  } else if (const Geometry* g = workspace.geometry(); g != nullptr) {
    if (isTiltSeries(*g)) {
      units = DisplayUnits::forModality(DataModality::ElectronTomography);
    } else {
      // Water's mu is known for the demos (their phantoms are in 1/mm with water at
      // kWaterAttenuationPerMm, the CNR phantom says its own); a user's scan has it only when
      // the user gives it.
      // The user's value (View > Water value for HU) comes first.
      std::optional<double> water = workspace.waterValuePerMm();
      if (!water.has_value() && workspace.cnrPhantom() != nullptr)
        water = workspace.cnrPhantom()->waterValuePerMm();
      else if (!water.has_value() && workspace.phantom() != nullptr)
        water = phantom::kWaterAttenuationPerMm;
      units = DisplayUnits::forModality(DataModality::TransmissionCt, water);
    }
  } else if (const NamedVolume* v = workspace.currentVolume(); v != nullptr && v->volume) {
    units.setLengthUnit(lengthUnitFor(v->volume->voxelSizeMm().minCoeff()));
  }
  units.setShowHu(showHu);
  return units;
}

}  // namespace tomowb::gui

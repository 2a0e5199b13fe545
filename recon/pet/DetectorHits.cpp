// DetectorHits: the plain hit model built from a ScannerModel (the inline functions are in the
// header, shared with the CUDA simulator).
#include "recon/pet/DetectorHits.h"

#include <numbers>

#include "recon/pet/ScannerModel.h"

namespace tomowb::pet {

DetectorHitModel detectorHitModel(const ScannerModel& s) {
  DetectorHitModel m;
  m.flatModules = s.layout == DetectorLayout::FlatModules ? 1 : 0;
  m.modules = m.flatModules ? s.modules : 1;
  m.crystalsPerRing = s.crystalsPerRing;
  m.crystalsPerModule = s.crystalsPerModule();
  m.rings = s.rings;
  m.radiusMm = s.radiusMm;
  m.crystalRadiusMm = s.radiusMm + s.meanDoiMm;
  m.crystalPitchMm = s.crystalPitchMm;
  m.ringPitchMm = s.ringPitchMm;
  m.halfModuleWidthMm = 0.5 * m.crystalsPerModule * s.crystalPitchMm;
  m.halfAxialMm = 0.5 * s.rings * s.ringPitchMm;
  m.sinAcceptance = std::sin(s.axialAcceptanceDeg * std::numbers::pi / 180.0);
  m.fovRadiusMm = 0.5 * s.transaxialFovMm;
  return m;
}

}  // namespace tomowb::pet

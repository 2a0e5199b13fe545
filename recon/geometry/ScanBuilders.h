// Parametric builders that turn the numbers on a scanner's sheet into the vector-form Geometry:
// circular cone beam (full scan, short scan, any angle list), helical cone beam, parallel beam
// and electron-tomography tilt series. Conventions (docs/geometry.md):
//  - At source angle theta the source sits at SOD (cos theta, sin theta, 0); theta = 0 puts it on
//    +x and theta grows counter-clockwise seen from +z (right-handed about the rotation axis +z).
//  - The detector faces the source; its column axis is e_u = z x s = (-sin, cos, 0) (columns grow
//    to the right seen from the source) and its row axis is e_v = +z (rows grow upwards).
//  - Detector offsets move the detector centre along e_u / e_v (mm). Tilt rotates the detector
//    about its own e_u axis, slant about e_v, inPlaneRotation about the normal; skew tilts the
//    row axis towards e_u so that u and v are no longer perpendicular.
//  - A cylindrical (arc) detector (cone beams, DetectorSurface::Cylinder) is centred on the
//    source with radius SDD; pitchUMm is then the arc length per column, offsetUMm an arc length
//    along e_u (the detector turns about the source's axis by offsetUMm / SDD) and offsetVMm a
//    shift along the axis. It cannot be tilted, slanted, rotated or skewed.
#pragma once

#include <cstdint>
#include <vector>

#include "recon/geometry/Geometry.h"

namespace tomowb {

struct DetectorParams {
  std::int64_t cols = 0, rows = 0;
  double pitchUMm = 1.0, pitchVMm = 1.0;
  double offsetUMm = 0.0, offsetVMm = 0.0;
  double tiltRad = 0.0;             // about the detector's column axis e_u
  double slantRad = 0.0;            // about the detector's row axis e_v
  double inPlaneRotationRad = 0.0;  // about the detector normal
  double skewRad = 0.0;             // angle by which v leans towards u (0 = perpendicular)
  DetectorSurface surface = DetectorSurface::Flat;  // cone beams only: Cylinder = arc detector
};

struct CircularConeParams {
  double sourceToIsocentreMm = 0.0;
  double sourceToDetectorMm = 0.0;
  DetectorParams detector;
  std::vector<double> anglesRad;  // source angle of each view
};

// Evenly over 2 pi, without repeating the first angle.
std::vector<double> fullScanAnglesRad(std::int64_t viewCount, double startRad = 0.0);
// Evenly over [start, start + range] inclusive of both ends (a short scan needs both).
std::vector<double> arcAnglesRad(std::int64_t viewCount, double rangeRad, double startRad = 0.0);
// The full fan angle (2 gamma_max) subtended by the detector's columns at the source, offsets
// included: the short-scan range is pi plus this.
double fullFanAngleRad(const CircularConeParams& params);
// A short scan's angles: evenly over pi + full fan angle (+ extraRad margin), both ends included.
std::vector<double> shortScanAnglesRad(const CircularConeParams& params, std::int64_t viewCount,
                                       double startRad = 0.0, double extraRad = 0.0);

Geometry circularConeBeam(const CircularConeParams& params);

struct HelicalConeParams {
  CircularConeParams circular;  // anglesRad may run over several turns
  // Table feed per turn divided by the detector height at the isocentre (rows*pitchV*SOD/SDD),
  // the usual CT definition; 1.0 means contiguous coverage.
  double pitch = 1.0;
  double startZMm = 0.0;  // source z at anglesRad[0]
};
Geometry helicalConeBeam(const HelicalConeParams& params);
double helicalFeedPerTurnMm(const HelicalConeParams& params);

// The GE LightSpeed "ge1" multi-slice CT of the SF seed (reference/sf-projectors.md, section 2;
// MIRT's sino_geom('ge1')): source-isocentre 541 mm, source-detector 949.075 mm, an arc detector
// of 888 channels at 1.0239 mm of arc and 64 rows at 1.096436 mm (0.625 mm at the isocentre), the
// quarter-detector channel offset (the isocentre's ray falls on column (888 - 1) / 2 + 1.25) and
// 984 views per turn. `surface` Flat gives the same numbers on a flat detector (for comparisons).
CircularConeParams geLightSpeedCircular(std::int64_t viewsPerTurn = 984,
                                        DetectorSurface surface = DetectorSurface::Cylinder);
// The same on a helix of `turns` turns (viewsPerTurn views each, at the same angles on every turn)
// at `pitch` (1: 40 mm per turn), its source's z range centred on z = 0.
HelicalConeParams geLightSpeedHelical(double turns = 1.0, double pitch = 1.0,
                                      std::int64_t viewsPerTurn = 984,
                                      DetectorSurface surface = DetectorSurface::Cylinder);

struct ParallelBeamParams {
  DetectorParams detector;
  std::vector<double> anglesRad;  // the source side's angle: rays travel along -(cos, sin, 0)
};
Geometry parallelBeam(const ParallelBeamParams& params);

// Electron-tomography tilt series: parallel beam, tilt axis = world z. At tilt 0 the beam runs
// along -y, so the specimen slab lies in the x-z plane (thin along y).
struct TiltSeriesParams {
  std::int64_t cols = 0, rows = 0;
  double pixelSizeMm = 1.0;
  std::vector<double> tiltAnglesRad;
  // Angle of the tilt axis in the image, counter-clockwise from the row axis (+v), as IMOD's
  // "rotation angle" is from image Y.
  double tiltAxisAngleRad = 0.0;
  // Where the tilt axis crosses the image, in pixels from the centre along the axis' normal.
  double tiltAxisShiftPixels = 0.0;
};
Geometry tiltSeries(const TiltSeriesParams& params);

}  // namespace tomowb

// GeometryForm: the numbers of the geometry editor's form, in the units the user types (mm,
// degrees), and their mapping to the core's parametric builders (recon/geometry/ScanBuilders.h).
// It also reads them back from a vector-form Geometry when one of the builders made it (so the
// demo's and imported scans open in the form), and keeps them in an "editor" block of the
// geometry JSON (recon/io/GeometryJson.h), which the core reader ignores: the file's views
// stay the authority, the block only restores the form. No widgets here, so it is tested without
// a display; gui/GeometryPanel is the form's face.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recon/geometry/Geometry.h"
#include "recon/geometry/ScanBuilders.h"

namespace tomowb::gui {

enum class ScanType {
  CircularCone,  // evenly over rangeDeg (360: a full turn), the last angle not repeated
  ShortScan,     // pi + full fan angle + shortScanExtraDeg, both ends included
  HelicalCone,   // `turns` turns, table feed from `helicalPitch`
  Parallel,      // evenly over rangeDeg, the last angle not repeated
  TiltSeries,    // electron tomography: firstTiltDeg to lastTiltDeg in tiltStepDeg
  PerView        // a list of views that no builder made: shown, not edited
};
std::string_view toString(ScanType type);  // "circular-cone", "short-scan", ...
std::optional<ScanType> scanTypeFromString(std::string_view name);
// What the combo box shows: "Circular cone beam", "Short scan (Parker)", ...
std::string displayName(ScanType type);

struct GeometryForm {
  ScanType scanType = ScanType::CircularCone;

  // Cone beam (circular, short scan, helical).
  double sourceToIsocentreMm = 500.0;
  double sourceToDetectorMm = 1000.0;

  // Views (all but tilt series).
  std::int64_t viewCount = 360;
  double startAngleDeg = 0.0;  // source angle of view 0 (parallel: the source side's angle)
  double rangeDeg = 360.0;     // circular cone and parallel
  double shortScanExtraDeg = 0.0;
  bool clockwise = false;  // angles decrease seen from +z (docs/geometry.md: theta grows CCW)

  // Helical.
  double turns = 1.0;
  double helicalPitch = 1.0;  // feed per turn / detector height at the isocentre
  double startZMm = 0.0;

  // Detector (all but tilt series).
  std::int64_t cols = 256, rows = 256;
  double pitchUMm = 1.0, pitchVMm = 1.0;
  double offsetUMm = 0.0, offsetVMm = 0.0;
  double tiltDeg = 0.0, slantDeg = 0.0, inPlaneRotationDeg = 0.0, skewDeg = 0.0;
  // Cone scans: a flat panel or an arc (a cylinder centred on the source; pitchUMm and offsetUMm
  // are then arc lengths, docs/geometry.md). Taken from the loaded geometry, not edited.
  DetectorSurface surface = DetectorSurface::Flat;

  // Tilt series.
  double pixelSizeMm = 1.0;
  double firstTiltDeg = -60.0, lastTiltDeg = 60.0, tiltStepDeg = 2.0;
  double tiltAxisAngleDeg = 0.0;
  double tiltAxisShiftPixels = 0.0;

  bool operator==(const GeometryForm&) const = default;
};

// The builder parameters the form stands for (angles in radians, as the core wants them).
DetectorParams detectorParams(const GeometryForm& form);
CircularConeParams circularConeParams(const GeometryForm& form);  // CircularCone, ShortScan
HelicalConeParams helicalConeParams(const GeometryForm& form);
ParallelBeamParams parallelBeamParams(const GeometryForm& form);
TiltSeriesParams tiltSeriesParams(const GeometryForm& form);
// The view angles (radians) of the circular, short, helical or parallel scan.
std::vector<double> formAnglesRad(const GeometryForm& form);

// Runs the builder. Throws ParameterError naming the form's field ("sourceToDetectorMm",
// "viewCount", ...) for values the builders refuse; PerView cannot be built (ParameterError).
Geometry buildGeometry(const GeometryForm& form);

// The form values that rebuild `geometry` (to 1e-6 mm; tilt series to a thousandth of a pixel),
// if a builder without detector tilts made it: circular cone (full, arc or short scan, either
// sense), helical, parallel beam, tilt series with evenly spaced tilts (isTiltSeries: a parallel
// scan short of 170 degrees). Else nullopt (tilted detectors are restored from a file's editor
// block instead).
std::optional<GeometryForm> recogniseGeometry(const Geometry& geometry);

// Largest difference (mm, or unit vector components for ray directions) between two geometries
// of the same shape; infinity if the beam, detector or view count differ.
double maxGeometryDifference(const Geometry& a, const Geometry& b);

// The "editor" block: every field under its name above, scanType as toString() gives.
nlohmann::json formToJson(const GeometryForm& form);
// Throws FormatError naming `source` and the field ("editor.viewCount").
GeometryForm formFromJson(const nlohmann::json& editor, const std::filesystem::path& source);

// Writes the geometry in vector form (saveGeometry's format) plus the form's editor block.
void exportGeometryJson(const std::filesystem::path& path, const Geometry& geometry,
                        const std::optional<GeometryForm>& form);
struct ImportedGeometry {
  Geometry geometry;
  // The form that rebuilds it: the file's editor block if it matches the views, else
  // recogniseGeometry's answer, else nullopt (shown as a per-view list).
  std::optional<GeometryForm> form;
};
// Throws what loadGeometry throws (FormatError / IoError naming the file and field).
ImportedGeometry importGeometryJson(const std::filesystem::path& path);

}  // namespace tomowb::gui

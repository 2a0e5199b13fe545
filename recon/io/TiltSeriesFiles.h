// An electron-tomography tilt series from its files: an image stack (MRC .mrc .st .ali .mrcs
// .preali, or a multi-page TIFF where the build has libtiff), its tilt angles (IMOD .tlt/.rawtlt,
// else a SerialEM extended header), and optionally IMOD's per-view alignment (.xf) and x-axis
// tilts (.xtilt), assembled into a ProjectionStack whose Geometry says where every raw pixel lies
// (reference/sirt-et.md, sections 2 and 8). The raw images are never resampled: the alignment
// goes into the per-view vectors.
//
// Geometry, step by step:
//  1. tomowb::tiltSeries() (ScanBuilders.h): parallel beam, tilt axis = world +z, beam along -y at
//     tilt 0, with TiltSeriesOptions' tilt-axis angle and shift. These views are the *aligned*
//     (ideal) views, the frame an .xf maps into: with an .xf the tilt-axis angle describes the
//     axis in the aligned images, normally 0.
//  2. .xf (ImodFiles.h): x' = A x + D maps raw pixel x to aligned pixel x'. With the aligned
//     view's centre d' and axes u', v' and D_g the shift about the geometric centre
//     (XfTransform::shiftAboutGeometricCentre), raw pixel x lies where aligned pixel A x + D_g
//     does: d' + [u' v'](A x + D_g). So the raw view has
//         u = A11 u' + A21 v',   v = A12 u' + A22 v',   d = d' + D_g,x u' + D_g,y v',
//     and a world point that the aligned view sees at pixel p' (IMOD's centre) is seen by the raw
//     view at p = A^-1 (p' - D). A is decomposed (ImodFiles.h, decompose()) and a warning names
//     the views whose magnification, stretch or skew departs from 1 (or 0) by more than 1%.
//  3. x-axis tilt: every vector of view k (ray, detector centre, u, v) is rotated about world +x
//     by options.xAxisTiltRad + the .xtilt angle of view k (right-handed, so the specimen seems
//     tilted the other way).
// Pixel size: options.pixelSizeMm, else the MRC header's X spacing, else (with a warning) 1 mm,
// which keeps the geometry in pixel units.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/io/ImodFiles.h"

namespace tomowb::io {

struct TiltSeriesSources {
  std::filesystem::path stack;       // MRC or TIFF image stack (required)
  std::filesystem::path tiltAngles;  // .tlt / .rawtlt; empty: the MRC's SerialEM header
  std::filesystem::path alignment;   // .xf; empty: none
  std::filesystem::path xAxisTilts;  // .xtilt; empty: none
};

struct TiltSeriesOptions {
  double pixelSizeMm = 0;  // 0: from the MRC header
  double tiltAxisAngleRad = 0, tiltAxisShiftPixels = 0, xAxisTiltRad = 0;
};

struct LoadedTiltSeries {
  ProjectionStack projections;
  std::vector<std::string> warnings;
};

// FormatError naming the file for a bad file; a count that does not match the stack's views
// names both files and counts; no tilt angles at all names the files that were looked for.
LoadedTiltSeries loadTiltSeries(const TiltSeriesSources& sources, const TiltSeriesOptions& options);

// What loadTiltSeries makes of the headers and companion files, without reading the samples: the
// geometry (tilt angles, pixel size, alignment, x-axis tilts) of a stack of `views` views of
// `rows` x `cols` (an MRC stack when isMrc, else TIFF). The same errors and warnings.
struct TiltSeriesDescription {
  Geometry geometry;
  std::int64_t cols = 0, rows = 0, views = 0;
  bool isMrc = true;
  std::vector<std::string> warnings;
};
TiltSeriesDescription describeTiltSeries(const TiltSeriesSources& sources,
                                         const TiltSeriesOptions& options);

// The files beside `stack` (NAME.EXT): NAME.tlt, else NAME.rawtlt; NAME.xf; NAME.xtilt. A path
// is left empty when its file does not exist.
TiltSeriesSources findCompanionFiles(const std::filesystem::path& stack);

// Writes an MRC image stack (mode 2, ispg 0, tilt angles also in a SerialEM extended header)
// and NAME.tlt beside it (degrees), each atomically, the stack first.
void writeTiltSeries(const std::filesystem::path& mrcPath, const ProjectionStack& projections,
                     const std::vector<double>& tiltAnglesRad);

// Step 2 above: folds transforms[k] (raw -> aligned) into view k of an aligned geometry.
void applyAlignment(Geometry& geometry, const std::vector<XfTransform>& transforms);
// Step 3 above: rotates every vector of view k about world +x by xTiltsRad[k].
void applyXAxisTilts(Geometry& geometry, const std::vector<double>& xTiltsRad);

}  // namespace tomowb::io

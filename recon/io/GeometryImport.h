// Geometries from other tools' files:
//  - ASTRA vector arrays saved as text (numpy.savetxt of cone_vec or parallel3d_vec): one view
//    per line, 12 numbers (cone: src, d, u, v; parallel: ray, d, u, v), same conventions as ours
//    (d = detector centre, u = column step, v = row step).
//  - Per-view 3x4 projection matrices as text: 12 numbers per view, row-major (3 rows of 4),
//    in pixel units with pixel centres at integers; either one view per line or each matrix as
//    three lines of four numbers.
//  - IMOD tilt angles (.tlt, .rawtlt): one angle in degrees per line.
// Numbers may be separated by spaces, tabs or commas; '#' starts a comment. Errors name the file
// and the line.
//
// detectGeometryFileFormat() recognises these files, and our geometry JSON, by their content, not
// their name (docs/astra-users.md states the rules):
//  - the first character that is not white space is '{': our geometry JSON;
//  - one number per line: IMOD tilt angles;
//  - four numbers per line, a multiple of three lines: 3x4 matrices;
//  - twelve numbers per line: ASTRA vectors if every line reads as a real view: u (numbers 7-9)
//    and v (10-12) non-zero and perpendicular within 0.1%, and either a unit ray direction first
//    (parallel3d_vec) that meets the detector plane at more than a grazing angle, or a source
//    point (cone_vec) at least 10 pixel pitches from the detector plane; otherwise 3x4 matrices
//    one per line, whose numbers in those places read as none of this.
#pragma once

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "recon/geometry/Geometry.h"

namespace tomowb {

enum class GeometryFileFormat { Json, AstraCone, AstraParallel, Matrices, ImodTilts };

// "json", "astra-cone", "astra-parallel", "matrices", "tlt" (the --geometry-format names).
std::string_view toString(GeometryFileFormat format);
// A one-line description for messages: "ASTRA cone_vec vectors".
std::string describe(GeometryFileFormat format);
// The format a --geometry-format name gives; ParameterError naming `option` and the names.
GeometryFileFormat geometryFileFormatFromName(std::string_view name, std::string_view option);

struct DetectedGeometryFormat {
  GeometryFileFormat format = GeometryFileFormat::Json;
  std::string reason;  // why, for the user: "12 numbers on each of 360 lines, u perpendicular to v"
};
// Reads the file's text and applies the rules above. FormatError naming the file (and the line)
// when it is none of these, saying which --geometry-format names exist.
DetectedGeometryFormat detectGeometryFileFormat(const std::filesystem::path& path);

// The twelve numbers of each view: one line of 12, or (allowThreeLinesOfFour) three lines of 4.
std::vector<std::array<double, 12>> readTwelveNumbersPerView(const std::filesystem::path& path,
                                                             bool allowThreeLinesOfFour = false);
// Cone if any matrix' last row has a non-zero x, y or z coefficient, parallel otherwise.
BeamKind beamOfMatrices(const std::vector<std::array<double, 12>>& rows);

Geometry importAstraVectors(const std::filesystem::path& path, BeamKind beam,
                            DetectorShape detector);
Geometry importMatrixText(const std::filesystem::path& path, BeamKind beam, DetectorShape detector,
                          double pixelPitchMm = 1.0);

}  // namespace tomowb

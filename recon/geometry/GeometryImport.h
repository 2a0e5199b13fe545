// Geometries from other tools' files:
//  - ASTRA vector arrays saved as text (numpy.savetxt of cone_vec or parallel3d_vec): one view
//    per line, 12 numbers (cone: src, d, u, v; parallel: ray, d, u, v), same conventions as ours
//    (d = detector centre, u = column step, v = row step).
//  - Per-view 3x4 projection matrices as text: 12 numbers per view, row-major (3 rows of 4),
//    in pixel units with pixel centres at integers.
// Numbers may be separated by spaces, tabs or commas; '#' starts a comment. Errors name the file
// and the line.
#pragma once

#include <filesystem>

#include "recon/geometry/Geometry.h"

namespace tomowb {

Geometry importAstraVectors(const std::filesystem::path& path, BeamKind beam,
                            DetectorShape detector);
Geometry importMatrixText(const std::filesystem::path& path, BeamKind beam, DetectorShape detector,
                          double pixelPitchMm = 1.0);

}  // namespace tomowb

// Views given directly as 3x4 projection matrices (RabbitCT, calibrated C-arms, other tools):
// each matrix is decomposed into the vector form. A cone matrix fixes the source and the
// detector's directions but not its distance: the detector is placed so that its column pitch is
// pixelPitchMm (FDK's result does not depend on that choice). Parallel matrices have last row
// (0, 0, 0, 1) and fix everything.
#pragma once

#include <vector>

#include "recon/geometry/Geometry.h"

namespace tomowb {

Geometry geometryFromMatrices(BeamKind beam, DetectorShape detector,
                              const std::vector<ProjectionMatrix>& matrices,
                              double pixelPitchMm = 1.0);

// The View a single matrix describes (see above); throws ParameterError naming `what` if the
// matrix is singular, not finite, or does not match the beam kind.
View viewFromMatrix(BeamKind beam, DetectorShape detector, const ProjectionMatrix& matrix,
                    double pixelPitchMm, const std::string& what);

}  // namespace tomowb

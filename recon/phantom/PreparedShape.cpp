#include "recon/phantom/PreparedShape.h"

namespace tomowb::phantom {

PreparedShape::PreparedShape(const Ellipsoid& ellipsoid)
    : kind_(Kind::Ellipsoid),
      density_(ellipsoid.density),
      volumeMm3_(ellipsoid.volumeMm3()),
      centre_(ellipsoid.centreMm),
      toLocal_(ellipsoid.semiAxesMm.cwiseInverse().asDiagonal() * ellipsoid.rotation.transpose()),
      boxMin_(ellipsoid.centreMm - ellipsoid.halfExtentMm()),
      boxMax_(ellipsoid.centreMm + ellipsoid.halfExtentMm()) {}

PreparedShape::PreparedShape(const Cylinder& cylinder)
    : kind_(Kind::Cylinder),
      density_(cylinder.density),
      volumeMm3_(cylinder.volumeMm3()),
      centre_(cylinder.centreMm),
      toLocal_(Eigen::Vector3d(1.0 / cylinder.radiusMm, 1.0 / cylinder.radiusMm,
                               1.0 / cylinder.halfLengthMm)
                   .asDiagonal() *
               cylinder.rotation.transpose()),
      boxMin_(cylinder.centreMm - cylinder.halfExtentMm()),
      boxMax_(cylinder.centreMm + cylinder.halfExtentMm()) {}

}  // namespace tomowb::phantom

// Phantom: an analytic test object made of ellipsoids and cylinders whose densities add where
// they overlap (Kak & Slaney, "Principles of Computerized Tomographic Imaging", 1988, ch. 3). It
// gives exact point values and exact line integrals, so it is the ground truth every projector,
// reconstruction and metric is tested against (DESIGN.md: no real data set is available offline).
//
// The factories here build the 3-D Shepp-Logan head (Kak & Slaney's table, and the same ellipsoids
// with the higher "modified" contrast) and an orientation phantom that is not symmetric, for
// testing geometry conventions. The contrast-to-noise phantom is CnrPhantom.h.
//
// Density convention (docs/phantoms.md): densities are linear attenuation coefficients in 1/mm,
// so line integrals are dimensionless (-log of the transmitted fraction). The factories multiply
// their table values by `densityScale`; its default, kWaterAttenuationPerMm, makes a table value
// of 1 equal to water at about 60 keV. Pass densityScale = 1 to get the bare table values
// ("phantom units" per mm).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "recon/phantom/Cylinder.h"
#include "recon/phantom/Ellipsoid.h"
#include "recon/phantom/PreparedShape.h"

namespace tomowb::phantom {

// Linear attenuation of water at 60 keV: 0.2059 cm^2/g (NIST XCOM) x 1 g/cm^3 = 0.02059 /mm.
inline constexpr double kWaterAttenuationPerMm = 0.0206;

class Phantom {
 public:
  Phantom() = default;
  // Throws ParameterError naming the shape and field for a non-positive or non-finite size, a
  // non-finite centre or density, or a rotation that is not orthonormal.
  Phantom(std::string name, std::vector<Ellipsoid> ellipsoids,
          std::vector<Cylinder> cylinders = {});

  const std::string& name() const noexcept { return name_; }
  const std::vector<Ellipsoid>& ellipsoids() const noexcept { return ellipsoids_; }
  const std::vector<Cylinder>& cylinders() const noexcept { return cylinders_; }
  // Every shape, ellipsoids first, ready for ray intersection.
  const std::vector<PreparedShape>& preparedShapes() const noexcept { return prepared_; }

  // The phantom's value at a point: the sum of the densities of the shapes that contain it
  // (surfaces count as inside).
  double valueAt(const Eigen::Vector3d& pointMm) const;
  // Integral of the phantom along the whole line origin + t * unitDirection (t in mm).
  double lineIntegral(const Eigen::Vector3d& origin, const Eigen::Vector3d& unitDirection) const;
  // Integral along the segment from `from` to `to` only (an X-ray from source to pixel).
  double segmentIntegral(const Eigen::Vector3d& from, const Eigen::Vector3d& to) const;
  // Integral of the phantom over all space: sum of density x volume (mm^3 x density unit).
  double volumeIntegral() const;
  // Radius of a sphere about the world origin that contains every shape.
  double boundingRadiusMm() const;
  // Axis-aligned box (mm) that contains every shape.
  Eigen::Vector3d boxMinMm() const;
  Eigen::Vector3d boxMaxMm() const;

 private:
  std::string name_;
  std::vector<Ellipsoid> ellipsoids_;
  std::vector<Cylinder> cylinders_;
  std::vector<PreparedShape> prepared_;
};

// 3-D Shepp-Logan head of Kak & Slaney (1988, ch. 3, p. 102) as it is commonly reproduced (Yu,
// Ye & Wang 2004; MATLAB's phantom3d; docs/phantoms.md lists the rows): ten ellipsoids, densities
// 2, -0.98, -0.02, -0.02, 0.02, 0.02, 0.01, 0.01, 0.02, -0.02 times densityScale. Centres and
// semi-axes are the table's normalised values times scaleMm, so the skull's semi-axes are (0.69,
// 0.92, 0.90) x scaleMm; rotations are about +z. The brain (inside the skull, outside the small
// features) has the value 1.02 x densityScale.
Phantom sheppLogan3d(double scaleMm, double densityScale = kWaterAttenuationPerMm);

// The same ten ellipsoids with the higher-contrast values 1, -0.8, -0.2, -0.2, 0.2, 0.2, 0.1, 0.1,
// 0.2, -0.2 (Toft's "modified" contrast, as Yu, Ye & Wang and MATLAB's phantom3d apply it to
// the 3-D table): skull 1, brain 0.2, features 0.1 to 0.4, times densityScale.
Phantom modifiedSheppLogan3d(double scaleMm, double densityScale = kWaterAttenuationPerMm);

// Four spheres of different sizes, none on a symmetry axis of the others, so a mirrored or
// rotated geometry shows: radius 0.08 s at the origin, 0.10 s at (+0.5 s, 0, 0), 0.15 s at
// (0, +0.5 s, 0) and 0.20 s at (0, 0, +0.5 s), where s = scaleMm; each has density densityScale.
Phantom orientationPhantom(double scaleMm, double densityScale = kWaterAttenuationPerMm);

// An electron-tomography specimen (reference/sirt-et.md section 6 (ii)) in the tilt-series frame
// (x across the tilt axis, y through the specimen, z along the tilt axis): a flat embedding slab
// of density 0.2 filling about 90 % of width x thickness x height, eight cell-like ellipsoids
// (0.2 to 0.8 added, rotated about every axis), twelve gold beads (spheres of radius width/100 to
// width/40, density 10, some on the slab's faces as fiducials) and an L-shaped marker near the
// +x, +z corner that shows any mirror or rotation. Values times densityScale.
Phantom etSpecimenPhantom(double widthMm, double thicknessMm, double heightMm,
                          double densityScale = 1.0);

}  // namespace tomowb::phantom

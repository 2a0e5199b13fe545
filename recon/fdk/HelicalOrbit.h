// A helical cone-beam orbit recovered from the views themselves (docs/fdk.md, "Helical scans"):
// one source and detector that turn about +z and move along it in proportion to the angle, as
// ScanBuilders' helicalConeBeam makes them. The orbit is found from the geometry, never from how
// it is described: the views are ordered by source z, their azimuths unwrapped along that order
// and re-expressed as one counter-clockwise angle a about +z, so the order of the views, the angle
// origin and the rotation sense do not matter. The source's z is fitted as z(a) = z0 + h a.
//
// From the orbit, helical FDK (HelicalBackprojector.h) evaluates the view the scan would have at
// any angle a (matrixAt), which it needs for the conjugate rays of a voxel: the rays through the
// same transaxial line, at a + 2 pi m (same direction) and a + (2m + 1) pi + 2 gamma (opposite
// direction, gamma the voxel's fan angle).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recon/geometry/Geometry.h"

namespace tomowb::fdk {

class HelicalOrbit {
 public:
  // True for a cone-beam geometry whose sources do not all lie in one plane normal to z.
  static bool sourcesLeaveThePlane(const Geometry& geometry);

  // ParameterError naming the view unless the geometry is a cone beam whose views are one source
  // and detector turning about +z (angle steps below 180 deg, all in one sense) and moving along
  // it in proportion to the angle (to a thousandth of a pixel).
  explicit HelicalOrbit(const Geometry& geometry);

  // Counter-clockwise angle of a view's source about +z, unwrapped over the turns.
  double angleRad(std::int64_t view) const { return angles_[static_cast<std::size_t>(view)]; }
  // The angle a view stands for: half the gaps to its neighbours; the first and last views stand
  // for as much on their open side as on the other.
  double stepRad(std::int64_t view) const { return steps_[static_cast<std::size_t>(view)]; }
  // The arc the views cover: from half a step before the first to half a step after the last.
  double startRad() const noexcept { return start_; }
  double endRad() const noexcept { return end_; }
  double turns() const noexcept;

  double zPerRadMm() const noexcept { return zPerRad_; }  // signed: < 0 if z falls as a grows
  double feedPerTurnMm() const noexcept;
  double sourceZAt(double angleRad) const noexcept { return z0_ + zPerRad_ * angleRad; }
  double sourceToIsocentreMm() const noexcept { return sourceToIsocentre_; }
  double sourceToDetectorMm() const noexcept { return sourceToDetector_; }
  // The detector's rows seen from the source, scaled to the rotation axis (mm).
  double detectorHeightAtIsocentreMm() const noexcept { return heightAtIsocentre_; }
  // Feed per turn over the detector height at the isocentre (ScanBuilders' definition).
  double pitch() const noexcept;

  // World mm -> (c w, r w, w) of the view the orbit has at angle `angleRad`: the reference view
  // turned about +z and moved along it (w = 1 on the rotation axis, as Geometry's matrices).
  ProjectionMatrix matrixAt(double angleRad) const;
  // The view matrixAt turns and moves: the first view along the orbit, its angle and source z.
  double referenceAngleRad() const noexcept { return referenceAngle_; }
  double referenceSourceZMm() const noexcept { return referenceSourceZ_; }

  // Why helical FDK cannot reconstruct a slice at mid-scan out to `radiusMm` from the axis
  // (nothing if it can): some transaxial line through a point of that cylinder is seen by no view
  // that has the point on its detector, because the table moves too far per turn for the
  // detector's height, or the helix is too short. The text names the pitch and the largest
  // pitch this detector covers.
  std::optional<std::string> coverageProblem(double radiusMm) const;
  // The largest pitch at which coverageProblem(radiusMm) finds nothing (bisection).
  double largestCoveredPitch(double radiusMm) const;

  // The slices (source z range, less a margin of the table's travel over half a turn plus the
  // fan at each end) whose every line is measured: the default grid's z extent.
  double firstCompleteZMm() const noexcept;
  double lastCompleteZMm() const noexcept;
  void setHalfFanAngleRad(double halfFanRad) noexcept { halfFan_ = halfFanRad; }

  std::string summary() const;

 private:
  bool everyLineSeen(double radiusMm, double zPerRad) const;

  std::int64_t rows_ = 0;
  std::vector<double> angles_, steps_;
  double start_ = 0, end_ = 0;
  double z0_ = 0, zPerRad_ = 0;
  double referenceAngle_ = 0, referenceSourceZ_ = 0;
  Eigen::Vector2d referenceSourceXy_ = Eigen::Vector2d::Zero();
  ProjectionMatrix reference_ = ProjectionMatrix::Zero();
  double sourceToIsocentre_ = 0, sourceToDetector_ = 0, heightAtIsocentre_ = 0;
  double halfFan_ = 0;
};

}  // namespace tomowb::fdk

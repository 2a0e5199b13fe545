// Geometry: one View per projection in vector form (ASTRA cone_vec / parallel3d_vec style), the
// one geometry model every projector, algorithm, file and editor uses. Conventions (also in
// docs/geometry.md, with a sketch):
//  - World coordinates are right-handed, in mm; the rotation axis of circular scans is +z and the
//    isocentre is the world origin.
//  - A cone view has a source point; a parallel view has a unit ray direction (from the source
//    side towards the detector) instead.
//  - detectorCentre is the centre of the detector; u is the step from column c to c+1 and v the
//    step from row r to r+1, each scaled to one pixel pitch. Pixel (c, r) centre lies at
//    detectorCentre + (c - (cols-1)/2) u + (r - (rows-1)/2) v, so pixel centres sit at integer
//    (c, r), as in RabbitCT.
//  - Projections are stored [view][row][col], col fastest (ProjectionStack).
//  - A cone view's detector is flat (the default) or a cylinder centred on the source (an arc
//    detector as in third-generation CT, ASTRA's cyl_cone_vec): columns then run along the arc,
//    |u| being the arc length per column, and rows along the cylinder's axis v. ArcFrame.h has
//    its formulas. No 3x4 matrix describes an arc view: consumers built on projectionMatrix()
//    refuse it (flatDetectorRefusal below).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tomowb {

enum class BeamKind { Cone, Parallel };

std::string toString(BeamKind beam);

// The shape of a view's detector: a plane, or a cylinder whose axis runs through the source
// along v (cone views only).
enum class DetectorSurface { Flat, Cylinder };

std::string toString(DetectorSurface surface);  // "flat", "cylinder"
// "flat" or "cylinder" (also "arc"); nothing for any other word.
std::optional<DetectorSurface> detectorSurfaceFromString(std::string_view word);

struct DetectorShape {
  std::int64_t cols = 0, rows = 0;
  bool operator==(const DetectorShape&) const = default;
};

struct View {
  Eigen::Vector3d source = Eigen::Vector3d::Zero();        // cone beam only
  Eigen::Vector3d rayDirection = Eigen::Vector3d::Zero();  // parallel beam only (unit)
  Eigen::Vector3d detectorCentre = Eigen::Vector3d::Zero();
  Eigen::Vector3d u = Eigen::Vector3d::Zero();  // column step, |u| = column pitch (mm)
  Eigen::Vector3d v = Eigen::Vector3d::Zero();  // row step, |v| = row pitch (mm)
  // Cylinder: u is the tangent of the arc at the detector centre and |u| the arc length per column.
  DetectorSurface surface = DetectorSurface::Flat;

  bool operator==(const View& o) const {
    return source == o.source && rayDirection == o.rayDirection &&
           detectorCentre == o.detectorCentre && u == o.u && v == o.v && surface == o.surface;
  }
};

// 3x4 matrix mapping world mm (x, y, z, 1) to (c*w, r*w, w), pixel centres at integer (c, r).
using ProjectionMatrix = Eigen::Matrix<double, 3, 4>;

class Geometry {
 public:
  Geometry() = default;
  Geometry(BeamKind beam, DetectorShape detector, std::vector<View> views);

  BeamKind beam() const noexcept { return beam_; }
  const DetectorShape& detector() const noexcept { return detector_; }
  std::int64_t viewCount() const noexcept { return static_cast<std::int64_t>(views_.size()); }
  const std::vector<View>& views() const noexcept { return views_; }
  const View& view(std::int64_t i) const { return views_[static_cast<std::size_t>(i)]; }
  View& view(std::int64_t i) { return views_[static_cast<std::size_t>(i)]; }

  // World position of the centre of pixel (col, row) of view i (fractional coordinates allowed),
  // on the plane or on the arc (ArcFrame::pixel).
  Eigen::Vector3d pixelPosition(std::int64_t viewIndex, double col, double row) const;
  // Unit direction of the ray that ends at pixel (col, row): source->pixel or rayDirection.
  Eigen::Vector3d rayDirectionTo(std::int64_t viewIndex, double col, double row) const;

  // The 3x4 projection matrix of a view. For cone views it is scaled so that w = 1 at the world
  // origin (the isocentre): then w(X) = depth(X) / depth(origin) along the detector normal and
  // the FDK distance weight is 1/w^2. For parallel views the last row is (0, 0, 0, 1). Throws
  // ParameterError for a view with a cylindrical detector, which no 3x4 matrix describes.
  ProjectionMatrix projectionMatrix(std::int64_t viewIndex) const;

  // Whether any view has a cylindrical detector, and the first that has (-1 if none).
  bool hasCylindricalViews() const noexcept { return firstCylindricalView() >= 0; }
  std::int64_t firstCylindricalView() const noexcept;

  // Throws ParameterError naming the view and the problem: non-finite numbers, zero or parallel
  // u/v, a source on the detector plane, a zero ray direction, an empty detector; for a
  // cylindrical detector a parallel beam, axes that are not perpendicular (u, v and the
  // source-to-centre direction) or an arc of pi or more.
  void validate() const;

  // Source (or ray) azimuth around +z of each view, unwrapped so that neighbours differ by less
  // than pi (radians). Used for angular weights (FDK integration step, Parker).
  std::vector<double> sourceAzimuthsRad() const;

  bool operator==(const Geometry&) const = default;

 private:
  void validateView(std::int64_t i) const;
  void validateCylinder(std::int64_t i) const;

  BeamKind beam_ = BeamKind::Cone;
  DetectorShape detector_;
  std::vector<View> views_;
};

// Why a consumer that needs a flat detector (a 3x4 projection matrix per view: voxel-driven
// backprojection, FDK, the matrix-based GPU kernels) cannot take this geometry: "view 3 has a
// cylindrical detector: <consumer> needs a flat detector (a 3x4 projection matrix per view)", or
// nothing when every view is flat.
std::optional<std::string> flatDetectorRefusal(const Geometry& geometry, std::string_view consumer);
// Throws ParameterError(consumer, the refusal above) when there is one.
void requireFlatDetectors(const Geometry& geometry, std::string_view consumer);

}  // namespace tomowb

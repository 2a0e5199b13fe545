#include "recon/geometry/MatrixGeometry.h"

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "recon/core/Error.h"

namespace tomowb {

View viewFromMatrix(BeamKind beam, DetectorShape detector, const ProjectionMatrix& p,
                    double pixelPitchMm, const std::string& what) {
  if (!p.allFinite()) throw ParameterError(what, "has non-finite entries");
  if (!(pixelPitchMm > 0.0)) throw ParameterError("pixelPitchMm", "must be > 0");
  const double halfCols = 0.5 * static_cast<double>(detector.cols - 1);
  const double halfRows = 0.5 * static_cast<double>(detector.rows - 1);
  View view;
  if (beam == BeamKind::Cone) {
    const Eigen::Matrix3d m = p.leftCols<3>();
    Eigen::FullPivLU<Eigen::Matrix3d> lu(m);
    if (!lu.isInvertible()) throw ParameterError(what, "is singular: no source position");
    const Eigen::Matrix3d inv = lu.inverse();
    view.source = -inv * p.col(3);
    // [u v (pixel00 - s)] = c * M^-1 for some scale c: choose |c| from the pitch and its sign
    // so that the detector lies in front of the source (on the isocentre's side).
    double c = pixelPitchMm / inv.col(0).norm();
    if ((c * inv.col(2)).dot(-view.source) < 0.0) c = -c;
    view.u = c * inv.col(0);
    view.v = c * inv.col(1);
    const Eigen::Vector3d pixel00 = view.source + c * inv.col(2);
    view.detectorCentre = pixel00 + halfCols * view.u + halfRows * view.v;
  } else {
    if (std::abs(p(2, 0)) + std::abs(p(2, 1)) + std::abs(p(2, 2)) > 1e-12 * p.norm() ||
        p(2, 3) == 0.0)
      throw ParameterError(what, "is not a parallel-beam matrix (last row must be (0, 0, 0, w))");
    const Eigen::Matrix<double, 2, 4> a = p.topRows<2>() / p(2, 3);
    const Eigen::Vector3d direction =
        a.block<1, 3>(0, 0).transpose().cross(a.block<1, 3>(1, 0).transpose());
    if (direction.norm() == 0.0) throw ParameterError(what, "is singular: rows are parallel");
    Eigen::Matrix3d n;
    n.topRows<2>() = a.leftCols<3>();
    n.row(2) = direction.normalized().transpose();
    const Eigen::Matrix3d inv = n.inverse();
    view.u = inv.col(0);
    view.v = inv.col(1);
    // The matrix cannot tell the ray's sense; ours runs against u x v (builders' convention).
    view.rayDirection = direction.normalized();
    if (view.rayDirection.dot(view.u.cross(view.v)) > 0) view.rayDirection = -view.rayDirection;
    const Eigen::Vector3d pixel00 = inv * Eigen::Vector3d(-a(0, 3), -a(1, 3), 0.0);
    view.detectorCentre = pixel00 + halfCols * view.u + halfRows * view.v;
  }
  return view;
}

Geometry geometryFromMatrices(BeamKind beam, DetectorShape detector,
                              const std::vector<ProjectionMatrix>& matrices, double pixelPitchMm) {
  if (detector.cols < 1 || detector.rows < 1)
    throw ParameterError("detector", "needs at least 1 column and 1 row");
  std::vector<View> views;
  views.reserve(matrices.size());
  for (std::size_t i = 0; i < matrices.size(); ++i)
    views.push_back(viewFromMatrix(beam, detector, matrices[i], pixelPitchMm,
                                   "matrix of view " + std::to_string(i)));
  Geometry g(beam, detector, std::move(views));
  g.validate();
  return g;
}

}  // namespace tomowb

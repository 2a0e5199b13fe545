// ViewBinning: DIRECT's angular views (reference/direct-tof-pet.md, section 2.2-2.3). A line of
// response with undirected direction u (u_y > 0, or u_y = 0 and u_x > 0) has azimuth
// phi = atan2(u_y, u_x) in [0, pi) and co-polar tilt theta = asin(u_z) in [-maxTilt, maxTilt];
// view v = iTheta * azimuths + iPhi groups the LORs of one (phi, theta) cell. Each view has an
// orthonormal frame at its cell centre: the TOF axis t, the radial axis r (in the transverse
// plane) and the axial axis a, in which the system-response kernels are separable.
#pragma once

#include <Eigen/Core>
#include <optional>

namespace tomowb::pet {

struct ViewFrame {
  double azimuthRad = 0, tiltRad = 0;  // the cell centre
  Eigen::Vector3d tof, radial, axial;  // t = (cos th cos ph, cos th sin ph, sin th), r, a
};

struct ViewBinning {
  int azimuths = 40;
  int tilts = 3;
  double maxTiltRad = 0.17453292519943295;  // 10 degrees: the seed's axial acceptance

  int count() const noexcept { return azimuths * tilts; }
  int view(int azimuth, int tilt) const noexcept { return tilt * azimuths + azimuth; }
  int azimuthOf(int view) const noexcept { return view % azimuths; }
  int tiltOf(int view) const noexcept { return view / azimuths; }
  double azimuthStepRad() const noexcept;
  double tiltStepRad() const noexcept { return 2.0 * maxTiltRad / tilts; }
  ViewFrame frame(int view) const noexcept;
  // The view of a line of response along `direction` (either sense; need not be unit length), or
  // nothing when its tilt exceeds maxTiltRad.
  std::optional<int> viewOf(const Eigen::Vector3d& direction) const noexcept;
  // Throws ParameterError naming the field: azimuths 1..4096, tilts 1..64, maxTilt in (0, 60 deg].
  void validate() const;
};

}  // namespace tomowb::pet

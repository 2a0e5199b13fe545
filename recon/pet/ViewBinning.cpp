#include "recon/pet/ViewBinning.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "recon/core/Error.h"

namespace tomowb::pet {

double ViewBinning::azimuthStepRad() const noexcept {
  return std::numbers::pi / azimuths;
}

ViewFrame ViewBinning::frame(int view) const noexcept {
  ViewFrame f;
  f.azimuthRad = (azimuthOf(view) + 0.5) * azimuthStepRad();
  f.tiltRad = -maxTiltRad + (tiltOf(view) + 0.5) * tiltStepRad();
  const double cp = std::cos(f.azimuthRad), sp = std::sin(f.azimuthRad);
  const double ct = std::cos(f.tiltRad), st = std::sin(f.tiltRad);
  f.tof = Eigen::Vector3d(ct * cp, ct * sp, st);
  f.radial = Eigen::Vector3d(-sp, cp, 0.0);
  f.axial = Eigen::Vector3d(-st * cp, -st * sp, ct);
  return f;
}

std::optional<int> ViewBinning::viewOf(const Eigen::Vector3d& direction) const noexcept {
  Eigen::Vector3d u = direction.normalized();
  if (u.y() < 0 || (u.y() == 0 && u.x() < 0)) u = -u;
  const double tilt = std::asin(std::clamp(u.z(), -1.0, 1.0));
  if (!(std::abs(tilt) <= maxTiltRad)) return std::nullopt;
  double azimuth = std::atan2(u.y(), u.x());
  if (azimuth < 0) azimuth = 0;  // -0 and rounding just below the x axis
  const int iPhi = std::min(static_cast<int>(azimuth / azimuthStepRad()), azimuths - 1);
  const int iTheta =
      std::clamp(static_cast<int>((tilt + maxTiltRad) / tiltStepRad()), 0, tilts - 1);
  return view(iPhi, iTheta);
}

void ViewBinning::validate() const {
  if (azimuths < 1 || azimuths > 4096)
    throw ParameterError("azimuths", "must be between 1 and 4096, got " + std::to_string(azimuths));
  if (tilts < 1 || tilts > 64)
    throw ParameterError("tilts", "must be between 1 and 64, got " + std::to_string(tilts));
  if (!(maxTiltRad > 0) || maxTiltRad > std::numbers::pi / 3)
    throw ParameterError("max-tilt", "must be in (0, 60] degrees");
}

}  // namespace tomowb::pet

// DetectorHits: where a photon from an annihilation is recorded and by which crystal
// (reference/direct-tof-pet.md, section 5.3 steps 3-4): the closed-form exit through the cylinder,
// or through the module planes of a flat-module ring; the check of the hit against the crystals'
// extent; the positioning blur along the face and the snap to the nearest crystal; the crystal
// centres (the same formulas as ScannerModel::crystalPosition); and the coincidence acceptance
// (co-polar angle and transaxial field of view). A photon is taken to interact at the mean depth
// of interaction: its hit is where its path meets the surface through the crystal centres (radius
// or face distance radiusMm + meanDoiMm), so the line between the two recorded crystals follows
// the photons' line up to the crystal size and the blur (no parallax error: the depth is fixed).
// Written once for the CPU simulator and the CUDA one (ListModeSimulatorCuda.cu): plain C++17
// with <cmath> only, host and device, templated on the floating-point type so the GPU can run in
// float32. DetectorHitModel is a plain struct built from a ScannerModel on the host
// (detectorHitModel()).
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define TOMOWB_HOST_DEVICE __host__ __device__
#else
#define TOMOWB_HOST_DEVICE
#endif

namespace tomowb::pet {

struct ScannerModel;

template <typename Real>
struct Vec3 {
  Real x, y, z;
};

template <typename Real>
TOMOWB_HOST_DEVICE inline Vec3<Real> operator+(Vec3<Real> a, Vec3<Real> b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <typename Real>
TOMOWB_HOST_DEVICE inline Vec3<Real> operator-(Vec3<Real> a, Vec3<Real> b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <typename Real>
TOMOWB_HOST_DEVICE inline Vec3<Real> operator*(Real s, Vec3<Real> a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <typename Real>
TOMOWB_HOST_DEVICE inline Real dot(Vec3<Real> a, Vec3<Real> b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <typename Real>
TOMOWB_HOST_DEVICE inline Real norm(Vec3<Real> a) {
  return std::sqrt(dot(a, a));
}

// The scanner as the hit computations need it (all lengths mm).
struct DetectorHitModel {
  int flatModules = 0;  // 0: Cylinder, 1: FlatModules
  int modules = 1;
  int crystalsPerRing = 1;
  int crystalsPerModule = 1;
  int rings = 1;
  double radiusMm = 1;         // the detector face (circle radius or the faces' distance)
  double crystalRadiusMm = 1;  // radiusMm + meanDoiMm: crystal centres and photon hits lie here
  double crystalPitchMm = 1;
  double ringPitchMm = 1;
  double halfModuleWidthMm = 0;  // crystalsPerModule * crystalPitchMm / 2 (FlatModules)
  double halfAxialMm = 0;        // rings * ringPitchMm / 2
  double sinAcceptance = 0;      // sin(axialAcceptanceDeg)
  double fovRadiusMm = 0;        // transaxialFovMm / 2
};

// From a validated scanner (ScannerModel.h; implemented in DetectorHits.cpp).
DetectorHitModel detectorHitModel(const ScannerModel& scanner);

namespace detail {
constexpr double kTwoPi = 6.283185307179586476925286766559;
}

// Distance s > 0 along the unit direction d from x (inside the ring: |x_xy| < radiusMm) to the
// interaction surface (radius crystalRadiusMm, or the module planes at that distance), and for
// flat modules the module whose plane it crosses; s < 0 if the photon runs parallel to the axis
// and never reaches it. Flat modules: the exit through the polygon of planes is the smallest
// positive s over the planes it approaches; it lies in the sector where the ray leaves the
// polygon's inscribed circle or in a neighbouring one (beyond the circle, a ray that crossed a
// whole sector's gap without meeting its plane would have to touch the plane's tangent point),
// so three planes are tested.
template <typename Real>
TOMOWB_HOST_DEVICE inline Real exitDistance(const DetectorHitModel& m, Vec3<Real> x, Vec3<Real> d,
                                            int* module) {
  const Real a = d.x * d.x + d.y * d.y;
  if (!(a > Real(1e-12))) return Real(-1);
  const Real r = Real(m.crystalRadiusMm);
  const Real b = x.x * d.x + x.y * d.y;  // half of the usual b
  const Real c = x.x * x.x + x.y * x.y - r * r;
  const Real disc = b * b - a * c;
  const Real sCircle = (-b + std::sqrt(disc > Real(0) ? disc : Real(0))) / a;
  *module = 0;
  if (!m.flatModules) return sCircle;
  const Real px = x.x + sCircle * d.x, py = x.y + sCircle * d.y;
  Real angle = std::atan2(py, px);
  if (angle < Real(0)) angle += Real(detail::kTwoPi);
  const int sector = int(angle * Real(m.modules) / Real(detail::kTwoPi)) % m.modules;
  Real best = Real(-1);
  for (int k = sector - 1; k <= sector + 1; ++k) {
    const int mod = (k + m.modules) % m.modules;
    const Real phi = Real(detail::kTwoPi) * (Real(mod) + Real(0.5)) / Real(m.modules);
    const Real nx = std::cos(phi), ny = std::sin(phi);
    const Real approach = nx * d.x + ny * d.y;
    if (!(approach > Real(0))) continue;
    const Real s = (r - (nx * x.x + ny * x.y)) / approach;
    if (s > Real(0) && (best < Real(0) || s < best)) {
      best = s;
      *module = mod;
    }
  }
  return best;
}

// Whether the true hit lies on crystals: within the axial extent of the rings and, on a flat
// module, within the crystals' extent across the face (not in the gap at its edges).
template <typename Real>
TOMOWB_HOST_DEVICE inline bool hitOnCrystals(const DetectorHitModel& m, Vec3<Real> hit,
                                             int module) {
  if (std::fabs(hit.z) > Real(m.halfAxialMm)) return false;
  if (!m.flatModules) return true;
  const Real phi = Real(detail::kTwoPi) * (Real(module) + Real(0.5)) / Real(m.modules);
  const Real t = -std::sin(phi) * hit.x + std::cos(phi) * hit.y;
  return std::fabs(t) <= Real(m.halfModuleWidthMm);
}

// The crystal that records a hit after the positioning error (tangentialMm along the face,
// axialMm along z): the crystal whose cell holds the moved point. A point moved past the last
// crystal of a module (or the last ring) is recorded by that edge crystal, as a block detector's
// positioning does; the cylinder wraps around.
template <typename Real>
TOMOWB_HOST_DEVICE inline void snapToCrystal(const DetectorHitModel& m, Vec3<Real> hit, int module,
                                             Real tangentialMm, Real axialMm, int* crystal,
                                             int* ring) {
  int r = int(std::floor((hit.z + axialMm) / Real(m.ringPitchMm) + Real(0.5) * Real(m.rings)));
  *ring = r < 0 ? 0 : (r >= m.rings ? m.rings - 1 : r);
  if (!m.flatModules) {
    Real angle = std::atan2(hit.y, hit.x) + tangentialMm / Real(m.crystalRadiusMm);
    const Real cells = angle * Real(m.crystalsPerRing) / Real(detail::kTwoPi);
    int i = int(std::floor(cells)) % m.crystalsPerRing;
    if (i < 0) i += m.crystalsPerRing;
    *crystal = i;
    return;
  }
  const Real phi = Real(detail::kTwoPi) * (Real(module) + Real(0.5)) / Real(m.modules);
  const Real t = -std::sin(phi) * hit.x + std::cos(phi) * hit.y + tangentialMm;
  int j = int(std::floor(t / Real(m.crystalPitchMm) + Real(0.5) * Real(m.crystalsPerModule)));
  j = j < 0 ? 0 : (j >= m.crystalsPerModule ? m.crystalsPerModule - 1 : j);
  *crystal = module * m.crystalsPerModule + j;
}

// Crystal centre at the mean depth of interaction (ScannerModel::crystalPosition).
template <typename Real>
TOMOWB_HOST_DEVICE inline Vec3<Real> crystalCentre(const DetectorHitModel& m, int crystal,
                                                   int ring) {
  const Real z = (Real(ring) - Real(0.5) * Real(m.rings - 1)) * Real(m.ringPitchMm);
  const Real rc = Real(m.crystalRadiusMm);
  if (!m.flatModules) {
    const Real angle = Real(detail::kTwoPi) * (Real(crystal) + Real(0.5)) / Real(m.crystalsPerRing);
    return {rc * std::cos(angle), rc * std::sin(angle), z};
  }
  const int module = crystal / m.crystalsPerModule;
  const int within = crystal % m.crystalsPerModule;
  const Real phi = Real(detail::kTwoPi) * (Real(module) + Real(0.5)) / Real(m.modules);
  const Real c = std::cos(phi), s = std::sin(phi);
  const Real t =
      (Real(within) - Real(0.5) * Real(m.crystalsPerModule - 1)) * Real(m.crystalPitchMm);
  return {rc * c - t * s, rc * s + t * c, z};
}

// A coincidence between two crystal centres is recorded when its co-polar angle is within the
// axial acceptance and its line passes within the transaxial field of view.
template <typename Real>
TOMOWB_HOST_DEVICE inline bool acceptLor(const DetectorHitModel& m, Vec3<Real> p1, Vec3<Real> p2) {
  const Vec3<Real> d = p2 - p1;
  const Real transaxial2 = d.x * d.x + d.y * d.y;
  if (!(transaxial2 > Real(0))) return false;
  const Real sinA = Real(m.sinAcceptance);
  if (d.z * d.z > sinA * sinA * (transaxial2 + d.z * d.z)) return false;
  const Real cross = p1.x * d.y - p1.y * d.x;  // |cross| / |d_xy| = distance from the axis
  const Real fov = Real(m.fovRadiusMm);
  return cross * cross <= fov * fov * transaxial2;
}

}  // namespace tomowb::pet

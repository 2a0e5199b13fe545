// pp_scanner.h — the scanner as the parallelproj driver needs it, from the "scanner" object of our
// list-mode header (recon/pet/ScannerModel.h, docs/pet.md). Crystal centres, the coincidence
// acceptance and the photon-exit model are the formulas of recon/pet/ScannerModel.cpp and
// recon/pet/DetectorHits.h, written again here in float64 so the driver builds without our
// libraries (it needs only the file format); check_geometry.cpp compares them with ours
// (build-parallelproj.sh runs it where recon/pet/DetectorHits.h is present).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "pp_common.h"

namespace ppbench {

struct ScannerSpec {
  std::string name = "penn-labr3";
  bool flatModules = true;
  double radiusMm = 465.0;
  int modules = 24;
  int crystalsPerRing = 672;
  int rings = 60;
  double crystalPitchMm = 4.3;
  double ringPitchMm = 4.3;
  double meanDoiMm = 10.0;
  double axialAcceptanceDeg = 10.0;
  double tofFwhmPs = 400.0;
  double tofLsbPs = 25.0;
  double coincidenceWindowPs = 6000.0;
  double transaxialFovMm = 576.0;

  int crystalsPerModule() const {
    return flatModules ? crystalsPerRing / modules : crystalsPerRing;
  }
  double crystalRadiusMm() const { return radiusMm + meanDoiMm; }
  double ringZ(int ring) const { return (ring - 0.5 * (rings - 1)) * ringPitchMm; }
  // ScannerModel::crystalPosition (x, y) of a crystal.
  void crystalXy(int crystal, double* x, double* y) const {
    constexpr double kPi = 3.14159265358979323846;
    const double r = crystalRadiusMm();
    if (!flatModules) {
      const double angle = 2 * kPi * (crystal + 0.5) / crystalsPerRing;
      *x = r * std::cos(angle);
      *y = r * std::sin(angle);
      return;
    }
    const int per = crystalsPerModule();
    const int module = crystal / per, within = crystal % per;
    const double angle = 2 * kPi * (module + 0.5) / modules;
    const double c = std::cos(angle), s = std::sin(angle);
    const double t = (within - 0.5 * (per - 1)) * crystalPitchMm;
    *x = r * c - t * s;
    *y = r * s + t * c;
  }
  double sinAcceptance() const {
    return std::sin(axialAcceptanceDeg * 3.14159265358979323846 / 180.0);
  }
  // DetectorHits.h acceptLor: co-polar angle within the acceptance, line within the field of view.
  bool acceptLor(double x1, double y1, double z1, double x2, double y2, double z2) const {
    const double dx = x2 - x1, dy = y2 - y1, dz = z2 - z1;
    const double t2 = dx * dx + dy * dy;
    if (!(t2 > 0)) return false;
    const double sinA = sinAcceptance();
    if (dz * dz > sinA * sinA * (t2 + dz * dz)) return false;
    const double cross = x1 * dy - y1 * dx;
    const double fov = 0.5 * transaxialFovMm;
    return cross * cross <= fov * fov * t2;
  }
  // The list-mode record limit on |tofLsb| (ListModeFile.cpp): floor(window / 2 / lsb) + 1.
  int tofHalfBins() const {
    return static_cast<int>(std::floor(0.5 * coincidenceWindowPs / tofLsbPs)) + 1;
  }
  double tofBinWidthMm() const { return kSpeedOfLightMmPerPs * tofLsbPs / 2.0; }
  double tofSigmaMm() const { return kSpeedOfLightMmPerPs * tofFwhmPs / 2.0 / kFwhmPerSigma; }
};

struct CrystalTables {
  std::vector<float> x, y, z;  // crystalsPerRing, crystalsPerRing, rings
  std::vector<double> xd, yd, zd;
};

inline CrystalTables crystalTables(const ScannerSpec& s) {
  CrystalTables t;
  for (int c = 0; c < s.crystalsPerRing; ++c) {
    double x = 0, y = 0;
    s.crystalXy(c, &x, &y);
    t.xd.push_back(x);
    t.yd.push_back(y);
    t.x.push_back(static_cast<float>(x));
    t.y.push_back(static_cast<float>(y));
  }
  for (int r = 0; r < s.rings; ++r) {
    t.zd.push_back(s.ringZ(r));
    t.z.push_back(static_cast<float>(s.ringZ(r)));
  }
  return t;
}

// The sensitivity LORs (pp_common.h): transaxial pairs a < b within the field of view, sorted by
// decreasing transaxial length, and per ring pair the length of the accepted prefix.
struct SensitivityPlan {
  std::vector<TransaxialPair> pairs;
  std::vector<double> transaxial2;  // of each pair, decreasing
  std::vector<RingPairRun> runs;    // every (ring1, ring2) with count > 0; offsets global
  std::int64_t totalLors = 0;
};

inline SensitivityPlan sensitivityPlan(const ScannerSpec& s, const CrystalTables& t) {
  SensitivityPlan plan;
  struct Item {
    double t2;
    TransaxialPair p;
  };
  std::vector<Item> items;
  for (int a = 0; a < s.crystalsPerRing; ++a)
    for (int b = a + 1; b < s.crystalsPerRing; ++b) {
      // The FOV part of acceptLor does not depend on z; test it with z = 0.
      if (!s.acceptLor(t.xd[a], t.yd[a], 0.0, t.xd[b], t.yd[b], 0.0)) continue;
      const double dx = t.xd[b] - t.xd[a], dy = t.yd[b] - t.yd[a];
      items.push_back({dx * dx + dy * dy, {std::uint16_t(a), std::uint16_t(b)}});
    }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& l, const Item& r) { return l.t2 > r.t2; });
  for (const Item& it : items) {
    plan.pairs.push_back(it.p);
    plan.transaxial2.push_back(it.t2);
  }
  const double sinA = s.sinAcceptance();
  for (int r1 = 0; r1 < s.rings; ++r1)
    for (int r2 = 0; r2 < s.rings; ++r2) {
      const double dz = t.zd[r2] - t.zd[r1];
      // acceptLor's co-polar test, dz^2 <= sinA^2 (t2 + dz^2), holds on a prefix of the list.
      const auto first = std::partition_point(
          plan.transaxial2.begin(), plan.transaxial2.end(),
          [&](double t2) { return !(dz * dz > sinA * sinA * (t2 + dz * dz)); });
      const std::int64_t count = first - plan.transaxial2.begin();
      if (count == 0) continue;
      plan.runs.push_back({r1, r2, count, plan.totalLors});
      plan.totalLors += count;
    }
  return plan;
}

// The photon exit used by the self-check's point source (DetectorHits.h exitDistance, testing
// every module plane): distance along the unit direction d from p (inside the ring) to the
// crystal surface, and the crystal and ring hit (nearest centre, no blur); false if the photon
// misses the crystals.
inline bool photonHit(const ScannerSpec& s, const double p[3], const double d[3], double* distance,
                      int* crystal, int* ring) {
  constexpr double kPi = 3.14159265358979323846;
  const double r = s.crystalRadiusMm();
  const double a = d[0] * d[0] + d[1] * d[1];
  if (!(a > 1e-12)) return false;
  double best = -1;
  int module = 0;
  if (!s.flatModules) {
    const double b = p[0] * d[0] + p[1] * d[1];
    const double c = p[0] * p[0] + p[1] * p[1] - r * r;
    best = (-b + std::sqrt(std::max(0.0, b * b - a * c))) / a;
  } else {
    for (int k = 0; k < s.modules; ++k) {
      const double phi = 2 * kPi * (k + 0.5) / s.modules;
      const double nx = std::cos(phi), ny = std::sin(phi);
      const double approach = nx * d[0] + ny * d[1];
      if (!(approach > 0)) continue;
      const double dist = (r - (nx * p[0] + ny * p[1])) / approach;
      if (dist > 0 && (best < 0 || dist < best)) {
        best = dist;
        module = k;
      }
    }
  }
  if (!(best > 0)) return false;
  const double h[3] = {p[0] + best * d[0], p[1] + best * d[1], p[2] + best * d[2]};
  const int rr = static_cast<int>(std::floor(h[2] / s.ringPitchMm + 0.5 * s.rings));
  if (rr < 0 || rr >= s.rings) return false;
  int c = 0;
  if (!s.flatModules) {
    double angle = std::atan2(h[1], h[0]);
    if (angle < 0) angle += 2 * kPi;
    c = static_cast<int>(std::floor(angle * s.crystalsPerRing / (2 * kPi))) % s.crystalsPerRing;
  } else {
    const double phi = 2 * kPi * (module + 0.5) / s.modules;
    const double t = -std::sin(phi) * h[0] + std::cos(phi) * h[1];
    const int per = s.crystalsPerModule();
    const int j = static_cast<int>(std::floor(t / s.crystalPitchMm + 0.5 * per));
    if (j < 0 || j >= per) return false;
    c = module * per + j;
  }
  *distance = best;
  *crystal = c;
  *ring = rr;
  return true;
}

}  // namespace ppbench

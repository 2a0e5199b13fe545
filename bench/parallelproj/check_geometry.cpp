// check_geometry.cpp — compares the driver's own scanner formulas (pp_scanner.h) with ours
// (recon/pet/DetectorHits.h, header-only, the code our simulator runs) on both presets: every
// crystal centre, the coincidence acceptance on random crystal pairs, and the crystal a photon
// from a random point inside the field of view hits (no blur). build-parallelproj.sh builds and
// runs it when our header is there; a mismatch stops the build.
#include <cmath>
#include <cstdio>
#include <random>

#include "pp_scanner.h"
#include "recon/pet/DetectorHits.h"

namespace {

using ppbench::ScannerSpec;
namespace pet = tomowb::pet;

pet::DetectorHitModel ours(const ScannerSpec& s) {  // DetectorHits.cpp detectorHitModel()
  pet::DetectorHitModel m;
  m.flatModules = s.flatModules ? 1 : 0;
  m.modules = s.flatModules ? s.modules : 1;
  m.crystalsPerRing = s.crystalsPerRing;
  m.crystalsPerModule = s.crystalsPerModule();
  m.rings = s.rings;
  m.radiusMm = s.radiusMm;
  m.crystalRadiusMm = s.radiusMm + s.meanDoiMm;
  m.crystalPitchMm = s.crystalPitchMm;
  m.ringPitchMm = s.ringPitchMm;
  m.halfModuleWidthMm = 0.5 * m.crystalsPerModule * s.crystalPitchMm;
  m.halfAxialMm = 0.5 * s.rings * s.ringPitchMm;
  m.sinAcceptance = s.sinAcceptance();
  m.fovRadiusMm = 0.5 * s.transaxialFovMm;
  return m;
}

int check(const ScannerSpec& s) {
  const pet::DetectorHitModel m = ours(s);
  const ppbench::CrystalTables t = ppbench::crystalTables(s);
  int problems = 0;
  double worst = 0;
  for (int r = 0; r < s.rings; ++r)
    for (int c = 0; c < s.crystalsPerRing; ++c) {
      const pet::Vec3<double> p = pet::crystalCentre<double>(m, c, r);
      worst = std::max(
          {worst, std::fabs(p.x - t.xd[c]), std::fabs(p.y - t.yd[c]), std::fabs(p.z - t.zd[r])});
    }
  if (worst > 1e-9) ++problems;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  long acceptDiff = 0, hitDiff = 0, hits = 0;
  for (int k = 0; k < 200000; ++k) {
    const int a = int(u(rng) * s.crystalsPerRing), b = int(u(rng) * s.crystalsPerRing);
    const int ra = int(u(rng) * s.rings), rb = int(u(rng) * s.rings);
    const bool mine = s.acceptLor(t.xd[a], t.yd[a], t.zd[ra], t.xd[b], t.yd[b], t.zd[rb]);
    const bool theirs =
        pet::acceptLor<double>(m, {t.xd[a], t.yd[a], t.zd[ra]}, {t.xd[b], t.yd[b], t.zd[rb]});
    acceptDiff += mine != theirs;
  }
  for (int k = 0; k < 200000; ++k) {
    const double rad = 250 * std::sqrt(u(rng)), phi = 6.283185307179586 * u(rng);
    const double p[3] = {rad * std::cos(phi), rad * std::sin(phi), (2 * u(rng) - 1) * 100};
    const double uz = 0.2 * (2 * u(rng) - 1), az = 6.283185307179586 * u(rng);
    const double d[3] = {std::sqrt(1 - uz * uz) * std::cos(az),
                         std::sqrt(1 - uz * uz) * std::sin(az), uz};
    double dist = 0;
    int c = -1, r = -1;
    const bool mine = ppbench::photonHit(s, p, d, &dist, &c, &r);
    int module = 0;
    const double sOurs =
        pet::exitDistance<double>(m, {p[0], p[1], p[2]}, {d[0], d[1], d[2]}, &module);
    bool theirs = sOurs > 0;
    int c2 = -1, r2 = -1;
    if (theirs) {
      const pet::Vec3<double> h{p[0] + sOurs * d[0], p[1] + sOurs * d[1], p[2] + sOurs * d[2]};
      theirs = pet::hitOnCrystals<double>(m, h, module);
      if (theirs) pet::snapToCrystal<double>(m, h, module, 0.0, 0.0, &c2, &r2);
    }
    hits += theirs;
    if (mine != theirs || (mine && (c != c2 || r != r2 || std::fabs(dist - sOurs) > 1e-9)))
      ++hitDiff;
  }
  // Pixelation edges: a hit exactly on a crystal boundary may round either way; allow 1e-4.
  if (acceptDiff > 0 || hitDiff > 20) ++problems;
  std::printf(
      "check_geometry %s: crystal centres max |diff| %.2g mm; acceptance differs on %ld "
      "of 200000 pairs; photon hits differ on %ld of 200000 (%ld hit crystals) -> %s\n",
      s.name.c_str(), worst, acceptDiff, hitDiff, hits, problems ? "MISMATCH" : "same");
  return problems;
}

}  // namespace

int main() {
  ScannerSpec penn;  // penn-labr3
  ScannerSpec ring = penn;
  ring.name = "ring-930";
  ring.flatModules = false;
  ring.modules = 1;
  ring.crystalPitchMm = 2 * 3.14159265358979323846 * ring.radiusMm / ring.crystalsPerRing;
  return check(penn) + check(ring) ? 1 : 0;
}

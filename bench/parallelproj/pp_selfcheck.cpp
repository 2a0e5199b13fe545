// pp_selfcheck.cpp — see pp_selfcheck.h. The point-source events are made the way our simulator
// makes a true coincidence without blur (ListModeSimulator.cpp): a direction in the acceptance
// band, both photons to the crystal surface, the crystals hit, the pair accepted, and
// dt = t1 - t2 = (s1 - s2) / c from the true distances, quantised to tofLsbPs; then they go
// through convertEvent, exactly as the file's events do.
#include "pp_selfcheck.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <random>
#include <vector>

#include "parallelproj.h"

namespace ppbench {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string format(const char* fmt, ...) {
  char text[1024];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  return text;
}

struct LmArrays {
  std::vector<float> start, end;
  std::vector<short> bins;
  std::size_t size() const { return bins.size(); }
};

struct TofArgs {
  float binWidth, sigma, offset = 0.0f, numSigmas;
  short numBins;
  int threads, device;
};

void lmForward(const LmArrays& a, const std::vector<float>& image, const PpImageArgs& img,
               const TofArgs& tof, std::vector<float>& out) {
  out.assign(a.size(), 0.0f);
  joseph3d_tof_lm_fwd(a.start.data(), a.end.data(), image.data(), img.origin, img.voxel, out.data(),
                      a.size(), img.dim, tof.binWidth, &tof.sigma, &tof.offset, tof.numSigmas,
                      a.bins.data(), tof.numBins, 0, 0, tof.device, tof.threads);
}

void lmBack(const LmArrays& a, const std::vector<float>& values, const PpImageArgs& img,
            const TofArgs& tof, std::vector<float>& image) {
  joseph3d_tof_lm_back(a.start.data(), a.end.data(), image.data(), img.origin, img.voxel,
                       values.data(), a.size(), img.dim, tof.binWidth, &tof.sigma, &tof.offset,
                       tof.numSigmas, a.bins.data(), tof.numBins, 0, 0, tof.device, tof.threads);
}

long voxelOf(double v, double origin, double voxel) {
  return std::lround((v - origin) / voxel);
}

}  // namespace

SelfCheckResult runSelfCheck(const ScannerSpec& scanner, const GridSpec& grid, float numSigmas,
                             int threadsPerBlock, int device, int eventCount, std::uint64_t seed) {
  SelfCheckResult result;
  std::string& md = result.markdown;
  bool ok = true;
  const CrystalTables tables = crystalTables(scanner);
  const int K = scanner.tofHalfBins();
  EventTables et;
  et.crystalX = tables.x.data();
  et.crystalY = tables.y.data();
  et.ringZ = tables.z.data();
  et.tofHalfBins = K;
  const PpImageArgs img(grid);
  TofArgs tof{float(scanner.tofBinWidthMm()),
              float(scanner.tofSigmaMm()),
              0.0f,
              numSigmas,
              short(2 * K + 1),
              threadsPerBlock,
              device};

  // An off-centre point on all three axes (inside the grid and well inside the acceptance).
  const double p[3] = {std::min(101.3, 0.35 * grid.nx * grid.voxelMm),
                       std::max(-58.7, -0.2 * grid.ny * grid.voxelMm),
                       std::min(31.1, 0.32 * grid.nz * grid.voxelMm)};
  const long pv[3] = {voxelOf(p[0], grid.originMm[0], grid.voxelMm),
                      voxelOf(p[1], grid.originMm[1], grid.voxelMm),
                      voxelOf(p[2], grid.originMm[2], grid.voxelMm)};
  const std::size_t pIndex =
      (std::size_t(pv[2]) * grid.ny + std::size_t(pv[1])) * grid.nx + std::size_t(pv[0]);

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const double band = scanner.sinAcceptance();
  std::vector<RawEvent> events;
  for (long attempt = 0; attempt < 200L * eventCount && int(events.size()) < eventCount;
       ++attempt) {
    const double uz = band * (2 * uniform(rng) - 1), phi = 2 * kPi * uniform(rng);
    const double st = std::sqrt(1 - uz * uz);
    const double d1[3] = {st * std::cos(phi), st * std::sin(phi), uz};
    const double d2[3] = {-d1[0], -d1[1], -d1[2]};
    double s1 = 0, s2 = 0;
    int c1 = 0, r1 = 0, c2 = 0, r2 = 0;
    if (!photonHit(scanner, p, d1, &s1, &c1, &r1) || !photonHit(scanner, p, d2, &s2, &c2, &r2))
      continue;
    if (!scanner.acceptLor(tables.xd[c1], tables.yd[c1], tables.zd[r1], tables.xd[c2],
                           tables.yd[c2], tables.zd[r2]))
      continue;
    const double dtPs = (s1 - s2) / kSpeedOfLightMmPerPs;
    const long lsb = std::lround(dtPs / scanner.tofLsbPs);
    if (std::labs(lsb) >= K) continue;
    RawEvent e{std::uint16_t(c1),
               std::uint16_t(r1),
               std::uint16_t(c2),
               std::uint16_t(r2),
               std::int16_t(lsb),
               0,
               0};
    events.push_back(e);
  }
  const std::size_t n = events.size();
  md += format(
      "- self-check events: %zu point-source events at (%.1f, %.1f, %.1f) mm, voxel "
      "(%ld, %ld, %ld) (x, y, z)\n",
      n, p[0], p[1], p[2], pv[0], pv[1], pv[2]);
  if (n < std::size_t(eventCount) / 2) {
    md += "- **FAIL**: too few point-source events were accepted\n";
    result.passed = false;
    return result;
  }

  auto convert = [&](bool flipSign, bool swapCrystals) {
    LmArrays a;
    a.start.resize(3 * n);
    a.end.resize(3 * n);
    a.bins.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      RawEvent e = events[i];
      if (flipSign) e.tofLsb = std::int16_t(-e.tofLsb);
      if (swapCrystals) {
        std::swap(e.crystal1, e.crystal2);
        std::swap(e.ring1, e.ring2);
        e.tofLsb = std::int16_t(-e.tofLsb);  // the same event described from the other side
      }
      convertEvent(et, e, &a.start[3 * i], &a.end[3 * i], &a.bins[i], nullptr);
    }
    return a;
  };
  const LmArrays right = convert(false, false), flipped = convert(true, false),
                 swapped = convert(false, true);

  // (1) Back-projection of ones peaks at the source; with the sign flipped it does not.
  const std::vector<float> ones(n, 1.0f);
  std::vector<float> bpRight(grid.voxels(), 0.0f), bpFlipped(grid.voxels(), 0.0f);
  lmBack(right, ones, img, tof, bpRight);
  lmBack(flipped, ones, img, tof, bpFlipped);
  const std::size_t peak =
      std::size_t(std::max_element(bpRight.begin(), bpRight.end()) - bpRight.begin());
  const long peakV[3] = {long(peak % grid.nx), long((peak / grid.nx) % grid.ny),
                         long(peak / (std::size_t(grid.nx) * grid.ny))};
  const bool peakOk = std::labs(peakV[0] - pv[0]) <= 1 && std::labs(peakV[1] - pv[1]) <= 1 &&
                      std::labs(peakV[2] - pv[2]) <= 1;
  const std::size_t peakF =
      std::size_t(std::max_element(bpFlipped.begin(), bpFlipped.end()) - bpFlipped.begin());
  const double flipRatio = bpRight[pIndex] > 0 ? bpFlipped[pIndex] / bpRight[pIndex] : 1.0;
  const bool flipOk = flipRatio < 0.5;
  ok = ok && peakOk && flipOk;
  md += format(
      "- %s TOF back-projection of the point-source events peaks at voxel (%ld, %ld, %ld); "
      "the source's is (%ld, %ld, %ld)\n",
      peakOk ? "PASS" : "**FAIL**", peakV[0], peakV[1], peakV[2], pv[0], pv[1], pv[2]);
  md += std::string("- ") + (flipOk ? "PASS" : "**FAIL**") +
        format(
            " with dt negated (the opposite convention) the value at the source falls to "
            "%.3f of the right one (its maximum: voxel (%.0f, %.0f, %.0f))\n",
            flipRatio, double(peakF % grid.nx), double((peakF / grid.nx) % grid.ny),
            double(peakF / (std::size_t(grid.nx) * grid.ny)));

  // (2) Forward projection of a single hot voxel at the source: TOF weight near 1 bin's worth
  // for the right sign, far less flipped.
  std::vector<float> delta(grid.voxels(), 0.0f);
  delta[pIndex] = 1.0f;
  std::vector<float> fwdRight, fwdFlipped;
  lmForward(right, delta, img, tof, fwdRight);
  lmForward(flipped, delta, img, tof, fwdFlipped);
  double sumRight = 0, sumFlipped = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sumRight += fwdRight[i];
    sumFlipped += fwdFlipped[i];
  }
  const double fwdRatio = sumFlipped > 0 ? sumRight / sumFlipped : 1e30;
  const bool fwdOk = fwdRatio > 2.0;
  ok = ok && fwdOk;
  md += std::string("- ") + (fwdOk ? "PASS" : "**FAIL**") +
        format(
            " forward projection of the source voxel: mean %.4g (right sign) vs %.4g "
            "(dt negated), ratio %.2f\n",
            sumRight / n, sumFlipped / n, fwdRatio);

  // A smooth image: the phantom's water cylinder, value 1.
  std::vector<float> smooth(grid.voxels(), 0.0f);
  for (int z = 0; z < grid.nz; ++z)
    for (int y = 0; y < grid.ny; ++y)
      for (int x = 0; x < grid.nx; ++x) {
        const double X = grid.originMm[0] + x * grid.voxelMm,
                     Y = grid.originMm[1] + y * grid.voxelMm,
                     Z = grid.originMm[2] + z * grid.voxelMm;
        if (X * X + Y * Y <= 175.0 * 175.0 && std::fabs(Z) <= 90.0)
          smooth[(std::size_t(z) * grid.ny + y) * grid.nx + x] = 1.0f;
      }

  // (3) The same events with the crystals swapped (and dt negated with them) project the same.
  std::vector<float> fwdA, fwdB;
  lmForward(right, smooth, img, tof, fwdA);
  lmForward(swapped, smooth, img, tof, fwdB);
  double maxDiff = 0, maxVal = 0;
  for (std::size_t i = 0; i < n; ++i) {
    maxDiff = std::max(maxDiff, double(std::fabs(fwdA[i] - fwdB[i])));
    maxVal = std::max(maxVal, double(std::fabs(fwdA[i])));
  }
  const double swapRel = maxVal > 0 ? maxDiff / maxVal : 1.0;
  const bool swapOk = swapRel < 1e-4;
  ok = ok && swapOk;
  md += std::string("- ") + (swapOk ? "PASS" : "**FAIL**") +
        format(" crystals swapped with dt negated: max |difference| %.2g of the max value\n",
               swapRel);

  // (4) Sum over every TOF bin = parallelproj's non-TOF projection (same LOR, smooth image).
  const std::size_t lors = std::min<std::size_t>(n, 256);
  const int bins = 2 * K + 1;
  LmArrays all;
  for (std::size_t i = 0; i < lors; ++i)
    for (int k = 0; k < bins; ++k) {
      all.start.insert(all.start.end(), &right.start[3 * i], &right.start[3 * i] + 3);
      all.end.insert(all.end.end(), &right.end[3 * i], &right.end[3 * i] + 3);
      all.bins.push_back(short(k));
    }
  std::vector<float> fwdAll, nonTof(lors, 0.0f);
  lmForward(all, smooth, img, tof, fwdAll);
  joseph3d_fwd(right.start.data(), right.end.data(), smooth.data(), img.origin, img.voxel,
               nonTof.data(), lors, img.dim, device, threadsPerBlock);
  double worst = 0, meanNonTof = 0;
  for (std::size_t i = 0; i < lors; ++i) {
    double sum = 0;
    for (int k = 0; k < bins; ++k) sum += fwdAll[i * bins + std::size_t(k)];
    meanNonTof += nonTof[i] / double(lors);
    if (nonTof[i] > 1.0f) worst = std::max(worst, std::fabs(sum - nonTof[i]) / nonTof[i]);
  }
  const bool sumOk = worst < 1e-2;
  ok = ok && sumOk;
  md += std::string("- ") + (sumOk ? "PASS" : "**FAIL**") +
        format(
            " sum over all %.0f TOF bins vs the non-TOF projection (%.0f LORs, mean %.4g mm): "
            "max relative difference %.2g\n",
            double(bins), double(lors), meanNonTof, worst);

  // (5) Adjoint test of the list-mode pair, zero-mean random vectors, float64 sums.
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<float> x(grid.voxels()), y(n), ax, aty(grid.voxels(), 0.0f);
  for (float& v : x) v = float(normal(rng));
  for (float& v : y) v = float(normal(rng));
  lmForward(right, x, img, tof, ax);
  lmBack(right, y, img, tof, aty);
  double lhs = 0, rhs = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lhs += double(ax[i]) * y[i];
    scale += std::fabs(double(ax[i]) * y[i]);
  }
  for (std::size_t j = 0; j < grid.voxels(); ++j) rhs += double(x[j]) * aty[j];
  const double adjointRel = std::fabs(lhs - rhs) / std::max(scale, 1e-30);
  const bool adjointOk = adjointRel < 1e-4;
  ok = ok && adjointOk;
  md += std::string("- ") + (adjointOk ? "PASS" : "**FAIL**") +
        format(
            " adjoint test, zero-mean random vectors: |<Ax,y> - <x,A'y>| / sum|Ax y| = %.2g "
            "(<Ax,y> = %.6g)\n",
            adjointRel, lhs);

  result.passed = ok;
  return result;
}

}  // namespace ppbench

// ListModeSimulator: determinism (threads, seeds), the TOF physics of an off-centre point source
// (most likely points at 100 mm, 60 mm FWHM along the LOR for 400 ps, about 5.8 mm across it),
// attenuation of a central point in the 35 cm water cylinder, the randoms fraction and delayed
// stream, requested prompts, cancellation, the file it writes.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <vector>

#include "recon/core/Error.h"
#include "recon/core/VolumeGrid.h"
#include "recon/pet/DetectorHits.h"
#include "recon/pet/ListModeSimulator.h"
#include "recon/pet/PetPhantom.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

// A point-like source: one voxel of `voxelMm` centred on `centre`, holding `bq` in all.
Volume pointSource(const Eigen::Vector3d& centre, double bq, double voxelMm = 0.5) {
  Volume v({1, 1, 1}, Eigen::Vector3d::Constant(voxelMm), centre);
  v.at(0, 0, 0) = static_cast<float>(bq / (voxelMm * voxelMm * voxelMm * 1e-3));
  return v;
}

// A small uniform block about the origin (10 mm voxels).
Volume block() {
  Volume v = VolumeGrid::centred({6, 6, 4}, Eigen::Vector3d::Constant(10.0)).makeVolume();
  for (float& x : v.voxels()) x = 1000.0f;
  return v;
}

// Quantile q of the values (copy sorted).
double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(q * double(values.size() - 1))];
}

// FWHM of a Gaussian with the values' interquartile range: robust against a few far outliers.
double robustFwhm(const std::vector<double>& values) {
  return (quantile(values, 0.75) - quantile(values, 0.25)) / 1.3490 * kFwhmPerSigma;
}

struct EventLine {
  Eigen::Vector3d p1, p2, u, mostLikely;
};

EventLine lineOf(const ScannerModel& s, const ListModeEvent& e) {
  EventLine l;
  l.p1 = s.crystalPosition(e.crystal1, e.ring1);
  l.p2 = s.crystalPosition(e.crystal2, e.ring2);
  l.u = (l.p2 - l.p1).normalized();
  const double dtPs = e.tofLsb * s.tofLsbPs;
  l.mostLikely = 0.5 * (l.p1 + l.p2) + (kSpeedOfLightMmPerPs * dtPs / 2) * l.u;
  return l;
}

bool sameEvents(const std::vector<ListModeEvent>& a, const std::vector<ListModeEvent>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0);
}

class ThreadCount {
 public:
  explicit ThreadCount(int n) : saved_(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~ThreadCount() { omp_set_num_threads(saved_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  int saved_;
};

TEST(ListModeSimulator, SameSeedSameEventsWhateverTheThreadCount) {
  const ScannerModel scanner = scannerPreset("penn-labr3");
  const Volume activity = block();
  const PetPhantom phantom;
  const Volume mu =
      phantom.attenuation(VolumeGrid::centred({20, 20, 10}, Eigen::Vector3d::Constant(20.0)));
  ListModeSimulationParams p;
  p.seed = 42;
  p.requestedPrompts = 30000;
  JobContext context;
  SimulatedListMode one, two, again, other;
  {
    ThreadCount threads(1);
    one = simulateListMode(scanner, activity, &mu, p, context);
  }
  {
    ThreadCount threads(2);
    two = simulateListMode(scanner, activity, &mu, p, context);
    again = simulateListMode(scanner, activity, &mu, p, context);
    p.seed = 43;
    other = simulateListMode(scanner, activity, &mu, p, context);
  }
  EXPECT_EQ(one.report.prompts(), 30000);
  EXPECT_TRUE(sameEvents(one.events, two.events));
  EXPECT_TRUE(sameEvents(two.events, again.events));
  EXPECT_EQ(one.report.bandDecays, two.report.bandDecays);
  EXPECT_EQ(one.report.delayed, two.report.delayed);
  EXPECT_FALSE(sameEvents(two.events, other.events));
  EXPECT_EQ(other.report.prompts(), 30000);
}

TEST(ListModeSimulator, PointSourceMostLikelyPointsAreAtTheSourceWithTheTofWidth) {
  const ScannerModel scanner = scannerPreset("ring-930");
  ListModeSimulationParams p;
  p.seed = 7;
  p.requestedPrompts = 100000;
  p.randomsFraction = 0;
  JobContext context;
  const SimulatedListMode sim =
      simulateListMode(scanner, pointSource({100, 0, 0}, 1e6), nullptr, p, context);
  ASSERT_EQ(sim.report.trues, 100000);
  EXPECT_EQ(sim.report.delayed, 0);
  std::vector<double> x, y, alongLor, acrossLor;
  const Eigen::Vector3d source(100, 0, 0);
  for (const ListModeEvent& e : sim.events) {
    const EventLine l = lineOf(scanner, e);
    x.push_back(l.mostLikely.x());
    y.push_back(l.mostLikely.y());
    alongLor.push_back((l.mostLikely - source).dot(l.u));
    const Eigen::Vector2d radial(-l.u.y(), l.u.x());
    acrossLor.push_back((source - l.p1).head<2>().dot(radial.normalized()));
  }
  std::cout << "[ figures  ] median most likely point (" << quantile(x, 0.5) << ", "
            << quantile(y, 0.5) << ") mm; FWHM along the LOR " << robustFwhm(alongLor)
            << " mm, across " << robustFwhm(acrossLor) << " mm; " << sim.report.eventsPerSecond()
            << " events/s, " << double(sim.report.bandDecays) / sim.report.seconds
            << " decays/s on " << sim.report.threads << " threads\n";
  // A wrong sign of dt would put them at -100 mm.
  EXPECT_NEAR(quantile(x, 0.5), 100.0, 1.0);
  EXPECT_NEAR(quantile(y, 0.5), 0.0, 1.0);
  // 400 ps: 60 mm FWHM along the LOR (c dt / 2), plus the 25 ps LSB (3.7 mm wide): 60.1 mm.
  EXPECT_NEAR(robustFwhm(alongLor), 60.1, 2.5);
  // Across the LOR: crystal size, 3 mm positioning blur, acollinearity: about 5.8 mm.
  EXPECT_NEAR(robustFwhm(acrossLor), 5.8, 0.8);
}

TEST(ListModeSimulator, WithoutBlurTheLorsPassThroughTheSourceWithinACrystal) {
  const ScannerModel scanner = scannerPreset("penn-labr3");
  ListModeSimulationParams p;
  p.requestedPrompts = 20000;
  p.randomsFraction = 0;
  p.positioningBlur = p.acollinearity = p.timingNoise = false;
  JobContext context;
  const Eigen::Vector3d source(-60, 120, 30);
  const SimulatedListMode sim =
      simulateListMode(scanner, pointSource(source, 1e6), nullptr, p, context);
  double worst = 0, worstAlong = 0;
  for (const ListModeEvent& e : sim.events) {
    const EventLine l = lineOf(scanner, e);
    const Eigen::Vector3d offset = source - l.p1;
    worst = std::max(worst, (offset - offset.dot(l.u) * l.u).norm());
    worstAlong = std::max(worstAlong, std::fabs((l.mostLikely - source).dot(l.u)));
  }
  // Each end is off by at most half a crystal diagonal: the line passes within about 3 mm.
  EXPECT_LT(worst, 3.2);
  // Without timing noise, only the 25 ps LSB (1.9 mm) and the crystal snap move the point.
  EXPECT_LT(worstAlong, 2 * 1.9 + 3.2);
}

TEST(ListModeSimulator, AttenuationOfTheWaterCylinderLeavesAboutThreePerCent) {
  const ScannerModel scanner = scannerPreset("ring-930");
  const PetPhantom phantom;  // radius 175 mm, length 180 mm, 0.0096 /mm
  const Volume mu =
      phantom.attenuation(VolumeGrid::centred({91, 91, 47}, Eigen::Vector3d::Constant(4.0)));
  ListModeSimulationParams p;
  p.seed = 11;
  p.randomsFraction = 0;
  p.acquisitionSeconds = 1.0;
  // About 1.5 M annihilations in the band: about 5e4 attenuated trues.
  const Volume source = pointSource({0, 0, 0}, 1.5e6 / std::sin(12.0 * M_PI / 180.0));
  JobContext context;
  const SimulatedListMode air = simulateListMode(scanner, source, nullptr, p, context);
  const SimulatedListMode water = simulateListMode(scanner, source, &mu, p, context);
  EXPECT_EQ(air.report.bandDecays, water.report.bandDecays);
  const double survival = double(water.report.trues) / double(air.report.trues);
  std::cout << "[ figures  ] survival " << survival << " (" << water.report.trues << " / "
            << air.report.trues << " trues of " << air.report.bandDecays << " decays); "
            << double(water.report.bandDecays) / water.report.seconds
            << " decays/s with attenuation on " << water.report.threads << " threads\n";
  // exp(-0.0096 x 350) = 0.0347 straight across; tilted LORs (up to 10 degrees) cross up to 1.5 %
  // more water: about 0.034 on average.
  EXPECT_NEAR(survival, 0.034, 0.0025) << water.report.trues << " / " << air.report.trues;
}

TEST(ListModeSimulator, RandomsAndDelayedFollowTheRequestedFraction) {
  const ScannerModel scanner = scannerPreset("ring-930");
  ListModeSimulationParams p;
  p.requestedPrompts = 60000;
  p.randomsFraction = 0.1;
  JobContext context;
  const SimulatedListMode sim = simulateListMode(scanner, block(), nullptr, p, context);
  const ListModeSimulationReport& r = sim.report;
  EXPECT_EQ(r.prompts(), 60000);
  EXPECT_NEAR(double(r.randoms) / double(r.prompts()), 0.1, 0.006);
  EXPECT_NEAR(double(r.delayed), double(r.randoms), 5 * std::sqrt(2.0 * double(r.randoms)));
  std::int64_t randoms = 0, delayed = 0;
  const DetectorHitModel hits = detectorHitModel(scanner);
  for (const ListModeEvent& e : sim.events) {
    randoms += (e.flags & kEventRandom) ? 1 : 0;
    delayed += (e.flags & kEventDelayed) ? 1 : 0;
    // Every event, randoms included, passes the scanner's acceptance.
    const Eigen::Vector3d a = scanner.crystalPosition(e.crystal1, e.ring1);
    const Eigen::Vector3d b = scanner.crystalPosition(e.crystal2, e.ring2);
    ASSERT_TRUE(acceptLor<double>(hits, {a.x(), a.y(), a.z()}, {b.x(), b.y(), b.z()}));
    ASSERT_LE(std::abs(e.tofLsb * scanner.tofLsbPs), 0.5 * scanner.coincidenceWindowPs + 12.5);
  }
  EXPECT_EQ(randoms, r.randoms);
  EXPECT_EQ(delayed, r.delayed);
  EXPECT_EQ(std::int64_t(sim.events.size()), r.prompts() + r.delayed);
}

TEST(ListModeSimulator, PoissonCountsFollowTheActivity) {
  const ScannerModel scanner = scannerPreset("ring-930");
  ListModeSimulationParams p;
  p.acquisitionSeconds = 2.0;
  p.randomsFraction = 0;
  p.positronFraction = 0.967;
  JobContext context;
  const Volume activity = block();  // 144 voxels x 1000 Bq/mL x 1 mL = 144 kBq
  const SimulatedListMode sim = simulateListMode(scanner, activity, nullptr, p, context);
  const double expected = 144000.0 * 2.0 * 0.967 * std::sin(12.0 * M_PI / 180.0);
  EXPECT_NEAR(double(sim.report.bandDecays), expected, 5 * std::sqrt(expected));
  EXPECT_NEAR(sim.report.activityBq, 144000.0, 1e-6);
  EXPECT_NEAR(sim.report.expectedDecays, 288000.0, 1e-6);
  EXPECT_NEAR(sim.report.bandFraction, std::sin(12.0 * M_PI / 180.0), 1e-12);
  // A 6 cm block in a 93 cm ring, 10 of 12 degrees accepted: most pairs in the band are seen.
  EXPECT_GT(double(sim.report.trues) / double(sim.report.bandDecays), 0.6);

  p.halfLifeS = 1.0;  // decays during the scan: (1 - 2^-2) / ln 2 = 1.082 effective seconds
  const SimulatedListMode decaying = simulateListMode(scanner, activity, nullptr, p, context);
  EXPECT_NEAR(decaying.report.expectedDecays, 144000.0 * 0.75 / std::log(2.0), 1e-3);
}

TEST(ListModeSimulator, BadInputsNameTheParameter) {
  const ScannerModel scanner = scannerPreset("ring-930");
  JobContext context;
  const auto errorOf = [&](const Volume& activity, const ListModeSimulationParams& p) {
    try {
      simulateListMode(scanner, activity, nullptr, p, context);
    } catch (const ParameterError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  ListModeSimulationParams p;
  EXPECT_NE(errorOf(pointSource({500, 0, 0}, 1), p).find("outside the detector ring"),
            std::string::npos);
  Volume negative = block();
  negative.at(1, 1, 1) = -1;
  EXPECT_NE(errorOf(negative, p).find("'activity'"), std::string::npos);
  const Volume empty = VolumeGrid::centred({2, 2, 2}, Eigen::Vector3d::Ones()).makeVolume();
  EXPECT_NE(errorOf(empty, p).find("holds no activity"), std::string::npos);
  p.emissionBandDeg = 5;
  EXPECT_NE(errorOf(block(), p).find("'emissionBandDeg'"), std::string::npos);
  p = {};
  p.randomsFraction = 1;
  EXPECT_NE(errorOf(block(), p).find("'randomsFraction'"), std::string::npos);
  p = {};
  p.acquisitionSeconds = 0;
  EXPECT_NE(errorOf(block(), p).find("'acquisitionSeconds'"), std::string::npos);
}

TEST(ListModeSimulator, CancelledRunThrowsAndWritesNothing) {
  const ScannerModel scanner = scannerPreset("ring-930");
  CancelToken token;
  token.request();
  JobContext context(token);
  ListModeSimulationParams p;
  p.requestedPrompts = 1000;
  EXPECT_THROW(simulateListMode(scanner, block(), nullptr, p, context), Cancelled);
  test::TempDir dir;
  EXPECT_THROW(simulateListModeFile(scanner, block(), nullptr, p, dir / "c.lm", {}, context),
               Cancelled);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(ListModeSimulator, FileHoldsTheSameEventsAndTheTruth) {
  const ScannerModel scanner = scannerPreset("penn-labr3");
  ListModeSimulationParams p;
  p.seed = 5;
  p.requestedPrompts = 5000;
  JobContext context;
  test::TempDir dir;
  ListModeHeader text;
  text.source = "ListModeSimulatorTest";
  text.scanStart = "2026-11-26T10:00:00";
  const ListModeSimulationReport report =
      simulateListModeFile(scanner, block(), nullptr, p, dir / "sim.lm", text, context);
  const SimulatedListMode memory = simulateListMode(scanner, block(), nullptr, p, context);
  const ListModeData file = readListMode(dir / "sim.lm");
  EXPECT_TRUE(sameEvents(file.events, memory.events));
  EXPECT_EQ(file.header.promptCount, 5000);
  EXPECT_EQ(file.header.delayedCount, report.delayed);
  EXPECT_EQ(file.header.source, "ListModeSimulatorTest");
  EXPECT_EQ(file.header.scanStart, "2026-11-26T10:00:00");
  ASSERT_TRUE(file.header.simulation.has_value());
  EXPECT_EQ(file.header.simulation->seed, 5u);
  EXPECT_EQ(file.header.simulation->bandDecays, report.bandDecays);
  EXPECT_EQ(file.header.simulation->trues, report.trues);
  EXPECT_EQ(file.header.simulation->randoms, report.randoms);
}

}  // namespace
}  // namespace tomowb::pet

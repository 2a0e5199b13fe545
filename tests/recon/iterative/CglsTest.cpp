#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/Cgls.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"

namespace tomowb::iterative {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// A problem small enough to solve by hand: an 8 x 8 x 1 slice seen by 18 parallel views of 14
// columns over 170 degrees (more equations than unknowns, well conditioned).
struct SmallProblem {
  Geometry geometry;
  VolumeGrid grid;
  ProjectionStack data;
  Volume truth;
};

SmallProblem smallProblem(std::uint64_t seed) {
  TiltSeriesParams p;
  p.cols = 14;
  p.rows = 1;
  p.tiltAnglesRad = arcAnglesRad(18, 170 * kDeg, -85 * kDeg);
  SmallProblem s{tiltSeries(p), VolumeGrid::centred({8, 8, 1}, {1, 1, 1}), {}, {}};
  s.truth = s.grid.makeVolume();
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(0.0f, 1.0f);
  for (float& v : s.truth.voxels()) v = value(generator);
  s.data = ProjectionStack(s.geometry);
  // b = A truth + noise, so the least-squares solution is not the truth itself.
  std::unique_ptr<op::ProjectorPair> pair = op::bindProjectorPair(
      VariantRegistry::builtins(), "et.fp.cpu", "et.bp.cpu-matched", {&s.geometry, s.grid});
  JobContext context;
  const std::unique_ptr<const op::Array> x = pair->useVolume(s.truth);
  std::unique_ptr<op::Array> b = pair->makeProjections();
  pair->forward(*x, *b, {}, context);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  for (std::size_t i = 0; i < b->size(); ++i) s.data.data()[i] = b->data()[i] + noise(generator);
  return s;
}

// The least-squares solution from the normal equations in float64, with A built column by column
// from the forward projector.
Eigen::VectorXd leastSquares(const SmallProblem& s) {
  std::unique_ptr<op::ProjectorPair> pair = op::bindProjectorPair(
      VariantRegistry::builtins(), "et.fp.cpu", "et.bp.cpu-matched", {&s.geometry, s.grid});
  const auto unknowns = static_cast<Eigen::Index>(s.grid.shape.voxelCount());
  const auto equations = static_cast<Eigen::Index>(s.data.pixelCount());
  Eigen::MatrixXd a(equations, unknowns);
  JobContext context;
  for (Eigen::Index j = 0; j < unknowns; ++j) {
    Volume unit = s.grid.makeVolume();
    unit.data()[j] = 1.0f;
    const std::unique_ptr<const op::Array> x = pair->useVolume(unit);
    std::unique_ptr<op::Array> column = pair->makeProjections();
    pair->forward(*x, *column, {}, context);
    for (Eigen::Index i = 0; i < equations; ++i) a(i, j) = column->data()[i];
  }
  Eigen::VectorXd b(equations);
  for (Eigen::Index i = 0; i < equations; ++i) b(i) = s.data.data()[i];
  // The minimum-norm solution: CGLS from zero stays in the range of A^T.
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> qr(a);
  EXPECT_EQ(qr.rank(), unknowns);
  return qr.solve(b);
}

IterativeParams cglsParams(const SmallProblem& s, int iterations) {
  IterativeParams p;
  p.method = IterativeMethod::Cgls;
  p.volume = s.grid;
  p.iterations = iterations;
  p.forwardVariant = "et.fp.cpu";
  p.backVariant = "et.bp.cpu-matched";
  return p;
}

TEST(Cgls, ReachesTheLeastSquaresSolutionOfTheNormalEquations) {
  const std::uint64_t seed = test::randomSeed();
  const SmallProblem s = smallProblem(seed);
  const Eigen::VectorXd solution = leastSquares(s);
  JobContext context;
  IterativeReport report;
  // CG reaches the solution in at most `unknowns` (64) steps in exact arithmetic; float32 needs
  // more (the condition number of A is about 120).
  const Volume x = reconstructIterative(s.data, cglsParams(s, 120), context, &report);
  double error2 = 0, norm2 = 0;
  for (Eigen::Index j = 0; j < solution.size(); ++j) {
    error2 += std::pow(x.data()[j] - solution(j), 2);
    norm2 += solution(j) * solution(j);
  }
  EXPECT_LT(std::sqrt(error2 / norm2), 1e-3) << "seed " << seed << ", " << report.stopReason;
  EXPECT_EQ(report.method, "cgls");
  EXPECT_TRUE(report.warnings.empty());
}

TEST(Cgls, ResidualFallsEveryIterationAndFasterThanSirt) {
  const SmallProblem s = smallProblem(test::randomSeed());
  JobContext context;
  IterativeReport cgls, sirt;
  reconstructIterative(s.data, cglsParams(s, 12), context, &cgls);
  IterativeParams sirtParams = cglsParams(s, 12);
  sirtParams.method = IterativeMethod::Sirt;
  reconstructIterative(s.data, sirtParams, context, &sirt);
  ASSERT_EQ(cgls.iterations.size(), 12u);
  for (std::size_t i = 1; i < cgls.iterations.size(); ++i) {
    EXPECT_LE(cgls.iterations[i].residualNorm, cgls.iterations[i - 1].residualNorm * (1 + 1e-6))
        << "iteration " << i + 1;
    EXPECT_EQ(cgls.iterations[i].objectiveName, "||b - Ax||^2 / 2");
    EXPECT_NEAR(cgls.iterations[i].objective, std::pow(cgls.iterations[i].residualNorm, 2) / 2,
                1e-9 * cgls.iterations[i].objective + 1e-30);
    ASSERT_EQ(cgls.iterations[i].metrics.size(), 2u);
    EXPECT_EQ(cgls.iterations[i].metrics[0].first, "gradient norm");
    EXPECT_EQ(cgls.iterations[i].metrics[1].first, "step");
  }
  EXPECT_LT(cgls.iterations.back().residualNorm, sirt.iterations.back().residualNorm);
  EXPECT_FALSE(sirt.iterations.back().objectiveName.empty());
}

TEST(Cgls, KeepsVoxelsOutsideTheMaskAtZero) {
  const SmallProblem s = smallProblem(test::randomSeed());
  IterativeParams p = cglsParams(s, 10);
  auto mask = std::make_shared<Volume>(s.grid.makeVolume());
  for (std::int64_t y = 2; y < 6; ++y)
    for (std::int64_t x = 1; x < 7; ++x) mask->at(x, y, 0) = 1.0f;
  p.mask = mask;
  JobContext context;
  const Volume x = reconstructIterative(s.data, p, context);
  double inside = 0;
  for (std::int64_t i = 0; i < x.voxelCount(); ++i) {
    if (mask->data()[i] == 0.0f)
      ASSERT_EQ(x.data()[i], 0.0f) << "voxel " << i;
    else
      inside += std::abs(x.data()[i]);
  }
  EXPECT_GT(inside, 0);
}

TEST(Cgls, RefusesBoundsAndWarnsAboutAnUnmatchedPair) {
  const SmallProblem s = smallProblem(test::randomSeed());
  IterativeParams p = cglsParams(s, 3);
  p.lowerBound = 0.0;
  JobContext context;
  try {
    reconstructIterative(s.data, p, context);
    FAIL() << "CGLS accepted a lower bound";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("takes no bounds"), std::string::npos) << e.what();
  }
  p.lowerBound.reset();
  p.backVariant = "et.bp.cpu-voxel";
  IterativeReport report;
  reconstructIterative(s.data, p, context, &report);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("CGLS assumes"), std::string::npos) << report.warnings[0];
}

TEST(Cgls, StopsWhenCancelled) {
  const SmallProblem s = smallProblem(test::randomSeed());
  CancelToken token;
  token.request();
  JobContext context(token);
  EXPECT_THROW(reconstructIterative(s.data, cglsParams(s, 5), context), Cancelled);
}

// The ordered-subset loop takes any update rule: plain Landweber (x += tau B (b - A x), tau
// below 2 / ||B A||) plugged in from a test lowers the residual every iteration.
class LandweberRule final : public UpdateRule {
 public:
  void prepare(const SubsetProblem& problem, JobContext&) override {
    residual_ = problem.pair.makeProjections();
    update_ = problem.pair.makeVolume();
  }
  void update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
              IterationTotals& totals, JobContext& context) override {
    op::ProjectorPair& pair = problem.pair;
    const op::ArrayOps& ops = pair.ops();
    pair.forward(x, *residual_, problem.subsets[subset], context);
    ops.xpby(problem.data, -1.0, *residual_);
    totals.residual2 += ops.dot(*residual_, *residual_);
    ops.fill(*update_, 0.0f);
    pair.adjoint(*residual_, *update_, problem.subsets[subset], context);
    ops.axpy(step, *update_, x);
  }
  std::string objectiveName() const override { return "||b - Ax||^2 / 2"; }
  double objective(const IterationTotals& totals) const override { return totals.residual2 / 2; }
  double step = 0;

 private:
  std::unique_ptr<op::Array> residual_, update_;
};

TEST(OrderedSubsetSolver, RunsARulePluggedInFromOutside) {
  const SmallProblem s = smallProblem(test::randomSeed());
  std::unique_ptr<op::ProjectorPair> pair = op::bindProjectorPair(
      VariantRegistry::builtins(), "et.fp.cpu", "et.bp.cpu-matched", {&s.geometry, s.grid});
  const std::unique_ptr<const op::Array> data = pair->useProjections(s.data);
  std::unique_ptr<op::Array> x = pair->makeVolume();
  // ||A||^2 <= (largest row sum) x (largest column sum) for a non-negative A.
  JobContext context;
  std::unique_ptr<op::Array> ones = pair->makeVolume();
  pair->ops().fill(*ones, 1.0f);
  std::unique_ptr<op::Array> rowSums = pair->makeProjections();
  pair->forward(*ones, *rowSums, {}, context);
  std::unique_ptr<op::Array> onesY = pair->makeProjections();
  pair->ops().fill(*onesY, 1.0f);
  std::unique_ptr<op::Array> columnSums = pair->makeVolume();
  pair->adjoint(*onesY, *columnSums, {}, context);
  LandweberRule rule;
  rule.step = 1.0 / (pair->ops().maxValue(*rowSums) * pair->ops().maxValue(*columnSums));
  const SubsetProblem problem{
      *pair,     *data,    nullptr,
      -INFINITY, INFINITY, viewSubsets(IterativeMethod::Sirt, s.geometry.viewCount(), 1)};
  IterativeParams params;
  params.iterations = 8;
  IterativeReport report;
  report.method = "landweber";
  runOrderedSubsets(problem, rule, *x, params, 1.0, report, context);
  ASSERT_EQ(report.iterations.size(), 8u);
  for (std::size_t i = 1; i < report.iterations.size(); ++i)
    EXPECT_LT(report.iterations[i].objective, report.iterations[i - 1].objective);
  EXPECT_EQ(report.iterations[0].algorithm, "landweber");
}

}  // namespace
}  // namespace tomowb::iterative

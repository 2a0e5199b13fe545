// "Stop and keep the current iterate" (CancelToken::requestStop, IterationLog::record): a stop
// requested while iteration k is reported ends the run after iteration k with exactly the iterate
// a k-iteration run returns, and the report says who stopped it.
#include <gtest/gtest.h>

#include <numbers>
#include <random>
#include <string>

#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterationLog.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "support/TestSupport.h"

namespace tomowb::iterative {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// Asks to stop when iteration `at` is reported, as the window's "Stop and keep" does between two
// iterations.
class StopAtIteration : public IterationSink {
 public:
  StopAtIteration(CancelToken& token, int at) : token_(token), at_(at) {}
  void iterationDone(const IterationRecord& record) override {
    ++reported_;
    if (record.iteration == at_) token_.requestStop();
  }
  int reported() const { return reported_; }

 private:
  CancelToken& token_;
  int at_;
  int reported_ = 0;
};

struct Problem {
  Geometry geometry;
  VolumeGrid grid;
  ProjectionStack data;
};

// A 12 x 12 slice seen by 24 parallel views: random data, so every iteration changes the iterate.
Problem problem(std::uint64_t seed) {
  TiltSeriesParams p;
  p.cols = 18;
  p.rows = 1;
  p.tiltAnglesRad = arcAnglesRad(24, 170 * kDeg, -85 * kDeg);
  Problem s{tiltSeries(p), VolumeGrid::centred({12, 12, 1}, {1, 1, 1}), {}};
  s.data = ProjectionStack(s.geometry);
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(0.0f, 4.0f);
  for (std::int64_t i = 0; i < s.data.pixelCount(); ++i) s.data.data()[i] = value(generator);
  return s;
}

IterativeParams params(const Problem& s, IterativeMethod method, int iterations) {
  IterativeParams p;
  p.method = method;
  p.volume = s.grid;
  p.iterations = iterations;
  if (method == IterativeMethod::OsSirt) p.subsets = 4;
  p.forwardVariant = "et.fp.cpu";
  p.backVariant = "et.bp.cpu-matched";
  return p;
}

class StopAndKeep : public ::testing::TestWithParam<IterativeMethod> {};

TEST_P(StopAndKeep, ReturnsExactlyTheIterateOfARunOfThatManyIterations) {
  const std::uint64_t seed = test::randomSeed();
  const Problem s = problem(seed);
  constexpr int kPlanned = 12, kStopAfter = 4;

  CancelToken token;
  StopAtIteration sink(token, kStopAfter);
  JobContext stopped(token);
  stopped.setIterationSink(&sink);
  IterativeReport report;
  const Volume kept =
      reconstructIterative(s.data, params(s, GetParam(), kPlanned), stopped, &report);

  JobContext plain;
  IterativeReport shortReport, fullReport;
  const Volume shortRun =
      reconstructIterative(s.data, params(s, GetParam(), kStopAfter), plain, &shortReport);
  const Volume fullRun =
      reconstructIterative(s.data, params(s, GetParam(), kPlanned), plain, &fullReport);

  EXPECT_EQ(sink.reported(), kStopAfter);
  ASSERT_EQ(report.iterations.size(), std::size_t{kStopAfter});
  EXPECT_EQ(report.stopReason, "stopped by the user after 4 of 12 iterations");
  ASSERT_EQ(kept.voxelCount(), shortRun.voxelCount());
  int differing = 0;
  for (std::int64_t i = 0; i < kept.voxelCount(); ++i)
    if (kept.data()[i] != shortRun.data()[i]) ++differing;
  EXPECT_EQ(differing, 0) << "seed " << seed;
  // The stopped run is not the full one: the request really ended it early.
  double change = 0;
  for (std::int64_t i = 0; i < kept.voxelCount(); ++i)
    change = std::max(change, double(std::abs(kept.data()[i] - fullRun.data()[i])));
  EXPECT_GT(change, 1e-4) << "seed " << seed;
  EXPECT_EQ(fullReport.stopReason, "12 iterations");
}

INSTANTIATE_TEST_SUITE_P(Solvers, StopAndKeep,
                         ::testing::Values(IterativeMethod::Sirt, IterativeMethod::OsSirt,
                                           IterativeMethod::Sart, IterativeMethod::Cgls),
                         [](const ::testing::TestParamInfo<IterativeMethod>& info) {
                           std::string name = toString(info.param);
                           std::erase(name, '-');
                           return name;
                         });

TEST(StopAndKeepToken, IsIndependentOfCancel) {
  CancelToken token;
  token.requestStop();
  EXPECT_TRUE(token.stopRequested());
  EXPECT_FALSE(token.requested());
  EXPECT_NO_THROW(token.throwIfRequested());
  JobContext context(token);
  EXPECT_TRUE(context.stopRequested());
  EXPECT_FALSE(JobContext().stopRequested());
}

TEST(StopAndKeepToken, ARequestAfterTheLastIterationChangesNothing) {
  const Problem s = problem(test::randomSeed());
  CancelToken token;
  StopAtIteration sink(token, 5);
  JobContext context(token);
  context.setIterationSink(&sink);
  IterativeReport report;
  reconstructIterative(s.data, params(s, IterativeMethod::Sirt, 5), context, &report);
  EXPECT_EQ(report.iterations.size(), 5u);
  EXPECT_EQ(report.stopReason, "5 iterations");
  EXPECT_EQ(stoppedByUser(2, 9), "stopped by the user after 2 of 9 iterations");
}

}  // namespace
}  // namespace tomowb::iterative

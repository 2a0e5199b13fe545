// The DIRECT GPU pairs and deposition against the CPU float64 reference (reference/direct-tof-
// pet.md, section 6.1 and 6.9): per operator NRMSE <= 1e-6 and max-abs <= 1e-5 of the largest
// value, the adjoint test with zero-mean vectors, the same bits run to run, nearest-voxel
// deposition bit-identical to the CPU's, and OSEM after 5 iterations within 1e-4 NRMSE.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "recon/iterative/EmRule.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/operator/AdjointTest.h"
#include "recon/pet/Deposition.h"
#include "recon/pet/DirectPair.h"
#include "recon/pet/GpuDirect.h"
#include "recon/pet/ScannerModel.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

struct Case {
  const char* name;
  LorWidthProfile profile;
  bool asymmetric;
  int tilts;
  GpuDirectScheme forward, back;
};

std::string schemeName(GpuDirectScheme s) {
  return s == GpuDirectScheme::GatherTex ? "tex" : s == GpuDirectScheme::GatherReg ? "reg" : "fft";
}

DirectProblem problemFor(const Case& c) {
  DirectProblem p;
  // Odd sizes: the thread blocks and z chunks do not divide them.
  p.grid = VolumeGrid::centred({37, 29, 11}, Eigen::Vector3d::Constant(4.0));
  p.views = {4, c.tilts, 10.0 * M_PI / 180.0};
  p.kernel.profile = c.profile;
  p.kernel.asymmetric = c.asymmetric;
  p.kernel.referenceRadiusMm = 20.0;
  return p;
}

struct Errors {
  double nrmse = 0, maxRelative = 0;
};

Errors compare(const float* got, const std::vector<double>& want) {
  double num = 0, den = 0, maxAbs = 0, maxDiff = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = double(got[i]) - want[i];
    num += d * d;
    den += want[i] * want[i];
    maxAbs = std::max(maxAbs, std::abs(want[i]));
    maxDiff = std::max(maxDiff, std::abs(d));
  }
  return {std::sqrt(num / std::max(den, 1e-300)), maxDiff / std::max(maxAbs, 1e-300)};
}

class DirectGpuPairTest : public ::testing::TestWithParam<Case> {};

TEST_P(DirectGpuPairTest, MatchesTheFloat64ReferenceAndItsAdjoint) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const Case c = GetParam();
  const DirectProblem problem = problemFor(c);
  auto kernels = std::make_shared<const DirectKernels>(problem.grid, problem.views, problem.kernel);
  std::string why;
  auto pair = makeGpuDirectPair(problem, kernels, c.forward, c.back, why);
  ASSERT_TRUE(pair) << why;
  EXPECT_TRUE(pair->matched());

  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0, 1);
  Volume image = problem.grid.makeVolume();
  for (float& v : image.voxels()) v = u(rng);
  HistoImages histo(problem.grid, problem.views);
  for (float& v : histo.values()) v = u(rng);
  JobContext context;

  auto x = pair->useVolume(image);
  auto y = pair->makeProjections();
  pair->forward(*x, *y, {}, context);
  const HistoImages forward = pair->takeHistoImages(*y);
  auto z = pair->useHistoImages(histo);
  auto b = pair->makeVolume();
  pair->adjoint(*z, *b, {}, context);
  Volume back = pair->takeVolume(std::move(b));

  const auto n = static_cast<std::size_t>(problem.grid.shape.voxelCount());
  std::vector<double> xd(image.voxels().begin(), image.voxels().end()), bd(n, 0.0);
  double worstBack = 0;
  for (int v = 0; v < problem.views.count(); ++v) {
    std::vector<double> fd(n);
    directForwardView(*kernels, v, xd, fd);
    const Errors e = compare(forward.view(v).data(), fd);
    EXPECT_LE(e.nrmse, 1e-6) << c.name << " forward view " << v;
    EXPECT_LE(e.maxRelative, 1e-5) << c.name << " forward view " << v;
    // The back-projector of this one view (the operator the digest's tolerance is for).
    std::vector<double> zd(histo.view(v).begin(), histo.view(v).end()), one(n, 0.0);
    directBackView(*kernels, v, zd, one);
    auto bv = pair->makeVolume();
    const std::int64_t only = v;
    pair->adjoint(*z, *bv, std::span<const std::int64_t>(&only, 1), context);
    const Volume backView = pair->takeVolume(std::move(bv));
    const Errors eb = compare(backView.data(), one);
    EXPECT_LE(eb.nrmse, 1e-6) << c.name << " back view " << v;
    EXPECT_LE(eb.maxRelative, 1e-5) << c.name << " back view " << v;
    worstBack = std::max(worstBack, eb.nrmse);
    for (std::size_t i = 0; i < n; ++i) bd[i] += one[i];
  }
  // All views summed in float32: the rounding of the sum over the views adds up.
  const Errors e = compare(back.data(), bd);
  EXPECT_LE(e.nrmse, 1e-5) << c.name << " back, all views";
  EXPECT_LE(e.maxRelative, 1e-4) << c.name << " back, all views";

  // A subset of views: only those blocks change, and the back-projection sums only them.
  const std::vector<std::int64_t> subset{1, 3};
  auto y2 = pair->makeProjections();
  pair->forward(*x, *y2, subset, context);
  const HistoImages partial = pair->takeHistoImages(*y2);
  EXPECT_EQ(0, std::memcmp(partial.view(3).data(), forward.view(3).data(), n * sizeof(float)));
  for (float v : partial.view(0)) ASSERT_EQ(v, 0.0f);

  // The same bits run to run.
  auto y3 = pair->makeProjections();
  pair->forward(*x, *y3, {}, context);
  const HistoImages again = pair->takeHistoImages(*y3);
  EXPECT_EQ(0, std::memcmp(again.data(), forward.data(), forward.values().size() * 4));

  const op::AdjointCheck adjoint = op::checkAdjoint(*pair, seed, context);
  EXPECT_LT(adjoint.relativeError, 1e-5) << c.name << ": <Ax,y> = " << adjoint.forwardDot
                                         << ", <x,By> = " << adjoint.backDot << " seed " << seed;
  std::printf("[ measured ] %s: adjoint %.2e, back NRMSE %.2e per view (worst), %.2e all views\n",
              c.name, adjoint.relativeError, worstBack, e.nrmse);
}

INSTANTIATE_TEST_SUITE_P(
    Schemes, DirectGpuPairTest,
    ::testing::Values(Case{"reg_invariant", LorWidthProfile::Invariant, false, 3,
                           GpuDirectScheme::GatherReg, GpuDirectScheme::GatherReg},
                      Case{"reg_variant1", LorWidthProfile::Variant1, false, 3,
                           GpuDirectScheme::GatherReg, GpuDirectScheme::GatherReg},
                      Case{"reg_asymmetric", LorWidthProfile::Variant2, true, 3,
                           GpuDirectScheme::GatherReg, GpuDirectScheme::GatherReg},
                      Case{"tex_invariant", LorWidthProfile::Invariant, false, 3,
                           GpuDirectScheme::GatherTex, GpuDirectScheme::GatherTex},
                      Case{"tex_variant2", LorWidthProfile::Variant2, false, 1,
                           GpuDirectScheme::GatherTex, GpuDirectScheme::GatherTex},
                      Case{"tex_reg_asymmetric", LorWidthProfile::Invariant, true, 3,
                           GpuDirectScheme::GatherTex, GpuDirectScheme::GatherReg},
                      Case{"fft_invariant", LorWidthProfile::Invariant, false, 3,
                           GpuDirectScheme::Fft, GpuDirectScheme::Fft}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(DirectGpuPair, FftRefusesVariantKernelsWithTheReason) {
  TOMOWB_SKIP_WITHOUT_GPU();
  Case c{"", LorWidthProfile::Variant1, false, 1, GpuDirectScheme::Fft, GpuDirectScheme::Fft};
  const DirectProblem problem = problemFor(c);
  auto kernels = std::make_shared<const DirectKernels>(problem.grid, problem.views, problem.kernel);
  std::string why;
  EXPECT_FALSE(makeGpuDirectPair(problem, kernels, c.forward, c.back, why));
  EXPECT_NE(why.find("invariant symmetric"), std::string::npos) << why;
}

std::vector<ListModeEvent> randomEvents(const ScannerModel& s, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> crystal(0, s.crystalsPerRing - 1), ring(0, s.rings - 1),
      tof(-60, 60), delayed(0, 9);
  std::vector<ListModeEvent> events(n);
  for (ListModeEvent& e : events) {
    e.crystal1 = static_cast<std::uint16_t>(crystal(rng));
    e.crystal2 = static_cast<std::uint16_t>((e.crystal1 + s.crystalsPerRing / 2 +
                                             crystal(rng) % (s.crystalsPerRing / 3) -
                                             s.crystalsPerRing / 6 + s.crystalsPerRing) %
                                            s.crystalsPerRing);
    e.ring1 = static_cast<std::uint16_t>(ring(rng));
    e.ring2 = static_cast<std::uint16_t>(ring(rng));
    e.tofLsb = static_cast<std::int16_t>(tof(rng));
    e.flags = delayed(rng) == 0 ? kEventDelayed : 0;
  }
  return events;
}

TEST(DirectGpuDeposition, NearestIsBitIdenticalToTheCpuAndWeightedAgrees) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const ScannerModel scanner = scannerPreset("penn-labr3");
  const VolumeGrid grid = VolumeGrid::centred({72, 72, 24}, Eigen::Vector3d::Constant(8.0));
  const ViewBinning views{20, 3, 10.0 * M_PI / 180.0};
  const std::vector<ListModeEvent> events = randomEvents(scanner, 2'000'000, test::randomSeed());
  JobContext context;
  for (DepositionMode mode :
       {DepositionMode::Nearest, DepositionMode::Trilinear, DepositionMode::TofKernel}) {
    for (EventStream stream : {EventStream::Prompts, EventStream::Delayed}) {
      DepositionParams params;
      params.mode = mode;
      params.stream = stream;
      HistoImages cpu(grid, views), gpu(grid, views);
      const DepositionReport rc = depositEvents(scanner, events, params, cpu, context);
      const DepositionReport rg = depositEventsGpu(scanner, events, params, gpu, {}, context);
      EXPECT_EQ(rc.events, rg.events);
      EXPECT_EQ(rc.outsideTilt, rg.outsideTilt);
      EXPECT_EQ(rc.deposited, rg.deposited) << toString(mode);
      EXPECT_GT(rc.deposited, rc.events / 2);
      if (mode == DepositionMode::Nearest) {
        EXPECT_EQ(0, std::memcmp(cpu.data(), gpu.data(), cpu.values().size() * sizeof(float)))
            << "nearest deposition differs between CPU and GPU";
      } else {
        double maxDiff = 0, maxValue = 0;
        for (std::size_t i = 0; i < cpu.values().size(); ++i) {
          maxDiff = std::max(maxDiff, double(std::abs(cpu.values()[i] - gpu.values()[i])));
          maxValue = std::max(maxValue, double(cpu.values()[i]));
        }
        EXPECT_LE(maxDiff, 1e-5 * maxValue) << toString(mode);
        EXPECT_NEAR(cpu.total(), gpu.total(), 1e-5 * cpu.total()) << toString(mode);
      }
    }
  }
}

TEST(DirectGpuPair, OsemOnTheGpuFollowsTheCpu) {
  TOMOWB_SKIP_WITHOUT_GPU();
  Case c{"", LorWidthProfile::Variant2,  false,
         3,  GpuDirectScheme::GatherReg, GpuDirectScheme::GatherReg};
  const DirectProblem problem = problemFor(c);
  auto kernels = std::make_shared<const DirectKernels>(problem.grid, problem.views, problem.kernel);
  std::string why;
  auto gpuPair = makeGpuDirectPair(problem, kernels, c.forward, c.back, why);
  ASSERT_TRUE(gpuPair) << why;
  auto cpuPair = makeCpuDirectPair(problem, kernels);
  // Data: the forward projection of a positive image with a hot block, Poisson-free.
  Volume truth = problem.grid.makeVolume();
  for (std::int64_t z = 0; z < truth.nz(); ++z)
    for (std::int64_t y = 0; y < truth.ny(); ++y)
      for (std::int64_t x = 0; x < truth.nx(); ++x)
        truth.at(x, y, z) = (std::abs(x - 18) < 4 && std::abs(y - 14) < 4) ? 4.0f : 1.0f;
  JobContext context;
  std::vector<Volume> results;
  for (op::ProjectorPair* pair : {static_cast<op::ProjectorPair*>(cpuPair.get()),
                                  static_cast<op::ProjectorPair*>(gpuPair.get())}) {
    auto t = pair->useVolume(truth);
    auto data = pair->makeProjections();
    pair->forward(*t, *data, {}, context);
    iterative::SubsetProblem sp{*pair, *data, nullptr, 0.0f, INFINITY, {}};
    for (int s = 0; s < 4; ++s) {
      std::vector<std::int64_t> subset;
      for (int v = s; v < problem.views.count(); v += 4) subset.push_back(v);
      sp.subsets.push_back(subset);
    }
    iterative::EmRule rule(iterative::EmOptions{});
    auto x = pair->makeVolume();
    pair->ops().fill(*x, 1.0f);
    iterative::IterativeParams params;
    params.iterations = 5;
    iterative::IterativeReport report;
    iterative::runOrderedSubsets(sp, rule, *x, params, 1.0, report, context);
    results.push_back(pair->takeVolume(std::move(x)));
  }
  double num = 0, den = 0;
  for (std::size_t i = 0; i < results[0].voxels().size(); ++i) {
    const double d = double(results[0].voxels()[i]) - double(results[1].voxels()[i]);
    num += d * d;
    den += double(results[0].voxels()[i]) * results[0].voxels()[i];
  }
  EXPECT_LE(std::sqrt(num / den), 1e-4);
}

}  // namespace
}  // namespace tomowb::pet

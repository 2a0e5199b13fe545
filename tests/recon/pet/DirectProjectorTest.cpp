// The DIRECT kernels and the CPU pair (reference/direct-tof-pet.md, sections 3 and 6.1-6.3).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "recon/operator/AdjointTest.h"
#include "recon/pet/DirectPair.h"
#include "recon/pet/PetTestSupport.h"
#include "recon/pet/SystemResponse.h"
#include "support/TestSupport.h"

namespace tomowb::pet {
namespace {

VolumeGrid unitGrid(std::int64_t nx, std::int64_t nz, double voxel = 4.0) {
  return VolumeGrid::centred({nx, nx, nz}, Eigen::Vector3d::Constant(voxel));
}

// The digest's CI-unit views: 4 azimuths, 1 tilt (0 deg), plus tilted views (3 tilts).
ViewBinning flatViews() {
  return {4, 1, 10.0 * M_PI / 180.0};
}
ViewBinning tiltedViews() {
  return {4, 3, 10.0 * M_PI / 180.0};
}

std::vector<double> randomVector(std::size_t n, std::mt19937_64& rng, bool positive) {
  std::uniform_real_distribution<double> u(positive ? 0.0 : -1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  if (!positive) {  // zero mean: a positive vector hides a pair that is only nearly matched
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(n);
    for (double& x : v) x -= mean;
  }
  return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST(DirectKernels, PaperKernelHasTheDigestsSupportAndSumsToOne) {
  // 400 ps, 5.8 mm radial and axial, 4 mm voxels: 271 offsets in the 3-sigma ellipsoid (4.4).
  const DirectKernels k(unitGrid(32, 8), flatViews(), {});
  for (int v = 0; v < 4; ++v) {
    EXPECT_NEAR(k.offsetCount(v), 271, 12) << "view " << v;
    double sum = 0;
    for (double w : k.values(v)) sum += w;
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
  EXPECT_EQ(k.classCount(), 1);
  EXPECT_TRUE(k.invariantSymmetric());
}

TEST(DirectKernels, OffsetsAreCentrallySymmetricInReverseOrder) {
  const DirectKernels k(unitGrid(24, 8), tiltedViews(), {});
  for (int v = 0; v < k.views().count(); ++v) {
    const auto o = k.offsets(v);
    const std::size_t n = o.size();
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(o[i].dx, -o[n - 1 - i].dx);
      EXPECT_EQ(o[i].dy, -o[n - 1 - i].dy);
      EXPECT_EQ(o[i].dz, -o[n - 1 - i].dz);
    }
  }
}

TEST(DirectKernels, WellSampledKernelKeeps97PercentInsideItsEllipsoid) {
  // 1 mm voxels, 200 ps (30 mm), 8 mm radial and axial: a 3-sigma ellipsoid holds 97.07 %.
  DirectKernelParams p;
  p.tofFwhmPs = 200;
  p.radialFwhmMm = 8;
  p.axialFwhmMm = 8;
  const DirectKernels k(unitGrid(8, 8, 1.0), {2, 1, 0.1}, p);
  EXPECT_NEAR(k.unnormalisedSum(0, 0), 0.9707, 0.01);
  EXPECT_NEAR(k.unnormalisedSum(1, 0), 0.9707, 0.01);
}

TEST(DirectKernels, VariantClassesWidenTowardsTheEdge) {
  DirectKernelParams p;
  p.profile = LorWidthProfile::Variant2;
  const DirectKernels k(unitGrid(48, 4), flatViews(), p);
  EXPECT_GT(k.classCount(), 20);
  // Class 0 at the centre, the largest class at the edge of the x axis for the view at 45 deg
  // azimuth... simpler: along the radial axis the class grows with |rho|.
  const auto map = k.classMap(0);
  const std::int64_t nx = 48;
  EXPECT_LT(map[24 * nx + 24], map[24 * nx + 2]);  // view 0's radial axis is ~y at phi = 22.5
  // The peak value of an edge class is smaller (wider kernel, same sum).
  const int n = k.offsetCount(0);
  double centrePeak = 0, edgePeak = 0;
  for (int i = 0; i < n; ++i) {
    centrePeak = std::max(centrePeak, k.values(0)[i]);
    edgePeak = std::max(edgePeak, k.values(0)[(k.classCount() - 1) * n + i]);
  }
  EXPECT_GT(centrePeak, 1.5 * edgePeak);
  EXPECT_THROW(DirectKernels(VolumeGrid::centred({8, 8, 8}, {4.0, 2.0, 4.0}), flatViews(), p),
               ParameterError);
}

struct AdjointCase {
  const char* name;
  LorWidthProfile profile;
  bool asymmetric;
  bool tilted;
};

class DirectAdjoint : public ::testing::TestWithParam<AdjointCase> {};

TEST_P(DirectAdjoint, Float64PairIsAnExactTranspose) {
  const AdjointCase c = GetParam();
  DirectKernelParams p;
  p.profile = c.profile;
  p.asymmetric = c.asymmetric;
  p.referenceRadiusMm = 30;  // variant1: inside the 64 mm half-width of this grid
  const VolumeGrid grid = unitGrid(32, 8);
  const DirectKernels k(grid, c.tilted ? tiltedViews() : flatViews(), p);
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const auto n = static_cast<std::size_t>(grid.shape.voxelCount());
  for (int v = 0; v < k.views().count(); ++v) {
    for (bool positive : {true, false}) {
      const std::vector<double> x = randomVector(n, rng, positive);
      const std::vector<double> z = randomVector(n, rng, positive);
      std::vector<double> fx(n), bz(n, 0.0);
      directForwardView(k, v, x, fx);
      directBackView(k, v, z, bz);
      const double lhs = dot(fx, z), rhs = dot(x, bz);
      const double scale = std::sqrt(dot(fx, fx) * dot(z, z));
      EXPECT_LT(std::abs(lhs - rhs), 1e-12 * scale)
          << c.name << " view " << v << (positive ? " positive" : " zero-mean") << " seed " << seed
          << ": <Fx,z> = " << lhs << ", <x,Bz> = " << rhs;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, DirectAdjoint,
    ::testing::Values(AdjointCase{"invariant", LorWidthProfile::Invariant, false, false},
                      AdjointCase{"invariant-tilted", LorWidthProfile::Invariant, false, true},
                      AdjointCase{"variant1", LorWidthProfile::Variant1, false, false},
                      AdjointCase{"variant2-tilted", LorWidthProfile::Variant2, false, true},
                      AdjointCase{"asymmetric", LorWidthProfile::Variant2, true, false},
                      AdjointCase{"asymmetric-tilted", LorWidthProfile::Invariant, true, true}),
    [](const auto& info) {
      std::string name = info.param.name;
      std::erase(name, '-');
      return name;
    });

TEST(DirectPairCpu, SymmetricInvariantForwardEqualsBack) {
  const VolumeGrid grid = unitGrid(24, 8);
  const DirectKernels k(grid, tiltedViews(), {});
  std::mt19937_64 rng(test::randomSeed());
  const auto n = static_cast<std::size_t>(grid.shape.voxelCount());
  const std::vector<double> x = randomVector(n, rng, true);
  for (int v = 0; v < k.views().count(); ++v) {
    std::vector<double> f(n), b(n, 0.0);
    directForwardView(k, v, x, f);
    directBackView(k, v, x, b);
    double maxAbs = 0, maxDiff = 0;
    for (std::size_t i = 0; i < n; ++i) {
      maxAbs = std::max(maxAbs, std::abs(f[i]));
      maxDiff = std::max(maxDiff, std::abs(f[i] - b[i]));
    }
    EXPECT_LE(maxDiff, 1e-12 * maxAbs) << "view " << v;
  }
}

TEST(DirectPairCpu, VariantForwardAndBackDiffer) {
  // With variant kernels FP blurs by the source's class and BP by the output's: not the same.
  DirectKernelParams p;
  p.profile = LorWidthProfile::Variant2;
  const VolumeGrid grid = unitGrid(64, 12);
  const DirectKernels k(grid, flatViews(), p);
  std::vector<double> x(static_cast<std::size_t>(grid.shape.voxelCount()), 0.0);
  x[static_cast<std::size_t>((6 * 64 + 32) * 64 + 40)] = 1.0;  // 32 mm off centre
  std::vector<double> f(x.size()), b(x.size(), 0.0);
  directForwardView(k, 0, x, f);
  directBackView(k, 0, x, b);
  double diff = 0, peak = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::abs(f[i] - b[i]));
    peak = std::max(peak, f[i]);
  }
  EXPECT_GT(diff, 0.01 * peak);
  // Forward projection keeps the mass of a voxel whose kernel stays in the grid.
  EXPECT_NEAR(std::accumulate(f.begin(), f.end(), 0.0), 1.0, 1e-9);
}

TEST(DirectPairCpu, DeltaBlobHasTheTofWidthAlongTAndTheLorWidthAcross) {
  // View at azimuth ~0 (1 of 64 azimuths: phi = 1.4 deg), no tilt: t ~ x, r ~ y. 2 mm voxels.
  const ViewBinning views{64, 1, 0.1};
  const VolumeGrid grid = unitGrid(96, 9, 2.0);
  DirectKernelParams p;
  p.radialFwhmMm = 10.0;
  p.axialFwhmMm = 10.0;
  const DirectKernels k(grid, views, p);
  const auto n = static_cast<std::size_t>(grid.shape.voxelCount());
  std::vector<double> x(n, 0.0), f(n);
  const std::int64_t c = 48, zc = 4;
  x[static_cast<std::size_t>((zc * 96 + c) * 96 + c)] = 1.0;
  directForwardView(k, 0, x, f);
  std::vector<double> alongX(96), alongY(96);
  for (int i = 0; i < 96; ++i) {
    alongX[i] = f[static_cast<std::size_t>((zc * 96 + c) * 96 + i)];
    alongY[i] = f[static_cast<std::size_t>((zc * 96 + i) * 96 + c)];
  }
  // 400 ps: 60 mm along t (within half a voxel), the 10 mm LOR width across (within 10 %).
  EXPECT_NEAR(profileFwhm(alongX, 2.0), 60.0 * std::cos(views.frame(0).azimuthRad), 1.0);
  EXPECT_NEAR(profileFwhm(alongY, 2.0), 10.0, 1.0);
}

TEST(DirectPairCpu, PairMatchesFloat64OperatorsAndIsThreadCountIndependent) {
  DirectProblem problem;
  problem.grid = unitGrid(24, 6);
  problem.views = tiltedViews();
  problem.kernel.profile = LorWidthProfile::Variant1;
  problem.kernel.referenceRadiusMm = 20;
  auto kernels = std::make_shared<const DirectKernels>(problem.grid, problem.views, problem.kernel);
  auto pair = makeCpuDirectPair(problem, kernels);
  EXPECT_TRUE(pair->matched());
  Volume volume = problem.grid.makeVolume();
  std::mt19937_64 rng(test::randomSeed());
  std::uniform_real_distribution<float> u(0, 1);
  for (float& v : volume.voxels()) v = u(rng);
  auto x = pair->useVolume(volume);
  auto y1 = pair->makeProjections();
  auto y2 = pair->makeProjections();
  JobContext context;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  pair->forward(*x, *y1, {}, context);
  omp_set_num_threads(std::max(2, threads));
  pair->forward(*x, *y2, {}, context);
  omp_set_num_threads(threads);
  ASSERT_EQ(y1->size(), y2->size());
  EXPECT_EQ(0, std::memcmp(y1->data(), y2->data(), y1->size() * sizeof(float)));

  // View 5 of the pair against the float64 operator.
  const auto n = static_cast<std::size_t>(problem.grid.shape.voxelCount());
  std::vector<double> xd(volume.voxels().begin(), volume.voxels().end()), fd(n);
  directForwardView(*kernels, 5, xd, fd);
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_NEAR(y1->data()[5 * n + i], fd[i], 1e-6 * (1 + std::abs(fd[i])));

  // The generic adjoint test of recon/operator on the pair (float32 arrays, zero-mean vectors).
  const op::AdjointCheck r = op::checkAdjoint(*pair, test::randomSeed(), context);
  EXPECT_LT(r.relativeError, op::AdjointCheck::kMatchedTolerance)
      << "<Ax,y> = " << r.forwardDot << ", <x,By> = " << r.backDot;
}

}  // namespace
}  // namespace tomowb::pet

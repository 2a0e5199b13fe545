// The separable-footprint GPU projectors (recon/projector/sf/cuda/GpuSf.h) against the float64 CPU
// reference (recon/projector/sf/SeparableFootprintProjector.h), following
// ../shared/reference/sf-projectors.md section 7: forward and transpose of every GPU variant
// against the reference on fresh random volumes (odd sizes, a slanted offset circular cone and a
// helix, SF-TR and SF-TT, amplitudes A2 and A1), the adjoint test with zero-mean vectors judged
// against the dot products themselves, determinism, and the device-resident pair. Without a GPU
// every test skips with a message.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "recon/geometry/ScanBuilders.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/projector/sf/SeparableFootprintProjector.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"

namespace tomowb::projector {
namespace {

Geometry slantedCone(std::mt19937_64& rng, std::int64_t cols, std::int64_t rows, int views,
                     DetectorSurface surface = DetectorSurface::Flat) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  CircularConeParams p;
  p.detector.surface = surface;
  p.sourceToIsocentreMm = 60;
  p.sourceToDetectorMm = 110;
  p.detector.cols = cols;
  p.detector.rows = rows;
  p.detector.pitchUMm = 1.3;
  p.detector.pitchVMm = 1.1;
  // An arc stays centred on its fan (ArcFrame: u is the tangent at the centre); it may sit
  // off the source's plane.
  const bool flat = surface == DetectorSurface::Flat;
  p.detector.offsetUMm = flat ? 2 * unit(rng) : 0.0;
  p.detector.offsetVMm = 2 * unit(rng);
  p.detector.slantRad = flat ? 0.1 * unit(rng) : 0.0;
  p.anglesRad = fullScanAnglesRad(views, unit(rng));
  return circularConeBeam(p);
}

Geometry helix(std::int64_t cols, std::int64_t rows, int views,
               DetectorSurface surface = DetectorSurface::Flat) {
  HelicalConeParams p;
  p.circular.detector.surface = surface;
  p.circular.sourceToIsocentreMm = 60;
  p.circular.sourceToDetectorMm = 100;
  p.circular.detector.cols = cols;
  p.circular.detector.rows = rows;
  p.circular.detector.pitchUMm = 1.2;
  p.circular.detector.pitchVMm = 1.0;
  p.circular.anglesRad = arcAnglesRad(views, 4 * std::numbers::pi, 0.2);
  p.pitch = 0.9;
  p.startZMm = -8;
  return helicalConeBeam(p);
}

std::vector<float> randomFloats(std::mt19937_64& rng, std::size_t n, float low) {
  std::uniform_real_distribution<float> value(low, 1.0f);
  std::vector<float> x(n);
  for (float& v : x) v = value(rng);
  return x;
}

struct Agreement {
  double maxAbs = 0, maxRef = 0, nrmse = 0;
};

Agreement compare(const float* test, const std::vector<double>& ref) {
  Agreement a;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    a.maxAbs = std::max(a.maxAbs, std::abs(double(test[i]) - ref[i]));
    a.maxRef = std::max(a.maxRef, std::abs(ref[i]));
    num += (double(test[i]) - ref[i]) * (double(test[i]) - ref[i]);
    den += ref[i] * ref[i];
  }
  a.nrmse = std::sqrt(num / den);
  return a;
}

struct Case {
  const char* name;
  Geometry geometry;
  VolumeGrid grid;
};

std::vector<Case> cases(std::mt19937_64& rng) {
  std::vector<Case> c;
  c.push_back({"cone", slantedCone(rng, 61, 37, 23),
               VolumeGrid::centred({37, 33, 21}, Eigen::Vector3d(1.0, 1.1, 0.9))});
  c.push_back({"helix", helix(53, 17, 40),
               VolumeGrid::centred({31, 29, 41}, Eigen::Vector3d(1.1, 1.0, 0.8))});
  // Arc (cylindrical) detectors, as in the seed's GE geometry.
  c.push_back({"arc", slantedCone(rng, 59, 31, 21, DetectorSurface::Cylinder),
               VolumeGrid::centred({35, 31, 19}, Eigen::Vector3d(1.0, 1.1, 0.9))});
  c.push_back({"arc-helix", helix(57, 15, 37, DetectorSurface::Cylinder),
               VolumeGrid::centred({29, 33, 43}, Eigen::Vector3d(1.1, 1.0, 0.8))});
  return c;
}

SfModel modelOf(const KernelVariant& v, bool a1) {
  return {v.model == "sf-tt" ? SfAxialFootprint::Trapezoid : SfAxialFootprint::Rectangle,
          a1 ? SfAmplitude::A1 : SfAmplitude::A2};
}

std::vector<const KernelVariant*> gpuSfForwards() {
  std::vector<const KernelVariant*> out;
  for (const KernelVariant* v : VariantRegistry::builtins().withRole(VariantRole::ForwardProjector))
    if (v->needsGpu && v->name.rfind("sf.", 0) == 0) out.push_back(v);
  return out;
}

// Every GPU forward projector with every GPU backprojector of its model: all compute one matrix,
// so every combination is a matched pair.
std::vector<std::pair<const KernelVariant*, const KernelVariant*>> gpuSfPairs() {
  std::vector<std::pair<const KernelVariant*, const KernelVariant*>> out;
  for (const KernelVariant* fp : gpuSfForwards())
    for (const KernelVariant* bp : VariantRegistry::builtins().withRole(VariantRole::Backprojector))
      if (bp->needsGpu && bp->model == fp->model && bp->name.rfind("sf.", 0) == 0)
        out.emplace_back(fp, bp);
  return out;
}

TEST(GpuSeparableFootprint, EveryVariantMatchesTheFloat64ReferenceBothWays) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const auto pairs = gpuSfPairs();
  ASSERT_EQ(gpuSfForwards().size(), 6u);
  ASSERT_EQ(pairs.size(), 12u);
  for (const Case& c : cases(rng))
    for (const bool a1 : {false, true})
      for (const auto& [fp, bpOfPair] : pairs) {
        const KernelVariant& bp = *bpOfPair;
        SCOPED_TRACE(std::string(c.name) + " " + fp->name + " + " + bp.name + (a1 ? " A1" : " A2") +
                     ", seed " + std::to_string(seed));
        op::ProjectorProblem problem{&c.geometry, c.grid, {}};
        if (a1) problem.gpu.tunables["amplitude"] = "a1";
        std::string why;
        std::unique_ptr<op::ProjectorPair> pair = fp->bindDevicePair(*fp, bp, problem, why);
        ASSERT_TRUE(pair) << why;
        const SfModel model = modelOf(*fp, a1);
        Volume x = c.grid.makeVolume();
        const std::vector<float> values = randomFloats(rng, x.voxels().size(), 0.0f);
        std::copy(values.begin(), values.end(), x.data());
        const std::size_t pixels = std::size_t(c.geometry.viewCount() * c.geometry.detector().cols *
                                               c.geometry.detector().rows);
        ProjectionStack y(c.geometry);
        const std::vector<float> yValues = randomFloats(rng, pixels, 0.0f);
        std::copy(yValues.begin(), yValues.end(), y.data());

        std::vector<double> refForward(pixels), refBack(values.size(), 0.0);
        sfForward(std::vector<double>(values.begin(), values.end()), c.grid, c.geometry, refForward,
                  model);
        sfBackproject(std::vector<double>(yValues.begin(), yValues.end()), c.geometry, refBack,
                      c.grid, model);

        JobContext context;
        std::unique_ptr<const op::Array> dx = pair->useVolume(x);
        std::unique_ptr<op::Array> dp = pair->makeProjections();
        pair->forward(*dx, *dp, {}, context);
        std::vector<float> forward(pixels);
        pair->ops().download(*dp, forward);
        const Agreement f = compare(forward.data(), refForward);

        std::unique_ptr<const op::Array> dy = pair->useProjections(y);
        std::unique_ptr<op::Array> db = pair->makeVolume();
        pair->adjoint(*dy, *db, {}, context);
        std::vector<float> back(values.size());
        pair->ops().download(*db, back);
        const Agreement b = compare(back.data(), refBack);
        std::printf(
            "[ measured ] %-9s %-19s + %-19s %s forward max %.3g NRMSE %.3g; back max %.3g "
            "NRMSE %.3g\n",
            c.name, fp->name.c_str(), bp.name.c_str(), a1 ? "A1" : "A2", f.maxAbs / f.maxRef,
            f.nrmse, b.maxAbs / b.maxRef, b.nrmse);
        EXPECT_LE(f.maxAbs, 1e-5 * f.maxRef);
        EXPECT_LE(f.nrmse, 1e-6);
        EXPECT_LE(b.maxAbs, 1e-5 * b.maxRef);
        EXPECT_LE(b.nrmse, 1e-6);
      }
}

// <A x, y> against <x, A^T y> on 64^3 with 32 views, two ways: the digest's rho (uniform x, y >= 0,
// relative to the larger dot product) at most 1e-6; and zero-mean vectors (positive ones hide
// near-misses), relative to |A x| |y| and |x| |A^T y| (the dot products themselves of zero-mean
// vectors are sums that cancel by chance, so the ratio to them swings from seed to seed), at most
// 1e-7: float32 rounding gives about 1e-9 here, LEAP's nearly matched pair 8e-6 to 7e-5.
TEST(GpuSeparableFootprint, EveryPairPassesTheAdjointTest) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  CircularConeParams p;
  p.sourceToIsocentreMm = 150;
  p.sourceToDetectorMm = 250;
  p.detector = {.cols = 96, .rows = 96, .pitchUMm = 1.4, .pitchVMm = 1.4};
  p.anglesRad = fullScanAnglesRad(32, 0.1);
  const Geometry cone = circularConeBeam(p);
  const VolumeGrid grid = VolumeGrid::centred({64, 64, 64}, Eigen::Vector3d(1, 1, 1));
  for (const auto& [fp, bpOfPair] : gpuSfPairs()) {
    const KernelVariant& bp = *bpOfPair;
    SCOPED_TRACE(fp->name + " + " + bp.name + ", seed " + std::to_string(seed));
    const op::ProjectorProblem problem{&cone, grid, {}};
    std::string why;
    std::unique_ptr<op::ProjectorPair> pair = fp->bindDevicePair(*fp, bp, problem, why);
    ASSERT_TRUE(pair) << why;
    for (const float low : {0.0f, -1.0f}) {
      Volume x = grid.makeVolume();
      const std::vector<float> xs = randomFloats(rng, x.voxels().size(), low);
      std::copy(xs.begin(), xs.end(), x.data());
      ProjectionStack y(cone);
      const std::vector<float> ys = randomFloats(rng, std::size_t(y.pixelCount()), low);
      std::copy(ys.begin(), ys.end(), y.data());
      JobContext context;
      std::unique_ptr<op::Array> ax = pair->makeProjections();
      pair->forward(*pair->useVolume(x), *ax, {}, context);
      std::unique_ptr<op::Array> aty = pair->makeVolume();
      pair->adjoint(*pair->useProjections(y), *aty, {}, context);
      std::vector<float> axHost(ax->size()), atyHost(aty->size());
      pair->ops().download(*ax, axHost);
      pair->ops().download(*aty, atyHost);
      double forwardDot = 0, backDot = 0, axNorm = 0, yNorm = 0, xNorm = 0, atyNorm = 0;
      for (std::size_t i = 0; i < ys.size(); ++i) {
        forwardDot += double(axHost[i]) * ys[i];
        axNorm += double(axHost[i]) * axHost[i];
        yNorm += double(ys[i]) * ys[i];
      }
      for (std::size_t i = 0; i < xs.size(); ++i) {
        backDot += double(atyHost[i]) * xs[i];
        atyNorm += double(atyHost[i]) * atyHost[i];
        xNorm += double(xs[i]) * xs[i];
      }
      const double gap = std::abs(forwardDot - backDot);
      const double rho = gap / std::max(std::abs(forwardDot), std::abs(backDot));
      const double normed = gap / std::max(std::sqrt(axNorm * yNorm), std::sqrt(xNorm * atyNorm));
      if (low == 0.0f) {
        std::printf("[ measured ] %-19s + %-19s positive vectors: rho %.3g\n", fp->name.c_str(),
                    bp.name.c_str(), rho);
        EXPECT_LE(rho, 1e-6);
      } else {
        std::printf(
            "[ measured ] %-19s + %-19s zero-mean vectors: %.3g of the norms (%.3g of the "
            "dot product)\n",
            fp->name.c_str(), bp.name.c_str(), normed, rho);
        EXPECT_LE(normed, 1e-7);
      }
    }
  }
}

TEST(GpuSeparableFootprint, GatherVariantsGiveTheSameBitsEveryRunAndAtomicOnesNearlySo) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  const Case c = cases(rng).front();
  for (const auto& [fp, bpOfPair] : gpuSfPairs()) {
    const KernelVariant& bp = *bpOfPair;
    SCOPED_TRACE(fp->name + " + " + bp.name + ", seed " + std::to_string(seed));
    const op::ProjectorProblem problem{&c.geometry, c.grid, {}};
    std::string why;
    std::unique_ptr<op::ProjectorPair> pair = fp->bindDevicePair(*fp, bp, problem, why);
    ASSERT_TRUE(pair) << why;
    Volume x = c.grid.makeVolume();
    const std::vector<float> xs = randomFloats(rng, x.voxels().size(), 0.0f);
    std::copy(xs.begin(), xs.end(), x.data());
    JobContext context;
    std::unique_ptr<const op::Array> dx = pair->useVolume(x);
    std::vector<std::vector<float>> runs;
    std::vector<std::vector<float>> backs;
    for (int run = 0; run < 3; ++run) {
      std::unique_ptr<op::Array> p = pair->makeProjections();
      pair->forward(*dx, *p, {}, context);
      runs.emplace_back(p->size());
      pair->ops().download(*p, runs.back());
      std::unique_ptr<op::Array> b = pair->makeVolume();
      pair->adjoint(*p, *b, {}, context);
      backs.emplace_back(b->size());
      pair->ops().download(*b, backs.back());
    }
    const bool atomic = fp->name.find("atomic") != std::string::npos;
    for (int run = 1; run < 3; ++run) {
      double worst = 0, largest = 0;
      for (std::size_t i = 0; i < runs[0].size(); ++i) {
        worst = std::max(worst, std::abs(double(runs[run][i]) - runs[0][i]));
        largest = std::max(largest, std::abs(double(runs[0][i])));
      }
      std::printf("[ measured ] %-18s run %d differs by %.3g of the largest value\n",
                  fp->name.c_str(), run, worst / largest);
      if (atomic)
        EXPECT_LE(worst, 1e-6 * largest);
      else
        EXPECT_EQ(runs[run], runs[0]);
    }
    // The transpose gathers: its bits never vary.
    if (!atomic) EXPECT_EQ(backs[1], backs[0]);
  }
}

TEST(GpuSeparableFootprint, SubsetsOfViewsProjectOnlyThoseViews) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const Case c = cases(rng).back();
  for (const auto& [fp, bpOfPair] : gpuSfPairs()) {
    const KernelVariant& bp = *bpOfPair;
    SCOPED_TRACE(fp->name + " + " + bp.name);
    const op::ProjectorProblem problem{&c.geometry, c.grid, {}};
    std::string why;
    std::unique_ptr<op::ProjectorPair> pair = fp->bindDevicePair(*fp, bp, problem, why);
    ASSERT_TRUE(pair) << why;
    Volume x = c.grid.makeVolume();
    const std::vector<float> xs = randomFloats(rng, x.voxels().size(), 0.0f);
    std::copy(xs.begin(), xs.end(), x.data());
    JobContext context;
    std::unique_ptr<const op::Array> dx = pair->useVolume(x);
    std::unique_ptr<op::Array> all = pair->makeProjections();
    pair->forward(*dx, *all, {}, context);
    std::unique_ptr<op::Array> some = pair->makeProjections();
    pair->ops().fill(*some, -1.0f);
    const std::vector<std::int64_t> views{3, 17, 30};
    pair->forward(*dx, *some, views, context);
    std::vector<float> a(all->size()), s(some->size());
    pair->ops().download(*all, a);
    pair->ops().download(*some, s);
    const std::size_t perView =
        std::size_t(c.geometry.detector().cols * c.geometry.detector().rows);
    for (std::int64_t v = 0; v < c.geometry.viewCount(); ++v) {
      const bool listed = std::find(views.begin(), views.end(), v) != views.end();
      for (std::size_t i = 0; i < perView; ++i) {
        const std::size_t at = std::size_t(v) * perView + i;
        if (listed)
          ASSERT_FLOAT_EQ(s[at], a[at]) << "view " << v;
        else
          ASSERT_EQ(s[at], -1.0f) << "view " << v;
      }
    }
    // The transpose of a subset equals the sum of its views' transposes.
    std::unique_ptr<op::Array> b = pair->makeVolume();
    pair->adjoint(*all, *b, views, context);
    std::unique_ptr<op::Array> one = pair->makeVolume();
    for (const std::int64_t v : views)
      pair->adjoint(*all, *one, std::vector<std::int64_t>{v}, context);
    std::vector<float> bs(b->size()), os(one->size());
    pair->ops().download(*b, bs);
    pair->ops().download(*one, os);
    double worst = 0, largest = 0;
    for (std::size_t i = 0; i < bs.size(); ++i) {
      worst = std::max(worst, std::abs(double(bs[i]) - os[i]));
      largest = std::max(largest, std::abs(double(bs[i])));
    }
    EXPECT_LE(worst, 1e-6 * largest);
  }
}

}  // namespace
}  // namespace tomowb::projector

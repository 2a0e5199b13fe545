// FDK in slabs on the GPU, each slab with its mirror image (issue #22, points 1 and 6): a slab off
// the detector's centre row cannot use the z-mirror kernels alone, so a slab run pairs slab k with
// slab n-1-k (SlabPlan::units, fdk::FdkMirrorPair). The pairs run the mirror kernel (no fallback
// warning), whether their two bands of rows lie apart or meet across the centre, and give the
// in-memory GPU FDK's volume within float32 rounding, with the same bits from one and two ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/scale/ProjectionRowSource.h"
#include "recon/scale/SlabRun.h"
#include "support/TestSupport.h"

namespace tomowb::scale {
namespace {

// A wide cone (source 100 mm from the axis, the grid's corners 17 mm off it): the outer pairs'
// bands lie apart, and the pair just outside the centre has bands that meet.
const ProjectionStack& wideCone() {
  static const ProjectionStack scan = [] {
    CircularConeParams p;
    p.sourceToIsocentreMm = 100;
    p.sourceToDetectorMm = 200;
    p.detector.cols = 64;
    p.detector.rows = 48;
    p.detector.pitchUMm = 1.0;
    p.detector.pitchVMm = 1.0;
    p.anglesRad = fullScanAnglesRad(90, 0.3);
    return phantom::projectPhantom(phantom::modifiedSheppLogan3d(11.0), circularConeBeam(p));
  }();
  return scan;
}

// The wide cone's scan read from memory, and FDK of a centred 48 x 48 x 36 grid of 0.5 mm voxels.
class GpuSlabFdk : public testing::Test {
 protected:
  GpuSlabFdk() {
    params.volume = VolumeGrid::centred({48, 48, 36}, Eigen::Vector3d::Constant(0.5));
  }
  test::TempDir dir;
  InMemoryRowSource source{wideCone()};
  fdk::FdkParams params;
  JobContext plain;
};

std::vector<float> samples(const std::filesystem::path& output) {
  const Volume v = io::readVolumeRaw(output);
  return {v.voxels().begin(), v.voxels().end()};
}

TEST_F(GpuSlabFdk, MirroredPairsRunTheMirrorKernelAndMatchTheInMemoryGpuFdk) {
  TOMOWB_SKIP_WITHOUT_GPU();
  for (const auto& [variant, kernel] :
       {std::pair<std::string, std::string>{"fdk.bp.fast", "fdk.bp.mirror-hybrid"},
        {"fdk.bp.soft-mirror", "fdk.bp.soft-mirror"}}) {
    SCOPED_TRACE(variant);
    params.variant = variant;
    fdk::FdkReport wholeReport;
    const Volume whole = fdk::reconstructFdk(wideCone(), params, plain, &wholeReport);
    ASSERT_EQ(wholeReport.kernel, kernel);
    // Slabs of 2: 18 slabs, pairs {0, 17} ... {7, 10} apart, {8, 9} one slab. Slabs of 5: from
    // both ends, pairs {0, 6}, {1, 5}, {2, 4} apart and a centred middle slab of 6 alone.
    for (const std::int64_t height : {2, 5}) {
      SCOPED_TRACE("slabs of " + std::to_string(height));
      std::vector<std::vector<float>> results;
      for (const int ranks : {1, 2}) {
        SlabRunOptions o;
        o.output =
            dir / (variant + "-" + std::to_string(height) + "-" + std::to_string(ranks) + ".raw");
        o.plan.slabSlices = height;
        o.ranks = ranks;
        for (int rank = 0; rank < ranks; ++rank) {
          o.rank = rank;
          const SlabRunReport r = reconstructFdkInSlabs(source, params, o, plain);
          EXPECT_TRUE(r.plan.mirrorPairs);
          EXPECT_EQ(r.lastSlab.kernel, kernel);
          EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();  // no fallback to another kernel
        }
        results.push_back(samples(o.output));
      }
      EXPECT_EQ(results[0], results[1]) << "2 ranks differ from 1";
      ASSERT_EQ(results[0].size(), whole.voxels().size());
      double num = 0, den = 0;
      for (std::size_t i = 0; i < results[0].size(); ++i) {
        const double d = double(results[0][i]) - double(whole.voxels()[i]);
        num += d * d;
        den += double(whole.voxels()[i]) * double(whole.voxels()[i]);
      }
      ASSERT_GT(den, 0.0);
      // Software interpolation: float32 rounding. The texture unit's 8-bit filter weights move
      // with the texel coordinates, which a pair counts from its own first row (measured 1.7e-5
      // with fdk.bp.fast on the H100); its bound against the float64 CPU FDK is 1e-3 (GpuFdkTest).
      const double limit = variant == "fdk.bp.soft-mirror" ? 1e-5 : 1e-4;
      EXPECT_LT(std::sqrt(num / den), limit) << "slabs in mirrored pairs against the whole volume";
    }
  }
}

// Without pairs (TOMOWB_SLAB_MIRROR_PAIRS=off) the slabs off the centre fall back to the kernel
// without the mirror, and say so: what the pairs are for.
TEST_F(GpuSlabFdk, WithoutPairsTheSlabsOffTheCentreFallBackToTheKernelWithoutTheMirror) {
  TOMOWB_SKIP_WITHOUT_GPU();
  params.variant = "fdk.bp.fast";
  ::setenv("TOMOWB_SLAB_MIRROR_PAIRS", "off", 1);
  SlabRunOptions o;
  o.output = dir / "unpaired.raw";
  o.plan.slabSlices = 6;
  const SlabRunReport r = reconstructFdkInSlabs(source, params, o, plain);
  ::unsetenv("TOMOWB_SLAB_MIRROR_PAIRS");
  EXPECT_FALSE(r.plan.mirrorPairs);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.front().find("z-mirror kernels not usable"), std::string::npos)
      << r.warnings.front();
}

}  // namespace
}  // namespace tomowb::scale

// Arc (cylindrical) detectors from the command line (issue #19, point 1): `--detector arc` builds
// them (geometry, phantom), the geometry file says so per view, FDK resamples them onto a flat
// detector, the voxel-driven backprojector refuses them naming the view, and the matched ray-driven
// and SF pairs reconstruct them.
#include <gtest/gtest.h>

#include <string>

#include "cli/CliRun.h"
#include "recon/io/GeometryJson.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

using test::CliResult;
using test::runCli;

TEST(ArcDetectorCli, DetectorArcBuildsCylindersThatFdkResamplesAndIterativePairsReconstruct) {
  const test::TempDir dir;
  const auto path = [&](const char* name) { return (dir / name).string(); };
  const CliResult g =
      runCli("-q geometry --detector arc --cols 48 --rows 16 --views 30 -o " + path("g.json"));
  ASSERT_EQ(g.exitCode, 0) << g.output;
  const Geometry geometry = loadGeometry(path("g.json"));
  EXPECT_EQ(geometry.view(29).surface, DetectorSurface::Cylinder);

  const CliResult p = runCli(
      "-q phantom --detector arc --cols 64 --rows 24 --views 40 "
      "--pitch-mm 2 --seed 1 -o " +
      path("p.json"));
  ASSERT_EQ(p.exitCode, 0) << p.output;
  // FDK resamples the arc onto the flat detector tangent to it, and says so.
  const CliResult fdk =
      runCli("--no-record recon fdk -i " + path("p.json") + " -o " + path("f.mhd") + " --size 24");
  EXPECT_EQ(fdk.exitCode, 0) << fdk.output;
  EXPECT_NE(fdk.output.find("resampled"), std::string::npos) << fdk.output;
  const CliResult voxel = runCli("--no-record recon sirt -i " + path("p.json") + " -o " +
                                 path("v.mhd") + " --size 24 --iterations 1");
  EXPECT_NE(voxel.exitCode, 0);
  EXPECT_NE(voxel.output.find("et.bp.cpu-voxel (voxel-driven backprojection) needs a flat"),
            std::string::npos)
      << voxel.output;
  const CliResult matched = runCli("--no-record recon sirt -i " + path("p.json") + " -o " +
                                   path("m.mhd") + " --size 24 --iterations 2 --matched");
  EXPECT_EQ(matched.exitCode, 0) << matched.output;
  const CliResult sf =
      runCli("--no-record recon pwls -i " + path("p.json") + " -o " + path("s.mhd") +
             " --size 24 --iterations 2 --projector sf-tr " + "--start zero");
  EXPECT_EQ(sf.exitCode, 0) << sf.output;

  const CliResult parallel = runCli("geometry --beam parallel --detector arc -o " + path("x.json"));
  EXPECT_NE(parallel.exitCode, 0);
  EXPECT_NE(parallel.output.find("--detector"), std::string::npos) << parallel.output;
}

}  // namespace
}  // namespace tomowb

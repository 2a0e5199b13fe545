// `tomowb-cli demo --scan helical` (issue #19, point 4): a noisy helical scan reconstructed with
// helical FDK, written with its post-log projections and photon counts; the counts read back as
// weights for those projections (y = log(I0 / N)), and `recon fdk` on the projections file picks
// helical weights and the completely measured slab by itself.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/CliRun.h"
#include "recon/io/VolumeFiles.h"
#include "recon/io/WeightsFile.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

using test::CliResult;
using test::runCli;

TEST(HelicalDemoCli, WritesProjectionsAndCountsThatReadBackAsWeights) {
  const test::TempDir dir;
  const std::string out = (dir / "demo").string();
  const CliResult demo = runCli("demo --scan helical --size 32 -o " + out);
  ASSERT_EQ(demo.exitCode, 0) << demo.output;
  EXPECT_NE(demo.output.find("redundancy helical"), std::string::npos) << demo.output;
  std::ifstream in(dir / "demo" / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary.at("scan"), "helical");
  EXPECT_EQ(summary.at("weights").at("incidentPhotons"), 5e4);

  const ProjectionStack projections = io::readProjections(dir / "demo" / "projections.json");
  const ProjectionStack weights =
      io::readCountsAsWeights(dir / "demo" / "counts.json", projections);
  int counted = 0;
  for (std::int64_t i = 0; i < weights.pixelCount(); ++i) {
    const double n = weights.data()[i];
    ASSERT_EQ(n, std::round(n));
    if (n <= 0) continue;
    ++counted;
    ASSERT_NEAR(projections.data()[i], std::log(5e4 / n), 1e-5);
  }
  EXPECT_GT(counted, weights.pixelCount() / 2);

  const CliResult fdk = runCli("--no-record recon fdk -i " + out + "/projections.json -o " +
                               (dir / "fdk.mhd").string());
  ASSERT_EQ(fdk.exitCode, 0) << fdk.output;
  const Volume v = io::readVolume(dir / "fdk.mhd");
  EXPECT_GT(v.nz(), 1);
  EXPECT_LT(v.nz(), v.nx()) << "the measured slab, not the detector's height";
}

}  // namespace
}  // namespace tomowb

// `recon pwls` and `--projector MODEL` (issue #19, point 5): the matched pair of a model chosen by
// its name, explicit --fp/--bp winning over it, a model without a matched pair said so, an unknown
// model refused listing the known ones; PWLS's summary with its cost, and the RMSE with
// --reference, statistical weights read with --weights.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "cli/CliRun.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

using test::CliResult;
using test::runCli;

class PwlsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult p =
        runCli("-q phantom -o " + path("p.json") + " --truth " + path("t.mhd") +
               " --cols 32 --rows 20 --views 24 --size 16 --voxel-mm 2 --pitch-mm 4 "
               "--phantom-scale-mm 24");
    ASSERT_EQ(p.exitCode, 0) << p.output;
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  CliResult pwls(const std::string& options) const {
    return runCli("--no-record recon pwls -i " + path("p.json") + " -o " + path("x.mhd") +
                  " --size 16 --voxel-mm 2 --iterations 2 --subsets 2 " + options);
  }

  test::TempDir dir_;
};

TEST_F(PwlsCli, ProjectorModelChoosesItsMatchedPair) {
  CliResult r =
      pwls("--projector sf-tr --reference " + path("t.mhd") + " --weights " + path("p.json"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("pwls with sf.fp.cpu-tr + sf.bp.cpu-tr"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cost"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("RMSE"), std::string::npos) << r.output;
  r = pwls("--projector joseph --start zero");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("et.fp.cpu + et.bp.cpu-matched"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("from zero"), std::string::npos) << r.output;
}

TEST_F(PwlsCli, ExplicitProjectorsWinAndModelsWithoutAPairAreSaidSo) {
  CliResult r = pwls("--projector sf-tt --bp sf.bp.cpu-tr");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("sf.fp.cpu-tt + sf.bp.cpu-tr"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unmatched"), std::string::npos) << r.output;
  r = pwls("--projector voxel");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("no matched pair"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("et.bp.cpu-voxel"), std::string::npos) << r.output;
  r = pwls("--projector nope");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.output.find("'--projector'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sf-tr"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tomowb

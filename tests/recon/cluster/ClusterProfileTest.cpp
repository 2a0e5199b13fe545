#include <gtest/gtest.h>
#include <stdlib.h>

#include "recon/cluster/ClusterProfile.h"
#include "recon/core/Error.h"
#include "support/TestSupport.h"

namespace tomowb::cluster {
namespace {

ClusterProfile sample() {
  ClusterProfile p;
  p.name = "h100-pool";
  p.partition = "gpu";
  p.nodes = 4;
  p.tasksPerNode = 2;
  p.gpusPerNode = 2;
  p.cpusPerTask = 8;
  p.timeLimit = "1-02:00:00";
  p.account = "imaging";
  p.sshHost = "alice@login.example.org";
  p.workFolder = "/scratch/alice/tomowb";
  p.cliPath = "/opt/tomowb/bin/tomowb-cli";
  p.setupLines = {"module load cuda/12.4"};
  return p;
}

TEST(ClusterProfile, RoundTripsThroughJsonAndAFile) {
  const ClusterProfile p = sample();
  const ClusterProfile back = ClusterProfile::fromJson(p.toJson(), "p.json");
  EXPECT_EQ(back.toJson(), p.toJson());
  test::TempDir dir;
  saveProfile(p, dir / "sub" / "p.json");
  EXPECT_EQ(loadProfile(dir / "sub" / "p.json").toJson(), p.toJson());
  EXPECT_EQ(p.ranks(), 8);
}

TEST(ClusterProfile, RefusesValuesThatWouldBreakSbatchOrSshNamingTheField) {
  const auto refused = [](auto change, const std::string& field) {
    ClusterProfile p = sample();
    change(p);
    try {
      p.validate();
      ADD_FAILURE() << "accepted " << p.toJson().dump();
    } catch (const ParameterError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  refused([](ClusterProfile& p) { p.name = "../etc"; }, "name");
  refused([](ClusterProfile& p) { p.partition = "gpu --wrap=x"; }, "partition");
  refused([](ClusterProfile& p) { p.nodes = 0; }, "nodes");
  refused([](ClusterProfile& p) { p.timeLimit = "soon"; }, "timeLimit");
  refused([](ClusterProfile& p) { p.sshHost = "-oProxyCommand=x"; }, "sshHost");
  refused([](ClusterProfile& p) { p.workFolder = ""; }, "workFolder");
  refused([](ClusterProfile& p) { p.workFolder = "/a b"; }, "workFolder");
}

TEST(ClusterProfile, AFileWithAWrongTypeNamesTheFileAndTheField) {
  nlohmann::json j = sample().toJson();
  j["nodes"] = "four";
  try {
    ClusterProfile::fromJson(j, "/cfg/p.json");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("/cfg/p.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nodes"), std::string::npos) << e.what();
  }
}

TEST(ClusterProfile, ProfilesLiveInTheUsersConfigFolderAndAreFoundByName) {
  test::TempDir dir;
  ::setenv("XDG_CONFIG_HOME", dir.path().c_str(), 1);
  EXPECT_EQ(profileFolder(), dir / "TomoWorkbench" / "cluster" / "profiles");
  const ClusterProfile p = sample();
  saveProfile(p, profilePath(p.name));
  EXPECT_EQ(findProfile("h100-pool", "--profile").cpusPerTask, 8);
  EXPECT_EQ(listProfiles(profileFolder()).size(), 1U);
  try {
    findProfile("nope", "--profile");
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("h100-pool"), std::string::npos) << e.what();
  }
  ::unsetenv("XDG_CONFIG_HOME");
}

}  // namespace
}  // namespace tomowb::cluster

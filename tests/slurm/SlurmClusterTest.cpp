// The cluster client against a real single-node SLURM (tests/support/slurm-single-node.sh:
// munged, slurmctld and slurmd of Debian's slurm-wlm). Under ctest the fixture SlurmCluster.Start
// starts it once (TOMOWB_TEST_SLURM_DIR) and SlurmCluster.Stop ends it; run by hand, the binary
// starts its own and stops it at the end. Without the SLURM programs every test skips, saying so.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>

#include "cli/CliRun.h"
#include "recon/cluster/ExternalCommand.h"
#include "recon/cluster/SlurmClient.h"
#include "recon/core/Error.h"
#include "support/SlurmTestCluster.h"
#include "support/TestSupport.h"

namespace tomowb::cluster {
namespace {

namespace fs = std::filesystem;

class SlurmCluster : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = std::make_unique<test::SlurmTestCluster>(std::string(TOMOWB_TEST_SUPPORT_DIR) +
                                                        "/slurm-single-node.sh");
  }
  static void TearDownTestSuite() { cluster_.reset(); }
  void SetUp() override {
    if (!cluster_->installed()) GTEST_SKIP() << test::SlurmTestCluster::notInstalled();
    ASSERT_TRUE(cluster_->startError().empty())
        << "the test cluster did not start: " << cluster_->startError();
  }

  ClusterProfile profile(int tasks) const {
    ClusterProfile p;
    p.name = "test-local";
    p.partition = "test";
    p.tasksPerNode = tasks;
    p.timeLimit = "10:00";
    p.workFolder = (dir_ / "jobs").string();
    p.cliPath = TOMOWB_CLI_PATH;
    return p;
  }

  // Polls until the job is over (or `until` says stop), at most `seconds`.
  static JobStatus waitFor(SlurmClient& client, const ClusterJob& job, double seconds,
                           const std::function<bool(const JobStatus&)>& until = nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    JobStatus s;
    while (std::chrono::steady_clock::now() < deadline) {
      s = client.status(job);
      if (isFinal(s.state) || (until && until(s))) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "job " << job.jobId << " still " << s.summary() << " after " << seconds
                  << " s";
    return s;
  }

  static std::string bytesOf(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  test::TempDir dir_;
  static inline std::unique_ptr<test::SlurmTestCluster> cluster_;
};

TEST_F(SlurmCluster, AnFdkSlabRunOnTwoRanksLandsBitForBitAsALocalRun) {
  const std::string scan = (dir_ / "scan.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o " + scan + " --cols 64 --rows 64 --views 90").exitCode, 0);
  const std::vector<std::string> fdk = {"recon", "fdk",           "-i", scan, "--size",
                                        "64",    "--slab-slices", "8"};
  const std::string local = (dir_ / "local.raw").string();
  ASSERT_EQ(
      test::runCli("-q --no-record recon fdk -i " + scan + " --size 64 --slab-slices 8 -o " + local)
          .exitCode,
      0);

  SlurmClient client(profile(2));
  std::vector<std::string> args = fdk;
  args.insert(args.end(), {"-o", (dir_ / "cluster.raw").string()});
  const ClusterJob job = client.submit(client.prepare(args, "fdk64", dir_.path().string()));
  EXPECT_FALSE(job.jobId.empty());
  EXPECT_EQ(job.output, (dir_ / "cluster.raw").string());
  const JobStatus s = waitFor(client, job, 60);
  ASSERT_EQ(s.state, JobState::Done) << s.summary() << "\n" << client.log(job);
  EXPECT_TRUE(s.outputPresent);
  EXPECT_DOUBLE_EQ(s.fraction, 1.0);
  EXPECT_FALSE(s.source.empty());
  // Both ranks wrote their progress files to the end.
  ASSERT_TRUE(s.progress);
  EXPECT_EQ(s.progress->ranks, 2);
  EXPECT_EQ(s.progress->state, io::ProgressState::Done);
  EXPECT_EQ(bytesOf(dir_ / "cluster.raw"), bytesOf(local));
  EXPECT_FALSE(bytesOf(local).empty());
  // The job is on record for `cluster status` and the window.
  EXPECT_EQ(findJobRecord(job.jobId, "test-local", "job").output, job.output);
}

TEST_F(SlurmCluster, ACancelledRunStopsAndLeavesNoFinishedOutput) {
  const std::string scan = (dir_ / "big.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o " + scan + " --cols 128 --rows 128 --views 360").exitCode,
            0);
  SlurmClient client(profile(2));
  const std::string out = (dir_ / "volume.raw").string();
  const ClusterJob job = client.submit(
      client.prepare({"recon", "fdk", "-i", scan, "--size", "256", "--slab-slices", "2", "-o", out},
                     "big", dir_.path().string()));
  // Running, and at least one slab in: the progress file is being followed.
  const JobStatus running = waitFor(client, job, 60, [](const JobStatus& s) {
    return s.state == JobState::Running && s.slabsDone > 0;
  });
  ASSERT_EQ(running.state, JobState::Running) << running.summary() << "\n" << client.log(job);
  EXPECT_GT(running.slabsTotal, running.slabsDone);
  client.cancel(job);
  const JobStatus s = waitFor(client, job, 60);
  EXPECT_EQ(s.state, JobState::Cancelled) << s.summary();
  EXPECT_FALSE(s.outputPresent) << client.log(job);
  EXPECT_FALSE(fs::exists(out));
  // The ranks heard SIGTERM and said so in their progress files (what slurmd's KillWait allows).
  for (int rank = 0; rank < 2; ++rank) {
    const auto p =
        io::readProgressFile(io::progressPathForRank(progressPathIn(job.jobFolder), rank, 2));
    ASSERT_TRUE(p);
    EXPECT_NE(p->state, io::ProgressState::Done);
  }
}

TEST_F(SlurmCluster, ABadPartitionIsRefusedWithSbatchsOwnWords) {
  ClusterProfile p = profile(1);
  p.partition = "no-such-partition";
  SlurmClient client(p);
  try {
    client.submit(client.prepare({"variants"}, "bad", dir_.path().string()), false);
    FAIL() << "sbatch accepted a partition that does not exist";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("sbatch refused the job"), std::string::npos) << what;
    EXPECT_NE(what.find("invalid partition"), std::string::npos) << what;
    EXPECT_NE(what.find("no-such-partition"), std::string::npos) << what;
  }
}

TEST_F(SlurmCluster, AFailingRunIsFailedWithItsMessage) {
  SlurmClient client(profile(1));
  const ClusterJob job = client.submit(client.prepare(
      {"recon", "fdk", "-i", (dir_ / "missing.json").string(), "-o", (dir_ / "v.raw").string()},
      "fails", dir_.path().string()));
  const JobStatus s = waitFor(client, job, 60);
  EXPECT_EQ(s.state, JobState::Failed) << s.summary();
  EXPECT_NE(s.message.find("missing.json"), std::string::npos) << s.message;
}

TEST_F(SlurmCluster, TheSameRunFromAScriptThroughTheCli) {
  const std::string scan = (dir_ / "scan.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o " + scan + " --cols 32 --rows 32 --views 60").exitCode, 0);
  const std::string profileFile = (dir_ / "p.json").string();
  ASSERT_EQ(
      test::runCli("cluster profile cli-test --partition test --tasks-per-node 2 "
                   "--work-folder " +
                   (dir_ / "jobs").string() + " --cli " + TOMOWB_CLI_PATH + " -o " + profileFile)
          .exitCode,
      0);
  const test::CliResult submitted = test::runCli(
      "cluster submit --profile " + profileFile + " --wait --interval 0.2 -- recon fdk -i " + scan +
      " --size 32 --slab-slices 4 -o " + (dir_ / "v.raw").string());
  EXPECT_EQ(submitted.exitCode, 0) << submitted.output;
  EXPECT_NE(submitted.output.find("done"), std::string::npos) << submitted.output;
  EXPECT_TRUE(fs::exists(dir_ / "v.raw"));
  const std::string id = submitted.output.substr(0, submitted.output.find('\n'));
  const test::CliResult status = test::runCli("cluster status " + id + " --json");
  EXPECT_EQ(status.exitCode, 0) << status.output;
  EXPECT_NE(status.output.find("\"outputPresent\": true"), std::string::npos) << status.output;
}

TEST_F(SlurmCluster, TheSshRouteRunsTheSameCommandsQuotedForTheRemoteShell) {
  // A stand-in ssh that runs the remote command string here with sh (no sshd in the test).
  ::setenv("TOMOWB_CLUSTER_SSH", (std::string(TOMOWB_TEST_SUPPORT_DIR) + "/fake-ssh.sh").c_str(),
           1);
  const fs::path odd = dir_ / "it's a scan";
  fs::create_directories(odd);
  const std::string scan = (odd / "scan.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o \"" + scan + "\" --cols 32 --rows 32 --views 60").exitCode,
            0);
  ClusterProfile p = profile(1);
  p.sshHost = "login.example.org";
  SlurmClient client(p);
  const ClusterJob job = client.submit(
      client.prepare({"recon", "fdk", "-i", scan, "--size", "32", "-o", (odd / "v.raw").string()},
                     "ssh", dir_.path().string()));
  const JobStatus s = waitFor(client, job, 60);
  ::unsetenv("TOMOWB_CLUSTER_SSH");
  EXPECT_EQ(s.state, JobState::Done) << s.summary() << "\n" << client.log(job);
  EXPECT_TRUE(s.outputPresent);
  EXPECT_TRUE(fs::exists(odd / "v.raw"));
}

// The ssh route through a real OpenSSH server (tests/support/sshd-single-host.sh: sshd on
// 127.0.0.1, its own keys, the host "tomowb-test-login" in an ssh config as a user's would name a
// login node): the job script and sbatch go through the remote login shell (the scan in a folder
// whose name holds a quote), status and log come back through it, and scp fetches the result,
// the same bytes as the run wrote. sshd's log must show the logins, so no stand-in can pass.
TEST_F(SlurmCluster, TheSshRouteThroughARealSshdSubmitsFollowsAndFetches) {
  const std::string script = std::string(TOMOWB_TEST_SUPPORT_DIR) + "/sshd-single-host.sh";
  if (!runExternalCommand({"bash", script, "check"}).ok())
    GTEST_SKIP() << "openssh-server is not installed (scripts/setup.sh installs it)";
  if (::geteuid() != 0)
    GTEST_SKIP() << "the test's sshd runs as root (it needs /run/sshd, made by the service)";
  const fs::path sshd = dir_ / "sshd";
  CommandOptions options;
  options.timeout = std::chrono::seconds(30);
  const CommandResult started = runExternalCommand({"bash", script, "start", sshd}, options);
  ASSERT_TRUE(started.ok()) << started.describe();
  struct StopSshd {
    std::vector<std::string> stop;
    ~StopSshd() {
      runExternalCommand(stop);
      ::unsetenv("TOMOWB_CLUSTER_SSH");
      ::unsetenv("TOMOWB_CLUSTER_SCP");
    }
  } stopSshd{{"bash", script, "stop", sshd.string()}};
  ::setenv("TOMOWB_CLUSTER_SSH", (sshd / "ssh").c_str(), 1);
  ::setenv("TOMOWB_CLUSTER_SCP", (sshd / "scp").c_str(), 1);

  const fs::path odd = dir_ / "it's a scan";
  const fs::path out = dir_ / "out";
  fs::create_directories(odd);
  fs::create_directories(out);
  const std::string scan = (odd / "scan.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o \"" + scan + "\" --cols 32 --rows 32 --views 60").exitCode,
            0);
  ClusterProfile p = profile(1);
  p.sshHost = "tomowb-test-login";
  SlurmClient client(p);
  const ClusterJob job = client.submit(
      client.prepare({"recon", "fdk", "-i", scan, "--size", "32", "-o", (out / "v.raw").string()},
                     "real-ssh", dir_.path().string()));
  const JobStatus s = waitFor(client, job, 60);
  EXPECT_EQ(s.state, JobState::Done) << s.summary() << "\n" << client.log(job);
  EXPECT_TRUE(s.outputPresent);
  EXPECT_NE(client.log(job).find("wrote"), std::string::npos) << client.log(job);

  const fs::path fetched = client.fetchResult(job, dir_ / "fetched");
  EXPECT_EQ(fetched, dir_ / "fetched" / "v.json");
  EXPECT_TRUE(fs::exists(fetched));
  ASSERT_TRUE(fs::exists(dir_ / "fetched" / "v.raw"));
  EXPECT_EQ(bytesOf(dir_ / "fetched" / "v.raw"), bytesOf(out / "v.raw"));
  EXPECT_FALSE(bytesOf(out / "v.raw").empty());
  const std::string log = bytesOf(sshd / "sshd.log");
  EXPECT_NE(log.find("Accepted publickey"), std::string::npos) << log;
}

}  // namespace
}  // namespace tomowb::cluster
